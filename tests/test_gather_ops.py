"""`pl.tile.mgather`, `pl.tile.gatherb`, `pl.tile.mscatter` (pypto_xdsl/dialects/tile_gather.py):
the `pl` surface, the interpreter's numerics against numpy, its located errors for what the
ops leave undefined, gatherb on the simulation (Ascend C Gatherb, its checks) and the Ascend C
backend's refusals."""

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
INTERP = RunConfig(target="interpreter")
ROWS, COLS, R = 64, 32, 16


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


def _row_program(oob: str, valid: int):
    @pl.program
    class RowGather:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self,
            mem: pl.Tensor[[ROWS, COLS], pl.FP16],
            idx: pl.Tensor[[1, R], pl.INT32],
            out: pl.InOut[pl.Tensor[[R, COLS], pl.FP16]],
        ) -> pl.Tensor[[R, COLS], pl.FP16]:
            i = pl.load(idx, [0, 0], [1, R], valid_shape=[1, valid])
            g = pl.tile.mgather(mem, i, "row", gather_oob=oob)
            return pl.store(g, [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            mem: pl.Tensor[[ROWS, COLS], pl.FP16],
            idx: pl.Tensor[[1, R], pl.INT32],
            out: pl.InOut[pl.Tensor[[R, COLS], pl.FP16]],
        ) -> pl.Tensor[[R, COLS], pl.FP16]:
            return self.kernel(mem, idx, out)

    return RowGather


def _policy(index: np.ndarray, n: int, oob: str) -> tuple[np.ndarray, np.ndarray]:
    """numpy's reading of the policies: (the entry taken, whether the result is zeroed)."""
    u = index.astype(np.int64) & 0xFFFFFFFF
    if oob == "clamp":
        return np.minimum(u, n - 1), np.zeros(u.shape, bool)
    if oob == "wrap":
        return u % n, np.zeros(u.shape, bool)
    return np.where(u < n, u, 0), u >= n


@pytest.mark.parametrize("oob", ["clamp", "wrap", "zero"])
def test_row_gather_policies_and_valid_rows(oob):
    mem = (np.arange(ROWS * COLS) % 97).reshape(ROWS, COLS).astype(np.float16)
    idx = np.array([[-1, 64, 65, 7, 80, 0, 18, 55, 4, 70, 13, 47, 8, 38, 22, 60]], np.int32)
    out = np.full((R, COLS), -3, np.float16)
    run(_row_program(oob, 12), mem, idx, out, config=INTERP)
    take, zero = _policy(idx[0, :12], ROWS, oob)
    want = np.where(zero[:, None], 0, mem[take])
    np.testing.assert_array_equal(out[:12], want)
    assert (out[12:] == -3).all()  # the gathered tile is valid in the index tile's 12 rows


def test_undefined_out_of_range_index_is_an_error():
    mem = np.zeros((ROWS, COLS), np.float16)
    idx = np.arange(R, dtype=np.int32).reshape(1, R)
    idx[0, 3] = ROWS
    with pytest.raises(Exception, match=r"index 64 is past the table \(its 64 rows\) and gather_oob is 'undefined'"):
        run(_row_program("undefined", R), mem, idx, np.zeros((R, COLS), np.float16), config=INTERP)


@pl.program
class ElemGather:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        mem: pl.Tensor[[256], pl.BF16],
        idx: pl.Tensor[[8, 32], pl.INT32],
        out: pl.InOut[pl.Tensor[[8, 32], pl.BF16]],
    ) -> pl.Tensor[[8, 32], pl.BF16]:
        i = pl.load(idx, [0, 0], [8, 32], valid_shape=[5, 19])
        return pl.store(pl.mgather(mem, i, coalesce=1, gather_oob=2), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        mem: pl.Tensor[[256], pl.BF16],
        idx: pl.Tensor[[8, 32], pl.INT32],
        out: pl.InOut[pl.Tensor[[8, 32], pl.BF16]],
    ) -> pl.Tensor[[8, 32], pl.BF16]:
        return self.kernel(mem, idx, out)


