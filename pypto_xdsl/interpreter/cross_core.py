"""Cross-core semantics: the slot rings and flags of a mixed task, and `group` launches.

A `pypto.func group` launches its `aic` and `aiv` members as one task. The interpreter runs
the two members as **cooperating threads that take turns**: exactly one runs at a time, the
AIC first; a member runs until it has to wait (a push onto a full ring, a pop from an empty
ring, a `wait_flag` with no pending setting) or returns, and then the other member runs. The
schedule is therefore deterministic, and it is a schedule the hardware could produce: the
only order the program may rely on is the one the rings and flags impose.

The same rules detect what would hang or corrupt a real mixed kernel, as run-time errors
naming the op and the function:

* **deadlock**: both members wait (e.g. the AIC pops from the `v2c` ring while the AIV pops
  from the empty `c2v` ring);
* **a pop without a push** / **a wait without a set**: a member waits for its peer, which has
  returned;
* **ring overflow**: a member pushes onto a full ring whose consumer has returned;
* **left over** at the end of the task: tiles pushed but never popped, flags set but never
  waited for; a flag counter beyond 15 (the hardware counts 0-15);
* a popped tile whose shape or element type differs from what the pop declares.

A group with `task_ratio = 2` (its aiv member split over both AIVs of the core group by
split-vector-member) runs three members: the AIC and the aiv member on sub-blocks 0 and 1,
taking turns in that order. Its flags follow CrossCoreSetFlag's mode 2 (`Channels`), and its
flags among the AIVs (`among aiv`, split-vector-member's exchange of partial results) mode 1; races
are checked between the two sub-blocks too, and a `tensor.create` of the aiv member is one
tensor for both (the block's workspace).

An `incore`, `aic` or `aiv` function run alone (not through a group: the unsplit form, or a
member called directly) has its own rings, with no peer: a push must be popped by the same
function before the ring fills, a pop needs an earlier push.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, register_impls
from xdsl.ir import Operation

from pypto_xdsl.dialects import cross_core, tensor, tile
from pypto_xdsl.dialects.attributes import TensorType, TileType, format_shape
from pypto_xdsl.dialects.cross_core import RING_PIPES, Pipe, group_task_ratio
from pypto_xdsl.interpreter.functions import fail, pimpl, state
from pypto_xdsl.interpreter.partial import valid_of, with_valid
from pypto_xdsl.interpreter.values import PyptoInterpretationError, Unwinding, numpy_dtype

MAX_FLAG_COUNT = 15
"""Each cross-core flag is a 4-bit counter (CrossCoreSetFlag: the count runs 0-15)."""

MEMBER_STACK_BYTES = 256 * 1024 * 1024
"""Stack of a member's thread: deep programs recurse in the interpreter as on the main
thread's (enlarged) stack."""

AIC = 0
"""The AIC is member 0 of a group; its AIVs are 1 .. task_ratio."""

AMONG_AIVS = -1
"""The sender of a completed `v2v` round (every AIV of the core group set the flag)."""


@dataclass
class Ring:
    """One direction's slot ring: tiles in flight, oldest first."""

    pipe: Pipe
    slots: int | None = None
    tiles: deque[tuple[np.ndarray, Operation, tuple[int, ...]]] = field(default_factory=deque)
    """(tile, the push, the pusher's clock at the push)."""
    pushed: int = 0
    popped: int = 0


class GroupAborted(Exception):
    """Unwinds a member whose peer failed."""


@dataclass
class _Wait:
    op: Operation
    what: str
    lonely: str
    """Why the wait can never end once the peers have returned."""
    ready: Callable[[], bool]
    since: int = 0


