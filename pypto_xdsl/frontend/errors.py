"""Frontend diagnostics: `file:line:col: error: message`, the source line and a caret."""

from __future__ import annotations

import ast


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


class SourceMap:
    """Maps AST nodes of one parsed file to diagnostics."""

    def __init__(self, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines

    def error(self, node: ast.AST | None, message: str) -> ParserError:
        if node is None or not hasattr(node, "lineno"):
            return ParserError(message, self.filename)
        line = node.lineno  # type: ignore[attr-defined]
        col = node.col_offset  # type: ignore[attr-defined]
        end_col = None
        if getattr(node, "end_lineno", None) == line:
            end_col = node.end_col_offset  # type: ignore[attr-defined]
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return ParserError(message, self.filename, line, col, src, end_col)
