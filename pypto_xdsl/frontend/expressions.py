"""Python expression forms on tensors and tiles beyond the op calls: `t.shape`, `t.dtype`,
and scalar-left arithmetic (`1.0 - t`, `2.0 / t`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from xdsl.ir import SSAValue

from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.frontend.locate import did_you_mean
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import types as T

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder

_ATTRIBUTES = ("shape", "dtype")


def shaped_attribute(fb: FunctionBuilder, base: SSAValue, node: ast.Attribute) -> Any:
    """`t.shape` (a tuple: ints for static dims, `tensor.dim` for the others) and `t.dtype`."""
    t = base.type
    if node.attr == "dtype":
        dtype = T.dtype_from_ir(t.element_type)  # type: ignore[union-attr]
        if dtype is None:  # pragma: no cover - every element type the dialect allows has one
            raise fb.error(node, f"{describe(base)} has no pl dtype")
        return dtype
    if node.attr == "shape":
        dims: list[Any] = []
        for axis, d in enumerate(t.get_shape()):  # type: ignore[union-attr]
            if isinstance(d, int):
                dims.append(Const(d))
            elif isinstance(t, TensorType):
                dims.append(fb.build_op(node, lambda axis=axis: tensor_ops.DimOp(base, axis)))
            else:
                raise fb.error(node, f"dimension {axis} of {describe(base)} is not static")
        return tuple(dims)
    if node.attr == "bind_dynamic":
        raise fb.error(
            node,
            "bind_dynamic(...) declares a dynamic dimension of a @pl.jit entry parameter and "
            "must be a statement of its own in that function; in a @pl.function, write the "
            "dimension as pl.dynamic(\"N\") in the parameter's annotation",
        )
    raise fb.error(
        node, f"{describe(base)} has no attribute '{node.attr}'{did_you_mean(node.attr, _ATTRIBUTES)}"
    )


def scalar_left(fb: FunctionBuilder, name: str, lhs: Any, rhs: SSAValue, node: ast.AST) -> SSAValue:
    """`s + t`, `s * t` (commuted), `s - t` (= adds(neg t, s)) and `s / t` (= muls(recip t, s))."""
    from pypto_xdsl.frontend.ops import binary, unary

    if not isinstance(lhs, SSAValue | Const):
        raise fb.error(node, f"the left operand must be a scalar, a tensor or a tile, got {describe(lhs)}")
    if name in ("add", "mul"):
        return binary(fb, name, rhs, lhs, node, None)
    if name == "sub":
        return binary(fb, "add", unary(fb, "neg", rhs, node, None), lhs, node, None)
    assert name == "div"
    inverse = unary(fb, "recip", rhs, node, None)
    if isinstance(lhs, Const) and lhs.value == 1:
        return inverse
    return binary(fb, "mul", inverse, lhs, node, None)
