"""PyPTO's cube surface on `mat` tiles: `pl.tile.matmul*` with L1 operands (the frontend
moves them to L0 / the bias table), the GEMV family (`pl.tile.gemv`, `gemv_acc`,
`gemv_bias`), `pl.load(..., clamp=True)`, and the valid-shape rule of the cube ops (the
lhs's valid K is contracted; the product is valid over [lhs valid M, rhs valid N]), run by
the interpreter against numpy."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs


def rnd(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


GEMV = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 128], pl.FP32], b: pl.Tensor[[128, 30], pl.FP32],
               bias: pl.Tensor[[1, 30], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 30], pl.FP32]]) -> pl.Tensor[[1, 30], pl.FP32]:
        ta = pl.load(a, [0, 0], [1, 128], valid_shape=[1, {vk}], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [128, 32], valid_shape=[{vk}, 30], target_memory=pl.MemorySpace.Mat,
                     clamp=True)
        tbias = pl.load(bias, [0, 0], [1, 32], valid_shape=[1, 30], target_memory=pl.MemorySpace.Mat,
                        clamp=True)
        out = pl.store({call}, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("vk", [128, 64])
@pytest.mark.parametrize("with_bias", [False, True])
def test_gemv_on_mat_tiles_with_clamped_tails(vk, with_bias):
    call = "pl.tile.gemv_bias(ta, tb, tbias, acc_phase='final')" if with_bias else "pl.tile.gemv(ta, tb)"
    prog = build(GEMV.format(vk=vk, call=call))
    a, b, bias = rnd((1, 128), 1), rnd((128, 30), 2), rnd((1, 30), 3)
    out = np.zeros((1, 30), np.float32)
    prog.run(a, b, bias, out)
    expected = a[:, :vk] @ b[:vk, :] + (bias if with_bias else 0)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    text = str(prog.module)
    # the clamped rhs window [128, 32] reads the 30 columns the tensor has
    assert "pypto.tile.move %tb : !pypto.tile<[128, 32], f32, mat> -> !pypto.tile<[128, 32], f32, right>" in text
    assert "valid[" in text


def test_gemv_acc_accumulates_a_second_k_chunk_and_int8_gives_i32():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[1, 64], pl.INT8], b: pl.Tensor[[64, 16], pl.INT8],
                   out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
            a0 = pl.load(a, [0, 0], [1, 32], target_memory=pl.MemorySpace.Mat)
            b0 = pl.load(b, [0, 0], [32, 16], target_memory=pl.MemorySpace.Mat)
            acc = pl.tile.gemv(a0, b0, acc_phase="partial")
            a1 = pl.load(a, [0, 32], [1, 32], target_memory=pl.MemorySpace.Mat)
            b1 = pl.load(b, [32, 0], [32, 16], target_memory=pl.MemorySpace.Mat)
            acc = pl.tile.gemv_acc(acc, a1, b1, acc_phase="final")
            out = pl.store(acc, [0, 0], out)
            return out
    """)
    rng = np.random.default_rng(4)
    a, b = rng.integers(-4, 5, (1, 64)).astype(np.int8), rng.integers(-4, 5, (64, 16)).astype(np.int8)
    out = np.zeros((1, 16), np.int32)
    prog.run(a, b, out)
    np.testing.assert_array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


def test_matmul_bias_on_mat_tiles_with_narrowed_rows_and_contraction():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
                   bias: pl.Tensor[[1, 32], pl.FP32],
                   out: pl.InOut[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
            ta = pl.load(a, [0, 0], [16, 64], valid_shape=[8, 30], target_memory=pl.MemorySpace.Mat)
            tb = pl.load(b, [0, 0], [64, 32], valid_shape=[30, 32], target_memory=pl.MemorySpace.Mat)
            tc = pl.load(bias, [0, 0], [1, 32], target_memory=pl.MemorySpace.Mat)
            out = pl.store(pl.tile.matmul_bias(ta, tb, tc), [0, 0], out)
            return out
    """)
    a, b, bias = rnd((16, 64), 5), rnd((64, 32), 6), rnd((1, 32), 7)
    out = np.zeros((16, 32), np.float32)
    prog.run(a, b, bias, out)
    expected = np.zeros((16, 32), np.float32)
    expected[:8] = a[:8, :30] @ b[:30, :] + bias  # only the valid rows are stored
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    text = str(prog.module)
    assert "-> !pypto.tile<[16, 64], f32, left>" in text and "-> !pypto.tile<[1, 32], f32, bias>" in text


def test_clamp_with_a_run_time_offset_cuts_the_window_at_the_tensor_edge():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[40, 8], pl.FP32], off: pl.Scalar[pl.INDEX],
                   out: pl.InOut[pl.Tensor[[40, 8], pl.FP32]]) -> pl.Tensor[[40, 8], pl.FP32]:
            t = pl.load(x, [off, 0], [16, 8], clamp=True)
            out = pl.store(pl.add(t, t), [off, 0], out)
            return out
    """)
    x = rnd((40, 8), 8)
    out = np.zeros_like(x)
    prog.run(x, 32, out)  # rows 32..47 asked, 32..39 exist
    expected = np.zeros_like(x)
    expected[32:] = 2 * x[32:]
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    text = str(prog.module)
    assert "pypto.tensor.dim" not in text and "arith.minsi" in text and "arith.maxsi" in text


