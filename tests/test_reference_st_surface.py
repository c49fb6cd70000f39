"""What the reference's system tests (tests/st, scripts/run_reference_st.py) need of the `pl`
surface and of PyPTO's module paths: leaky and parametric ReLU, Python lists as shapes,
`fn._cache`, `pypto_core.passes.MemoryPlanner`, `runtime.runner`, `ScalarSpec`."""

from __future__ import annotations

import shutil
import textwrap

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs
from pypto_xdsl.runtime import RunConfig, run

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
TARGETS = ["interpreter", pytest.param("sim", marks=needs_gxx)]

M, N = 16, 32
SLOPE = 2.0  # > 1: leaky ReLU is not max(x, slope * x) there
VALID = [8, 12]  # a Python list used as a shape: frontend values, as literals are


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


@pl.program
class LeakyRelu:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.load(a, [0, 0], [M, N])
        return pl.store(pl.tile.lrelu(t, SLOPE), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        return self.kernel(a, out)


@pl.program
class ParametricRelu:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M, N], pl.FP32],
               out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.load(a, [0, 0], [M, N], valid_shape=VALID)
        slope = pl.load(s, [0, 0], [M, N], valid_shape=VALID)
        tmp = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        return pl.store(pl.tile.prelu(t, slope, tmp), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M, N], pl.FP32],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        return self.kernel(a, s, out)


def signed(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    a[0, :4] = [0.0, -0.0, 1.0, -1.0]
    return a


@pytest.mark.parametrize("target", TARGETS)
def test_lrelu_is_true_leaky_relu_for_any_slope(target):
    a = signed((M, N), 0)
    out = np.zeros_like(a)
    run(LeakyRelu, a, out, config=RunConfig(target=target))
    np.testing.assert_array_equal(out, np.where(a > 0, a, SLOPE * a))


@pytest.mark.parametrize("target", TARGETS)
def test_prelu_on_partial_tiles(target):
    a, s = signed((M, N), 1), signed((M, N), 2)
    out = np.full_like(a, 7.0)
    run(ParametricRelu, a, s, out, config=RunConfig(target=target))
    rows, cols = VALID
    expected = np.where(a > 0, a, s * a)[:rows, :cols]
    np.testing.assert_array_equal(out[:rows, :cols], expected)


def test_lrelu_lowers_to_existing_elementwise_ops():
    text = str(LeakyRelu.module)
    for op in ("pypto.tile.relu", "pypto.tile.minimums", "pypto.tile.muls", "pypto.tile.add"):
        assert op in text
    assert "lrelu" not in text


def test_lrelu_slope_must_be_a_scalar():
    with pytest.raises(ParserError, match=r"'slope' of pl.tile.lrelu must be a scalar, got a tile"):
        build(
            """
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                    t = pl.load(a, [0, 0], [16, 16])
                    return pl.store(pl.tile.lrelu(t, t), [0, 0], out)
            """
        )


def test_prelu_slope_must_match_the_input():
    with pytest.raises(ParserError, match=r"'slope' of pl.tile.prelu must have the type of 'tile'"):
        build(
            """
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                    t = pl.load(a, [0, 0], [16, 16])
                    s = pl.load(a, [0, 0], [16, 8])
                    return pl.store(pl.tile.prelu(t, s, t), [0, 0], out)
            """
        )


def test_jit_cache_is_the_specialisation_cache():
    @pl.jit
    def double(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(a, [0, 0], [16, 16])), [0, 0], out)
        return out

    a = np.ones((16, 16), np.float32)
    out = np.zeros_like(a)
    double(a, out)
    assert len(double._cache) == 1
    double._cache.clear()
    assert double.cache_info().misses == 1
    double(a, out)
    assert double.cache_info().misses == 2
    np.testing.assert_array_equal(out, 2 * a)


def test_reference_module_paths_of_the_test_harness():
    from pypto_xdsl.pypto_core.passes import MemoryPlanner
    from pypto_xdsl.reference_names import ReferenceImportError, ReferenceNameError
    from pypto_xdsl.runtime.runner import RunConfig as RunnerConfig
    from pypto_xdsl.runtime.runner import RunResult
    from pypto_xdsl.runtime.tensor_spec import ScalarSpec

    assert RunnerConfig is RunConfig
    assert {m.name for m in MemoryPlanner} == {"PYPTO", "DSA_RP", "PTOAS"}
    assert "memory_planner" in RunConfig(memory_planner=MemoryPlanner.PTOAS).ignored
    assert str(RunResult(passed=False, test_name="t", error="boom")) == "FAIL: t - boom"
    assert ScalarSpec("n", 3, "int32").value == 3
    with pytest.raises(ValueError, match="ctype 'int32' takes an integer"):
        ScalarSpec("n", 0.5, "int32")
    with pytest.raises(ValueError, match="unsupported ctype 'char'"):
        ScalarSpec("n", 1, "char")
    import pypto_xdsl.pypto_core as core
    import pypto_xdsl.pypto_core.passes as passes

    with pytest.raises(ReferenceNameError, match=r"pypto.pypto_core.passes.PassManager is a PyPTO name"):
        passes.PassManager  # noqa: B018
    with pytest.raises(ReferenceImportError, match=r"pypto.pypto_core.ir is a PyPTO name"):
        from pypto_xdsl.pypto_core import ir  # noqa: F401
    assert core.passes is passes


