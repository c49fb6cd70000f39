"""Static kernel metrics (`analysis.kernel_metrics`): one block's instruction counts on the
ascendc IR. Where no instruction is under data-dependent control they are exact, and equal
the simulation's dynamic counters of the same kernel (divided by its blocks): instructions,
sync, GM bytes and bursts, vector repeats; a kernel whose copies are guarded by a run-time
test says its counts are not exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_xdsl.analysis.kernel_metrics import COUNTERS, kernel_metrics
from pypto_xdsl.backend.ascendc.sim import compiler
from pypto_xdsl.backend.ascendc.sim import profile as prof
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.tools.pypto_compile import apply_pipeline, main, parse_program, simulate
from pypto_xdsl.transforms.pipelines import lower_for_ascendc

PROGRAMS = Path(__file__).parent / "filecheck" / "backend"


def _static(module) -> dict[str, object]:
    return {k.sym_name.data: kernel_metrics(k) for k in lower_for_ascendc(module).body.block.ops if isinstance(k, KernelOp)}


@pytest.mark.skipif(compiler() is None, reason="needs g++ for the simulation")
@pytest.mark.parametrize("name,exact", [("matmul", {"matmul_kernel": True}),
                                        ("matmul_panel", {"k": False, "one_step": True}),
                                        ("scalar_ops", {"scalar_kernel": True}),
                                        ("row_broadcast", dict.fromkeys(("wide", "tall", "halves", "ints"), True))])
def test_exact_static_counts_are_the_simulations(tmp_path, name, exact):
    module = parse_program((PROGRAMS / f"{name}.mlir").read_text())
    static = _static(module)
    report = simulate(module, tmp_path, profile=True, compare=False)
    kernels = prof.by_kernel(report.profile)
    assert set(kernels) == set(exact)
    for kernel, run in kernels.items():
        metrics = static[kernel]
        assert metrics.exact == exact[kernel], kernel
        counted = {c: metrics.counts[c] * run.blocks for c in COUNTERS}
        dynamic = {c: run.counters.get(c, 0) for c in COUNTERS}
        if metrics.exact:
            assert counted == dynamic, kernel
            # the GM side too: bytes, bursts and their sizes, read off the copies' parameters
            assert counted["gm_read"] + counted["gm_written"] > 0 and metrics.gm_runtime == 0
            assert metrics.bursts == (run.counters["dma_min_burst"], run.counters["dma_max_burst"]), kernel
            # and every vector instruction's repeats (level 0, level 2, reductions, Brcb)
            assert metrics.vec_runtime == 0 and (counted["vec"] == 0 or counted["vec_repeats"] > 0), kernel
        else:
            # the panel's chunk copies are guarded by `n == 0`: counted in every N block
            assert counted["dma"] > dynamic["dma"] and counted["set_flags"] > dynamic["set_flags"]


def test_counts_multiply_by_static_trip_counts():
    (metrics,) = _static(parse_program((PROGRAMS / "matmul.mlir").read_text())).values()
    # a peeled first K step and a loop of one more: two of each cube instruction
    assert (metrics.counts["mmad"], metrics.counts["mte1"], metrics.counts["fixpipe"]) == (2, 4, 1)
    assert metrics.counts["dma"] == 5  # four Nd2Nz copies and the Fixpipe
    assert "L0C 16384/131072 (12%)" in "\n".join(metrics.lines())


@pytest.mark.skipif(compiler() is None, reason="needs g++ for the simulation")
def test_report_prints_and_annotates_the_static_counts(tmp_path, capsys):
    out = tmp_path / "out"
    assert main([str(PROGRAMS / "matmul.mlir"), "-o", str(out), "--report"]) == 0
    printed = capsys.readouterr().out
    assert "static counts (per block):" in printed
    assert "DMA 5 (of which Fixpipe 1), vector 0, Mmad 2, LoadData 4" in printed
    header = (out / "kernels" / "matmul_kernel.cpp").read_text()
    assert "//   static counts (per block):" in header


def test_gm_bytes_and_bursts_of_a_kernel_and_copies_of_run_time_size():
    (metrics,) = _static(parse_program((PROGRAMS / "matmul.mlir").read_text())).values()
    c = metrics.counts
    # A [64, 128] and B [128, 64] f16 in two K steps of 64: four Nd2Nz copies of 64 rows of
    # 128 bytes; C [64, 64] f32 out through one Fixpipe: 64 rows of 256 bytes
    assert (c["gm_read"], c["gm_written"], c["dma_bursts"]) == (4 * 64 * 128, 64 * 256, 4 * 64 + 64)
    assert metrics.bursts == (128, 256)
    assert "  GM: read 32.00 KiB, written 16.00 KiB, 320 bursts, burst 128..256 B (mean 154 B)" in metrics.lines()
    # a right operand of run-time valid width: its Nd2Nz dValue and Fixpipe nSize are run-time
    module = parse_program((PROGRAMS / "matmul_valid_width.mlir").read_text())
    apply_pipeline(module, "convert-tensor-to-tile")  # as its RUN line
    ragged = _static(module)
    assert any(m.gm_runtime > 0 for m in ragged.values())
    assert any("DMA of run-time size not counted" in line for m in ragged.values() for line in m.lines())
