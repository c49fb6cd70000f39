"""Every DSL example under examples/ compiles, runs and matches its numpy reference."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples_exist():
    assert {p.name for p in EXAMPLES} >= {"softmax.py", "scopes.py", "windows.py"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_and_matches_numpy(path: Path):
    module = _load(path)
    module.check()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_pypto_opt_reads_example(path: Path):
    opt = Path(sys.executable).parent / "pypto-opt"
    result = subprocess.run([str(opt), str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "pypto.func" in result.stdout and "Traceback" not in result.stderr


def test_benchmark_program_generator_compiles():
    spec = importlib.util.spec_from_file_location("bench_frontend", ROOT / "benchmarks" / "bench_frontend.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    source, count = bench.generate(600)
    assert count >= 600 and source.count("\n") >= count
    statements, wall, cpu, ops = bench.measure(600)
    assert statements >= 600 and ops > statements and wall > 0 and cpu > 0


def _tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_pypto_opt_runs_the_default_pipeline_on_example(path: Path):
    """`pypto-opt prog.py -p pypto-default`: frontend, passes, and printed IR that parses back."""
    result = subprocess.run(
        [_tool("pypto-opt"), str(path), "-p", "pypto-default"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "incore_scope" not in result.stdout  # outlined by the pipeline
    again = subprocess.run([_tool("pypto-opt")], input=result.stdout, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == result.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_pypto_compile_builds_and_simulates_example(path: Path, tmp_path: Path):
    """`pypto-compile prog.py -o out --sim`: kernels and host code that agree with the interpreter."""
    out = tmp_path / "out"
    result = subprocess.run(
        [_tool("pypto-compile"), str(path), "-o", str(out), "--sim"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "simulation matches the interpreter" in result.stdout
    assert list((out / "kernels").glob("*.cpp")) and (out / "CMakeLists.txt").is_file()


def test_pypto_compile_reports_frontend_errors_without_traceback(tmp_path: Path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import pypto_xdsl.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
        "        y = x[0:n]\n"
        "        return y\n"
    )
    for tool, extra in (("pypto-compile", ["-o", str(tmp_path / "out")]), ("pypto-opt", [])):
        result = subprocess.run([_tool(tool), str(bad), *extra], capture_output=True, text=True, timeout=120)
        assert result.returncode == 1, (tool, result.stdout, result.stderr)
        assert f"{bad}:7:17: error: the extent of '0:n'" in result.stderr, (tool, result.stderr)
        assert "Traceback" not in result.stderr
