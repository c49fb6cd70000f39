"""`pl` comparisons, selections and triangles (dialects/tile_mask.py):

* `pl.tile.cmp(lhs, rhs, cmp_type=0)` / `pl.tile.cmps(lhs, rhs, cmp_type=0)`: the packed
  predicate mask (`ui8`) of a comparison of two tiles or of a tile and a scalar; `cmp_type`
  is PyPTO's code, 0..5 for eq, ne, lt, le, gt, ge. `pl.cmp` on tiles is either, by the type
  of `rhs`; `pl.cmp` / `pl.tensor.cmp` on tensors is `tensor.cmp` / `tensor.cmps`, a 0/1
  tensor of `lhs`'s type.
* `pl.tile.sel(mask, lhs, rhs, tmp)` / `pl.tile.sels(mask, src, tmp, scalar)`: per-element
  selection by a mask (`tmp` is PyPTO's scratch tile).
* `pl.tile.tri(diagonal, shape, valid_shape=None, dtype=pl.INT32, upper=False)`: the
  lower / upper triangle of ones (`tile.tri`, then `tile.set_validshape` for `valid_shape`).

A literal scalar of an unsigned integer tile (`sels`, `cmps`) is materialised as the
signless integer of its width with the same bit pattern (PyPTO passes such constants as the
signed type of the width); other literals take the element type.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import IntegerType, Signedness, i32
from xdsl.ir import SSAValue

from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TileType
from pypto_xdsl.dialects.tile_mask import CMP_MODES, CmpMode
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import types as T

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder
    from pypto_xdsl.frontend.ops import Args, Handler


def _cmp_mode(a: Args) -> CmpMode:
    if "cmp_type" not in a:
        return CmpMode.EQ
    v = a.value("cmp_type")
    if isinstance(v, Const) and type(v.value) is int and 0 <= v.value < len(CMP_MODES):
        return CMP_MODES[v.value]
    raise a.fb.error(
        a.node_of("cmp_type"),
        f"'cmp_type' of {a.qual} must be an integer constant 0..5 (eq, ne, lt, le, gt, ge), got {describe(v)}",
    )


def element_scalar(fb: FunctionBuilder, value: Any, element: Any, node: ast.AST, what: str) -> SSAValue:
    """`value` as the scalar operand of a tile of `element` (see the module docstring)."""
    from pypto_xdsl.dialects.attributes import TensorType

    if not isinstance(value, SSAValue | Const) or (
        isinstance(value, SSAValue) and isinstance(value.type, TensorType | TileType)
    ):
        raise fb.error(node, f"{what} must be a scalar, got {describe(value)}")
    if isinstance(element, IntegerType) and element.signedness.data == Signedness.UNSIGNED:
        width = element.width.data
        signless = IntegerType(width)
        if isinstance(value, Const):
            v = value.value
            if isinstance(v, float) and v.is_integer():
                v = int(v)  # PyPTO takes an integral float literal as the integer
            if type(v) is not int:
                raise fb.error(node, f"{what} of a {element} tile must be an integer, got {describe(value)}")
            if v >= 1 << width or v < -(1 << (width - 1)):
                raise fb.error(node, f"{what} {v} does not fit in {width} bits")
            bits = v % (1 << width)
            signed = bits - (1 << width) if bits >= 1 << (width - 1) else bits
            return fb.materialize(Const(signed), signless, node)
        if value.type in (element, signless):
            return value
        raise fb.error(node, f"{what} of a {element} tile must be {element} or {signless}, got {value.type}")
    s = fb.materialize(value, element, node)
    if s.type != element:
        raise fb.error(node, f"{what} must be {element} like the tile's elements, got {s.type}")
    return s


def _tile_cmp(scalar_rhs: bool | None):
    """`pl.tile.cmp` (False), `pl.tile.cmps` (True) or `pl.cmp` on a tile (None: by `rhs`)."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        from pypto_xdsl.frontend.ops import Args

        a = Args(fb, node, qual, ["lhs", "rhs", "cmp_type"], 2)
        lhs = a.tile("lhs")
        mode = _cmp_mode(a)
        rhs = a.value("rhs")
        is_tile = isinstance(rhs, SSAValue) and isinstance(rhs.type, TileType)
        if scalar_rhs is False or (scalar_rhs is None and is_tile):
            other = a.tile("rhs")
            if other.type != lhs.type:
                raise fb.error(node, f"{qual} compares two tiles of one type, got {lhs.type} and {other.type}")
            return fb.build_op(node, lambda: tile_ops.CmpOp(lhs, other, mode))
        s = element_scalar(fb, rhs, lhs.type.element_type, a.node_of("rhs"), f"'rhs' of {qual}")  # type: ignore[union-attr]
        return fb.build_op(node, lambda: tile_ops.CmpsOp(lhs, s, mode))

    return handle


