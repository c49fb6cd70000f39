"""A rank's windows as one device sees them: what `localize-windows` makes of the window ops.

On a device, a communication window is not a value the host passes: it lives in the rank's
communication region (HCCL's *windows in*, one region per rank of the group, each visible
to every rank), at a byte offset the host gives. After `localize-windows` a window
parameter is that offset (an `i64`), and a core reaches the window's memory, its own or a
peer's, through these ops:

    %w = pypto.dist.window_at %off : i64 -> !pypto.tensor<[1, 64], f32>
    %p = pypto.dist.window_at %off rank %peer : i64, index -> !pypto.tensor<[1, 64], f32>
    %r = pypto.dist.device_rank : index
    %n = pypto.dist.device_nranks : index

* `window_at`: the window at byte offset `%off` of this rank's communication region (with
  `rank %peer`: of rank `%peer`'s region), as a tensor of global memory. Ascend C:
  `hccl.GetWindowsInAddr(rank) + off`.
* `device_rank` / `device_nranks`: this device's rank and the group's size
  (`hccl.GetRankId()`, `hccl.GetRankDim()`).

They run on a core (an InCore function, a `pypto.incore_scope` or an inline helper).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, opt_operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.dialects.distributed import verify_on_core
from pypto_xdsl.dialects.verification import pypto_op_definition


@pypto_op_definition
class WindowAtOp(IRDLOperation):
    """`%w = pypto.dist.window_at %off [rank %peer] : i64[, index] -> !pypto.tensor<S, T>`."""

    name = "pypto.dist.window_at"
    offset = operand_def(IntegerType)
    peer = opt_operand_def()
    result = result_def(TensorType)
    assembly_format = "$offset (`rank` $peer^)? attr-dict `:` type($offset) (`,` type($peer)^)? `->` type($result)"

    def __init__(self, offset: SSAValue | Operation, result_type: TensorType, peer: SSAValue | Operation | None = None):
        super().__init__(operands=[offset, [] if peer is None else [peer]], result_types=[result_type])

    def verify_(self) -> None:
        verify_on_core(self)
        if self.offset.type != i64:
            raise VerifyException(f"the offset of pypto.dist.window_at is a byte offset (i64), got {self.offset.type}")
        if self.peer is not None:
            t = self.peer.type
            if not (isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data > 1):
                raise VerifyException(f"the rank of pypto.dist.window_at is an integer scalar, got {t}")
        r = self.result.type
        assert isinstance(r, TensorType)
        if not r.is_static():
            raise VerifyException(f"a window has a static shape, got {r}")


class _DeviceQueryOp(IRDLOperation):
    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        verify_on_core(self)


@pypto_op_definition
class DeviceRankOp(_DeviceQueryOp):
    """`%r = pypto.dist.device_rank : index`: this device's rank in its group."""

    name = "pypto.dist.device_rank"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"


@pypto_op_definition
class DeviceNranksOp(_DeviceQueryOp):
    """`%n = pypto.dist.device_nranks : index`: the number of ranks of this device's group."""

    name = "pypto.dist.device_nranks"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"


DEVICE_OPS = [WindowAtOp, DeviceRankOp, DeviceNranksOp]
