"""Tensor windows by subscript, in a `pl.parallel` loop.

`x[b * BLOCK:(b + 1) * BLOCK]` reads a window of rows (`pypto.tensor.slice`); assigning to
`out[b * BLOCK:(b + 1) * BLOCK, :]` writes one (`pypto.tensor.assemble`) and rebinds `out`.
The window extents are compile-time constants (`(b + 1) * BLOCK - b * BLOCK`), the offsets
are `index` values. `pl.parallel` lowers like `pl.range`, to an `scf.for` tagged
`{pypto.loop_kind = "parallel"}`.

    .venv/bin/python examples/windows.py          # prints the IR and checks it against numpy
    .venv/bin/pypto-opt examples/windows.py -p pypto-default
    .venv/bin/pypto-compile examples/windows.py -o out/ --sim
"""

import numpy as np

import pypto_xdsl.language as pl

ROWS, COLS, BLOCK = 64, 32, 16
Full = pl.Tensor[[ROWS, COLS], pl.FP32]
Rows = pl.Tensor[[BLOCK, COLS], pl.FP32]


@pl.program
class Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_exp(self, x: Rows, out: pl.Out[Rows], factor: pl.Scalar[pl.FP32]) -> Rows:
        t = pl.load(x, [0, 0], [BLOCK, COLS])
        out = pl.store(pl.exp(t) * factor, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: Full, out: pl.Out[Full]) -> Full:
        for b in pl.parallel(ROWS // BLOCK):
            rows = out[b * BLOCK:(b + 1) * BLOCK, :]
            out[b * BLOCK:(b + 1) * BLOCK, :] = self.scale_exp(x[b * BLOCK:(b + 1) * BLOCK], rows, 2.0)
        return out


def check() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    expected = np.exp(x) * 2.0
    np.testing.assert_allclose(Windows.run(x, np.zeros_like(x)), expected, rtol=1e-5)
    np.testing.assert_allclose(
        Windows.run(x, np.zeros_like(x), passes=["pypto-default"]), expected, rtol=1e-5
    )


if __name__ == "__main__":
    Windows.print()
    check()
    print("windows: matches numpy")
