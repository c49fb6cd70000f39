"""Every DSL example under examples/ compiles, runs and matches its numpy reference."""

from __future__ import annotations

import importlib.util
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
    assert {p.name for p in EXAMPLES} >= {"softmax.py", "scopes.py"}


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
