"""Dynamic row counts through the Ascend C backend: one build of a program over `[N, C]`
tensors runs in simulation at every N and matches the interpreter; N reaches the kernel as a
scalar parameter, the host derives it from the tensors' extents and checks every parameter
that shares it; what the backend does not lower (dynamic columns, unnamed extents, dynamic
tensors made in a function) is refused with one located diagnostic."""

from __future__ import annotations

import re
import subprocess

import pytest
from test_convert_tensor_to_tile_dynamic import PROGRAMS, SIZES, matmul

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.tools import pypto_compile
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate_sizes

pytestmark = pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")

UNSUPPORTED = '(docs/backend.md, "Dynamic shapes")'
X = "!pypto.tensor<[N, 128], f32>"
S = "!pypto.tensor<[16, 64], f32>"
V = "!pypto.tile<[16, 64], f32, vec>"


def _sized(name: str, cores: int = 4) -> str:
    return PROGRAMS[name](f"{{pypto.block_dim = {cores} : i64}} ")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_one_build_runs_every_size_and_matches_the_interpreter(name, tmp_path, monkeypatch):
    builds = []
    real_build = sim.build
    monkeypatch.setattr(sim, "build", lambda *a, **k: builds.append(a) or real_build(*a, **k))
    module = parse_program(_sized(name))
    reference = module.clone()
    apply_pipeline(module, "pypto-default")
    sizes = (*SIZES, 130)  # 130 rows: more than one core's share of a block on each of 4 cores
    reports = simulate_sizes(module, tmp_path, [{"N": n} for n in sizes], reference_module=reference, profile=True)
    assert len(builds) == 1
    for n, report in zip(sizes, reports):
        (out,) = report.outputs.values()
        assert out.shape[0] == n
        assert report.max_abs_error is not None and report.max_abs_error <= 1e-5, (n, report.max_abs_error)
        (launch,) = report.profile
        counters = launch["counters"]
        if n == 0:  # the launch runs and writes nothing: every core's share of the rows is empty
            static_reads = 4 * 256 * 4 if name == "rmsnorm" else 0  # each core loads rmsnorm's [1, 256] weight
            assert (counters["gm_read"], counters["gm_written"]) == (static_reads, 0)
        else:
            assert counters["gm_written"] == out.nbytes


def test_a_dynamic_m_matmul_runs_every_size_from_one_build(tmp_path, monkeypatch):
    """C[M, 48] = A[M, 64] @ B on 4 cube cores: a balanced share of M's rows per core, its full
    128-row blocks, then a partial block whose Nd2Nz `nValue` and Fixpipe `mSize` are the
    run-time tail (M = 1000 and 1500: more than one block in a core's share)."""
    from pypto_xdsl.interpreter.tolerance import program_precision, tolerance_for

    builds = []
    real_build = sim.build
    monkeypatch.setattr(sim, "build", lambda *a, **k: builds.append(a) or real_build(*a, **k))
    text = matmul().replace("%r = pypto.call @k(%a, %b, %c) :", "%r = pypto.call @k(%a, %b, %c) {pypto.block_dim = 4 : i64} :")
    module = parse_program(text)
    reference = module.clone()
    apply_pipeline(module, "pypto-default")
    sizes = (*SIZES, 1500)
    reports = simulate_sizes(module, tmp_path, [{"N": n} for n in sizes], reference_module=reference, profile=True)
    assert len(builds) == 1
    kernel = (tmp_path / "kernels" / "k.cpp").read_text()
    assert "nValue = tail_rows;" in kernel and "mSize = tail_rows;" in kernel
    precision = program_precision(reference)
    for n, report in zip(sizes, reports):
        got, want = report.outputs["c"], report.reference["c"]
        assert got.shape == (n, 48)
        tol = tolerance_for(want, precision)
        assert report.max_abs_error is not None and (n == 0 or tol.close(want, got).all()), (n, report.max_abs_error)
        (launch,) = report.profile
        assert launch["counters"]["gm_written"] == got.nbytes  # every row once, over the 4 cores


