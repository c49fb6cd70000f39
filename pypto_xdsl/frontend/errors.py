"""Frontend diagnostics: `file:line:col: error: message`, the source line and a caret."""

from __future__ import annotations

import ast
import weakref

from xdsl.ir import Operation


class ParserError(Exception):
    """A user error in a DSL program, located in its Python source."""

    def __init__(
        self,
        message: str,
        filename: str = "<unknown>",
        line: int | None = None,
        col: int | None = None,
        source_line: str | None = None,
        end_col: int | None = None,
    ):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.end_col = end_col
        super().__init__(self.format())

    def format(self) -> str:
        if self.line is None:
            if self.filename == "<unknown>":
                return f"error: {self.message}"
            return f"{self.filename}: error: {self.message}"
        col = (self.col or 0) + 1
        text = f"{self.filename}:{self.line}:{col}: error: {self.message}"
        if self.source_line is not None:
            src = self.source_line.rstrip("\n")
            start = self.col or 0
            width = 1
            if self.end_col is not None and self.end_col > start:
                width = self.end_col - start
            text += f"\n{src}\n{' ' * start}{'^' * width}"
        return text

    def __str__(self) -> str:
        return self.format()


OWNER_ATTR = "_pypto_srcmap"
"""Attribute set on the AST nodes of a function read from another file than the program's."""


class UnknownNameError(ParserError, AttributeError):
    """A name the `pl` surface does not have (`pl.foo`): also an AttributeError, so that
    `hasattr` and other introspection keep working."""


class OpCalledError(ParserError, RuntimeError):
    """A `pl` op called by Python itself (outside a function the frontend compiles)."""


class SourceMap:
    """Maps AST nodes of one parsed file to diagnostics.

    A program may gather functions from several files (jit dependencies, module-level
    `@pl.function`s): `claim` marks a subtree as belonging to this map, and `error` of any
    map locates a claimed node in its own file.
    """

    def __init__(self, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines

    def claim(self, root: ast.AST) -> None:
        for node in ast.walk(root):
            setattr(node, OWNER_ATTR, self)

    def error(self, node: ast.AST | None, message: str) -> ParserError:
        owner = getattr(node, OWNER_ATTR, None)
        if owner is not None and owner is not self:
            return owner.error(node, message)
        if node is None or not hasattr(node, "lineno"):
            return ParserError(message, self.filename)
        line = node.lineno  # type: ignore[attr-defined]
        col = node.col_offset  # type: ignore[attr-defined]
        end_col = None
        if getattr(node, "end_lineno", None) == line:
            end_col = node.end_col_offset  # type: ignore[attr-defined]
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return ParserError(message, self.filename, line, col, src, end_col)


def _is_diagnostic(exc: BaseException) -> bool:
    """Errors that are diagnostics about the user's program, printed without a traceback."""
    if isinstance(exc, ParserError):
        return True
    for cls in type(exc).__mro__:
        if (cls.__module__, cls.__name__) in _DIAGNOSTIC_CLASSES:
            return True
    return False


_DIAGNOSTIC_CLASSES = {
    ("xdsl.utils.exceptions", "DiagnosticException"),
    ("xdsl.utils.exceptions", "InterpretationError"),
    ("pypto_xdsl.backend.ascendc.sim", "SimulationError"),
    ("pypto_xdsl.runtime.compiled", "SimulationMismatch"),
}


def install_excepthook() -> None:
    """Print an uncaught pypto diagnostic as the diagnostic alone (no Python traceback).

    A script that calls a `@pl.jit` function, or defines a `@pl.program`, with a mistake in
    it gets `file:line:col: error: ...`, the source line and a caret, and exit status 1, as
    the tools give. Other exceptions keep Python's report; `PYPTO_XDSL_TRACEBACK=1` keeps it
    for diagnostics too.
    """
    import os
    import sys

    if os.environ.get("PYPTO_XDSL_TRACEBACK") or getattr(sys.excepthook, "_pypto_xdsl", False):
        return
    previous = sys.excepthook

    def hook(exc_type, exc, tb):  # type: ignore[no-untyped-def]
        if exc is not None and _is_diagnostic(exc):
            text = str(exc)
            if not isinstance(exc, ParserError) and ": error:" not in text.split("\n", 1)[0]:
                text = f"error: {text}"
            print(text, file=sys.stderr)
            return
        if exc is not None and type(exc).__module__.startswith("pypto_xdsl."):
            # raised by the DSL while Python evaluated the user's code (a malformed
            # annotation at definition time, ...): located at the user's line
            from pypto_xdsl.frontend.locate import error_at_traceback, user_traceback

            user = user_traceback(tb)
            if user is not None:
                print(error_at_traceback(user, str(exc)), file=sys.stderr)
                return
        previous(exc_type, exc, tb)

    hook._pypto_xdsl = True  # type: ignore[attr-defined]
    sys.excepthook = hook


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
