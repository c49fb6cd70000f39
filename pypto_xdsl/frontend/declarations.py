"""A parsed `@pl.program` class: the declaration of each `@pl.function` (its AST, kind,
parameters and namespace) and what one walk over its body finds (the names it stores, the last
read of each, the functions it calls)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.frontend.errors import SourceMap
from pypto_xdsl.frontend.names import subscript_store_base
from pypto_xdsl.frontend.values import FuncRef


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
                    decl.namespace.update(closure_values(fn))
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
        stored = subscript_store_base(sub)
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


def closure_values(fn: Any) -> dict[str, Any]:
    """The values of the names `fn` closes over (an unbound one is left out)."""
    code, cells = fn.__code__, fn.__closure__ or ()
    values: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            pass
    return values
