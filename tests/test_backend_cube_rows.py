"""Cube copies of GM tensors whose rows have a run-time length (tests/filecheck/backend/
matmul_row_length.mlir): the Nd2Nz `srcDValue` (and an f32 right operand's band stride) and
the Fixpipe `dstStride` are the kernels' dimension parameters. One g++ build runs at the
tiles' own row lengths and at longer, unaligned ones, and matches the interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.interpreter.tolerance import program_precision, tolerance_for
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate_sizes

pytestmark = pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")

PROGRAM = (Path(__file__).parent / "filecheck" / "backend" / "matmul_row_length.mlir").read_text()

# the tiles' own extents (no gap between rows), then rows longer than the tiles, of odd lengths
SIZES = [{"D": 64, "B": 32, "K": 32, "N": 48}, {"D": 100, "B": 45, "K": 37, "N": 61}]


def test_one_build_runs_both_row_lengths_and_matches_the_interpreter(tmp_path, monkeypatch):
    builds = []
    real_build = sim.build
    monkeypatch.setattr(sim, "build", lambda *a, **k: builds.append(a) or real_build(*a, **k))
    reference = parse_program(PROGRAM)
    module = parse_program(PROGRAM)
    apply_pipeline(module, "pypto-default")
    reports = simulate_sizes(module, tmp_path, SIZES, reference_module=reference, profile=True)
    assert len(builds) == 1
    precision = program_precision(reference)
    for binding, report in zip(SIZES, reports):
        assert set(report.outputs) == {"s", "c"}
        assert report.outputs["s"].shape == (16, binding["B"]) and report.outputs["c"].shape == (16, binding["N"])
        for name, got in report.outputs.items():
            want = report.reference[name]
            assert tolerance_for(want, precision).close(want, got).all(), (binding, name, report.max_abs_error)
        # each kernel writes its [16, 32] product once: rows of the run-time length, 32 columns each
        assert [launch["counters"]["gm_written"] for launch in report.profile] == [16 * 32 * 4] * 2
