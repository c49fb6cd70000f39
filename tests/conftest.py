"""Test-suite setup: the test helper modules next to this file are importable
(`from reference_support import ...`); pytest runs with `--import-mode=importlib`, which
puts no test directory on `sys.path`.

Simulation builds share one precompiled header per header set and a content-addressed cache
of executables (`PYPTO_SIM_PCH_CACHE`, `PYPTO_SIM_BUILD_CACHE`; see backend/ascendc/sim) in a
temporary folder of this session, which the xdist workers inherit: tests that build the same
program share one g++ run. The folder is removed at the end of the session."""

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

_SIM_CACHE_VARS = ("PYPTO_SIM_PCH_CACHE", "PYPTO_SIM_BUILD_CACHE")


def pytest_configure(config):
    if hasattr(config, "workerinput") or any(os.environ.get(v) for v in _SIM_CACHE_VARS):
        return  # an xdist worker (the controller set them), or set by the caller
    root = Path(tempfile.mkdtemp(prefix="pypto-test-sim-"))
    config._pypto_sim_cache = root
    os.environ["PYPTO_SIM_PCH_CACHE"] = str(root / "pch")
    os.environ["PYPTO_SIM_BUILD_CACHE"] = str(root / "builds")


def pytest_unconfigure(config):
    root = getattr(config, "_pypto_sim_cache", None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)
        for v in _SIM_CACHE_VARS:
            os.environ.pop(v, None)
