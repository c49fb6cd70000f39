"""A fused linear layer in one scope: y = act(x @ w + bias), act = relu or gelu (tanh form),
written as a mixed kernel: the product on the cube, the bias and the activation on the
vector cores.

    x: [M, K] f16/bf16, w: [K, N] f16/bf16, bias: [1, N] f32 (or f16: `bias_dtype`, cast to f32 for the add), y: [M, N] f32

Written as a kernel author writes a mixed kernel: tiles of x and w are loaded into L1
(`pl.Mem.Mat`), moved to L0A/L0B and multiplied into an L0C accumulator (`matmul` for the
first K block, `matmul_acc` for the others); the accumulator is moved to the Unified Buffer
(`pl.Mem.Vec`), where the bias row is added and the activation applied.

With relu (the default) that epilogue is one the cube's Fixpipe can do itself, so
`fold-bias-epilogue` (in `pypto-default`) makes the product a `tile.matmul_bias` (the row in
the bias table) with the relu on the accumulator, and the scope becomes one cube (AIC)
kernel. With gelu, or relu under `pypto-default{fold-bias=false}`, `expand-mixed-kernel`
splits the scope into an AIC kernel (loads, moves, matmuls, a push of each accumulator to the
vector cores) and an AIV kernel (a pop, the epilogue, the store), launched together as one
group.

    .venv/bin/python examples/mixed/fused_linear.py
"""

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter.values import bf16_round

BF16 = "bf16"
GELU_C = 0.7978845608028654  # sqrt(2 / pi)


def build(M: int = 128, K: int = 256, N: int = 128, dtype=pl.FP16, act: str = "relu", BM: int = 64, BN: int = 64,
          BK: int = 64, bias_dtype=pl.FP32):
    """The program for one shape, input dtype and activation (blocks of BM x BN, K in blocks
    of BK); the scope is named `linear_<act>`. An f16 bias (`bias_dtype=pl.FP16`) is cast to
    f32 for the add."""
    relu = act == "relu"
    widen_bias = bias_dtype != pl.FP32
    scope = "linear_" + act

    @pl.program
    class FusedLinear:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[M, K], dtype],
            w: pl.Tensor[[K, N], dtype],
            bias: pl.Tensor[[1, N], bias_dtype],
            y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        ) -> pl.Tensor[[M, N], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint=scope):
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
                        row = pl.load(bias, [0, n * BN], [1, BN])
                        if widen_bias:
                            row = pl.cast(row, pl.FP32)
                        h = pl.col_expand_add(t, row)
                        if relu:
                            out = pl.relu(h)
                        else:
                            inner = pl.mul(pl.add(pl.mul(pl.mul(pl.mul(h, h), h), 0.044715), h), GELU_C)
                            out = pl.mul(pl.mul(h, pl.add(pl.tanh(inner), 1.0)), 0.5)
                        y = pl.store(out, [m * BM, n * BN], y)
            return y

    return FusedLinear


FusedLinear = build()


def reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray, act: str = "relu") -> np.ndarray:
    h = x.astype(np.float64) @ w.astype(np.float64) + bias
    if act == "relu":
        return np.maximum(h, 0.0)
    return 0.5 * h * (1.0 + np.tanh(GELU_C * (h + 0.044715 * h**3)))


def operand(rng: np.random.Generator, shape: tuple[int, int], dtype) -> np.ndarray:
    """Uniform values in [-1, 1) of `dtype` (bf16: float32 rounded to bf16, its carrier)."""
    values = rng.uniform(-1, 1, shape).astype(np.float32)
    return bf16_round(values) if dtype == BF16 else values.astype(dtype)


def inputs(M: int = 128, K: int = 256, N: int = 128, dtype=np.float16, seed: int = 0, bias_dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = operand(rng, (M, K), dtype)
    w = operand(rng, (K, N), dtype)
    bias = rng.uniform(-1, 1, (1, N)).astype(bias_dtype)
    return x, w, bias, np.zeros((M, N), np.float32)


def check() -> None:
    from pypto_xdsl.interpreter import run
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference
    from pypto_xdsl.runtime.passes import apply_pipeline

    x, w, bias, y = inputs()
    for act in ("relu", "gelu"):
        program = build(act=act)
        for passes in ((), ("pypto-default",)):
            result = program.run(x, w, bias, y.copy(), passes=passes)
            assert_close_to_reference(result, reference(x, w, bias, act), k=x.shape[1], dtype="f16")
    mixed = FusedLinear.fresh_module()  # relu kept on the vector cores
    apply_pipeline(mixed, "pypto-default{fold-bias=false}")
    result = run(mixed, "main", [x, w, bias, y.copy()])[0]
    assert_close_to_reference(result, reference(x, w, bias), k=x.shape[1], dtype="f16")
    # bf16 inputs, another shape
    x, w, bias, y = inputs(64, 128, 192, BF16)
    for act in ("relu", "gelu"):
        result = build(64, 128, 192, pl.BF16, act).run(x, w, bias, y.copy(), passes=("pypto-default",))
        assert_close_to_reference(result, reference(x, w, bias, act), k=128, dtype="bf16")


if __name__ == "__main__":
    FusedLinear.print()
    check()
    print("fused linear (matmul + bias + relu or gelu): matches numpy before and after pypto-default, "
          "folded and not")
