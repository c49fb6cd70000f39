"""`pypto_xdsl.runtime.ChipWorker`: registering compiled programs, dispatching them with host
arrays and worker-owned tensors, numerics against numpy on the interpreter and the sim target,
and the errors for misuse (a closed worker, a tensor freed twice, a handle or tensor of
another worker, arguments of another specialisation)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.runtime import ChipWorker, DeviceTensor, RegistrationHandle, RunConfig

ROWS, COLS = 16, 64
N = pl.dynamic("N")
INTERPRETER = RunConfig(target="interpreter")


@pl.jit
def axpy(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.mul(pl.load(a, [0, 0], [ROWS, COLS]), 2.0), pl.load(b, [0, 0], [ROWS, COLS]))
        pl.store(t, [0, 0], c)
    return c


@pl.jit
def halve_rows(x: pl.Tensor[[N, COLS], pl.FP32], out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]):
    for i in pl.range(N):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(x, [i, 0], [1, COLS]), 0.5), [i, 0], out)
    return out


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    b = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    return a, b, np.zeros((ROWS, COLS), np.float32)


def test_a_registered_handle_runs_the_program_in_place():
    a, b, out = _inputs()
    with ChipWorker(config=INTERPRETER) as worker:
        handle = worker.register(axpy.compile(a, b, out, config=INTERPRETER))
        assert isinstance(handle, RegistrationHandle)
        handle(a, b, out)
        np.testing.assert_allclose(out, 2 * a + b, rtol=1e-6)
        out2 = np.zeros_like(out)
        worker.run(handle.compiled, b, a, out2)
        np.testing.assert_allclose(out2, 2 * b + a, rtol=1e-6)


def test_a_device_tensor_is_uploaded_once_and_reused_and_close_frees_it():
    a, b, out = _inputs(1)
    worker = ChipWorker(config=INTERPRETER)
    weight = worker.alloc_tensor(b.shape, np.float32, init=b)
    result = worker.alloc_tensor((ROWS, COLS), pl.FP32)
    assert isinstance(weight, DeviceTensor) and weight.shape == (ROWS, COLS) and weight.nbytes == b.nbytes
    b[:] = 0  # the worker holds its own copy
    handle = worker.register(axpy.compile(a, a, out, config=INTERPRETER))
    for step in range(3):
        x = np.full((ROWS, COLS), float(step), np.float32)
        handle(x, weight, out)
        np.testing.assert_allclose(out, 2 * x + worker.read_tensor(weight), rtol=1e-6)
    handle(a, weight, result)
    np.testing.assert_allclose(worker.read_tensor(result), 2 * a + worker.read_tensor(weight), rtol=1e-6)
    assert not np.any(b)
    worker.close()
    with pytest.raises(RuntimeError, match="the worker is closed"):
        worker.read_tensor(weight)


def test_register_counts_each_program_once():
    a, b, out = _inputs()
    worker = ChipWorker(config=INTERPRETER)
    compiled = axpy.compile(a, b, out, config=INTERPRETER)
    assert worker.aicpu_dlopen_count == 0
    first, second = worker.register(compiled), worker.register(compiled)
    for _ in range(3):
        first(a, b, out)
        second(a, b, out)
    assert worker.aicpu_dlopen_count == 1
    worker.close()


def test_one_dynamic_specialisation_serves_every_extent_on_the_interpreter():
    worker = ChipWorker(config=INTERPRETER)
    handle = worker.register(halve_rows.compile(np.zeros((4, COLS), np.float32), np.zeros((4, COLS), np.float32),
                                                config=INTERPRETER))
    for rows in (4, 7):
        x = np.arange(rows * COLS, dtype=np.float32).reshape(rows, COLS)
        out = np.zeros_like(x)
        handle(x, out)
        np.testing.assert_allclose(out, x * 0.5)
    worker.close()


def test_a_program_compiled_by_run_dispatches_in_both_styles():
    from pypto_xdsl.frontend.program import load_python
    from pypto_xdsl.runtime import run

    program = load_python(
        """
import pypto_xdsl.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        o = pl.assemble(o, pl.mul(x, x), [0, 0])
        return o