class TurnScheduler:
    """The members of a group take turns: one runs, the others wait for their turn.

    A member that has to wait hands the turn to the next member, in member order, that can
    run (one not started yet, or one whose wait is over); when none can, the waiting member
    is stuck: every peer has returned, or the peers wait too (a deadlock)."""

    def __init__(self, names: Sequence[str]):
        self.names = tuple(names)
        """Each member as diagnostics name it (`@k_aiv`, `@k_aiv on sub-block 1`)."""
        self.cond = threading.Condition()
        self.turn = AIC
        self.status = ["ready"] * len(self.names)  # ready | running | waiting | done | failed
        self.waits: list[_Wait | None] = [None] * len(self.names)
        self.aborted = False
        self.waited = 0
        """Waits begun so far (orders the waiting members)."""

    def _runnable(self, me: int) -> int | None:
        n = len(self.names)
        for step in range(1, n):
            other = (me + step) % n
            wait = self.waits[other]
            if self.status[other] == "ready" or (self.status[other] == "waiting" and wait is not None and wait.ready()):
                return other
        return None

    def _pass_turn(self, me: int) -> None:
        """After `me` finished: the next member that can run, else a waiting one (to report
        that it is stuck)."""
        nxt = self._runnable(me)
        if nxt is None:
            nxt = next((k for k, s in enumerate(self.status) if s == "waiting"), None)
        if nxt is not None:
            self.turn = nxt
        self.cond.notify_all()

    def start(self, me: int) -> None:
        with self.cond:
            while self.turn != me and not self.aborted:
                self.cond.wait()
            if self.aborted:
                raise GroupAborted()
            self.status[me] = "running"

    def finish(self, me: int) -> None:
        with self.cond:
            self.status[me] = "done"
            self._pass_turn(me)

    def abort(self, me: int) -> None:
        with self.cond:
            self.status[me] = "failed"
            self.aborted = True
            self.cond.notify_all()

    def _stuck(self, me: int, wait: _Wait) -> str:
        others = [k for k in range(len(self.names)) if k != me]
        waiting = [k for k in others if self.status[k] == "waiting"]
        if not waiting:
            returned = " and ".join(self.names[k] for k in others)
            verb = "has" if len(others) == 1 else "have"
            return f"{wait.what}, and {returned} {verb} returned: {wait.lonely}"
        peers = "; ".join(
            f"{self.names[k]} waits at '{w.op.name}' ({w.what})" for k in waiting if (w := self.waits[k]) is not None
        )
        return f"deadlock: {wait.what}, while {peers}"

    def wait_for(self, me: int, ready: Callable[[], bool], wait: _Wait, stuck: Callable[[str], Exception]) -> None:
        """Let the peers run until `ready()` holds; raise `stuck(message)` when it never will."""
        with self.cond:
            while not ready():
                if self.waits[me] is None:
                    self.waits[me] = wait
                    wait.since = self.waited = self.waited + 1
                self.status[me] = "waiting"
                nxt = self._runnable(me)
                if nxt is None:
                    # nobody can move: the member that has waited longest reports it
                    first = min(
                        (k for k, s in enumerate(self.status) if s == "waiting"),
                        key=lambda k: self.waits[k].since,  # type: ignore[union-attr]
                    )
                    if first == me:
                        raise stuck(self._stuck(me, wait))
                    nxt = first
                self.turn = nxt
                self.cond.notify_all()
                while self.turn != me and not self.aborted:
                    self.cond.wait()
                if self.aborted:
                    raise GroupAborted()
                self.status[me] = "running"
            self.waits[me] = None


@dataclass
class _Access:
    view: np.ndarray
    stamp: int
    write: bool
    op: Operation
    func: str | None
    core: int


