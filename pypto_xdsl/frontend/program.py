"""The object `@pl.program` returns, and loading programs and jit functions from Python files.

Building IR only: running and compiling a program is `pypto_xdsl.runtime`'s job (the
`RunnableProgram` that `@pl.program` returns adds `.run` and `.compile`).
"""

from __future__ import annotations

import ast
import linecache
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.frontend.builder import ModuleBuilder
from pypto_xdsl.frontend.declarations import ProgramSource
from pypto_xdsl.frontend.errors import ParserError, SourceMap
from pypto_xdsl.language import types as T
from pypto_xdsl.utils import paused_gc


def _members_of(cls: type) -> dict[str, tuple[A.FuncKind, Any]]:
    """The class's `@pl.function` (and `@pl.jit.*`) methods: name -> (kind, Python function)."""
    from pypto_xdsl.language.decorators import JitFunction

    members: dict[str, tuple[A.FuncKind, Any]] = {}
    for name, member in vars(cls).items():
        if isinstance(member, JitFunction):
            kind = member.kind if member.kind is not None else T.FunctionType.Orchestration
            members[name] = (kind.value, member.__wrapped__)
            continue
        info = getattr(member, "__pl_function__", None)
        if info is not None:
            members[name] = (info.kind.value, member)
    return members


def _class_defs(body: list[ast.stmt], name: str, found: list[ast.ClassDef]) -> None:
    """Class definitions named `name`, searched through statements only (not expressions)."""
    for stmt in body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            found.append(stmt)
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(stmt, field_name, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt | ast.excepthandler):
                _class_defs(sub, name, found)  # type: ignore[arg-type]


# Parsed files: load_python parses once and shares the tree with @pl.program.
_TREES: dict[str, tuple[str, ast.Module]] = {}


def _parse_file(text: str, filename: str) -> ast.Module:
    cached = _TREES.get(filename)
    if cached is not None and cached[0] is text:
        return cached[1]
    return ast.parse(text, filename)


def _find_class(tree: ast.Module, name: str, lines: set[int]) -> ast.ClassDef | None:
    """The class `name` whose body contains the given method definition lines."""
    candidates: list[ast.ClassDef] = []
    _class_defs(tree.body, name, candidates)
    for node in candidates:
        first = node.lineno
        last = node.end_lineno or first
        if all(first <= ln <= last for ln in lines):
            return node
    return candidates[0] if len(candidates) == 1 else None


def _add_module_functions(source: ProgramSource, pyfuncs: dict[str, Any]) -> None:
    """Module-level `@pl.function`s and `@pl.jit.*` functions the methods call by name
    (transitively) become functions of the program."""
    from pypto_xdsl.frontend import jit as fjit

    roots = []
    for name, decl in source.functions.items():
        fs = fjit.FunctionSource(pyfuncs[name], name, decl.node, source.srcmap, decl.namespace, {})
        fs.calls = fjit.static_calls(decl.node, decl.namespace, decl.locals)
        roots.append(fs)
    callees = fjit.discover(roots, set(source.functions), fjit.read_function)
    for callee in callees:
        decl = fjit.make_decl(callee.source, callee.ir_name, callee.kind)
        decl.called = True
        source.functions[callee.ir_name] = decl
        for obj in callee.objects:
            source.refs[id(obj)] = callee.ir_name
    if callees:
        from pypto_xdsl.frontend.declarations import scan_function

        for decl in source.functions.values():
            scan_function(decl, source.functions)


