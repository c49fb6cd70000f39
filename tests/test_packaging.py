"""The wheel holds everything an installed pypto-xdsl needs: the simulation headers, the
console scripts and the xDSL universe (stock `xdsl-opt` sees the dialect, passes and the
`ascendc` target); installed outside the repository, `pypto-compile --sim` works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {
    "pypto_xdsl/backend/ascendc/sim/include/kernel_operator.h",
    "pypto_xdsl/backend/ascendc/sim/include/acl/acl.h",
    "pypto_xdsl/backend/ascendc/sim/include/pypto_sim/core.h",
    "pypto_xdsl/backend/ascendc/sim/include/pypto_sim/launch.h",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True, capture_output=True, timeout=300,
    )
    (path,) = out.glob("pypto_xdsl-*.whl")
    return path


def test_the_wheel_holds_the_simulation_headers_and_the_entry_points(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert HEADERS <= names, sorted(HEADERS - names)
    assert {n for n in names if n.startswith("pypto_xdsl/") and n.endswith(".h")} >= HEADERS
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for line in ("pypto-opt = pypto_xdsl.tools.pypto_opt:main", "pypto-compile = pypto_xdsl.tools.pypto_compile:entry_point",
                 "pypto-run = pypto_xdsl.tools.pypto_run:entry", "pypto = pypto_xdsl.universe:PYPTO_UNIVERSE"):
        assert line in text, text
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the simulation")
def test_installed_outside_the_repository_pypto_compile_simulates(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(ROOT / "examples" / "fused_softmax.mlir", work / "prog.mlir")
    code = (
        "import sys, pypto_xdsl; assert pypto_xdsl.__file__.startswith(sys.argv[1]), pypto_xdsl.__file__;"
        "from pypto_xdsl.tools.pypto_compile import main; sys.exit(main(['prog.mlir', '-o', 'out', '--sim']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(target)], cwd=work, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "simulation matches the interpreter" in proc.stdout


def test_stock_xdsl_opt_prints_ascend_c():
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    proc = subprocess.run(
        [str(xdsl_opt), str(ROOT / "examples" / "fused_softmax.mlir"), "-p", "pypto-default", "-t", "ascendc"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("// ===== file: kernels/fused_softmax.cpp =====")
    assert "extern \"C\" __global__ __aicore__ void fused_softmax" in proc.stdout