class Channels:
    """The rings and flags of one mixed task (or of one function run alone), and the
    happens-before order they establish between its members.

    Member 0 is the AIC, members 1 .. `task_ratio` its AIVs (one in a 1:1 group, two when the
    group's vector member is split over both AIVs of the core group). Each member has a
    vector clock (`clocks[core]`): a push or `set_flag` *releases* (the message carries the
    sender's clock, then the sender's own entry advances), a pop or `wait_flag` *acquires*
    (the receiver takes the entry-wise maximum). A global-memory access is stamped with its
    member's own clock entry; an access of a peer is ordered before this member's next ones
    when its stamp is at most what this member has acquired of that peer's clock.
    Two accesses of the same memory by different members, one a write, with neither ordered
    before the other, are a **data race** (`check_access`): two AIVs storing the same block
    race, as their stores are ordered by nothing.

    Flags follow CrossCoreSetFlag's mode 2 (AIC <-> AIV inside a core group): a flag the AIC
    sets is one setting for each AIV, and each AIV waits for its own; a flag the AIVs set is
    waited for by the AIC once every AIV has set it (one setting of each). A function run
    alone is its own peer: it waits for the flags it set.

    A `v2v` flag (`among aiv`) follows mode 1 (the AIVs of one core group): a setting waits
    in `barrier_sets` until every AIV has set the flag once more; then each AIV's counter
    gets one setting, which carries the clocks of all of them (`AMONG_AIVS` as its sender)."""

    def __init__(self, scheduler: TurnScheduler | None = None, task_ratio: int = 1):
        self.rings = {p: Ring(p) for p in RING_PIPES}
        self.task_ratio = task_ratio
        self.members = 1 + task_ratio
        # (direction, id, receiver, sender) -> the sender's releases not yet waited for
        self.flags: dict[tuple[Pipe, int, int, int], deque[tuple[int, ...]]] = defaultdict(deque)
        # (id, setting AIV) -> its v2v settings the other AIV has not matched yet
        self.barrier_sets: dict[tuple[int, int], deque[tuple[int, ...]]] = defaultdict(deque)
        self.scheduler = scheduler
        # a member's own accesses start at 1; 0: nothing known of a peer
        self.clocks = [[int(k == c) for k in range(self.members)] for c in range(self.members)]
        self.accesses: list[list[_Access]] = [[] for _ in range(self.members)]
        self.created: dict[tuple[Operation, int], np.ndarray] = {}
        self.creations: list[dict[Operation, int]] = [{} for _ in range(self.members)]

    def shared_create(self, core: int, op: Operation, array: np.ndarray) -> np.ndarray:
        """The tensor the k-th run of `op` makes on an AIV of a split group: the one the
        other AIV's k-th run of it made, if it ran first. A kernel's `tensor.create` is
        part of its block's workspace, which both AIVs of the core group share."""
        if self.task_ratio == 1 or core == AIC:
            return array
        k = self.creations[core].get(op, 0)
        self.creations[core][op] = k + 1
        made = self.created.setdefault((op, k), array)
        return made if made.shape == array.shape and made.dtype == array.dtype else array

    @property
    def aivs(self) -> list[int]:
        return list(range(1, self.members))

    def name(self, core: int) -> str:
        return self.scheduler.names[core] if self.scheduler is not None else "the function"

    def sub_block(self, core: int) -> str:
        """` on sub-block k` for an AIV of a split group, else nothing."""
        return f" on sub-block {core - 1}" if self.task_ratio > 1 and core != AIC else ""

    def release(self, core: int) -> tuple[int, ...]:
        snapshot = tuple(self.clocks[core])
        self.clocks[core][core] += 1
        return snapshot

    def acquire(self, core: int, snapshot: tuple[int, ...]) -> None:
        mine = self.clocks[core]
        for k, seen in enumerate(snapshot):
            mine[k] = max(mine[k], seen)

    def _cores_of(self, side: str, me: int) -> list[int]:
        if self.scheduler is None:
            return [me]
        return [AIC] if side == "aic" else self.aivs

    def set_among_aivs(self, me: int, flag_id: int) -> bool:
        """A `v2v` setting by AIV `me`; True when it completes a round (every AIV has set the
        flag once more), which gives each AIV one setting."""
        aivs = self._cores_of("aiv", me)
        self.barrier_sets[(flag_id, me)].append(self.release(me))
        if not all(self.barrier_sets[(flag_id, c)] for c in aivs):
            return False
        snapshots = [self.barrier_sets[(flag_id, c)].popleft() for c in aivs]
        merged = tuple(max(column) for column in zip(*snapshots))
        for c in aivs:
            self.flags[(Pipe.V2V, flag_id, c, AMONG_AIVS)].append(merged)
        return True

    def flag_receivers(self, pipe: Pipe, sender: int) -> list[int]:
        return self._cores_of(pipe.consumer.value, sender)

    def flag_senders(self, pipe: Pipe, receiver: int) -> list[int]:
        return self._cores_of(pipe.producer.value, receiver)

    def check_access(
        self, core: int, view: np.ndarray, write: bool, op: Operation, func: str | None
    ) -> _Access | None:
        """Record an access of `core`; return a peer's racing access, if any."""
        for other in range(self.members):
            if other == core:
                continue
            known = self.clocks[core][other]
            pending = [a for a in self.accesses[other] if a.stamp > known]
            self.accesses[other] = pending  # the rest is ordered before everything `core` does next
            for a in pending:
                if (write or a.write) and np.shares_memory(view, a.view):
                    return a
        self.accesses[core].append(_Access(view, self.clocks[core][core], write, op, func, core))
        return None

    def leftovers(self) -> list[str]:
        problems = []
        for pipe, ring in self.rings.items():
            if ring.tiles:
                problems.append(
                    f"{_plural(len(ring.tiles), 'tile')} pushed onto the {pipe.value} ring never popped "
                    f"({_plural(ring.pushed, 'push')}, {_plural(ring.popped, 'pop')})"
                )
        for (pipe, flag_id, receiver, sender), pending in self.flags.items():
            if count := len(pending):
                setter = "the AIVs" if sender == AMONG_AIVS else self.name(sender)
                by = f" by {setter} for {self.name(receiver)}" if self.task_ratio > 1 else ""
                problems.append(f"the {_flag_name(pipe, flag_id)} set {_plural(count, 'time')}{by} more than waited for")
        for (flag_id, setter), pending in self.barrier_sets.items():
            if count := len(pending):
                problems.append(
                    f"the {_flag_name(Pipe.V2V, flag_id)} set {_plural(count, 'time')} by {self.name(setter)} "
                    "more than by the other AIV (mode 1 counts a setting once every AIV has set it)"
                )
        return problems


