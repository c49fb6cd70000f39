"""Comparisons, selections and triangles (`pl.tile.cmp` / `cmps` / `sel` / `sels` / `tri`,
`pl.cmp` on tensors): the packed mask layout, numerics on the interpreter and the sim
(Ascend C Compare / Compares / Select) against numpy, a triangle of a constant diagonal on
the sim, and the frontend's located errors."""

from __future__ import annotations

import shutil
import textwrap

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs
from pypto_xdsl.runtime import RunConfig, run

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

M, N = 4, 20  # 20 columns: 3 mask bytes per row, the last one partly used
RELATIONS = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


def values(shape, seed):
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float32)


def mask_program(cmp_type: int):
    @pl.program
    class Masks:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self,
            a: pl.Tensor[[M, N], pl.FP32],
            b: pl.Tensor[[M, N], pl.FP32],
            mask: pl.Out[pl.Tensor[[M, 32], pl.UINT8]],
            sel: pl.Out[pl.Tensor[[M, N], pl.FP32]],
            sels: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        ) -> tuple[pl.Tensor[[M, 32], pl.UINT8], pl.Tensor[[M, N], pl.FP32], pl.Tensor[[M, N], pl.FP32]]:
            x = pl.load(a, [0, 0], [M, N])
            y = pl.load(b, [0, 0], [M, N])
            tmp = pl.tile.create([1, 32], dtype=pl.UINT8)
            m = pl.tile.cmp(x, y, cmp_type=cmp_type)
            s = pl.tile.cmps(x, 0.0, cmp_type=cmp_type)
            mask = pl.store(m, [0, 0], mask)
            sel = pl.store(pl.tile.sel(m, x, y, tmp), [0, 0], sel)
            sels = pl.store(pl.tile.sels(s, x, tmp, -9.5), [0, 0], sels)
            return mask, sel, sels

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            a: pl.Tensor[[M, N], pl.FP32],
            b: pl.Tensor[[M, N], pl.FP32],
            mask: pl.Out[pl.Tensor[[M, 32], pl.UINT8]],
            sel: pl.Out[pl.Tensor[[M, N], pl.FP32]],
            sels: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        ) -> tuple[pl.Tensor[[M, 32], pl.UINT8], pl.Tensor[[M, N], pl.FP32], pl.Tensor[[M, N], pl.FP32]]:
            return self.kernel(a, b, mask, sel, sels)

    return Masks


@pytest.mark.parametrize("target", ["interpreter", pytest.param("sim", marks=needs_gxx)])
@pytest.mark.parametrize("cmp_type", range(6))
def test_cmp_packs_bits_and_sel_reads_them(target, cmp_type):
    """On the sim the 20-column rows are compared from padded copies: the padding bits and
    bytes of the stored mask are 0 there too (the buffer it overwrites held 0x55)."""
    a, b = values((M, N), 0), values((M, N), 1)
    mask = np.full((M, 32), 0x55, np.uint8)
    sel, sels = np.zeros_like(a), np.zeros_like(a)
    run(mask_program(cmp_type), a, b, mask, sel, sels, config=RunConfig(target=target))
    rel = RELATIONS[cmp_type]
    expected = np.zeros((M, 32), np.uint8)
    expected[:, :3] = np.packbits(rel(a, b), axis=1, bitorder="little")  # bit j % 8 of byte j // 8
    np.testing.assert_array_equal(mask, expected)
    np.testing.assert_array_equal(sel, np.where(rel(a, b), a, b))
    np.testing.assert_array_equal(sels, np.where(rel(a, 0.0), a, np.float32(-9.5)))