def _dynamic_columns(name: str) -> str:
    """The program with a run-time row length C too (bounded: tiles of 300 columns)."""
    text = _sized(name).replace("[N, 128]", "[N, C]").replace("[N, 256]", "[N, C]").replace("[1, 256]", "[1, C]")
    return text.replace("-> !pypto.tensor<[N, C], f32> {\n", "-> !pypto.tensor<[N, C], f32> attributes "
                        "{pypto.dim_bounds = {C = 300 : i64}} {\n", 1)


# (N, C): nothing, one element, unaligned, aligned, many blocks with full-width rows, above one core's share
COLUMN_SIZES = [(0, 5), (1, 1), (17, 37), (64, 64), (1000, 300), (130, 8)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_run_time_row_length_runs_every_size_from_one_build(name, tmp_path, monkeypatch):
    """Dynamic columns: every block is partial in its columns (run-time blockLen and strides);
    a row reduction pads the invalid columns with its identity, so it sees the valid ones."""
    builds = []
    real_build = sim.build
    monkeypatch.setattr(sim, "build", lambda *a, **k: builds.append(a) or real_build(*a, **k))
    text = _dynamic_columns(name)
    module = parse_program(text)
    apply_pipeline(module, "pypto-default")
    reports = simulate_sizes(module, tmp_path, [{"N": n, "C": c} for n, c in COLUMN_SIZES],
                             reference_module=parse_program(text))
    assert len(builds) == 1
    for (n, c), report in zip(COLUMN_SIZES, reports):
        (out,) = report.outputs.values()
        assert out.shape == (n, c)
        assert report.max_abs_error is not None and report.max_abs_error <= 1e-5, (n, c, report.max_abs_error)


def test_the_kernel_takes_the_extent_and_the_host_derives_it(tmp_path):
    program = pypto_compile.compile_module(_compiled("elementwise"), tmp_path)
    kernel, host, driver = (program.files[f] for f in ("kernels/k.cpp", "host/main_orch.cpp", "host/main.cpp"))
    assert "void k(GM_ADDR a, GM_ADDR b, float s, GM_ADDR o, int64_t N)" in kernel
    assert "a_gm.SetGlobalBuffer((__gm__ float*)a, N * 128);" in kernel
    assert re.search(r"DataCopyPad\(a_tile_1, a_gm\[full_end \* 128\], DataCopyExtParams\("
                     r"static_cast<uint16_t>\(tail_rows\), 512, 0, 0, 0\)", kernel)
    assert re.search(r"DataCopyPad\(o_gm\[full_end \* 128\], e_tile_1, DataCopyExtParams\("
                     r"static_cast<uint16_t>\(tail_rows\), 512, 0, 0, 0\)\);", kernel)
    assert "const float* a_host, const int64_t* a_dims," in host
    assert "const int64_t N = a_dims[0];" in host
    assert "ACLRT_LAUNCH_KERNEL(k)(4, stream, a_dev, b_dev, s, o_dev, N)" in host
    assert "aclrtMalloc(&a_dev, a_bytes > 0 ? a_bytes : 32" in host
    assert 'read_extent(argv[3], "N")' in driver


def _compiled(name: str, text: str | None = None):
    module = parse_program(text or _sized(name))
    apply_pipeline(module, "pypto-default")
    return module


MISMATCH_MAIN = r"""
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "main_orch.h"
int main() {
  if (aclInit(nullptr) || aclrtSetDevice(0)) return 90;
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream)) return 91;
  std::vector<float> a(4 * 128, 1.0f), b(4 * 128, 2.0f), o(5 * 128, 7.0f);
  const int64_t a_dims[] = {4, 128}, b_dims[] = {4, 128}, o_dims[] = {5, 128}, bad_cols[] = {4, 64};
  const int first = run_main(stream, a.data(), a_dims, b.data(), b_dims, 0.5f, o.data(), o_dims);
  const int second = run_main(stream, a.data(), a_dims, b.data(), bad_cols, 0.5f, o.data(), a_dims);
  for (float v : o) if (v != 7.0f) return 92;  // nothing was written
  std::printf("%d %d\n", first, second);
  return 0;
}
"""


def test_the_host_reports_a_mismatch_naming_both_parameters(tmp_path):
    pypto_compile.compile_module(_compiled("elementwise"), tmp_path)
    (tmp_path / "host" / "main.cpp").write_text(MISMATCH_MAIN)
    exe = sim.build(tmp_path, "mismatch")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["100000", "100000"]  # ACL_ERROR_INVALID_PARAM, before any device work
    assert proc.stderr.splitlines() == [
        "run_main: the dynamic dimension N is 4 in dimension 0 of 'a' but 5 in dimension 0 of 'o'; "
        "parameters sharing a dimension must agree",
        "run_main: dimension 1 of 'b' is 64 but its type !pypto.tensor<[N, 128], f32> has 128",
    ]


def test_a_bounded_extent_is_checked_by_the_host(tmp_path):
    text = _sized("elementwise").replace("pypto.func orchestration @main(", "pypto.func orchestration @main(", 1)
    text = text.replace("-> !pypto.tensor<[N, 128], f32> {\n  %r", "-> !pypto.tensor<[N, 128], f32> attributes "
                        "{pypto.dim_bounds = {N = 100 : i64}} {\n  %r")
    module = _compiled("elementwise", text)
    reports = simulate_sizes(module, tmp_path, [{"N": 100}], reference_module=parse_program(text))
    assert reports[0].max_abs_error <= 1e-5
    with pytest.raises(sim.SimulationError, match=r"the dynamic dimension N is 101 \(dimension 0 of 'a'\), "
                       r"above its bound 100"):
        simulate_sizes(module, tmp_path, [{"N": 101}], compare=False)


def test_pypto_compile_dim_builds_once_and_reports_each_size(tmp_path, capsys):
    src = tmp_path / "p.mlir"
    src.write_text(_sized("softmax"))
    code = pypto_compile.main([str(src), "-o", str(tmp_path / "out"), "--sim", "--dim", "N=0,17,64"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("built ") == 1
    assert [line for line in out.splitlines() if line.startswith("run at")] == ["run at N=0:", "run at N=17:", "run at N=64:"]
    assert out.count("simulation matches the interpreter") == 3


@pytest.mark.parametrize("dims, message", [
    ([], "@main has the dynamic dimension N: give its extent with --dim N=<extent> (e.g. --dim N=64)"),
    (["N=1,x"], "--dim N=1,x: expected NAME=N[,N...] with non-negative integer extents"),
    (["N=-1"], "--dim N=-1: expected NAME=N[,N...] with non-negative integer extents"),
    (["N=1", "M=2"], "--dim M: @main has no dimension M (its dynamic dimensions are N)"),
    (["N=1,2", "N=3"], "--dim N is given twice"),
])
def test_pypto_compile_dim_errors(dims, message, tmp_path, capsys):
    src = tmp_path / "p.mlir"
    src.write_text(_sized("elementwise"))
    args = [str(src), "-o", str(tmp_path / "out"), "--sim"] + [a for d in dims for a in ("--dim", d)]
    assert pypto_compile.main(args) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"pypto-compile: simulation failed: {message}"


def test_parse_dims_zips_the_options():
    assert pypto_compile.parse_dims(["N=0,1,17", "M=4"]) == [{"N": 0, "M": 4}, {"N": 1, "M": 4}, {"N": 17, "M": 4}]
    assert pypto_compile.parse_dims([]) == [{}]
    with pytest.raises(sim.SimulationError, match="has 2 extents but another --dim has 3"):
        pypto_compile.parse_dims(["N=0,1,17", "M=4,5"])


# --------------------------------------------------------------------------- what is refused


def compile_error(text: str, tmp_path, capsys, *extra: str) -> str:
    src = tmp_path / "p.mlir"
    src.write_text(text)
    out = tmp_path / "out"
    code = pypto_compile.main([str(src), "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    # one diagnostic, located in the input: `p.mlir:L:C: error: ...`, the source line, a caret
    lines = err.strip().splitlines()
    assert len(lines) == 3 and lines[2].lstrip().startswith("^"), err
    located = re.match(rf"{re.escape(str(src))}:\d+:\d+: error: (.*)", lines[0])
    assert located, err
    assert not (out / "kernels").exists()  # nothing printed
    return located.group(1)


def static_kernel(orchestration: str) -> str:
    return f"""
pypto.func incore @k(%a: {S}, %n: index, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : {S} -> {V}
  %r = pypto.tile.exp %t : {V}
  %w = pypto.tile.store %r, %o[%c0, %c0] : {V}, {S}
  pypto.return %w : {S}
}}
{orchestration}
"""


def test_a_whole_tile_of_a_run_time_row_length_is_copied_with_a_run_time_gap(tmp_path):
    D = "!pypto.tensor<[16, C], f32>"
    text = f"""
pypto.func incore @k(%a: {D}, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : {D} -> {V}
  %w = pypto.tile.store %t, %o[%c0, %c0] : {V}, {S}
  pypto.return %w : {S}
}}
pypto.func orchestration @main(%a: {D}, out %o: {S}) -> {S} {{
  %r = pypto.call @k(%a, %o) : ({D}, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    kernel = pypto_compile.compile_module(parse_program(text), tmp_path).files["kernels/k.cpp"]
    assert "const int64_t row_gap = C - 64;" in kernel  # rows of C elements, the tile's 64 of each
    assert ("DataCopyPad(t, a_gm, DataCopyExtParams(16, 256, static_cast<uint32_t>(row_gap_bytes), 0, 0), "
            "DataCopyPadExtParams<float>(false, 0, 0, 0));") in kernel


def test_a_window_of_a_dynamic_tensor_on_the_host_is_checked_against_its_extent(tmp_path):
    main = f"""
pypto.func orchestration @main(%a: !pypto.tensor<[M, 64], f32>, %n: index, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.slice %a[%c0, %c0] : !pypto.tensor<[M, 64], f32> -> {S}
  %tmp = pypto.tensor.create(%n) : !pypto.tensor<[?, 64], f32>
  %r = pypto.call @k(%w, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    program = pypto_compile.compile_module(parse_program(static_kernel(main)), tmp_path)
    host = program.files["host/main_orch.cpp"]
    assert "if (16 > M) {" in host  # the window's rows must exist at run time
    assert "const size_t tmp_bytes = static_cast<size_t>(n) * 64 * 4;" in host  # a run-time allocation
    assert "CHECK_ACL(aclrtMalloc(&tmp_dev, tmp_bytes > 0 ? tmp_bytes : 32, ACL_MEM_MALLOC_HUGE_FIRST));" in host


def test_a_half_element_read_on_the_host_is_refused(tmp_path, capsys):
    H = "!pypto.tensor<[4], f16>"
    main = f"""
pypto.func orchestration @main(%a: {S}, %h: {H}, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %x = pypto.tensor.read %h[%c0] : {H}
  %n = arith.constant 1 : index
  %r = pypto.call @k(%a, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    err = compile_error(static_kernel(main), tmp_path, capsys, "-p", "")
    assert err == ("ascendc: cannot lower 'pypto.tensor.read' in @main: reading a f16 element on the host is not "
                   "supported (the host has no half arithmetic)")


def test_a_partial_tile_read_by_an_op_that_does_not_keep_valid_shapes_is_refused(tmp_path, capsys):
    text = static_kernel(f"""
pypto.func orchestration @main(%a: {S}, %n: index, out %o: {S}) -> {S} {{
  %r = pypto.call @k(%a, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}""").replace(f"  %r = pypto.tile.exp %t : {V}",
               f"  %c64 = arith.constant 64 : index\n  %p = pypto.tile.set_validshape %t, %n, %c64 : {V}, index, index\n"
               f"  %r = pypto.tile.move %p : {V} -> {V}")
    err = compile_error(text, tmp_path, capsys, "-p", "")
    assert err == ("ascendc: cannot lower 'pypto.tile.move' in @k: it reads the partial tile %p (a valid shape); the "
                   "Ascend C backend lowers a valid shape where a store, a fillpad, an elementwise op or a row "
                   "reduction uses it")


def test_a_cube_copy_of_rows_beyond_the_16_bit_src_d_value_is_refused(tmp_path, capsys):
    """A run-time row length is the Nd2Nz `srcDValue` (tests/test_backend_cube_rows.py); its
    declared bound must fit the field's 16 bits."""
    A, B, C = "!pypto.tensor<[16, K], f16>", "!pypto.tensor<[16, 16], f16>", "!pypto.tensor<[16, 16], f32>"
    M = "!pypto.tile<[16, 16], f16, mat>"
    text = f"""
pypto.func aic @mm(%a: {A}, %b: {B}, out %c: {C}) -> {C} attributes {{pypto.dim_bounds = {{K = 70000 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : {A} -> {M}
  %bm = pypto.tile.load %b[%c0, %c0] : {B} -> {M}
  %al = pypto.tile.move %am : {M} -> !pypto.tile<[16, 16], f16, left>
  %br = pypto.tile.move %bm : {M} -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, {C}
  pypto.return %w : {C}
}}
pypto.func orchestration @main(%a: {A}, %b: {B}, out %c: {C}) -> {C} {{
  %r = pypto.call @mm(%a, %b, %c) : ({A}, {B}, {C}) -> {C}
  pypto.return %r : {C}
}}"""
    err = compile_error(text, tmp_path, capsys, "-p", "")
    assert err == ("ascendc: cannot lower 'pypto.tile.load' in @mm: rows of "
                   f"{A} are up to 70000 elements long (K), beyond the 16-bit Nd2NzParams.srcDValue")


def _valid_width_program(valid_rows: str, valid_cols: str) -> str:
    """B read through `tensor.set_validshape` (a ragged column block of run-time width %w)
    into one 16 x 16 cube product stored whole: the product is valid in %w columns."""
    A, B, O = "!pypto.tensor<[16, 16], f16>", "!pypto.tensor<[16, 32], f16>", "!pypto.tensor<[16, 16], f32>"
    M, L, R = (f"!pypto.tile<[16, 16], f16, {s}>" for s in ("mat", "left", "right"))
    return f"""
pypto.func incore @k(%a: {A}, %b: {B}, %w: index, out %o: {O}) -> {O} {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %bs = pypto.tensor.slice %b[%c0, %c16] : {B} -> {A}
  %bv = pypto.tensor.set_validshape %bs, {valid_rows}, {valid_cols} : {A}, index, index
  %am = pypto.tile.load %a[%c0, %c0] : {A} -> {M}
  %bm = pypto.tile.load %bv[%c0, %c0] : {A} -> {M}
  %l = pypto.tile.move %am : {M} -> {L}
  %r = pypto.tile.move %bm : {M} -> {R}
  %acc = pypto.tile.matmul %l, %r : {L}, {R}
  %o2 = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, {O}
  pypto.return %o2 : {O}
}}
pypto.func orchestration @main(%a: {A}, %b: {B}, %w: index, out %o: {O}) -> {O} {{
  %r = pypto.call @k(%a, %b, %w, %o) : ({A}, {B}, index, {O}) -> {O}
  pypto.return %r : {O}
}}"""


@pytest.mark.parametrize("width", [0, 16])
def test_a_cube_right_operand_of_valid_width_stores_its_valid_columns(width, tmp_path, capsys):
    """The product of a B of valid width %w is valid in %w columns (PyPTO's matmul rule): the
    kernel copies %w columns of B (Nd2Nz `dValue`), computes their fractals (LoadData
    `kExtension`, Mmad `n`) and stores %w columns (Fixpipe `nSize`); width 0 makes all four
    NOPs, as documented. The simulation matches the interpreter, which leaves the other
    columns of %o as they were."""
    src = tmp_path / "p.mlir"
    src.write_text(_valid_width_program("%c16", "%w"))
    out = tmp_path / "out"
    code = pypto_compile.main([str(src), "-o", str(out), "--sim", "--scalar", f"w={width}"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "simulation matches the interpreter" in captured.out, captured.out
    kernel = (out / "kernels" / "k.cpp").read_text()
    for field in ("dValue = valid_share;", "kExtension = fractal_cols;", "n = fractal_cols;", "nSize = valid_share;"):
        assert field in kernel, field


def test_a_cube_right_operand_of_valid_k_rows_is_refused_by_the_backend_not_split(tmp_path, capsys):
    """B of run-time valid K rows keeps the kernel a cube kernel; the backend then names the
    partial tile it cannot feed to the cube, instead of expand-mixed-kernel claiming the
    vector core computes the view."""
    err = compile_error(_valid_width_program("%w", "%c16"), tmp_path, capsys)
    assert err.startswith("ascendc: cannot lower 'pypto.tile.move' in @k: it reads the partial tile %bm"), err
