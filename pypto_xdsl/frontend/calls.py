"""Calls in a `pl.function`: `self.f(...)` -> `pypto.call` and `pl.submit(self.f, ...)` ->
`pypto.submit`, with their arguments checked against (and typing) the callee's parameters,
and the caller's variables passed for scalar `pl.Out` / `pl.InOut` parameters rebound."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.dialects.program import CallOp, SubmitOp, scalar_writebacks
from pypto_xdsl.frontend.expressions import keyword_arguments
from pypto_xdsl.frontend.values import Const, FuncRef, Value, describe, types_compatible


class CallMixin:
    """The calls and launches (`pl.submit`) of `FunctionBuilder`."""

    def call_args(self, nodes: Sequence[ast.expr]) -> list[tuple[Value, ast.expr]]:
        out = []
        for a in nodes:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if not isinstance(v, tuple | list):
                    raise self.error(a, f"cannot unpack {describe(v)}")
                out.extend((x, a) for x in v)
            else:
                out.append((self.expr(a), a))
        return out

    def _callee_args(self, name: str, args: list[tuple[Value, ast.expr]], node: ast.AST, submit: bool):
        decl = self.mb.source.functions[name]
        nparams = len(decl.params)
        if len(args) > nparams or (len(args) < nparams and not submit):
            raise self.error(node, f"'{name}' takes {nparams} arguments, got {len(args)}")
        specs = self.mb.param_specs(decl)
        values: list[SSAValue] = []
        for (v, n), (formal, _) in zip(args, specs):
            if isinstance(v, Const):
                v = self.materialize(v, formal if formal is not None and A.is_scalar_type(formal) else None, n)
            if not isinstance(v, SSAValue):
                raise self.error(n, f"cannot pass {describe(v)} to '{name}'")
            if formal is not None and v.type != formal and A.is_scalar_type(formal) and A.is_scalar_type(v.type):
                v = self._convert_scalar_argument(v, formal, n)
            values.append(v)
        inputs, outputs, _ = self.mb.ensure(name, [v.type for v in values], node)
        binding: dict[str, A.Dim] = {}
        strict = decl.kind != A.FuncKind.INLINE
        for i, (v, formal) in enumerate(zip(values, inputs)):
            ok = types_compatible(formal, v.type)
            if ok and isinstance(formal, TensorType | TileType):
                try:
                    A.bind_shape(formal.get_shape(), v.type.get_shape(), binding, strict)  # type: ignore[union-attr]
                except A.SymbolBindingError as e:
                    raise self.error(args[i][1], f"argument {i} of '{name}': {e}") from None
            if not ok and not self.mb.dirty:  # a dirty round is rebuilt with joined types
                raise self.error(
                    args[i][1],
                    f"argument {i} of '{name}' ('{decl.params[i].arg}') has type {v.type}, expected {formal}",
                )
        return values, [A.substitute_symbols(t, binding) for t in outputs]

    def _convert_scalar_argument(self, value: SSAValue, formal: Attribute, node: ast.AST) -> SSAValue:
        """A scalar argument converted to its parameter's scalar type, as PyPTO's calls pass
        a scalar to a parameter of another type of its category (the C++ argument
        conversion): integers (and `index`) between widths, floats between widths, and an
        integer to a `pl.BOOL` parameter as `!= 0` (`is_first = pl.yield_(1)` passed for
        `is_first: pl.Scalar[pl.BOOL]`). Other pairs stay as they are (the type check below
        names them)."""
        from pypto_xdsl.frontend import scalars

        if formal == IntegerType(1) and scalars.category(value.type) == "integer":
            zero = self.materialize(Const(0), value.type, node)
            return self.build_op(node, lambda: arith.CmpiOp(value, zero, "ne"))
        if scalars.promoted_type(value.type, formal) is not None:
            return scalars.convert(self, value, formal, node)
        return value

    def _write_back_scalars(self, name: str, args: list[tuple[Value, ast.expr]], results: Sequence[SSAValue]) -> list[SSAValue]:
        """Rebind the caller's variables passed for scalar pl.Out / pl.InOut parameters to the
        trailing results of the call; return the callee's own results."""
        decl = self.mb.source.functions[name]
        specs = self.mb.param_specs(decl)
        writebacks = scalar_writebacks([t for t, _ in specs], [d for _, d in specs])  # type: ignore[misc]
        if not writebacks:
            return list(results)
        own = list(results[: len(results) - len(writebacks)])
        for i, value in zip(writebacks, results[len(own) :]):
            if i >= len(args):
                continue
            arg_node = args[i][1]
            if not isinstance(arg_node, ast.Name):
                raise self.error(
                    arg_node,
                    f"argument {i} of '{name}' is passed for the scalar {specs[i][1].value} parameter "
                    f"'{decl.params[i].arg}', which writes the caller's variable: pass a variable name",
                )
            self._hint(value, arg_node.id)
            self.env[arg_node.id] = value
        return own

    def call(self, ref: FuncRef, node: ast.Call) -> Value:
        device = [kw for kw in node.keywords if kw.arg == "device"]
        callee_kind = self.mb.source.functions[ref.name].kind
        if device or (self.decl.kind == A.FuncKind.HOST and callee_kind == A.FuncKind.ORCHESTRATION):
            return self.dispatch(ref, node, device[0] if device else None)
        args = self.call_args(node.args)
        if node.keywords:
            args = keyword_arguments(self, self.mb.source.functions[ref.name], args, node)
        values, outputs = self._callee_args(ref.name, args, node, submit=False)
        op = CallOp(ref.name, values, outputs)
        self.block.add_op(op)
        results = self._write_back_scalars(ref.name, args, op.results)
        if not results:
            return None
        if len(results) == 1:
            return results[0]
        return tuple(results)

    def dispatch(self, ref: FuncRef, node: ast.Call, device: ast.keyword | None) -> Value:
        """`f(..., device=r)` in a host function: launch the orchestration function `f` on
        rank `r` (`pypto.dist.dispatch`)."""
        from pypto_xdsl.dialects.distributed_host import DispatchOp

        if self.decl.kind != A.FuncKind.HOST:
            raise self.error(
                device or node, f"'{ref.name}(..., device=...)' dispatches to a rank: only a @pl.jit.host "
                "function launches functions on devices",
            )
        if device is None:
            raise self.error(
                node, f"'{ref.name}' runs on a rank: a @pl.jit.host function dispatches it with "
                f"{ref.name}(..., device=r)",
            )
        decl = self.mb.source.functions[ref.name]
        if decl.kind != A.FuncKind.ORCHESTRATION:
            raise self.error(
                node.func, f"'{ref.name}' is a {decl.kind.value} function: a host dispatches @pl.jit "
                "(orchestration) functions to ranks",
            )
        rank = self.index(self.expr(device.value), device.value)
        rest = ast.Call(func=node.func, args=node.args, keywords=[kw for kw in node.keywords if kw is not device])
        ast.copy_location(rest, node)
        args = self.call_args(rest.args)
        if rest.keywords:
            args = keyword_arguments(self, decl, args, rest)
        values, _ = self._callee_args(ref.name, args, node, submit=False)
        self.emit(DispatchOp(ref.name, values, rank), node, verify=False)
        return None

    def submit(self, node: ast.Call) -> Value:
        if not node.args:
            raise self.error(node, "pl.submit takes the function to launch, e.g. pl.submit(self.k, x)")
        ref = self.expr(node.args[0])
        if not isinstance(ref, FuncRef):
            raise self.error(node.args[0], f"pl.submit launches a function of the program (self.f), got {describe(ref)}")
        deps: list[SSAValue] = []
        early = False
        for kw in node.keywords:
            if kw.arg == "deps":
                deps = self.task_ids(self.expr(kw.value), kw.value)
            elif kw.arg == "allow_early_resolve":
                v = self.expr(kw.value)
                if not isinstance(v, Const) or not isinstance(v.value, bool):
                    raise self.error(kw.value, f"allow_early_resolve must be True or False, got {describe(v)}")
                early = v.value
            else:
                raise self.error(kw, f"pl.submit does not support '{kw.arg}' yet")
        args = self.call_args(node.args[1:])
        values, outputs = self._callee_args(ref.name, args, node, submit=True)
        op = SubmitOp(ref.name, values, outputs, deps, allow_early_resolve=early)
        self.block.add_op(op)
        assert op.task_id is not None
        return (*self._write_back_scalars(ref.name, args, op.outputs), op.task_id)
