"""Run a tool's `main` in this process, as a user would run the command, and judge the result.

    result = run_tool("pypto-opt", ["prog.mlir", "-p", "pypto-default"])
    result.code, result.stdout, result.stderr, result.crash   # crash: an escaping exception

Running in-process is what makes fuzzing thousands of inputs affordable (no interpreter
start-up per run); an exception escaping `main` is recorded with its traceback, as the
command's user would have seen it.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass


def _pypto_opt(args: Sequence[str]) -> int:
    from pypto_xdsl.tools.pypto_opt import main

    main(list(args))
    return 0


def _pypto_run(args: Sequence[str]) -> int:
    from pypto_xdsl.tools.pypto_run import main

    return main(list(args))


def _pypto_compile(args: Sequence[str]) -> int:
    from pypto_xdsl.tools.pypto_compile import main

    return main(list(args))


TOOLS: dict[str, Callable[[Sequence[str]], int]] = {
    "pypto-opt": _pypto_opt,
    "pypto-run": _pypto_run,
    "pypto-compile": _pypto_compile,
}


@dataclass
class ToolResult:
    code: int
    stdout: str
    stderr: str
    crash: str | None = None
    """The traceback of an exception that escaped the tool (a bug), else None."""

    def diagnostics(self) -> list[str]:
        """The `error:` lines on stderr."""
        return [line for line in self.stderr.splitlines() if _ERROR_LINE.search(line)]

    def located_diagnostics(self, file: str) -> list[str]:
        """The `file:line:col: error:` lines on stderr."""
        pattern = re.compile(rf"^{re.escape(file)}:\d+:\d+: error: \S")
        return [line for line in self.stderr.splitlines() if pattern.match(line)]


_ERROR_LINE = re.compile(r"(^|: )(internal )?error: ")


def run_tool(tool: str, args: Sequence[str], stdin: bytes = b"") -> ToolResult:
    """`tool args...` in-process, with stdin/stdout/stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    crash = None
    saved_stdin = sys.stdin
    sys.stdin = fake_stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = TOOLS[tool](args)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if not isinstance(e.code, int | None):
                    print(e.code, file=sys.stderr)
            except BaseException as e:  # noqa: BLE001 - what escapes a tool is the finding
                if isinstance(e, KeyboardInterrupt):
                    raise
                crash = "".join(traceback.format_exception(e))
                code = 1
    finally:
        sys.stdin = saved_stdin
    return ToolResult(code, out.getvalue(), err.getvalue(), crash)
