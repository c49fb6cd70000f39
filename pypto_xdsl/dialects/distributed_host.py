"""Multi-rank programs: the host orchestrator, its window buffers and per-rank dispatch.

A `host` function (PyPTO's `@pl.jit.host`) runs on the host CPU of a group of N ranks (one
NPU device each, each with its own global memory). It allocates window buffers, takes
per-rank views of them and launches an orchestration function on each rank:

    %n = pypto.dist.world_size : index
    %buf = pypto.dist.alloc_window : !pypto.window_buffer<[1, 64], f32>
    %w = pypto.dist.window %buf : !pypto.window_buffer<[1, 64], f32> -> !pypto.dist_tensor<[1, 64], f32>
    pypto.dist.dispatch @per_rank(%x, %w) device %r : (!pypto.tensor<[1, 64], f32>, !pypto.dist_tensor<[1, 64], f32>), index

* `world_size` is the number of ranks the program runs on: the group's size, fixed when the
  program is compiled for a device list (the IR does not depend on it).
* `alloc_window` allocates one buffer per rank of the group, each in its rank's global
  memory and visible to every rank (the communication window); it starts zeroed.
* `window` is a view of a buffer as a `!pypto.dist_tensor` (at most the buffer's elements,
  the same element type): the tensor a per-rank function reads and writes as its own and
  addresses on other ranks (`pypto.dist.remote_load`, `pypto.system.notify`, ...).
* `dispatch` launches the orchestration function `@f` on rank `%device` (`0 <= %device <
  world_size`), asynchronously: the ranks run concurrently, each a `dist_tensor` argument
  bound to its own rank's window, and the host function returns once every launch ends. A
  dispatch's results, if the callee has any, are not returned to the host (results reach
  the host through `out` tensors).

The ops live in `host` functions only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    FlatSymbolRefAttrConstr,
    IndexType,
    IntAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    Dim,
    FuncKind,
    InternedParsedType,
    ShapedTypeMixin,
    ShapeElementSyntax,
    dim_to_attr,
    format_shape,
)
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.dialects.verification import pypto_op_definition


@irdl_attr_definition
class WindowBufferType(ShapedTypeMixin, ShapeElementSyntax, InternedParsedType, TypeAttribute):
    """`!pypto.window_buffer<[1, 64], f32>`: a communication window, one buffer per rank."""

    name = "pypto.window_buffer"
    shape: ArrayAttr[IntAttr | StringAttr]
    element_type: Attribute

    def __init__(self, shape: Iterable[Dim], element_type: Attribute):
        super().__init__(ArrayAttr(dim_to_attr(d) for d in shape), element_type)

    def verify(self) -> None:
        self._verify_shape("window buffer")
        if not all(isinstance(d, int) for d in self.get_shape()):
            raise VerifyException(f"a window buffer has a static shape, got {format_shape(self.get_shape())}")

    @property
    def element_count(self) -> int:
        count = 1
        for d in self.get_shape():
            count *= d  # type: ignore[operator]
        return count



def host_function_of(op: Operation):
    """The `pypto.func` around `op`, or None."""
    from pypto_xdsl.dialects.functions import FuncOp

    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def verify_in_host(op: Operation) -> None:
    func = host_function_of(op)
    if func is not None and func.func_kind != FuncKind.HOST:
        raise VerifyException(
            f"{op.name} in {func.func_kind.value} function @{func.sym_name.data}: it runs on the host "
            f"of a rank group, in a host function (@pl.jit.host)"
        )


@pypto_op_definition
class WorldSizeOp(IRDLOperation):
    """`%n = pypto.dist.world_size : index`: the number of ranks of the group."""

    name = "pypto.dist.world_size"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        verify_in_host(self)


@pypto_op_definition
class AllocWindowOp(IRDLOperation):
    """`%b = pypto.dist.alloc_window : !pypto.window_buffer<[1, 64], f32>` (one per rank, zeroed)."""

    name = "pypto.dist.alloc_window"
    buffer = result_def(WindowBufferType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict `:` type($buffer)"

    def __init__(self, buffer_type: WindowBufferType):
        super().__init__(result_types=[buffer_type])

    def verify_(self) -> None:
        verify_in_host(self)


@pypto_op_definition
class WindowOp(IRDLOperation):
    """`%w = pypto.dist.window %b : !pypto.window_buffer<...> -> !pypto.dist_tensor<...>`."""

    name = "pypto.dist.window"
    buffer = operand_def(WindowBufferType)
    result = result_def(DistributedTensorType)
    assembly_format = "$buffer attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue | Operation, result_type: DistributedTensorType):
        super().__init__(operands=[buffer], result_types=[result_type])

    def verify_(self) -> None:
        verify_in_host(self)
        buf, view = self.buffer.type, self.result.type
        assert isinstance(buf, WindowBufferType) and isinstance(view, DistributedTensorType)
        if view.element_type != buf.element_type:
            raise VerifyException(
                f"the window {view} has element type {view.element_type} but its buffer {buf} holds {buf.element_type}"
            )
        shape = view.get_shape()
        if not all(isinstance(d, int) for d in shape):
            raise VerifyException(f"a window has a static shape, got {view}")
        count = 1
        for d in shape:
            count *= d  # type: ignore[operator]
        if count > buf.element_count:
            raise VerifyException(
                f"the window {view} has {count} elements, more than its buffer {buf} ({buf.element_count})"
            )


class DispatchSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        from pypto_xdsl.analysis.symbols import lookup_symbol
        from pypto_xdsl.dialects.calls import check_call_signature
        from pypto_xdsl.dialects.functions import FuncOp

        assert isinstance(op, DispatchOp)
        name = op.callee.string_value()
        callee = lookup_symbol(op, name)
        if isinstance(callee, FuncOp) and callee.func_kind != FuncKind.ORCHESTRATION:
            raise VerifyException(
                f"pypto.dist.dispatch launches an orchestration function on a rank; @{name} is a "
                f"{callee.func_kind.value} function"
            )
        outputs = callee.function_type.outputs.data if isinstance(callee, FuncOp) else ()
        check_call_signature(op, name, op.args, outputs)


@pypto_op_definition
class DispatchOp(IRDLOperation):
    """`pypto.dist.dispatch @f(%a, %w) device %r : (A, W), index`: launch `@f` on rank `%r`."""

    name = "pypto.dist.dispatch"
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    device = operand_def()
    traits = traits_def(DispatchSymbolUser(), MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$callee `(` $args `)` `device` $device attr-dict `:` `(` type($args) `)` `,` type($device)"

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation], device: SSAValue | Operation):
        super().__init__(operands=[args, device], properties={"callee": SymbolRefAttr(callee)})

    def verify_(self) -> None:
        verify_in_host(self)
        t = self.device.type
        if not (isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data > 1):
            raise VerifyException(f"the device of pypto.dist.dispatch is a rank (an integer scalar), got {t}")


HOST_OPS = [WorldSizeOp, AllocWindowOp, WindowOp, DispatchOp]
HOST_ATTRIBUTES = [WindowBufferType]
