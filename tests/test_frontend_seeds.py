"""The seed documents' examples, compiled by the frontend as written.

Only the import lines differ from the seed documents (`pypto_xdsl.language` instead of
`pypto.language`). Each `Before` program goes through the pass it illustrates; the result is
compared structurally with the seed's `After` program (compiled by the frontend too, after
CSE on both so shared constants do not matter) and run by the reference interpreter against
`Before` on random inputs.

Seed programs whose parameters carry no annotation are given types with `.specialize(...)`
(the source stays as written). Fragments (bodies shown without their function) are wrapped
in a function; this is said where it happens.
"""

from __future__ import annotations

import importlib.util

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter import assert_same_semantics
from pypto_xdsl.language import FP32, InCore, Tensor
from pypto_xdsl.runtime.passes import apply_passes

HAS_INLINE = importlib.util.find_spec("pypto_xdsl.transforms.inline_functions") is not None
HAS_OUTLINE = importlib.util.find_spec("pypto_xdsl.transforms.outline_incore_scopes") is not None
needs_inline = pytest.mark.skipif(not HAS_INLINE, reason="inline-functions pass not available")
needs_outline = pytest.mark.skipif(not HAS_OUTLINE, reason="outline-incore-scopes pass not available")

T = pl.Tensor[[64, 64], pl.FP32]


def cse(module: ModuleOp) -> ModuleOp:
    CommonSubexpressionElimination().apply(Context(), module)
    return module


def funcs(module: ModuleOp) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}


def assert_same_structure(actual: ModuleOp, expected: ModuleOp) -> None:
    cse(actual)
    cse(expected)
    assert actual.is_structurally_equivalent(expected), f"got:\n{actual}\nexpected:\n{expected}"


def after_pass(before, passes: list[str]) -> tuple[ModuleOp, ModuleOp]:
    original = before.fresh_module()
    module = before.fresh_module()
    apply_passes(module, passes)
    return original, module


# =========================================================================== inline-functions
# --- "Single call site"


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x):
        y = pl.mul(x, x)
        return y

    @pl.function
    def main(self, a):
        z = self.helper(a)
        return z


@pl.program
class P_After:  # the seed's "After", renamed so both classes live in one file
    @pl.function
    def main(self, a):
        y_inline0 = pl.mul(a, a)
        z = y_inline0
        return z


@needs_inline
def test_inline_single_call_site():
    before = P.specialize(main=[T])
    original, module = after_pass(before, ["inline-functions"])
    expected = P_After.specialize(main=[T]).fresh_module()
    main = funcs(module)["main"]
    assert list(funcs(module)) == ["main"]
    assert [op.results[0].name_hint for op in main.body.ops if op.results] == ["y_inline0"]
    assert_same_structure(module, expected)
    assert_same_semantics(original, module, "main")


# --- "Multiple call sites"


@pl.program
class Multi:
    @pl.function(type=pl.FunctionType.Inline)
    def square(self, x):
        y = pl.mul(x, x)
        return y

    @pl.function
    def main(self, a, b):
        a2 = self.square(a)
        b2 = self.square(b)
        return pl.add(a2, b2)


@pl.program
class Multi_After:
    @pl.function
    def main(self, a, b):
        y_inline0 = pl.mul(a, a)
        a2 = y_inline0
        y_inline1 = pl.mul(b, b)
        b2 = y_inline1
        return pl.add(a2, b2)


@needs_inline
def test_inline_multiple_call_sites():
    before = Multi.specialize(main=[T, T])
    original, module = after_pass(before, ["inline-functions"])
    main = funcs(module)["main"]
    hints = [op.results[0].name_hint for op in main.body.ops if op.results]
    assert hints[:2] == ["y_inline0", "y_inline1"]
    assert_same_structure(module, Multi_After.specialize(main=[T, T]).fresh_module())
    assert_same_semantics(original, module, "main")


# --- "Rebinding a parameter": `t = pl.add(t, t); return t` called as `u = self.twice(a)`
# (the seed shows the helper body and the call; wrapped here in a program).


@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t):
        t = pl.add(t, t)
        return t

    @pl.function
    def main(self, a):
        u = self.twice(a)
        w = pl.add(a, u)  # original a + doubled result
        return w


