"""A group of ranks in one process: their windows, and the order they run in.

Each rank of a `pypto.dist.dispatch` runs on a thread of its own, but **one at a time**: a
rank runs until it ends or blocks (a `wait` whose slot does not compare yet, a `barrier`
not all ranks reached), then the next rank in launch order that can go on runs. The run is
deterministic, and when no rank can go on the group is deadlocked: the rank that blocked
last reports it, naming where every rank waits.

A window buffer (`WindowBuffer`) is one zeroed array per rank; a rank's view of it is a
`WindowArray`, an ndarray over the rank's own array that also knows the buffer, so remote
ops reach another rank's array.

After `localize-windows` a rank's program is a device's: its windows are byte offsets of
the group's *windows in* regions. `DeviceWindows` is what such a program runs on: its
rank, and one byte array per rank of the group (plain arrays, or the sim runtime's shared
`CommDomain.region`s).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STACK_BYTES = 256 * 1024 * 1024
"""Stack of a rank's thread: deep programs recurse in the interpreter as on the main thread."""


class GroupAborted(Exception):
    """Another rank failed: this one stops without an error of its own."""


class RanksDeadlocked(Exception):
    """No rank of the group can go on (the message names where each one waits)."""


@dataclass(eq=False)
class DeviceWindows:
    """The device a localized rank program runs on: its `rank` and the windows-in region of
    every rank of the group (1-D uint8 arrays, `regions[r]` rank r's)."""

    rank: int
    regions: list[np.ndarray]

    def __post_init__(self) -> None:
        if not 0 <= self.rank < len(self.regions):
            raise ValueError(f"rank {self.rank} is not a rank of the group of {len(self.regions)}")
        for r, region in enumerate(self.regions):
            if region.dtype != np.uint8 or region.ndim != 1 or not region.flags.c_contiguous:
                raise ValueError(f"the region of rank {r} is not a contiguous 1-D uint8 array")


class WindowBuffer:
    """`pypto.dist.alloc_window`: one zeroed array per rank of `group`."""

    def __init__(self, group: RankGroup, shape: tuple[int, ...], dtype: np.dtype):
        self.group = group
        self.arrays = [np.zeros(shape, dtype=dtype) for _ in range(group.size)]

    def view(self, rank: int | None, shape: tuple[int, ...]) -> WindowArray:
        """The window of `rank` (None: the host's, which belongs to no rank) in `shape`."""
        storage = self.arrays[0 if rank is None else rank]
        count = int(np.prod(shape, dtype=np.int64))
        array = storage.reshape(-1)[:count].reshape(shape).view(WindowArray)
        array.buffer, array.rank = self, rank
        return array


class WindowArray(np.ndarray):
    """A rank's window: its own storage, with the buffer and rank it belongs to."""

    buffer: WindowBuffer | None
    rank: int | None

    def __array_finalize__(self, obj: Any) -> None:
        self.buffer = getattr(obj, "buffer", None)
        self.rank = getattr(obj, "rank", None)

    def on(self, peer: int) -> np.ndarray:
        """The same window on rank `peer` (a plain array over that rank's storage)."""
        assert self.buffer is not None
        return np.asarray(self.buffer.view(peer, self.shape))

    def bound_to(self, rank: int) -> WindowArray:
        assert self.buffer is not None
        return self.buffer.view(rank, self.shape)


@dataclass(eq=False)
class _Rank:
    rank: int
    name: str
    state: str = "ready"  # ready, blocked, done
    ready: Callable[[], bool] | None = None
    where: str = ""
    thread: threading.Thread | None = None


@dataclass(eq=False)
class RankGroup:
    """The ranks of one host function's run (`size` of them) and their schedule."""

    size: int
    cond: threading.Condition = field(default_factory=threading.Condition)
    runs: list[_Rank] = field(default_factory=list)
    turn: _Rank | None = None
    error: BaseException | None = None
    stopped: bool = False
    """A rank found the group deadlocked: the others stop (its error is the group's)."""
    barriers: dict[int, int] = field(default_factory=dict)
    """Arrivals at the barriers, per signal buffer."""

    def launch(self, rank: int, name: str, body: Callable[[], None]) -> None:
        """Start rank `rank` running `body` (it waits for its turn: `run_all`)."""
        run = _Rank(rank, name)

        def main() -> None:
            with self.cond:
                while self.turn is not run and self.error is None and not self.stopped:
                    self.cond.wait()
                if self.error is not None or self.stopped:
                    run.state = "done"
                    self.cond.notify_all()
                    return
            try:
                body()
            except GroupAborted:
                pass
            except BaseException as e:  # noqa: BLE001 - re-raised on the host's thread
                with self.cond:
                    if self.error is None:
                        self.error = e
            with self.cond:
                run.state = "done"
                if self.turn is run:
                    self._pass_turn(run)
                self.cond.notify_all()

        old = threading.stack_size()
        try:
            threading.stack_size(max(old, STACK_BYTES))
            run.thread = threading.Thread(target=main, name=name, daemon=True)
        finally:
            threading.stack_size(old)
        self.runs.append(run)
        run.thread.start()

    def run_all(self) -> None:
        """Run the launched ranks to their end (the host function's end); re-raise the first
        error of one."""
        if not self.runs:
            return
        with self.cond:
            self.turn = self.runs[0]
            self.cond.notify_all()
            while self.error is None and any(r.state != "done" for r in self.runs):
                self.cond.wait()
            self.cond.notify_all()
        for r in self.runs:
            assert r.thread is not None
            r.thread.join()
        self.runs = []
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def abort(self) -> None:
        """The host function failed: the launched ranks stop without running."""
        with self.cond:
            if self.error is None:
                self.error = GroupAborted("the host function failed")
            self.cond.notify_all()
        self.runs = []

    def block_until(self, ready: Callable[[], bool], where: str) -> None:
        """On the running rank: go on once `ready()` holds, letting the others run meanwhile.
        Raises RanksDeadlocked when no rank can go on."""
        with self.cond:
            if ready():
                return
            run = self.turn
            assert run is not None
            run.state, run.ready, run.where = "blocked", ready, where
            self._pass_turn(run)
            if self.turn is None and self.error is None:
                blocked = [r for r in self.runs if r.state == "blocked"]
                message = "the ranks deadlock, none can go on: " + "; ".join(
                    f"{r.name} waits at {r.where}" for r in blocked
                )
                self.stopped = True
                self.cond.notify_all()
                raise RanksDeadlocked(message)
            while self.turn is not run and self.error is None and not self.stopped:
                self.cond.wait()
            if self.error is not None or self.stopped:
                raise GroupAborted
            run.state, run.ready = "ready", None

    def _pass_turn(self, current: _Rank) -> None:
        """Give the turn to the next rank after `current` that can go on (`current` last)."""
        n = len(self.runs)
        start = self.runs.index(current)
        for k in range(1, n + 1):
            cand = self.runs[(start + k) % n]
            if cand.state == "ready" or (cand.state == "blocked" and cand.ready is not None and cand.ready()):
                self.turn = cand
                self.cond.notify_all()
                return
        self.turn = None
        self.cond.notify_all()

    def arrive(self, key: int) -> Callable[[], bool]:
        """A barrier arrival on signal buffer `key`: the condition for going on."""
        count = self.barriers.get(key, 0)
        generation = count // self.size
        self.barriers[key] = count + 1
        return lambda: self.barriers[key] >= (generation + 1) * self.size
