"""Partial tiles through the Ascend C backend: `valid_shape=` loads and `tile.set_validshape`
with run-time extents, `pl.tile.fillpad` (DataCopyPad's own padding plus Duplicates of the
rest), row reductions over invalid columns (padded with their identity), tensor views with a
valid region; one build runs at every extent and matches the interpreter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.tools import pypto_compile

pytestmark = pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")

T = "!pypto.tensor<[64, 64], f32>"
V = "!pypto.tile<[64, 64], f32, vec>"
R = "!pypto.tile<[64, 1], f32, vec>"
RT = "!pypto.tensor<[64, 1], f32>"


def fillpad_program(pad: str, reduction: str, fill: bool = True) -> str:
    """PyPTO's ragged-tail idiom: a load with a run-time valid shape [rl, vl], a fillpad, a row
    reduction; the padded tile and the reduction stored."""
    padded = f"  %f = pypto.tile.fillpad %p pad({pad}) : {V}\n" if fill else ""
    src = "%f" if fill else "%p"
    return f"""
pypto.func incore @k(%a: {T}, %vl: index, %rl: index, out %o: {T}, out %m: {RT}) -> {T} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : {T} -> {V}
  %p = pypto.tile.set_validshape %t, %rl, %vl : {V}, index, index
{padded}  %r = pypto.tile.{reduction} {src} : {V} -> {R}
  %w = pypto.tile.store {src}, %o[%c0, %c0] : {V}, {T}
  %w2 = pypto.tile.store %r, %m[%c0, %c0] : {R}, {RT}
  pypto.return %w : {T}
}}
pypto.func orchestration @main(%a: {T}, %vl: index, %rl: index, out %o: {T}, out %m: {RT}) -> {T} {{
  %r = pypto.call @k(%a, %vl, %rl, %o, %m) : ({T}, index, index, {T}, {RT}) -> {T}
  pypto.return %r : {T}
}}
"""


def run_sim(text: str, tmp_path, scalars: dict[str, int], name: str = "p.mlir", *extra: str) -> str:
    src = tmp_path / name
    src.write_text(text)
    args = [str(src), "-o", str(tmp_path / "out"), "--sim", *extra]
    for k, v in scalars.items():
        args += ["--scalar", f"{k}={v}"]
    code = pypto_compile.main(args)
    return "ok" if code == 0 else f"exit {code}"


EXTENTS = [(37, 50), (64, 64), (0, 10), (10, 0), (1, 1), (8, 64), (63, 17)]


@pytest.mark.parametrize("pad, reduction, extents", [
    ("min", "row_max", EXTENTS), ("zero", "row_sum", EXTENTS[:2]), ("max", "row_min", EXTENTS[-2:])])
def test_fillpad_of_a_run_time_valid_block_matches_the_interpreter(pad, reduction, extents, tmp_path, capsys):
    text = fillpad_program(pad, reduction)
    for vl, rl in extents:
        assert run_sim(text, tmp_path, {"vl": vl, "rl": rl}) == "ok", (vl, rl, capsys.readouterr())
        out = capsys.readouterr().out
        assert "simulation matches the interpreter" in out, (vl, rl, out)


@pytest.mark.parametrize("reduction, vl, rl", [("row_max", 37, 50), ("row_sum", 1, 64), ("row_min", 64, 3)])
def test_a_row_reduction_over_invalid_columns_sees_only_the_valid_ones(reduction, vl, rl, tmp_path, capsys):
    """No fillpad: the reduction's identity is padded in (PyPTO reduces the valid columns)."""
    text = fillpad_program("zero", reduction, fill=False)
    assert run_sim(text, tmp_path, {"vl": vl, "rl": rl}) == "ok", capsys.readouterr()
    assert "simulation matches the interpreter" in capsys.readouterr().out


def test_the_fill_is_the_copys_padding_then_duplicates(tmp_path):
    program = pypto_compile.compile_module(_module(fillpad_program("min", "row_max")), tmp_path)
    kernel = program.files["kernels/k.cpp"]
    assert re.search(r"DataCopyPad\(t, a_gm, DataCopyExtParams\(static_cast<uint16_t>\(rl\), "
                     r"static_cast<uint32_t>\(block_len\), static_cast<uint32_t>\(row_gap_bytes\), "
                     r"static_cast<uint32_t>\(ub_gap_blocks\), 0\), DataCopyPadExtParams<float>\(true, 0, "
                     r"static_cast<uint8_t>\(right_padding\), NumericLimits<float>::NegativeInfinity\(\)\)\);", kernel)
    # the columns past the padded block: one level-0 Duplicate repeated over the valid rows
    assert re.search(r"Duplicate\(t\[\w+\], NumericLimits<float>::NegativeInfinity\(\), "
                     r"static_cast<uint64_t>\(\w+\), static_cast<uint8_t>\(rl\), 1, 8\);", kernel)
    # the rows past the valid ones: one level-2 Duplicate
    assert re.search(r"Duplicate\(t\[rl \* 64\], NumericLimits<float>::NegativeInfinity\(\), "
                     r"static_cast<int32_t>\(\w+\)\);", kernel)
    assert "} else {\n  }" not in kernel and "else {\n}" not in kernel