@pl.program
class BitwiseNot:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.INT16], out: pl.Out[pl.Tensor[[M, N], pl.INT16]]) -> pl.Tensor[[M, N], pl.INT16]:
        t = pl.load(a, [0, 0], [M, N], valid_shape=VALID)
        return pl.store(pl.tile.not_(t), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], pl.INT16], out: pl.Out[pl.Tensor[[M, N], pl.INT16]]) -> pl.Tensor[[M, N], pl.INT16]:
        return self.kernel(a, out)


@pytest.mark.parametrize("target", TARGETS)
def test_not_on_signed_integers_wraps_like_twos_complement(target):
    a = np.random.default_rng(3).integers(-30000, 30000, (M, N)).astype(np.int16)
    a[0, :3] = [0, np.iinfo(np.int16).min, np.iinfo(np.int16).max]
    out = np.zeros_like(a)
    run(BitwiseNot, a, out, config=RunConfig(target=target))
    rows, cols = VALID
    np.testing.assert_array_equal(out[:rows, :cols], ~a[:rows, :cols])


def test_not_rejects_unsigned_and_float_tiles():
    for dtype in ("pl.UINT16", "pl.FP32"):
        with pytest.raises(ParserError, match=r"pl.tile.not_ takes a signed integer tile \(INT8, INT16, INT32, INT64\)"):
            build(
                f"""
                @pl.program
                class P:
                    @pl.function(type=pl.FunctionType.InCore)
                    def k(self, a: pl.Tensor[[16, 16], {dtype}], out: pl.Out[pl.Tensor[[16, 16], {dtype}]]) -> pl.Tensor[[16, 16], {dtype}]:
                        t = pl.load(a, [0, 0], [16, 16])
                        return pl.store(pl.tile.not_(t), [0, 0], out)
                """
            )


@pl.program
class RowAndColArgmax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.FP32], rows: pl.Out[pl.Tensor[[M, 1], pl.INT32]],
               cols: pl.Out[pl.Tensor[[1, N], pl.INT32]]) -> tuple[pl.Tensor[[M, 1], pl.INT32], pl.Tensor[[1, N], pl.INT32]]:
        t = pl.load(a, [0, 0], [M, N], valid_shape=VALID)
        tmp = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        rows = pl.store(pl.tile.row_argmax(t, tmp), [0, 0], rows)
        cols = pl.store(pl.tile.col_argmin(t, tmp), [0, 0], cols)
        return rows, cols

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], pl.FP32], rows: pl.Out[pl.Tensor[[M, 1], pl.INT32]],
             cols: pl.Out[pl.Tensor[[1, N], pl.INT32]]) -> tuple[pl.Tensor[[M, 1], pl.INT32], pl.Tensor[[1, N], pl.INT32]]:
        rows, cols = self.kernel(a, rows, cols)
        return rows, cols


def test_arg_reductions_index_the_valid_block_first_on_ties():
    a = np.round(signed((M, N), 4) * 2).astype(np.float32)  # small integers: many ties
    a[:, VALID[1]:] = 100.0  # outside the valid columns: never the maximum
    rows, cols = np.full((M, 1), -1, np.int32), np.full((1, N), -1, np.int32)
    run(RowAndColArgmax, a, rows, cols, config=RunConfig(target="interpreter"))
    r, c = VALID
    np.testing.assert_array_equal(rows[:r, 0], np.argmax(a[:r, :c], axis=1))
    np.testing.assert_array_equal(cols[0, :c], np.argmin(a[:r, :c], axis=0))
    assert (rows[r:] == -1).all() and (cols[0, c:] == -1).all()  # the store writes the valid part only


@needs_gxx
def test_arg_reductions_are_refused_by_name_on_the_sim_target():
    a = signed((M, N), 5)
    rows, cols = np.zeros((M, 1), np.int32), np.zeros((1, N), np.int32)
    with pytest.raises(ParserError, match=r"cannot lower 'pypto.tile.row_argmax' in @kernel: it reads the partial tile"):
        run(RowAndColArgmax, a, rows, cols, config=RunConfig(target="sim"))


def test_arg_reductions_take_float_tiles():
    with pytest.raises(ParserError, match=r"operand 'input' must be a float tile, got !pypto.tile<\[16, 16\], i32, vec>"):
        build(
            """
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a: pl.Tensor[[16, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 1], pl.INT32]]) -> pl.Tensor[[16, 1], pl.INT32]:
                    t = pl.load(a, [0, 0], [16, 16])
                    return pl.store(pl.tile.row_argmax(t), [0, 0], out)
            """
        )


def test_top_level_reference_names():
    import pypto_xdsl
    from pypto_xdsl.reference_names import ReferenceImportError

    with pytest.raises(ReferenceImportError, match=r"pypto.passes is a PyPTO name that pypto-xdsl does not provide"):
        from pypto_xdsl import passes  # noqa: F401
    assert pypto_xdsl.pypto_core.passes.MemoryPlanner.PYPTO.name == "PYPTO"
