"""Row softmax, block by block: an InCore kernel called from an orchestration loop.

    .venv/bin/python examples/softmax.py        # prints the IR and checks it against numpy
    .venv/bin/pypto-opt examples/softmax.py     # the same IR through pypto-opt
"""

import numpy as np

import pypto_xdsl.language as pl

ROWS, COLS, BLOCK = 64, 64, 16


@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax_block(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        row: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [row, 0], [BLOCK, COLS])
        mx = pl.row_max(t)
        t = pl.exp(pl.row_expand_sub(t, mx))
        total = pl.row_sum(t)
        t = pl.row_expand_div(t, total)
        out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for b in pl.range(ROWS // BLOCK):
            out = self.softmax_block(x, out, b * BLOCK)
        return out


def check() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    out = np.zeros_like(x)
    result = Softmax.run(x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(out, result)  # written through the out parameter


if __name__ == "__main__":
    Softmax.print()
    check()
    print("softmax: matches numpy")