def channels_of(interpreter: Interpreter) -> Channels:
    st = state(interpreter)
    if st.cross_core is None:
        st.cross_core = Channels()
    return st.cross_core


def _wait(interpreter: Interpreter, op: Operation, ready: Callable[[], bool], what: str, lonely: str) -> None:
    """Block `op` until `ready()`; `what` describes the wait, `lonely` the error when the
    function runs without a peer."""
    if ready():
        return
    st = state(interpreter)
    channels = channels_of(interpreter)
    func = st.frames[-1].func if st.frames else None
    if channels.scheduler is None:
        raise fail(interpreter, op, f"{what}: {lonely} (@{func} runs alone, not as a member of a group)")
    channels.scheduler.wait_for(
        st.core, ready, _Wait(op, what, lonely, ready), lambda message: fail(interpreter, op, message)
    )


def _ring(interpreter: Interpreter, op: cross_core.TransferOp) -> Ring:
    channels = channels_of(interpreter)
    if channels.task_ratio > 1:
        raise fail(
            interpreter, op,
            f"a group whose vector member runs on {channels.task_ratio} AIVs (task_ratio {channels.task_ratio}) "
            "moves tiles through rings in global memory (lower-cross-core-rings): a push or pop of a whole "
            "tile has no meaning there",
        )
    ring = channels.rings[op.pipe_kind]
    if ring.slots is None:
        ring.slots = op.slot_count
    elif ring.slots != op.slot_count:
        raise fail(
            interpreter, op,
            f"the {op.pipe_kind.value} ring has {ring.slots} slots, but this op declares slots({op.slot_count})",
        )
    return ring


def _flag_name(pipe: Pipe, flag_id: int) -> str:
    """`c2v flag` for id 0 (the flags expand-mixed-kernel inserts), `c2v flag 3` otherwise."""
    return f"{pipe.value} flag" + (f" {flag_id}" if flag_id else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else ("es" if word.endswith("sh") else "s"))


def _counts(ring: Ring) -> str:
    return f"{_plural(ring.pushed, 'push')}, {_plural(ring.popped, 'pop')} so far"


def _tile_copy(value: np.ndarray) -> np.ndarray:
    return with_valid(np.array(value, copy=True), valid_of(value))


