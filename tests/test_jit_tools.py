"""pypto-run / pypto-compile on .py files with @pl.jit functions, and torch-style tensors."""

from __future__ import annotations

import shutil
import sys
import types

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.tools import pypto_compile, pypto_run

SOURCE = '''
import pypto_xdsl.language as pl

@pl.jit
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor], factor: pl.FP32):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.mul(pl.load(x, [0, 0], [8, 32]), factor), [0, 0], out)
    return out

@pl.program
class Unrelated:
    @pl.function
    def main(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return a
'''


@pytest.fixture
def jit_file(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(SOURCE)
    return path


def test_pypto_run_runs_a_jit_function(jit_file, tmp_path, capsys):
    x = np.arange(8 * 32, dtype=np.float32).reshape(8, 32)
    np.save(tmp_path / "x.npy", x)
    argv = [str(jit_file), "--entry", "scale", "--shape", "x=8x32:f32", "--shape", "out=8x32:f32",
            "--scalar", "factor=0.5", "--input", f"x={tmp_path / 'x.npy'}", "-o", str(tmp_path / "res")]
    assert pypto_run.main(argv) == 0
    np.testing.assert_allclose(np.load(tmp_path / "res" / "arg_1.npy"), 0.5 * x)
    assert "out argument #1 %out: [8, 32] float32" in capsys.readouterr().out


def test_pypto_run_reports_missing_specialisation(jit_file, capsys):
    assert pypto_run.main([str(jit_file), "--entry", "scale", "--shape", "x=8x32:f32"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: parameter 'out' of scale(x, out, factor) has no static type")


def test_pypto_run_runs_a_program_file(jit_file, capsys):
    assert pypto_run.main([str(jit_file)]) == 0  # no --entry: the file's @pl.program
    assert "result #0: [4] float32" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("g++") is None, reason="--sim builds with g++")
def test_pypto_compile_simulates_a_jit_function(jit_file, tmp_path, capsys):
    argv = [str(jit_file), "-o", str(tmp_path / "out"), "--entry", "scale", "--shape", "x=8x32:f16",
            "--shape", "out=8x32:f16", "--scalar", "factor=2", "--sim"]
    assert pypto_compile.main(argv) == 0, capsys.readouterr().err
    assert "simulation matches the interpreter" in capsys.readouterr().out
    assert (tmp_path / "out" / "kernels" / "scale_incore_0.cpp").exists()


# --------------------------------------------------------------------------- torch-style tensors


class _FakeDevice:
    type = "cpu"


class FakeTensor:
    """The part of torch.Tensor the runtime uses (torch itself is not a dependency)."""

    def __init__(self, data: np.ndarray, dtype: str):
        self.data_ = data
        self.dtype = f"torch.{dtype}"
        self.device = _FakeDevice()

    def detach(self):
        return self

    def numpy(self):
        if self.dtype == "torch.bfloat16":
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.data_

    def float(self):
        return FakeTensor(self.data_.astype(np.float32).copy(), "float32")

    def copy_(self, other):
        self.data_[...] = other.data_
        return self


@pytest.fixture
def fake_torch(monkeypatch):
    torch = types.ModuleType("torch")
    torch.Tensor = FakeTensor
    torch.bfloat16 = "torch.bfloat16"
    torch.from_numpy = lambda a: FakeTensor(a, "float32")

    class _NoGrad:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    torch.no_grad = _NoGrad
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


@pl.jit
def halve(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.mul(pl.load(x, [0, 0], [4, 16]), 0.5), [0, 0], out)
    return out


@pl.jit
def exp_of(x: pl.Tensor):
    return pl.exp(x)


def test_torch_tensors_are_written_in_place_and_results_come_back_as_tensors(fake_torch):
    x = FakeTensor(np.full((4, 16), 3.0, np.float32), "float32")
    out = FakeTensor(np.zeros((4, 16), np.float32), "float32")
    assert halve(x, out) is out
    np.testing.assert_allclose(out.data_, 1.5)
    y = exp_of(x)
    assert isinstance(y, FakeTensor)
    np.testing.assert_allclose(y.data_, np.exp(3.0), rtol=1e-6)


def test_bf16_torch_tensors_go_through_a_float32_copy(fake_torch):
    x = FakeTensor(np.full((4, 16), 3.0, np.float32), "bfloat16")  # bf16 values carried as float32
    out = FakeTensor(np.zeros((4, 16), np.float32), "bfloat16")
    halve(x, out)
    np.testing.assert_allclose(out.data_, 1.5)
    lowered = halve.specialize(x, out)
    assert "bf16" in str(lowered)
