"""A linear layer with a GELU in one scope: y = gelu(x @ w + bias) (tanh form), the product on
the cube, the bias and the GELU on the vector cores.

    x: [M, K] f16/bf16, w: [K, N] f16/bf16, bias: [1, N] f32, y: [M, N] f32

Written like fused_linear.py (tiles of x and w loaded into L1, moved to L0A/L0B, a `matmul`
for the first K block and `matmul_acc` for the others), but its epilogue is a real vector
computation: the Fixpipe can add a bias row and rectify, not evaluate a tanh, so
fold-bias-epilogue leaves it alone and `expand-mixed-kernel` (in `pypto-default`) splits the
scope into an AIC kernel (loads, moves, matmuls, a push of each accumulator) and an AIV kernel
(a pop, the bias and the GELU, the store), launched together as one group.

    .venv/bin/python examples/mixed/linear_gelu.py
"""

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter.values import bf16_round

BF16 = "bf16"
GELU_C = 0.7978845608028654  # sqrt(2 / pi)


def build(M: int = 128, K: int = 256, N: int = 128, dtype=pl.FP16, BM: int = 64, BN: int = 64, BK: int = 64):
    """The program for one shape and input dtype (blocks of BM x BN, K in blocks of BK)."""

    @pl.program
    class LinearGelu:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[M, K], dtype],
            w: pl.Tensor[[K, N], dtype],
            bias: pl.Tensor[[1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        ) -> pl.Tensor[[M, N], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear_gelu"):
                for m in pl.range(M // BM):
                    for n in pl.range(N // BN):
                        a = pl.load(x, [m * BM, 0], [BM, BK], target_memory=pl.Mem.Mat)
                        b = pl.load(w, [0, n * BN], [BK, BN], target_memory=pl.Mem.Mat)
                        acc = pl.matmul(pl.move(a, target_memory=pl.Mem.Left), pl.move(b, target_memory=pl.Mem.Right))
                        for k in pl.range(1, K // BK):
                            a = pl.load(x, [m * BM, k * BK], [BM, BK], target_memory=pl.Mem.Mat)
                            b = pl.load(w, [k * BK, n * BN], [BK, BN], target_memory=pl.Mem.Mat)
                            acc = pl.matmul_acc(
                                acc, pl.move(a, target_memory=pl.Mem.Left), pl.move(b, target_memory=pl.Mem.Right)
                            )
                        t = pl.move(acc, target_memory=pl.Mem.Vec)
                        h = pl.col_expand_add(t, pl.load(bias, [0, n * BN], [1, BN]))
                        inner = pl.mul(pl.add(pl.mul(pl.mul(pl.mul(h, h), h), 0.044715), h), GELU_C)
                        y = pl.store(pl.mul(pl.mul(h, pl.add(pl.tanh(inner), 1.0)), 0.5), [m * BM, n * BN], y)
            return y

    return LinearGelu


LinearGelu = build()


def reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    h = x.astype(np.float64) @ w.astype(np.float64) + bias
    return 0.5 * h * (1.0 + np.tanh(GELU_C * (h + 0.044715 * h**3)))


def operand(rng: np.random.Generator, shape: tuple[int, int], dtype) -> np.ndarray:
    """Uniform values in [-1, 1) of `dtype` (bf16: float32 rounded to bf16, its carrier)."""
    values = rng.uniform(-1, 1, shape).astype(np.float32)
    return bf16_round(values) if dtype == BF16 else values.astype(dtype)


def inputs(M: int = 128, K: int = 256, N: int = 128, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = operand(rng, (M, K), dtype)
    w = operand(rng, (K, N), dtype)
    bias = rng.uniform(-1, 1, (1, N)).astype(np.float32)
    return x, w, bias, np.zeros((M, N), np.float32)


def check() -> None:
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference

    x, w, bias, y = inputs()
    for passes in ((), ("pypto-default",)):
        result = LinearGelu.run(x, w, bias, y.copy(), passes=passes)
        assert_close_to_reference(result, reference(x, w, bias), k=x.shape[1], dtype="f16")
    # bf16 inputs, another shape
    x, w, bias, y = inputs(64, 128, 192, BF16)
    result = build(64, 128, 192, pl.BF16).run(x, w, bias, y, passes=("pypto-default",))
    assert_close_to_reference(result, reference(x, w, bias), k=128, dtype="bf16")


if __name__ == "__main__":
    LinearGelu.print()
    check()
    print("linear + gelu (matmul + bias + tanh-form gelu): matches numpy before and after pypto-default")
