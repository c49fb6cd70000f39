"""Python AST of a `@pl.program` class -> pypto IR (SSA construction included).

`ModuleBuilder` builds one `builtin.module` holding a `pypto.func` per `@pl.function`.
`FunctionBuilder` walks one function body statement by statement, keeping an environment
from Python names to SSA values; rebinding a name just updates the environment, so SSA form
falls out of the walk:

* `for i in pl.range(...)` (also `pl.parallel`, `pl.pipeline`) and `while c:`: names that
  exist before the loop, are assigned in its body and read somewhere become `scf.for`
  iteration arguments / `scf.while` carried values; the loop results rebind them.
* `t[a:b] = v` assigns `t` (a `tensor.assemble` / `tile.store` result; see windows.py).
* `if c: ... else: ...`: names assigned in a branch that exist afterwards (defined before
  or in both branches) become `scf.if` results.
* `with pl.at(...)`: names assigned in the body that are read after the scope (or rebind a
  name from before it) become `pypto.incore_scope` results.
* `for lane in pl.split_aiv(...)`: a `pypto.split_aiv` region without results; names it
  writes in place keep naming their storage, others are undefined after it.

A name visible only inside a loop, a branch or a scope is recorded as `Undefined`, so a
later read is a located error rather than a wrong value.

`FunctionBuilder` keeps the environment, the block being filled, literals and assignments;
its mixins hold the other forms: control_flow.py (loops, `if`, `pl.split_aiv`), scopes.py
(`pl.at`, `pl.spmd`, `pl.cluster`), expressions.py and calls.py. declarations.py parses the
class into `FunctionDecl`s; names.py answers which names a statement list assigns or reads.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp, Signedness
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import Pure
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TaskIdType, TensorType, TileType
from pypto_xdsl.dialects.program import FuncOp, ReturnOp, scalar_writebacks
from pypto_xdsl.dialects.scopes import SplitAivOp
from pypto_xdsl.dialects.task_arrays import TaskIdArrayType, TaskIdsSetOp
from pypto_xdsl.dialects.traits import InferResultTypes, aliased_operand
from pypto_xdsl.frontend.bounds import attach_dim_bounds
from pypto_xdsl.frontend.calls import CallMixin
from pypto_xdsl.frontend.control_flow import ControlFlowMixin
from pypto_xdsl.frontend.declarations import FunctionDecl, ProgramSource, scan_function
from pypto_xdsl.frontend.errors import SOURCE_NODES, ParserError, source_of
from pypto_xdsl.frontend.expressions import ExpressionMixin, dynamic_extent
from pypto_xdsl.frontend.names import Pos
from pypto_xdsl.frontend.scopes import ScopeMixin
from pypto_xdsl.frontend.values import (
    Const,
    Value,
    describe,
    describe_type,
    join_types,
    types_compatible,
)
from pypto_xdsl.language import types as T
from pypto_xdsl.utils import paused_gc

# Names other modules and user code import from here.
__all__ = [
    "SOURCE_NODES",
    "FunctionBuilder",
    "FunctionDecl",
    "ModuleBuilder",
    "ProgramSource",
    "scan_function",
    "source_of",
]

_MISSING = object()


class ModuleBuilder:
    """Builds the module of one program; infers types of unannotated parameters."""

    MAX_ROUNDS = 4

    def __init__(self, source: ProgramSource, overrides: dict[str, list[Attribute]] | None = None):
        self.source = source
        self.srcmap = source.srcmap
        self.overrides = overrides or {}
        # Parameter types of unannotated parameters, joined over all call sites.
        self.inferred: dict[str, list[Attribute | None]] = {}
        self._mark_writeback_calls()

    def _mark_writeback_calls(self) -> None:
        """Mark each `self.f(..., k, ...)` that passes a variable to a scalar pl.Out / pl.InOut
        parameter of `f`: the call rebinds `k` (`assigned_names` counts it as assigned, so
        loops, branches and scopes carry it)."""
        functions = self.source.functions
        for decl in functions.values():
            for node in ast.walk(decl.node):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == decl.self_name
                    and node.func.attr in functions
                ):
                    continue
                try:
                    specs = self.param_specs(functions[node.func.attr])
                except ParserError:
                    continue  # reported when the callee is built
                names = [
                    arg.id
                    for i, arg in enumerate(node.args)
                    if isinstance(arg, ast.Name) and i < len(specs)
                    and specs[i][1] != A.ParamDirection.IN and specs[i][0] is not None
                    and A.is_scalar_type(specs[i][0])  # type: ignore[arg-type]
                ]
                if names:
                    node._pl_writeback = names  # type: ignore[attr-defined]

    def build(self) -> ModuleOp:
        with paused_gc():
            return self._build()

    def _build(self) -> ModuleOp:
        for _ in range(self.MAX_ROUNDS):
            self.built: dict[str, FuncOp] = {}
            self.signatures: dict[str, tuple[list[Attribute], list[Attribute] | None]] = {}
            self.in_progress: set[str] = set()
            self.launch_splits: dict[str, tuple[A.SplitMode, ast.stmt]] = {}
            """InCore function -> the split mode its launches ask for, and the first of them."""
            self.dirty = False
            try:
                self._build_round()
            except ParserError as e:
                if not self.dirty:
                    raise
                # Types learnt in this round changed a signature already used: the error may
                # come from the stale signature, so rebuild with the joined types.
                last_error: ParserError | None = e
            else:
                last_error = None
            if not self.dirty:
                break
        else:
            if last_error is not None:
                raise last_error
            raise ParserError(
                "the types of unannotated parameters did not settle; annotate them",
                self.srcmap.filename,
            )
        for name, (split, launch) in self.launch_splits.items():
            if split == A.SplitMode.NONE:
                continue
            func = self.built[name]
            if any(isinstance(op, SplitAivOp) for op in func.walk()):
                raise self.srcmap.error(
                    launch, f"this launch asks for pl.split(pl.SplitMode.{split.name}) but '{name}' has "
                    "pl.split_aiv regions; the two ways of splitting the vector work exclude each other, "
                    "so drop one",
                )
            func.attributes["split"] = A.SplitModeAttr(split)
        module = ModuleOp([self.built[name] for name in self.source.functions if name in self.built])
        try:
            module.verify()
        except (VerifyException, DiagnosticException) as e:
            # checks of the whole function (dominance, constant windows and indices) that
            # no check of the frontend made first: at the statement that built the op
            found = source_of(getattr(e, "op", None))
            if found is not None:
                raise found[0].error(found[1], str(e)) from None
            raise ParserError(
                f"internal: the generated IR does not verify: {e}", self.srcmap.filename
            ) from None
        return module

    def _build_round(self) -> None:
        decls = list(self.source.functions.values())
        # Entry points and fully typed functions first; the rest are typed by their callers.
        for decl in decls:
            if decl.name not in self.built and self._untyped_param(decl) is None:
                self.ensure(decl.name, None, None)
        for decl in sorted(decls, key=lambda d: d.called):
            if decl.name not in self.built and decl.kind == A.FuncKind.INLINE and not decl.called:
                continue  # an untyped Inline helper nobody calls: nothing to expand, omitted
            if decl.name not in self.built:
                param = self._untyped_param(decl)
                assert param is not None
                raise self.srcmap.error(
                    param,
                    f"cannot infer the type of parameter '{param.arg}' of '{decl.name}': "
                    + (
                        "it is never called; annotate the parameter "
                        if not decl.called
                        else "annotate the parameter "
                    )
                    + f"(e.g. pl.Tensor[[64, 64], pl.FP32]), or give types with "
                    f"{self.source.name}.specialize({decl.name}=[...]) or {self.source.name}.run(inputs)",
                )

    # ---- signatures

    def _annotation(
        self, node: ast.expr, what: str, decl: FunctionDecl | None = None, key: str | None = None
    ) -> Any:
        if decl is not None and key is not None:
            value = decl.annotations.get(key, _MISSING)
            if value is not _MISSING and not isinstance(value, str):
                return value
        namespace = decl.namespace if decl is not None else self.source.globals
        try:
            value = eval(compile(ast.Expression(node), self.srcmap.filename, "eval"), namespace)
        except T.TypeError_ as e:
            raise self.srcmap.error(node, f"invalid type for {what}: {e}") from None
        except Exception as e:
            raise self.srcmap.error(node, f"cannot evaluate the annotation of {what}: {e}") from None
        return value

    def param_specs(self, decl: FunctionDecl) -> list[tuple[Attribute | None, A.ParamDirection]]:
        specs: list[tuple[Attribute | None, A.ParamDirection]] = []
        override = self.overrides.get(decl.name)
        if override is not None and len(override) != len(decl.params):
            raise ParserError(
                f"specialize: '{decl.name}' takes {len(decl.params)} parameters, "
                f"{len(override)} types were given",
                self.srcmap.filename,
            )
        for i, p in enumerate(decl.params):
            ir: Attribute | None = None
            direction = A.ParamDirection.IN
            if p.annotation is not None:
                value = self._annotation(p.annotation, f"parameter '{p.arg}'", decl, p.arg)
                try:
                    spec = T.to_type_spec(value)
                except T.TypeError_ as e:
                    raise self.srcmap.error(p.annotation, f"invalid type for parameter '{p.arg}': {e}") from None
                direction = spec.direction
                if isinstance(spec, T.TypeSpec):
                    ir = spec.ir
            if ir is None and override is not None:
                ir = override[i]
            if ir is None:
                inferred = self.inferred.get(decl.name)
                if inferred is not None:
                    ir = inferred[i]
            specs.append((ir, direction))
        return specs

    def _untyped_param(self, decl: FunctionDecl) -> ast.arg | None:
        for p, (ir, _) in zip(decl.params, self.param_specs(decl)):
            if ir is None:
                return p
        return None

    def result_annotation(self, decl: FunctionDecl) -> list[Attribute] | None:
        node = decl.node.returns
        if node is None:
            return None
        value = self._annotation(node, f"the result of '{decl.name}'", decl, "return")
        if value is None:
            return []
        items = value if isinstance(value, tuple) else getattr(value, "__args__", None)
        if getattr(value, "__origin__", None) is tuple and items is not None:
            pass
        elif isinstance(value, tuple):
            pass
        else:
            items = (value,)
        result: list[Attribute] = []
        for item in items:
            try:
                spec = T.to_type_spec(item)
            except T.TypeError_ as e:
                raise self.srcmap.error(node, f"invalid result type of '{decl.name}': {e}") from None
            if not isinstance(spec, T.TypeSpec) or spec.direction != A.ParamDirection.IN:
                raise self.srcmap.error(node, f"invalid result type of '{decl.name}': {item!r}")
            result.append(spec.ir)
        return result

    # ---- on-demand building

    def ensure(
        self, name: str, arg_types: Sequence[Attribute] | None, node: ast.AST | None
    ) -> tuple[list[Attribute], list[Attribute], FuncOp | None]:
        """Signature of function `name` (building it if needed): inputs, outputs, op."""
        decl = self.source.functions[name]
        if arg_types is not None:
            self._record_call_types(decl, arg_types, node)
        if name in self.built:
            op = self.built[name]
            return list(op.function_type.inputs.data), list(op.function_type.outputs.data), op
        specs = self.param_specs(decl)
        inputs = [ir for ir, _ in specs]
        if name in self.in_progress:
            outputs = self.result_annotation(decl)
            if outputs is None or any(t is None for t in inputs):
                raise self.srcmap.error(
                    node, f"recursive call to '{name}': annotate its parameters and result type"
                )
            outputs = [*outputs, *(inputs[i] for i in scalar_writebacks(inputs, [d for _, d in specs]))]  # type: ignore[misc]
            return inputs, outputs, None  # type: ignore[return-value]
        for p, ir in zip(decl.params, inputs):
            if ir is None:
                raise self.srcmap.error(
                    node or p, f"cannot infer the type of parameter '{p.arg}' of '{name}'; annotate it"
                )
        self.in_progress.add(name)
        try:
            fb = FunctionBuilder(self, decl, inputs, [d for _, d in specs])  # type: ignore[arg-type]
            op = fb.build()
            attach_dim_bounds(self, decl, op)
        finally:
            self.in_progress.discard(name)
        self.built[name] = op
        return list(op.function_type.inputs.data), list(op.function_type.outputs.data), op

    def _record_call_types(self, decl: FunctionDecl, arg_types: Sequence[Attribute], node: ast.AST | None) -> None:
        untyped = [
            i for i, p in enumerate(decl.params)
            if p.annotation is None or self._is_untyped_direction(p) or self._is_untyped_annotation(decl, p)
        ]
        if not untyped or decl.name in self.overrides:
            return
        prev = self.inferred.get(decl.name)
        new: list[Attribute | None] = list(prev) if prev is not None else [None] * len(decl.params)
        for i in untyped:
            if i >= len(arg_types):
                continue
            actual = arg_types[i]
            if new[i] is None:
                new[i] = actual
            else:
                joined = join_types(new[i], actual, decl.params[i].arg)  # type: ignore[arg-type]
                if joined is None:
                    raise self.srcmap.error(
                        node,
                        f"parameter '{decl.params[i].arg}' of '{decl.name}' receives {actual} here "
                        f"but {new[i]} at another call site; annotate it",
                    )
                new[i] = joined
        if prev is None or new != prev:
            self.inferred[decl.name] = new
            if decl.name in self.built:
                self.dirty = True

    def _is_untyped_annotation(self, decl: FunctionDecl, p: ast.arg) -> bool:
        """`pl.Tensor`, `pl.Out[pl.Tensor]`: an annotation giving no type (only a direction)."""
        if p.annotation is None:
            return False
        value = self._annotation(p.annotation, f"parameter '{p.arg}'", decl, p.arg)
        return isinstance(value, T.UntypedDirection) or value is T.Tensor

    def _is_untyped_direction(self, p: ast.arg) -> bool:
        node = p.annotation
        return (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value is Ellipsis
        )



def _index_arith_key(op: Operation) -> tuple | None:
    """What identifies `op` among the ops of its block when it is pure scalar integer / index
    arithmetic (`arith` on index and integers, `tensor.dim`), else None."""
    if op.regions or len(op.results) != 1 or not isinstance(op.results[0].type, IndexType | IntegerType):
        return None
    if not op.has_trait(Pure):
        return None
    return (
        op.name,
        tuple(op.operands),
        tuple(sorted(op.properties.items())),
        tuple(sorted(op.attributes.items())),
        op.results[0].type,
    )


class FunctionBuilder(ControlFlowMixin, ScopeMixin, ExpressionMixin, CallMixin):
    """Builds one `pypto.func` from a function's AST (see the module docstring)."""

    def __init__(
        self,
        mb: ModuleBuilder,
        decl: FunctionDecl,
        input_types: list[Attribute],
        directions: list[A.ParamDirection],
    ):
        self.mb = mb
        self.decl = decl
        self.srcmap = mb.srcmap
        self.globals = decl.namespace
        self.input_types = input_types
        self.directions = directions
        self.env: dict[str, Value] = {}
        self.block: Block = Block(arg_types=input_types)
        self.params_block = self.block
        self.locals: set[str] = decl.locals
        self.last_load: dict[str, Pos] = decl.last_load
        self.returned: list[SSAValue] | None = None
        self.in_scope = False
        self.scope_split: str | None = None
        """Inside a `pl.at`: the split mode it was given ("none" for pl.SplitMode.NONE), else None."""
        self.region_writes: set[str] = set()
        """Names a pl.split_aiv region of the current scope wrote in place (scope results)."""
        # Literals materialised per block (a constant is reused within its block only, so
        # scope bodies stay self-contained for outlining).
        self.constants: dict[tuple[int, Attribute], SSAValue] = {}
        # Pure index arithmetic per block, under the same rule: `a[r*128:(r+1)*128] = f(a[r*128:
        # (r+1)*128])` computes `r*128` once. Keyed by the Block itself (not its id: a scope
        # body the frontend discards must not lend its entries to a later block).
        self.index_arith: dict[Block, dict[tuple, SSAValue]] = {}
        self._parents: dict[ast.AST, ast.AST] | None = None  # AST parent links, built on demand

    def error(self, node: ast.AST | None, message: str) -> ParserError:
        return self.srcmap.error(node, message)

    # ---- entry

    def build(self) -> FuncOp:
        decl = self.decl
        for arg, p in zip(self.block.args, decl.params):
            self._hint(arg, p.arg)
            self.env[p.arg] = arg
        self.env.update(decl.bound)
        body = decl.node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        declared = self.mb.result_annotation(decl)
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Return):
                if i != len(body) - 1:
                    raise self.error(body[i + 1], "unreachable code after 'return'")
                self.returned = self.return_values(stmt, declared)
            else:
                self.stmt(stmt)
        values = self.returned or []
        if declared is not None:
            if len(declared) != len(values):
                raise self.error(
                    decl.node.returns,
                    f"'{decl.name}' is declared to return {len(declared)} values but returns {len(values)}",
                )
            for i, (want, v) in enumerate(zip(declared, values)):
                if v.type != want:
                    raise self.error(
                        decl.node.returns,
                        f"result #{i} of '{decl.name}' is declared {want} but the function returns {v.type}",
                    )
        # A scalar pl.Out / pl.InOut parameter is the caller's variable: its final value is
        # returned after the function's own results (the caller rebinds its variable).
        for i in scalar_writebacks(self.input_types, self.directions):
            name = decl.params[i].arg
            final = self.env.get(name)
            if not isinstance(final, SSAValue) or final.type != self.input_types[i]:
                final = self.materialize(final, self.input_types[i], decl.node) if isinstance(final, Const) else final
            if not isinstance(final, SSAValue) or final.type != self.input_types[i]:
                raise self.error(
                    decl.params[i], f"'{name}' is a scalar {self.directions[i].value} parameter but holds "
                    f"{describe(final)} at the end of '{decl.name}'",
                )
            values = [*values, final]
        self.block.add_op(ReturnOp(*values))
        func = FuncOp(
            decl.name,
            self.input_types,
            [v.type for v in values],
            decl.kind,
            self.directions,
            Region(self.block),
        )
        SOURCE_NODES[func] = (self.srcmap, decl.node)  # errors about the function: at its def
        return func

    def return_values(self, stmt: ast.Return, declared: list[Attribute] | None) -> list[SSAValue]:
        if stmt.value is None:
            return []
        value = self.expr(stmt.value)
        items = list(value) if isinstance(value, tuple) else [value]
        out: list[SSAValue] = []
        for i, item in enumerate(items):
            if isinstance(item, Const):
                want = declared[i] if declared is not None and i < len(declared) else None
                item = self.materialize(item, want if want is not None and A.is_scalar_type(want) else None, stmt.value)
            if not isinstance(item, SSAValue):
                raise self.error(stmt.value, f"cannot return {describe(item)}")
            out.append(item)
        return out

    # ---- helpers

    @staticmethod
    def _hint(value: SSAValue, name: str) -> None:
        if value.name_hint is None:
            try:
                value.name_hint = name
            except Exception:  # pragma: no cover - names the printer rejects
                pass

    def emit(self, op: Operation, node: ast.AST | None, verify: bool = True) -> Operation:
        # The op-specific verifier (operand kinds, shapes, inferred result types) runs here
        # so errors point at the source; the generic IRDL checks run once on the finished
        # module (ModuleBuilder.build).
        if verify and isinstance(op, InferResultTypes):
            try:
                op.verify_result_types()
            except (VerifyException, DiagnosticException) as e:
                raise self.error(node, f"{op.name}: {e}") from None
        self.block.add_op(op)
        if node is not None:
            SOURCE_NODES[op] = (self.srcmap, node)
        return op

    def build_op(self, node: ast.AST, factory: Callable[[], Operation]) -> SSAValue:
        try:
            op = factory()
        except (VerifyException, DiagnosticException) as e:
            raise self.error(node, str(e)) from None
        key = _index_arith_key(op)
        if key is not None:
            cached = self.index_arith.setdefault(self.block, {}).get(key)
            if cached is not None:
                op.drop_all_references()  # never inserted: detach it from its operands
                return cached
        self.emit(op, node)
        if key is not None:
            self.index_arith[self.block][key] = op.results[0]
        return op.results[0]

    def materialize(self, value: Value, want: Attribute | None, node: ast.AST | None) -> SSAValue:
        """An SSA value for `value`, converting a literal to type `want` (default by kind)."""
        if isinstance(value, T.DynVar):  # a dynamic dimension used as a value: its extent
            value = dynamic_extent(self, value, node)
        if isinstance(value, SSAValue):
            if want is not None and value.type != want and not types_compatible(want, value.type):
                raise self.error(node, f"expected {describe_type(want)}, got {describe_type(value.type)}")
            return value
        if not isinstance(value, Const):
            raise self.error(node, f"expected a value, got {describe(value)}")
        v = value.value
        if want is None:
            want = IntegerType(1) if isinstance(v, bool) else IndexType() if isinstance(v, int) else A.Float32Type()
        if isinstance(want, IntegerType) and want.signedness.data != Signedness.SIGNLESS:
            # arith.constant makes signless integers only, and the scalar operand of a tile op
            # has the tile's element type: there is no constant of that type to give it
            raise self.error(
                node, f"cannot use the constant {v!r} as {describe_type(want)}: constants are signless "
                "integers, so a literal operand of an unsigned or signed integer tile is not supported; "
                "use a signless integer dtype (pl.INT16, pl.INT32, ...) or compute the scalar from a tensor element",
            )
        if isinstance(want, IndexType | IntegerType):
            if isinstance(v, float) and not v.is_integer():
                raise self.error(node, f"cannot use the float {v!r} as {describe_type(want)}")
            attr = IntegerAttr(int(v), want)
        elif A.is_float_type(want):
            attr = FloatAttr(float(v), want)  # type: ignore[arg-type]
        else:
            raise self.error(node, f"cannot use the constant {v!r} as {describe_type(want)}")
        key = (id(self.block), attr)
        cached = self.constants.get(key)
        if cached is not None:
            return cached
        op = arith.ConstantOp(attr)
        self.block.add_op(op)
        self.constants[key] = op.result
        return op.result

    def index(self, value: Value, node: ast.AST) -> SSAValue:
        if isinstance(value, Const) and isinstance(value.value, bool):
            raise self.error(node, "expected an index, got a bool")
        if isinstance(value, SSAValue) and not isinstance(value.type, IndexType):
            from pypto_xdsl.frontend.scalars import as_index

            converted = as_index(self, value, node)  # PyPTO converts INT32/INT64 to INDEX
            if converted is None:
                raise self.error(node, f"expected an index, got {describe_type(value.type)}")
            return converted
        return self.materialize(value, IndexType(), node)

    # The argument helpers below take the value the caller already evaluated from `node`:
    # evaluating it again would emit its ops (offset arithmetic, calls) a second time.

    def index_list(self, value: Value, node: ast.expr, what: str) -> list[SSAValue]:
        if not isinstance(value, list | tuple):
            raise self.error(node, f"{what} must be a list, got {describe(value)}")
        elts = node.elts if isinstance(node, ast.List | ast.Tuple) else [node] * len(value)
        return [self.index(v, n) for v, n in zip(value, elts)]

    def static_shape(self, value: Value, node: ast.expr, what: str) -> list[A.Dim]:
        if not isinstance(value, list | tuple):
            raise self.error(node, f"{what} must be a list, got {describe(value)}")
        dims: list[A.Dim] = []
        for d in value:
            if isinstance(d, Const) and isinstance(d.value, int) and not isinstance(d.value, bool) and d.value >= 0:
                dims.append(d.value)
            elif isinstance(d, T.DynVar):
                dims.append(d.name)
            else:
                raise self.error(node, f"{what} must hold static dimensions (ints or pl.dynamic), got {describe(d)}")
        return dims

    def dtype_arg(self, value: Value, node: ast.expr) -> T.DataType:
        if not isinstance(value, T.DataType):
            raise self.error(node, f"expected a dtype such as pl.FP32, got {describe(value)}")
        return value

    def local_window(self, value: Value, node: ast.AST) -> Value:
        """A `pld.DistributedTensor` read or written as a tensor is this rank's window
        (`pypto.dist.local`); any other value is itself."""
        from pypto_xdsl.dialects.distributed import DistributedTensorType
        from pypto_xdsl.dialects.distributed_comm import LocalWindowOp

        if isinstance(value, SSAValue) and isinstance(value.type, DistributedTensorType):
            if self.decl.kind == A.FuncKind.HOST:
                raise self.error(
                    node, f"{describe(value)} is read or written on a rank: pass it to a function "
                    "dispatched with device=, the host's window belongs to no rank"
                )
            return self.build_op(node, lambda: LocalWindowOp(value))
        return value

    def shaped(self, value: Value, node: ast.AST, what: str = "operand") -> SSAValue:
        value = self.local_window(value, node)
        if not isinstance(value, SSAValue) or not isinstance(value.type, TensorType | TileType):
            raise self.error(node, f"{what} must be a tensor or a tile, got {describe(value)}")
        return value

    # ---- statements

    def stmts(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"unsupported statement '{type(node).__name__}' in a pl.function")
        block, before = self.block, self.block.last_op
        try:
            method(node)
            # the ops the statement added without a more precise node (constants, loops)
            op = before.next_op if before is not None else block.first_op
            while op is not None:
                SOURCE_NODES.setdefault(op, (self.srcmap, node))
                op = op.next_op
        except (VerifyException, DiagnosticException) as e:
            # an xDSL verifier rejecting what the statement builds (a type of a shape beyond
            # int64, ...) that no check of the frontend caught first: at the statement
            raise self.error(node, str(e)) from None

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a string used as a comment
        value = self.expr(node.value)
        # `pl.store(t, offs, out)` as a statement: later reads of `out` see the written tensor
        # through the store's result (same storage), so they are ordered after the write.
        if isinstance(value, SSAValue) and isinstance(value.owner, Operation):
            target = aliased_operand(value.owner)
            if target is not None:
                for name, bound in list(self.env.items()):
                    if bound is target:
                        self.env[name] = value
                        self._hint(value, name)

    def stmt_Return(self, node: ast.Return) -> None:
        raise self.error(node, "'return' is only supported as the last statement of a function body")

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.bind(target, value, node.value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error(node, "a declaration without a value is not supported")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only a plain name can be annotated")
        ann = self.mb._annotation(node.annotation, f"'{node.target.id}'", self.decl)
        try:
            spec = T.to_type_spec(ann)
        except T.TypeError_ as e:
            raise self.error(node.annotation, f"invalid type for '{node.target.id}': {e}") from None
        if not isinstance(spec, T.TypeSpec):
            raise self.error(node.annotation, "pl.Out[...]/pl.InOut[...] only apply to parameters")
        value = self.expr(node.value)
        if isinstance(value, Const):
            value = self.materialize(value, spec.ir, node.value)
        if not isinstance(value, SSAValue):
            raise self.error(node.value, f"cannot assign {describe(value)} to '{node.target.id}'")
        want = spec.ir
        if spec.any_space and isinstance(want, TileType) and isinstance(value.type, TileType):
            want = TileType(want.get_shape(), want.element_type, value.type.space)
        if value.type != want and not types_compatible(want, value.type):
            raise self.error(
                node, f"'{node.target.id}' is annotated {spec.ir} but the value has type {value.type}"
            )
        self.bind(node.target, value, node.value)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Subscript):  # `t[a:b] += x`: read the window, write it back
            current = self.expr_Subscript(node.target)
            value = self.binop(node.op, current, self.expr(node.value), node)
            self.bind_window(node.target, value, node)
            return
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only a plain name or a tensor window can be updated in place")
        current = self.load_name(node.target.id, node.target)
        value = self.binop(node.op, current, self.expr(node.value), node)
        self.bind(node.target, value, node)

    def bind(self, target: ast.expr, value: Value, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if value is None:
                raise self.error(node, f"the expression assigned to '{target.id}' has no value")
            if isinstance(value, SSAValue):
                self._hint(value, target.id)
            self.env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, tuple | list):
                raise self.error(node, f"cannot unpack {describe(value)} into {len(target.elts)} names")
            if len(value) != len(target.elts):
                raise self.error(
                    node, f"cannot unpack {len(value)} values into {len(target.elts)} names"
                )
            for t, v in zip(target.elts, value):
                self.bind(t, v, node)
        elif isinstance(target, ast.Subscript):
            self.bind_window(target, value, node)
        else:
            raise self.error(target, f"unsupported assignment target '{type(target).__name__}'")

    def _set_task_id(self, target: ast.Subscript, base: SSAValue, value: Value, node: ast.AST) -> None:
        """`tids[i] = tid` on an array of task ids: `task_ids.set`; rebinds `tids`."""
        name = target.value.id  # type: ignore[attr-defined]
        if isinstance(target.slice, ast.Slice | ast.Tuple):
            raise self.error(target.slice, f"'{name}' is indexed by one index (tids[i] = tid)")
        if not isinstance(value, SSAValue) or not isinstance(value.type, TaskIdType):
            raise self.error(node, f"only a task id can be stored in '{name}' ({base.type}), got {describe(value)}")
        index = self.index(self.expr(target.slice), target.slice)
        result = self.build_op(node, lambda: TaskIdsSetOp(base, index, value))
        self.env[name] = result
        self._hint(result, name)

    def bind_window(self, target: ast.Subscript, value: Value, node: ast.AST) -> None:
        """`t[a:b, c:d] = v`: `tensor.assemble` (tensor `v`) or `tile.store` (tile `v`); rebinds `t`."""
        from pypto_xdsl.frontend.windows import window

        if not isinstance(target.value, ast.Name):
            raise self.error(target.value, "item assignment needs a plain name on the left (t[a:b] = v)")
        name = target.value.id
        base = self.load_name(name, target.value)
        if isinstance(base, SSAValue) and isinstance(base.type, TaskIdArrayType):
            return self._set_task_id(target, base, value, node)
        if not isinstance(base, SSAValue) or not isinstance(base.type, TensorType):
            raise self.error(target.value, f"item assignment is only supported on tensors, '{name}' is {describe(base)}")
        if not isinstance(value, SSAValue) or not isinstance(value.type, TensorType | TileType):
            raise self.error(
                node,
                f"only a tensor or a tile can be assigned to a window of '{name}', got {describe(value)}"
                " (there is no element write; use pl.full / pl.store for constants)",
            )
        offsets, dims = window(self, base, target)
        if value.type.element_type != base.type.element_type:
            raise self.error(
                node, f"cannot assign {describe(value)} to a window of '{name}' ({base.type}): element types differ"
            )
        got = value.type.get_shape()
        if len(got) != len(dims) or not all(A.dims_compatible(w, g) for w, g in zip(dims, got)):
            raise self.error(
                node,
                f"cannot assign {describe(value)} to the window {A.format_shape(dims)}"
                f" of '{name}'",
            )
        if isinstance(value.type, TensorType):
            result = self.build_op(node, lambda: tensor_ops.AssembleOp(value, base, offsets))
        else:
            result = self.build_op(node, lambda: tile_ops.StoreOp(value, base, offsets))
        # every name of the written storage now sees the write
        for n, bound in list(self.env.items()):
            if bound is base:
                self.env[n] = result
        self.env[name] = result
        self._hint(result, name)
