"""Incore scopes in an opaque function, an inline helper, task ids and dependencies.

The inline helper holds a named `pl.at` scope; `inline-functions` splices it into `main`
and `outline-incore-scopes` turns every scope into an InCore function launched with
`pypto.submit` (the scopes have task ids / dependencies).

    .venv/bin/python examples/scopes.py
    .venv/bin/pypto-opt examples/scopes.py -p inline-functions,outline-incore-scopes
"""

import numpy as np

import pypto_xdsl.language as pl

N = 128
Vec = pl.Tensor[[N], pl.FP32]


@pl.program
class Scopes:
    @pl.function(type=pl.FunctionType.Inline)
    def scale(self, x: Vec, out: pl.Out[Vec], factor: pl.Scalar[pl.FP32]) -> Vec:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_kernel"):
            t = pl.load(x, [0], [N])
            out = pl.store(t * factor, [0], out)
        return out

    @pl.function
    def main(self, a: Vec, b: Vec, out: pl.Out[Vec]) -> Vec:
        tmp = pl.create_tensor([N], pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_kernel") as t_add:
            ta = pl.load(a, [0], [N])
            tb = pl.load(b, [0], [N])
            tmp = pl.store(pl.add(ta, tb), [0], tmp)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t_add]) as t_exp:
            te = pl.load(tmp, [0], [N])
            tmp = pl.store(pl.exp(te), [0], tmp)
        out = self.scale(tmp, out, 0.5)
        return out


PASSES = ["inline-functions", "outline-incore-scopes"]


def check() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    expected = np.exp(a + b) * 0.5
    np.testing.assert_allclose(Scopes.run(a, b, np.zeros(N, np.float32)), expected, rtol=1e-5)
    np.testing.assert_allclose(
        Scopes.run(a, b, np.zeros(N, np.float32), passes=PASSES), expected, rtol=1e-5
    )


if __name__ == "__main__":
    from pypto_xdsl.frontend.program import apply_passes

    Scopes.print()
    module = Scopes.fresh_module()
    apply_passes(module, PASSES)
    print(module)
    check()
    print("scopes: before and after the passes match numpy")
