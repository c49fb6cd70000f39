"""A rank's side of a window: who it is, its own slice, and data moved between ranks.

Inside a function a host dispatched to a rank (see `distributed_host`), a `!pypto.dist_tensor`
is bound to that rank's window; another rank's window is addressed by its rank number
(`%peer`, `0 <= %peer < nranks`):

    %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 64], f32> -> index
    %n = pypto.dist.nranks %w : !pypto.dist_tensor<[1, 64], f32> -> index
    %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
    %t = pypto.dist.remote_load %w[%i, %j], %peer : !pypto.dist_tensor<[1, 64], f32>, index -> !pypto.tile<[1, 64], f32, vec>
    pypto.dist.remote_store %t, %w[%i, %j], %peer : !pypto.tile<[1, 64], f32, vec>, !pypto.dist_tensor<[1, 64], f32>, index
    pypto.dist.put #pypto<atomic none> %dst, %peer, %src : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
    pypto.dist.get %dst, %peer, %src : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
    pypto.dist.barrier %sig : !pypto.dist_tensor<[2, 1], i32>

* `rank` / `nranks`: this rank's number and the group's size (PyPTO's `pld.rank(ctx)`,
  `pld.nranks(ctx)` of `pld.get_comm_ctx(w)`).
* `local`: this rank's window as a plain tensor in its own global memory (what `pl.load`,
  `pl.store`, `pl.read`, `pl.write` of a `pld.DistributedTensor` use).
* `remote_load` / `remote_store`: a tile read from / written into the window of rank
  `%peer` at the offsets.
* `put` copies this rank's `%src` (its window, or a tensor) into `%dst` on rank `%peer`
  (`atomic add` adds it); `get` copies `%src` of rank `%peer` into this rank's `%dst`.
* `barrier`: every rank of the group waits until all have reached it (`pld.tensor.barrier`;
  `%sig` is the signal window it synchronises through).

`rank`, `nranks` and `local` are not host ops (a host's view of a window belongs to no
rank); the data-moving ops run on a core, as the signal ops do.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import AtomicKind, AtomicKindAttr, FuncKind, TensorType, TileType
from pypto_xdsl.dialects.distributed import DistributedTensorType, verify_on_core
from pypto_xdsl.dialects.distributed_host import host_function_of
from pypto_xdsl.dialects.verification import pypto_op_definition


def _verify_on_rank(op: Operation) -> None:
    func = host_function_of(op)
    if func is not None and func.func_kind == FuncKind.HOST:
        raise VerifyException(
            f"{op.name} in host function @{func.sym_name.data}: a window belongs to a rank only "
            f"inside a function dispatched to it (pypto.dist.dispatch)"
        )


def _verify_peer(op: Operation, peer: SSAValue) -> None:
    t = peer.type
    if not (isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data > 1):
        raise VerifyException(f"the peer of {op.name} is a rank (an integer scalar), got {t}")


def _verify_window_offsets(window: DistributedTensorType, offsets: Sequence[SSAValue]) -> None:
    if len(offsets) != window.rank:
        raise VerifyException(f"the window {window} has rank {window.rank} but {len(offsets)} offsets were given")


def _verify_tile_fits(op: Operation, tile: TileType, window: DistributedTensorType) -> None:
    if tile.element_type != window.element_type:
        raise VerifyException(
            f"{op.name}: the tile {tile} and the window {window} have different element types"
        )
    if tile.rank != window.rank:
        raise VerifyException(f"{op.name}: the tile {tile} and the window {window} have different ranks")


class _RankQueryOp(IRDLOperation):
    def __init__(self, window: SSAValue | Operation):
        super().__init__(operands=[window], result_types=[IndexType()])

    def verify_(self) -> None:
        _verify_on_rank(self)


@pypto_op_definition
class RankOp(_RankQueryOp):
    """`%r = pypto.dist.rank %w : !pypto.dist_tensor<...> -> index`: this rank's number."""

    name = "pypto.dist.rank"
    window = operand_def(DistributedTensorType)
    result = result_def(IndexType)
    assembly_format = "$window attr-dict `:` type($window) `->` type($result)"


@pypto_op_definition
class NranksOp(_RankQueryOp):
    """`%n = pypto.dist.nranks %w : !pypto.dist_tensor<...> -> index`: the group's size."""

    name = "pypto.dist.nranks"
    window = operand_def(DistributedTensorType)
    result = result_def(IndexType)
    assembly_format = "$window attr-dict `:` type($window) `->` type($result)"


@pypto_op_definition
class LocalWindowOp(IRDLOperation):
    """`%l = pypto.dist.local %w : !pypto.dist_tensor<S, T> -> !pypto.tensor<S, T>`."""

    name = "pypto.dist.local"
    window = operand_def(DistributedTensorType)
    result = result_def(TensorType)
    assembly_format = "$window attr-dict `:` type($window) `->` type($result)"

    def __init__(self, window: SSAValue | Operation):
        t = SSAValue.get(window).type
        assert isinstance(t, DistributedTensorType)
        super().__init__(operands=[window], result_types=[TensorType(t.get_shape(), t.element_type)])

    def verify_(self) -> None:
        _verify_on_rank(self)
        w, r = self.window.type, self.result.type
        assert isinstance(w, DistributedTensorType) and isinstance(r, TensorType)
        if w.get_shape() != r.get_shape() or w.element_type != r.element_type:
            raise VerifyException(f"the local view of the window {w} is {TensorType(w.get_shape(), w.element_type)}, got {r}")


