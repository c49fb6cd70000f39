"""Multi-rank programs: `@pl.jit.host` orchestrators dispatching `@pl.jit` functions to ranks,
window buffers and the cross-rank ops, run on the interpreter (ranks modelled in-process)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto_xdsl.language as pl
import pypto_xdsl.language.distributed as pld
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.ir.distributed_compiled_program import DistributedConfig, DistributedConfigError
from pypto_xdsl.runtime import RunConfig

SIZE = 64
NR = pl.dynamic("NR")


def group(n: int) -> RunConfig:
    return RunConfig(target="interpreter", distributed_config=DistributedConfig(device_ids=list(range(n))))


@pl.jit.incore
def scale(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], rank: pl.Scalar[pl.INT32]):
    t = pl.load(x, [0, 0], [1, SIZE])
    t = pl.mul(t, pl.cast(rank, target_type=pl.FP32))
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def scale_rank(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], rank: pl.Scalar[pl.INT32]):
    return scale(x, y, rank)


@pl.jit.host
def scale_all(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        scale_rank(x[r], y[r], r, device=r)


@pl.jit.incore
def ring(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(dst)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    t = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(t, dst, peer=peer, offsets=[0, 0])
    pld.system.notify(signal, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    back = pl.load(dst, [0, 0], [1, SIZE])
    y = pl.store(back, [0, 0], y)
    return y


@pl.jit
def ring_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return ring(x, y, dst, signal)


@pl.jit.host
def ring_all(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        ring_rank(x[r], y[r], dst, signal, device=r)


@pl.jit.incore
def pull(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[2, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(src)
    t = pl.load(x, [0, 0], [1, SIZE])
    src = pl.store(t, [0, 0], src)
    signal = pld.tensor.barrier(signal)
    pld.tensor.get(dst, peer=(pld.rank(ctx) + 1) % pld.nranks(ctx), src=src)
    back = pl.load(dst, [0, 0], [1, SIZE])
    y = pl.store(back, [0, 0], y)
    return y


@pl.jit
def pull_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    src: pld.DistributedTensor[[1, SIZE], pl.FP32],
    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
    signal: pld.DistributedTensor[[2, 1], pl.INT32],
):
    return pull(x, y, src, dst, signal)


@pl.jit.host
def pull_all(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [2, 1], dtype=pl.INT32)
        pull_rank(x[r], y[r], src, dst, signal, device=r)


@pl.jit.incore
def wait_forever(y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    return y


@pl.jit
def stuck_rank(y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    return wait_forever(y, signal)


@pl.jit.host
def stuck_all(y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stuck_rank(y[r], pld.window(signal_buf, [1, 1], dtype=pl.INT32), device=r)


def _world(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.standard_normal((n, 1, SIZE)).astype(np.float32), np.zeros((n, 1, SIZE), np.float32)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_rank_runs_its_dispatch(n):
    x, y = _world(n)
    scale_all(x, y, config=group(n))
    np.testing.assert_allclose(y, x * np.arange(n, dtype=np.float32).reshape(n, 1, 1))


def test_host_function_ir_has_dispatch_and_windows():
    x, y = _world(2)
    text = str(ring_all.specialize(x, y, config=group(2)))
    assert "pypto.func host @ring_all" in text
    assert "pypto.dist.world_size : index" in text
    assert "pypto.dist.alloc_window : !pypto.window_buffer<[1, 64], f32>" in text
    assert "pypto.dist.window %dst_buf" in text
    assert "device %r" in text
    assert "pypto.func orchestration @ring_rank" in text


@pytest.mark.parametrize("n", [2, 3, 4])
def test_remote_store_and_signals_shift_the_ring(n):
    x, y = _world(n)
    compiled = ring_all.compile(x, y, config=group(n))
    compiled(x, y)  # runs on the group it was compiled for
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))


@pytest.mark.parametrize("n", [2, 3])
def test_barrier_orders_a_get(n):
    x, y = _world(n)
    pull_all(x, y, config=group(n))
    np.testing.assert_array_equal(y, np.roll(x, -1, axis=0))


def test_a_wait_no_rank_satisfies_is_a_deadlock_diagnostic():
    _, y = _world(2)
    with pytest.raises(ParserError, match=r"the ranks deadlock, none can go on: rank 0 \(@stuck_rank\) waits at "
                       r"pld.system.wait on %signal\[0, 0\] >= 1; rank 1 \(@stuck_rank\) waits at"):
        stuck_all(y, config=group(2))


def test_host_function_needs_a_group():
    x, y = _world(2)
    with pytest.raises(ParserError, match=r"runs on a group of ranks: pass RunConfig\(distributed_config="):
        scale_all(x, y, config=RunConfig(target="interpreter"))


@pl.jit.incore
def roundtrip(
    x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], data: pld.DistributedTensor[[1, SIZE], pl.FP32]
):
    t = pl.load(x, [0, 0], [1, SIZE])
    data = pl.store(pl.add(t, t), [0, 0], data)
    back = pl.load(data, [0, 0], [1, SIZE])
    y = pl.store(back, [0, 0], y)
    return y


@pl.jit
def roundtrip_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]], data: pld.DistributedTensor[[1, SIZE], pl.FP32]
):
    return roundtrip(x, y, data)


@pl.jit.host
def roundtrip_all(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        roundtrip_rank(x[r], y[r], pld.window(data_buf, [1, SIZE], dtype=pl.FP32), device=r)


def sim_group(n: int) -> RunConfig:
    return RunConfig(target="sim", distributed_config=DistributedConfig(device_ids=list(range(n))))


@pytest.mark.parametrize("target", ["interpreter", "sim"])
def test_each_rank_writes_its_own_window(target):
    x, y = _world(2)
    roundtrip_all(x, y, config=group(2) if target == "interpreter" else sim_group(2))
    np.testing.assert_array_equal(y, x + x)


@pytest.mark.parametrize("n", [2, 4])
def test_sim_remote_store_and_signals_match_the_interpreter(n):
    """Each rank a simulated device of its own, the group's windows shared: the ring's
    remote_store + notify/wait give the interpreter's result on 2 and 4 ranks."""
    x, y = _world(n)
    want = np.zeros_like(y)
    ring_all(x, want, config=group(n))
    ring_all(x, y, config=sim_group(n))
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))


