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
"""

from __future__ import annotations

import ast
import builtins
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TaskIdType, TensorType, TileType
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    CallOp,
    FuncOp,
    IncoreScopeOp,
    ReturnOp,
    SplitAivOp,
    SubmitOp,
    YieldOp,
    scalar_writebacks,
)
from pypto_xdsl.dialects.traits import InferResultTypes, aliased_operand
from pypto_xdsl.frontend.bounds import attach_dim_bounds
from pypto_xdsl.frontend.errors import ParserError, SourceMap
from pypto_xdsl.frontend.values import (
    Const,
    FuncRef,
    ScopeOption,
    Undefined,
    describe,
    describe_type,
)
from pypto_xdsl.language import types as T
from pypto_xdsl.language.ops import OpStub
from pypto_xdsl.utils import paused_gc

Value = Any  # SSAValue | Const | FuncRef | tuple | list | static Python object
Pos = tuple[int, int]


# --------------------------------------------------------------------------- declarations


@dataclass
class FunctionDecl:
    name: str
    node: ast.FunctionDef
    kind: A.FuncKind
    self_name: str
    params: list[ast.arg]
    namespace: dict[str, Any] = field(default_factory=dict)
    """Globals of the method plus the values of its closure (names of enclosing functions)."""
    annotations: dict[str, Any] = field(default_factory=dict)
    """Annotations Python already evaluated (`__annotations__`); strings are evaluated here."""
    called: bool = False
    locals: set[str] = field(default_factory=set)
    """Parameters and every name the body assigns."""
    last_load: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Source position of the last read of each name (decides what control flow carries)."""
    bound: dict[str, Any] = field(default_factory=dict)
    """Names bound before the body runs that are not parameters (a `@pl.jit` entry's scalar
    arguments, specialised to their values)."""
    dim_bounds: dict[str, int] = field(default_factory=dict)
    """Bounds of dynamic dimensions declared outside the annotations (`bind_dynamic`)."""


@dataclass
class ProgramSource:
    """A parsed `@pl.program` class: its AST, its file and the globals names resolve in."""

    name: str
    node: ast.ClassDef
    srcmap: SourceMap
    globals: dict[str, Any]
    functions: dict[str, FunctionDecl] = field(default_factory=dict)
    refs: dict[int, str] = field(default_factory=dict)
    """Python objects a body may call by name (`id` -> function of the program): module-level
    `@pl.function`s and `@pl.jit` dependencies, which are called without `self.`."""

    def function_ref(self, obj: Any) -> FuncRef | None:
        name = self.refs.get(id(obj))
        return FuncRef(name) if name is not None else None

    @classmethod
    def parse(
        cls,
        node: ast.ClassDef,
        srcmap: SourceMap,
        globals_: dict[str, Any],
        kinds: dict[str, A.FuncKind],
        pyfuncs: dict[str, Any] | None = None,
    ) -> ProgramSource:
        src = cls(node.name, node, srcmap, globals_)
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                if item.name not in kinds:
                    continue  # a plain method, not part of the program
                if item.name in src.functions:
                    raise srcmap.error(item, f"duplicate function '{item.name}'")
                args = item.args
                if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
                    raise srcmap.error(item, f"'{item.name}': only plain parameters are supported")
                if args.defaults:
                    raise srcmap.error(args.defaults[0], "parameter defaults are not supported")
                if not args.args:
                    raise srcmap.error(item, f"'{item.name}' must take 'self' as first parameter")
                decl = FunctionDecl(
                    item.name, item, kinds[item.name], args.args[0].arg, list(args.args[1:]),
                    dict(globals_),
                )
                fn = (pyfuncs or {}).get(item.name)
                if fn is not None:
                    decl.namespace.update(_closure_values(fn))
                    decl.annotations = dict(getattr(fn, "__annotations__", {}) or {})
                src.functions[item.name] = decl
            elif isinstance(item, ast.AsyncFunctionDef):
                raise srcmap.error(item, "async functions are not supported")
        if not src.functions:
            raise srcmap.error(node, f"@pl.program class '{node.name}' has no @pl.function methods")
        for decl in src.functions.values():
            scan_function(decl, src.functions)
        return src


def scan_function(decl: FunctionDecl, functions: dict[str, FunctionDecl]) -> None:
    """One walk over a function: its stored names, the last read of each name, and which
    functions it references (`self.f`, marked `called`; unreferenced functions are entries)."""
    decl.locals = {p.arg for p in decl.params}
    last_load = decl.last_load
    for sub in ast.walk(decl.node):
        stored = _subscript_store_base(sub)
        if stored is not None:
            decl.locals.add(stored)
        if isinstance(sub, ast.Name):
            if isinstance(sub.ctx, ast.Store):
                decl.locals.add(sub.id)
            else:
                pos = (sub.lineno, sub.col_offset)
                if pos > last_load.get(sub.id, (0, 0)):
                    last_load[sub.id] = pos
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            pos = (sub.lineno, sub.col_offset)
            if pos > last_load.get(sub.target.id, (0, 0)):
                last_load[sub.target.id] = pos
        elif (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == decl.self_name
            and sub.attr in functions
            and sub.attr != decl.name
        ):
            functions[sub.attr].called = True


def _closure_values(fn: Any) -> dict[str, Any]:
    code, cells = fn.__code__, fn.__closure__ or ()
    values: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            pass
    return values


# --------------------------------------------------------------------------- type helpers


def join_types(a: Attribute, b: Attribute, param: str = "p") -> Attribute | None:
    """A type describing both `a` and `b`: differing dims become the symbol `<param>_d<i>`.

    A symbol (rather than `?`) keeps call results precise: each call site binds it to its
    argument's extent.
    """
    if a == b:
        return a
    if type(a) is not type(b) or not isinstance(a, TensorType | TileType):
        return None
    assert isinstance(b, TensorType | TileType)
    if a.element_type != b.element_type or a.rank != b.rank:
        return None
    if isinstance(a, TileType) and a.space != b.space:  # type: ignore[union-attr]
        return None
    dims = [x if x == y else f"{param}_d{i}" for i, (x, y) in enumerate(zip(a.get_shape(), b.get_shape()))]
    return a.with_shape(dims)