@register_impls
class CrossCoreFunctions(InterpreterFunctions):
    """push / pop / set_flag / wait_flag."""

    @pimpl(cross_core.PushOp)
    def run_push(self, interpreter: Interpreter, op: cross_core.PushOp, args: PythonValues) -> PythonValues:
        ring = _ring(interpreter, op)
        peer = op.pipe_kind.consumer.value
        _wait(
            interpreter, op, lambda: len(ring.tiles) < (ring.slots or 1),
            f"push to {peer}: the {op.pipe_kind.value} ring's {_plural(ring.slots or 1, 'slot')} are full "
            f"({_counts(ring)})",
            "ring overflow, nothing pops them",
        )
        channels = channels_of(interpreter)
        ring.tiles.append((_tile_copy(args[0]), op, channels.release(state(interpreter).core)))
        ring.pushed += 1
        return ()

    @pimpl(cross_core.PopOp)
    def run_pop(self, interpreter: Interpreter, op: cross_core.PopOp, args: PythonValues) -> PythonValues:
        ring = _ring(interpreter, op)
        peer = op.pipe_kind.producer.value
        _wait(
            interpreter, op, lambda: bool(ring.tiles),
            f"pop from {peer}: the {op.pipe_kind.value} ring is empty ({_counts(ring)})",
            "a pop without a push",
        )
        value, pusher, clock = ring.tiles.popleft()
        channels_of(interpreter).acquire(state(interpreter).core, clock)
        ring.popped += 1
        t = op.result.type
        assert isinstance(t, TileType)
        want_shape = tuple(t.get_shape())
        if value.shape != want_shape or value.dtype != numpy_dtype(t.element_type):
            sent = pusher.operands[0].type
            raise fail(
                interpreter, op,
                f"pops {t}, but the next tile in the {op.pipe_kind.value} ring is a "
                f"{format_shape(list(value.shape))} {sent.element_type if isinstance(sent, TileType) else value.dtype} "
                f"tile (pushed as {sent})",
            )
        return (value,)

    @pimpl(cross_core.SetFlagOp)
    def run_set_flag(self, interpreter: Interpreter, op: cross_core.SetFlagOp, args: PythonValues) -> PythonValues:
        channels = channels_of(interpreter)
        me = state(interpreter).core
        pipe, flag_id = op.pipe_kind, op.id_value
        if pipe is Pipe.V2V:
            return _set_among_aivs(interpreter, op, channels, me)
        receivers = channels.flag_receivers(pipe, me)
        for receiver in receivers:
            if len(channels.flags[(pipe, flag_id, receiver, me)]) >= MAX_FLAG_COUNT:
                for_whom = f" for {channels.name(receiver)}" if len(receivers) > 1 else ""
                raise fail(
                    interpreter, op,
                    f"the {_flag_name(pipe, flag_id)} is already set {MAX_FLAG_COUNT} times{for_whom} without a "
                    f"wait: the hardware counter holds 0-{MAX_FLAG_COUNT}",
                )
        snapshot = channels.release(me)
        for receiver in receivers:
            channels.flags[(pipe, flag_id, receiver, me)].append(snapshot)
        return ()

    @pimpl(cross_core.WaitFlagOp)
    def run_wait_flag(self, interpreter: Interpreter, op: cross_core.WaitFlagOp, args: PythonValues) -> PythonValues:
        channels = channels_of(interpreter)
        me = state(interpreter).core
        pipe, flag_id = op.pipe_kind, op.id_value
        if pipe is Pipe.V2V:
            queue = channels.flags[(pipe, flag_id, me, AMONG_AIVS)]
            what = (f"wait_flag among aiv: the {_flag_name(pipe, flag_id)} is not set by every AIV of the core group "
                    "(mode 1 counts a setting once each has set it)")
            _wait(interpreter, op, lambda: bool(queue), what, "a wait without a set_flag")
            channels.acquire(me, queue.popleft())
            return ()
        queues = [channels.flags[(pipe, flag_id, me, sender)] for sender in channels.flag_senders(pipe, me)]
        peer = pipe.producer.value
        what = f"wait_flag from {peer}: the {_flag_name(pipe, flag_id)} is not set"
        if len(queues) > 1:
            what += " by every AIV of the core group (mode 2 counts a setting once each has set it)"
        _wait(interpreter, op, lambda: all(queues), what, "a wait without a set_flag")
        for queue in queues:
            channels.acquire(me, queue.popleft())
        return ()