@pl.program
class Twice_After:
    @pl.function
    def main(self, a):
        t_inline0 = a
        t_inline0 = pl.add(t_inline0, t_inline0)
        u = t_inline0
        w = pl.add(a, u)  # original a + doubled result
        return w


@needs_inline
def test_inline_rebinding_tensor_parameter_computes_3a():
    import numpy as np

    before = Twice.specialize(main=[T])
    original, module = after_pass(before, ["inline-functions"])
    assert_same_structure(module, Twice_After.specialize(main=[T]).fresh_module())
    a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_allclose(Twice.run(a.copy(), passes=["inline-functions"]), 3 * a, rtol=1e-6)
    np.testing.assert_allclose(Twice.run(a.copy()), 3 * a, rtol=1e-6)


# --- "Rebinding a parameter": the scalar `bump` example, verbatim.


@pl.program
class Bump:
    @pl.function(type=pl.FunctionType.Inline)
    def bump(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        n = n + 1
        return n

    @pl.function
    def main(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        m: pl.Scalar[pl.INDEX] = self.bump(k)
        return k + m                              # k + (k + 1)


@pl.program
class Bump_After:  # the seed's expansion, wrapped in `main`
    @pl.function
    def main(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        n_inline0: pl.Scalar[pl.INDEX] = k
        n_inline0 = n_inline0 + 1
        m: pl.Scalar[pl.INDEX] = n_inline0
        s: pl.Scalar[pl.INDEX] = k + m                # the ORIGINAL k
        return s


@needs_inline
def test_inline_rebinding_scalar_parameter():
    _, module = after_pass(Bump, ["inline-functions"])
    assert_same_structure(module, Bump_After.fresh_module())
    for k in (0, 5, 41):
        assert Bump.run(k) == 2 * k + 1
        assert Bump.run(k, passes=["inline-functions"]) == 2 * k + 1


# --- "Discarding a return value"


@pl.program
class Discard:
    @pl.function(type=pl.FunctionType.Inline)
    def writeout(self, t, out: pl.Out[...]):
        return pl.tile.store(t, [0, 0], out)   # the write IS the return expression

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.Out[...]):
        t = pl.tile.load(a, [0, 0], [64, 64])
        self.writeout(t, out)                  # return value ignored
        return out


@pl.program
class Discard_After:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.Out[...]):
        t = pl.tile.load(a, [0, 0], [64, 64])
        pl.tile.store(t, [0, 0], out)
        return out


def test_discard_example_types_and_directions():
    module = Discard.specialize(kernel=[T, T]).module
    f = funcs(module)
    assert f["writeout"].directions == (ParamDirection.IN, ParamDirection.OUT)
    assert f["kernel"].directions == (ParamDirection.IN, ParamDirection.OUT)
    assert f["writeout"].function_type.inputs.data[0] == pl.Tile[[64, 64], pl.FP32].ir


@needs_inline
def test_inline_discarded_return_value_keeps_the_store():
    before = Discard.specialize(kernel=[T, T])
    original, module = after_pass(before, ["inline-functions"])
    kernel = funcs(module)["kernel"]
    assert [op.name for op in kernel.body.ops if op.name.startswith("pypto.tile")] == [
        "pypto.tile.load", "pypto.tile.store",
    ]
    # Structure equals the seed's After except the return: the After rebinds `out` to the
    # store it performs itself (`pl.tile.store(...)` as a statement), the inlined call
    # discards the helper's result, so the pass output returns the parameter.
    expected = Discard_After.specialize(kernel=[T, T]).fresh_module()
    exp_kernel = funcs(expected)["kernel"]
    exp_ret = exp_kernel.body.block.last_op
    exp_ret.operands[0] = exp_kernel.args[1]
    assert_same_structure(module, expected)
    assert_same_semantics(original, module, "kernel")


# =========================================================================== outline-incore-scopes
# --- "Basic Outlining"


@pl.program
class Before:
    @pl.function  # Opaque function
    def main(self, x: Tensor[[64], FP32]) -> Tensor[[64], FP32]:
        y = x + 1

        with pl.at(level=pl.Level.CORE_GROUP):  # InCore scope
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result_tile = tile_sq + 1
            result = pl.store(result_tile, [0], x)

        z = result + 2
        return z


@pl.program
class After:
    @pl.function  # Opaque function
    def main(self, x: Tensor[[64], FP32]) -> Tensor[[64], FP32]:
        y = x + 1

        # Scope replaced with call + assignments
        result = self.main_incore_0(y, x)  # Call outlined function

        z = result + 2
        return z

    @pl.function(scope_type=InCore)  # Outlined InCore function
    def main_incore_0(self, y: Tensor[[64], FP32], x: Tensor[[64], FP32]) -> Tensor[[64], FP32]:
        # Scope body moved here
        tile = pl.load(y, [0], [64])
        tile_sq = pl.mul(tile, tile)
        result_tile = tile_sq + 1
        result = pl.store(result_tile, [0], x)  # noqa: F841 (the seed's unused store result)
        return x  # store target: returns the param, not `result`


def test_outline_before_has_one_scope_with_one_result():
    from pypto_xdsl.dialects.program import IncoreScopeOp

    main = funcs(Before.module)["main"]
    (scope,) = [op for op in main.walk() if isinstance(op, IncoreScopeOp)]
    assert [r.name_hint for r in scope.outputs] == ["result"]
    # Captured values: y and x, read from above (the scope is not isolated).
    assert {o.operands[0].name_hint for o in scope.body.ops if o.name in ("pypto.tile.load", "pypto.tile.store")} <= {"y", "result_tile"}


@needs_outline
def test_outline_basic():
    original, module = after_pass(Before, ["outline-incore-scopes"])
    f = funcs(module)
    assert list(f) == ["main", "main_incore_0"]
    # This compiler marks the parent `orchestration` and infers `out` for the store target
    # (DESIGN.md §4); the seed's After leaves both implicit. Align them, then compare.
    assert f["main"].func_kind == FuncKind.ORCHESTRATION
    assert f["main_incore_0"].func_kind == FuncKind.INCORE
    assert f["main_incore_0"].directions == (ParamDirection.IN, ParamDirection.OUT)
    expected = After.fresh_module()
    ef = funcs(expected)
    ef["main"].set_kind(FuncKind.ORCHESTRATION)
    ef["main_incore_0"].set_directions(f["main_incore_0"].directions)
    assert_same_structure(module, expected)
    assert_same_semantics(original, module, "main")
    assert_same_semantics(After.fresh_module(), module, "main")


# --- Named scope (`name_hint="fused_add"`, from the seed's Naming section), `as tid` / deps.


@pl.program
class Named:
    @pl.function
    def main(self, x: Tensor[[64], FP32], out: pl.Out[Tensor[[64], FP32]]) -> Tensor[[64], FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused_add") as tid0:
            t = pl.load(x, [0], [64])
            out = pl.store(t + t, [0], out)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid0]):
            t2 = pl.load(out, [0], [64])
            out = pl.store(t2 + 1.0, [0], out)
        return out


