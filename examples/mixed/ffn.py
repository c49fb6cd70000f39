"""A feed-forward block in one scope: out = act(x @ w1) @ w2, act = silu or gelu (tanh form).

    x: [M, H], w1: [H, F], w2: [F, H] f16/bf16, out: [M, H] f32

For each block of BM rows, the loop over F blocks runs on both cores: the cube computes
`h = x_m @ w1[:, f]` into L0C and sends it to the vector cores, which apply the activation
in f32 and send it back rounded to the input dtype; the cube accumulates
`act(h) @ w2[f, :]` in L0C (`matmul_acc` into an accumulator carried by the F loop) and
stores the block once at the end. After `expand-mixed-kernel` the AIC's F loop carries the
accumulator and the AIV's carries nothing: the output is written by the cube.

    .venv/bin/python examples/mixed/ffn.py
"""

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter.values import bf16_round

BF16 = "bf16"
GELU_C = 0.7978845608028654  # sqrt(2 / pi)


def build(M: int = 128, H: int = 64, F: int = 256, dtype=pl.FP16, act: str = "silu", BM: int = 64, BF: int = 64):
    silu = act == "silu"

    @pl.program
    class FFN:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[M, H], dtype],
            w1: pl.Tensor[[H, F], dtype],
            w2: pl.Tensor[[F, H], dtype],
            out: pl.Out[pl.Tensor[[M, H], pl.FP32]],
        ) -> pl.Tensor[[M, H], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="ffn"):
                for m in pl.range(M // BM):
                    x_left = pl.move(pl.load(x, [m * BM, 0], [BM, H], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                    acc = pl.tile.full([BM, H], pl.FP32, 0.0, target_memory=pl.Mem.Acc)
                    for f in pl.range(F // BF):
                        w1_right = pl.move(
                            pl.load(w1, [0, f * BF], [H, BF], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right
                        )
                        h = pl.move(pl.matmul(x_left, w1_right), target_memory=pl.Mem.Vec)
                        if silu:
                            a = pl.mul(h, pl.recip(pl.add(pl.exp(pl.neg(h)), 1.0)))
                        else:
                            inner = pl.mul(pl.add(pl.mul(pl.mul(pl.mul(h, h), h), 0.044715), h), GELU_C)
                            a = pl.mul(pl.mul(h, pl.add(pl.tanh(inner), 1.0)), 0.5)
                        a_left = pl.move(pl.cast(a, dtype), target_memory=pl.Mem.Left)
                        w2_right = pl.move(
                            pl.load(w2, [f * BF, 0], [BF, H], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right
                        )
                        acc = pl.matmul_acc(acc, a_left, w2_right)
                    out = pl.store(acc, [m * BM, 0], out)
            return out

    return FFN


FFN = build()


def activation(h: np.ndarray, act: str) -> np.ndarray:
    if act == "silu":
        return h / (1.0 + np.exp(-h))
    return 0.5 * h * (1.0 + np.tanh(GELU_C * (h + 0.044715 * h**3)))


def reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray, act: str = "silu") -> np.ndarray:
    x, w1, w2 = (a.astype(np.float64) for a in (x, w1, w2))
    return activation(x @ w1, act) @ w2


def inputs(M: int = 128, H: int = 64, F: int = 256, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)

    def operand(shape: tuple[int, int]) -> np.ndarray:
        values = rng.uniform(-1, 1, shape).astype(np.float32)
        return bf16_round(values) if dtype == BF16 else values.astype(dtype)

    return operand((M, H)), operand((H, F)), operand((F, H)), np.zeros((M, H), np.float32)


def check() -> None:
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference

    cases = (((128, 64, 256), np.float16, pl.FP16, "f16", "silu"), ((64, 128, 128), BF16, pl.BF16, "bf16", "gelu"))
    for shape, dtype, pl_dtype, name, act in cases:
        x, w1, w2, out = inputs(*shape, dtype)
        program = build(*shape, pl_dtype, act)
        for passes in ((), ("pypto-default",)):
            result = program.run(x, w1, w2, out.copy(), passes=passes)
            assert_close_to_reference(
                result, reference(x, w1, w2, act), k=max(shape[1], shape[2]), dtype=name, rounded_operands=True
            )


if __name__ == "__main__":
    FFN.print()
    check()
    print("FFN (matmul -> silu / gelu -> matmul): matches numpy before and after pypto-default")
