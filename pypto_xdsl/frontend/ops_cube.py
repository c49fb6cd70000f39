"""Cube ops: the operands of tile matmuls, and PyPTO's GEMV family.

PyPTO's tile matmuls read their left operand from L0A (`left`), the right one from L0B
(`right`) and a bias row from the bias table (`bias`); a `mat` (L1) operand is moved there by
its passes. Here the frontend does it: `cube_operands` / `cube_bias` put a `tile.move` before
the op for an operand in `mat`, and leave operands already in place alone (the dialect's
verifiers keep asking for `left` / `right` / `bias`).

`pl.tile.gemv(lhs, rhs, acc_phase="unspecified")`, `gemv_acc(acc, lhs, rhs, acc_phase=...)`
and `gemv_bias(lhs, rhs, bias, acc_phase=...)` are PyPTO's M == 1 matmuls: `lhs` is one row
[1, K] (physically and valid), the inputs are int8, f16, bf16 or f32 of one type, the result
[1, N] is the accumulator (i32 for int8, else f32). They lower to `tile.matmul`,
`tile.matmul_acc` and `tile.matmul_bias`: `acc_phase` (`unspecified`, `partial`, `final`)
only picks the hardware's instruction form and is checked, not kept.

`pl.batch_matmul(lhs, rhs)` / `pl.tile.batch_matmul` and `pl.tile.batch_matmul_acc(acc, lhs,
rhs)` are PyPTO's batched tile matmuls ([*B, M, K] x [*B, K, N], batch dims broadcast):
`tile.batch_matmul` / `tile.batch_matmul_acc`, their `mat` operands moved to `left` / `right`
as for `tile.matmul`. They take tiles only (PyPTO's rule): a batched tensor matmul is
`pl.matmul` with an operand of rank > 2.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType
from xdsl.ir import SSAValue

from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import MemorySpace, TensorType, TileType
from pypto_xdsl.frontend.ops import Args
from pypto_xdsl.frontend.values import Const, describe

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder
    from pypto_xdsl.frontend.ops import Handler

ACC_PHASES = ("unspecified", "partial", "final")


def _moved(fb: FunctionBuilder, node: ast.AST, value: SSAValue, space: MemorySpace) -> SSAValue:
    t = value.type
    if isinstance(t, TileType) and t.space == MemorySpace.MAT:
        return fb.build_op(node, lambda: tile_ops.MoveOp(value, space))
    return value


def cube_operands(fb: FunctionBuilder, node: ast.AST, lhs: SSAValue, rhs: SSAValue) -> tuple[SSAValue, SSAValue]:
    """A `mat` lhs moved to `left`, a `mat` rhs to `right` (PyPTO's input memories of matmul)."""
    return _moved(fb, node, lhs, MemorySpace.LEFT), _moved(fb, node, rhs, MemorySpace.RIGHT)


def cube_bias(fb: FunctionBuilder, node: ast.AST, bias: SSAValue) -> SSAValue:
    """A `mat` bias row moved to the bias table."""
    return _moved(fb, node, bias, MemorySpace.BIAS)


def _gemv_checks(fb: FunctionBuilder, a: Args, lhs: SSAValue, rhs: SSAValue) -> None:
    qual = a.qual
    if "acc_phase" in a:
        v = a.value("acc_phase")
        phase = v.value if isinstance(v, Const) else v
        if phase not in ACC_PHASES:
            raise fb.error(
                a.node_of("acc_phase"),
                f"'acc_phase' of {qual} must be one of {', '.join(repr(p) for p in ACC_PHASES)}, got {describe(v)}",
            )
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, TileType) and isinstance(rt, TileType)
    if lt.rank != 2 or lt.get_shape()[0] != 1:
        raise fb.error(a.node_of("lhs"), f"{qual}: 'lhs' must be one row [1, K], got {lt}")
    if lt.element_type != rt.element_type:
        raise fb.error(
            a.node, f"{qual}: 'lhs' and 'rhs' must have one element type, got {lt.element_type} and {rt.element_type}"
        )
    e = lt.element_type
    if not (
        isinstance(e, Float16Type | BFloat16Type | Float32Type) or (isinstance(e, IntegerType) and e.width.data == 8)
    ):
        raise fb.error(a.node_of("lhs"), f"{qual} takes int8, f16, bf16 or f32 inputs, got {e}")


def _gemv(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["lhs", "rhs", "acc_phase"], 2)
    lhs, rhs = a.tile("lhs"), a.tile("rhs")
    _gemv_checks(fb, a, lhs, rhs)
    lhs, rhs = cube_operands(fb, node, lhs, rhs)
    return fb.build_op(node, lambda: tile_ops.MatmulOp(lhs, rhs))


def _gemv_acc(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["acc", "lhs", "rhs", "acc_phase"], 3)
    acc, lhs, rhs = a.tile("acc"), a.tile("lhs"), a.tile("rhs")
    _gemv_checks(fb, a, lhs, rhs)
    lhs, rhs = cube_operands(fb, node, lhs, rhs)
    return fb.build_op(node, lambda: tile_ops.MatmulAccOp(acc, lhs, rhs))


def _gemv_bias(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["lhs", "rhs", "bias", "acc_phase"], 3)
    lhs, rhs, bias = a.tile("lhs"), a.tile("rhs"), a.tile("bias")
    _gemv_checks(fb, a, lhs, rhs)
    lhs, rhs = cube_operands(fb, node, lhs, rhs)
    bias = cube_bias(fb, node, bias)
    return fb.build_op(node, lambda: tile_ops.MatmulBiasOp(lhs, rhs, bias))


def _tile_operand(a: Args, name: str) -> SSAValue:
    v = a.value(name)
    if isinstance(v, SSAValue) and isinstance(v.type, TensorType):
        raise a.fb.error(
            a.node_of(name),
            f"{a.qual} takes tiles, got {describe(v)}; a tensor matmul with an operand of rank > 2 is "
            "batched: use pl.matmul",
        )
    return a.tile(name)


def _batch_matmul(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["lhs", "rhs"], 2)
    lhs, rhs = cube_operands(fb, node, _tile_operand(a, "lhs"), _tile_operand(a, "rhs"))
    return fb.build_op(node, lambda: tile_ops.BatchMatmulOp(lhs, rhs))


def _batch_matmul_acc(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["acc", "lhs", "rhs"], 3)
    acc = _tile_operand(a, "acc")
    lhs, rhs = cube_operands(fb, node, _tile_operand(a, "lhs"), _tile_operand(a, "rhs"))
    return fb.build_op(node, lambda: tile_ops.BatchMatmulAccOp(acc, lhs, rhs))


def register(handlers: dict[tuple[str, str], Handler]) -> None:
    handlers[("", "batch_matmul")] = handlers[("tile", "batch_matmul")] = _batch_matmul
    handlers[("tile", "batch_matmul_acc")] = _batch_matmul_acc
    handlers[("tile", "gemv")] = _gemv
    handlers[("tile", "gemv_acc")] = _gemv_acc
    handlers[("tile", "gemv_bias")] = _gemv_bias