def test_sim_barrier_and_get_match_the_interpreter():
    """The builtin barrier (its [2, 1] signal: one row per rank) orders a get."""
    x, y = _world(2)
    want = np.zeros_like(y)
    pull_all(x, want, config=group(2))
    pull_all(x, y, config=sim_group(2))
    np.testing.assert_array_equal(y, want)


def test_sim_wait_no_rank_satisfies_is_a_deadlock_diagnostic():
    _, y = _world(2)
    with pytest.raises(ParserError, match=r"the ranks deadlock, none can go on .*rank 0 waits, reading 0 at byte 0 "
                       r"of window buffer 'stuck_rank.signal' of rank 0; rank 1 waits"):
        stuck_all(y, config=sim_group(2))


def test_sub_workers_are_reported():
    x, y = _world(1)
    config = RunConfig(target="interpreter", distributed_config=DistributedConfig(device_ids=[0], num_sub_workers=1))
    with pytest.raises(ParserError, match=r"num_sub_workers=1\): host sub-workers \(callbacks\) are not modelled"):
        scale_all(x, y, config=config)


@pytest.mark.parametrize("ids", [[], [0, 0], [-1]])
def test_distributed_config_checks_its_devices(ids):
    with pytest.raises(DistributedConfigError):
        DistributedConfig(device_ids=ids)


def test_device_keyword_outside_a_host_function():
    @pl.jit
    def entry(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]]):
        return scale(x, y, 1, device=0)

    x, y = _world(1)
    with pytest.raises(ParserError, match=r"dispatches to a rank: only a @pl.jit.host function launches"):
        entry(x[0], y[0], config=RunConfig(target="interpreter"))


