"""inline-functions: the behaviours PyPTO's own pass tests check (its
tests/ut/ir/transforms/test_inline_functions.py, 23 tests), on programs written for this DSL.

Each test names the behaviour; docs/passes/inline-functions.md maps the reference tests to
these and lists the deliberate differences. Programs are compiled by the frontend, inlined,
compared structurally (up to names) with the program the reference expects where it gives
one, and run by the interpreter before and after the pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_support import (
    after,
    assert_same_structure,
    funcs,
    inlined,
    kinds,
    launches,
    op_names,
    params,
    same_meaning,
)
from xdsl.utils.exceptions import PassFailedException

import pypto_xdsl.language as pl
from pypto_xdsl.runtime.passes import apply_passes
from pypto_xdsl.transforms.inline_functions import (
    inline_functions,
    inline_functions_eliminated_errors,
)

V64 = pl.Tensor[[64], pl.FP32]
V4 = pl.Tensor[[4], pl.FP32]


# --------------------------------------------------------------------------- basic


@pl.program
class Square:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: V64) -> V64:
        y = pl.mul(x, x)
        return y

    @pl.function
    def main(self, a: V64) -> V64:
        z = self.helper(a)
        return z


@pl.program
class SquareSpliced:
    @pl.function
    def main(self, a: V64) -> V64:
        y = pl.mul(a, a)
        return y


def test_single_call_site_splices_the_renamed_body_and_returns_its_value():
    before, module = after(Square, ["inline-functions"])
    assert_same_structure(module, SquareSpliced.fresh_module())
    main = funcs(module)["main"]
    assert [op.results[0].name_hint for op in main.body.ops if op.results] == ["y_inline0"]
    same_meaning(before, module)


def test_the_inline_helper_is_dropped_and_main_kept():
    assert list(funcs(inlined(Square))) == ["main"]


@pl.program
class NoHelpers:
    @pl.function
    def main(self, a: V64) -> V64:
        b = pl.add(a, a)
        return b


def test_a_program_without_inline_functions_is_left_object_for_object():
    module = NoHelpers.fresh_module()
    ops = list(module.walk())
    text = str(module)
    stats = inline_functions(module)
    assert (stats.sites, stats.removed) == (0, [])
    assert all(a is b for a, b in zip(module.walk(), ops)) and str(module) == text


# --------------------------------------------------------------------------- call-site forms


@pl.program
class Writeout:
    @pl.function(type=pl.FunctionType.Inline)
    def writeout(self, x: V4, out: pl.Out[V4]) -> V4:
        out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        self.writeout(a, ext)  # the value is discarded, the write is not
        b: V4 = pl.tensor.assemble(a, a, [0])
        return b


@pl.program
class WriteoutSpliced:
    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        pl.tensor.assemble(ext, a, [0])
        b: V4 = pl.tensor.assemble(a, a, [0])
        return b


def test_a_discarded_call_keeps_its_write_into_the_callers_out_tensor():
    before, module = after(Writeout, ["inline-functions"])
    assert_same_structure(module, WriteoutSpliced.fresh_module())
    main = funcs(module)["main"]
    first = next(op for op in main.body.ops if op.name == "pypto.tensor.assemble")
    assert first.dest is main.args[1] and first.source is main.args[0]  # into ext, from a
    same_meaning(before, module)


@pl.program
class Passthrough:
    @pl.function(type=pl.FunctionType.Inline)
    def passthrough(self, x: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
        return x

    @pl.function
    def main(self, a: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
        a = self.passthrough(a)
        return a


def test_a_helper_returning_its_argument_leaves_no_copy():
    main = funcs(inlined(Passthrough))["main"]
    assert [op.name for op in main.body.ops] == ["pypto.return"]
    assert main.body.block.last_op.operands[0] is main.args[0]


# --------------------------------------------------------------------------- several sites


@pl.program
class TwoSquares:
    @pl.function(type=pl.FunctionType.Inline)
    def square(self, x: V64) -> V64:
        y = pl.mul(x, x)
        return y

    @pl.function
    def main(self, a: V64, b: V64) -> V64:
        a2 = self.square(a)
        b2 = self.square(b)
        return pl.add(a2, b2)


@pl.program
class TwoSquaresSpliced:
    @pl.function
    def main(self, a: V64, b: V64) -> V64:
        y_a = pl.mul(a, a)
        y_b = pl.mul(b, b)
        return pl.add(y_a, y_b)


def test_each_call_site_gets_its_own_renamed_copy():
    before, module = after(TwoSquares, ["inline-functions"])
    assert_same_structure(module, TwoSquaresSpliced.fresh_module())
    muls = [op for op in funcs(module)["main"].body.ops if op.name == "pypto.tensor.mul"]
    assert [m.results[0].name_hint for m in muls] == ["y_inline0", "y_inline1"]
    same_meaning(before, module)


# --------------------------------------------------------------------------- nesting


@pl.program
class Quad:
    @pl.function(type=pl.FunctionType.Inline)
    def square(self, x: V64) -> V64:
        y = pl.mul(x, x)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def quad(self, x: V64) -> V64:
        sq = self.square(x)
        sq2 = self.square(sq)
        return sq2

    @pl.function
    def main(self, a: V64) -> V64:
        r = self.quad(a)
        return r


@pl.program
class QuadSpliced:
    @pl.function
    def main(self, a: V64) -> V64:
        y0 = pl.mul(a, a)
        y1 = pl.mul(y0, y0)
        return y1


def test_an_inline_helper_calling_inline_helpers_expands_transitively():
    before, module = after(Quad, ["inline-functions"])
    assert list(funcs(module)) == ["main"]
    assert_same_structure(module, QuadSpliced.fresh_module())
    same_meaning(before, module)


LOOP = """
builtin.module {
  pypto.func inline @loop(%x: index) -> index {
    %y = pypto.call @loop(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func @main(%a: index) -> index {
    %r = pypto.call @loop(%a) : (index) -> index
    pypto.return %r : index
  }
}
"""

MUTUAL = """
builtin.module {
  pypto.func inline @a(%x: index) -> index {
    %y = pypto.call @b(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @b(%x: index) -> index {
    %y = pypto.call @a(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func @main(%v: index) -> index {
    %r = pypto.call @a(%v) : (index) -> index
    pypto.return %r : index
  }
}
"""


@pytest.mark.parametrize(("text", "cycle"), [(LOOP, "loop -> loop"), (MUTUAL, "a -> b -> a")])
def test_recursion_is_a_cycle_error_naming_the_cycle(text: str, cycle: str):
    from pypto_xdsl.interpreter import parse_module

    module = parse_module(text)
    with pytest.raises(PassFailedException, match=f"cycle detected in the inline call graph: {cycle}$"):
        inline_functions(module)


# --------------------------------------------------------------------------- body shapes


@pl.program
class HelperWithScope:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: V64) -> V64:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V64 = pl.add(x, x)
        return y

    @pl.function
    def main(self, a: V64) -> V64:
        r: V64 = self.helper(a)
        return r


@pl.program
class HelperWithScopeSpliced:
    @pl.function
    def main(self, a: V64) -> V64:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V64 = pl.add(a, a)
        return y


def test_a_scope_in_the_helper_is_spliced_intact_not_outlined():
    before, module = after(HelperWithScope, ["inline-functions"])
    assert_same_structure(module, HelperWithScopeSpliced.fresh_module())
    assert op_names(funcs(module)["main"])[:1] == ["pypto.incore_scope"]
    same_meaning(before, module)


@pl.program
class HelperWithLoop:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: V4, out: pl.Out[V4]) -> V4:
        for i in pl.range(4):
            out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        r: V4 = self.helper(a, ext)
        return r


@pl.program
class HelperWithLoopSpliced:
    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        for i in pl.range(4):
            ext = pl.tensor.assemble(ext, a, [0])
        return ext


def test_a_loop_in_the_helper_is_spliced_and_writes_the_callers_tensor():
    before, module = after(HelperWithLoop, ["inline-functions"])
    assert_same_structure(module, HelperWithLoopSpliced.fresh_module())
    loop = next(op for op in funcs(module)["main"].body.ops if op.name == "scf.for")
    assert loop.iter_args[0] is funcs(module)["main"].args[1]  # carries ext
    same_meaning(before, module)


@pl.program
class DeadHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def unused(self, x: V64) -> V64:
        return pl.exp(x)

    @pl.function
    def main(self, a: V64) -> V64:
        return pl.add(a, a)


def test_a_helper_nobody_calls_is_removed_and_main_unchanged():
    before, module = after(DeadHelper, ["inline-functions"])
    assert list(funcs(module)) == ["main"]
    expected = DeadHelper.fresh_module()
    expected.body.block.erase_op(funcs(expected)["unused"])
    assert_same_structure(module, expected)


@pl.program
class OrchestrationWithHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: V64) -> V64:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V64 = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: V64) -> V64:
        r: V64 = self.helper(a)
        return r


def test_the_default_pipeline_inlines_first():
    before, module = after(OrchestrationWithHelper, ["pypto-default"])
    assert "helper" not in funcs(module)
    # pypto-default ends with expand-mixed-kernel: a vector-only kernel becomes aiv
    assert kinds(module) == {"main": "orchestration", "main_incore_0": "aiv"}
    same_meaning(before, module)


# --------------------------------------------------------------------------- verifier


def test_the_verifier_flags_the_surviving_helper_and_its_call():
    errors = inline_functions_eliminated_errors(Square.fresh_module())
    assert len(errors) >= 2 and all("helper" in e for e in errors)
    assert errors[0].startswith("inline function @helper survived the inline-functions pass")
    assert errors[1].startswith("call to inline function @helper in @main survived")


def test_the_verifier_is_silent_after_the_pass():
    assert inline_functions_eliminated_errors(inlined(Square)) == []


# --------------------------------------------------------------------------- out parameters


@pl.program
class Projection:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, out: pl.Out[V4]) -> V4:
        out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        v = self.proj(a, ext)
        return v


@pl.program
class ProjectionSpliced:
    @pl.function
    def main(self, a: V4, ext: pl.Out[V4]) -> V4:
        ext = pl.tensor.assemble(ext, a, [0])
        return ext


def test_an_out_parameter_written_by_the_helper_is_the_callers_tensor():
    before, module = after(Projection, ["inline-functions"])
    assert_same_structure(module, ProjectionSpliced.fresh_module())
    main = funcs(module)["main"]
    (assemble,) = [op for op in main.body.ops if op.name == "pypto.tensor.assemble"]
    assert assemble.dest is main.args[1]
    assert main.body.block.last_op.operands[0] is assemble.result  # v reads the written ext
    same_meaning(before, module)


@pl.program
class ThreeProjections:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, out: pl.Out[V4]) -> V4:
        out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function
    def main(self, a: V4, qo: pl.Out[V4], ko: pl.Out[V4], vo: pl.Out[V4]) -> tuple[V4, V4, V4]:
        q = self.proj(a, qo)
        k = self.proj(a, ko)
        v = self.proj(a, vo)
        return q, k, v


def test_each_site_writes_its_own_out_argument():
    before, module = after(ThreeProjections, ["inline-functions"])
    main = funcs(module)["main"]
    dests = [op.dest for op in main.body.ops if op.name == "pypto.tensor.assemble"]
    assert dests == list(main.args[1:])
    assert list(main.body.block.last_op.operands) == [
        op.result for op in main.body.ops if op.name == "pypto.tensor.assemble"
    ]
    same_meaning(before, module)


# --------------------------------------------------------------------------- returns


@pl.program
class ReturnCall:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, out: pl.Out[V4]) -> V4:
        out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function
    def main(self, a: V4, qo: pl.Out[V4]) -> V4:
        return self.proj(a, qo)


def test_return_of_a_call_returns_the_spliced_value():
    before, module = after(ReturnCall, ["inline-functions"])
    assert_same_structure(module, ProjectionSpliced.fresh_module())
    same_meaning(before, module)


@pl.program
class TwoOutputs:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, o0: pl.Out[V4], o1: pl.Out[V4]) -> tuple[V4, V4]:
        o0 = pl.tensor.assemble(o0, x, [0])
        o1 = pl.tensor.assemble(o1, x, [0])
        return o0, o1

    @pl.function
    def main(self, a: V4, q: pl.Out[V4], k: pl.Out[V4]) -> tuple[V4, V4]:
        return self.proj(a, q, k)


@pl.program
class TwoOutputsUnpacked:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, o0: pl.Out[V4], o1: pl.Out[V4]) -> tuple[V4, V4]:
        o0 = pl.tensor.assemble(o0, x, [0])
        o1 = pl.tensor.assemble(o1, x, [0])
        return o0, o1

    @pl.function
    def main(self, a: V4, q: pl.Out[V4], k: pl.Out[V4]) -> tuple[V4, V4]:
        y0, y1 = self.proj(a, q, k)
        return y0, y1


@pl.program
class TwoOutputsThroughATuple:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, o0: pl.Out[V4], o1: pl.Out[V4]) -> tuple[V4, V4]:
        o0 = pl.tensor.assemble(o0, x, [0])
        o1 = pl.tensor.assemble(o1, x, [0])
        tmp = (o0, o1)
        return tmp

    @pl.function
    def main(self, a: V4, q: pl.Out[V4], k: pl.Out[V4]) -> tuple[V4, V4]:
        y0, y1 = self.proj(a, q, k)
        return y0, y1


@pl.program
class TwoOutputsBareParams:
    @pl.function(type=pl.FunctionType.Inline)
    def proj(self, x: V4, o0: V4, o1: V4) -> tuple[V4, V4]:
        o0 = pl.tensor.assemble(o0, x, [0])
        o1 = pl.tensor.assemble(o1, x, [0])
        return o0, o1

    @pl.function
    def main(self, a: V4, q: pl.Out[V4], k: pl.Out[V4]) -> tuple[V4, V4]:
        y0, y1 = self.proj(a, q, k)
        return y0, y1


@pl.program
class TwoOutputsSpliced:
    @pl.function
    def main(self, a: V4, q: pl.Out[V4], k: pl.Out[V4]) -> tuple[V4, V4]:
        q = pl.tensor.assemble(q, a, [0])
        k = pl.tensor.assemble(k, a, [0])
        return q, k


@pytest.mark.parametrize(
    "program",
    [TwoOutputs, TwoOutputsUnpacked, TwoOutputsThroughATuple, TwoOutputsBareParams],
    ids=["return-call", "unpacked", "through-a-tuple", "bare-params"],
)
def test_a_helper_with_two_results_replaces_both_without_a_tuple(program):
    before, module = after(program, ["inline-functions"])
    assert_same_structure(module, TwoOutputsSpliced.fresh_module())
    main = funcs(module)["main"]
    writes = [op for op in main.body.ops if op.name == "pypto.tensor.assemble"]
    assert [w.dest for w in writes] == list(main.args[1:])
    assert list(main.body.block.last_op.operands) == [w.result for w in writes]
    same_meaning(before, module)


def test_directions_do_not_change_what_is_spliced():
    bare = funcs(TwoOutputsBareParams.module)["proj"]
    declared = funcs(TwoOutputs.module)["proj"]
    assert [d for _, d in params(bare)] != [d for _, d in params(declared)]
    assert_same_structure(inlined(TwoOutputsBareParams), inlined(TwoOutputs))


# --------------------------------------------------------------------------- submit


@pl.program
class SubmitOfHelper:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: V64) -> V64:
        y: V64 = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: V64) -> V64:
        with pl.manual_scope():
            a, a_tid = pl.submit(self.helper, x)
        return a


def test_a_submit_of_a_helper_in_a_manual_scope_is_reported_as_a_dangling_submit():
    module = SubmitOfHelper.fresh_module()
    assert [op.name for op in launches(funcs(module)["main"])] == ["pypto.submit"]
    with pytest.raises(PassFailedException) as info:
        apply_passes(module, ["inline-functions"])
    message = str(info.value)
    # The verifier's wording (what would be left), and why the pass stops first.
    assert message.startswith("dangling submit to @helper in @main:")
    assert "no such function in the module (likely a former inline callee that was not spliced)" in message
    assert "pypto.submit of an inline function cannot be spliced" in message
    assert str(module) == str(SubmitOfHelper.fresh_module())  # nothing changed


def test_the_manual_scope_keeps_its_meaning_through_inlining_of_calls():
    @pl.program
    class CallInManualScope:
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, x: V64) -> V64:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: V64 = pl.add(x, x)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: V64) -> V64:
            with pl.manual_scope():
                a = self.helper(x)
            return a

    before, module = after(CallInManualScope, ["inline-functions", "outline-incore-scopes"])
    main = funcs(module)["main"]
    assert op_names(main) == ["pypto.manual_scope", "pypto.call", "pypto.yield", "pypto.return"]
    same_meaning(before, module)
    x = np.arange(64, dtype=np.float32)
    y = CallInManualScope.run(x)
    np.testing.assert_allclose(y, 2 * x)
    assert [n for n, _ in params(funcs(module)["main_incore_0"])] == ["x"]
