"""Lowering of `pld.system.notify / wait / defer_wait` (see pypto_xdsl.dialects.distributed),
and of the rank-group ops: `pld.world_size`, `pld.alloc_window_buffer`, `pld.window` in a
host function, `pld.get_comm_ctx` / `pld.rank` / `pld.nranks`, `pld.tensor.put / get /
barrier` and `pld.tile.remote_load / remote_store` on a rank (dialects/distributed_host.py,
distributed_comm.py).

Offsets may be `index` values or integer scalars (an integer is converted with
`arith.index_cast`, as PyPTO accepts any integer there); literals for `peer`, `value` and
`expected` become constants of the signal's element type.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import INCORE_KINDS, AtomicKind, FuncKind, MemorySpace, TileType
from pypto_xdsl.dialects.distributed import (
    DeferWaitOp,
    DistributedTensorType,
    NotifyOp,
    WaitOp,
)
from pypto_xdsl.dialects.distributed_comm import (
    BarrierOp,
    GetOp,
    NranksOp,
    PutOp,
    RankOp,
    RemoteLoadOp,
    RemoteStoreOp,
)
from pypto_xdsl.dialects.distributed_host import AllocWindowOp, WindowBufferType, WindowOp, WorldSizeOp
from pypto_xdsl.frontend.ops import HANDLERS, Args
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import distributed as pld
from pypto_xdsl.language import types as T
from pypto_xdsl.language.distributed.system import FAMILY, HOST_FAMILY, TENSOR_FAMILY, TILE_FAMILY

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder


def _signal(a: Args, name: str) -> SSAValue:
    v = a.value(name)
    if not isinstance(v, SSAValue) or not isinstance(v.type, DistributedTensorType):
        raise a.fb.error(
            a.node_of(name),
            f"'{name}' of {a.qual} must be a signal matrix (a pld.DistributedTensor parameter), got "
            f"{describe(v)}: a plain tensor has no communication window",
        )
    return v


def _offsets(a: Args, name: str, rank: int) -> list[SSAValue]:
    fb, node = a.fb, a.node_of(name)
    values = a.value(name)
    if not isinstance(values, list | tuple):
        raise fb.error(node, f"'{name}' of {a.qual} must be a list, got {describe(values)}")
    if len(values) != rank:
        raise fb.error(node, f"'{name}' of {a.qual} needs {rank} entries (the signal's rank), got {len(values)}")
    out = []
    for v in values:
        if isinstance(v, SSAValue) and isinstance(v.type, IntegerType) and v.type.width.data > 1:
            cast = arith.IndexCastOp(v, IndexType())
            fb.emit(cast, node)
            out.append(cast.result)
        else:
            out.append(fb.index(v, node))
    return out


def _integer(a: Args, name: str, like: SSAValue) -> SSAValue:
    fb = a.fb
    v = a.value(name)
    element = like.type.element_type  # type: ignore[attr-defined]
    if isinstance(v, Const):
        if not isinstance(v.value, int) or isinstance(v.value, bool):
            raise fb.error(a.node_of(name), f"'{name}' of {a.qual} must be an integer, got {describe(v)}")
        return fb.materialize(v, element, a.node_of(name))
    if not isinstance(v, SSAValue) or not (
        isinstance(v.type, IndexType) or isinstance(v.type, IntegerType) and v.type.width.data > 1
    ):
        raise fb.error(a.node_of(name), f"'{name}' of {a.qual} must be an integer scalar, got {describe(v)}")
    return v


def _on_core(fb: FunctionBuilder, node: ast.AST, qual: str) -> None:
    kind = fb.decl.kind
    if not fb.in_scope and kind not in INCORE_KINDS and kind != FuncKind.INLINE:
        raise fb.error(node, f"{qual} runs on a core: put it inside a pl.at(...) scope")


def _enum(a: Args, name: str, cls: type) -> Any:
    if name not in a:
        raise a.fb.error(a.node, f"{a.qual} needs {name}= (a pld.{cls.__name__} member)")
    v = a.value(name)
    if not isinstance(v, cls):
        raise a.fb.error(a.node_of(name), f"'{name}' of {a.qual} must be a pld.{cls.__name__} member, got {describe(v)}")
    return v.value


def _notify(fb: FunctionBuilder, node: ast.Call, qual: str) -> None:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["target", "peer", "offsets", "value", "op"], 4)
    signal = _signal(a, "target")
    offsets = _offsets(a, "offsets", signal.type.rank)  # type: ignore[attr-defined]
    peer = _integer(a, "peer", signal)
    value = _integer(a, "value", signal)
    kind = _enum(a, "op", pld.NotifyOp)
    fb.emit(NotifyOp(signal, offsets, peer, value, kind), node)


def _waiter(cls: type):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> None:
        _on_core(fb, node, qual)
        a = Args(fb, node, qual, ["signal", "offsets", "expected", "cmp"], 3)
        signal = _signal(a, "signal")
        offsets = _offsets(a, "offsets", signal.type.rank)  # type: ignore[attr-defined]
        expected = _integer(a, "expected", signal)
        cmp = _enum(a, "cmp", pld.WaitCmp)
        op = cls(signal, offsets, expected, cmp)
        try:
            op.verify_()
        except Exception as e:  # the op's own checks (defer_wait: ge, i32), located here
            raise fb.error(node, f"{qual}: {e}") from None
        fb.emit(op, node, verify=False)

    return handle


HANDLERS[(FAMILY, "notify")] = _notify
HANDLERS[(FAMILY, "wait")] = _waiter(WaitOp)
HANDLERS[(FAMILY, "defer_wait")] = _waiter(DeferWaitOp)


# --------------------------------------------------------------------------- rank groups


@dataclass(frozen=True)
class CommCtx:
    """`pld.get_comm_ctx(w)`: the communication context of window `w` (its rank, its group)."""

    window: SSAValue


def _on_host(fb: FunctionBuilder, node: ast.AST, qual: str) -> None:
    if fb.decl.kind != FuncKind.HOST:
        raise fb.error(
            node, f"{qual} runs on the host of a rank group: call it in a @pl.jit.host function "
            f"(a rank reads its group through pld.get_comm_ctx(window))",
        )


def _on_rank(fb: FunctionBuilder, node: ast.AST, qual: str) -> None:
    if fb.decl.kind == FuncKind.HOST:
        raise fb.error(
            node, f"{qual} runs on a rank: call it in a function the host dispatches with device= "
            f"(the host's window belongs to no rank)",
        )


def _window(a: Args, name: str) -> SSAValue:
    v = a.value(name)
    if not isinstance(v, SSAValue) or not isinstance(v.type, DistributedTensorType):
        raise a.fb.error(
            a.node_of(name), f"'{name}' of {a.qual} must be a window (a pld.DistributedTensor), got {describe(v)}"
        )
    return v


def _rank_value(a: Args, name: str) -> SSAValue:
    if name not in a:
        raise a.fb.error(a.node, f"{a.qual} needs {name}= (a rank number)")
    v = a.value(name)
    if isinstance(v, SSAValue) and isinstance(v.type, IntegerType) and v.type.width.data > 1:
        return v
    if isinstance(v, Const | SSAValue):
        return a.fb.index(v, a.node_of(name))
    raise a.fb.error(a.node_of(name), f"'{name}' of {a.qual} must be a rank number, got {describe(v)}")


def _element(a: Args, name: str):
    dtype = a.dtype(name)
    if dtype.name == "INDEX":
        raise a.fb.error(a.node_of(name), f"a window's elements cannot be pl.INDEX ({a.qual})")
    return dtype.to_ir()


def _emit_verified(fb: FunctionBuilder, node: ast.AST, qual: str, op: Operation) -> Operation:
    """Emit `op` and run its verifier in place (it looks at the enclosing function), so a
    violation is reported at the call."""
    fb.emit(op, node, verify=False)
    try:
        op.verify_()
    except VerifyException as e:
        raise fb.error(node, f"{qual}: {e}") from None
    return op


def _world_size(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    _on_host(fb, node, qual)
    Args(fb, node, qual, [], 0)
    return _emit_verified(fb, node, qual, WorldSizeOp()).results[0]


def _alloc_window_buffer(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    _on_host(fb, node, qual)
    a = Args(fb, node, qual, ["shape", "dtype"], 2)
    shape = a.shape("shape")
    if not all(isinstance(d, int) for d in shape):
        raise fb.error(a.node_of("shape"), f"{qual}: a window buffer has a static shape, got {shape}")
    return _emit_verified(fb, node, qual, AllocWindowOp(WindowBufferType(shape, _element(a, "dtype")))).results[0]


def _window_view(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    _on_host(fb, node, qual)
    a = Args(fb, node, qual, ["buffer", "shape", "dtype"], 2)
    buf = a.value("buffer")
    if not isinstance(buf, SSAValue) or not isinstance(buf.type, WindowBufferType):
        raise fb.error(
            a.node_of("buffer"), f"'buffer' of {qual} must be a window buffer (pld.alloc_window_buffer), got {describe(buf)}"
        )
    element = _element(a, "dtype") if "dtype" in a else buf.type.element_type
    view = DistributedTensorType(a.shape("shape"), element)
    return _emit_verified(fb, node, qual, WindowOp(buf, view)).results[0]


def _get_comm_ctx(fb: FunctionBuilder, node: ast.Call, qual: str) -> CommCtx:
    _on_rank(fb, node, qual)
    a = Args(fb, node, qual, ["tensor"], 1)
    return CommCtx(_window(a, "tensor"))


def _rank_query(cls: type):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        _on_rank(fb, node, qual)
        a = Args(fb, node, qual, ["ctx"], 1)
        ctx = a.value("ctx")
        if isinstance(ctx, SSAValue) and isinstance(ctx.type, DistributedTensorType):
            ctx = CommCtx(ctx)
        if not isinstance(ctx, CommCtx):
            raise fb.error(a.node_of("ctx"), f"{qual} takes a communication context (pld.get_comm_ctx(window)), got {describe(ctx)}")
        return _emit_verified(fb, node, qual, cls(ctx.window)).results[0]

    return handle


def _barrier(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["signal"], 1)
    signal = _window(a, "signal")
    _emit_verified(fb, node, qual, BarrierOp(signal))
    return signal


def _put(fb: FunctionBuilder, node: ast.Call, qual: str) -> None:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["dst", "peer", "src", "atomic"], 3)
    dst = _window(a, "dst")
    peer = _rank_value(a, "peer")
    src = a.value("src")
    if not isinstance(src, SSAValue):
        raise fb.error(a.node_of("src"), f"'src' of {qual} must be a window or a tensor, got {describe(src)}")
    atomic = AtomicKind.NONE
    if "atomic" in a:
        v = a.value("atomic")
        if not isinstance(v, T.AtomicType):
            raise fb.error(a.node_of("atomic"), f"'atomic' of {qual} must be a pld.AtomicType member, got {describe(v)}")
        atomic = v.value
    _emit_verified(fb, node, qual, PutOp(dst, peer, src, atomic))


def _get(fb: FunctionBuilder, node: ast.Call, qual: str) -> None:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["dst", "peer", "src"], 3)
    _emit_verified(fb, node, qual, GetOp(_window(a, "dst"), _rank_value(a, "peer"), _window(a, "src")))


def _remote_load(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["tensor", "peer", "offsets", "shape"], 4)
    window = _window(a, "tensor")
    peer = _rank_value(a, "peer")
    offsets = a.offsets("offsets", window.type.rank)  # type: ignore[attr-defined]
    tile = TileType(a.shape("shape"), window.type.element_type, MemorySpace.VEC)  # type: ignore[attr-defined]
    return _emit_verified(fb, node, qual, RemoteLoadOp(window, offsets, peer, tile)).results[0]


def _remote_store(fb: FunctionBuilder, node: ast.Call, qual: str) -> None:
    _on_core(fb, node, qual)
    a = Args(fb, node, qual, ["tile", "tensor", "peer", "offsets"], 4)
    tile = a.tile("tile")
    window = _window(a, "tensor")
    peer = _rank_value(a, "peer")
    offsets = a.offsets("offsets", window.type.rank)  # type: ignore[attr-defined]
    _emit_verified(fb, node, qual, RemoteStoreOp(tile, window, offsets, peer))


HANDLERS[(HOST_FAMILY, "world_size")] = _world_size
HANDLERS[(HOST_FAMILY, "alloc_window_buffer")] = _alloc_window_buffer
HANDLERS[(HOST_FAMILY, "window")] = _window_view
HANDLERS[(HOST_FAMILY, "get_comm_ctx")] = _get_comm_ctx
HANDLERS[(HOST_FAMILY, "rank")] = _rank_query(RankOp)
HANDLERS[(HOST_FAMILY, "nranks")] = _rank_query(NranksOp)
HANDLERS[(TENSOR_FAMILY, "barrier")] = _barrier
HANDLERS[(TENSOR_FAMILY, "put")] = _put
HANDLERS[(TENSOR_FAMILY, "get")] = _get
HANDLERS[(TILE_FAMILY, "remote_load")] = _remote_load
HANDLERS[(TILE_FAMILY, "remote_store")] = _remote_store
