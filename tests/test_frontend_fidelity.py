"""Frontend forms real PyPTO programs use: implicit INT32/INT64/INDEX conversions, scalar-left
arithmetic on tensors and tiles, `t.shape` / `t.dtype`, Tile annotations without a space."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IndexType, IntegerType

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.frontend import ParserError
from pypto_xdsl.frontend.scalars import promoted_type

I32, I64, IDX = IntegerType(32), IntegerType(64), IndexType()


def returned_type(prog, name="main"):
    func = next(f for f in prog.module.ops if isinstance(f, FuncOp) and f.sym_name.data == name)
    return func.function_type.outputs.data[0]


@pytest.mark.parametrize(
    ("lhs", "rhs", "want"),
    [
        (I32, IDX, IDX),  # the wider wins
        (IDX, I32, IDX),
        (I32, I64, I64),
        (IDX, I64, IDX),  # same width: the left operand's type
        (I64, IDX, I64),
        (pl.FP16.to_ir(), Float32Type(), Float32Type()),
        (I32, Float32Type(), None),  # no implicit conversion between categories
        (IntegerType(1), I32, None),
    ],
)
def test_promotion_rules(lhs, rhs, want):
    assert promoted_type(lhs, rhs) == want


def test_mixed_integer_arithmetic_comparisons_and_range_bounds():
    @pl.program
    class P:
        @pl.function
        def main(
            self, cfg: pl.Tensor[[3], pl.INT64], lens: pl.Tensor[[2], pl.INT32]
        ) -> pl.Scalar[pl.INDEX]:
            n = pl.read(cfg, [0])  # i64
            total = 0
            for b in pl.range(n):  # an i64 bound
                seq = pl.read(lens, [b])  # i32
                blocks = (seq + n - 1) // n  # i32 + i64 -> i64
                if b < seq:  # index vs i32
                    total = total + b * blocks  # index * i64 -> index
            return total

    assert returned_type(P) == IDX
    casts = [op for op in P.module.walk() if isinstance(op, arith.IndexCastOp | arith.ExtSIOp)]
    assert {type(op) for op in casts} == {arith.IndexCastOp, arith.ExtSIOp}
    cfg, lens = np.array([2, 0, 0], np.int64), np.array([5, 3], np.int32)
    want = sum(b * ((int(lens[b]) + 2 - 1) // 2) for b in range(2) if b < lens[b])
    assert P.run(cfg, lens) == want


def test_result_type_follows_the_left_operand_at_equal_width():
    @pl.program
    class Q:
        @pl.function
        def main(self, cfg: pl.Tensor[[1], pl.INT64], i: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INT64]:
            n = pl.read(cfg, [0])
            return n + i

    assert returned_type(Q) == I64
    assert Q.run(np.array([40], np.int64), 2) == 42


def test_float_widening_and_category_errors():
    @pl.program
    class F:
        @pl.function
        def main(self, a: pl.Scalar[pl.FP16], b: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
            return a * b

    assert returned_type(F) == Float32Type()
    assert F.run(1.5, 2.0) == pytest.approx(3.0)
    with pytest.raises(ParserError, match="operands have different types i32 and f32 .*use pl.cast"):

        @pl.program
        class G:
            @pl.function
            def main(self, a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
                return a + b


def test_scalar_left_arithmetic_on_tiles_and_tensors():
    @pl.program
    class S:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[8, 16], pl.FP32],
            o1: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
            o2: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
        ):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [8, 16])
                u = 1.0 - t
                u = 2.0 / u
                u = 3 * u + 1
                o1 = pl.store(1.0 / u, [0, 0], o1)
            y = 1.0 - x * 0.5  # tensors; a fresh tensor
            o2[:, :] = 2.0 / y
            return o1, y

    x = np.random.default_rng(0).uniform(-0.4, 0.4, (8, 16)).astype(np.float32)
    o1, o2 = np.zeros_like(x), np.zeros_like(x)
    _, y = S.run(x, o1, o2)
    np.testing.assert_allclose(o1, 1.0 / (3 * (2.0 / (1.0 - x)) + 1), rtol=1e-5)
    np.testing.assert_allclose(y, 1.0 - x * 0.5, rtol=1e-6)
    np.testing.assert_allclose(o2, 2.0 / (1.0 - x * 0.5), rtol=1e-6)


def test_shape_and_dtype_attributes():
    N = pl.dynamic("N")

    @pl.program
    class D:
        @pl.function
        def main(self, x: pl.Tensor[[N, 16], pl.FP32]) -> pl.Tensor[[N, 16], pl.FP32]:
            rows, cols = x.shape
            y = pl.create_tensor([rows, cols], dtype=x.dtype)
            for i in pl.range(rows):
                y[i:i + 1, :] = x[i:i + 1, :] * 2.0
            return y

    x = np.ones((3, 16), np.float32)
    np.testing.assert_allclose(D.run(x), 2 * x)
    with pytest.raises(ParserError, match=r"has no attribute 'shapes' \(did you mean 'shape'\?\)"):

        @pl.program
        class E:
            @pl.function
            def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Scalar[pl.INDEX]:
                return x.shapes[0]


def test_tile_annotation_without_memory_space_accepts_any_space():
    @pl.program
    class A:
        @pl.function(type=pl.FunctionType.InCore)
        def main(
            self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
            c: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        ) -> pl.Tensor[[16, 16], pl.FP32]:
            la = pl.move(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            lb = pl.move(pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            acc: pl.Tile[[16, 16], pl.FP32] = pl.matmul(la, lb)  # an acc tile
            c = pl.store(acc, [0, 0], c)
            return c

    a = np.eye(16, dtype=np.float16)
    c = np.zeros((16, 16), np.float32)
    A.run(a, a, c)
    np.testing.assert_allclose(c, np.eye(16))
    with pytest.raises(ParserError, match="is annotated !pypto.tile<\\[16, 16\\], f16, vec> but .* f16, mat>"):

        @pl.program
        class B:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, a: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
                t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)  # noqa: F841 (a load the program never uses)
                return a


def test_cast_of_scalars():
    @pl.program
    class C:
        @pl.function
        def main(self, cfg: pl.Tensor[[2], pl.INT64], x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
            n = pl.cast(pl.read(cfg, [0]), pl.INDEX)  # i64 -> index
            f = pl.cast(n, pl.FP32)  # index -> f32
            k = pl.cast(x * f, pl.INT32)  # f32 -> i32 (truncates)
            total = 0
            for i in pl.range(n):
                total = total + k
            return total

    assert C.run(np.array([3, 0], np.int64), 1.5) == 3 * int(1.5 * 3)
