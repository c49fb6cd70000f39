"""`@pl.jit` functions -> pypto IR: reading their source, finding their dependencies, and
building one module specialised to the argument types of a call.

Nothing here runs anything: `pypto_xdsl.runtime` binds a call's arguments, picks the types
and values to specialise on, and hands them to `build_module`.

* **Source.** A jit function's `def` is found in its file (the file Python compiled it from;
  `linecache` also serves files the tools executed) by name and first line. Its annotations
  are the values Python already evaluated (`__annotations__`), so they may use the locals of
  an enclosing factory function; names in the body resolve in the function's globals and
  closure.
* **Declarations read before building.** `a.bind_dynamic(0, M)` statements (dimension 0 of
  the entry parameter `a` stays symbolic, named by the `pl.dynamic` `M`) and
  `M = pl.dynamic("M")` assignments in the body are taken out of the body and recorded.
* **Dependencies.** Calls `f(...)` / `mod.f(...)` in a body whose callee resolves to a
  `@pl.jit.incore/.inline/.opaque` function, or to a module-level `@pl.function`, make `f`
  part of the program (transitively); such a callee is called without `self.`.
"""

from __future__ import annotations

import ast
import copy
import linecache
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.frontend.builder import ModuleBuilder
from pypto_xdsl.frontend.declarations import FunctionDecl, ProgramSource, closure_values, scan_function
from pypto_xdsl.frontend.errors import ParserError, SourceMap
from pypto_xdsl.frontend.values import Const
from pypto_xdsl.language import types as T
from pypto_xdsl.language.decorators import DEF_LOCALS

# --------------------------------------------------------------------------- reading sources

# Parsed files, by name: (text, tree). Small: a program spans a handful of files.
_FILE_TREES: dict[str, tuple[str, ast.Module]] = {}


def _file_tree(filename: str, lines: list[str]) -> ast.Module:
    text = "".join(lines)
    cached = _FILE_TREES.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1]
    tree = ast.parse(text, filename)
    if len(_FILE_TREES) > 64:
        _FILE_TREES.clear()
    _FILE_TREES[filename] = (text, tree)
    return tree


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def find_def(func: Callable[..., Any], what: str) -> tuple[ast.FunctionDef, SourceMap]:
    """The `def` of `func` in its file, and the file's source map."""
    code = func.__code__  # type: ignore[attr-defined]
    filename = code.co_filename
    lines = linecache.getlines(filename, getattr(func, "__globals__", None))
    if not lines:
        raise ParserError(f"cannot read the source of {what} '{func.__name__}' ({filename})")
    try:
        tree = _file_tree(filename, lines)
    except SyntaxError as e:  # the file changed since Python compiled it
        raise ParserError(f"cannot parse {filename} to read {what} '{func.__name__}': {e.msg}", filename, e.lineno) from None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name == func.__name__
            and _first_line(node) == code.co_firstlineno
        ):
            srcmap = SourceMap(filename, lines)
            if isinstance(node, ast.AsyncFunctionDef):
                raise srcmap.error(node, f"{what} '{node.name}' is async; async functions are not supported")
            return node, srcmap
    raise ParserError(f"cannot find the source of {what} '{func.__name__}' in {filename} (was the file changed?)")


@dataclass(frozen=True)
class DynamicBind:
    """`param.bind_dynamic(axis, symbol)` in a jit function body."""

    param: str
    axis: int
    symbol: str
    node: ast.stmt
    bound: int | None = None
    """The symbol's `max=`, when it has one."""


