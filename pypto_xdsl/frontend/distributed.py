"""Lowering of `pld.system.notify / wait / defer_wait` (see pypto_xdsl.dialects.distributed).

Offsets may be `index` values or integer scalars (an integer is converted with
`arith.index_cast`, as PyPTO accepts any integer there); literals for `peer`, `value` and
`expected` become constants of the signal's element type.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import SSAValue

from pypto_xdsl.dialects.attributes import INCORE_KINDS, FuncKind
from pypto_xdsl.dialects.distributed import (
    DeferWaitOp,
    DistributedTensorType,
    NotifyOp,
    WaitOp,
)
from pypto_xdsl.frontend.ops import HANDLERS, Args
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import distributed as pld
from pypto_xdsl.language.distributed.system import FAMILY

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