def test_a_window_inside_the_tensor_is_a_plain_load_with_clamp():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 8], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
            t = pl.load(x, [0, 0], [16, 8], clamp=True)
            out = pl.store(t, [0, 0], out)
            return out
    """)
    assert "valid[" not in str(prog.module)


GEMV_ERRORS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 64], pl.{dt}], b: pl.Tensor[[64, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [{rows}, 64], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [64, 16], target_memory=pl.MemorySpace.Mat)
        out = pl.store(pl.tile.gemv(ta, tb{extra}), [0, 0], out)
        return out
"""


@pytest.mark.parametrize(
    "dt,rows,extra,message",
    [
        ("FP32", 2, "", r"pl.tile.gemv: 'lhs' must be one row \[1, K\], got !pypto.tile<\[2, 64\], f32, mat>"),
        (
            "FP32",
            1,
            ", acc_phase='last'",
            r"'acc_phase' of pl.tile.gemv must be one of 'unspecified', 'partial', 'final'",
        ),
        ("FP16", 1, "", r"pl.tile.gemv: 'lhs' and 'rhs' must have one element type, got f16 and f32"),
    ],
)
def test_gemv_errors_are_located(dt, rows, extra, message):
    with pytest.raises(ParserError, match=message) as info:
        build(GEMV_ERRORS.format(dt=dt, rows=rows, extra=extra))
    assert "<test>:" in str(info.value)


def test_clamp_must_be_a_bool_literal():
    with pytest.raises(ParserError, match="'clamp' of pl.load must be True or False"):
        build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[16, 8], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
                t = pl.load(x, [0, 0], [16, 8], clamp=1.5)
                out = pl.store(t, [0, 0], out)
                return out
        """)


def test_a_full_tile_larger_than_its_destination_is_still_refused():
    with pytest.raises(ParserError, match=r"store: window \[1, 32\] exceeds !pypto.tensor<\[1, 30\], f32>"):
        build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[1, 32], pl.FP32],
                       out: pl.Out[pl.Tensor[[1, 30], pl.FP32]]) -> pl.Tensor[[1, 30], pl.FP32]:
                t = pl.load(x, [0, 0], [1, 32])
                out = pl.store(t, [0, 0], out)
                return out
        """)


def test_rhs_valid_k_must_cover_the_lhs_valid_k_at_run_time():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
            ta = pl.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
            tb = pl.load(b, [0, 0], [64, 32], valid_shape=[30, 32], target_memory=pl.MemorySpace.Mat)
            out = pl.store(pl.tile.matmul(ta, tb), [0, 0], out)
            return out
    """)
    with pytest.raises(
        Exception, match=r"the rhs's valid K \(30 rows of \[30, 32\]\) does not cover the lhs's valid K \(64"
    ):
        prog.run(rnd((16, 64)), rnd((64, 32)), np.zeros((16, 32), np.float32))


def test_clamp_of_a_run_time_extent_reads_the_tensor_dim():
    prog = build("""
    M = pl.dynamic("M")

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[M, 8], pl.FP32],
                   out: pl.InOut[pl.Tensor[[M, 8], pl.FP32]]) -> pl.Tensor[[M, 8], pl.FP32]:
            t = pl.load(x, [16, 0], [16, 8], clamp=True)
            out = pl.store(pl.add(t, t), [16, 0], out)
            return out
    """)
    x = rnd((24, 8), 9)
    out = np.zeros_like(x)
    prog.run(x, out)
    expected = np.zeros_like(x)
    expected[16:] = 2 * x[16:]
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert "pypto.tensor.dim" in str(prog.module)


# --------------------------------------------------------------------------- div(high_precision=)

DIV = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a = pl.load(x, [0, 0], [16, 64])
        b = pl.load(y, [0, 0], [16, 64])
        out = pl.store({call}, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("call", ["pl.tile.div(a, b, high_precision=True)", "pl.div(a, b, high_precision=False)"])
def test_div_takes_high_precision_and_is_the_correctly_rounded_quotient(call):
    prog = build(DIV.format(call=call))
    x, y = rnd((16, 64), 10), rnd((16, 64), 11) + 3
    out = np.zeros_like(x)
    prog.run(x, y, out)
    np.testing.assert_array_equal(out, x / y)
    assert "pypto.tile.div" in str(prog.module)


@pytest.mark.parametrize(
    "call,message",
    [
        ("pl.tile.div(a, 2.0, high_precision=True)", "high_precision=True needs a tile or tensor divisor"),
        ("pl.tile.div(a, b, high_precision=1)", "'high_precision' of pl.tile.div must be True or False"),
        ("pl.tile.add(a, b, high_precision=True)", "pl.tile.add has no parameter 'high_precision'"),
    ],
)
def test_div_high_precision_errors(call, message):
    with pytest.raises(ParserError, match=message):
        build(DIV.format(call=call))