def test_elem_gather_wraps_over_the_flat_table_in_the_valid_block():
    mem = (np.arange(256) % 53).astype(np.float32)  # bf16 is carried as float32
    idx = (np.arange(256, dtype=np.int32) * 7 - 40).reshape(8, 32)
    out = np.zeros((8, 32), np.float32)
    run(ElemGather, mem, idx, out, config=INTERP)
    take, _ = _policy(idx[:5, :19], 256, "wrap")
    np.testing.assert_array_equal(out[:5, :19], mem[take])
    assert (out[5:] == 0).all() and (out[:, 19:] == 0).all()


@pl.program
class MatGather:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        mem: pl.Tensor[[1024], pl.FP16],
        idx: pl.Tensor[[32, 32], pl.INT32],
        scratch: pl.Tensor[[1024], pl.FP16],
        eye: pl.Tensor[[32, 32], pl.FP16],
        out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        g = pl.tile.mgather(
            mem,
            idx,
            "elem",
            gather_oob="clamp",
            target_memory=pl.MemorySpace.Mat,
            scratch=scratch,
            valid_shape=[16, 32],
        )
        e = pl.load(eye, [0, 0], [32, 32], valid_shape=[32, 16], target_memory=pl.MemorySpace.Mat)
        return pl.store(pl.matmul(e, g), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        mem: pl.Tensor[[1024], pl.FP16],
        idx: pl.Tensor[[32, 32], pl.INT32],
        scratch: pl.Tensor[[1024], pl.FP16],
        eye: pl.Tensor[[32, 32], pl.FP16],
        out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        return self.kernel(mem, idx, scratch, eye, out)


def test_mat_gather_feeds_a_matmul_of_the_valid_blocks():
    """The mat operands are moved to left/right; the product multiplies the valid [32, 16] x
    [16, 32] blocks (the rows of the gathered tile past 16 are never read)."""
    mem = (np.arange(1024) % 53).astype(np.float16)
    idx = (np.arange(1024, dtype=np.int32)[::-1] + 5).reshape(32, 32)
    eye = np.eye(32, dtype=np.float16)
    out = np.zeros((32, 32), np.float32)
    run(MatGather, mem, idx, np.zeros(1024, np.float16), eye, out, config=INTERP)
    take, _ = _policy(idx, 1024, "clamp")
    want = eye[:, :16].astype(np.float32) @ mem[take][:16].astype(np.float32)
    np.testing.assert_array_equal(out, want)


def _gatherb_program(src_dtype, out_dtype, cols: int, valid: list[int]):
    src_cols = 32 * 8 * 4 // {pl.INT8: 1, pl.INT16: 2, pl.FP32: 4}[src_dtype]
    out_cols = 8 * 32 // {pl.INT8: 1, pl.UINT16: 2, pl.INT16: 2, pl.FP32: 4}[out_dtype]

    @pl.program
    class Gatherb:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self,
            src: pl.Tensor[[1, src_cols], src_dtype],
            off: pl.Tensor[[4, 8], pl.UINT32],
            out: pl.InOut[pl.Tensor[[4, out_cols], out_dtype]],
        ) -> pl.Tensor[[4, out_cols], out_dtype]:
            s = pl.load(src, [0, 0], [1, src_cols])
            o = pl.load(off, [0, 0], [4, 8], valid_shape=valid)
            return pl.store(pl.tile.gatherb(s, o, output_dtype=out_dtype), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            src: pl.Tensor[[1, src_cols], src_dtype],
            off: pl.Tensor[[4, 8], pl.UINT32],
            out: pl.InOut[pl.Tensor[[4, out_cols], out_dtype]],
        ) -> pl.Tensor[[4, out_cols], out_dtype]:
            return self.kernel(src, off, out)

    return Gatherb, src_cols, out_cols


