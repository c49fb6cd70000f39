"""`localize-windows`: a rank's program as the program of one device of its group.

A function a host dispatches to a rank takes its windows as `!pypto.dist_tensor` parameters.
Built as the program of one device (the sim target builds and runs each rank as a device of
its own), a window lives in the rank's communication region (HCCL's *windows in*: one
region per rank, every one visible to every rank of the group), at a byte offset the host
chose when it allocated the window buffer. This pass makes every `!pypto.dist_tensor`
parameter that offset (an `i64` parameter) and rewrites what uses it into the device-level
ops of `pypto_xdsl.dialects.distributed_device` and ordinary tile / tensor ops:

* `pypto.dist.local %w` -> `pypto.dist.window_at %w` (this rank's window);
* `pypto.dist.rank` / `nranks` -> `pypto.dist.device_rank` / `device_nranks`;
* `remote_load` / `remote_store` -> a `tile.load` / `tile.store` of `window_at %w rank %peer`;
* `put` / `get` -> the whole window in one tile: loaded from the source, stored into the
  destination (`put #pypto<atomic add>`: an atomic store);
* `pypto.system.notify` -> one element of the peer's signal window: `tensor.write` (`set`),
  or an atomic store of a 1x1 tile (`atomic_add`, SetAtomicAdd + a 4-byte copy);
* `pypto.system.wait` -> an `scf.while` reading the local signal element until it compares;
* `pypto.dist.barrier %sig` -> the self-clearing credit barrier: +1 into row `rank` of every
  peer's signal, wait until every peer's row of the own signal is >= 1, take that credit
  back (-1), so the signal is reusable.

Fails, naming the op, on `pypto.system.defer_wait` (a deferred completion needs the task
runtime), any other use of a window (a window passed to a host-side op), and on a `host`
function (the program of a group, not of one device).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import AtomicKind, FuncKind, MemorySpace, ParamDirection, TensorType, TileType
from pypto_xdsl.dialects.distributed import DeferWaitOp, DistributedTensorType, NotifyKind, NotifyOp, WaitCmp, WaitOp
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
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.dialects.verification import OpVerifyException

WHOLE_WINDOW_BYTES = 64 * 1024
"""`put` / `get` move the whole window through one tile of the Unified Buffer."""


def window_parameters(func: FuncOp) -> dict[int, DistributedTensorType]:
    """The window parameters of `func` (index -> its type), before the pass."""
    return {i: t for i, t in enumerate(func.function_type.inputs.data) if isinstance(t, DistributedTensorType)}


class _Localizer:
    """Rewrites the uses of one function's windows, op by op, in place."""

    def __init__(self, func: FuncOp, windows: dict[SSAValue, DistributedTensorType]):
        self.func = func
        self.windows = windows  # the i64 parameter -> the window type it stands for

    # ---- building helpers (everything is inserted before `self.at`)

    def _add(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(self.at))
        return op

    def _index(self, value: int) -> SSAValue:
        return self._add(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]

    def _as_index(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return v
        return self._add(arith.IndexCastOp(v, IndexType())).results[0]

    def _as_element(self, v: SSAValue, element) -> SSAValue:
        if v.type == element:
            return v
        if isinstance(v.type, IndexType):
            return self._add(arith.IndexCastOp(v, element)).results[0]
        assert isinstance(v.type, IntegerType) and isinstance(element, IntegerType)
        if v.type.width.data > element.width.data:
            return self._add(arith.TruncIOp(v, element)).results[0]
        return self._add(arith.ExtSIOp(v, element)).results[0]

    def _window(self, w: SSAValue, peer: SSAValue | None = None) -> SSAValue:
        t = self.windows[w]
        op = WindowAtOp(w, TensorType(t.get_shape(), t.element_type), peer)
        op.result.name_hint = (w.name_hint or "window") + ("_peer" if peer is not None else "")
        return self._add(op).results[0]

    def _tile_of(self, t: DistributedTensorType | TensorType, op: Operation) -> TileType:
        shape = t.get_shape()
        from pypto_xdsl.backend.ascendc.cxx import byte_width

        count = 1
        for d in shape:
            count *= int(d)  # type: ignore[arg-type]
        if count * byte_width(t.element_type) > WHOLE_WINDOW_BYTES:
            raise OpVerifyException(
                op,
                f"{op.name} copies the whole window {t} through one tile: at most {WHOLE_WINDOW_BYTES} bytes "
                "on the sim target (use pld.tile.remote_load / remote_store of parts)",
            )
        return TileType(shape, t.element_type, MemorySpace.VEC)

    def _store_cell(self, value: SSAValue, dest: SSAValue, offsets, add: bool) -> None:
        element = dest.type.element_type  # type: ignore[attr-defined]
        v = self._as_element(value, element)
        if add:
            rank = dest.type.rank  # type: ignore[attr-defined]
            cell = self._add(tile.FullOp(v, TileType([1] * rank, element, MemorySpace.VEC))).results[0]
            self._add(tile.AtomicStoreOp(cell, dest, offsets, AtomicKind.ADD))
        else:
            self._add(tensor.WriteOp(v, dest, offsets))

    def _wait_loop(self, signal: SSAValue, offsets, expected: SSAValue, cmp: WaitCmp) -> None:
        element = signal.type.element_type  # type: ignore[attr-defined]
        want = self._as_element(expected, element)
        before = Block()
        read = tensor.ReadOp(signal, offsets)
        read.result.name_hint = "signal_value"
        pred = arith.CmpiOp(read.result, want, "eq" if cmp == WaitCmp.EQ else "sge")
        true = arith.ConstantOp(IntegerAttr(1, IntegerType(1)))
        keep_going = arith.XOrIOp(pred.result, true.result)
        before.add_ops([read, pred, true, keep_going, scf.ConditionOp(keep_going.result)])
        after = Block()
        after.add_op(scf.YieldOp())
        self._add(scf.WhileOp([], [], Region(before), Region(after)))

    def _barrier(self, op: BarrierOp, signal_param: SSAValue) -> None:
        """+1 into row `me` of every peer's signal, wait for row `p` >= 1 of the own signal for
        every peer `p`, then take each credit back (-1): the signal is zero again once every
        rank passed, and a rank running ahead into the next barrier only adds credits."""
        t = self.windows[signal_param]
        if t.rank != 2 or not isinstance(t.element_type, IntegerType):
            raise OpVerifyException(op, f"pypto.dist.barrier synchronises through an [N, C] integer signal, got {t}")
        me = self._add(DeviceRankOp()).results[0]
        n = self._add(DeviceNranksOp()).results[0]
        zero, one = self._index(0), self._index(1)
        local = self._window(signal_param)
        one_v = self._add(arith.ConstantOp(IntegerAttr(1, t.element_type))).results[0]
        minus_one = self._add(arith.ConstantOp(IntegerAttr(-1, t.element_type))).results[0]

        def over_peers(body) -> None:
            block = Block(arg_types=[IndexType()])
            p = block.args[0]
            ne = arith.CmpiOp(p, me, "ne")
            then = Block()
            block.add_ops([ne, scf.IfOp(ne.result, [], Region(then), Region(Block([scf.YieldOp()]))), scf.YieldOp()])
            saved = self.at
            then.add_op(scf.YieldOp())
            self.at = then.last_op  # type: ignore[assignment]
            body(p)
            self.at = saved
            self._add(scf.ForOp(zero, n, one, [], Region(block)))

        def notify(p: SSAValue) -> None:
            self._store_cell(one_v, self._window(signal_param, p), [me, zero], add=True)

        def wait(p: SSAValue) -> None:
            self._wait_loop(local, [p, zero], one_v, WaitCmp.GE)

        def take_back(p: SSAValue) -> None:
            self._store_cell(minus_one, local, [p, zero], add=True)

        over_peers(notify)
        over_peers(wait)
        over_peers(take_back)

    # ---- the rewrite of one use

    def rewrite(self, op: Operation) -> None:
        self.at = op
        w = self.windows
        if isinstance(op, LocalWindowOp):
            Rewriter.replace_op(op, [], [self._window(op.window)])
            return
        if isinstance(op, RankOp | NranksOp):
            new = DeviceRankOp() if isinstance(op, RankOp) else DeviceNranksOp()
            new.result.name_hint = op.result.name_hint
            self._add(new)
            Rewriter.replace_op(op, [], [new.result])
            return
        if isinstance(op, RemoteLoadOp):
            peer = self._window(op.window, op.peer)
            load = self._add(tile.LoadOp(peer, list(op.offsets), op.result.type))  # type: ignore[arg-type]
            load.results[0].name_hint = op.result.name_hint
            Rewriter.replace_op(op, [], [load.results[0]])
            return
        if isinstance(op, RemoteStoreOp):
            self._add(tile.StoreOp(op.tile, self._window(op.window, op.peer), list(op.offsets)))
            Rewriter.erase_op(op)
            return
        if isinstance(op, PutOp | GetOp):
            src = op.src
            if isinstance(op, PutOp):
                dst_t = self._window(op.dst, op.peer)
                src_t = self._window(src) if src in w else src
            else:
                dst_t = self._window(op.dst)
                src_t = self._window(src, op.peer)
            tt = self._tile_of(dst_t.type, op)  # type: ignore[arg-type]
            zeros = [self._index(0) for _ in range(tt.rank)]
            data = self._add(tile.LoadOp(src_t, zeros, tt)).results[0]
            if isinstance(op, PutOp) and op.atomic.data == AtomicKind.ADD:
                self._add(tile.AtomicStoreOp(data, dst_t, zeros, AtomicKind.ADD))
            else:
                self._add(tile.StoreOp(data, dst_t, zeros))
            Rewriter.erase_op(op)
            return
        if isinstance(op, NotifyOp):
            dest = self._window(op.signal, op.peer)
            self._store_cell(op.value, dest, list(op.offsets), add=op.kind.data == NotifyKind.ATOMIC_ADD)
            Rewriter.erase_op(op)
            return
        if isinstance(op, WaitOp):
            self._wait_loop(self._window(op.signal), list(op.offsets), op.expected, op.cmp.data)
            Rewriter.erase_op(op)
            return
        if isinstance(op, BarrierOp):
            self._barrier(op, op.signal)
            Rewriter.erase_op(op)
            return
        if isinstance(op, DeferWaitOp):
            raise OpVerifyException(
                op,
                f"pypto.system.defer_wait in @{self.func.sym_name.data}: a deferred completion needs the task "
                "runtime of a device, which the sim target does not model; use pld.system.wait",
            )
        if op.name in ("pypto.call", "pypto.submit"):
            return  # the callee's window parameter is the offset too
        raise OpVerifyException(
            op,
            f"{op.name} in @{self.func.sym_name.data} uses a window as a value: on a device a window is "
            "reached through its rank's communication region, by the window ops of a core",
        )


def _localize(func: FuncOp) -> None:
    windows = window_parameters(func)
    if not windows:
        return
    directions = list(func.directions)
    params: dict[SSAValue, DistributedTensorType] = {}
    for i, t in windows.items():
        arg = func.args[i]
        Rewriter.replace_value_with_new_type(arg, i64)
        params[func.args[i]] = t
        directions[i] = ParamDirection.IN
    func.update_function_type()
    func.set_directions(directions)
    localizer = _Localizer(func, params)
    for arg in list(params):
        for use in list(arg.uses):
            op = use.operation
            if op.parent is None or isinstance(op, WindowAtOp):
                continue  # rewritten already (an op using two windows), or made by this pass
            localizer.rewrite(op)


@dataclass(frozen=True)
class LocalizeWindowsPass(ModulePass):
    name = "localize-windows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.body.block.ops if isinstance(f, FuncOp)]
        for func in funcs:
            if func.func_kind == FuncKind.HOST:
                raise OpVerifyException(
                    func, f"@{func.sym_name.data} is a host function: the program of a rank group, not of one device"
                )
        for func in funcs:
            _localize(func)
