"""Compiler-style diagnostics for the tools: one `file:line:col: error: message` per failure.

Every failure of a tool on its input becomes one diagnostic on stderr and exit status 1, never
a Python traceback:

* a `ParseError` at its span;
* a verifier error at the op it is about: the op an `OpVerifyException` names (the dominance
  walk, symbol tables), else the innermost op being verified when it was raised — which is
  also how the bare exceptions some upstream verifiers raise are recognised as verifier errors
  (xDSL 0.74's `scf.while` raises `Exception`);
* a RecursionError beyond `MAX_NESTING_DEPTH`, a MemoryError, as one sentence each;
* an input file that cannot be read, an output that cannot be written: one line,
  `tool: error: cannot open input file 'p.mlir': No such file or directory` (mlir-opt's
  wording; `read_input`, `format_os_error`);
* anything else is a bug of the tool: `internal error`, with the exception (and its traceback
  when `PYPTO_TRACEBACK=1`).

`--verify-diagnostics`/`--parsing-diagnostics` keep xDSL's own behaviour.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
import weakref
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import TypeVar

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input, Span

from pypto_xdsl.utils import MAX_NESTING_DEPTH

OpSpans = weakref.WeakKeyDictionary[Operation, tuple[Span, int]]

EXIT_ERROR = 1
"""Every diagnostic: unreadable input, parse/verifier/pass/run-time error, unwritable output."""
EXIT_USAGE = 2
"""A malformed command line (argparse's status), and pypto-compile's failing simulation."""


class InputFileError(Exception):
    """The tool's input file cannot be read (missing, a directory, no permission, ...)."""


def read_input(path: str) -> bytes:
    """The bytes of a tool's input file, stdin for `-`; an `InputFileError` naming the file
    and the reason when it cannot be read. Decoding (UTF-8, located errors) is the parser's."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise InputFileError(f"cannot open input file '{path}': {e.strerror or e}") from None


def format_os_error(tool: str, error: OSError, what: str = "output") -> str:
    """`tool: error: cannot write output 'path': reason` for an output (file or directory)
    that cannot be written, in the wording of `read_input`."""
    target = f" '{error.filename}'" if error.filename is not None else ""
    return f"{tool}: error: cannot write {what}{target}: {error.strerror or error}"


def _frames(tb: TracebackType | None) -> Iterator[TracebackType]:
    while tb is not None:
        yield tb
        tb = tb.tb_next


def _verifying_op(frame_locals: dict, name: str) -> Operation | None:
    """The op a frame is verifying: `self` of `Operation.verify`/`verify_`, the `op`
    argument of a trait's or an op definition's `verify`."""
    if name in ("verify", "verify_"):
        for key in ("op", "self"):
            value = frame_locals.get(key)
            if isinstance(value, Operation):
                return value
    return None


_CULPRIT_NAMES = ("call", "submit", "site", "scope", "op", "user", "loop", "func", "callee")
"""Names under which the code raising a pass error holds the op it is about, by preference."""


def culprit_ops(error: BaseException) -> list[Operation]:
    """The ops `error` may be about, best first: the one it names (`error.op`); the
    innermost op whose verifier was running when it was raised; for a pass error, the ops
    the raising code holds (locals named `call`, `submit`, ..., `op` in the innermost frames)."""
    op = getattr(error, "op", None)
    if isinstance(op, Operation):
        return [op]
    frames = list(_frames(error.__traceback__))
    found = None
    for tb in frames:
        candidate = _verifying_op(tb.tb_frame.f_locals, tb.tb_frame.f_code.co_name)
        if candidate is not None:
            found = candidate
    if found is not None:
        if isinstance(error, VerifyException):
            return [_redefined_symbol(found, str(error)) or found]
        return [found]
    held = []
    for tb in reversed(frames[-4:]):
        local = tb.tb_frame.f_locals
        held += [
            v for name in _CULPRIT_NAMES if isinstance(v := local.get(name), Operation) and v.parent is not None
        ]
    return held


def culprit_op(error: BaseException) -> Operation | None:
    ops = culprit_ops(error)
    return ops[0] if ops else None


def raised_by_verifier(error: BaseException) -> bool:
    """Whether a verifier raised `error` (some raise bare exceptions)."""
    return any(
        _verifying_op(tb.tb_frame.f_locals, tb.tb_frame.f_code.co_name) is not None
        for tb in _frames(error.__traceback__)
    )


_REDEFINITION = re.compile(r'Redefinition of symbol "(.*)"')


def _redefined_symbol(table: Operation, message: str) -> Operation | None:
    """The second definition of the symbol a symbol table reports as redefined."""
    match = _REDEFINITION.search(message)
    if match is None or not table.regions or table.regions[0].first_block is None:
        return None
    seen = False
    for op in table.regions[0].first_block.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is not None and getattr(name, "data", None) == match.group(1):
            if seen:
                return op
            seen = True
    return None


def message_of(error: BaseException) -> str:
    """The error's message without the module dump xDSL attaches as a note."""
    text = str(error)
    if text.startswith("Operation does not verify: "):
        text = text.removeprefix("Operation does not verify: ")
    return text


def op_span(op: Operation | None, spans: OpSpans) -> tuple[Span, int] | None:
    """Where `op` (or, if it was not parsed, its closest parsed ancestor) starts."""
    while op is not None:
        entry = spans.get(op)
        if entry is not None:
            return entry
        op = op.parent_op()
    return None


def format_located(span: Span, line_offset: int, message: str) -> str:
    """`file:line:col: error: message` followed by the source line and a caret."""
    located = Span(span.start, span.end, span.input, line_offset)
    loc = located.get_location()
    content = span.input.content
    line_start = span.input.get_start_of_line(span.start)
    line_end = span.input.get_end_of_line(span.start)
    line = content[line_start:line_end]
    caret = " " * (span.start - line_start) + "^" * max(1, min(span.end, line_end) - span.start)
    return f"{loc.file}:{loc.line}:{loc.col}: error: {message}\n{line}\n{caret}"


def format_parse_error(error: ParseError) -> str:
    loc = error.span.get_location()
    return f"{loc.file}:{loc.line}:{loc.col}: error: {error.msg}\n{str(error).rstrip()}"


def format_op_error(error: BaseException, spans: OpSpans, unlocated: str) -> str:
    """A verifier or pass error, at the op it is about when that op was parsed (else at the
    first parsed op among the candidates, else at a function the message names, else at the
    first parsed op inside the op), else after `unlocated` (the input's name, or the tool's)."""
    message = message_of(error)
    candidates = culprit_ops(error)
    op = next((c for c in candidates if spans.get(c) is not None), None)
    if op is None:
        op = next((c for c in candidates if op_span(c, spans) is not None), None)
    prefix = True
    if op is None and not candidates:
        op, prefix = _named_symbol(message, spans), False
    op = op or (candidates[0] if candidates else None)
    # MLIR's "'op' op" prefix, unless the message names the op (or the function it is) already
    names_it = op is not None and (
        f"'{op.name}'" in message or ((sym := _symbol_name(op)) is not None and f"@{sym}" in message)
    )
    what = f"'{op.name}' op " if op is not None and prefix and not names_it else ""
    entry = op_span(op, spans) or _first_nested_span(op, spans)
    if entry is None and (named := _named_symbol(message, spans)) is not None:
        # an op the passes made, in a function the message names: there, without naming the op
        what, entry = "", op_span(named, spans)
    if entry is None:
        return f"{unlocated}: error: {what}{message}"
    return format_located(entry[0], entry[1], what + message)


def _first_nested_span(op: Operation | None, spans: OpSpans) -> tuple[Span, int] | None:
    """Where the first located op inside `op` starts: for an op a pass created around input
    ops (a kernel outlined from a scope), the first of them."""
    if op is None or not spans:
        return None
    return next((spans[inner] for inner in op.walk() if inner in spans), None)


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return getattr(name, "data", None) if name is not None else None


def _named_symbol(message: str, spans: OpSpans) -> Operation | None:
    """The first parsed symbol (function) the message names, `@f` before a bare `f`."""
    symbols: dict[str, Operation] = {}
    for op in list(spans.keys()):
        if (name := _symbol_name(op)) is not None:
            symbols.setdefault(name, op)
    words = re.findall(r"@([\w$.]+)", message) + re.findall(r"[\w$.]+", message)
    return next((symbols[w] for w in words if w in symbols), None)


def format_resource_error(error: BaseException, input_name: str) -> str | None:
    """One sentence for a RecursionError or MemoryError, else None."""
    if isinstance(error, RecursionError):
        return (
            f"{input_name}: error: the program is nested too deeply: at most "
            f"{MAX_NESTING_DEPTH:,} levels of regions (loops, ifs, scopes) or of calls are supported"
        )
    if isinstance(error, MemoryError):
        detail = f" ({error})" if str(error) else ""
        return f"{input_name}: error: out of memory{detail}: the program's tensors are too large to hold"
    return None


def format_internal_error(tool: str, error: BaseException) -> str:
    text = f"{tool}: internal error: {type(error).__name__}: {error}"
    if os.environ.get("PYPTO_TRACEBACK"):
        text += "\n" + "".join(traceback.format_exception(error))
    else:
        text += "\n(a bug in pypto-xdsl; PYPTO_TRACEBACK=1 shows where)"
    return text


def is_diagnostic(error: BaseException) -> bool:
    return isinstance(error, ParseError | DiagnosticException)


def add_frontend_spans(module: Operation, spans: OpSpans) -> None:
    """Record where each op of a module the `pl` frontend built came from (its statement or
    expression in the user's `.py` file), so that verifier and pass errors about it are
    located there as they are for parsed `.mlir` input."""
    from pypto_xdsl.frontend.errors import SOURCE_NODES

    inputs: dict[int, tuple[Input, list[int]]] = {}
    for op in module.walk():
        found = SOURCE_NODES.get(op)
        if found is None or not hasattr(found[1], "lineno"):
            continue
        srcmap, node = found
        if id(srcmap) not in inputs:
            starts, at = [], 0
            for line in srcmap.lines:
                starts.append(at)
                at += len(line)
            inputs[id(srcmap)] = (Input("".join(srcmap.lines), srcmap.filename), starts)
        text, starts = inputs[id(srcmap)]
        line = node.lineno  # type: ignore[attr-defined]
        if not 0 < line <= len(starts):
            continue
        start = starts[line - 1] + node.col_offset  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None)
        end = starts[line - 1] + node.end_col_offset if end_line == line else start + 1  # type: ignore[attr-defined]
        spans[op] = (Span(start, max(end, start + 1), text), 0)


_T = TypeVar("_T")


def quiet_when_stdout_closes(main: Callable[[], _T]) -> _T:
    """`main()`, ending with status 1 and no traceback when the reader of stdout goes away
    (`pypto-opt big.mlir | head`). stdout is flushed here, so that a closed pipe shows up
    inside the call, not as "Exception ignored" at interpreter exit."""
    try:
        result = main()
        sys.stdout.flush()
        return result
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit writes nowhere
        sys.exit(1)
