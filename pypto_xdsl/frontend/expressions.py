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
            elif isinstance(d, str) and _parameter_dim(fb, d) is not None:
                dims.append(T.DynVar(d))  # keeps the symbol in shapes built from it
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


def _parameter_dim(fb: FunctionBuilder, symbol: str) -> tuple[SSAValue, int] | None:
    """A tensor parameter of the function and an axis whose extent is `symbol`."""
    for arg in fb.params_block.args:
        t = arg.type
        if isinstance(t, TensorType):
            for axis, d in enumerate(t.get_shape()):
                if d == symbol:
                    return arg, axis
    return None


def dynamic_extent(fb: FunctionBuilder, dim: T.DynVar, node: ast.AST) -> SSAValue:
    """The extent of dynamic dimension `dim` as an `index` (`tensor.dim` of a parameter)."""
    found = _parameter_dim(fb, dim.name)
    if found is None:
        raise fb.error(
            node, f"the dynamic dimension {dim.name} is not the extent of a tensor parameter of "
            f"'{fb.decl.name}', so it has no value here"
        )
    arg, axis = found
    return fb.build_op(node, lambda: tensor_ops.DimOp(arg, axis))


def keyword_arguments(fb: FunctionBuilder, callee: Any, args: list[tuple[Any, ast.expr]], node: ast.Call) -> list[tuple[Any, ast.expr]]:
    """`f(a, out=o)`: the call's arguments in the callee's parameter order."""
    names = [p.arg for p in callee.params]
    by_position: list[tuple[Any, ast.expr] | None] = [*args, *[None] * (len(names) - len(args))]
    for kw in node.keywords:
        if kw.arg is None:
            raise fb.error(kw, "'**' arguments are not supported in calls")
        if kw.arg not in names:
            raise fb.error(kw, f"'{callee.name}' has no parameter '{kw.arg}'{did_you_mean(kw.arg, names)}")
        i = names.index(kw.arg)
        if i < len(by_position) and by_position[i] is not None:
            raise fb.error(kw, f"'{callee.name}' gets parameter '{kw.arg}' twice")
        by_position[i] = (fb.expr(kw.value), kw.value)
    missing = [n for n, a in zip(names, by_position) if a is None]
    if missing:
        raise fb.error(node, f"'{callee.name}' takes {len(names)} arguments; '{missing[0]}' is missing")
    return by_position  # type: ignore[return-value]