@pl.program
class SelsWideMask:
    """A 16-bit mask carrier read little-endian, an unsigned source and a high-bit scalar."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[2, 16], pl.UINT16],
        mask: pl.Tensor[[2, 16], pl.INT16],
        out: pl.Out[pl.Tensor[[2, 16], pl.UINT16]],
    ) -> pl.Tensor[[2, 16], pl.UINT16]:
        s = pl.load(src, [0, 0], [2, 16])
        m = pl.load(mask, [0, 0], [2, 16])
        tmp = pl.tile.create([1, 16], dtype=pl.UINT16)
        return pl.store(pl.tile.sels(m, s, tmp, 0x8007), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        src: pl.Tensor[[2, 16], pl.UINT16],
        mask: pl.Tensor[[2, 16], pl.INT16],
        out: pl.Out[pl.Tensor[[2, 16], pl.UINT16]],
    ) -> pl.Tensor[[2, 16], pl.UINT16]:
        return self.kernel(src, mask, out)


@pytest.mark.parametrize("target", ["interpreter", pytest.param("sim", marks=needs_gxx)])
def test_sels_reads_a_wide_carrier_little_endian(target):
    """On the sim: uint16 elements selected as half bits, the int16 carrier as uint16."""
    src = np.arange(32, dtype=np.uint16).reshape(2, 16) + 100
    mask = np.zeros((2, 16), np.int16)
    mask[:, 0] = np.int16(0x0102)  # bytes 0x02, 0x01: elements 1 and 8
    out = np.zeros_like(src)
    run(SelsWideMask, src, mask, out, config=RunConfig(target=target))
    picked = np.zeros((2, 16), bool)
    picked[:, [1, 8]] = True
    np.testing.assert_array_equal(out, np.where(picked, src, np.uint16(0x8007)))


def test_sels_takes_a_signed_array_for_an_unsigned_parameter():
    """PyPTO's harness passes UINT16 tensors as int16 ones: read with the same bits."""
    src = (np.arange(32, dtype=np.int32).reshape(2, 16) - 16).astype(np.int16)
    mask = np.full((2, 16), -1, np.int16)
    out = np.zeros_like(src)
    run(SelsWideMask, src, mask, out, config=RunConfig(target="interpreter"))
    np.testing.assert_array_equal(out, src)


@pl.program
class IntEqMask:
    """An int32 `eq`: the padded copies' tails hold `s ^ 1` (the only integer mode on dav-c220)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, a: pl.Tensor[[3, 40], pl.INT32], mask: pl.Out[pl.Tensor[[3, 32], pl.UINT8]]
    ) -> pl.Tensor[[3, 32], pl.UINT8]:
        x = pl.load(a, [0, 0], [3, 40])
        return pl.store(pl.tile.cmps(x, 1, cmp_type=0), [0, 0], mask)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, a: pl.Tensor[[3, 40], pl.INT32], mask: pl.Out[pl.Tensor[[3, 32], pl.UINT8]]
    ) -> pl.Tensor[[3, 32], pl.UINT8]:
        return self.kernel(a, mask)


@pytest.mark.parametrize("target", ["interpreter", pytest.param("sim", marks=needs_gxx)])
def test_int32_eq_mask(target):
    a = np.random.default_rng(3).integers(-2, 3, (3, 40)).astype(np.int32)
    mask = np.full((3, 32), 0xFF, np.uint8)
    run(IntEqMask, a, mask, config=RunConfig(target=target))
    expected = np.zeros((3, 32), np.uint8)
    expected[:, :5] = np.packbits(a == 1, axis=1, bitorder="little")
    np.testing.assert_array_equal(mask, expected)


def tri_program(diagonal: int, upper: bool, valid):
    @pl.program
    class Tri:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, out: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
            t = pl.tile.tri(diagonal, [8, 16], valid_shape=valid, dtype=pl.FP32, upper=upper)
            return pl.store(t, [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, out: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
            return self.kernel(out)

    return Tri


@pytest.mark.parametrize("target", ["interpreter", pytest.param("sim", marks=needs_gxx)])
@pytest.mark.parametrize(
    "diagonal,upper,valid",
    [(0, False, None), (3, False, None), (-2, True, None), (20, True, None), (1, False, [5, 9])],
)
def test_tri_is_tril_or_triu(target, diagonal, upper, valid):
    out = np.full((8, 16), 7.0, np.float32)
    run(tri_program(diagonal, upper, valid), out, config=RunConfig(target=target))
    ones = np.ones((8, 16), np.float32)
    expected = np.triu(ones, diagonal) if upper else np.tril(ones, diagonal)
    rows, cols = valid or (8, 16)
    np.testing.assert_array_equal(out[:rows, :cols], expected[:rows, :cols])
    assert (out[rows:] == 7.0).all() and (out[:, cols:] == 7.0).all()  # a partial tile stores its valid block


@pl.program
class TensorCmp:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        b: pl.Tensor[[16, 16], pl.FP32],
        lt: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        ge: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            lt = pl.assemble(lt, pl.cmp(a, b, cmp_type=2), [0, 0])
            ge = pl.assemble(ge, pl.tensor.cmp(a, 1.0, cmp_type=5), [0, 0])
        return lt, ge


def test_tensor_cmp_is_a_zero_one_tensor():
    a, b = values((16, 16), 2), values((16, 16), 3)
    lt, ge = np.zeros_like(a), np.zeros_like(a)
    run(TensorCmp, a, b, lt, ge, config=RunConfig(target="interpreter"))
    np.testing.assert_array_equal(lt, (a < b).astype(np.float32))
    np.testing.assert_array_equal(ge, (a >= 1.0).astype(np.float32))


KERNEL = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], u: pl.Tensor[[16, 16], pl.UINT16], d: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        v = pl.load(u, [0, 0], [16, 16])
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8)
        {line}
        return pl.store(t, [0, 0], out)
"""


