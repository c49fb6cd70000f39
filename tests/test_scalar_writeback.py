"""Seed "Rebinding a parameter", row 4: "An explicit pl.Out / pl.InOut scalar — the rebinding
lands on the caller's Var — preserve the explicit scalar calling convention".

A scalar is a value, so the dialect models the convention as a write-back: a `pypto.func`
returns the final value of each scalar `out`/`inout` parameter after its own results, and the
frontend rebinds the caller's variable to the call's trailing result. The interpreter needs
nothing more; inline-functions replaces the trailing results like any other (the caller's
`k` becomes the spliced `n + 1`), outline-incore-scopes carries a rebound scalar out of a
scope like any other scope result.
"""

from __future__ import annotations

import pytest
from reference_support import after, funcs, launches, same_meaning
from xdsl.utils.exceptions import VerifyException

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.interpreter import parse_module, run

IDX = pl.Scalar[pl.INDEX]


@pl.program
class InOutBump:
    @pl.function(type=pl.FunctionType.Inline)
    def bump(self, n: pl.InOut[IDX]):
        n = n + 1

    @pl.function
    def main(self, k: IDX) -> IDX:
        self.bump(k)
        return k


@pytest.mark.parametrize(
    "passes",
    [[], ["inline-functions"], ["pypto-default"]],
    ids=["as-written", "inlined", "default-pipeline"],
)
def test_an_inout_scalar_helper_rebinding_n_changes_the_callers_k(passes):
    """The seed's row 4: the rebinding lands on the caller's Var, so main(5) is 6."""
    assert InOutBump.run(5, passes=passes) == 6
    assert InOutBump.run(41, passes=passes) == 42


def test_a_plain_scalar_parameter_still_rebinds_locally():
    """Row 5 of the same table, for contrast: `m = bump(k)` leaves k alone (k + m = 2k + 1)."""

    @pl.program
    class PlainBump:
        @pl.function(type=pl.FunctionType.Inline)
        def bump(self, n: IDX) -> IDX:
            n = n + 1
            return n

        @pl.function
        def main(self, k: IDX) -> IDX:
            m: IDX = self.bump(k)
            return k + m

    for passes in ([], ["inline-functions"]):
        assert PlainBump.run(5, passes=passes) == 11


def test_the_call_returns_the_new_value_and_the_caller_reads_it():
    module = InOutBump.fresh_module()
    bump, main = funcs(module)["bump"], funcs(module)["main"]
    assert bump.scalar_writebacks == (0,) and bump.declared_results == 0
    assert [str(t) for t in bump.function_type.outputs] == ["index"]
    (call,) = launches(main)
    assert main.body.block.last_op.operands[0] is call.results[0]


def test_inlining_makes_the_spliced_value_the_callers_k():
    before, module = after(InOutBump, ["inline-functions"])
    main = funcs(module)["main"]
    add = next(op for op in main.body.ops if op.name == "arith.addi")
    assert add.lhs is main.args[0] and main.body.block.last_op.operands[0] is add.result
    same_meaning(before, module)


@pl.program
class OutFill:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[8], pl.FP32], count: pl.Out[IDX]) -> pl.Tensor[[8], pl.FP32]:
        count = 8  # noqa: F841 (written back to the caller)
        return pl.exp(x)

    @pl.function
    def main(self, x: pl.Tensor[[8], pl.FP32], count: IDX) -> IDX:
        y = self.fill(x, count)  # noqa: F841 (only the written-back scalar is returned)
        return count


def test_an_out_scalar_of_a_non_inline_function_is_written_back_too():
    module = OutFill.fresh_module()
    assert funcs(module)["fill"].declared_results == 1
    import numpy as np

    assert OutFill.run(np.zeros(8, np.float32), 3) == 8


def test_a_write_back_in_a_scope_leaves_the_scope_and_the_outlined_kernel():
    @pl.program
    class InScope:
        @pl.function(type=pl.FunctionType.Inline)
        def bump(self, n: pl.InOut[IDX]):
            n = n + 1

        @pl.function
        def main(self, k: IDX) -> IDX:
            with pl.at(level=pl.Level.CORE_GROUP):
                self.bump(k)
            for i in pl.range(2):
                self.bump(k)
            return k

    for passes in ([], ["inline-functions"], ["pypto-default"]):
        assert InScope.run(5, passes=passes) == 8
    _, module = after(InScope, ["pypto-default"])
    kernel = funcs(module)["main_incore_0"]
    assert [str(t) for t in kernel.function_type.outputs] == ["index"]


def test_a_write_back_argument_must_be_a_variable():
    with pytest.raises(ParserError, match=r"scalar inout parameter 'n', which writes the caller's variable: pass a variable name"):

        @pl.program
        class NotAVariable:
            @pl.function(type=pl.FunctionType.Inline)
            def bump(self, n: pl.InOut[IDX]):
                n = n + 1

            @pl.function
            def main(self, k: IDX) -> IDX:
                self.bump(k + 1)
                return k


def test_the_dialect_requires_the_write_back_results():
    text = """
    pypto.func @bump(inout %n: index) {
      pypto.return
    }"""
    with pytest.raises(VerifyException, match=r"scalar out/inout parameter #0 \(inout index\): it returns its final value"):
        parse_module(text).verify()
    good = parse_module("""
    pypto.func @bump(inout %n: index) -> index {
      %c1 = arith.constant 1 : index
      %m = arith.addi %n, %c1 : index
      pypto.return %m : index
    }""")
    good.verify()
    assert run(good, "bump", [5]) == (6,)