class Program:
    """A compiled `@pl.program` class.

    `.module` is the xDSL module (built on first access), `.print()` prints it and
    `.specialize(f=[types])` gives types to unannotated entry parameters.
    """

    def __init__(self, source: ProgramSource, overrides: Mapping[str, list[Attribute]] | None = None):
        self.source = source
        self.name = source.name
        self._overrides = dict(overrides or {})
        self._module: ModuleOp | None = None

    # ---- construction

    @classmethod
    def from_class(cls, pycls: type, definer_locals: Mapping[str, Any] | None = None) -> Program:
        """The program of class `pycls`; `definer_locals` are the locals of the function that
        defined the class (a factory), which string annotations may name."""
        members = _members_of(pycls)
        if not members:
            from pypto_xdsl.frontend.locate import located

            # at the user's line applying the decorator
            raise located(f"@pl.program class '{pycls.__name__}' has no @pl.function methods")
        pyfuncs = {n: f for n, (_, f) in members.items()}
        kinds = {n: k for n, (k, _) in members.items()}
        methods = list(pyfuncs.values())
        code = methods[0].__code__
        filename = code.co_filename
        lines = linecache.getlines(filename, methods[0].__globals__)
        if not lines:
            raise ParserError(
                f"cannot read the source of @pl.program class '{pycls.__name__}' ({filename})"
            )
        cached = _TREES.get(filename)
        text = cached[0] if cached is not None and cached[0] == "".join(lines) else "".join(lines)
        tree = _parse_file(text, filename)
        node = _find_class(tree, pycls.__name__, {m.__code__.co_firstlineno for m in methods})
        if node is None:
            raise ParserError(f"cannot find the source of @pl.program class '{pycls.__name__}' in {filename}")
        srcmap = SourceMap(filename, lines)
        namespace = {**methods[0].__globals__, **(definer_locals or {})}
        source = ProgramSource.parse(node, srcmap, namespace, kinds, pyfuncs)
        _add_module_functions(source, pyfuncs)
        program = cls(source)
        if program._entries_typed():
            program.module  # report errors at definition time, like PyPTO's parser
        return program

    def _entries_typed(self) -> bool:
        builder = ModuleBuilder(self.source, self._overrides)
        for decl in self.source.functions.values():
            if not decl.called and builder._untyped_param(decl) is not None:
                return False
        return True

    def specialize(self, **types: Sequence[Any]) -> Program:
        """A copy whose functions' unannotated parameters get the given types.

        `P.specialize(main=[pl.Tensor[[64], pl.FP32]])`; entries may be `pl` types or IR types.
        """
        overrides = dict(self._overrides)
        for fname, specs in types.items():
            if fname not in self.source.functions:
                raise ParserError(f"specialize: '{self.name}' has no function '{fname}'")
            converted: list[Attribute] = []
            for spec in specs:
                if isinstance(spec, Attribute):
                    converted.append(spec)
                    continue
                s = T.to_type_spec(spec)
                if not isinstance(s, T.TypeSpec):
                    raise ParserError(f"specialize: {spec!r} is not a type")
                converted.append(s.ir)
            overrides[fname] = converted
        return type(self)(self.source, overrides)

    def untyped_param(self, name: str) -> str | None:
        """The first parameter of function `name` without a type, if any."""
        decl = self.source.functions[name]
        p = ModuleBuilder(self.source, self._overrides)._untyped_param(decl)
        return p.arg if p is not None else None

    # ---- products

    @property
    def module(self) -> ModuleOp:
        if self._module is None:
            self._module = ModuleBuilder(self.source, self._overrides).build()
        return self._module

    def fresh_module(self) -> ModuleOp:
        """A new copy of the module (passes mutate modules in place)."""
        return self.module.clone()

    def __str__(self) -> str:
        out = StringIO()
        Printer(stream=out).print_op(self.module)
        return out.getvalue()

    def print(self, file: Any = None) -> None:
        print(str(self), file=file if file is not None else sys.stdout)

    def entry(self) -> str:
        """The function `run` calls by default: the last function nobody calls."""
        entries = [d.name for d in self.source.functions.values() if not d.called]
        if not entries:
            raise ParserError(f"'{self.name}' has no entry function (every function is called)")
        return entries[-1]


# --------------------------------------------------------------------------- files


