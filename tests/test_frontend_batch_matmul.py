"""Batched matmuls: `pl.batch_matmul` / `pl.tile.batch_matmul` / `pl.tile.batch_matmul_acc` on
tiles of rank > 2 (`pypto.tile.batch_matmul*`), and `pl.matmul` / `pl.matmul_acc` on tensors
with an operand of rank > 2 (`pypto.tensor.batch_matmul*`): one matmul per batch, the batch dims
broadcast, transposes of the last two axes; run by the interpreter against numpy."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs


def rnd(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


TILE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[{sa}, pl.FP32], b: pl.Tensor[{sb}, pl.FP32],
               c: pl.Out[pl.Tensor[{sc}, pl.FP32]]) -> pl.Tensor[{sc}, pl.FP32]:
        ta = pl.load(a, {za}, {sa}, target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, {zb}, {sb}, target_memory=pl.MemorySpace.Mat)
        tc = {call}
        c = pl.store(tc, {zc}, c)
        return c
"""


def _tile_program(sa, sb, sc, call):
    zeros = lambda s: [0] * len(s)  # noqa: E731
    return build(TILE.format(sa=sa, sb=sb, sc=sc, za=zeros(sa), zb=zeros(sb), zc=zeros(sc), call=call))


@pytest.mark.parametrize(
    "sa, sb, sc, call, expect",
    [
        ([2, 16, 32], [2, 32, 48], [2, 16, 48], "pl.batch_matmul(ta, tb)", lambda a, b: a @ b),
        (
            [2, 16, 32],
            [2, 48, 32],
            [2, 16, 48],
            "pl.tile.batch_matmul(ta, pl.tile.transpose_view(tb))",
            lambda a, b: a @ b.transpose(0, 2, 1),
        ),
        (
            [2, 32, 16],
            [2, 32, 48],
            [2, 16, 48],
            "pl.batch_matmul(pl.tile.transpose_view(ta), tb)",
            lambda a, b: a.transpose(0, 2, 1) @ b,
        ),
        # broadcast batch dims: [3, 1] with [2] -> [3, 2]; a rank-2 rhs repeats for every batch
        ([3, 1, 16, 32], [2, 32, 16], [3, 2, 16, 16], "pl.batch_matmul(ta, tb)", lambda a, b: a @ b),
        ([2, 16, 32], [32, 16], [2, 16, 16], "pl.batch_matmul(ta, tb)", lambda a, b: a @ b),
    ],
)
def test_tile_batch_matmul(sa, sb, sc, call, expect):
    prog = _tile_program(sa, sb, sc, call)
    a, b = rnd(sa, 1), rnd(sb, 2)
    c = np.zeros(sc, np.float32)
    prog.run(a, b, c)
    np.testing.assert_allclose(c, expect(a, b), rtol=1e-5, atol=1e-4)
    text = str(prog.module)
    assert "pypto.tile.batch_matmul" in text
    # the mat operands are moved to L0A / L0B, as for tile.matmul
    assert "f32, left>" in text and "f32, right>" in text


def test_tile_batch_matmul_acc_accumulates_in_place():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[2, 16, 64], pl.FP32], b: pl.Tensor[[2, 64, 16], pl.FP32],
                   c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
            a0 = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.MemorySpace.Mat)
            b0 = pl.load(b, [0, 0, 0], [2, 32, 16], target_memory=pl.MemorySpace.Mat)
            acc = pl.tile.batch_matmul(a0, b0)
            a1 = pl.load(a, [0, 0, 32], [2, 16, 32], target_memory=pl.MemorySpace.Mat)
            b1 = pl.load(b, [0, 32, 0], [2, 32, 16], target_memory=pl.MemorySpace.Mat)
            acc = pl.tile.batch_matmul_acc(acc, a1, b1)
            c = pl.store(acc, [0, 0, 0], c)
            return c
    """)
    a, b = rnd((2, 16, 64), 3), rnd((2, 64, 16), 4)
    c = np.zeros((2, 16, 16), np.float32)
    prog.run(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    assert "pypto.tile.batch_matmul_acc" in str(prog.module)


TENSOR = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[{sa}, pl.FP32], b: pl.Tensor[{sb}, pl.FP32],
               c: pl.Out[pl.Tensor[{sc}, pl.FP32]]) -> pl.Tensor[{sc}, pl.FP32]:
        p = {call}
        c = pl.assemble(c, p, {zc})
        return c
"""


