"""Diagnostics located in the user's code from Python frames (decorators, module-level errors).

Errors raised while Python evaluates a user's module (a bad decorator argument, an unknown
`pl` name, a NameError at module level) have no AST node at hand; their location comes from
the user's frame: the instruction being executed, whose source span CPython 3.11 records
(`co_positions`), gives line, column and end column.
"""

from __future__ import annotations

import difflib
import linecache
import os
import sys
import sysconfig
from collections.abc import Iterable
from types import FrameType, TracebackType

import numpy
import xdsl

from pypto_xdsl.frontend.errors import ParserError

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = (
    *(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (xdsl, numpy)),
    os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep,
)
"""Libraries the frontend calls: an exception raised in them (an xDSL verifier rejecting a
type built from the user's shape, `enum` looking up a name) is located at the user's line
that led there."""


def is_package_file(filename: str) -> bool:
    """Whether `filename` belongs to pypto_xdsl itself (not to the user's program)."""
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def _is_internal(filename: str) -> bool:
    # "<string>": code that dataclasses and enum generate (a type's __init__ verifying it)
    return (is_package_file(filename) or filename.startswith(("<frozen ", "<string>"))
            or os.path.abspath(filename).startswith(_LIBRARY_DIRS))


def user_frame(start: FrameType | None = None) -> FrameType | None:
    """The innermost frame, from `start` (default: the caller) outwards, that is user code."""
    frame = start if start is not None else sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _position(code, lasti: int) -> tuple[int | None, int | None, int | None, int | None]:
    positions = list(code.co_positions()) if hasattr(code, "co_positions") else []
    index = lasti // 2
    if 0 <= index < len(positions):
        return positions[index]
    return (None, None, None, None)


def error_at_frame(frame: FrameType | None, message: str) -> ParserError:
    """A diagnostic at the instruction `frame` is executing (file:line:col, line, caret)."""
    if frame is None:
        return ParserError(message)
    return _error_at(frame.f_code, frame.f_lasti, frame.f_lineno, frame.f_globals, message)


def error_at_traceback(tb: TracebackType, message: str) -> ParserError:
    return _error_at(tb.tb_frame.f_code, tb.tb_lasti, tb.tb_lineno, tb.tb_frame.f_globals, message)


def _error_at(code, lasti: int, fallback_line: int | None, module_globals, message: str) -> ParserError:
    filename = code.co_filename
    line, end_line, col, end_col = _position(code, lasti)
    if line is None:
        line, col, end_col = fallback_line, None, None
    source = linecache.getline(filename, line, module_globals) if line else ""
    if end_line != line:
        end_col = None
    return ParserError(message, filename, line, col, source or None, end_col)


def located(message: str, cls: type[ParserError] = ParserError) -> ParserError:
    """A diagnostic at the user's line that called into pypto_xdsl."""
    error = error_at_frame(user_frame(sys._getframe(1)), message)
    if cls is not ParserError:
        error = cls(error.message, error.filename, error.line, error.col, error.source_line, error.end_col)
    return error


def user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """The innermost traceback entry in user code (where the user's program failed)."""
    found = None
    while tb is not None:
        if not _is_internal(tb.tb_frame.f_code.co_filename):
            found = tb
        tb = tb.tb_next
    return found


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`" (did you mean 'x'?)"` for the closest candidate, or ''."""
    close = difflib.get_close_matches(name, [c for c in candidates if not c.startswith("_")], n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""
