"""Depth: every region kind and call chains 1,000 deep through the parser, verifier, printer,
interpreter and tools, without RecursionError; one clean diagnostic beyond the documented
limit (`pypto_xdsl.utils.MAX_NESTING_DEPTH`). `benchmarks/bench_scale.py` measures deeper and
larger programs."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl import utils
from pypto_xdsl.fuzz import scale
from pypto_xdsl.fuzz.inprocess import run_tool
from pypto_xdsl.interpreter.api import parse_module, run
from pypto_xdsl.utils import MAX_NESTING_DEPTH, call_with_deep_stack

DEPTH = 1000


@pytest.mark.parametrize("kind", sorted(scale.NESTING))
def test_every_nesting_kind_parses_verifies_prints_and_runs_1000_deep(kind):
    text = scale.NESTING[kind](DEPTH)
    module = parse_module(text)
    call_with_deep_stack(module.verify)
    printed = call_with_deep_stack(str, module)
    assert call_with_deep_stack(str, parse_module(printed)) == printed
    if kind in scale.EXPECTED:
        assert run(module, "main", [5]) == (scale.EXPECTED[kind](5, DEPTH),)


@pytest.mark.parametrize("kind", ["scf.for", "calls"])
def test_the_tools_take_programs_1000_deep(tmp_path, kind):
    path = tmp_path / "deep.mlir"
    path.write_text(scale.NESTING[kind](DEPTH))
    for tool, args in (
        ("pypto-opt", [str(path), "-p", "pypto-default"]),
        ("pypto-run", [str(path)]),
    ):
        result = run_tool(tool, args)
        assert result.crash is None and result.code == 0, (tool, result.stderr[-2000:], result.crash)
    assert result.stdout.startswith("result #0: ")


def test_an_inline_chain_inlines_on_the_deep_stack(tmp_path):
    """The inline pass's own scaling in the chain length is inline-functions' (its page and
    benchmark); here, that the tool runs it on the deep stack."""
    path = tmp_path / "chain.mlir"
    path.write_text(scale.inline_chain(300))
    result = run_tool("pypto-opt", [str(path), "-p", "inline-functions"])
    assert result.crash is None and result.code == 0, result.stderr[-2000:]
    assert result.stdout.count("pypto.tensor.neg") == 299 and "pypto.call" not in result.stdout


def test_incore_scopes_nested_1000_deep_are_one_clean_error(tmp_path):
    path = tmp_path / "scopes.mlir"
    path.write_text(scale.nested_scopes(DEPTH))
    result = run_tool("pypto-opt", [str(path)])
    assert result.crash is None and result.code == 1
    (line,) = result.located_diagnostics(str(path))
    assert "pypto.incore_scope cannot be nested inside another pypto.incore_scope" in line
    with pytest.raises(VerifyException):
        call_with_deep_stack(parse_module(scale.nested_scopes(DEPTH)).verify)


def test_beyond_the_limit_is_one_diagnostic_not_a_crash(tmp_path, monkeypatch):
    """Nesting past what the recursion limit allows ends in one diagnostic naming the
    documented limit (simulated with a small limit: a program past the real one takes long)."""
    monkeypatch.setattr(utils, "RECURSION_LIMIT", 3000)
    path = tmp_path / "deep.mlir"
    path.write_text(scale.nested_for(DEPTH))
    for tool in ("pypto-opt", "pypto-run"):
        result = run_tool(tool, [str(path)])
        assert result.crash is None and result.code == 1, (tool, result.crash)
        assert "Traceback" not in result.stderr and len(result.diagnostics()) == 1, result.stderr
        assert f"nested too deeply: at most {MAX_NESTING_DEPTH:,} levels" in result.stderr


def test_the_deep_stack_has_room_for_deep_c_recursion():
    """Generators nest on the C stack (xDSL's `walk` is generators 3 per nesting level):
    50,000 of them overflow a default 8 MB thread stack."""

    def nest(n: int):
        if n == 0:
            yield 1
        else:
            yield from nest(n - 1)

    assert call_with_deep_stack(lambda: next(nest(50_000))) == 1


def test_the_deep_stack_keeps_the_callers_recursion_limit_and_exceptions():
    import sys

    before = sys.getrecursionlimit()
    assert call_with_deep_stack(sys.getrecursionlimit) == utils.RECURSION_LIMIT
    assert sys.getrecursionlimit() == before
    with pytest.raises(KeyError, match="x"):
        call_with_deep_stack({}.__getitem__, "x")
    assert call_with_deep_stack(lambda: call_with_deep_stack(lambda: 7)) == 7