@dataclass
class FunctionSource:
    """A jit function (or module-level `@pl.function`) read once: its AST and environment."""

    func: Callable[..., Any]
    name: str
    node: ast.FunctionDef
    """A copy of the `def` with the declarations below taken out of the body."""
    srcmap: SourceMap
    namespace: dict[str, Any]
    annotations: dict[str, Any]
    binds: list[DynamicBind] = field(default_factory=list)
    dynvars: dict[str, T.DynVar] = field(default_factory=dict)
    """`M = pl.dynamic("M")` assignments of the body."""
    free_names: list[str] = field(default_factory=list)
    """Names the body reads that it does not define: constants and callees it depends on."""
    calls: list[tuple[Any, ast.Call]] = field(default_factory=list)
    """(callee object, call) for every call whose callee is a static Python object."""

    @property
    def params(self) -> list[ast.arg]:
        return list(self.node.args.args)

    def error(self, node: ast.AST | None, message: str) -> ParserError:
        return self.srcmap.error(node, message)

    def live_namespace(self) -> dict[str, Any]:
        """The names the body resolves, as they are now (module globals can be rebound)."""
        namespace = dict(getattr(self.func, "__globals__", {}))
        namespace.update(getattr(self.func, DEF_LOCALS, {}))
        namespace.update(closure_values(self.func))
        namespace.update(self.dynvars)
        return namespace

    def lookup(self, name: str) -> Any:
        """The current value of free name `name` (closure, then globals, then builtins)."""
        code, cells = self.func.__code__, self.func.__closure__ or ()  # type: ignore[attr-defined]
        if name in code.co_freevars:
            try:
                return cells[code.co_freevars.index(name)].cell_contents
            except ValueError:
                return _NOT_STATIC
        if name in self.dynvars:
            return self.dynvars[name]
        g = getattr(self.func, "__globals__", {})
        if name in g:
            return g[name]
        import builtins

        return getattr(builtins, name, _NOT_STATIC)


