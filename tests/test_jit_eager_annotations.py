"""Annotations Python evaluates when a function is defined (no `from __future__ import
annotations` in this file): a factory's locals in them, as the reference's paged-attention
programs write them."""

import numpy as np

import pypto_xdsl.language as pl


def build(batch: int, heads: int, dim: int):
    query_rows = batch * heads  # read only by the annotations

    @pl.function(type=pl.FunctionType.InCore)
    def scale_kernel(
        q: pl.Tensor[[query_rows, dim], pl.FP32], out: pl.Out[pl.Tensor[[query_rows, dim], pl.FP32]]
    ) -> pl.Tensor[[query_rows, dim], pl.FP32]:
        out = pl.store(pl.mul(pl.load(q, [0, 0], [query_rows, dim]), 0.5), [0, 0], out)
        return out

    @pl.program
    class Scale:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, q: pl.Tensor[[query_rows, dim], pl.FP32], out: pl.Out[pl.Tensor[[query_rows, dim], pl.FP32]]
        ) -> pl.Tensor[[query_rows, dim], pl.FP32]:
            out = scale_kernel(q, out)  # a @pl.function of the factory, called by name
            return out

    @pl.jit
    def scale(q: pl.Tensor[[query_rows, dim], pl.FP32], out: pl.Out[pl.Tensor]):
        out = scale_kernel(q, out)
        return out

    return Scale, scale


def test_factory_locals_in_evaluated_annotations():
    program, jit_fn = build(2, 4, 16)
    q = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    out = np.zeros_like(q)
    program.run(q, out)
    np.testing.assert_allclose(out, 0.5 * q)
    out2 = np.zeros_like(q)
    assert jit_fn(q, out2) is out2
    np.testing.assert_allclose(out2, 0.5 * q)