def _set_among_aivs(interpreter: Interpreter, op: cross_core.SetFlagOp, channels: Channels, me: int) -> PythonValues:
    flag_id = op.id_value
    if me == AIC and channels.scheduler is not None:
        raise fail(interpreter, op, f"the {_flag_name(Pipe.V2V, flag_id)} is set among the AIVs; the AIC cannot set it")
    if len(channels.barrier_sets[(flag_id, me)]) >= MAX_FLAG_COUNT:
        raise fail(
            interpreter, op,
            f"the {_flag_name(Pipe.V2V, flag_id)} is already set {MAX_FLAG_COUNT} times more than by the other AIV: "
            f"the hardware counter holds 0-{MAX_FLAG_COUNT}",
        )
    if len(channels.flags[(Pipe.V2V, flag_id, me, AMONG_AIVS)]) >= MAX_FLAG_COUNT:
        raise fail(
            interpreter, op,
            f"the {_flag_name(Pipe.V2V, flag_id)} is already set {MAX_FLAG_COUNT} times without a wait: the hardware "
            f"counter holds 0-{MAX_FLAG_COUNT}",
        )
    channels.set_among_aivs(me, flag_id)
    return ()


# --------------------------------------------------------------------------- races

_VIEW_OPS = (tensor.CreateOp, tensor.SliceOp, tensor.ReshapeOp, tensor.TransposeOp, tensor.DimOp)


def _window(array: np.ndarray, offsets: Sequence[int], extents: Sequence[int]) -> np.ndarray | None:
    if not isinstance(array, np.ndarray) or len(offsets) != array.ndim or len(extents) != array.ndim:
        return None
    if any(o < 0 or o + e > n for o, e, n in zip(offsets, extents, array.shape)):
        return None  # out of bounds: the op itself reports it
    return array[tuple(slice(o, o + e) for o, e in zip(offsets, extents))]


def global_accesses(op: Operation, args: PythonValues) -> list[tuple[np.ndarray, bool]]:
    """(window of a tensor, writes) for every global-memory access `op` makes."""
    val = {id(v): a for v, a in zip(op.operands, args)}

    def arg(v: Any) -> Any:
        return val.get(id(v))

    def offsets(op: Any) -> list[int]:
        return [arg(o) for o in op.offsets]

    out: list[tuple[np.ndarray | None, bool]] = []
    if isinstance(op, tile.LoadOp):
        shape = op.result.type.get_shape()  # type: ignore[union-attr]
        if all(isinstance(d, int) for d in shape):
            out.append((_window(arg(op.source), offsets(op), shape), False))  # type: ignore[arg-type]
    elif isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
        t = arg(op.tile)
        out.append((_window(arg(op.dest), offsets(op), getattr(t, "shape", ())), True))
    elif isinstance(op, tensor.AssembleOp):
        src = arg(op.source)
        out.append((src, False))
        out.append((_window(arg(op.dest), offsets(op), getattr(src, "shape", ())), True))
    elif isinstance(op, tensor.ReadOp):
        out.append((_window(arg(op.source), offsets(op), [1] * len(op.offsets)), False))
    elif isinstance(op, tensor.WriteOp):
        out.append((_window(arg(op.dest), offsets(op), [1] * len(op.offsets)), True))
    elif op.name.startswith("pypto.tensor.") and not isinstance(op, _VIEW_OPS):
        out += [(a, False) for v, a in zip(op.operands, args) if isinstance(v.type, TensorType)]
    return [(v, w) for v, w in out if isinstance(v, np.ndarray)]


class RaceDetector(Interpreter.Listener):
    """Checks every global-memory access of a group member against the peer's (Channels)."""

    def __init__(self, interpreter: Interpreter, channels: Channels, core: int):
        self.interpreter = interpreter
        self.channels = channels
        self.core = core

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        if not op.name.startswith(("pypto.tile.", "pypto.tensor.")):
            return
        st = state(self.interpreter)
        func = st.frames[-1].func if st.frames else None
        for view, write in global_accesses(op, args):
            other = self.channels.check_access(self.core, view, write, op, func)
            if other is not None:
                raise fail(
                    self.interpreter, op,
                    f"data race on global memory: this {'write' if write else 'read'}"
                    f"{self.channels.sub_block(self.core)} and the {'write' if other.write else 'read'} by "
                    f"'{other.op.name}' in @{other.func}{self.channels.sub_block(other.core)} touch the "
                    "same tensor elements with nothing ordering them (a set_flag/wait_flag pair or a "
                    "ring transfer between the two)",
                )

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        pass


# --------------------------------------------------------------------------- groups


