"""Mistakes in a user's program are one located diagnostic, never a traceback (issue item 7)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_python

BIN = Path(sys.executable).parent

HEADER = "import pypto_xdsl.language as pl\n\n"

CASES = {
    "unsupported decorator": (
        "@pl.jit.extern\ndef f(a: pl.Tensor):\n    return a\n",
        3, 2, "@pl.jit.extern is not supported", "hand-written",
    ),
    "unknown pl name as decorator": (
        "@pl.kernel\ndef f(a: pl.Tensor):\n    return a\n",
        3, 2, "pl has no 'kernel'", None,
    ),
    "unknown option": (
        "@pl.jit(foo=1)\ndef f(a: pl.Tensor):\n    return a\n",
        3, 2, "@pl.jit has no option 'foo'", None,
    ),
    "positional argument to pl.function": (
        "@pl.program\nclass P:\n    @pl.function(1)\n    def f(self, a: pl.Tensor[[4], pl.FP32]):\n        return a\n",
        5, 6, "@pl.function takes keyword arguments only, got the positional argument 1",
        "write @pl.function(type=pl.FunctionType.InCore)",
    ),
    "bad function type": (
        "@pl.program\nclass P:\n    @pl.function(type=3)\n    def f(self, a: pl.Tensor[[4], pl.FP32]):\n        return a\n",
        5, 6, "@pl.function(type=...) expects a pl.FunctionType", "pl.FunctionType.InCore",
    ),
    "unsupported function option": (
        "@pl.function(attrs={})\ndef f(a: pl.Tensor[[4], pl.FP32]):\n    return a\n",
        3, 2, "@pl.function(attrs=...) is not supported", None,
    ),
    "op as a decorator": (
        "@pl.program\nclass P:\n    @pl.add\n    def f(self, a: pl.Tensor[[4], pl.FP32]):\n        return a\n",
        5, 6, "pl.add is an op, not a decorator", "@pl.function",
    ),
    "program applied twice": (
        "@pl.program\n@pl.program\nclass P:\n    @pl.function\n    def f(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n        return a\n",
        3, 2, "@pl.program is applied twice to 'P'", "apply it once",
    ),
    "NameError at module level": (
        "SIZE = undefined_size * 2\n",
        3, 8, "name 'undefined_size' is not defined", None,
    ),
    "NameError with a suggestion": (
        "ROWS = 4\nSIZE = ROWZ * 2\n",
        4, 8, "name 'ROWZ' is not defined (did you mean 'ROWS'?)", None,
    ),
    "malformed annotation evaluated by Python": (
        "@pl.jit\ndef f(a: pl.Tensor[[4], pl.INDEX]):\n    return a\n",
        4, 10, "tensor elements cannot be pl.INDEX", None,
    ),
    "op called by Python": (
        "X = pl.exp(1.0)\n",
        3, 5, "pl.exp can only be used inside a @pl.function or a @pl.jit function", None,
    ),
    "unsupported op in a body": (
        "@pl.program\nclass P:\n    @pl.function\n    def f(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        return pl.tanhh(a)\n",
        7, 16, "unknown name 'pl.tanhh'", None,
    ),
    "unsupported keyword of an op": (
        "@pl.program\nclass P:\n    @pl.function\n    def f(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        return pl.exp(a, fast=True)\n",
        7, 26, "pl.exp has no parameter 'fast'", None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_mistake_is_one_located_diagnostic(case, tmp_path):
    body, line, col, message, alternative = CASES[case]
    path = tmp_path / "prog.py"
    text = HEADER + body
    with pytest.raises(ParserError) as info:
        load_python(text, str(path))
    e = info.value
    assert (e.filename, e.line, (e.col or 0) + 1) == (str(path), line, col), str(e)
    assert message in e.message
    if alternative is not None:
        assert alternative in e.message
    lines = str(e).splitlines()
    assert lines[0].startswith(f"{path}:{line}:{col}: error: ")
    assert lines[1] == text.splitlines()[line - 1] and lines[2].strip().startswith("^")


def _run(tool: list[str], path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*tool, str(path)], capture_output=True, text=True, cwd=path.parent)


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run", "pypto-compile", "python"])
def test_tools_and_scripts_print_the_diagnostic_first_and_no_traceback(tool, tmp_path):
    path = tmp_path / "prog.py"
    # `1 is 1` makes Python warn (SyntaxWarning) while compiling the file
    path.write_text(HEADER + "FLAG = 1 is 1\n\n" + CASES["bad function type"][0])
    cmd = {
        "pypto-opt": [str(BIN / "pypto-opt")],
        "pypto-run": [str(BIN / "pypto-run")],
        "pypto-compile": [str(BIN / "pypto-compile"), "-o", str(tmp_path / "out")],
        "python": [sys.executable],
    }[tool]
    proc = _run(cmd, path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    if tool == "python":
        # Python itself prints the warning while compiling the script, before anything runs
        lines = lines[2:] if "SyntaxWarning" in lines[0] else lines
    assert ":7:6: error: @pl.function(type=...) expects a pl.FunctionType" in lines[0], proc.stderr
    if tool != "python":
        assert "SyntaxWarning" in proc.stderr.split("\n", 3)[-1]  # reported, after the diagnostic


def test_errors_inside_a_jit_body_point_at_the_users_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(HEADER + textwrap.dedent('''
        import numpy as np

        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 4])
                out = pl.store(pl.add(t, a), [0, 0], out)
            return out

        k(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32))
    '''))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    first, source, caret = proc.stderr.splitlines()[:3]
    assert first.startswith(f"{path}:10:24: error: ") and "must both be tensors or both tiles" in first
    assert source.strip() == "out = pl.store(pl.add(t, a), [0, 0], out)" and caret.strip().startswith("^")


def test_a_malformed_annotation_in_a_script_is_a_diagnostic(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(HEADER + "@pl.jit\ndef f(a: pl.Tensor[[4], pl.INDEX]):\n    return a\n")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{path}:4:10: error: tensor elements cannot be pl.INDEX\n")
