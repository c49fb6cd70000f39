"""Row softmax as PyPTO's examples write it: a @pl.jit entry called on numpy arrays.

    .venv/bin/python examples/jit_softmax.py    # runs it, checks it against numpy
    .venv/bin/pypto-opt examples/jit_softmax.py -p pypto-default
    .venv/bin/pypto-compile examples/jit_softmax.py -o out/ --sim

The entry's annotation fixes the shape, so the tools need no --shape; `softmax_block` takes its
parameter types from the call (bare `pl.Tensor`), and is found as a dependency from the call.
"""

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.runtime import RunConfig

ROWS, COLS, BLOCK = 64, 64, 16


@pl.jit.incore
def softmax_block(x: pl.Tensor, out: pl.Out[pl.Tensor], row: pl.INDEX):
    t = pl.load(x, [row, 0], [BLOCK, COLS])
    t = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))
    out = pl.store(pl.row_expand_div(t, pl.row_sum(t)), [row, 0], out)
    return out


@pl.jit
def softmax(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.range(ROWS // BLOCK):
        out = softmax_block(x, out, b * BLOCK)
    return out


def check(config: RunConfig | None = None) -> None:
    x = np.random.default_rng(0).standard_normal((ROWS, COLS)).astype(np.float32)
    out = np.zeros_like(x)
    assert softmax(x, out, config=config or RunConfig()) is out  # written in place
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


if __name__ == "__main__":
    print(softmax.lower(np.zeros((ROWS, COLS), np.float32), np.zeros((ROWS, COLS), np.float32)))
    check()
    print("jit_softmax: matches numpy")