@pytest.mark.parametrize(
    "sa, sb, sc, call, expect",
    [
        (
            [2, 16, 32],
            [2, 48, 32],
            [2, 16, 48],
            "pl.matmul(a, b, b_trans=True, out_dtype=pl.FP32)",
            lambda a, b: a @ b.transpose(0, 2, 1),
        ),
        (
            [16, 32],
            [1, 48, 32],
            [1, 16, 48],
            "pl.matmul(a, b, b_trans=True)",
            lambda a, b: a[None] @ b.transpose(0, 2, 1),
        ),
        (
            [3, 32, 16],
            [32, 8],
            [3, 16, 8],
            "pl.tensor.matmul(a, b, a_trans=True)",
            lambda a, b: a.transpose(0, 2, 1) @ b,
        ),
        ([2, 1, 16, 32], [3, 32, 8], [2, 3, 16, 8], "pl.matmul(a, b)", lambda a, b: a @ b),
    ],
)
def test_tensor_matmul_of_rank_above_two_is_batched(sa, sb, sc, call, expect):
    prog = build(TENSOR.format(sa=sa, sb=sb, sc=sc, zc=[0] * len(sc), call=call))
    a, b = rnd(sa, 5), rnd(sb, 6)
    c = np.zeros(sc, np.float32)
    prog.run(a, b, c)
    np.testing.assert_allclose(c, expect(a, b), rtol=1e-5, atol=1e-4)
    text = str(prog.module)
    assert "pypto.tensor.batch_matmul" in text and "pypto.tensor.matmul " not in text


def test_tensor_matmul_out_dtype_casts_the_batched_product():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[2, 32, 16], pl.FP32],
                   c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP16]]) -> pl.Tensor[[2, 16, 16], pl.FP16]:
            c = pl.assemble(c, pl.matmul(a, b, out_dtype=pl.FP16), [0, 0, 0])
            return c
    """)
    a, b = rnd((2, 16, 32), 7), rnd((2, 32, 16), 8)
    c = np.zeros((2, 16, 16), np.float16)
    prog.run(a, b, c)
    np.testing.assert_allclose(c, (a @ b).astype(np.float16), rtol=1e-3, atol=1e-3)
    assert "pypto.tensor.cast" in str(prog.module)


def test_tensor_matmul_acc_with_a_rank_three_operand():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[1, 32, 64], pl.FP32],
                   c: pl.Out[pl.Tensor[[1, 16, 32], pl.FP32]]) -> pl.Tensor[[1, 16, 32], pl.FP32]:
            a0 = pl.slice(a, [16, 32], [0, 0])
            a1 = pl.slice(a, [16, 32], [0, 32])
            b0 = pl.slice(b, [1, 32, 32], [0, 0, 0])
            b1 = pl.slice(b, [1, 32, 32], [0, 0, 32])
            acc = pl.matmul(a0, b0, b_trans=True, out_dtype=pl.FP32)
            acc = pl.matmul_acc(acc, a1, b1, b_trans=True)
            c = pl.assemble(c, acc, [0, 0, 0])
            return c
    """)
    a, b = rnd((16, 64), 9), rnd((1, 32, 64), 10)
    c = np.zeros((1, 16, 32), np.float32)
    prog.run(a, b, c)
    np.testing.assert_allclose(c, a[None] @ b.transpose(0, 2, 1), rtol=1e-5, atol=1e-4)
    assert "pypto.tensor.batch_matmul_acc" in str(prog.module)


ERRORS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[3, 32, 16], pl.FP32],
               c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        {body}
        return c
"""


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "c = pl.batch_matmul(a, b)",
            r"pl.batch_matmul takes tiles, got .*; a tensor matmul with an operand of rank > 2 is batched: use pl.matmul",
        ),
        ("p = pl.matmul(a, b)", r"batch dims \[2\] and \[3\] do not broadcast"),
        (
            "ta = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.MemorySpace.Mat)\n"
            "        tb = pl.load(b, [0, 0, 0], [3, 32, 16], target_memory=pl.MemorySpace.Mat)\n"
            "        tc = pl.tile.batch_matmul(ta, tb)",
            r"batch dims \[2\] and \[3\] do not broadcast",
        ),
    ],
)
def test_batch_matmul_errors_are_located(body, message):
    with pytest.raises(ParserError, match=message) as info:
        build(ERRORS.format(body=body))
    assert "<test>:" in str(info.value)