def check_balanced(interpreter: Interpreter, op: Operation, channels: Channels, who: str) -> None:
    problems = channels.leftovers()
    if problems:
        raise fail(interpreter, op, f"at the end of {who}: " + "; ".join(problems))


def run_group(interpreter: Interpreter, group: Operation, args: Sequence[Any]) -> PythonValues:
    """Run a `group` function's body: its workspaces, then its members at once: the aic
    member once, the aiv member once per vector core of the group (`task_ratio`), each
    instance with its own sub-block index."""
    from pypto_xdsl.analysis.symbols import lookup_symbol
    from pypto_xdsl.dialects.program import CallOp, FuncOp, ReturnOp

    assert isinstance(group, FuncOp)
    st = state(interpreter)
    block = group.body.block
    env: dict[Any, Any] = dict(zip(block.args, args))
    calls: list[tuple[CallOp, FuncOp]] = []
    ret: ReturnOp | None = None
    for op in block.ops:
        if isinstance(op, CallOp):
            callee = lookup_symbol(op, op.callee.string_value())
            if not isinstance(callee, FuncOp):
                raise fail(interpreter, op, f"'@{op.callee.string_value()}' is not a pypto.func")
            calls.append((op, callee))
        elif isinstance(op, ReturnOp):
            ret = op
        else:
            env.update(zip(op.results, interpreter.run_op(op, [env[v] for v in op.operands])))
    if len(calls) != 2 or ret is None:
        raise fail(interpreter, group, "a group calls its aic member, then its aiv member, and returns")
    if st.spawn is None:
        raise fail(interpreter, group, "this interpreter cannot run a group (make it with make_interpreter)")
    ratio = group_task_ratio(group)
    if isinstance(ratio, str):
        raise fail(interpreter, group, ratio)
    aiv_name = calls[1][1].sym_name.data
    names = [f"@{calls[0][1].sym_name.data}"] + (
        [f"@{aiv_name}"] if ratio == 1 else [f"@{aiv_name} on sub-block {k}" for k in range(ratio)]
    )
    instances = [calls[0]] + [calls[1]] * ratio
    scheduler = TurnScheduler(names)
    channels = Channels(scheduler, ratio)
    results: list[PythonValues | None] = [None] * len(instances)
    first_error: list[BaseException] = []

    def member(core: int) -> None:
        call, callee = instances[core]
        sub = st.spawn()
        sub_st = state(sub)
        sub_st.block_idx, sub_st.block_num = st.block_idx, st.block_num
        sub_st.check_directions = st.check_directions
        sub_st.frames = list(st.frames)
        sub_st.tasks = st.tasks
        sub_st.cross_core = channels
        sub_st.core = core
        sub_st.sub_block = max(core - 1, 0)
        sub.listeners = (*sub.listeners, RaceDetector(sub, channels, core))
        try:
            scheduler.start(core)
            with np.errstate(all="ignore"):
                results[core] = sub.call_op(callee, tuple(env[v] for v in call.args))
        except GroupAborted:
            return
        except BaseException as e:  # noqa: BLE001 - re-raised on the launching thread
            with scheduler.cond:
                if not first_error:
                    first_error.append(e)
            if sub_st.error_func is not None and st.error_func is None:
                st.error_func = sub_st.error_func
            scheduler.abort(core)
        else:
            scheduler.finish(core)

    old_stack = threading.stack_size()
    try:
        threading.stack_size(max(old_stack, MEMBER_STACK_BYTES))
        threads = [threading.Thread(target=member, args=(c,), name=names[c]) for c in range(len(instances))]
    finally:
        threading.stack_size(old_stack)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if first_error:
        e = first_error[0]
        if isinstance(e, Unwinding):  # a member's op failed: the error it carries out
            e = e.error
        if isinstance(e, PyptoInterpretationError):
            where = f" (a member of group @{group.sym_name.data})"
            raise PyptoInterpretationError(e.detail + where, e.op, e.func) from e
        raise e
    check_balanced(interpreter, group, channels, f"group @{group.sym_name.data}")
    # the aiv member's results are its out tensors, the same storage on every sub-block
    env.update(zip(calls[1][0].res, results[1] or ()))
    return tuple(env[v] for v in ret.arguments)
