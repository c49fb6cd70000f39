"""Host code over run-time extents (paged attention's orchestration, small): element reads of
an `in` tensor (the caller's copy) and of a kernel's output (from the device, after the stream
has run it), a `tensor.create` of a run-time width inside a loop (grown on demand), windows at
run-time offsets and of run-time extents checked against their source, a kernel argument
whose contiguity depends on run-time extents checked before the launch, and a kernel whose
tensors have run-time row lengths copying whole tiles with run-time GM gaps. One g++ build
runs at every size and matches the interpreter; a block index out of range is reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.dialects import tensor
from pypto_xdsl.interpreter import api as interpreter
from pypto_xdsl.interpreter.values import PyptoInterpretationError
from pypto_xdsl.tools import pypto_compile
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate_sizes, write_inputs

pytestmark = pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")

PROGRAM = (Path(__file__).parent / "backend_inputs" / "paged_gather.mlir").read_text()

# no table entries; one entry, one block of the tile's width; five entries over four blocks
# of rows of 100 elements (a GM gap of 36 elements after each row of the tile)
SIZES = [{"B": 0, "P": 16, "C": 64, "Q": 0}, {"B": 1, "P": 16, "C": 64, "Q": 16},
         {"B": 5, "P": 64, "C": 100, "Q": 80}]


def _inputs(binding, bad_entry: int | None = None):
    rng = np.random.default_rng(binding["B"])
    table = rng.integers(0, binding["P"] // 16, size=binding["B"]).astype(np.int32)
    if bad_entry is not None:
        table[-1] = bad_entry
    pool = rng.standard_normal((binding["P"], binding["C"])).astype(np.float32)
    return [table, pool, np.zeros((binding["Q"], 64), np.float32)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The program compiled and built once, with its run at every size."""
    out = tmp_path_factory.mktemp("paged_gather")
    module = parse_program(PROGRAM)
    apply_pipeline(module, "pypto-default")
    builds = []
    real_build = sim.build
    sim.build = lambda *a, **k: builds.append(a) or real_build(*a, **k)
    try:
        reports = simulate_sizes(module, out, SIZES, inputs=_inputs, reference_module=parse_program(PROGRAM))
    finally:
        sim.build = real_build
    return out, module, reports, len(builds)


def test_one_build_runs_every_size_and_matches_the_interpreter(built):
    _, _, reports, builds = built
    assert builds == 1
    for binding, report in zip(SIZES, reports):
        (out,) = report.outputs.values()
        assert out.shape == (binding["Q"], 64)
        assert report.max_abs_error == 0, (binding, report.max_abs_error)  # f32 products by 2 and by an element


def test_a_block_index_out_of_range_is_reported_by_the_host(built):
    out, module, _, _ = built
    binding = {"B": 3, "P": 32, "C": 72, "Q": 48}
    func = pypto_compile.choose_entry(module, None)
    in_dir, res_dir = out / "bad" / "in", out / "bad" / "out"
    res_dir.mkdir(parents=True)
    write_inputs(func, _inputs(binding, bad_entry=2), in_dir)  # block 2 starts at row 32 of 32
    proc = sim.run(out / "build-sim" / "pypto_main", in_dir, res_dir, args=[f"{d}={n}" for d, n in binding.items()])
    assert proc.returncode != 0
    assert ("run_main: 'pypto.tensor.slice' %w is out of bounds: dimension 0 takes 16 at 32 of 32"
            in proc.stderr), proc.stderr


def test_a_window_past_the_pool_is_the_same_error_on_the_host_and_in_the_interpreter(built):
    """Block 2 of a 40-row pool is rows 32..47: the 2-D window %w runs past the run-time extent
    P. The host refuses it before the launch (the kernel would read its whole [16, 64] tile),
    and the interpreter refuses it at the same op with the same numbers (only a 1-D window nothing
    writes through may run past a run-time extent)."""
    out, module, _, _ = built
    binding = {"B": 3, "P": 40, "C": 64, "Q": 48}
    func = pypto_compile.choose_entry(module, None)
    in_dir, res_dir = out / "past" / "in", out / "past" / "out"
    res_dir.mkdir(parents=True)
    inputs = _inputs(binding, bad_entry=2)
    write_inputs(func, inputs, in_dir)
    proc = sim.run(out / "build-sim" / "pypto_main", in_dir, res_dir, args=[f"{d}={n}" for d, n in binding.items()])
    assert proc.returncode != 0
    numbers = "dimension 0 takes 16 at 32 of 40"
    assert f"run_main: 'pypto.tensor.slice' %w is out of bounds: {numbers}" in proc.stderr, proc.stderr
    with pytest.raises(PyptoInterpretationError) as info:
        interpreter.run(parse_program(PROGRAM), "main", inputs)
    assert isinstance(info.value.op, tensor.SliceOp) and info.value.op.result.name_hint == "w"
    assert "out of bounds" in info.value.detail and numbers in info.value.detail


def test_the_host_code_reads_allocates_and_checks_at_run_time(built):
    out, _, _, _ = built
    host = (out / "host" / "main_orch.cpp").read_text()
    # an `in` tensor's element from the caller's copy; a kernel output's from the device, after the stream
    assert "const int32_t blk = table_host[i];  // an `in` tensor: the caller's copy" in host
    assert ("CHECK_ACL(aclrtSynchronizeStream(stream));\n"
            "    CHECK_ACL(aclrtMemcpy(&s, 4, tmp_dev, 4, ACL_MEMCPY_DEVICE_TO_HOST));") in host
    # the [16, ?] buffer: a slot at entry, grown where it is made
    assert "void*& tmp_dev = buffers.slot();  // %tmp: !pypto.tensor<[16, ?], f32>, grown where it is created" in host
    assert "const size_t tmp_bytes = static_cast<size_t>(width) * 16 * 4;\n    if (tmp_bytes > tmp_capacity) {" in host
    # the output window is contiguous only if its run-time width is the row length
    assert "if (width != 64) {" in host
    # the kernel takes the row lengths of its tensors; a whole tile is copied with a run-time GM gap
    kernel = (out / "kernels" / "scale_block.cpp").read_text()
    assert "void scale_block(GM_ADDR a, float s, GM_ADDR o, int64_t W, int64_t V)" in kernel
    assert ("DataCopyPad(t, a_gm, DataCopyExtParams(16, 256, static_cast<uint32_t>(row_gap_bytes), 0, 0), "
            "DataCopyPadExtParams<float>(false, 0, 0, 0));") in kernel
