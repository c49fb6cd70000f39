"""`pl.spmd(n, sync_start=True)`: every block starts at once, so all of them must be resident.

* compile time: more blocks than the target's cores for the kernel's kind is a located error
  (the FileCheck tests `backend/sync_start*.test` hold the messages and the host code);
* run time: the host asks the device for its cores (aclGetDeviceCapability) before the
  launch; the simulated ACL reports the cost model's counts, so a device with fewer cores
  (PYPTO_SIM_COST) makes the launch return ACL_ERROR_INVALID_PARAM, and one with enough runs
  it and matches the interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter import run

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

Rows = pl.Tensor[[64, 64], pl.FP32]


@pl.program
class SyncStartRows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: Rows, o: pl.Out[Rows]) -> Rows:
        i = pl.tile.get_block_idx()
        return pl.store(pl.exp(pl.load(a, [i * 16, 0], [16, 64])), [i * 16, 0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: Rows, o: pl.Out[Rows]) -> Rows:
        with pl.spmd(4, sync_start=True):
            o = self.scale(a, o)
        return o


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, (64, 64)).astype(np.float32), np.zeros((64, 64), np.float32)]


@needs_gxx
def test_a_sync_start_launch_runs_when_the_device_holds_every_block(tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    reference = SyncStartRows.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "out", inputs=_inputs(), reference_module=reference)
    expected = _inputs()
    run(reference, "main", expected)
    np.testing.assert_allclose(report.outputs["o"], expected[1], rtol=1e-6, atol=1e-6)


@needs_gxx
def test_a_sync_start_launch_on_a_device_with_too_few_cores_returns_an_error(tmp_path: Path, monkeypatch):
    from pypto_xdsl.backend.ascendc.sim import SimulationError
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    module = SyncStartRows.fresh_module()
    apply_pipeline(module, default_pipeline())
    monkeypatch.setenv("PYPTO_SIM_COST", "aiv_cores=2")
    with pytest.raises(SimulationError, match=r"sync_start launch of scale on 4 blocks, but the device runs 2 at once"):
        simulate(module, tmp_path / "out", inputs=_inputs(), compare=False)
