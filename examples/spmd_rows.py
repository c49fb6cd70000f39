"""An SPMD launch: `for i in pl.spmd(4)` runs its body on 4 cores, each on its own rows.

The body is tensor-level: each core slices its 16-row share of `a` by its block index,
scales `exp` of it and writes the rows of `o`. `outline-incore-scopes` makes the body the
kernel `@rows` launched with `pypto.block_dim = 4`; `convert-tensor-to-tile` tiles each
core's share (it does not split rows a body already picks by block index).

    .venv/bin/python examples/spmd_rows.py
    .venv/bin/pypto-opt examples/spmd_rows.py -p pypto-default
    .venv/bin/pypto-compile examples/spmd_rows.py -o out/ --sim
"""

import numpy as np

import pypto_xdsl.language as pl

CORES, ROWS, COLS = 4, 16, 96
Mat = pl.Tensor[[CORES * ROWS, COLS], pl.FP32]


@pl.program
class SpmdRows:
    @pl.function
    def main(self, k: pl.Scalar[pl.FP32], a: Mat, o: pl.Out[Mat]) -> Mat:
        for i in pl.spmd(CORES, name_hint="rows"):
            share = a[i * ROWS : (i + 1) * ROWS]
            o[i * ROWS : (i + 1) * ROWS] = pl.exp(share) * k
        return o


def check() -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((CORES * ROWS, COLS)).astype(np.float32)
    expected = np.exp(a) * np.float32(0.25)
    for passes in (None, ["pypto-default"]):
        got = SpmdRows.run(0.25, a, np.zeros_like(a), passes=passes)
        np.testing.assert_allclose(got, expected, rtol=1e-6)


if __name__ == "__main__":
    from pypto_xdsl.frontend.program import apply_passes

    SpmdRows.print()
    module = SpmdRows.fresh_module()
    apply_passes(module, ["pypto-default"])
    print(module)
    check()
    print("spmd_rows: before and after the default pipeline match numpy")