""",
        "p.py",
    ).programs[0]
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    with ChipWorker(config=INTERPRETER) as worker:
        handle = worker.register(run(program, config=INTERPRETER))
        np.testing.assert_allclose(handle(x), x * x)
        out = worker.alloc_tensor((4, 4), np.float32)
        assert handle(worker.alloc_tensor((4, 4), np.float32, init=x), out) is None
        np.testing.assert_allclose(worker.read_tensor(out), x * x)


@pytest.mark.skipif(shutil.which("g++") is None, reason="the sim target builds with g++")
def test_the_sim_target_matches_numpy():
    sim = RunConfig(target="sim")
    a, b, out = _inputs(2)
    with ChipWorker(config=sim) as worker:
        weight = worker.alloc_tensor(b.shape, np.float32, init=b)
        handle = worker.register(axpy.compile(a, b, out, config=sim))
        assert handle.compiled.sim is not None  # built at register
        handle(a, weight, out)
        np.testing.assert_allclose(out, 2 * a + b, rtol=1e-5, atol=1e-6)
        assert worker.aicpu_dlopen_count == 1


# ---- misuse


def test_running_after_close_says_the_worker_is_closed():
    a, b, out = _inputs()
    worker = ChipWorker(config=INTERPRETER)
    compiled = axpy.compile(a, b, out, config=INTERPRETER)
    handle = worker.register(compiled)
    worker.close()
    with pytest.raises(RuntimeError, match=r"this handle of axpy\(.*\) was unregistered or its ChipWorker closed"):
        handle(a, b, out)
    with pytest.raises(RuntimeError, match=r"ChipWorker\.run\(\): the worker is closed"):
        worker.run(compiled, a, b, out)
    with pytest.raises(RuntimeError, match=r"ChipWorker\.register\(\): the worker is closed"):
        worker.register(compiled)
    worker.close()  # idempotent
    worker.init()
    worker.register(compiled)(a, b, out)
    np.testing.assert_allclose(out, 2 * a + b, rtol=1e-6)


def test_freeing_a_tensor_twice_or_using_it_after_free_is_an_error():
    a, b, out = _inputs()
    worker = ChipWorker(config=INTERPRETER)
    t = worker.alloc_tensor((ROWS, COLS), np.float32, init=a)
    worker.free_tensor(t)
    with pytest.raises(RuntimeError, match=r"ChipWorker\.free_tensor\(\): DeviceTensor\(shape=\(16, 64\), dtype=float32\) was already freed"):
        worker.free_tensor(t)
    handle = worker.register(axpy.compile(a, b, out, config=INTERPRETER))
    with pytest.raises(RuntimeError, match="was already freed"):
        handle(t, b, out)
    other = ChipWorker(config=INTERPRETER)
    foreign = other.alloc_tensor((ROWS, COLS), np.float32)
    with pytest.raises(RuntimeError, match="belongs to another ChipWorker"):
        handle(a, foreign, out)


def test_an_unknown_handle_or_program_is_an_error():
    a, b, out = _inputs()
    worker = ChipWorker(config=INTERPRETER)
    handle = worker.register(axpy.compile(a, b, out, config=INTERPRETER))
    handle.unregister()
    with pytest.raises(RuntimeError, match="was unregistered"):
        handle(a, b, out)
    with pytest.raises(TypeError, match=r"takes a compiled program .*got JitFunction \(call fn\.compile"):
        worker.register(axpy)
    with pytest.raises(TypeError, match="got RegistrationHandle"):
        worker.run(handle, a, b, out)
    with pytest.raises(TypeError, match="is compiled for the interpreter target and this worker runs on the sim"):
        ChipWorker(config=RunConfig(target="sim")).register(handle.compiled)


def test_arguments_of_another_specialisation_are_rejected():
    a, b, out = _inputs()
    worker = ChipWorker(config=INTERPRETER)
    handle = worker.register(axpy.compile(a, b, out, config=INTERPRETER))
    wide = np.zeros((ROWS, 2 * COLS), np.float32)
    with pytest.raises(TypeError, match=r"the arguments axpy\(.*\) do not match the program registered"):
        handle(wide, wide, wide)


@pytest.mark.parametrize(
    ("shape", "dtype", "init", "message"),
    [
        ((0, 4), np.float32, None, "shape must be non-empty and positive"),
        ((4, 4), np.float64, None, "pl has no dtype for float64"),
        ((4, 4), "nonsense", None, "is not a dtype"),
        ((4, 4), np.float32, np.zeros((4, 5), np.float32), r"init is float32\[4, 5\], the tensor float32\[4, 4\]"),
    ],
)
def test_alloc_tensor_rejects_bad_shapes_dtypes_and_inits(shape, dtype, init, message):
    worker = ChipWorker(config=INTERPRETER)
    with pytest.raises(TypeError, match=message) as raised:
        worker.alloc_tensor(shape, dtype, init=init)
    assert isinstance(raised.value, ParserError)  # printed as a located diagnostic, no traceback
