"""LoadData with LoadData3DParamsV2 in the CPU simulation (kernel_operator.h): the windows it
moves into L0A and L0B (whole tiles, `mStartPt`/`kStartPt` windows, feature maps of several
rows), checked through the product the cube computes from them, and its MTE1 time (the Cube
appendix's table 4: `mte1_issue` + bytes / bandwidth, the bandwidth falling with the rows of the
feature map a window spans). tests/backend_sim/load3d_matmul.cpp is the kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc.sim.profile import run_kernel_source

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the simulation")

SOURCE = Path(__file__).parent / "backend_sim" / "load3d_matmul.cpp"
M, K, N = 32, 64, 48
COST = {"mte1_issue": 10, "l0a_bytes_per_cycle": 256, "l0b_bytes_per_cycle": 128}


def _bandwidth(rows: int, to_l0b: bool) -> float:
    """Table 4 of the devkit's Cube appendix, strideW = 1: n = 1 row as LoadData 2D."""
    if rows == 1:
        return COST["l0b_bytes_per_cycle" if to_l0b else "l0a_bytes_per_cycle"]
    return max(512 // (rows + 4), 512 // 18) if to_l0b else max(512 // (rows + 2), 32)


def _run(dtype, mode: int, tmp_path: Path):
    rng = np.random.default_rng(mode)
    a = rng.integers(-4, 5, (M, K)).astype(dtype)  # small integers: every product is exact
    b = rng.integers(-4, 5, (K, N)).astype(dtype)
    c = np.zeros((M, N), np.float32)
    run = run_kernel_source(SOURCE, "load3d_matmul", 1, [a, b, c, mode], cost_params=COST,
                            defines={"ELEM_F32": int(dtype == np.float32)}, work_dir=tmp_path)
    return a.astype(np.float32), b.astype(np.float32), run


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_whole_tiles(dtype, tmp_path):
    a, b, run = _run(dtype, 0, tmp_path)
    np.testing.assert_array_equal(run.outputs[2], a @ b)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_windows_from_start_points(dtype, tmp_path):
    a, b, run = _run(dtype, 1, tmp_path)
    want = np.zeros((M, N), np.float32)
    want[:16, :32] = a[16:32, 16:48] @ b[16:48, 16:48]
    np.testing.assert_array_equal(run.outputs[2], want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_feature_maps_of_several_rows(dtype, tmp_path):
    a, b, run = _run(dtype, 2, tmp_path)
    np.testing.assert_array_equal(run.outputs[2], a @ b)


def test_mte1_time_follows_the_cube_appendix(tmp_path):
    eb = 2
    for mode, (rows_a, rows_b) in {0: (1, 1), 2: (2, 4)}.items():
        _, _, run = _run(np.float16, mode, tmp_path / str(mode))
        want = (COST["mte1_issue"] + M * K * eb / _bandwidth(rows_a, False)
                + COST["mte1_issue"] + K * N * eb / _bandwidth(rows_b, True))
        assert run.profile.busy["MTE1"] == pytest.approx(want), mode
        assert run.profile.counters["mte1"] == 2
