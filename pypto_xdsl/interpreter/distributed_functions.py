"""Interpreter implementations of the rank-group ops (`pypto.dist.*`).

A host function runs with a `RankGroup` of `world_size` ranks (`run(..., world_size=N)`).
`dispatch` launches its callee on a rank of its own interpreter and thread (see
`interpreter.ranks`: the ranks run one at a time, switching where one blocks); they run to
their end when the host function ends. Every rank has its own global memory: tensors the
host passes are shared storage, as the host's arrays are on every device here, and the
windows are a `WindowBuffer` (an array per rank) each rank sees through a `WindowArray`.
A program `localize-windows` made a device's runs on a `DeviceWindows` (`run(device=...)`):
its windows are views of the byte regions at the offsets it is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, register_impls

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.attributes import AtomicKind
from pypto_xdsl.dialects.distributed_comm import (
    BarrierOp,
    GetOp,
    LocalWindowOp,
    NranksOp,
    PutOp,
    RankOp,
    RemoteLoadOp,
    RemoteStoreOp,
)
from pypto_xdsl.dialects.distributed_device import DeviceNranksOp, DeviceRankOp, WindowAtOp
from pypto_xdsl.dialects.distributed_host import AllocWindowOp, DispatchOp, WindowOp, WorldSizeOp
from pypto_xdsl.dialects.functions import FuncOp
from pypto_xdsl.interpreter.functions import check_write, fail, pimpl, state
from pypto_xdsl.interpreter.ranks import DeviceWindows, RankGroup, RanksDeadlocked, WindowArray, WindowBuffer
from pypto_xdsl.interpreter.values import PyptoInterpretationError, Unwinding, numpy_dtype


def group_of(interpreter: Interpreter, op: Any) -> RankGroup:
    group = state(interpreter).group
    if group is None:
        raise fail(
            interpreter, op,
            f"{op.name} needs a group of ranks: run the host function with world_size= "
            f"(a @pl.jit.host function with RunConfig(distributed_config=DistributedConfig(device_ids=[...])))",
        )
    return group


def window_of(interpreter: Interpreter, op: Any, value: Any) -> WindowArray:
    if not isinstance(value, WindowArray) or value.buffer is None:
        raise fail(
            interpreter, op,
            f"{op.name} addresses other ranks' windows: this window belongs to no group (the "
            f"function runs alone; dispatch it from a host function)",
        )
    if value.rank is None:
        raise fail(interpreter, op, f"{op.name}: the host's window belongs to no rank")
    return value


def peer_of(interpreter: Interpreter, op: Any, window: WindowArray, peer: Any) -> int:
    p = int(peer)
    size = len(window.buffer.arrays)  # type: ignore[union-attr]
    if not 0 <= p < size:
        raise fail(interpreter, op, f"{op.name}: peer {p} is not a rank of the group of {size} (0..{size - 1})")
    return p


def _window_box(interpreter: Interpreter, op: Any, array: np.ndarray, offsets: Any, shape: tuple[int, ...]):
    index = tuple(int(o) for o in offsets)
    if any(i < 0 or i + n > d for i, n, d in zip(index, shape, array.shape)):
        raise fail(
            interpreter, op,
            f"{op.name}: the window {list(shape)} at {list(index)} is outside the window of shape {list(array.shape)}",
        )
    return tuple(slice(i, i + n) for i, n in zip(index, shape))


def device_of(interpreter: Interpreter, op: Any) -> DeviceWindows:
    device = state(interpreter).device
    if device is None:
        raise fail(
            interpreter, op,
            f"{op.name} reaches a window by its byte offset in a device's communication region: "
            f"run this localized rank program with device=DeviceWindows(rank, regions) "
            f"(or run the program before localize-windows)",
        )
    return device


def block(interpreter: Interpreter, op: Any, group: RankGroup, ready: Any, where: str) -> None:
    try:
        group.block_until(ready, where)
    except RanksDeadlocked as e:
        raise fail(interpreter, op, str(e)) from None


@register_impls
class DistributedFunctions(InterpreterFunctions):
    @pimpl(WorldSizeOp)
    def run_world_size(self, interpreter: Interpreter, op: WorldSizeOp, args: PythonValues):
        return (group_of(interpreter, op).size,)

    @pimpl(AllocWindowOp)
    def run_alloc_window(self, interpreter: Interpreter, op: AllocWindowOp, args: PythonValues):
        t = op.buffer.type
        shape = tuple(int(d) for d in t.get_shape())  # type: ignore[arg-type]
        return (WindowBuffer(group_of(interpreter, op), shape, numpy_dtype(t.element_type)),)

    @pimpl(WindowOp)
    def run_window(self, interpreter: Interpreter, op: WindowOp, args: PythonValues):
        (buffer,) = args
        shape = tuple(int(d) for d in op.result.type.get_shape())  # type: ignore[arg-type]
        return (buffer.view(None, shape),)

    @pimpl(DispatchOp)
    def run_dispatch(self, interpreter: Interpreter, op: DispatchOp, args: PythonValues):
        group = group_of(interpreter, op)
        *call_args, device = args
        rank = int(device)
        if not 0 <= rank < group.size:
            raise fail(interpreter, op, f"device {rank} is not a rank of the group of {group.size} (0..{group.size - 1})")
        callee = lookup_symbol(op, op.callee.string_value())
        assert isinstance(callee, FuncOp)
        bound = tuple(a.bound_to(rank) if isinstance(a, WindowArray) else a for a in call_args)
        st = state(interpreter)
        if st.dispatcher is not None:
            st.dispatcher(callee.sym_name.data, rank, bound)
            return ()
        assert st.spawn is not None
        sub = st.spawn()
        sub_st = state(sub)
        sub_st.check_directions = st.check_directions
        sub_st.group = group
        name = f"rank {rank} (@{callee.sym_name.data})"

        def body() -> None:
            with np.errstate(all="ignore"):
                try:
                    sub.call_op(callee, bound)
                except Unwinding as unwinding:
                    error = unwinding.error
                    if isinstance(error, PyptoInterpretationError) and not error.detail.startswith("on rank"):
                        raise PyptoInterpretationError(f"on rank {rank}: {error.detail}", error.op, error.func) from None
                    raise error from None

        group.launch(rank, name, body)
        return ()

    @pimpl(RankOp)
    def run_rank(self, interpreter: Interpreter, op: RankOp, args: PythonValues):
        (window,) = args
        if isinstance(window, WindowArray) and window.rank is not None:
            return (window.rank,)
        return (0,)  # a function run alone is rank 0 of a group of one

    @pimpl(NranksOp)
    def run_nranks(self, interpreter: Interpreter, op: NranksOp, args: PythonValues):
        (window,) = args
        if isinstance(window, WindowArray) and window.buffer is not None:
            return (len(window.buffer.arrays),)
        return (1,)

    @pimpl(LocalWindowOp)
    def run_local(self, interpreter: Interpreter, op: LocalWindowOp, args: PythonValues):
        (window,) = args
        return (np.asarray(window),)

    @pimpl(RemoteLoadOp)
    def run_remote_load(self, interpreter: Interpreter, op: RemoteLoadOp, args: PythonValues):
        window, *rest = args
        offsets, peer = rest[:-1], rest[-1]
        w = window_of(interpreter, op, window)
        remote = w.on(peer_of(interpreter, op, w, peer))
        shape = tuple(int(d) for d in op.result.type.get_shape())  # type: ignore[arg-type]
        return (np.array(remote[_window_box(interpreter, op, remote, offsets, shape)], copy=True),)

    @pimpl(RemoteStoreOp)
    def run_remote_store(self, interpreter: Interpreter, op: RemoteStoreOp, args: PythonValues):
        tile, window, *rest = args
        offsets, peer = rest[:-1], rest[-1]
        w = window_of(interpreter, op, window)
        remote = w.on(peer_of(interpreter, op, w, peer))
        remote[_window_box(interpreter, op, remote, offsets, tuple(tile.shape))] = tile
        return ()

    @pimpl(PutOp)
    def run_put(self, interpreter: Interpreter, op: PutOp, args: PythonValues):
        dst, peer, src = args
        w = window_of(interpreter, op, dst)
        remote = w.on(peer_of(interpreter, op, w, peer))
        check_write(interpreter, op, remote)
        if op.atomic.data == AtomicKind.ADD:
            remote += np.asarray(src)
        else:
            remote[...] = np.asarray(src)
        return ()

    @pimpl(GetOp)
    def run_get(self, interpreter: Interpreter, op: GetOp, args: PythonValues):
        dst, peer, src = args
        s = window_of(interpreter, op, src)
        local = np.asarray(dst)
        check_write(interpreter, op, local)
        local[...] = s.on(peer_of(interpreter, op, s, peer))
        return ()

    @pimpl(BarrierOp)
    def run_barrier(self, interpreter: Interpreter, op: BarrierOp, args: PythonValues):
        (signal,) = args
        w = window_of(interpreter, op, signal)
        group = w.buffer.group  # type: ignore[union-attr]
        with group.cond:
            ready = group.arrive(id(w.buffer))
        name = op.signal.name_hint or "signal"
        block(interpreter, op, group, ready, f"pld.tensor.barrier on %{name}")
        return ()

    @pimpl(DeviceRankOp)
    def run_device_rank(self, interpreter: Interpreter, op: DeviceRankOp, args: PythonValues):
        device = state(interpreter).device
        return (0 if device is None else device.rank,)  # a device alone is rank 0 of a group of one

    @pimpl(DeviceNranksOp)
    def run_device_nranks(self, interpreter: Interpreter, op: DeviceNranksOp, args: PythonValues):
        device = state(interpreter).device
        return (1 if device is None else len(device.regions),)

    @pimpl(WindowAtOp)
    def run_window_at(self, interpreter: Interpreter, op: WindowAtOp, args: PythonValues):
        device = device_of(interpreter, op)
        offset = int(args[0])
        rank = device.rank if op.peer is None else int(args[1])
        size = len(device.regions)
        if not 0 <= rank < size:
            raise fail(interpreter, op, f"{op.name}: rank {rank} is not a rank of the group of {size} (0..{size - 1})")
        t = op.result.type
        shape = tuple(int(d) for d in t.get_shape())
        dtype = numpy_dtype(t.element_type)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        region = device.regions[rank]
        if offset < 0 or offset + nbytes > region.size:
            raise fail(
                interpreter, op,
                f"{op.name}: the window of {nbytes} bytes at byte {offset} is outside rank {rank}'s region "
                f"of {region.size} bytes",
            )
        if offset % dtype.itemsize:
            raise fail(interpreter, op, f"{op.name}: byte offset {offset} is not aligned to its {dtype} elements")
        return (region[offset : offset + nbytes].view(dtype).reshape(shape),)