@pytest.mark.parametrize(
    ("src", "dst", "np_src", "np_dst"),
    [
        (pl.FP32, pl.FP32, np.float32, np.float32),
        (pl.INT16, pl.INT8, np.int16, np.int8),
        (pl.INT8, pl.UINT16, np.int8, np.uint16),
    ],
)
def test_gatherb_copies_32_byte_blocks_of_the_source_bytes(src, dst, np_src, np_dst):
    prog, src_cols, out_cols = _gatherb_program(src, dst, 8, [3, 5])
    source = np.arange(src_cols).astype(np_src).reshape(1, src_cols)
    off = (((np.arange(32) * 5 + 3) % 32) * 32).astype(np.uint32).reshape(4, 8)
    out = np.zeros((4, out_cols), np_dst)
    run(prog, source, off, out, config=INTERP)
    want = np.zeros((4, 256), np.uint8)
    raw = source.view(np.uint8).reshape(-1)
    for i in range(3):
        for b in range(5):
            want[i, b * 32 : b * 32 + 32] = raw[off[i, b] : off[i, b] + 32]
    np.testing.assert_array_equal(out.view(np.uint8), want)


def test_gatherb_offset_off_a_block_is_an_error():
    prog, src_cols, out_cols = _gatherb_program(pl.FP32, pl.FP32, 8, [4, 8])
    off = np.zeros((4, 8), np.uint32)
    off[1, 2] = 36
    with pytest.raises(Exception, match=r"offset \[1, 2\] is byte 36: a 32-byte block of the 1024-byte source"):
        run(prog, np.zeros((1, src_cols), np.float32), off, np.zeros((4, out_cols), np.float32), config=INTERP)


_BYTES = {pl.INT8: 1, pl.UINT8: 1, pl.INT16: 2, pl.UINT16: 2, pl.FP16: 2, pl.INT32: 4, pl.UINT32: 4, pl.FP32: 4}
_NP = {
    pl.INT8: np.int8,
    pl.UINT8: np.uint8,
    pl.INT16: np.int16,
    pl.UINT16: np.uint16,
    pl.FP16: np.float16,
    pl.INT32: np.int32,
    pl.UINT32: np.uint32,
    pl.FP32: np.float32,
}


def _blocks_program(src_dtype, out_dtype, rows: int, blocks: int, src_blocks: int, valid):
    """gatherb of a [1, src_blocks * 32 bytes] source by [rows, blocks] offsets valid in `valid`."""
    src_cols = src_blocks * 32 // _BYTES[src_dtype]
    out_cols = blocks * 32 // _BYTES[out_dtype]

    @pl.program
    class Blocks:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self,
            src: pl.Tensor[[1, src_cols], src_dtype],
            off: pl.Tensor[[rows, blocks], pl.UINT32],
            out: pl.InOut[pl.Tensor[[rows, out_cols], out_dtype]],
        ) -> pl.Tensor[[rows, out_cols], out_dtype]:
            s = pl.load(src, [0, 0], [1, src_cols])
            o = pl.load(off, [0, 0], [rows, blocks], valid_shape=valid)
            return pl.store(pl.tile.gatherb(s, o, output_dtype=out_dtype), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            src: pl.Tensor[[1, src_cols], src_dtype],
            off: pl.Tensor[[rows, blocks], pl.UINT32],
            out: pl.InOut[pl.Tensor[[rows, out_cols], out_dtype]],
        ) -> pl.Tensor[[rows, out_cols], out_dtype]:
            return self.kernel(src, off, out)

    return Blocks, src_cols, out_cols


def _run_blocks(src_dtype, out_dtype, rows, blocks, src_blocks, valid, off, config):
    prog, src_cols, out_cols = _blocks_program(src_dtype, out_dtype, rows, blocks, src_blocks, valid)
    source = (np.arange(src_cols) % 251).astype(_NP[src_dtype]).reshape(1, src_cols)
    out = np.zeros((rows, out_cols), _NP[out_dtype])
    run(prog, source, off, out, config=config)
    want = np.zeros((rows, blocks * 32), np.uint8)
    raw = source.view(np.uint8).reshape(-1)
    for i in range(valid[0]):
        for b in range(valid[1]):
            want[i, b * 32 : b * 32 + 32] = raw[off[i, b] : off[i, b] + 32]
    np.testing.assert_array_equal(out.view(np.uint8), want)


