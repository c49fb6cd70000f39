"""The object `@pl.program` returns, and loading programs from Python files."""

from __future__ import annotations

import ast
import linecache
import sys
from collections.abc import Mapping, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.frontend.builder import ModuleBuilder, ProgramSource
from pypto_xdsl.frontend.errors import ParserError, SourceMap
from pypto_xdsl.language import types as T
from pypto_xdsl.utils import paused_gc


def _kinds_of(cls: type) -> dict[str, A.FuncKind]:
    kinds: dict[str, A.FuncKind] = {}
    for name, member in vars(cls).items():
        info = getattr(member, "__pl_function__", None)
        if info is not None:
            kinds[name] = info.kind.value
    return kinds


def _class_defs(body: list[ast.stmt], name: str, found: list[ast.ClassDef]) -> None:
    """Class definitions named `name`, searched through statements only (not expressions)."""
    for stmt in body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            found.append(stmt)
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(stmt, field_name, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt | ast.excepthandler):
                _class_defs(sub, name, found)  # type: ignore[arg-type]


# Parsed files: load_programs parses once and shares the tree with @pl.program.
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


class Program:
    """A compiled `@pl.program` class.

    `.module` is the xDSL module (built on first access), `.print()` prints it,
    `.specialize(f=[types])` gives types to unannotated entry parameters, `.run(...)`
    executes it with the reference interpreter and `.compile(out_dir)` runs the backend.
    """

    def __init__(self, source: ProgramSource, overrides: Mapping[str, list[Attribute]] | None = None):
        self.source = source
        self.name = source.name
        self._overrides = dict(overrides or {})
        self._module: ModuleOp | None = None

    # ---- construction

    @classmethod
    def from_class(cls, pycls: type) -> Program:
        kinds = _kinds_of(pycls)
        if not kinds:
            raise ParserError(f"@pl.program class '{pycls.__name__}' has no @pl.function methods")
        methods = [m for n, m in vars(pycls).items() if n in kinds]
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
        pyfuncs = {n: m for n, m in vars(pycls).items() if n in kinds}
        source = ProgramSource.parse(node, srcmap, methods[0].__globals__, kinds, pyfuncs)
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
        return Program(self.source, overrides)

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

    def run(
        self,
        *inputs: Any,
        entry: str | None = None,
        passes: Sequence[str] = (),
        dims: Mapping[str, int] | None = None,
    ) -> Any:
        """Execute `entry` (default: the last uncalled function) with the reference interpreter.

        Inputs are numpy arrays (written in place for out/inout tensors) or Python scalars;
        unannotated parameters of the entry take the inputs' types. `passes` (pypto-opt
        names) run first. Returns the entry's result (a tuple when it returns several).
        """
        try:
            from pypto_xdsl.interpreter import run as interpret
        except ImportError:  # pragma: no cover - the interpreter ships with the package
            raise NotImplementedError(
                "Program.run needs the reference interpreter (pypto_xdsl.interpreter)"
            ) from None
        name = entry or self.entry()
        if name not in self.source.functions:
            raise ParserError(f"run: '{self.name}' has no function '{name}'")
        program = self
        decl = self.source.functions[name]
        if ModuleBuilder(self.source, self._overrides)._untyped_param(decl) is not None:
            program = self.specialize(**{name: [_type_of_input(x) for x in inputs]})
        module = program.fresh_module()
        if passes:
            apply_passes(module, passes)
        results = interpret(module, name, list(inputs), dims)
        return results[0] if len(results) == 1 else results

    def compile(
        self,
        out_dir: str | Path,
        passes: Sequence[str] = ("pypto-default",),
        entry: str | None = None,
    ) -> list[Path]:
        """Run `passes`, then the Ascend C backend; write its files under `out_dir`.

        Returns the written paths (kernels/*.cpp, host/*, CMakeLists.txt, ...).
        """
        try:
            from pypto_xdsl.backend.ascendc.emit import emit_program
        except ImportError:
            raise NotImplementedError(
                "Program.compile needs the Ascend C backend (pypto_xdsl.backend.ascendc), "
                "which is not available in this build"
            ) from None
        module = self.fresh_module()
        apply_passes(module, passes)
        emitted = emit_program(module, entry)
        out = Path(out_dir)
        written: list[Path] = []
        for rel, text in emitted.files.items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
        return written


def _type_of_input(x: Any) -> Attribute:
    import numpy as np

    from pypto_xdsl.language.types import DataType

    if isinstance(x, np.ndarray):
        mapping = {
            np.dtype("float32"): "FP32",
            np.dtype("float16"): "FP16",
            np.dtype("int8"): "INT8",
            np.dtype("int16"): "INT16",
            np.dtype("int32"): "INT32",
            np.dtype("int64"): "INT64",
            np.dtype("uint8"): "UINT8",
            np.dtype("bool"): "BOOL",
        }
        if x.dtype not in mapping:
            raise ParserError(f"run: unsupported input dtype {x.dtype}")
        return A.TensorType(list(x.shape), DataType(mapping[x.dtype]).to_ir())
    if isinstance(x, bool):
        return DataType("BOOL").to_ir()
    if isinstance(x, int):
        return DataType("INDEX").to_ir()
    if isinstance(x, float):
        return DataType("FP32").to_ir()
    raise ParserError(f"run: cannot derive a parameter type from {type(x).__name__}")


def apply_passes(module: ModuleOp, passes: Sequence[str]) -> None:
    """Run registered passes (by pypto-opt name) on `module` in place."""
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.transforms import get_all_passes

    available = get_all_passes()
    ctx = make_context()
    for p in passes:
        if p not in available:
            raise NotImplementedError(f"pass '{p}' is not available in this build")
        available[p]()().apply(ctx, module)


# --------------------------------------------------------------------------- files


def load_programs(text: str, filename: str) -> list[Program]:
    """Execute a Python file and return the `@pl.program`s it defines at top level."""
    with paused_gc():  # parsing builds large object graphs
        return _load_programs(text, filename)


def _load_programs(text: str, filename: str) -> list[Program]:
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    try:
        tree = ast.parse(text, filename)
        code = compile(tree, filename, "exec")
    except SyntaxError as e:
        raise ParserError(
            f"invalid Python: {e.msg}", filename, e.lineno, (e.offset or 1) - 1,
            lines[e.lineno - 1] if e.lineno and e.lineno <= len(lines) else None,
        ) from None
    namespace: dict[str, Any] = {"__name__": "__pypto_program__", "__file__": filename}
    _TREES[filename] = (text, tree)
    try:
        exec(code, namespace)
    finally:
        _TREES.pop(filename, None)
    return [v for v in namespace.values() if isinstance(v, Program)]


def parse_python_file(text: str, filename: str) -> ModuleOp:
    programs = load_programs(text, filename)
    if len(programs) != 1:
        raise ParserError(
            f"{filename} must define exactly one @pl.program at top level, found {len(programs)}"
        )
    return programs[0].module