def _statement_lists(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        sub = getattr(node, name, None)
        if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
            yield sub
    for handler in getattr(node, "handlers", []) or []:
        yield handler.body


def _static_eval(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """The value of a name or dotted name in `namespace`, or a sentinel when not static."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, _NOT_STATIC)
    if isinstance(node, ast.Attribute):
        base = _static_eval(node.value, namespace)
        if isinstance(base, types.ModuleType) or base is _NOT_STATIC:
            return getattr(base, node.attr, _NOT_STATIC) if base is not _NOT_STATIC else _NOT_STATIC
    return _NOT_STATIC


_NOT_STATIC = object()


def read_function(func: Callable[..., Any], what: str = "@pl.jit function") -> FunctionSource:
    node, srcmap = find_def(func, what)
    node = copy.deepcopy(node)
    srcmap.claim(node)
    namespace = dict(getattr(func, "__globals__", {}))
    namespace.update(getattr(func, DEF_LOCALS, {}))
    namespace.update(closure_values(func))
    annotations = dict(getattr(func, "__annotations__", {}) or {})
    fs = FunctionSource(func, func.__name__, node, srcmap, namespace, annotations)
    params = {a.arg for a in node.args.args}
    _take_declarations(fs, node, params)
    namespace.update(fs.dynvars)
    defined = set(params)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
            defined.add(sub.id)
    seen: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in defined:
            if sub.id not in seen:
                seen.add(sub.id)
                fs.free_names.append(sub.id)
    fs.calls = static_calls(node, namespace, defined)
    return fs


def static_calls(root: ast.AST, namespace: dict[str, Any], defined: set[str]) -> list[tuple[Any, ast.Call]]:
    """(callee, call) for each call in `root` whose callee is a global or closure object."""
    calls = []
    for sub in ast.walk(root):
        if isinstance(sub, ast.Call) and not _is_local_call(sub.func, defined):
            callee = _static_eval(sub.func, namespace)
            if callee is not _NOT_STATIC:
                calls.append((callee, sub))
    return calls


def _is_local_call(func: ast.expr, defined: set[str]) -> bool:
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in defined


def _take_declarations(fs: FunctionSource, root: ast.AST, params: set[str]) -> None:
    """Move `p.bind_dynamic(i, M)` and `M = pl.dynamic("M")` out of the body into `fs`."""
    for stmts in list(_statement_lists(root)):
        kept: list[ast.stmt] = []
        for stmt in stmts:
            if _is_bind_dynamic(stmt):
                fs.binds.append(_read_bind(fs, stmt, params))  # type: ignore[arg-type]
                continue
            dynvar = _dynamic_assignment(fs, stmt)
            if dynvar is not None:
                fs.dynvars[dynvar[0]] = dynvar[1]
                continue
            kept.append(stmt)
            _take_declarations(fs, stmt, params)
        if not kept:
            kept = [ast.copy_location(ast.Pass(), stmts[0])]
        stmts[:] = kept


def _is_bind_dynamic(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "bind_dynamic"
    )


def _read_bind(fs: FunctionSource, stmt: ast.Expr, params: set[str]) -> DynamicBind:
    call = stmt.value
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
    target = call.func.value
    if not isinstance(target, ast.Name) or target.id not in params:
        raise fs.error(call.func, "bind_dynamic applies to a parameter of the function: param.bind_dynamic(axis, pl.dynamic(\"N\"))")
    args = list(call.args) + [kw.value for kw in call.keywords]
    if len(args) != 2:
        raise fs.error(call, "bind_dynamic takes the axis and a pl.dynamic variable: a.bind_dynamic(0, M)")
    axis_node, sym_node = args
    if not (isinstance(axis_node, ast.Constant) and type(axis_node.value) is int and axis_node.value >= 0):
        raise fs.error(axis_node, "the axis of bind_dynamic must be a non-negative integer literal")
    symbol: Any = _NOT_STATIC
    if isinstance(sym_node, ast.Name):
        symbol = fs.dynvars.get(sym_node.id, fs.namespace.get(sym_node.id, _NOT_STATIC))
    elif isinstance(sym_node, ast.Constant) and isinstance(sym_node.value, str):
        symbol = T.DynVar(sym_node.value) if sym_node.value.isidentifier() else _NOT_STATIC
    elif isinstance(sym_node, ast.Call):
        symbol = _dynamic_call(fs, sym_node)
    if not isinstance(symbol, T.DynVar):
        raise fs.error(sym_node, "the second argument of bind_dynamic must be a pl.dynamic(\"N\") variable")
    return DynamicBind(target.id, axis_node.value, symbol.name, stmt, symbol.max)


def _dynamic_call(fs: FunctionSource, call: ast.Call) -> T.DynVar | None:
    callee = _static_eval(call.func, fs.namespace)
    if callee is not T.dynamic:
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if len(call.args) != 1 or set(keywords) - {"max"} or not (
        isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
    ):
        raise fs.error(
            call, "pl.dynamic takes the dimension's name as a string literal and an optional bound: "
            "pl.dynamic(\"N\") or pl.dynamic(\"N\", max=4096)"
        )
    bound = None
    if "max" in keywords:
        node = keywords["max"]
        bound = node.value if isinstance(node, ast.Constant) else _static_eval(node, fs.namespace)
        if bound is _NOT_STATIC:
            raise fs.error(node, "the bound of pl.dynamic(..., max=...) must be an integer literal or a module constant")
    try:
        return T.dynamic(call.args[0].value, max=bound)
    except ValueError as e:
        raise fs.error(call, str(e)) from None


def _dynamic_assignment(fs: FunctionSource, stmt: ast.stmt) -> tuple[str, T.DynVar] | None:
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
    ):
        return None
    dynvar = _dynamic_call(fs, stmt.value)
    return (stmt.targets[0].id, dynvar) if dynvar is not None else None


# --------------------------------------------------------------------------- dependencies


def program_callee(obj: Any) -> tuple[Callable[..., Any], A.FuncKind] | None:
    """(Python function, kind) when `obj` is something a program can call by name."""
    from pypto_xdsl.language.decorators import JitFunction

    if isinstance(obj, JitFunction):
        if obj.is_entry:
            return None
        return obj.__wrapped__, obj.kind.value  # type: ignore[union-attr]
    info = getattr(obj, "__pl_function__", None)
    if info is not None and hasattr(obj, "__code__"):
        return obj, info.kind.value
    return None


@dataclass
class Callee:
    """A function of a jit program: its source, kind and IR name."""

    source: FunctionSource
    kind: A.FuncKind
    ir_name: str
    objects: list[Any] = field(default_factory=list)
    """The Python objects that name it (the JitFunction and its function)."""


def discover(
    roots: Sequence[FunctionSource], taken: set[str], read: Callable[[Callable[..., Any], str], FunctionSource],
    host: bool = False,
) -> list[Callee]:
    """Every function the roots call (transitively), in first-call order. With `host`, the
    first root is a `@pl.jit.host` function: the `@pl.jit` entries it calls are the
    orchestration functions it dispatches to ranks."""
    from pypto_xdsl.language.decorators import JitFunction

    found: dict[int, Callee] = {}
    order: list[Callee] = []
    pending = list(roots)
    while pending:
        fs = pending.pop(0)
        for obj, call in fs.calls:
            target = None
            if isinstance(obj, JitFunction) and obj.host:
                raise fs.error(
                    call.func,
                    f"'{obj.__name__}' is a @pl.jit.host orchestrator and cannot be called from a jit "
                    "function; call it from Python",
                )
            if isinstance(obj, JitFunction) and obj.is_entry:
                if not (host and fs is roots[0]):
                    raise fs.error(
                        call.func,
                        f"'{obj.__name__}' is a @pl.jit entry and cannot be called from a jit function; "
                        "decorate it with @pl.jit.incore, @pl.jit.inline or @pl.jit.opaque (a "
                        "@pl.jit.host function dispatches it to a rank with device=)",
                    )
                target = (obj.__wrapped__, A.FuncKind.ORCHESTRATION)
            target = target or program_callee(obj)
            if target is None:
                continue
            func, kind = target
            key = id(func)
            if key in found:
                if obj not in found[key].objects:
                    found[key].objects.append(obj)
                continue
            what = "@pl.function" if not isinstance(obj, JitFunction) else f"@pl.{obj.flavour} function"
            source = read(func, what)
            name = _unique(func.__name__, taken)
            callee = Callee(source, kind, name, [obj, func] if obj is not func else [func])
            found[key] = callee
            order.append(callee)
            pending.append(source)
    return order


def _unique(name: str, taken: set[str]) -> str:
    candidate, i = name, 1
    while candidate in taken:
        candidate, i = f"{name}_{i}", i + 1
    taken.add(candidate)
    return candidate


# --------------------------------------------------------------------------- building


def make_decl(fs: FunctionSource, name: str, kind: A.FuncKind, bound: dict[str, Any] | None = None) -> FunctionDecl:
    """The builder's declaration of a jit function (no `self`; `bound` parameters are values)."""
    args = fs.node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise fs.error(fs.node, f"'{fs.name}': only plain parameters are supported (no *args, **kwargs, keyword-only)")
    bound = bound or {}
    decl = FunctionDecl(
        name, fs.node, kind, "", [p for p in fs.params if p.arg not in bound], fs.live_namespace(),
    )
    decl.annotations = {k: v for k, v in fs.annotations.items() if k not in bound}
    decl.bound = dict(bound)
    return decl


def build_module(
    entry: FunctionSource,
    entry_kind: A.FuncKind,
    callees: Sequence[Callee],
    types: dict[str, Attribute],
    values: dict[str, Any],
    entry_name: str | None = None,
    static_dims: dict[str, int] | None = None,
) -> ModuleOp:
    """The module of a jit entry and its callees.

    `types` gives the entry's parameters their IR types (replacing the type of an annotation,
    whose direction stays); `values` binds the entry's specialised scalar parameters to Python
    values; `static_dims` replaces `pl.dynamic` symbols by extents everywhere (a program
    specialised to one size, for a backend without dynamic shapes).
    """
    name = entry_name or entry.name
    source = ProgramSource(name, None, entry.srcmap, entry.live_namespace())  # type: ignore[arg-type]
    bound = {k: (Const(v) if type(v) in (bool, int, float) else v) for k, v in values.items()}
    decl = make_decl(entry, name, entry_kind, bound)
    for p in decl.params:
        if p.arg in types and p.arg in decl.annotations and not isinstance(decl.annotations[p.arg], str):
            try:
                spec = T.to_type_spec(decl.annotations[p.arg])
            except T.TypeError_:
                continue  # reported when the builder reads the annotation
            bounds = spec.bounds if isinstance(spec, T.TypeSpec) else ()
            decl.annotations[p.arg] = T.TypeSpec(types[p.arg], spec.direction, bounds=bounds)
    decl.dim_bounds = {b.symbol: b.bound for b in entry.binds if b.bound is not None}
    source.functions[name] = decl
    for callee in callees:
        d = make_decl(callee.source, callee.ir_name, callee.kind)
        d.called = True
        source.functions[callee.ir_name] = d
        for obj in callee.objects:
            source.refs[id(obj)] = callee.ir_name
    for d in source.functions.values():
        scan_function(d, source.functions)
        if static_dims:
            for key, value in list(d.namespace.items()):
                if isinstance(value, T.DynVar) and value.name in static_dims:
                    d.namespace[key] = static_dims[value.name]
    overrides = {name: [types.get(p.arg) for p in decl.params]}
    return ModuleBuilder(source, overrides).build()  # type: ignore[arg-type]
