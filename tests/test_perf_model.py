"""Calibration of the simulation's cost model (docs/performance.md) with hand-written Ascend C
kernels in the style of the devkit samples (tests/perf_kernels/*.cpp): the model must order
them as is known from the published Atlas A2 measurements, and every kernel must compute the
right result. The kernels also type-check against the real devkit headers (make check-headers)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc.sim.profile import by_kernel, read_profile, run_kernel_source

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the simulation")

KERNELS = Path(__file__).parent / "perf_kernels"
BLOCKS = 48
N = BLOCKS * 4 * 8192  # 4 tiles of 8192 floats per block
RNG = np.random.default_rng(17)
X = RNG.standard_normal(N).astype(np.float32)
Y = RNG.standard_normal(N).astype(np.float32)

ADD_VARIANTS = {
    "double": dict(BUFFER_NUM=2),
    "single": dict(BUFFER_NUM=1),
    "small_bursts": dict(BUFFER_NUM=2, TILE_LENGTH=512),
    "barrier_per_instruction": dict(BUFFER_NUM=2, SYNC_ALL=1),
}


def _run_add(defines, tmp: Path):
    return run_kernel_source(
        KERNELS / "eltwise_stream.cpp", "eltwise_stream", BLOCKS,
        [X, Y, np.zeros(8, np.float32), np.zeros(N, np.float32), N], defines=defines, work_dir=tmp,
    )


@pytest.fixture(scope="module")
def add_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("add")
    with ThreadPoolExecutor(2) as pool:  # each variant is a separate g++ build
        futures = {name: pool.submit(_run_add, d, base / name) for name, d in ADD_VARIANTS.items()}
        return {name: f.result() for name, f in futures.items()}


def test_every_add_variant_computes_the_sum(add_runs):
    for name, run in add_runs.items():
        np.testing.assert_array_equal(run.outputs[3], X + Y, err_msg=name)


def test_double_buffering_beats_single_buffering(add_runs):
    double, single = add_runs["double"].profile, add_runs["single"].profile
    assert double.cycles < single.cycles * 0.97
    # both are bound by GM bandwidth; double buffering keeps the GM port busier
    assert double.bounding_pipe == single.bounding_pipe == "GM"
    assert double.utilisation()["GM"] > single.utilisation()["GM"]


def test_bigger_bursts_beat_smaller_ones(add_runs):
    big, small = add_runs["double"].profile, add_runs["small_bursts"].profile
    assert big.cycles < small.cycles * 0.97
    assert small.counters["dma"] == 16 * big.counters["dma"]
    assert small.counters["dma_max_burst"] == 2048 and big.counters["dma_min_burst"] == 32768


def test_a_barrier_per_instruction_costs(add_runs):
    free, serial = add_runs["double"].profile, add_runs["barrier_per_instruction"].profile
    assert serial.cycles > free.cycles * 1.05
    assert serial.counters["barriers_all"] == 4 * (N // 8192)  # after the 2 loads, the Add and the store of a tile
    assert free.counters["barriers_all"] == 0


def test_streaming_add_is_near_the_bandwidth_roofline(add_runs):
    k = add_runs["double"].profile
    assert k.counters["gm_read"] == k.counters["gm_read_unique"] == 2 * N * 4
    assert k.counters["gm_written"] == k.counters["gm_written_unique"] == N * 4
    assert k.counters["vec_repeats"] == N // 64  # one 256-byte repeat per 64 floats
    assert k.blocks == k.cores == BLOCKS
    assert 0.9 < k.gm_roofline_cycles() / k.cycles <= 1.0


def test_cost_parameters_can_be_overridden(tmp_path):
    """PYPTO_SIM_COST changes the model, not the result: with zero DMA latency and twice the
    bandwidth the same kernel is estimated faster."""
    base = _run_add(dict(BUFFER_NUM=2), tmp_path / "a")
    fast = run_kernel_source(
        KERNELS / "eltwise_stream.cpp", "eltwise_stream", BLOCKS,
        [X, Y, np.zeros(8, np.float32), np.zeros(N, np.float32), N], defines=dict(BUFFER_NUM=2),
        cost_params={"dma_latency": 0, "hbm_gbps": 3200}, work_dir=tmp_path / "b",
    )
    np.testing.assert_array_equal(fast.outputs[3], X + Y)
    assert fast.profile.cycles < 0.6 * base.profile.cycles


ROWS, COLS = 2 * 8 * 8, 1024  # 8 blocks of 16 rows: 2 tiles of 8 rows each


@pytest.mark.parametrize("op", [0, 1, 2], ids=["softmax", "rmsnorm", "layernorm"])
def test_row_kernels(tmp_path, op):
    x = RNG.standard_normal((ROWS, COLS)).astype(np.float32)
    run = run_kernel_source(
        KERNELS / "rows.cpp", "rows", 8, [x, np.zeros_like(x), ROWS], defines=dict(OP=op), work_dir=tmp_path
    )
    if op == 0:
        e = np.exp(x - x.max(1, keepdims=True))
        want = e / e.sum(1, keepdims=True)
    elif op == 1:
        want = x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-6)
    else:
        xc = x - x.mean(1, keepdims=True)
        want = xc / np.sqrt((xc * xc).mean(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(run.outputs[1], want, rtol=2e-5, atol=1e-6)
    k = run.profile
    # halving trees: log2(1024 / 64) = 4 levels, so few barriers per tile; all data touched once
    assert k.counters["gm_read"] == k.counters["gm_read_unique"] == x.nbytes
    assert k.counters["barriers_v"] <= 2 * (ROWS // 8) * (16 if op == 2 else 14)


def test_tiled_matmul_on_the_cube_path(tmp_path):
    m = n = k = 256
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    runs = {}
    for name, d in {"double": {}, "single": {"BUFFER_NUM": 1}}.items():
        runs[name] = run_kernel_source(
            KERNELS / "matmul_tiled.cpp", "matmul_tiled", 4, [a, b, np.zeros((m, n), np.float32)],
            defines=dict(M_SIZE=m, N_SIZE=n, K_SIZE=k, **d), work_dir=tmp_path / name,
        )
        np.testing.assert_allclose(
            runs[name].outputs[2], a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3
        )
    dbl, sgl = runs["double"].profile, runs["single"].profile
    assert dbl.core_type == "aic" and dbl.counters["mmad_macs"] == m * n * k
    assert dbl.counters["mmad"] == (m // 128) * (n // 128) * (k // 128)
    # 4 output tiles on 4 cores: panels of A and B are shared by 2 blocks each, half from L2
    assert dbl.counters["l2_hit_bytes"] > 0
    assert dbl.cycles < sgl.cycles


def test_pypto_compile_profile_and_report(tmp_path):
    """`pypto-compile --sim --profile --report` prints the estimate and the metrics, and adds
    them to the kernel's header comment."""
    src = Path(__file__).parent.parent / "examples" / "spmd_rows.py"
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "pypto_xdsl.tools.pypto_compile", str(src), "-o", str(out), "--sim", "--profile",
         "--report"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "cost model (estimates for Ascend 910B" in text
    assert "kernel rows:" in text and "bound by" in text and "4 blocks on 4 AIV cores" in text
    assert "GM read 24.00 KiB (24.00 KiB distinct, ratio 1.00)" in text
    assert "GM traffic vs the program's minimum" in text
    assert "simulation matches the interpreter" in text
    header = (out / "kernels" / "rows.cpp").read_text().splitlines()[:12]
    assert any(line.startswith("// Cost-model metrics of the simulated run") for line in header)
    launches = read_profile(out / "sim-run" / "profile.jsonl")
    assert [rec["kernel"] for rec in launches] == ["rows"]
    assert by_kernel(launches)["rows"].counters["vec"] > 0


