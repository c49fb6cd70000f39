"""@pl.jit on the sim target: Ascend C built with g++ against the CPU simulation, cached on disk."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_python
from pypto_xdsl.runtime import RunConfig
from pypto_xdsl.runtime import cache as disk_cache

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="the sim target builds with g++")

SIM = RunConfig(target="sim")
ROWS, COLS = 16, 64
N = pl.dynamic("N")


@pl.jit
def softmax_rows(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))
        out = pl.store(pl.row_expand_div(e, pl.row_sum(e)), [0, 0], out)
    return out


@pl.jit
def twice_rows(x: pl.Tensor[[N, COLS], pl.FP32], out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]):
    for i in pl.range(N):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 2.0), [i, 0], out)
    return out


@pl.jit
def fresh(x: pl.Tensor):
    return pl.exp(x)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_XDSL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_sim_target_runs_writes_in_place_and_matches_the_interpreter(cache_dir):
    x = np.random.default_rng(1).standard_normal((ROWS, COLS)).astype(np.float32)
    out = np.zeros_like(x)
    softmax_rows.cache_clear()
    assert softmax_rows(x, out, config=RunConfig(target="sim", verify=True)) is out
    np.testing.assert_allclose(out, softmax(x), rtol=1e-5, atol=1e-6)
    info = softmax_rows.cache_info()
    assert (info.misses, info.sim_builds) == (1, 1)
    out2 = np.zeros_like(x)
    softmax_rows(x, out2, config=SIM)  # cached in memory: nothing built, nothing compiled
    assert (info.misses, info.hits, info.sim_builds) == (1, 1, 1)
    np.testing.assert_array_equal(out, out2)
    softmax_rows.cache_clear()  # a new process: the build comes from the disk cache
    softmax_rows(x, out2, config=SIM)
    assert (softmax_rows.cache_info().sim_builds, softmax_rows.cache_info().sim_disk_hits) == (0, 1)
    assert len(list(cache_dir.glob("sim-*"))) == 1


def test_disk_cache_is_invalidated_by_source_and_compiler_changes(cache_dir, tmp_path, monkeypatch):
    source = '''
import pypto_xdsl.language as pl

@pl.jit
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.mul(pl.load(x, [0, 0], [8, 32]), FACTOR), [0, 0], out)
    return out
'''
    x = np.ones((8, 32), np.float32)

    def run(factor_text: str) -> tuple[np.ndarray, object]:
        fn = load_python(f"FACTOR = {factor_text}\n" + source, str(tmp_path / "scale.py")).jit_functions["scale"]
        out = np.zeros_like(x)
        fn(x, out, config=SIM)
        return out, fn.cache_info()

    out, info = run("2.0")
    assert info.sim_builds == 1 and out[0, 0] == 2.0
    out, info = run("2.0")  # the same program, loaded again: a disk hit
    assert (info.sim_builds, info.sim_disk_hits) == (0, 1)
    out, info = run("3.0")  # the source changed: rebuilt
    assert info.sim_builds == 1 and out[0, 0] == 3.0
    monkeypatch.setattr(disk_cache, "compiler_fingerprint", lambda: "another compiler")
    out, info = run("3.0")  # the compiler changed: rebuilt
    assert info.sim_builds == 1 and out[0, 0] == 3.0
    assert len(list(cache_dir.glob("sim-*"))) == 3


def test_one_sim_build_serves_every_extent_of_a_dynamic_dimension(cache_dir):
    """N reaches the host code and the kernel at run time: one build, run at each size (N = 0
    launches nothing: the host loop has no iteration), keyed as "any" like the interpreter."""
    twice_rows.cache_clear()
    for rows in (3, 5, 1, 17, 0):
        x = np.arange(rows * COLS, dtype=np.float32).reshape(rows, COLS)
        out = np.full_like(x, -1.0)
        twice_rows(x, out, config=RunConfig(target="sim", verify=True))
        np.testing.assert_array_equal(out, 2 * x)
    info = twice_rows.cache_info()
    assert (info.misses, info.hits, info.sim_builds) == (1, 4, 1)
    twice_rows(np.ones((3, COLS), np.float32), np.zeros((3, COLS), np.float32))  # interpreter: its own entry
    assert twice_rows.cache_info().misses == 2


@pl.jit
def twice_cols(x: pl.Tensor[[ROWS, N], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.mul(pl.load(x, [0, 0], [ROWS, 8]), 2.0), [0, 0], out)
    return out


def test_one_sim_build_serves_every_row_length(cache_dir):
    """A run-time row length N of whole [16, 8] tiles: the copies take the run-time GM gap
    (N - 8 elements after each row), so one build serves every N of at least the tile's width."""
    twice_cols.cache_clear()
    for cols in (8, 16, 13):
        x = np.arange(ROWS * cols, dtype=np.float32).reshape(ROWS, cols)
        out = np.zeros_like(x)
        twice_cols(x, out, config=RunConfig(target="sim", verify=True))
        np.testing.assert_array_equal(out[:, :8], 2 * x[:, :8])
        np.testing.assert_array_equal(out[:, 8:], 0)
    info = twice_cols.cache_info()
    assert (info.misses, info.sim_builds) == (1, 1)


@pl.jit
def twice_head(x: pl.Tensor[[N], pl.FP32], out: pl.Out[pl.Tensor[[N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.mul(pl.load(x, [0], [8]), 2.0), [0], out)
    return out


def test_a_dimension_the_backend_cannot_pass_is_specialised_per_extent(cache_dir):
    """A whole tile of a 1-D tensor of a run-time length is not lowered (docs/backend.md): the
    sim target falls back to a build per extent, and the failed attempt counts as no build."""
    twice_head.cache_clear()
    for n in (8, 16):
        x = np.arange(n, dtype=np.float32)
        out = np.zeros_like(x)
        twice_head(x, out, config=SIM)
        np.testing.assert_array_equal(out[:8], 2 * x[:8])
    info = twice_head.cache_info()
    assert (info.misses, info.sim_builds) == (2, 2)


def test_sim_results_must_be_out_parameters(cache_dir):
    with pytest.raises(ParserError, match="result #0 of fresh.* is not one of its tensor parameters"):
        fresh(np.ones((4, 8), np.float32), config=SIM)


def test_saved_build_and_codegen_only(cache_dir, tmp_path):
    x = np.zeros((ROWS, COLS), np.float32)
    out = np.full_like(x, 7.0)
    assert softmax_rows(x, out, config=RunConfig(target="sim", codegen_only=True)) is None
    assert out[0, 0] == 7.0  # built, not run
    softmax_rows(x, out, config=RunConfig(target="sim", save_kernels_dir=tmp_path / "kept"))
    kept = tmp_path / "kept"
    assert (kept / "build-sim" / "pypto_main").exists() and (kept / "host" / "main.cpp").exists()
    assert (kept / "program.mlir").exists()


def test_lower_on_the_sim_target_builds_nothing(cache_dir):
    softmax_rows.cache_clear()
    x = np.zeros((ROWS, COLS), np.float32)
    lowered = softmax_rows.lower(x, x, config=SIM)
    assert "softmax_rows_incore_0" in lowered.functions
    assert softmax_rows.cache_info().sim_builds == 0 and not list(cache_dir.glob("sim-*"))