def types_compatible(formal: Attribute, actual: Attribute) -> bool:
    if formal == actual:
        return True
    if type(formal) is not type(actual) or not isinstance(formal, TensorType | TileType):
        return False
    assert isinstance(actual, TensorType | TileType)
    if formal.element_type != actual.element_type:
        return False
    if isinstance(formal, TileType) and formal.space != actual.space:  # type: ignore[union-attr]
        return False
    return A.bind_shape(formal.get_shape(), actual.get_shape(), {}, strict=False)


def is_scalar_type(t: Attribute) -> bool:
    return A.is_scalar_type(t)


def is_int_like(t: Attribute) -> bool:
    return isinstance(t, IndexType | IntegerType)


# --------------------------------------------------------------------------- module builder

SOURCE_NODES: weakref.WeakKeyDictionary[Operation, tuple[SourceMap, ast.AST]] = weakref.WeakKeyDictionary()
"""The statement or expression of the user's program each op the frontend built came from:
a verifier's or a pass's diagnostic about the op (or an op nested in it) points there."""


def source_of(op: Operation | None) -> tuple[SourceMap, ast.AST] | None:
    """Where `op`, or the closest op enclosing it, was built from."""
    while op is not None:
        found = SOURCE_NODES.get(op)
        if found is not None:
            return found
        op = op.parent_op()
    return None


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
        parameter of `f`: the call rebinds `k` (`_assigned_names` counts it as assigned, so
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
                    and is_scalar_type(specs[i][0])  # type: ignore[arg-type]
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


# --------------------------------------------------------------------------- function builder


def _subscript_store_base(node: ast.AST) -> str | None:
    """`t` for an item assignment `t[...] = v` / `t[...] += v` (it rebinds `t`), else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _assigned_names(stmts: Sequence[ast.stmt]) -> list[str]:
    """Names stored anywhere in `stmts` (nested blocks included), in first-store order.

    An item assignment `t[a:b] = v` stores `t` (it rebinds `t` to the assembled tensor); a
    call passing `k` to a scalar pl.Out / pl.InOut parameter stores `k` (see
    `ModuleBuilder._mark_writeback_calls`).
    """
    seen: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
            elif isinstance(node, ast.Call) and hasattr(node, "_pl_writeback"):
                # a call writing scalar pl.Out / pl.InOut arguments back rebinds them
                for name in node._pl_writeback:
                    seen.setdefault(name, None)
            else:
                base = _subscript_store_base(node)
                if base is not None:
                    seen.setdefault(base, None)
    return list(seen)


def _storage_root(value: SSAValue) -> SSAValue:
    """The value whose storage `value` names, following writes (store, assemble, ...)."""
    while isinstance(value.owner, Operation):
        target = aliased_operand(value.owner)
        if target is None:
            break
        value = target
    return value


def _end(node: ast.AST) -> Pos:
    return (node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _reads(name: str, node: ast.AST) -> bool:
    """Does `node` read `name` (a load, an augmented assignment, an item store `name[i] = v`)?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and not isinstance(sub.ctx, ast.Store):
            return True
        if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and sub.target.id == name:
            return True
    return False


def _stores(name: str, target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Tuple | ast.List):
        return any(_stores(name, e) for e in target.elts)
    return False


def _assigned_before_read(name: str, stmts: Sequence[ast.stmt]) -> bool | None:
    """True when every run of `stmts` binds `name` before it reads it (so the value `name`
    held before is dead), False when a run may read it first, None when no run reads it and
    some run may not bind it. Syntactic and conservative: a loop body may run no iteration,
    an `if` binds only when both branches do."""
    for stmt in stmts:
        if isinstance(stmt, ast.With):
            if any(_reads(name, item) for item in stmt.items):
                return False
            inner = _assigned_before_read(name, stmt.body)
        elif isinstance(stmt, ast.If):
            if _reads(name, stmt.test):
                return False
            then, other = _assigned_before_read(name, stmt.body), _assigned_before_read(name, stmt.orelse)
            if then is False or other is False:
                return False
            inner = True if then and other else None
        elif isinstance(stmt, ast.For | ast.While):
            head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            if _reads(name, head) or _assigned_before_read(name, [*stmt.body, *stmt.orelse]) is False:
                return False
            inner = None  # the loop may run no iteration
        elif _reads(name, stmt):
            return False
        elif isinstance(stmt, ast.Assign) and any(_stores(name, t) for t in stmt.targets):
            return True
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and _stores(name, stmt.target):
            return True
        else:
            inner = None
        if inner is not None:
            return inner
    return None


_BINOP_NAMES = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
}

LOOP_KINDS = ("range", "parallel", "pipeline")
LOOP_KIND_ATTR = "pypto.loop_kind"
"""Discardable attribute of an `scf.for` from `pl.parallel` / `pl.pipeline` (PyPTO's ForKind)."""
PIPELINE_STAGE_ATTR = "pypto.pipeline_stage"
"""Discardable attribute of an `scf.for` from `pl.pipeline(n, stage=S)`: PyPTO's pipelining depth
(a hint; the loop runs sequentially here)."""

_CMP_NAMES = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


