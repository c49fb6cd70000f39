"""Dynamic dimensions above the kernel lowering: declaring a bound (`pl.dynamic("N", max=...)`,
`pypto.dim_bounds`), deriving bounds through call sites, and the jit runtime running one
specialisation at many sizes, with the symbol checks at the call (a mismatch names both
parameters; an extent above its bound is refused)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import pypto_xdsl.language as pl
from pypto_xdsl.analysis.dim_bounds import DimBounds, parameter_dim
from pypto_xdsl.dialects.program import FuncOp, dim_bounds
from pypto_xdsl.tools.pypto_compile import parse_program

N = pl.dynamic("N", max=2048)
R = pl.dynamic("R")
COLS = 128


def funcs(lowered) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in lowered.module.walk() if isinstance(f, FuncOp)}


def rand(*shape, dtype=np.float32, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --------------------------------------------------------------------------- declaring bounds


def test_pl_dynamic_takes_an_optional_positive_bound():
    assert N.name == "N" and N.max == 2048 and repr(N) == "pl.dynamic('N', max=2048)"
    assert pl.dynamic("M").max is None
    for bad in (0, -3, 2.5, True, "64"):
        with pytest.raises(ValueError, match=r"pl.dynamic\('M', max=...\) takes a positive integer bound"):
            pl.dynamic("M", max=bad)


def test_annotation_bounds_become_dim_bounds_on_the_function():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[N, COLS], pl.FP32], out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]) -> pl.Tensor[[N, COLS], pl.FP32]:
            out = pl.assemble(out, pl.exp(x), [0, 0])
            return out

    (k,) = [f for f in P.module.walk() if isinstance(f, FuncOp)]
    assert dim_bounds(k) == {"N": 2048}
    assert "attributes {pypto.dim_bounds = {N = 2048 : i64}}" in str(P)


def test_one_symbol_with_two_bounds_is_a_located_error():
    with pytest.raises(pl.ParserError, match="the dynamic dimension N is bounded by 2048 in 'x' and by 64 in the annotation of 'y'"):
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[N, COLS], pl.FP32], y: pl.Tensor[[pl.dynamic("N", max=64), COLS], pl.FP32]):
                return


def test_the_dim_bounds_attribute_is_verified():
    ok = "pypto.func incore @k(%x: !pypto.tensor<[N, 8], f32>) attributes {pypto.dim_bounds = {N = 64 : i64}} {\n  pypto.return\n}"
    (k,) = [f for f in parse_program(ok).walk() if isinstance(f, FuncOp)]
    assert dim_bounds(k) == {"N": 64}
    with pytest.raises(VerifyException, match="'pypto.dim_bounds' bounds M, which is no dimension of the signature of @k"):
        parse_program(ok.replace("{N = 64", "{M = 64")).verify()
    with pytest.raises(VerifyException, match="the bound of N must be a positive integer, got 0"):
        parse_program(ok.replace("N = 64", "N = 0")).verify()


def test_bounds_are_derived_through_call_sites():
    text = """
pypto.func incore @k(%x: !pypto.tensor<[A, B], f32>) {
  pypto.return
}
pypto.func incore @k2(%x: !pypto.tensor<[A, 8], f32>) {
  pypto.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[N, 8], f32>, %y: !pypto.tensor<[16, M], f32>) attributes {pypto.dim_bounds = {N = 100 : i64}} {
  pypto.call @k(%x) : (!pypto.tensor<[N, 8], f32>) -> ()
  pypto.call @k(%y) : (!pypto.tensor<[16, M], f32>) -> ()
  pypto.call @k2(%x) : (!pypto.tensor<[N, 8], f32>) -> ()
  pypto.return
}
"""
    module = parse_program(text)
    f = {op.sym_name.data: op for op in module.walk() if isinstance(op, FuncOp)}
    bounds = DimBounds(module)
    assert bounds.table(f["k"]) == {"A": 100, "B": None}  # the largest site; M is unbounded
    assert bounds.table(f["k2"]) == {"A": 100}
    assert DimBounds(module, default=512).of(f["k"], "B") == 512
    assert parameter_dim(f["k"], "B") == (f["k"].body.blocks[0].args[0], 1)


# --------------------------------------------------------------------------- the jit runtime


@pl.jit.incore
def softmax_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    e = pl.exp(pl.row_expand_sub(x, pl.row_max(x)))
    out = pl.assemble(out, pl.row_expand_div(e, pl.row_sum(e)), [0, 0])
    return out


@pl.jit
def softmax(x: pl.Tensor[[N, COLS], pl.FP32], out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]):
    out = softmax_kernel(x, out)
    return out


@pl.jit.incore
def matmul_kernel(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pl.assemble(c, pl.matmul(a, b), [0, 0])
    return c


@pl.jit
def matmul(a: pl.Tensor[[N, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], c: pl.Out[pl.Tensor[[N, 32], pl.FP32]]):
    c = matmul_kernel(a, b, c)
    return c


@pl.jit
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    x.bind_dynamic(0, R)
    out.bind_dynamic(0, R)
    out = scale_kernel(x, out)
    return out


@pl.jit.incore
def scale_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pl.assemble(out, pl.mul(x, 3.0), [0, 0])
    return out


def test_one_specialisation_serves_every_size():
    softmax.cache_clear()
    for n in (0, 1, 17, 64, 1000):
        x = rand(n, COLS, seed=n)
        out = np.full_like(x, np.nan)
        softmax(x, out)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    info = softmax.cache_info()
    assert (info.misses, info.hits) == (1, 4)
    lowered = funcs(softmax.lower(rand(3, COLS), np.zeros((3, COLS), np.float32)))
    assert dim_bounds(lowered["softmax"]) == {"N": 2048}
    kernel = lowered["softmax_kernel"]
    assert any(op.name == "pypto.tensor.dim" for op in kernel.walk())  # a run-time row count
    assert not any(op.name.startswith("pypto.tensor.row") for op in kernel.walk())  # tiled


def test_a_dynamic_matmul_m_through_the_cube_path():
    matmul.cache_clear()
    b = rand(64, 32, dtype=np.float16, seed=9)
    for n in (0, 1, 17, 64, 1000):
        a = rand(n, 64, dtype=np.float16, seed=n)
        c = np.full((n, 32), np.nan, np.float32)
        matmul(a, b, c)
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    assert matmul.cache_info().misses == 1


def test_bind_dynamic_sizes_share_one_specialisation():
    scale.cache_clear()
    for n in (0, 5, 300):
        x = rand(n, 16)
        out = np.zeros_like(x)
        scale(x, out)
        np.testing.assert_allclose(out, 3 * x, rtol=1e-6)
    assert scale.cache_info().misses == 1


def test_a_mismatch_of_a_shared_symbol_names_both_parameters():
    with pytest.raises(TypeError, match=(
        r"softmax\(\): the dynamic dimension N is 4 in dimension 0 of 'x' but 5 in dimension 0 of 'out'; "
        r"parameters sharing a dimension must agree"
    )):
        softmax(rand(4, COLS), np.zeros((5, COLS), np.float32))


def test_an_extent_above_the_declared_bound_is_refused():
    with pytest.raises(TypeError, match=r"dimension 0 of 'x' is 2049, above the bound of its dynamic dimension \(pl.dynamic\('N', max=2048\)\)"):
        softmax(np.zeros((2049, COLS), np.float32), np.zeros((2049, COLS), np.float32))
