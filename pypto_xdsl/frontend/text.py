"""`pl.parse(code)` and `pl.loads(path)`: a `@pl.function` or `@pl.program` read from text.

The text is run as a Python file with `pl` already bound (an `import pypto.language as pl`
line of PyPTO's spelling is read as this package's). A `@pl.program` class gives the object
the decorator gives; a module-level `@pl.function` gives a `Function`, the module of that one
function (PyPTO's `ir.Function`).
"""

from __future__ import annotations

import builtins
from io import StringIO
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from pypto_xdsl.frontend.errors import ParserError


class ParseSyntaxError(ParserError, SyntaxError):
    """The text given to `pl.parse` / `pl.loads` is not valid Python."""


class ParseContentError(ParserError, ValueError):
    """The text defines no `@pl.function` / `@pl.program`, or more than one."""


class Function:
    """One pypto function as a module (PyPTO's `ir.Function`): `.name`, `.func_type`,
    `.params` (the body's block arguments: `.name_hint`, `.type`), `.return_types`, `.op`,
    `.module`; printing gives its IR text."""

    def __init__(self, module: ModuleOp):
        from pypto_xdsl.dialects.program import FuncOp

        funcs = [op for op in module.ops if isinstance(op, FuncOp)]
        if len(funcs) != 1:
            raise ValueError(f"a Function is a module of one pypto.func, got {len(funcs)}")
        self.module = module
        self.op = funcs[0]

    @property
    def name(self) -> str:
        return self.op.sym_name.data

    @property
    def func_type(self) -> Any:
        return self.op.func_kind

    @property
    def params(self) -> list[Any]:
        return list(self.op.args)

    @property
    def return_types(self) -> list[Any]:
        return list(self.op.function_type.outputs.data)

    def __str__(self) -> str:
        out = StringIO()
        Printer(stream=out).print_op(self.module)
        return out.getvalue()

    def as_python(self) -> str:
        """PyPTO prints its IR in the DSL's syntax; this project's IR prints as MLIR text."""
        return str(self)

    def __repr__(self) -> str:
        return f"<{self.func_type.value} Function @{self.name}>"


def function_from(pyfunc: Any) -> Function:
    """The `Function` of a module-level `@pl.function` (with the functions it calls, if any)."""
    from pypto_xdsl.frontend import jit as fjit

    source = fjit.read_function(pyfunc, "@pl.function")
    callees = fjit.discover([source], {source.name}, fjit.read_function)
    if callees:
        raise source.error(
            source.node, f"'{source.name}' calls other @pl.functions; parse a @pl.program of them instead"
        )
    return Function(fjit.build_module(source, pyfunc.__pl_function__.kind.value, [], {}, {}))


def _own_imports(name: str, *args: Any, **kwargs: Any) -> Any:
    if name == "pypto.language" or name.startswith("pypto.language."):
        name = "pypto_xdsl" + name[len("pypto"):]
    return builtins.__import__(name, *args, **kwargs)


def parse(code: str, filename: str = "<string>") -> Any:
    """The one `@pl.function` (a `Function`) or `@pl.program` defined by `code`.

    Raises ParseSyntaxError (a SyntaxError) for invalid Python, ParseContentError (a
    ValueError) when the text defines none or several, ParserError for a bad program.
    """
    import pypto_xdsl.language as pl
    import pypto_xdsl.language.distributed as pld
    from pypto_xdsl.frontend.program import load_python

    try:
        compile(code, filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        lines = code.splitlines(keepends=True)
        line = e.lineno
        source_line = lines[line - 1] if line and line <= len(lines) else None
        raise ParseSyntaxError(
            f"invalid Python: {e.msg}", filename, line, (e.offset or 1) - 1, source_line
        ) from None
    own_builtins = {**vars(builtins), "__import__": _own_imports}
    loaded = load_python(code, filename, {"pl": pl, "pld": pld, "__builtins__": own_builtins})
    found = [(name, "@pl.function") for name in loaded.functions]
    found += [(p.name, "@pl.program") for p in loaded.programs]
    if not found:
        raise ParseContentError(
            "pl.parse: the text defines no @pl.function and no @pl.program (define exactly one)", filename
        )
    if len(found) > 1:
        shown = ", ".join(f"{what} {name}" for name, what in found)
        raise ParseContentError(
            f"pl.parse: the text defines {len(found)} functions/programs ({shown}); it must define exactly one",
            filename,
        )
    if loaded.programs:
        return loaded.programs[0]
    return function_from(next(iter(loaded.functions.values())))


def loads(path: str | Path) -> Any:
    """`parse` of the file at `path` (diagnostics name the file)."""
    return parse(Path(path).read_text(encoding="utf-8"), str(path))