@dataclass
class LoadedFile:
    """What a Python file defines at top level: programs, and jit functions by name."""

    programs: list[Program] = field(default_factory=list)
    jit_functions: dict[str, Any] = field(default_factory=dict)
    functions: dict[str, Any] = field(default_factory=dict)
    """Module-level `@pl.function`s (Python functions), by name."""
    warnings: list[str] = field(default_factory=list)
    """Python warnings (e.g. SyntaxWarning) raised while loading, as `file:line: warning: ...`."""

    @property
    def jit_entries(self) -> dict[str, Any]:
        return {n: f for n, f in self.jit_functions.items() if f.is_entry}


def load_python(text: str, filename: str, preset: Mapping[str, Any] | None = None) -> LoadedFile:
    """Execute a Python file; its top-level `@pl.program`s and `@pl.jit` functions.

    An exception while the file runs (a NameError at module level, a bad decorator) is a
    `ParserError` located at the failing line of the file. Warnings Python emits meanwhile
    are collected (not printed), so a diagnostic stays the first line of the output.
    `preset` names are bound before the file runs (`pl` for `pl.parse`'s text).
    """
    with paused_gc():  # parsing builds large object graphs
        return _load_python(text, filename, preset or {})


def _format_warning(w: warnings.WarningMessage) -> str:
    return f"{w.filename}:{w.lineno}: warning: {w.category.__name__}: {w.message}"


def _load_python(text: str, filename: str, preset: Mapping[str, Any]) -> LoadedFile:
    from pypto_xdsl.frontend.locate import error_at_traceback, user_traceback
    from pypto_xdsl.language.decorators import JitFunction

    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    loaded = LoadedFile()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            try:
                tree = ast.parse(text, filename)
                # dont_inherit: the user's file gets its own __future__ flags, not this module's
                code = compile(tree, filename, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as e:
                line, col = getattr(e, "lineno", None), (getattr(e, "offset", None) or 1) - 1
                if line is None and "\0" in text:  # "source code string cannot contain null bytes"
                    at = text.index("\0")
                    line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1)
                raise ParserError(
                    f"invalid Python: {getattr(e, 'msg', None) or e}", filename, line, col,
                    lines[line - 1].replace("\0", " ") if line and line <= len(lines) else None,
                ) from None
            namespace: dict[str, Any] = {"__name__": "__pypto_program__", "__file__": filename, **preset}
            _TREES[filename] = (text, tree)
            try:
                exec(code, namespace)
            except ParserError:
                raise
            except Exception as e:
                tb = user_traceback(e.__traceback__)
                ours = type(e).__module__.startswith("pypto_xdsl.")  # the DSL's own message
                message = str(e) if ours or isinstance(e, NameError) else f"{type(e).__name__}: {e}"
                if isinstance(e, NameError) and e.name:
                    from pypto_xdsl.frontend.locate import did_you_mean

                    message += did_you_mean(e.name, namespace)
                if tb is None:
                    raise ParserError(f"{message} (while running {filename})", filename) from None
                raise error_at_traceback(tb, message) from None
            finally:
                _TREES.pop(filename, None)
        except ParserError as e:
            e.warnings = [_format_warning(w) for w in caught]  # type: ignore[attr-defined]
            raise
        loaded.warnings = [_format_warning(w) for w in caught]
    for name, value in namespace.items():
        if isinstance(value, Program):
            loaded.programs.append(value)
        elif isinstance(value, JitFunction):
            loaded.jit_functions[name] = value
        elif getattr(value, "__pl_function__", None) is not None and name not in preset:
            loaded.functions[name] = value
    return loaded


def load_programs(text: str, filename: str) -> list[Program]:
    """Execute a Python file and return the `@pl.program`s it defines at top level."""
    return load_python(text, filename).programs


def parse_python_file(text: str, filename: str) -> ModuleOp:
    programs = load_programs(text, filename)
    if len(programs) != 1:
        raise ParserError(
            f"{filename} must define exactly one @pl.program at top level, found {len(programs)}"
        )
    return programs[0].module