@needs_outline
def test_outline_name_hint_and_task_ids():
    from pypto_xdsl.dialects.program import SubmitOp

    original, module = after_pass(Named, ["outline-incore-scopes"])
    f = funcs(module)
    assert "fused_add" in f
    submits = [op for op in f["main"].walk() if isinstance(op, SubmitOp)]
    assert submits and submits[0].callee.string_value() == "fused_add"
    assert_same_semantics(original, module, "main")


# --- Pipeline: inline then outline (the seed's "Inline body containing pl.at").


@pl.program
class InlineScope:
    @pl.function(type=pl.FunctionType.Inline)
    def body(self, x, out: pl.Out[...]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="kern"):
            t = pl.load(x, [0], [64])
            out = pl.store(pl.exp(t), [0], out)
        return out

    @pl.function
    def main(self, x: Tensor[[64], FP32], out: pl.Out[Tensor[[64], FP32]]) -> Tensor[[64], FP32]:
        r = self.body(x, out)
        return r


@needs_inline
@needs_outline
def test_inline_then_outline_pipeline():
    original, module = after_pass(InlineScope, ["inline-functions", "outline-incore-scopes"])
    f = funcs(module)
    assert set(f) == {"main", "kern"}
    assert f["kern"].func_kind == FuncKind.INCORE
    assert_same_semantics(original, module, "main")