@needs_gxx
@pytest.mark.parametrize(
    ("src", "dst", "shape", "valid"),
    [
        (pl.FP32, pl.FP32, (4, 8), (4, 8)),
        (pl.INT16, pl.INT8, (4, 8), (3, 5)),
        (pl.INT8, pl.UINT16, (4, 8), (1, 1)),
        (pl.UINT32, pl.FP16, (2, 16), (2, 9)),
    ],
)
def test_gatherb_on_the_simulation_is_ascend_c_gatherb(src, dst, shape, valid):
    """Gatherb on uint16_t/uint32_t views of the tiles; a partial offsets tile zeroed past
    its valid block (the result is compared where valid, zero elsewhere in `out`)."""
    rows, blocks = shape
    n = rows * blocks
    off = (((np.arange(n) * 5 + 3) % n) * 32).astype(np.uint32).reshape(rows, blocks)
    for target in ("interpreter", "sim"):
        _run_blocks(src, dst, rows, blocks, n, list(valid), off, RunConfig(target=target))


@needs_gxx
def test_gatherb_of_more_than_255_repeats_is_several_calls():
    """2560 offsets (320 repeats of 8) from a 4-block source: two Gatherb calls."""
    off = ((np.arange(64 * 40) * 7 % 4) * 32).astype(np.uint32).reshape(64, 40)
    _run_blocks(pl.INT16, pl.INT8, 64, 40, 4, [64, 40], off, RunConfig(target="sim"))


@needs_gxx
@pytest.mark.parametrize(
    ("at", "value", "message"),
    [
        (10, 36, r"Gatherb: offset\[10\] is byte 36, not a multiple of 32"),
        (3, 1024, r"Gatherb: offset\[3\] is byte 1024: its block is not inside src's 1024 bytes"),
    ],
)
def test_the_simulation_checks_gatherb_offsets(at, value, message):
    off = np.zeros((4, 8), np.uint32)
    off.reshape(-1)[at] = value
    with pytest.raises(Exception, match=message):
        _run_blocks(pl.FP32, pl.FP32, 4, 8, 32, [4, 8], off, RunConfig(target="sim"))


@needs_gxx
def test_gatherb_of_a_source_with_padded_rows_is_refused():
    prog = build(
        """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[2, 12], pl.FP32], o: pl.Tensor[[1, 8], pl.UINT32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
                s = pl.load(x, [0, 0], [2, 12])
                t = pl.load(o, [0, 0], [1, 8])
                return pl.store(pl.tile.gatherb(s, t), [0, 0], out)

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[2, 12], pl.FP32], o: pl.Tensor[[1, 8], pl.UINT32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
                return self.k(x, o, out)
        """
    )
    args = (np.zeros((2, 12), np.float32), np.zeros((1, 8), np.uint32), np.zeros((1, 64), np.float32))
    with pytest.raises(
        ParserError,
        match=r"<test>:\d+:\d+: .*cannot lower 'pypto.tile.gatherb' in @k: its source "
        r"!pypto.tile<\[2, 12\], f32, vec> has rows of 48 bytes, padded to 64",
    ):
        run(prog, *args, config=RunConfig(target="sim"))


@pl.program
class Scatter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[8, 32], pl.INT32],
        idx: pl.Tensor[[8, 32], pl.INT32],
        out: pl.Out[pl.Tensor[[16, 32], pl.INT32]],
    ) -> pl.Tensor[[16, 32], pl.INT32]:
        s = pl.load(src, [0, 0], [8, 32])
        i = pl.load(idx, [0, 0], [8, 32])
        out = pl.mscatter(s, i, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        src: pl.Tensor[[8, 32], pl.INT32],
        idx: pl.Tensor[[8, 32], pl.INT32],
        out: pl.Out[pl.Tensor[[16, 32], pl.INT32]],
    ) -> pl.Tensor[[16, 32], pl.INT32]:
        return self.kernel(src, idx, out)


