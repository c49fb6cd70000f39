"""matmul + bias + relu in one scope at the tensor level, as PyPTO's mixed-kernel example
writes it: y = relu(a @ b + bias).

    a: [M, K] f16, b: [K, N] f16, bias: [1, N] f32, y: [M, N] f32

`convert-tensor-to-tile` makes the f16 matmul blocked cube code storing the f32 product into
a workspace tensor, and the epilogue a vector loop that loads it back; `expand-mixed-kernel`
splits them into the AIC and the AIV part of one group: the workspace becomes the group's
(an inout parameter of both parts) and a flag orders the cube's stores before the vector's
loads.

    .venv/bin/python examples/mixed/linear_tensor_level.py
"""

import numpy as np

import pypto_xdsl.language as pl

M, K, N = 128, 256, 128


@pl.program
class LinearRelu:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        bias: pl.Tensor[[1, N], pl.FP32],
        y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear_relu"):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            y = pl.assemble(y, pl.relu(pl.col_expand_add(acc, bias)), [0, 0])
        return y


def reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0.0)


def check() -> None:
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference

    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = rng.uniform(-1, 1, (1, N)).astype(np.float32)
    for passes in ((), ("pypto-default",)):
        result = LinearRelu.run(a, b, bias, np.zeros((M, N), np.float32), passes=passes)
        assert_close_to_reference(result, reference(a, b, bias), k=K, dtype="f16")


if __name__ == "__main__":
    LinearRelu.print()
    check()
    print("matmul + bias + relu (tensor level): matches numpy before and after pypto-default")
