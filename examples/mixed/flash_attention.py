"""Attention in one scope, flash-attention style: O = softmax(Q Kᵀ · s) V with an online
softmax over blocks of K and V, so the [S, S] score matrix never exists.

    q, k, v: [S, D] f16/bf16, o: [S, D] f32, s = 1/√D

For each block of BQ query rows, the cube computes the scores of one BK-row block of keys
(`Q_i K_jᵀ`: the key block is loaded once into L1 and read transposed with
`pl.tile.transpose_view`), the vector cores update the running row maximum `m`, the running
denominator `l` and the output accumulator `o`, and send the probabilities back, rounded to
the input dtype, for the cube's `P V_j`:

    m_new = max(m, rowmax(S_ij));  P = exp(S_ij - m_new);  α = exp(m - m_new)
    l = α·l + rowsum(P);  o = α·o + P V_j;  m = m_new          ...  O_i = o / l

`expand-mixed-kernel` splits the scope: the AIC pushes each score block and each `P V_j`
to the AIV and pops `P` (into L1, then L0A); the AIV's loop over key blocks carries `m`, `l`
and `o`, the AIC's carries nothing.

    .venv/bin/python examples/mixed/flash_attention.py
"""

import math

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter.values import bf16_round

BF16 = "bf16"


def build(S: int = 256, D: int = 64, dtype=pl.FP16, BQ: int = 64, BK: int = 64):
    scale = 1.0 / math.sqrt(D)

    @pl.program
    class FlashAttention:
        @pl.function
        def main(
            self,
            q: pl.Tensor[[S, D], dtype],
            k: pl.Tensor[[S, D], dtype],
            v: pl.Tensor[[S, D], dtype],
            o: pl.Out[pl.Tensor[[S, D], pl.FP32]],
        ) -> pl.Tensor[[S, D], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="attention"):
                for qi in pl.range(S // BQ):
                    q_left = pl.move(pl.load(q, [qi * BQ, 0], [BQ, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                    m_i = pl.tile.full([BQ, 1], pl.FP32, -1e30)
                    l_i = pl.tile.full([BQ, 1], pl.FP32, 0.0)
                    o_i = pl.tile.full([BQ, D], pl.FP32, 0.0)
                    for j in pl.range(S // BK):
                        k_t = pl.tile.transpose_view(pl.load(k, [j * BK, 0], [BK, D], target_memory=pl.Mem.Mat))
                        scores = pl.matmul(q_left, pl.move(k_t, target_memory=pl.Mem.Right))
                        s_ij = pl.mul(pl.move(scores, target_memory=pl.Mem.Vec), scale)
                        m_new = pl.maximum(m_i, pl.row_max(s_ij))
                        p = pl.row_expand_expdif(s_ij, m_new)
                        alpha = pl.exp(pl.sub(m_i, m_new))
                        l_i = pl.add(pl.mul(l_i, alpha), pl.row_sum(p))
                        p_left = pl.move(pl.cast(p, dtype), target_memory=pl.Mem.Left)
                        v_right = pl.move(pl.load(v, [j * BK, 0], [BK, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                        pv = pl.move(pl.matmul(p_left, v_right), target_memory=pl.Mem.Vec)
                        o_i = pl.add(pl.row_expand_mul(o_i, alpha), pv)
                        m_i = m_new
                    o = pl.store(pl.row_expand_div(o_i, l_i), [qi * BQ, 0], o)
            return o

    return FlashAttention


FlashAttention = build()


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = q @ k.T / math.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def inputs(S: int = 256, D: int = 64, dtype=np.float16, seed: int = 0):
    rng = np.random.default_rng(seed)

    def operand() -> np.ndarray:
        values = rng.uniform(-1, 1, (S, D)).astype(np.float32)
        return bf16_round(values) if dtype == BF16 else values.astype(dtype)

    return operand(), operand(), operand(), np.zeros((S, D), np.float32)


def check() -> None:
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference

    for shape, dtype, pl_dtype, name in (((256, 64), np.float16, pl.FP16, "f16"), ((128, 128), BF16, pl.BF16, "bf16")):
        q, k, v, o = inputs(*shape, dtype)
        program = build(*shape, pl_dtype)
        for passes in ((), ("pypto-default",)):
            result = program.run(q, k, v, o.copy(), passes=passes)
            assert_close_to_reference(result, reference(q, k, v), k=shape[0], dtype=name, rounded_operands=True)


if __name__ == "__main__":
    FlashAttention.print()
    check()
    print("flash attention: matches numpy before and after pypto-default")