@pytest.mark.parametrize(
    "line,message",
    [
        ("m = pl.tile.cmp(t, t, cmp_type=6)", r"'cmp_type' of pl.tile.cmp must be an integer constant 0..5"),
        ("m = pl.tile.cmp(t, v)", r"pl.tile.cmp compares two tiles of one type"),
        ("m = pl.tile.cmps(t, t)", r"'rhs' of pl.tile.cmps must be a scalar, got a tile"),
        (
            "m = pl.tile.sels(pl.tile.cmps(t, 0.0), v, tmp, 0x10000)",
            r"'scalar' of pl.tile.sels 65536 does not fit in 16 bits",
        ),
        (
            "m = pl.tile.sels(pl.tile.cmps(t, 0.0), v, tmp, 1.5)",
            r"'scalar' of pl.tile.sels of a ui16 tile must be an integer",
        ),
        ("m = pl.tile.sel(pl.tile.cmps(t, 0.0), t, v, tmp)", r"pl.tile.sel selects between two tiles of one type"),
        ("m = pl.tile.tri(d, [16, 16])", r"'diagonal' of pl.tile.tri must be an INT32 scalar"),
        ("m = pl.tile.tri(0, [16, 16], valid_shape=[17, 4])", r"'valid_shape' of pl.tile.tri must be within"),
        ("m = pl.tile.tri(0, [16, 16], upper=1)", r"'upper' of pl.tile.tri must be True or False"),
    ],
)
def test_frontend_errors_are_located(line, message):
    with pytest.raises(ParserError, match=message):
        build(KERNEL.replace("{line}", line))


def test_sim_refuses_a_run_time_diagonal_at_the_op():
    @pl.program
    class RuntimeTri:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self, d: pl.Tensor[[1], pl.INT32], out: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]
        ) -> pl.Tensor[[8, 16], pl.FP32]:
            diagonal: pl.Scalar[pl.INT32] = pl.tensor.read(d, [0])
            return pl.store(pl.tile.tri(diagonal, [8, 16], dtype=pl.FP32), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, d: pl.Tensor[[1], pl.INT32], out: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]
        ) -> pl.Tensor[[8, 16], pl.FP32]:
            return self.kernel(d, out)

    d, out = np.array([1], np.int32), np.zeros((8, 16), np.float32)
    run(RuntimeTri, d, out, config=RunConfig(target="interpreter"))
    np.testing.assert_array_equal(out, np.tril(np.ones((8, 16), np.float32), 1))
    with pytest.raises(
        ParserError, match=r"cannot lower 'pypto.tile.tri' in @kernel: its diagonal is known only at run time"
    ):
        run(RuntimeTri, d, out, config=RunConfig(target="sim", codegen_only=True))
