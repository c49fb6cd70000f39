"""Interpreter implementations of the cross-rank signal ops (`pypto.system.*`).

A signal matrix of a rank a host function dispatched to (a `WindowArray`, see
`interpreter.ranks`) is that rank's window: `notify` writes the peer's window, and a `wait`
that does not hold yet lets the other ranks run until it does (or reports the deadlock).
A function run alone is one rank: its signal matrix is one integer array, every peer's
window is that array, so `notify` to any peer updates it and a `wait` can only be satisfied
by a notify that ran before it (otherwise the rank would block forever: a diagnostic).
`defer_wait` registers its condition on the task being launched (see `functions.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, register_impls

from pypto_xdsl.dialects.distributed import DeferWaitOp, NotifyKind, NotifyOp, WaitCmp, WaitOp
from pypto_xdsl.interpreter.distributed_functions import block, peer_of
from pypto_xdsl.interpreter.functions import check_write, fail, pimpl, state
from pypto_xdsl.interpreter.ranks import WindowArray
from pypto_xdsl.interpreter.values import DeferredCondition


def _slot(interpreter: Interpreter, op: Any, signal: np.ndarray, offsets: list[int]) -> tuple[int, ...]:
    index = tuple(int(o) for o in offsets)
    if len(index) != signal.ndim or any(not 0 <= i < n for i, n in zip(index, signal.shape)):
        raise fail(
            interpreter, op, f"signal slot {list(index)} is outside the signal matrix of shape {list(signal.shape)}"
        )
    return index


def _where(op: Any, index: tuple[int, ...]) -> str:
    name = op.signal.name_hint or "signal"
    return f"%{name}{list(index)}"


@register_impls
class SignalFunctions(InterpreterFunctions):
    @pimpl(NotifyOp)
    def run_notify(self, interpreter: Interpreter, op: NotifyOp, args: PythonValues):
        signal, *rest = args
        offsets, peer, value = rest[:-2], rest[-2], rest[-1]
        index = _slot(interpreter, op, signal, offsets)
        target = signal
        if isinstance(signal, WindowArray) and signal.rank is not None:
            target = signal.on(peer_of(interpreter, op, signal, peer))
        check_write(interpreter, op, target)
        if op.kind.data == NotifyKind.SET:
            target[index] = value
        else:
            target[index] += value
        return ()

    @pimpl(WaitOp)
    def run_wait(self, interpreter: Interpreter, op: WaitOp, args: PythonValues):
        signal, *rest = args
        offsets, expected = rest[:-1], rest[-1]
        index = _slot(interpreter, op, signal, offsets)
        relation = "==" if op.cmp.data == WaitCmp.EQ else ">="

        def met() -> bool:
            current = int(signal[index])
            return current == expected if op.cmp.data == WaitCmp.EQ else current >= expected

        if isinstance(signal, WindowArray) and signal.buffer is not None and signal.rank is not None:
            where = f"pld.system.wait on {_where(op, index)} {relation} {expected}"
            block(interpreter, op, signal.buffer.group, met, where)
            return ()
        if not met():
            current = int(signal[index])
            raise fail(
                interpreter, op,
                f"pld.system.wait on {_where(op, index)} {relation} {expected} blocks forever: the "
                f"slot holds {current} and the interpreter runs one rank (only a notify before "
                f"this wait can satisfy it)",
            )
        return ()

    @pimpl(DeferWaitOp)
    def run_defer_wait(self, interpreter: Interpreter, op: DeferWaitOp, args: PythonValues):
        signal, *rest = args
        offsets, expected = rest[:-1], rest[-1]
        index = _slot(interpreter, op, signal, offsets)
        pending = state(interpreter).registrations
        if pending:  # the running task's; without one (a bare incore run) nobody waits on it
            pending[-1].append(DeferredCondition(signal, index, int(expected), _where(op, index)))
        return ()
