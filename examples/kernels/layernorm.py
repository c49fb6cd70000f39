"""Layernorm with gamma/beta rows, tile by tile: an InCore kernel over 16-row blocks.

    y = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta     (per row; gamma, beta: [1, H])

The row statistics use PyPTO's scratch-tile reductions (`pl.row_sum(x, tmp)`), the
normalisation the row broadcasts, and gamma/beta the column broadcasts
(`pl.col_expand_mul`, `pl.col_expand_add`).

    .venv/bin/python examples/kernels/layernorm.py
"""

import numpy as np

import pypto_xdsl.language as pl

ROWS, HIDDEN, BLOCK = 64, 96, 16
EPS = 1e-5


@pl.program
class LayerNorm:
    @pl.function(type=pl.FunctionType.InCore)
    def layernorm_block(
        self,
        x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
        gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
        beta: pl.Tensor[[1, HIDDEN], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[ROWS, HIDDEN], pl.FP32]:
        t = pl.load(x, [row, 0], [BLOCK, HIDDEN])
        g = pl.load(gamma, [0, 0], [1, HIDDEN])
        b = pl.load(beta, [0, 0], [1, HIDDEN])
        tmp = pl.create_tile([BLOCK, HIDDEN], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        mean = pl.mul(pl.row_sum(t, tmp), 1.0 / HIDDEN)
        centered = pl.row_expand_sub(t, mean)
        var = pl.mul(pl.row_sum(pl.mul(centered, centered), tmp), 1.0 / HIDDEN)
        rstd = pl.rsqrt(pl.add(var, EPS))
        normed = pl.row_expand_mul(centered, rstd)
        y = pl.col_expand_add(pl.col_expand_mul(normed, g), b)
        out = pl.store(y, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
        gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
        beta: pl.Tensor[[1, HIDDEN], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
    ) -> pl.Tensor[[ROWS, HIDDEN], pl.FP32]:
        for b in pl.range(ROWS // BLOCK):
            out = self.layernorm_block(x, gamma, beta, out, b * BLOCK)
        return out


def reference(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * gamma + beta


def inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((ROWS, HIDDEN)).astype(np.float32)
    gamma = rng.standard_normal((1, HIDDEN)).astype(np.float32)
    beta = rng.standard_normal((1, HIDDEN)).astype(np.float32)
    return x, gamma, beta, np.zeros((ROWS, HIDDEN), np.float32)


def check() -> None:
    x, gamma, beta, out = inputs()
    result = LayerNorm.run(x, gamma, beta, out)
    np.testing.assert_allclose(result, reference(x, gamma, beta), rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
    LayerNorm.print()
    check()
    print("layernorm: matches numpy")