class FunctionBuilder:
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
                item = self.materialize(item, want if want is not None and is_scalar_type(want) else None, stmt.value)
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
        self.emit(op, node)
        return op.results[0]

    def materialize(self, value: Value, want: Attribute | None, node: ast.AST | None) -> SSAValue:
        """An SSA value for `value`, converting a literal to type `want` (default by kind)."""
        if isinstance(value, T.DynVar):  # a dynamic dimension used as a value: its extent
            from pypto_xdsl.frontend.expressions import dynamic_extent

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

    def index_list(self, node: ast.expr, what: str) -> list[SSAValue]:
        value = self.expr(node)
        if not isinstance(value, list | tuple):
            raise self.error(node, f"{what} must be a list, got {describe(value)}")
        elts = node.elts if isinstance(node, ast.List | ast.Tuple) else [node] * len(value)
        return [self.index(v, n) for v, n in zip(value, elts)]

    def static_shape(self, node: ast.expr, what: str) -> list[A.Dim]:
        value = self.expr(node)
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

    def dtype_arg(self, node: ast.expr) -> T.DataType:
        value = self.expr(node)
        if not isinstance(value, T.DataType):
            raise self.error(node, f"expected a dtype such as pl.FP32, got {describe(value)}")
        return value

    def shaped(self, value: Value, node: ast.AST, what: str = "operand") -> SSAValue:
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

    def bind_window(self, target: ast.Subscript, value: Value, node: ast.AST) -> None:
        """`t[a:b, c:d] = v`: `tensor.assemble` (tensor `v`) or `tile.store` (tile `v`); rebinds `t`."""
        from pypto_xdsl.frontend.windows import window

        if not isinstance(target.value, ast.Name):
            raise self.error(target.value, "item assignment needs a plain name on the left (t[a:b] = v)")
        name = target.value.id
        base = self.load_name(name, target.value)
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

    # ---- control flow

    _WRITES = {"store": ("output_tensor", 2), "assemble": ("target", 0), "write": ("dst", 0)}

    def _escaping_writes(self, node: ast.For, assigned: Sequence[str], excluded: set[str]) -> dict[str, str]:
        """Names first assigned inside the loop and read after it, each assigned a write into
        the storage of a tensor from before the loop (`new = pl.store(t, offs, out)`): name ->
        that tensor's name. PyPTO carries a name that escapes its loop, starting from an
        out/inout tensor of its type; when the name is a write into a known storage, that
        storage is the start (a loop that runs no iteration leaves the tensor as it was), so
        the name is carried from it, and names the storage after the loop."""
        found: dict[str, str] = {}
        after = _end(node)
        for stmt in ast.walk(node):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            n = stmt.targets[0].id
            if n in excluded or n not in assigned or n in found or self.decl.last_load.get(n, (0, 0)) <= after:
                continue
            if n in self.env and not isinstance(self.env[n], Undefined):
                continue
            call = stmt.value
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                continue
            write = self._WRITES.get(call.func.attr)
            if write is None:
                continue
            keyword, position = write
            dest = next((k.value for k in call.keywords if k.arg == keyword), None)
            if dest is None and len(call.args) > position:
                dest = call.args[position]
            if not isinstance(dest, ast.Name) or dest.id in assigned:
                continue
            value = self.env.get(dest.id)
            if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
                found[n] = dest.id
        return found

    def _carried_value(self, name: str, node: ast.AST) -> SSAValue:
        value = self.env[name]
        if isinstance(value, Const):
            value = self.materialize(value, None, node)
        if not isinstance(value, SSAValue):
            raise self.error(node, f"'{name}' holds {describe(value)} and cannot change inside control flow")
        return value

    def _yield_stmt(self, stmt: ast.stmt) -> ast.Assign | None:
        """`targets = pl.yield_(values)` (PyPTO's explicit loop/branch result), or None."""
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and len(stmt.targets) == 1:
            func = stmt.value.func
            try:
                callee = self.expr(func) if isinstance(func, ast.Attribute | ast.Name) else None
            except ParserError:
                return None
            if isinstance(callee, OpStub) and callee.op == "yield_":
                return stmt
        return None


    def _loop_yields(self, node: ast.AST, values: list[tuple[str, Value]], inits: list[SSAValue]) -> list[SSAValue]:
        """The values a loop body yields for its carried names, each of its initial type."""
        yielded = []
        for (n, v), init in zip(values, inits):
            if isinstance(v, Undefined):
                raise self.error(node, f"'{n}' is not defined at the end of the loop body ({v.reason})")
            v = self.materialize(v, init.type, node) if isinstance(v, Const) else v
            if not isinstance(v, SSAValue) or v.type != init.type:
                raise self.error(
                    node,
                    f"loop-carried variable '{n}' changes type in the loop: {init.type} before, "
                    f"{describe(v)} after an iteration",
                )
            yielded.append(v)
        return yielded
    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node.orelse[0], "'for ... else' is not supported")
        it = node.iter
        callee = self.expr(it.func) if isinstance(it, ast.Call) else None
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "split_aiv":
            assert isinstance(it, ast.Call)
            return self.split_aiv(node, it)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "while_":
            from pypto_xdsl.frontend.scopes import while_loop

            assert isinstance(it, ast.Call)
            return while_loop(self, node, it)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "spmd":
            from pypto_xdsl.frontend.scopes import predicate_keyword, predicated_launch

            assert isinstance(it, ast.Call)
            if node.orelse:
                raise self.error(node.orelse[0], "'for ... else' is not supported")
            if not isinstance(node.target, ast.Name):
                raise self.error(node.target, "the block index of pl.spmd must be a single name")
            if predicate_keyword(it) is not None:
                return predicated_launch(self, node, it)
            return self.spmd(node, it, node.body, block_index=node.target.id)
        if not (
            callee is builtins.range
            or (isinstance(callee, OpStub) and callee.family == "" and callee.op in LOOP_KINDS)
        ):
            raise self.error(it, "loops must iterate over pl.range(...), pl.parallel(...) or pl.pipeline(...)")
        assert isinstance(it, ast.Call)
        kind = "range" if callee is builtins.range else callee.op  # type: ignore[union-attr]
        qual = "range" if callee is builtins.range else f"pl.{kind}"
        init_node = None
        stage: int | None = None
        for kw in it.keywords:
            if kw.arg == "stage" and kind == "pipeline":  # PyPTO's pipelining depth
                value = self.expr(kw.value)
                if not (isinstance(value, Const) and type(value.value) is int and value.value >= 1):
                    raise self.error(kw.value, f"'stage' of pl.pipeline must be a positive integer constant, got {describe(value)}")
                stage = value.value
                continue
            if kw.arg != "init_values" or callee is builtins.range:
                raise self.error(kw, f"{qual} does not accept '{kw.arg}'")
            init_node = kw.value
        if not 1 <= len(it.args) <= 3:
            raise self.error(it, f"{qual} takes 1 to 3 arguments (stop | start, stop[, step])")
        values = [self.expr(a) for a in it.args]
        if len(values) == 3 and isinstance(values[2], Const) and values[2].value <= 0:
            raise self.error(it.args[2], f"{qual} needs a positive step, got {values[2].value}")
        bounds = [self.index(v, a) for v, a in zip(values, it.args)]
        if len(bounds) == 1:
            lb, ub, step = self.materialize(Const(0), IndexType(), it), bounds[0], self.materialize(Const(1), IndexType(), it)
        elif len(bounds) == 2:
            lb, ub, step = bounds[0], bounds[1], self.materialize(Const(1), IndexType(), it)
        else:
            lb, ub, step = bounds
        # Explicit form: `for i, (a, b) in pl.range(n, init_values=(x, y)):` whose body ends
        # with `ra, rb = pl.yield_(a2, b2)`; ra, rb name the loop results afterwards.
        explicit: list[str] = []
        explicit_inits: list[SSAValue] = []
        yield_stmt: ast.Assign | None = None
        body_stmts = list(node.body)
        if init_node is not None:
            target = node.target
            if not (
                isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], ast.Tuple | ast.List)
                and all(isinstance(e, ast.Name) for e in target.elts[1].elts)
            ):
                raise self.error(target, "with init_values the loop target must be 'i, (a, b, ...)'")
            loop_var = target.elts[0].id
            explicit = [e.id for e in target.elts[1].elts]  # type: ignore[union-attr]
            values = self.expr(init_node)
            values = list(values) if isinstance(values, tuple | list) else [values]
            if len(values) != len(explicit):
                raise self.error(init_node, f"init_values has {len(values)} values for {len(explicit)} names")
            explicit_inits = []
            for v in values:
                if isinstance(v, Const):
                    v = self.materialize(v, None, init_node)
                if not isinstance(v, SSAValue):
                    raise self.error(init_node, f"init_values must hold values, got {describe(v)}")
                explicit_inits.append(v)
            yield_stmt = self._yield_stmt(body_stmts[-1]) if body_stmts else None
            if yield_stmt is None:
                raise self.error(node, "a loop with init_values must end with 'names = pl.yield_(...)'")
            body_stmts = body_stmts[:-1]
        else:
            if not isinstance(node.target, ast.Name):
                raise self.error(node.target, "the loop variable must be a single name")
            loop_var = node.target.id
        assigned = _assigned_names(node.body)
        yield_targets = _assigned_names([yield_stmt]) if yield_stmt is not None else []
        carried = [
            n for n in assigned
            if n != loop_var and n not in explicit and n not in yield_targets
            and n in self.env and not isinstance(self.env[n], Undefined) and n in self.last_load
        ]
        # A name the body rebinds before reading it, and that nothing reads after the loop, is
        # a new variable per iteration (Python reuses the name): it is not carried, so it may
        # take another type (a tile of another shape) than before the loop.
        fresh = [n for n in carried if _assigned_before_read(n, body_stmts) and not self._live_after(n, node)]
        carried = [n for n in carried if n not in fresh]
        escaping = self._escaping_writes(node, assigned, {loop_var, *explicit, *yield_targets, *carried})
        carried += list(escaping)
        inits = [*explicit_inits, *[self._carried_value(escaping.get(n, n), node) for n in carried]]
        names = [*explicit, *carried]
        body = Block(arg_types=[IndexType(), *[v.type for v in inits]])
        self._hint(body.args[0], loop_var)
        for arg, n in zip(body.args[1:], names):
            self._hint(arg, n)
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.env[loop_var] = body.args[0]
        for n, arg in zip(names, body.args[1:]):
            self.env[n] = arg
        self.block = body
        self.stmts(body_stmts)
        next_values: list[tuple[str, Value]] = []
        if yield_stmt is not None:
            call = yield_stmt.value
            assert isinstance(call, ast.Call)
            if call.keywords:
                raise self.error(call.keywords[0], "pl.yield_ takes positional values only")
            vals = [v for v, _ in self.call_args(call.args)]
            if len(vals) != len(explicit):
                raise self.error(call, f"pl.yield_ yields {len(vals)} values for {len(explicit)} loop-carried names")
            next_values = [(n, v) for n, v in zip(explicit, vals)]
        next_values += [(n, self.env[n]) for n in carried]
        body.add_op(scf.YieldOp(*self._loop_yields(node, next_values, inits)))
        self.env, self.block = outer_env, outer_block
        loop = scf.ForOp(lb, ub, step, inits, Region(body))
        if kind != "range":  # PyPTO's ForKind, kept as a discardable attribute
            loop.attributes[LOOP_KIND_ATTR] = StringAttr(kind)
        if stage is not None:
            loop.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(stage, 64)
        self.block.add_op(loop)
        results = list(loop.results)
        if yield_stmt is not None:
            explicit_results = results[: len(explicit)]
            target = yield_stmt.targets[0]
            self.bind(target, explicit_results[0] if len(explicit_results) == 1 and isinstance(target, ast.Name) else tuple(explicit_results), yield_stmt)
        for n, res in zip(carried, results[len(explicit):]):
            self._hint(res, n)
            self.env[n] = res
        for n in [loop_var, *explicit, *assigned]:
            if n in yield_targets or n in carried:
                continue
            if n == loop_var or n in explicit or n not in self.env:
                self.env[n] = Undefined(f"'{n}' is only defined inside the loop at line {node.lineno}")
            elif n in fresh:
                self.env[n] = Undefined(f"'{n}' is rebound inside the loop at line {node.lineno} and not carried out of it")

    def _live_after(self, name: str, node: ast.stmt) -> bool:
        """May the program read `name` after `node` before rebinding it? Walks outwards through
        the statements that follow `node` (`_assigned_before_read`); leaving a loop's body, the
        next iteration comes first."""
        parents = self._parents
        if parents is None:
            parents = self._parents = {
                child: parent for parent in ast.walk(self.decl.node) for child in ast.iter_child_nodes(parent)
            }
        child: ast.AST = node
        up = parents.get(child)
        while up is not None:
            for part in ("body", "orelse", "finalbody"):
                stmts = getattr(up, part, None)
                if isinstance(stmts, list) and child in stmts:
                    bound = _assigned_before_read(name, stmts[stmts.index(child) + 1:])
                    if bound is not None:
                        return not bound
                    if isinstance(up, ast.For | ast.While) and part == "body":
                        if isinstance(up, ast.While) and _reads(name, up.test):
                            return True
                        if _assigned_before_read(name, up.body) is False:
                            return True  # the next iteration reads it first
                    break
            if up is self.decl.node:
                return False
            child, up = up, parents.get(up)
        return False

    def split_aiv(self, node: ast.For, it: ast.Call) -> None:
        """`for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):` -> `pypto.split_aiv`.

        The region runs once per AIV lane (`aiv_id` is the lane index) and has no results:
        its writes go through the tensors' storage, so after it a name rebound inside to a
        write of its own storage (`out = pl.store(t, offs, out)`) keeps naming that storage;
        any other name assigned inside is undefined after the region. Outside a `pl.at` in
        a non-InCore function the region is wrapped in an InCore scope (as PyPTO does).
        """
        from pypto_xdsl.frontend.ops import Args

        if node.orelse:
            raise self.error(node.orelse[0], "'for ... else' is not supported")
        a = Args(self, it, "pl.split_aiv", ["count", "mode"], 0)
        if "count" in a:
            count = a.value("count")
            if not (isinstance(count, Const) and count.value == 2 and type(count.value) is int):
                raise self.error(a.node_of("count"), f"pl.split_aiv splits into 2 lanes, got {describe(count)}")
        if "mode" not in a:
            raise self.error(it, "pl.split_aiv needs mode=pl.SplitMode.<mode>")
        mode = a.value("mode")
        if not isinstance(mode, T.SplitMode):
            raise self.error(a.node_of("mode"), f"'mode' of pl.split_aiv must be a pl.SplitMode member, got {describe(mode)}")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the lane variable of pl.split_aiv must be a single name")
        if not self.in_scope and self.decl.kind not in A.INCORE_KINDS:
            self.scope(node, [node])  # wrapped in an InCore scope; builds the region inside
            return
        if self.scope_split is not None:
            raise self.error(
                node,
                f"the enclosing pl.at has a split mode ({self.scope_split}, from pl.split(...) or "
                "split=) and holds a pl.split_aiv region; these are mutually exclusive AIV-split "
                "mechanisms (the function-level split would be silently dropped). To pin a "
                "cross-core slot count, use optimizations=[pl.cross_core_slot(slot_num=N)]",
            )
        lane_name = node.target.id
        region = SplitAivOp(mode.value)
        block = region.body.block
        self._hint(block.args[0], lane_name)
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.env[lane_name] = block.args[0]
        self.block = block
        self.stmts(node.body)
        inner_env = self.env
        self.env, self.block = outer_env, outer_block
        self.block.add_op(region)
        for n in _assigned_names(node.body):
            inner, outer = inner_env.get(n), outer_env.get(n)
            if n == lane_name or inner is outer:
                continue
            if isinstance(outer, SSAValue) and isinstance(inner, SSAValue) and _storage_root(inner) is _storage_root(outer):
                self.region_writes.add(n)  # an enclosing scope yields the storage (ordering)
                continue  # written in place: the name keeps naming the storage
            self.env[n] = Undefined(f"'{n}' is only defined inside the pl.split_aiv region at line {node.lineno}")
        self.env[lane_name] = Undefined(f"'{lane_name}' is the lane of the pl.split_aiv region at line {node.lineno}")

    def stmt_While(self, node: ast.While) -> None:
        """`while cond:` -> `scf.while`; the condition is evaluated in the 'before' region.

        Names carried by the loop are chosen as for `for` loops: defined before the loop,
        assigned in its body and read somewhere. Both regions see them as block arguments.
        """
        if node.orelse:
            raise self.error(node.orelse[0], "'while ... else' is not supported")
        assigned = _assigned_names(node.body)
        carried = [
            n for n in assigned
            if n in self.env and not isinstance(self.env[n], Undefined) and n in self.last_load
        ]
        inits = [self._carried_value(n, node) for n in carried]
        types = [v.type for v in inits]
        before, after = Block(arg_types=types), Block(arg_types=types)
        for block in (before, after):
            for arg, n in zip(block.args, carried):
                self._hint(arg, n)
        outer_env, outer_block = self.env, self.block
        # the condition, on the values at the start of each iteration
        self.env = dict(outer_env)
        self.env.update(zip(carried, before.args))
        self.block = before
        cond = self.expr(node.test)
        if isinstance(cond, Const) or not isinstance(cond, SSAValue):
            self.env, self.block = outer_env, outer_block
            raise self.error(
                node.test,
                f"a 'while' condition must be a comparison (i1) computed at run time, got {describe(cond)}",
            )
        if cond.type != IntegerType(1):
            self.env, self.block = outer_env, outer_block
            raise self.error(node.test, f"a 'while' condition must be a comparison (i1), got {describe(cond)}")
        before.add_op(scf.ConditionOp(cond, *before.args))
        # the body
        self.env = dict(outer_env)
        self.env.update(zip(carried, after.args))
        self.block = after
        self.stmts(node.body)
        after.add_op(scf.YieldOp(*self._loop_yields(node, [(n, self.env[n]) for n in carried], inits)))
        self.env, self.block = outer_env, outer_block
        loop = scf.WhileOp(inits, types, Region(before), Region(after))
        self.block.add_op(loop)
        for n, res in zip(carried, loop.results):
            self._hint(res, n)
            self.env[n] = res
        for n in assigned:
            if n not in carried and (n not in self.env or isinstance(self.env[n], Undefined)):
                self.env[n] = Undefined(f"'{n}' is only defined inside the loop at line {node.lineno}")

    def stmt_Break(self, node: ast.Break) -> None:
        raise self.error(
            node,
            "'break' is not supported: loops lower to scf.for / scf.while, which have no early exit; "
            "put the exit test in a 'while' condition",
        )

    def stmt_Continue(self, node: ast.Continue) -> None:
        raise self.error(
            node, "'continue' is not supported: loops lower to scf.for / scf.while; use 'if' around the rest of the body"
        )

    def stmt_If(self, node: ast.If) -> None:
        cond = self.expr(node.test)
        if isinstance(cond, Const) or (not isinstance(cond, SSAValue) and isinstance(cond, bool | int)):
            taken = node.body if (cond.value if isinstance(cond, Const) else cond) else node.orelse
            self.stmts(taken)  # a compile-time condition selects one branch
            return
        if not isinstance(cond, SSAValue) or cond.type != IntegerType(1):
            raise self.error(node.test, f"an 'if' condition must be a comparison (i1), got {describe(cond)}")
        outer_env, outer_block = self.env, self.block
        branch_envs: list[dict[str, Value]] = []
        blocks: list[Block] = []
        for stmts in (node.body, node.orelse):
            self.env = dict(outer_env)
            self.block = Block()
            self.stmts(stmts)
            branch_envs.append(self.env)
            blocks.append(self.block)
        self.env, self.block = outer_env, outer_block
        then_env, else_env = branch_envs
        end = _end(node)
        results: list[str] = []
        for n in _assigned_names([*node.body, *node.orelse]):
            t, e = then_env.get(n), else_env.get(n)
            if t is None or e is None or isinstance(t, Undefined) or isinstance(e, Undefined):
                continue
            if t is e:
                outer_env[n] = t
                continue
            predefined = n in outer_env and not isinstance(outer_env[n], Undefined)
            if n in self.last_load and (predefined or self.last_load[n] > end):
                results.append(n)
        then_vals: list[SSAValue] = []
        else_vals: list[SSAValue] = []
        for n in results:
            t, e = then_env[n], else_env[n]
            want = t.type if isinstance(t, SSAValue) else e.type if isinstance(e, SSAValue) else None
            self.block = blocks[0]
            tv = self.materialize(t, want, node) if isinstance(t, Const) else t
            self.block = blocks[1]
            ev = self.materialize(e, want, node) if isinstance(e, Const) else e
            self.block = outer_block
            if not isinstance(tv, SSAValue) or not isinstance(ev, SSAValue):
                raise self.error(node, f"'{n}' must hold a single value in both branches")
            if tv.type != ev.type:
                raise self.error(
                    node, f"'{n}' has type {tv.type} in the 'if' branch but {ev.type} in the 'else' branch"
                )
            then_vals.append(tv)
            else_vals.append(ev)
        blocks[0].add_op(scf.YieldOp(*then_vals))
        has_else = bool(node.orelse) or bool(results)
        if has_else:
            blocks[1].add_op(scf.YieldOp(*else_vals))
        op = scf.IfOp(cond, [v.type for v in then_vals], Region(blocks[0]), Region(blocks[1]) if has_else else None)
        self.block.add_op(op)
        for n, res in zip(results, op.results):
            self._hint(res, n)
            outer_env[n] = res
        for n in _assigned_names([*node.body, *node.orelse]):
            if n in results:
                continue
            if n not in outer_env or isinstance(outer_env[n], Undefined):
                outer_env[n] = Undefined(f"'{n}' is only defined in one branch of the 'if' at line {node.lineno}")

    def stmt_With(self, node: ast.With) -> None:
        if len(node.items) != 1:
            raise self.error(node, "'with' takes a single pl.at(...)")
        item = node.items[0]
        call = item.context_expr
        callee = self.expr(call.func) if isinstance(call, ast.Call) else None
        if isinstance(callee, OpStub) and callee.op == "spmd":
            from pypto_xdsl.frontend.scopes import predicate_keyword, predicated_launch

            assert isinstance(call, ast.Call)
            if predicate_keyword(call) is not None:
                return predicated_launch(self, node, call)
            tid = item.optional_vars
            if tid is not None and not isinstance(tid, ast.Name):
                raise self.error(tid, "'as' must name a single variable (the task id)")
            return self.spmd(node, call, node.body, tid_name=tid.id if tid is not None else None)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "manual_scope":
            from pypto_xdsl.frontend.scopes import manual_scope

            assert isinstance(call, ast.Call)
            return manual_scope(self, node, call)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "cluster":
            assert isinstance(call, ast.Call)
            return self.cluster(node, call)
        if not (isinstance(callee, OpStub) and callee.op == "at"):
            raise self.error(
                call,
                "only 'with pl.at(...)', 'with pl.spmd(...)', 'with pl.manual_scope()' and "
                "'with pl.cluster()' are supported",
            )
        assert isinstance(call, ast.Call)
        kwargs: dict[str, Any] = {}
        if call.args:
            if len(call.args) > 1:
                raise self.error(call.args[1], "pl.at takes the level as its only positional argument")
            kwargs["level"] = (self.expr(call.args[0]), call.args[0])
        for kw in call.keywords:
            if kw.arg is None:
                raise self.error(kw, "'**' arguments are not supported")
            kwargs[kw.arg] = (self.expr(kw.value), kw.value)
        level = kwargs.pop("level", (T.Level.CORE_GROUP, call))
        if level[0] != T.Level.CORE_GROUP:
            raise self.error(level[1], f"only level=pl.Level.CORE_GROUP is supported, got {describe(level[0])}")
        name_hint = None
        if "name_hint" in kwargs:
            v, n = kwargs.pop("name_hint")
            name_hint = self.scope_name(v, n)
        deps: list[SSAValue] = []
        if "deps" in kwargs:
            deps = self.task_ids(*kwargs.pop("deps"))
        dumps: list[SSAValue] = []
        if "dumps" in kwargs:
            v, n = kwargs.pop("dumps")
            if not isinstance(v, list | tuple) or not all(isinstance(d, SSAValue) for d in v):
                raise self.error(n, "dumps must be a list of values")
            dumps = list(v)
        split = None
        split_given = "split" in kwargs
        if "split" in kwargs:
            v, n = kwargs.pop("split")
            if not isinstance(v, T.SplitMode):
                raise self.error(n, f"split must be a pl.SplitMode, got {describe(v)}")
            split = v.value if v != T.SplitMode.NONE else None
        slot_num = None
        if "optimizations" in kwargs:  # PyPTO: optimizations=[pl.split(mode), pl.cross_core_slot(slot_num=N)]
            v, n = kwargs.pop("optimizations")
            if not isinstance(v, list | tuple) or not all(isinstance(o, ScopeOption) for o in v):
                raise self.error(n, "optimizations must be a list of pl.split(...) / pl.cross_core_slot(...)")
            seen_split = False
            for opt, opt_node in zip(v, n.elts if isinstance(n, ast.List | ast.Tuple) else [n] * len(v)):
                if opt.split is not None:
                    if seen_split or "split" in {kw.arg for kw in call.keywords}:
                        raise self.error(opt_node, "the split mode of the scope is given twice")
                    seen_split = split_given = True
                    split = opt.split.value if opt.split != T.SplitMode.NONE else None
                if opt.slot_num is not None:
                    if slot_num is not None and slot_num != opt.slot_num:
                        raise self.error(opt_node, f"conflicting slot counts {slot_num} and {opt.slot_num}")
                    slot_num = opt.slot_num
        no_dep: list[SSAValue] = []
        if "no_dep_args" in kwargs:  # tensors the launch's dependency tracking ignores
            v, n = kwargs.pop("no_dep_args")
            if not isinstance(v, list | tuple) or not all(
                isinstance(d, SSAValue) and isinstance(d.type, TensorType) for d in v
            ):
                raise self.error(n, f"no_dep_args must be a list of tensors, got {describe(v)}")
            no_dep = list(v)
        early = False
        if "allow_early_resolve" in kwargs:
            v, n = kwargs.pop("allow_early_resolve")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(n, f"allow_early_resolve must be True or False, got {describe(v)}")
            early = v.value
        if kwargs:
            key = next(iter(kwargs))
            raise self.error(kwargs[key][1], f"pl.at does not support '{key}' yet")
        if self.decl.kind in A.INCORE_KINDS:
            raise self.error(
                node, f"pl.at inside {self.decl.kind.value} function '{self.decl.name}': it already runs on a core"
            )
        if self.in_scope:
            from pypto_xdsl.frontend.scopes import check_nested_launch

            check_nested_launch(self, node, node.body)
            raise self.error(node, "pl.at scopes cannot be nested")
        tid_name = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error(item.optional_vars, "'as' must name a single variable (the task id)")
            tid_name = item.optional_vars.id
        self.scope(
            node, node.body, name_hint=name_hint, deps=deps, dumps=dumps, split=split,
            slot_num=slot_num, tid_name=tid_name, split_given=split_given, no_dep=no_dep,
            allow_early_resolve=early,
        )

    def scope_name(self, value: Value, node: ast.AST) -> str:
        """The `name_hint` of a `pl.at` / `pl.spmd` scope: the outlined function's name."""
        if not isinstance(value, str) or not value.isidentifier():
            raise self.error(node, f"name_hint must be an identifier string, got {describe(value)}")
        return value

    def task_ids(self, value: Value, node: ast.AST) -> list[SSAValue]:
        """The `deps=[...]` of a `pl.at`, `pl.spmd` or `pl.submit`."""
        if not isinstance(value, list | tuple) or not all(
            isinstance(d, SSAValue) and isinstance(d.type, TaskIdType) for d in value
        ):
            raise self.error(node, f"deps must be a list of task ids, got {describe(value)}")
        return list(value)

    def cluster(self, node: ast.With, call: ast.Call) -> None:
        """`with pl.cluster(name_hint=...):` around launches: PyPTO's hint that the cube and
        vector kernels inside share one AIC+AIV cluster (its OutlineClusterScopes makes them a
        group function). The grouping does not change what the launches compute, and here
        `expand-mixed-kernel` forms the groups a mixed kernel needs, so the body is
        translated in place, as if the `with` were not there."""
        from pypto_xdsl.frontend.ops import Args

        if node.items[0].optional_vars is not None:
            raise self.error(node.items[0].optional_vars, "pl.cluster() gives no value to bind with 'as'")
        a = Args(self, call, "pl.cluster", ["name_hint"], 0)
        if "name_hint" in a:
            self.scope_name(a.value("name_hint"), a.node_of("name_hint"))  # checks it is a name
        if self.decl.kind in A.INCORE_KINDS or self.in_scope:
            raise self.error(node, "pl.cluster groups launches: it belongs in an orchestration function, outside pl.at/pl.spmd")
        self.stmts(node.body)

    def spmd(
        self,
        node: ast.stmt,
        call: ast.Call,
        stmts: Sequence[ast.stmt],
        *,
        block_index: str | None = None,
        tid_name: str | None = None,
    ) -> None:
        """`for i in pl.spmd(N, name_hint=...)` / `with pl.spmd(N, ...) [as tid]:` -> an InCore
        scope launched on N cores (`pypto.block_dim = N`); `i` is `pl.tile.get_block_idx()`."""
        from pypto_xdsl.frontend.ops import Args

        a = Args(self, call, "pl.spmd", ["core_num", "name_hint", "deps", "allow_early_resolve", "sync_start"], 1)
        core_num = a.value("core_num")
        block_dim: int | None = None
        cores: SSAValue | None = None
        if isinstance(core_num, Const) and type(core_num.value) is int and core_num.value >= 1:
            block_dim = core_num.value
        elif isinstance(core_num, SSAValue) and isinstance(core_num.type, IndexType):
            cores = core_num  # read at run time (e.g. from pl.tensor.dim)
        else:
            raise self.error(
                a.node_of("core_num"),
                f"the core count of pl.spmd must be a positive integer constant or an index value, "
                f"got {describe(core_num)}",
            )
        name_hint = self.scope_name(a.value("name_hint"), a.node_of("name_hint")) if "name_hint" in a else None
        deps = self.task_ids(a.value("deps"), a.node_of("deps")) if "deps" in a else []
        early = False
        if "allow_early_resolve" in a:
            v = a.value("allow_early_resolve")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(a.node_of("allow_early_resolve"), f"allow_early_resolve must be True or False, got {describe(v)}")
            early = v.value
        if "sync_start" in a:
            # PyPTO: every block starts at once. The blocks of one launch run concurrently on
            # the device (a launch never exceeds the cores); the interpreter runs them one
            # after the other, one legal schedule of blocks that do not wait on each other.
            v = a.value("sync_start")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(a.node_of("sync_start"), f"sync_start must be True or False, got {describe(v)}")
        if self.decl.kind in A.INCORE_KINDS:
            raise self.error(
                node, f"pl.spmd inside {self.decl.kind.value} function '{self.decl.name}': it already runs on a core"
            )
        if self.in_scope:
            from pypto_xdsl.frontend.scopes import check_nested_launch

            check_nested_launch(self, node, stmts)
            raise self.error(node, "pl.spmd launches an InCore scope and cannot be inside pl.at or another pl.spmd")
        self.scope(
            node, stmts, name_hint=name_hint, deps=deps, tid_name=tid_name,
            block_dim=block_dim, cores=cores, block_index=block_index, allow_early_resolve=early,
        )

    def scope(
        self,
        node: ast.stmt,
        stmts: Sequence[ast.stmt],
        *,
        name_hint: str | None = None,
        deps: Sequence[SSAValue] = (),
        dumps: Sequence[SSAValue] = (),
        split: A.SplitMode | None = None,
        slot_num: int | None = None,
        tid_name: str | None = None,
        split_given: bool = False,
        block_dim: int | None = None,
        block_index: str | None = None,
        cores: SSAValue | None = None,
        no_dep: Sequence[SSAValue] = (),
        allow_early_resolve: bool = False,
    ) -> None:
        """A `pypto.incore_scope` holding `stmts` (the body of a `pl.at`, or a synthesised scope);
        with `block_dim` (or `cores`, a count read at run time), launched on that many cores,
        `block_index` naming the core's index."""
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.block = Block()
        if block_index is not None:
            index = tile_ops.GetBlockIdxOp()
            self.block.add_op(index)
            self._hint(index.result, block_index)
            self.env[block_index] = index.result
        self.in_scope = True
        self.scope_split = split.value if split is not None else "none" if split_given else None
        self.region_writes = set()
        try:
            self.stmts(stmts)
        finally:
            self.in_scope = False
            self.scope_split = None
        region_writes, self.region_writes = self.region_writes, set()
        inner_env, body = self.env, self.block
        outputs: list[str] = []
        for n in _assigned_names(stmts):
            v = inner_env.get(n)
            if v is None or isinstance(v, Undefined) or (v is outer_env.get(n) and n not in region_writes):
                continue
            if n in self.last_load and self._live_after(n, node):
                outputs.append(n)
        values = []
        for n in outputs:
            v = inner_env[n]
            if isinstance(v, Const):
                v = self.materialize(v, None, node)
            if not isinstance(v, SSAValue):
                raise self.error(node, f"'{n}' holds {describe(v)} and cannot leave the pl.at scope")
            values.append(v)
        body.add_op(YieldOp(*values))
        self.env, self.block = outer_env, outer_block
        op = IncoreScopeOp(
            [v.type for v in values],
            Region(body),
            name_hint=name_hint,
            deps=deps,
            dumps=dumps,
            with_task_id=tid_name is not None,
            split=split,
            slot_num=slot_num,
            no_dep=no_dep,
            cores=cores,
            allow_early_resolve=allow_early_resolve,
        )
        if block_dim is not None:
            op.attributes[BLOCK_DIM_ATTR] = IntegerAttr(block_dim, 64)
        self.block.add_op(op)
        if block_index is not None:
            self.env[block_index] = Undefined(
                f"'{block_index}' is the block index of the pl.spmd at line {node.lineno}"
            )
        for n, res in zip(outputs, op.outputs):
            self._hint(res, n)
            self.env[n] = res
        for n in _assigned_names(stmts):
            if n not in outputs and (n not in self.env or isinstance(self.env[n], Undefined)):
                inner = inner_env.get(n)
                self.env[n] = inner if isinstance(inner, Undefined) else Undefined(
                    f"'{n}' is only defined inside the pl.at scope at line {node.lineno}"
                )
        if tid_name is not None:
            assert op.task_id is not None
            self._hint(op.task_id, tid_name)
            self.env[tid_name] = op.task_id

    # ---- expressions

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
            from pypto_xdsl.frontend.expressions import shaped_attribute

            return shaped_attribute(self, base, node)
        if isinstance(base, SSAValue | Const | tuple | list | FuncRef):
            raise self.error(node, f"{describe(base)} has no attribute '{node.attr}'")
        try:
            return self.static_value(getattr(base, node.attr))
        except AttributeError:
            from pypto_xdsl.frontend.locate import did_you_mean

            hint = did_you_mean(node.attr, dir(base)) if isinstance(base, type(builtins)) else ""
            raise self.error(node, f"unknown name '{ast.unparse(node)}'{hint}") from None

    def expr_List(self, node: ast.List) -> Value:
        return [self.expr(e) for e in node.elts]

    def expr_Tuple(self, node: ast.Tuple) -> Value:
        return tuple(self.expr(e) for e in node.elts)

    def expr_Subscript(self, node: ast.Subscript) -> Value:
        base = self.expr(node.value)
        if isinstance(base, SSAValue) and isinstance(base.type, TensorType):
            # `t[a:b, c:d]`, `t[i]`: a window of the tensor (see frontend/windows.py)
            from pypto_xdsl.frontend.windows import window

            offsets, dims = window(self, base, node)
            result = TensorType(dims, base.type.element_type)
            return self.build_op(node, lambda: tensor_ops.SliceOp(base, offsets, result))
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
                from pypto_xdsl.frontend.expressions import scalar_left

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
        if isinstance(lhs, Const):
            lhs = self.materialize(lhs, rhs.type, node)
        elif isinstance(rhs, Const):
            rhs = self.materialize(rhs, lhs.type, node)
        assert isinstance(lhs, SSAValue) and isinstance(rhs, SSAValue)
        if lhs.type != rhs.type:
            from pypto_xdsl.frontend.scalars import promote

            lhs, rhs = promote(self, lhs, rhs, node)
        if not is_scalar_type(lhs.type):
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

    # ---- calls

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
                v = self.materialize(v, formal if formal is not None and is_scalar_type(formal) else None, n)
            if not isinstance(v, SSAValue):
                raise self.error(n, f"cannot pass {describe(v)} to '{name}'")
            if formal is not None and v.type != formal and is_scalar_type(formal) and is_scalar_type(v.type):
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
        args = self.call_args(node.args)
        if node.keywords:
            from pypto_xdsl.frontend.expressions import keyword_arguments

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

    # ---- tensor / tile ops (type dispatched)

    def binary_shaped(self, name: str, lhs: SSAValue, rhs: Value, node: ast.AST) -> SSAValue:
        from pypto_xdsl.frontend.ops import binary

        return binary(self, name, lhs, rhs, node, None)

    def shaped_op(self, name: str, operands: list[SSAValue], node: ast.AST) -> SSAValue:
        from pypto_xdsl.frontend.ops import unary

        return unary(self, name, operands[0], node, None)


_MISSING = object()


class _Self:
    def __repr__(self) -> str:
        return "self"


_SELF = _Self()
