"""GELU in its tanh form, at tensor level, on an unaligned [50, 96] input.

    gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))

`pl.tanh` is not in PyPTO's catalogue: pypto-xdsl adds it (Ascend C has `Tanh`).

    .venv/bin/python examples/kernels/gelu_tanh.py
"""

import math

import numpy as np

import pypto_xdsl.language as pl

ROWS, COLS = 50, 96
K = math.sqrt(2.0 / math.pi)


@pl.program
class GeluTanh:
    @pl.function
    def main(
        self, x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="gelu"):
            inner = pl.add(x, pl.mul(pl.mul(pl.mul(x, x), x), 0.044715))
            t = pl.tanh(pl.mul(inner, K))
            y = pl.mul(pl.mul(x, 0.5), pl.add(t, 1.0))
            out = pl.assemble(out, y, [0, 0])
        return out


def reference(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(K * (x + 0.044715 * x**3)))


def check() -> None:
    x = np.random.default_rng(3).standard_normal((ROWS, COLS)).astype(np.float32)
    for passes in ((), ("pypto-default",)):
        result = GeluTanh.run(x, np.zeros_like(x), passes=passes)
        np.testing.assert_allclose(result, reference(x), rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    GeluTanh.print()
    check()
    print("gelu (tanh form): matches numpy (before and after pypto-default)")