@pypto_op_definition
class RemoteLoadOp(IRDLOperation):
    """`%t = pypto.dist.remote_load %w[%i, %j], %peer : W, index -> !pypto.tile<...>`."""

    name = "pypto.dist.remote_load"
    window = operand_def(DistributedTensorType)
    offsets = var_operand_def(IndexType)
    peer = operand_def()
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "$window `[` $offsets `]` `,` $peer attr-dict `:` type($window) `,` type($peer) `->` type($result)"

    def __init__(
        self, window: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], peer: SSAValue | Operation,
        result_type: TileType,
    ):
        super().__init__(operands=[window, offsets, peer], result_types=[result_type])

    def verify_(self) -> None:
        verify_on_core(self)
        w = self.window.type
        assert isinstance(w, DistributedTensorType)
        _verify_window_offsets(w, self.offsets)
        _verify_peer(self, self.peer)
        _verify_tile_fits(self, self.result.type, w)  # type: ignore[arg-type]


@pypto_op_definition
class RemoteStoreOp(IRDLOperation):
    """`pypto.dist.remote_store %t, %w[%i, %j], %peer : TILE, W, index`."""

    name = "pypto.dist.remote_store"
    tile = operand_def(TileType)
    window = operand_def(DistributedTensorType)
    offsets = var_operand_def(IndexType)
    peer = operand_def()
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$tile `,` $window `[` $offsets `]` `,` $peer attr-dict `:` type($tile) `,` type($window) `,` type($peer)"
    )

    def __init__(
        self, tile: SSAValue | Operation, window: SSAValue | Operation, offsets: Sequence[SSAValue | Operation],
        peer: SSAValue | Operation,
    ):
        super().__init__(operands=[tile, window, offsets, peer])

    def verify_(self) -> None:
        verify_on_core(self)
        w = self.window.type
        assert isinstance(w, DistributedTensorType)
        _verify_window_offsets(w, self.offsets)
        _verify_peer(self, self.peer)
        _verify_tile_fits(self, self.tile.type, w)  # type: ignore[arg-type]


def _verify_copy(op: Operation, dst: SSAValue, src: SSAValue) -> None:
    verify_on_core(op)
    d, s = dst.type, src.type
    assert isinstance(d, DistributedTensorType)
    if not isinstance(s, DistributedTensorType | TensorType):
        raise VerifyException(f"the source of {op.name} is a window or a tensor, got {s}")
    if d.get_shape() != s.get_shape() or d.element_type != s.element_type:
        raise VerifyException(f"{op.name} copies a whole window: the source {s} does not match the destination {d}")


@pypto_op_definition
class PutOp(IRDLOperation):
    """`pypto.dist.put #pypto<atomic none> %dst, %peer, %src : W, index, S`: this rank's `%src`
    into `%dst` of rank `%peer`."""

    name = "pypto.dist.put"
    dst = operand_def(DistributedTensorType)
    peer = operand_def()
    src = operand_def()
    atomic = prop_def(AtomicKindAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$atomic $dst `,` $peer `,` $src attr-dict `:` type($dst) `,` type($peer) `,` type($src)"

    def __init__(
        self, dst: SSAValue | Operation, peer: SSAValue | Operation, src: SSAValue | Operation,
        atomic: AtomicKind = AtomicKind.NONE,
    ):
        super().__init__(operands=[dst, peer, src], properties={"atomic": AtomicKindAttr(atomic)})

    def verify_(self) -> None:
        _verify_copy(self, self.dst, self.src)
        _verify_peer(self, self.peer)


@pypto_op_definition
class GetOp(IRDLOperation):
    """`pypto.dist.get %dst, %peer, %src : W, index, W`: `%src` of rank `%peer` into this
    rank's `%dst`."""

    name = "pypto.dist.get"
    dst = operand_def(DistributedTensorType)
    peer = operand_def()
    src = operand_def(DistributedTensorType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$dst `,` $peer `,` $src attr-dict `:` type($dst) `,` type($peer) `,` type($src)"

    def __init__(self, dst: SSAValue | Operation, peer: SSAValue | Operation, src: SSAValue | Operation):
        super().__init__(operands=[dst, peer, src])

    def verify_(self) -> None:
        _verify_copy(self, self.dst, self.src)
        _verify_peer(self, self.peer)


@pypto_op_definition
class BarrierOp(IRDLOperation):
    """`pypto.dist.barrier %sig : !pypto.dist_tensor<[R, C], i32>`: all ranks rendezvous."""

    name = "pypto.dist.barrier"
    signal = operand_def(DistributedTensorType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$signal attr-dict `:` type($signal)"

    def __init__(self, signal: SSAValue | Operation):
        super().__init__(operands=[signal])

    def verify_(self) -> None:
        verify_on_core(self)
        t = self.signal.type
        assert isinstance(t, DistributedTensorType)
        if not isinstance(t.element_type, IntegerType):
            raise VerifyException(f"a barrier synchronises through a signal matrix of integers, got {t}")


COMM_OPS = [RankOp, NranksOp, LocalWindowOp, RemoteLoadOp, RemoteStoreOp, PutOp, GetOp, BarrierOp]