def test_pypto_compile_report_sizes_the_minimum_of_dynamic_tensors_by_dim(tmp_path):
    """`--report --dim N=...`: the program's minimum GM traffic counts each dynamic tensor at
    that run's extent (a, b read, o written: 3 * N * 128 * 4 bytes), one line per run."""
    src = Path(__file__).parent / "backend_inputs" / "dynamic_elementwise.mlir"
    proc = subprocess.run(
        [sys.executable, "-m", "pypto_xdsl.tools.pypto_compile", str(src), "-o", str(tmp_path / "out"), "--sim",
         "--report", "--dim", "N=16,40"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    runs = proc.stdout.split("run at ")[1:]
    assert [run.splitlines()[0] for run in runs] == ["N=16:", "N=40:"]
    for run, n in zip(runs, (16, 40)):
        (line,) = [line for line in run.splitlines() if "GM traffic vs the program's minimum" in line]
        assert f"minimum {3 * n * 128 * 4 / 1024:.2f} KiB:" in line


@pytest.mark.parametrize("op", [0, 2], ids=["softmax", "layernorm"])
def test_prefetching_the_next_copy_in_beats_the_sample_loop(tmp_path, op):
    """The sample-style loop (copy-in, compute, copy-out per tile) issues tile i+1's copy-in
    only once the scalar unit has issued tile i's compute, which outlasts the vector queue:
    the GM port idles during the compute. Issuing the next copy-in first (PREFETCH) keeps it
    busy: same results, fewer cycles, whatever the queue depth."""
    x = RNG.standard_normal((ROWS * 2, COLS)).astype(np.float32)
    runs = {}
    for prefetch in (0, 1):
        for depth in (32, 1024):
            runs[prefetch, depth] = run_kernel_source(
                KERNELS / "rows.cpp", "rows", 8, [x, np.zeros_like(x), x.shape[0]],
                defines=dict(OP=op, PREFETCH=prefetch), cost_params={"queue_depth": depth},
                work_dir=tmp_path / f"p{prefetch}-{depth}")
    np.testing.assert_array_equal(runs[0, 32].outputs[1], runs[1, 32].outputs[1])
    assert runs[1, 32].profile.cycles < 0.85 * runs[0, 32].profile.cycles
    assert runs[1, 1024].profile.cycles < runs[0, 1024].profile.cycles
    assert runs[1, 32].profile.cycles == runs[1, 1024].profile.cycles


def test_mix_kernel_cores_that_overlap_beat_cores_that_take_turns(tmp_path):
    """A MIX kernel's AIC and AIV are separate cores on timelines of their own, joined only by
    their cross-core flags: the hand-written flash attention whose loops are software-pipelined
    by one key block (the cube computes the next scores while the vector core works on this
    block's softmax) beats the same kernel in the order where the two cores take turns. One
    build (the order is a run-time argument)."""
    import math

    S, D = 256, 128
    rng = np.random.default_rng(3)
    q, v = (rng.uniform(-1, 1, (S, D)).astype(np.float16) for _ in range(2))
    kt = rng.uniform(-1, 1, (D, S)).astype(np.float16)
    s = q.astype(np.float32) @ kt.astype(np.float32) / math.sqrt(D)
    e = np.exp(s - s.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True) @ v.astype(np.float32)
    blocks, workspace = S // 64, (2 * 64 * 64 * 4 + 2 * 64 * 64 * 2 + 2 * 64 * 128 * 4)
    runs = {}
    for pipelined in (0, 1):
        runs[pipelined] = run_kernel_source(
            KERNELS / "attention_mix.cpp", "attention_mix", blocks,
            [q, kt, v, np.zeros((S, D), np.float32), np.zeros(blocks * workspace, np.uint8), pipelined, 1 / math.sqrt(D)],
            defines={"SEQ": S}, mix=True, work_dir=tmp_path / f"p{pipelined}")
        np.testing.assert_allclose(runs[pipelined].outputs[3], want, rtol=2e-2, atol=2e-3)
    turns, overlapped = runs[0].profile, runs[1].profile
    assert overlapped.core_type == "mix" and overlapped.counters["cross_sets"] == overlapped.counters["cross_waits"]
    assert {"AIC M", "AIC FIX", "AIV V", "AIV MTE3"} <= set(overlapped.busy)  # each core's pipes, separately
    # same instructions, same work per pipe: only the overlap differs
    assert overlapped.counters == turns.counters
    assert overlapped.busy["AIC M"] == turns.busy["AIC M"] and overlapped.busy["AIV V"] == turns.busy["AIV V"]
    assert overlapped.cycles < 0.8 * turns.cycles, (overlapped.cycles, turns.cycles)


MIX_TIMELINES = r"""
#include <cstdio>
#include "pypto_sim/cost.h"
using namespace pypto_sim::cost;
int main() {
  begin_launch("mix_1_2", 1);
  begin_mix_block(2);  // one AIC (core 0) and two AIVs (cores 1, 2)
  enter_core(0);
  mmad(128, 128, 1024, 2);          // M busy 4,106 cycles
  cross_core_set(2 /* PIPE_M */, 1);
  enter_core(2);
  vector("Exp", 4, 3000, 0);        // AIV1 is busy until after the Mmad before it waits
  barrier(6 /* PIPE_ALL */);
  enter_core(1);
  cross_core_wait(0 /* PIPE_S */, 1);
  const double aiv0_resumes = block().s;
  vector("Add", 4, 10, 0);
  cross_core_set(1 /* PIPE_V */, 2);
  enter_core(2);
  cross_core_wait(0, 1);
  const double aiv1_resumes = block().s;
  vector("Add", 4, 10, 0);
  cross_core_set(1, 2);
  const double aiv1_set = block().pipe[V].done;
  enter_core(0);
  cross_core_wait(0, 2);            // needs the setting of both AIVs (mode 2)
  std::printf("%.1f %.1f %.1f %.1f %.1f\n", group().core[0].pipe[M].done, aiv0_resumes, aiv1_resumes, aiv1_set,
              block().s);
  return 0;
}
"""


def test_mix_timelines_fit_one_aic_and_two_aivs(tmp_path):
    """The cost model's MIX block has a timeline per core, laid out for KERNEL_TYPE_MIX_AIC_1_2
    too: an AIC setting releases each AIV's wait, and the AIC's wait needs both AIVs' settings
    (mode 2), each cross_core_latency after the set pipe's work is visible."""
    from pypto_xdsl.backend.ascendc import sim

    (tmp_path / "t.cpp").write_text(MIX_TIMELINES)
    exe = tmp_path / "t"
    subprocess.run([sim.compiler(), "-std=c++17", "-O0", f"-I{sim.SIM_INCLUDE_DIR}", str(tmp_path / "t.cpp"), "-o",
                    str(exe)], check=True)
    m_done, aiv0, aiv1, aiv1_set, aic = map(float, subprocess.run([str(exe)], capture_output=True, text=True,
                                                                   check=True).stdout.split())
    latency = 50  # cross_core_latency
    assert aiv0 == pytest.approx(m_done + latency)  # AIV0 was idle: it waits for the AIC's Mmad
    assert aiv1 > aiv0 + 1000  # AIV1 reached its wait later (a PIPE_ALL barrier after 6,000 cycles of Exp)
    assert aic == pytest.approx(aiv1_set + latency)  # the later of the two AIVs' settings
