"""A bias add after a matmul: the product on the cube, the bias row added on the vector unit.

    y = a @ b + bias        (a: [64, 32] f16, b: [32, 48] f16, bias: [1, 48] f32, y: f32)

Two scopes: `pypto-default` turns the first into blocked cube code (f16 operands, f32
accumulator) and the second into a vector loop whose bias row is a column broadcast
(`pl.col_expand_add`), loaded once.

    .venv/bin/python examples/kernels/matmul_bias.py
"""

import numpy as np

import pypto_xdsl.language as pl

M, K, N = 64, 32, 48


@pl.program
class MatmulBias:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        product = pl.create_tensor([M, N], pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="matmul"):
            product = pl.assemble(product, pl.matmul(a, b, out_dtype=pl.FP32), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias_add"):
            out = pl.assemble(out, pl.col_expand_add(product, bias), [0, 0])
        return out


def reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) @ b.astype(np.float32) + bias


def check() -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal((1, N)).astype(np.float32)
    for passes in ((), ("pypto-default",)):
        result = MatmulBias.run(a, b, bias, np.zeros((M, N), np.float32), passes=passes)
        np.testing.assert_allclose(result, reference(a, b, bias), rtol=1e-5, atol=1e-4)


if __name__ == "__main__":
    MatmulBias.print()
    check()
    print("matmul + bias: matches numpy (before and after pypto-default)")