def test_mscatter_writes_the_flat_positions():
    src = np.arange(256, dtype=np.int32).reshape(8, 32) - 100
    idx = (np.random.default_rng(3).permutation(512)[:256]).astype(np.int32).reshape(8, 32)
    out = np.full((16, 32), 7, np.int32)
    run(Scatter, src, idx, out, config=INTERP)
    want = np.full(512, 7, np.int32)
    want[idx.reshape(-1)] = src.reshape(-1)
    np.testing.assert_array_equal(out.reshape(-1), want)


def test_mscatter_index_outside_the_tensor_is_an_error():
    idx = np.zeros((8, 32), np.int32)
    idx[2, 3] = 512
    with pytest.raises(Exception, match=r"index 512 is outside the 512 elements of the destination \[16, 32\]"):
        run(Scatter, np.zeros((8, 32), np.int32), idx, np.zeros((16, 32), np.int32), config=INTERP)


def test_unsigned_parameters_take_signed_arrays_of_their_width():
    """PyPTO's callers pass u32 tensors as torch int32: the bits are the values."""
    prog, src_cols, out_cols = _gatherb_program(pl.FP32, pl.FP32, 8, [4, 8])
    off = (np.arange(32)[::-1] * 32).astype(np.int32).reshape(4, 8)  # int32, not uint32
    source = np.arange(src_cols, dtype=np.float32).reshape(1, src_cols)
    out = np.zeros((4, out_cols), np.float32)
    run(prog, source, off, out, config=INTERP)
    np.testing.assert_array_equal(out.reshape(-1), source.reshape(32, 8)[::-1].reshape(-1))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'pl.tile.mgather(m, i, "rows")',
            r"'coalesce' of pl.tile.mgather must be one of \"row\", \"elem\" \(or 0..1\)",
        ),
        ("pl.tile.mgather(m, i, gather_oob=7)", r"'gather_oob' of pl.tile.mgather must be one of \"undefined\""),
        (
            "pl.tile.mgather(m, i, valid_shape=[1, 4])",
            r"valid_shape is for a Mat result; a Vec result is valid where 'idx' is",
        ),
        (
            "pl.tile.mgather(m, i, target_memory=pl.MemorySpace.Left)",
            r"pl.tile.mgather gathers into a Vec or a Mat tile, not Left",
        ),
        (
            'pl.tile.mgather(m, i, "row", target_memory=pl.MemorySpace.Mat)',
            r"'idx' of pl.tile.mgather must be a tensor",
        ),
        (
            'pl.tile.mgather(m, i, "row", scratch=m)',
            r"<test>:\d+:\d+: error: pypto.tile.mgather: operand 'scratch' belongs to an elem gather",
        ),
    ],
)
def test_mgather_surface_errors(body, message):
    with pytest.raises(ParserError, match=message):
        build(
            f"""
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, m: pl.Tensor[[64, 32], pl.FP32], x: pl.Tensor[[1, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
                    i = pl.load(x, [0, 0], [1, 16])
                    g = {body}
                    return pl.store(g, [0, 0], out)
            """
        )


@needs_gxx
@pytest.mark.parametrize(
    ("program", "args", "message"),
    [
        (
            ElemGather,
            (np.zeros(256, np.float32), np.zeros((8, 32), np.int32), np.zeros((8, 32), np.float32)),
            r"cannot lower 'pypto.tile.mgather' in @kernel: an indexed copy from global memory has no Ascend C lowering",
        ),
        (
            Scatter,
            (np.zeros((8, 32), np.int32), np.zeros((8, 32), np.int32), np.zeros((16, 32), np.int32)),
            r"cannot lower 'pypto.tile.mscatter' in @kernel: an indexed copy into global memory",
        ),
    ],
)
def test_the_ascendc_backend_refuses_them_by_name(program, args, message):
    with pytest.raises(ParserError, match=message):
        run(program, *args, config=RunConfig(target="sim"))
