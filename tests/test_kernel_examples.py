"""The kernels under examples/kernels/ (layernorm with gamma/beta, rmsnorm with a weight row,
gelu in its tanh form, a bias add after a matmul), written in the DSL as a kernel author
would: each matches numpy in the interpreter, before and after `pypto-default`, and goes
through `pypto-opt -p pypto-default` with no tensor compute left in its InCore functions.

`pypto-compile --sim` compiles each to Ascend C, builds it against the CPU simulation and
matches the interpreter.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.py"))


def _tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def test_the_four_kernels_exist():
    assert {p.stem for p in KERNELS} >= {"layernorm", "rmsnorm", "gelu_tanh", "matmul_bias"}


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernel_matches_numpy(path: Path):
    spec = importlib.util.spec_from_file_location(f"kernel_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check()


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernel_through_the_default_pipeline(path: Path):
    result = subprocess.run(
        [_tool("pypto-opt"), str(path), "-p", "pypto-default,verify-convert-tensor-to-tile"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    again = subprocess.run([_tool("pypto-opt")], input=result.stdout, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == result.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernel_compiles_and_matches_in_simulation(path: Path, tmp_path: Path):
    result = subprocess.run(
        [_tool("pypto-compile"), str(path), "-o", str(tmp_path / "out"), "--sim"], capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "simulation matches the interpreter" in result.stdout, result.stdout
