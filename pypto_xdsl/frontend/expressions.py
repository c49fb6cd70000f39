"""Python expressions in a `pl.function`: `ExpressionMixin` (names, literals, subscripts,
operators, comparisons and the calls that dispatch to ops or functions), and the forms on
tensors and tiles beyond the op calls: `t.shape`, `t.dtype`, and scalar-left arithmetic
(`1.0 - t`, `2.0 / t`)."""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import SSAValue

from pypto_xdsl.analysis.dim_bounds import tensor_axis
from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.frontend.locate import did_you_mean
from pypto_xdsl.frontend.values import Const, FuncRef, Undefined, Value, describe
from pypto_xdsl.language import types as T
from pypto_xdsl.language.ops import OpStub

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
            elif isinstance(d, str) and tensor_axis(fb.params_block.args, d) is not None:
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


def dynamic_extent(fb: FunctionBuilder, dim: T.DynVar, node: ast.AST) -> SSAValue:
    """The extent of dynamic dimension `dim` as an `index` (`tensor.dim` of a parameter)."""
    found = tensor_axis(fb.params_block.args, dim.name)
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

_BINOP_NAMES = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
}

_CMP_NAMES = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


class _Self:
    def __repr__(self) -> str:
        return "self"


_SELF = _Self()



class ExpressionMixin:
    """The expressions of `FunctionBuilder`: names, literals, subscripts and Python operators."""

    def expr(self, node: ast.expr) -> Value:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"unsupported expression '{type(node).__name__}' in a pl.function")
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Value:
        v = node.value
        if isinstance(v, bool | int | float):
            return Const(v)
        if isinstance(v, str) or v is None or v is Ellipsis:
            return v
        raise self.error(node, f"unsupported constant {v!r}")

    def load_name(self, name: str, node: ast.AST) -> Value:
        if name in self.env:
            value = self.env[name]
            if isinstance(value, Undefined):
                raise self.error(node, f"'{name}' is not defined here: {value.reason}")
            return value
        if name in self.locals:
            raise self.error(node, f"'{name}' is used before it is defined")
        if name in self.globals:
            obj = self.globals[name]
        elif hasattr(builtins, name):
            obj = getattr(builtins, name)
        else:
            raise self.error(node, f"name '{name}' is not defined")
        return self.static_value(obj)

    @staticmethod
    def static_value(obj: Any) -> Value:
        if type(obj) in (bool, int, float):
            return Const(obj)
        if type(obj) in (list, tuple):  # a shape or offsets computed in Python, e.g. `valid_shape=vshape`
            return type(obj)(ExpressionMixin.static_value(x) for x in obj)
        return obj

    def expr_Name(self, node: ast.Name) -> Value:
        if node.id == self.decl.self_name:
            return _SELF
        return self.load_name(node.id, node)

    def expr_Attribute(self, node: ast.Attribute) -> Value:
        base = self.expr(node.value)
        if base is _SELF:
            if node.attr not in self.mb.source.functions:
                raise self.error(node, f"'{self.mb.source.name}' has no @pl.function '{node.attr}'")
            return FuncRef(node.attr)
        if isinstance(base, SSAValue) and isinstance(base.type, TensorType | TileType):
            return shaped_attribute(self, base, node)
        if isinstance(base, SSAValue | Const | tuple | list | FuncRef):
            raise self.error(node, f"{describe(base)} has no attribute '{node.attr}'")
        try:
            return self.static_value(getattr(base, node.attr))
        except AttributeError:
            hint = did_you_mean(node.attr, dir(base)) if isinstance(base, type(builtins)) else ""
            raise self.error(node, f"unknown name '{ast.unparse(node)}'{hint}") from None

    def expr_List(self, node: ast.List) -> Value:
        return [self.expr(e) for e in node.elts]

    def expr_Tuple(self, node: ast.Tuple) -> Value:
        return tuple(self.expr(e) for e in node.elts)

    def _drop_indexed_dims(self, view: SSAValue, node: ast.Subscript) -> SSAValue:
        """In a host function `x[r]` is rank r's slice of the world tensor `x`: the integer
        items drop their dimension (PyPTO's host subscripts), the slice kept as a view."""
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = view.type.get_shape()  # type: ignore[attr-defined]
        kept = [d for axis, d in enumerate(shape) if axis >= len(items) or isinstance(items[axis], ast.Slice)]
        if len(kept) == len(shape):
            return view
        result = TensorType(kept, view.type.element_type)  # type: ignore[attr-defined]
        return self.build_op(node, lambda: tensor_ops.ReshapeOp(view, result))

    def expr_Subscript(self, node: ast.Subscript) -> Value:
        base = self.expr(node.value)
        if isinstance(base, SSAValue) and isinstance(base.type, TensorType):
            # `t[a:b, c:d]`, `t[i]`: a window of the tensor (see frontend/windows.py)
            from pypto_xdsl.frontend.windows import window

            offsets, dims = window(self, base, node)
            result = TensorType(dims, base.type.element_type)
            view = self.build_op(node, lambda: tensor_ops.SliceOp(base, offsets, result))
            if self.decl.kind == A.FuncKind.HOST:
                return self._drop_indexed_dims(view, node)
            return view
        if isinstance(base, SSAValue) and isinstance(base.type, TileType):
            raise self.error(node, f"subscripts are not supported on tiles ({describe(base)}); slice the tensor before pl.load")
        if isinstance(base, SSAValue | Const | FuncRef):
            raise self.error(node, f"{describe(base)} cannot be subscripted")
        idx = self.expr(node.slice)
        if isinstance(base, tuple | list):
            if isinstance(idx, Const) and isinstance(idx.value, int):
                try:
                    return self.static_value(base[idx.value])  # a global list holds raw ints
                except IndexError:
                    raise self.error(node, f"index {idx.value} is out of range for {describe(base)}") from None
            raise self.error(node.slice, "a tuple index must be an integer constant")
        # a static Python object (a module-level list or dict of constants, ...)
        if isinstance(idx, Const):
            key = idx.value
        elif isinstance(idx, SSAValue | tuple | list):
            raise self.error(node.slice, f"cannot index the compile-time value {base!r} with {describe(idx)}")
        else:
            key = idx
        try:
            return self.static_value(base[key])
        except Exception as e:
            raise self.error(node, f"cannot evaluate '{ast.unparse(node)}': {e}") from None

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Value:
        operand = self.expr(node.operand)
        if isinstance(operand, Const):
            try:
                return Const({ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Not: lambda v: not v}[type(node.op)](operand.value))
            except KeyError:
                raise self.error(node, "unsupported unary operator") from None
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(operand, SSAValue) and isinstance(operand.type, TensorType | TileType) and isinstance(node.op, ast.USub):
            return self.shaped_op("neg", [operand], node)
        if isinstance(operand, SSAValue) and isinstance(node.op, ast.USub):
            if A.is_float_type(operand.type):
                return self.build_op(node, lambda: arith.NegfOp(operand))
            zero = self.materialize(Const(0), operand.type, node)
            return self.build_op(node, lambda: arith.SubiOp(zero, operand))
        if isinstance(operand, SSAValue) and isinstance(node.op, ast.Not) and operand.type == IntegerType(1):
            one = self.materialize(Const(True), IntegerType(1), node)
            return self.build_op(node, lambda: arith.XOrIOp(operand, one))
        raise self.error(node, f"unsupported unary operator on {describe(operand)}")

    def expr_BinOp(self, node: ast.BinOp) -> Value:
        return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)

    def binop(self, op: ast.operator, lhs: Value, rhs: Value, node: ast.AST) -> Value:
        name = _BINOP_NAMES.get(type(op))
        if name is None:
            raise self.error(node, f"unsupported operator '{type(op).__name__}'")
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            a, b = lhs.value, rhs.value
            try:
                return Const({"add": a + b, "sub": a - b, "mul": a * b}[name] if name in ("add", "sub", "mul")
                             else a / b if name == "div" else a // b if name == "floordiv" else a % b)
            except ZeroDivisionError:
                raise self.error(node, "division by zero") from None
        l_shaped = isinstance(lhs, SSAValue) and isinstance(lhs.type, TensorType | TileType)
        r_shaped = isinstance(rhs, SSAValue) and isinstance(rhs.type, TensorType | TileType)
        if l_shaped or r_shaped:
            if name not in ("add", "sub", "mul", "div"):
                raise self.error(node, f"operator '{type(op).__name__}' is not defined on tensors and tiles")
            if not l_shaped:
                return scalar_left(self, name, lhs, rhs, node)
            return self.binary_shaped(name, lhs, rhs, node)
        return self.scalar_binop(name, lhs, rhs, node)

    def _scalar_pair(self, lhs: Value, rhs: Value, node: ast.AST) -> tuple[SSAValue, SSAValue]:
        if isinstance(lhs, T.DynVar):
            lhs = self.materialize(lhs, None, node)
        if isinstance(rhs, T.DynVar):
            rhs = self.materialize(rhs, None, node)
        for v in (lhs, rhs):
            if not isinstance(v, SSAValue | Const):
                raise self.error(node, f"expected a scalar, got {describe(v)}")
        for v in (lhs, rhs):
            if isinstance(v, SSAValue) and isinstance(v.type, IntegerType) and v.type.signedness.data != Signedness.SIGNLESS:
                raise self.error(
                    node, f"scalar arithmetic on {v.type} is not supported (arith works on signless integers)"
                )
        if isinstance(lhs, Const):
            lhs = self.materialize(lhs, rhs.type, node)
        elif isinstance(rhs, Const):
            rhs = self.materialize(rhs, lhs.type, node)
        assert isinstance(lhs, SSAValue) and isinstance(rhs, SSAValue)
        if lhs.type != rhs.type:
            from pypto_xdsl.frontend.scalars import promote

            lhs, rhs = promote(self, lhs, rhs, node)
        if not A.is_scalar_type(lhs.type):
            raise self.error(node, f"expected scalars, got {describe(lhs)}")
        if isinstance(lhs.type, IntegerType) and lhs.type.signedness.data != Signedness.SIGNLESS:
            raise self.error(
                node, f"scalar arithmetic on {lhs.type} is not supported (arith works on signless integers)"
            )
        return lhs, rhs

    def scalar_binop(self, name: str, lhs: Value, rhs: Value, node: ast.AST) -> SSAValue:
        a, b = self._scalar_pair(lhs, rhs, node)
        t = a.type
        if A.is_float_type(t):
            cls = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}.get(name)
            if cls is None:
                raise self.error(node, f"'{name}' is not defined on floats")
        else:
            cls = {
                "add": arith.AddiOp,
                "sub": arith.SubiOp,
                "mul": arith.MuliOp,
                "floordiv": arith.FloorDivSIOp,
                "mod": arith.RemSIOp,
            }.get(name)
            if cls is None:
                raise self.error(node, "'/' on integers is not supported; use '//'")
        return self.build_op(node, lambda: cls(a, b))

    def expr_Compare(self, node: ast.Compare) -> Value:
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons are not supported")
        lhs, rhs = self.expr(node.left), self.expr(node.comparators[0])
        name = _CMP_NAMES.get(type(node.ops[0]))
        if name is None:
            raise self.error(node, "unsupported comparison operator")
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            a, b = lhs.value, rhs.value
            return Const({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b, "ne": a != b}[name])
        a, b = self._scalar_pair(lhs, rhs, node)
        return self.expr_compare_values(name, a, b, node)

    def expr_compare_values(self, name: str, a: SSAValue, b: SSAValue, node: ast.AST) -> SSAValue:
        if A.is_float_type(a.type):
            pred = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "one"}[name]
            return self.build_op(node, lambda: arith.CmpfOp(a, b, pred))
        pred = name if name in ("eq", "ne") else "s" + name
        return self.build_op(node, lambda: arith.CmpiOp(a, b, pred))

    def expr_BoolOp(self, node: ast.BoolOp) -> Value:
        values = [self.expr(v) for v in node.values]
        result = values[0]
        for v, n in zip(values[1:], node.values[1:]):
            if isinstance(result, Const) and isinstance(v, Const):
                result = Const(result.value and v.value) if isinstance(node.op, ast.And) else Const(result.value or v.value)
                continue
            a = self.materialize(result, IntegerType(1), node)
            b = self.materialize(v, IntegerType(1), n)
            cls = arith.AndIOp if isinstance(node.op, ast.And) else arith.OrIOp
            result = self.build_op(node, lambda: cls(a, b))
        return result

    def expr_IfExp(self, node: ast.IfExp) -> Value:
        cond = self.expr(node.test)
        if isinstance(cond, Const):
            return self.expr(node.body if cond.value else node.orelse)
        a, b = self.expr(node.body), self.expr(node.orelse)
        if isinstance(a, Const) and isinstance(b, SSAValue):
            a = self.materialize(a, b.type, node)
        if isinstance(b, Const) and isinstance(a, SSAValue):
            b = self.materialize(b, a.type, node)
        c = self.materialize(cond, IntegerType(1), node.test)
        return self.build_op(node, lambda: arith.SelectOp(c, a, b))

    def expr_Call(self, node: ast.Call) -> Value:
        callee = self.expr(node.func)
        callee = self.mb.source.function_ref(callee) or callee
        if isinstance(callee, FuncRef):
            return self.call(callee, node)
        if isinstance(callee, OpStub):
            from pypto_xdsl.frontend.ops import dispatch

            return dispatch(self, callee, node)
        if callee is builtins.min or callee is builtins.max:
            if len(node.args) != 2 or node.keywords:
                raise self.error(node, f"{callee.__name__} takes two scalars here")
            lhs, rhs = self.expr(node.args[0]), self.expr(node.args[1])
            if isinstance(lhs, Const) and isinstance(rhs, Const):
                return Const(callee(lhs.value, rhs.value))
            a, b = self._scalar_pair(lhs, rhs, node)
            # compare + select: plain arith every consumer (interpreter, backend) handles
            less = self.expr_compare_values("lt", a, b, node)
            first, second = (a, b) if callee is builtins.min else (b, a)
            return self.build_op(node, lambda: arith.SelectOp(less, first, second))
        if isinstance(callee, T.DataType) and len(node.args) == 1:  # pl.FP32(x): scalar cast of a literal
            v = self.expr(node.args[0])
            if isinstance(v, Const):
                return self.materialize(v, callee.to_ir(), node)
        raise self.error(node.func, f"unknown function '{ast.unparse(node.func)}'")

    # ---- tensor / tile ops (type dispatched)

    def binary_shaped(self, name: str, lhs: SSAValue, rhs: Value, node: ast.AST) -> SSAValue:
        from pypto_xdsl.frontend.ops import binary

        return binary(self, name, lhs, rhs, node, None)

    def shaped_op(self, name: str, operands: list[SSAValue], node: ast.AST) -> SSAValue:
        from pypto_xdsl.frontend.ops import unary

        return unary(self, name, operands[0], node, None)