def test_host_calls_an_entry_without_device():
    @pl.jit.host
    def host(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
        scale_rank(x[0], y[0], 0)

    x, y = _world(1)
    with pytest.raises(ParserError, match=r"'scale_rank' runs on a rank: a @pl.jit.host function dispatches it with"):
        host(x, y, config=group(1))


def test_world_size_outside_a_host_function():
    @pl.jit
    def entry(x: pl.Tensor[[1, SIZE], pl.FP32]):
        for _ in pl.range(pld.world_size()):
            pass

    x, _ = _world(1)
    with pytest.raises(ParserError, match=r"pld.world_size runs on the host of a rank group"):
        entry(x[0], config=RunConfig(target="interpreter"))


def test_window_of_a_tensor_is_located():
    @pl.jit.host
    def host(x: pl.Tensor[[NR, 1, SIZE], pl.FP32]):
        pld.window(x, [1, SIZE], dtype=pl.FP32)

    x, _ = _world(1)
    with pytest.raises(ParserError, match=r"'buffer' of pld.window must be a window buffer \(pld.alloc_window_buffer\)"):
        host(x, config=group(1))


def test_window_larger_than_its_buffer_is_located():
    @pl.jit.host
    def host(x: pl.Tensor[[NR, 1, SIZE], pl.FP32]):
        buf = pld.alloc_window_buffer([1, 8], dtype=pl.FP32)
        pld.window(buf, [1, SIZE], dtype=pl.FP32)

    x, _ = _world(1)
    with pytest.raises(ParserError, match=r"pld.window: the window !pypto.dist_tensor<\[1, 64\], f32> has 64 elements"):
        host(x, config=group(1))


def test_host_function_called_from_jit_is_located():
    @pl.jit
    def entry(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
        scale_all(x, y)

    x, y = _world(1)
    with pytest.raises(ParserError, match=r"is a @pl.jit.host orchestrator and cannot be called from a jit function"):
        entry(x, y, config=RunConfig(target="interpreter"))


def test_host_level_program_functions_are_located():
    with pytest.raises(ParserError, match=r"HOST-level functions of a @pl.program .* are not supported"):

        @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
        def callback(f: pl.Tensor[[8, 8], pl.FP32]): ...


# --------------------------------------------------------------------------- localized rank programs


def _localized_ring():
    from pathlib import Path

    from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program

    text = (Path(__file__).parent / "filecheck" / "backend" / "remote_windows.mlir").read_text()
    module = parse_program(text)
    apply_pipeline(module, "localize-windows")
    return module


@pytest.mark.parametrize("n", [2, 3])
def test_localized_ring_on_the_interpreter_matches_the_windows_form(n):
    """localize-windows keeps a rank program's meaning: the ring (remote store, atomic notify,
    wait) run as devices (each rank's program on a thread of its own, its windows byte offsets
    of shared regions) gives what the windows form gives on a group of ranks."""
    import threading

    from pypto_xdsl.interpreter.api import run
    from pypto_xdsl.interpreter.ranks import DeviceWindows

    module = _localized_ring()
    x, want = _world(n)
    ring_all(x, want, config=group(n))
    dst, sig = 0, 512  # the windows' byte offsets in every rank's region
    regions = [np.zeros(1024, dtype=np.uint8) for _ in range(n)]
    y = np.zeros_like(want)
    errors: list[BaseException] = []

    def rank_program(r: int) -> None:
        try:
            run(module, "ring", [x[r], y[r], dst, sig], device=DeviceWindows(r, regions), max_steps=2_000_000)
        except BaseException as e:  # noqa: BLE001 - reported by the test below
            errors.append(e)

    threads = [threading.Thread(target=rank_program, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(regions[1][:256].view(np.float32), x[0].reshape(-1))
    assert all(r[sig : sig + 4].view(np.int32)[0] == 1 for r in regions)


def test_localized_window_needs_a_device():
    from pypto_xdsl.interpreter.api import run
    from pypto_xdsl.interpreter.values import PyptoInterpretationError

    x, y = _world(1)
    with pytest.raises(PyptoInterpretationError, match=r"pypto.dist.window_at reaches a window by its byte offset .*"
                       r"device=DeviceWindows\(rank, regions\)"):
        run(_localized_ring(), "ring", [x[0], y[0], 0, 512])


def test_localized_window_outside_its_region_is_located():
    from pypto_xdsl.interpreter.api import run
    from pypto_xdsl.interpreter.ranks import DeviceWindows
    from pypto_xdsl.interpreter.values import PyptoInterpretationError

    x, y = _world(1)
    regions = [np.zeros(600, dtype=np.uint8)]
    with pytest.raises(PyptoInterpretationError, match=r"the window of 256 bytes at byte 512 is outside rank 0's region of 600 bytes"):
        run(_localized_ring(), "ring", [x[0], y[0], 512, 0], device=DeviceWindows(0, regions))