def _module(text: str):
    module = pypto_compile.parse_program(text)
    pypto_compile.apply_pipeline(module, "pypto-default")
    return module


# a tensor view with a run-time valid region (also one of the ascendc pass-pipeline inputs, test_ascendc_passes.py)
TENSOR_VIEW = (Path(__file__).parent / "backend_inputs" / "tensor_valid_region.py").read_text()


def test_a_tensor_view_with_a_valid_region_is_read_and_written_by_its_valid_block(tmp_path, capsys):
    """`pl.slice(..., valid_shape=[16, n])` at tensor level: convert-tensor-to-tile keeps the view,
    its load reads the window's share of the valid region, the store writes only that."""
    for n in (37, 0, 64, 8):
        assert run_sim(TENSOR_VIEW, tmp_path, {"n": n}, "p.py", "--entry", "main") == "ok", (n, capsys.readouterr())
        assert "simulation matches the interpreter" in capsys.readouterr().out


@pytest.mark.parametrize("cols", ["%c60", "%vl"])
def test_fillpad_of_a_computed_tile_ending_inside_a_block(cols, tmp_path, capsys):
    """A computed tile has no copy to pad it: the invalid lanes of its last 32-byte block are a
    level-0 Duplicate with a bit mask."""
    text = fillpad_program("min", "row_max").replace(
        f"  %p = pypto.tile.set_validshape %t, %rl, %vl : {V}, index, index\n",
        f"  %x = pypto.tile.exp %t : {V}\n  %c60 = arith.constant 60 : index\n"
        f"  %p = pypto.tile.set_validshape %x, %rl, {cols} : {V}, index, index\n")
    assert run_sim(text, tmp_path, {"vl": 37, "rl": 50}) == "ok", capsys.readouterr()
    assert "simulation matches the interpreter" in capsys.readouterr().out
    kernel = (tmp_path / "out" / "kernels" / "k.cpp").read_text()
    assert re.search(r"uint64_t pad_mask\[2\] = \{static_cast<uint64_t>\(pad_lanes\), static_cast<uint64_t>\(0\)\};\n"
                     r"\s*Duplicate\(x\[block_start\w*\], NumericLimits<float>::NegativeInfinity\(\), pad_mask, "
                     r"static_cast<uint8_t>\(rl\), 1, 8\);", kernel), kernel


def test_the_ragged_tail_idiom_runs_on_the_sim_target(tmp_path, monkeypatch):
    """PyPTO's idiom (its intermediate/06_dyn_valid_shape kernel 3, written here): blocks of a
    [rows, 64] buffer, the last one valid up to a length read from an i64 config tensor, loaded
    with `valid_shape=` and filled with -inf; through `@pl.jit` on the sim target."""
    import numpy as np

    import pypto_xdsl.language as pl
    from pypto_xdsl.runtime import RunConfig

    monkeypatch.setenv("PYPTO_XDSL_CACHE", str(tmp_path / "cache"))

    @pl.jit
    def ragged(buf: pl.Tensor, cfg: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            n_blocks = pl.cast(pl.read(cfg, [0]), pl.INDEX)
            last = pl.cast(pl.read(cfg, [1]), pl.INDEX)
            full = pl.cast(pl.read(cfg, [2]), pl.INDEX)
            for i in pl.range(n_blocks):
                if i == n_blocks - 1:
                    vlen = last
                else:
                    vlen = full
                t = pl.load(buf, [i * 16, 0], [16, 64], valid_shape=[16, vlen])
                pl.store(pl.tile.fillpad(t, pad_value=pl.PadValue.min), [i * 16, 0], out)
        return out

    rng = np.random.default_rng(0)
    buf = rng.standard_normal((48, 64)).astype(np.float32)
    for last in (64, 37, 1):
        out = np.zeros((48, 64), np.float32)
        ragged(buf, np.array([3, last, 64], np.int64), out, config=RunConfig(target="sim"))
        expected = buf.copy()
        expected[32:, last:] = -np.inf
        np.testing.assert_array_equal(out, expected)


OUTLINED = '''
import pypto_xdsl.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 64], valid_shape=[16, n])
            m = pl.tile.move(t, target_memory=pl.MemorySpace.Vec)
            o = pl.store(m, [0, 0], o)
        return o
'''


def test_a_refusal_in_an_outlined_kernel_is_located_in_the_users_code(tmp_path, capsys):
    """The backend lowers copies (of the module, of a kernel with partial tiles): its
    diagnostic names the input's op, at its line, also in a kernel a scope was outlined into."""
    src = tmp_path / "p.py"
    src.write_text(OUTLINED)
    assert pypto_compile.main([str(src), "-o", str(tmp_path / "out"), "--entry", "main", "--scalar", "n=3"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == (f"{src}:12:17: error: ascendc: cannot lower 'pypto.tile.move' in @main_incore_0: it reads the "
                        "partial tile %t (a valid shape); the Ascend C backend lowers a valid shape where a store, a "
                        "fillpad, an elementwise op or a row reduction uses it")
    assert lines[1].strip() == "m = pl.tile.move(t, target_memory=pl.MemorySpace.Vec)"
