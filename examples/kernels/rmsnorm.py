"""RMSNorm with a weight row, at tensor level: convert-tensor-to-tile tiles and fuses it.

    y = x * rsqrt(mean(x * x) + eps) * w        (per row; w: [1, H])

The kernel is written on whole tensors inside a `pl.at` scope; `pypto-default` outlines the
scope and converts it into one loop over row blocks (40 rows: blocks with a tail), the
weight row loaded once before the loop.

    .venv/bin/python examples/kernels/rmsnorm.py
    .venv/bin/pypto-opt examples/kernels/rmsnorm.py -p pypto-default
"""

import numpy as np

import pypto_xdsl.language as pl

ROWS, HIDDEN = 40, 256
EPS = 1e-6


@pl.program
class RmsNorm:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
        w: pl.Tensor[[1, HIDDEN], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
    ) -> pl.Tensor[[ROWS, HIDDEN], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rmsnorm"):
            mean_sq = pl.mul(pl.row_sum(pl.mul(x, x)), 1.0 / HIDDEN)
            inv_rms = pl.rsqrt(pl.add(mean_sq, EPS))
            out = pl.assemble(out, pl.col_expand_mul(pl.row_expand_mul(x, inv_rms), w), [0, 0])
        return out


def reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + EPS) * w


def check() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((ROWS, HIDDEN)).astype(np.float32)
    w = rng.standard_normal((1, HIDDEN)).astype(np.float32)
    for passes in ((), ("pypto-default",)):
        result = RmsNorm.run(x, w, np.zeros_like(x), passes=passes)
        np.testing.assert_allclose(result, reference(x, w), rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
    RmsNorm.print()
    check()
    print("rmsnorm: matches numpy (before and after pypto-default)")
