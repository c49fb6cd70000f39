"""PyPTO's implicit scalar conversions: INT32 / INT64 / INDEX and float widths.

PyPTO promotes the operands of a scalar binary operator or comparison within their category
(integers with integers, floats with floats) to the wider of the two types; of two types of
the same width, the left operand's wins (so `INDEX op INT64` is INDEX and `INT64 op INDEX`
is INT64, both 64 bits). Mixing categories (an integer with a float) or using a bool in
arithmetic is an error. Anything that expects an index (loop bounds, offsets, shapes) takes
any signless integer, converted with `arith.index_cast`.

In the IR, `index` and the integer types are distinct, so each promotion is an explicit
`arith.index_cast` (index <-> iN), `arith.extsi` (i32 -> i64) or `arith.extf` (f16 -> f32).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects.attributes import is_float_type
from pypto_xdsl.frontend.values import describe_type

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder

_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def _is_signless_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS and t.width.data > 1


def _bits(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    return _FLOAT_BITS.get(str(t), 0)


def category(t: Attribute) -> str | None:
    if isinstance(t, IndexType) or _is_signless_int(t):
        return "integer"
    if is_float_type(t):
        return "float"
    return None


def promoted_type(lhs: Attribute, rhs: Attribute) -> Attribute | None:
    """The type both operands convert to, or None when PyPTO has no implicit conversion."""
    if lhs == rhs:
        return lhs
    cl, cr = category(lhs), category(rhs)
    if cl is None or cl != cr:
        return None
    return rhs if _bits(rhs) > _bits(lhs) else lhs


def convert(fb: FunctionBuilder, value: SSAValue, target: Attribute, node: ast.AST) -> SSAValue:
    """`value` as a scalar of type `target` (a widening or an index <-> integer conversion)."""
    source = value.type
    if source == target:
        return value
    if isinstance(source, IndexType) or isinstance(target, IndexType):
        return fb.build_op(node, lambda: arith.IndexCastOp(value, target))
    if isinstance(source, IntegerType) and isinstance(target, IntegerType):
        if target.width.data > source.width.data:
            return fb.build_op(node, lambda: arith.ExtSIOp(value, target))
        return fb.build_op(node, lambda: arith.TruncIOp(value, target))
    if is_float_type(source) and is_float_type(target):
        if _bits(target) > _bits(source):
            return fb.build_op(node, lambda: arith.ExtFOp(value, target))
        return fb.build_op(node, lambda: arith.TruncFOp(value, target))
    raise fb.error(node, f"cannot convert {describe_type(source)} to {describe_type(target)}")


def promote(fb: FunctionBuilder, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> tuple[SSAValue, SSAValue]:
    """Both operands converted to their promoted type; a located error when there is none."""
    target = promoted_type(lhs.type, rhs.type)
    if target is None:
        hint = ""
        if {category(lhs.type), category(rhs.type)} == {"integer", "float"}:
            hint = " (PyPTO converts between integer types or between float types only; use pl.cast)"
        raise fb.error(
            node, f"operands have different types {lhs.type} and {rhs.type}{hint}"
        )
    return convert(fb, lhs, target, node), convert(fb, rhs, target, node)


def as_index(fb: FunctionBuilder, value: SSAValue, node: ast.AST) -> SSAValue | None:
    """A signless integer scalar converted to `index` (None when `value` is no integer)."""
    if isinstance(value.type, IndexType):
        return value
    if _is_signless_int(value.type):
        return fb.build_op(node, lambda: arith.IndexCastOp(value, IndexType()))
    return None