def _cmp(family: str | None):
    """`pl.cmp(lhs, rhs, cmp_type=0)` / `pl.tensor.cmp`: on tensors a 0/1 tensor of `lhs`'s
    type (`tensor.cmp` with a tensor `rhs`, `tensor.cmps` with a scalar); on tiles (`pl.cmp`
    only) the packed mask of `pl.tile.cmp` / `pl.tile.cmps`."""
    tile_form = _tile_cmp(None)

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        from pypto_xdsl.dialects import tensor as tensor_ops
        from pypto_xdsl.dialects.attributes import TensorType
        from pypto_xdsl.frontend.ops import Args

        a = Args(fb, node, qual, ["lhs", "rhs", "cmp_type"], 2)
        lhs = a.shaped("lhs")
        if isinstance(lhs.type, TileType):
            if family == "tensor":
                raise fb.error(a.node_of("lhs"), f"{qual} expects a tensor, got {describe(lhs)}")
            return tile_form(fb, node, qual)
        mode = _cmp_mode(a)
        rhs = fb.local_window(a.value("rhs"), a.node_of("rhs"))
        if isinstance(rhs, SSAValue) and isinstance(rhs.type, TensorType | TileType):
            if rhs.type != lhs.type:
                raise fb.error(node, f"{qual} compares two tensors of one type, got {lhs.type} and {rhs.type}")
            return fb.build_op(node, lambda: tensor_ops.CmpOp(lhs, rhs, mode))
        s = element_scalar(fb, rhs, lhs.type.element_type, a.node_of("rhs"), f"'rhs' of {qual}")  # type: ignore[union-attr]
        return fb.build_op(node, lambda: tensor_ops.CmpsOp(lhs, s, mode))

    return handle


def _sel(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.frontend.ops import Args

    a = Args(fb, node, qual, ["mask", "lhs", "rhs", "tmp"], 4)
    mask, lhs, rhs, tmp = a.tile("mask"), a.tile("lhs"), a.tile("rhs"), a.tile("tmp")
    if lhs.type != rhs.type:
        raise fb.error(node, f"{qual} selects between two tiles of one type, got {lhs.type} and {rhs.type}")
    return fb.build_op(node, lambda: tile_ops.SelOp(mask, lhs, rhs, tmp))


def _sels(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.frontend.ops import Args

    a = Args(fb, node, qual, ["mask", "src", "tmp", "scalar"], 4)
    mask, src, tmp = a.tile("mask"), a.tile("src"), a.tile("tmp")
    s = element_scalar(fb, a.value("scalar"), src.type.element_type, a.node_of("scalar"), f"'scalar' of {qual}")  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tile_ops.SelsOp(mask, src, tmp, s))


def _tri(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.frontend.ops import Args
    from pypto_xdsl.frontend.ops_shapes import _mark_valid

    a = Args(fb, node, qual, ["diagonal", "shape", "valid_shape", "dtype", "upper"], 2)
    shape = a.shape("shape")
    if len(shape) != 2 or not all(isinstance(d, int) and d > 0 for d in shape):
        raise fb.error(a.node_of("shape"), f"'shape' of {qual} must be two positive constants, got {shape}")
    dtype = a.dtype("dtype") if "dtype" in a else T.INT32
    upper = a.value("upper") if "upper" in a else Const(False)
    if not (isinstance(upper, Const) and type(upper.value) is bool):
        raise fb.error(a.node_of("upper"), f"'upper' of {qual} must be True or False, got {describe(upper)}")
    diagonal = a.value("diagonal")
    if isinstance(diagonal, Const) and type(diagonal.value) is not int:
        raise fb.error(a.node_of("diagonal"), f"'diagonal' of {qual} must be an integer, got {describe(diagonal)}")
    if isinstance(diagonal, SSAValue) and diagonal.type != i32:
        raise fb.error(a.node_of("diagonal"), f"'diagonal' of {qual} must be an INT32 scalar, got {describe(diagonal)}")
    d = fb.materialize(diagonal, i32, a.node_of("diagonal"))
    result = TileType(shape, dtype.to_ir())
    tri = fb.build_op(node, lambda: tile_ops.TriOp(d, result, upper.value))
    if "valid_shape" not in a or a.value("valid_shape") is None:
        return tri
    valid = a.value("valid_shape")
    if isinstance(valid, list | tuple) and len(valid) == 2:
        for v, n in zip(valid, shape):
            if isinstance(v, Const) and (type(v.value) is not int or not 0 < v.value <= n):
                raise fb.error(
                    a.node_of("valid_shape"),
                    f"'valid_shape' of {qual} must be within (0, {shape}], got {describe(valid)}",
                )
    return _mark_valid(fb, a, "valid_shape", tri, shape)


def register(handlers: dict[tuple[str, str], Handler]) -> None:
    handlers[("", "cmp")] = _cmp(None)
    handlers[("tensor", "cmp")] = _cmp("tensor")
    handlers[("tile", "cmp")] = _tile_cmp(False)
    handlers[("tile", "cmps")] = _tile_cmp(True)
    handlers[("tile", "sel")] = _sel
    handlers[("tile", "sels")] = _sels
    handlers[("tile", "tri")] = _tri
