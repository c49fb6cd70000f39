"""pipeline-cross-core-loops: software-pipeline the loops both members of a group run, by
`depth` iterations (3 unless told otherwise), so the cube and the vector core work at the
same time instead of taking turns.

In flash attention the AIC's loop over key blocks pushes S_j = Q K_jᵀ, then pops P_j and
pushes P_j V_j; the AIV's pops S_j, pushes P_j = softmax(S_j), then pops P_j V_j. In program
order each core waits for the other once per block: the AIC for P_j while the AIV computes
the softmax, the AIV for P_j V_j while the AIC multiplies. Rotated by one iteration, the AIC
computes S_{j+1} before it waits for P_j, and the AIV the softmax of S_{j+1} before it waits
for P_j V_j, so each core's wait overlaps the other's work.

**The cut.** A member's loop body is cut before its first *round-trip pop*: a pop whose tile
the peer pushes, in the same iteration, after popping a tile this member pushed earlier in
the iteration (the AIC's pop of P_j; the AIV's pop of P_j V_j). Stage 1 is the body before
the cut, stage 2 the rest; ops of stage 1 only stage 2 needs (the AIC's load of V_j, index
arithmetic) sink into stage 2, and constants stage 2 needs are recomputed there. A loop with
trip count n becomes stage 1 of iteration 0, a loop of n - 1 iterations running stage 1 of
iteration j + 1 and then stage 2 of iteration j, and stage 2 of the last iteration. Values of
stage 1 that stage 2 uses (the AIV's α_j) and the carried values stage 2 reads from before
stage 1 updated them are carried by the new loop.

**Deeper.** Rotated by d < n iterations, the loop runs stage 1 of iteration j + d before stage
2 of iteration j, for n - d iterations, after a prologue loop running stage 1 of the first d
and before an epilogue loop running stage 2 of the last d (loops, not copies, so their tiles
take one iteration's buffers). A value stage 2 takes from stage 1 (or from before it) is
carried in a shift register of d slots: the loop uses the oldest and yields the newest last;
the prologue starts the slots with a placeholder (`tile.full` of 0, or a 0 constant) it shifts
out before stage 2 reads one. In the attention block of the benchmark the round trip from
P_j through P_j V_j, S_{j+2} and the softmax to P_{j+2} takes ~3,800 cycles in the cost
model, 2.6 blocks of the AIC's Fixpipe time (1,454 per block), so one block ahead leaves the
cube core waiting for P_j every other block. A loop rotates by at most n - 1, and both loops
of a pair by the same depth; a plan that fails the checks below is tried one shallower.

**What keeps the meaning.** Each member computes what it did (stage 1 of an iteration uses
nothing stage 2 of the previous one yields, and the stages touch no common memory); and each
ring delivers the same tiles: the pass lists both members' transfers, as run, before and
after the rotation, and rotates a group only when every pop still receives the push it
received before (per ring, in order) and the two members, run against each other with the
rings' slots and the group's flags, finish (no deadlock). Loops with transfers in nested
regions or with flags inside are left alone.

**Run-time bounds.** A loop bounded by parameters of the members and constants rotates by one
iteration for any trip count n: its bounds, computed at the start of each member, make the
prologue and the epilogue loops of min(n, 1) iterations and the loop between them one of
n - 1 (none for n = 0). The checks replay such loops at n = 0, 1, 2, 3 and 5.

**Ring depths.** A ring rotated by d holds d more blocks in flight; a ring with transfers in
a rotated loop gets at least `(d + 1) × (transfers per iteration)` slots (at most 15), on both
ends.

Runs in `pypto-ascendc` after hoist-cube-loads and before lower-cross-core-rings;
docs/passes/pipeline-cross-core-loops.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from pypto_xdsl.analysis.static_loops import static_trip_count
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.cross_core import (
    MAX_FLAG_ID,
    TRANSFER_TYPES,
    Pipe,
    PushOp,
    SetFlagOp,
    WaitFlagOp,
    group_members,
)
from pypto_xdsl.dialects.program import FuncOp, func_ops
from pypto_xdsl.transforms.cross_core_stages import (
    NotRotatable,
    Stages,
    body_ops,
    holds_placeholder,
    loop_stages,
    rotate_loop,
    round_trip_cut,
    trip_key,
)

DEFAULT_DEPTH = 3
"""Iterations stage 1 runs ahead of stage 2 unless told otherwise: in the cost model the
attention block and the FFN gain up to 3 and nothing beyond (docs/passes/pipeline-cross-core-loops.md)."""

MAX_EVENTS = 200_000
"""Transfers and flags per member, as run, beyond which a group is not checked (nor rotated)."""

def _has_cross_core(op: Operation) -> bool:
    return any(isinstance(o, (*TRANSFER_TYPES, SetFlagOp, WaitFlagOp)) for o in op.walk())


# --- what each member runs: its transfers and flags, in order --------------------------------


@dataclass(frozen=True)
class _Event:
    op: Operation
    iteration: tuple[int, ...]  # the indices of the enclosing loops


@dataclass(frozen=True)
class Rotation:
    """How a loop is rotated: the index in its body of the op the cut comes before, and by
    how many iterations stage 1 runs ahead of stage 2."""

    cut: int
    depth: int = 1


Plan = dict[scf.ForOp, Rotation]
"""Loops to rotate."""


ASSUMED_TRIPS = (0, 1, 2, 3, 5)
"""Trip counts a loop with run-time bounds is checked at (every such loop of a group at once)."""


def _runtime_keys(func: FuncOp) -> set[tuple]:
    """The trip keys of `func`'s loops with run-time bounds that transfer (None: some loop's
    bounds are neither constants nor parameters)."""
    return {trip_key(op) for op in func.walk() if isinstance(op, scf.ForOp) and static_trip_count(op) is None and _has_cross_core(op)}


def _events(func: FuncOp, plan: Plan, assumed: int | None = None) -> list[_Event]:
    """The member's transfers and flags in the order they run, loops unrolled, with `plan`'s
    loops rotated; a loop with run-time bounds made of parameters and constants runs
    `assumed` times."""
    out: list[_Event] = []

    def block(b: Block, it: tuple[int, ...], ops: list[Operation] | None = None) -> None:
        for op in ops if ops is not None else list(b.ops):
            if len(out) > MAX_EVENTS:
                raise NotRotatable("too many transfers to check")
            if isinstance(op, (*TRANSFER_TYPES, SetFlagOp, WaitFlagOp)):
                out.append(_Event(op, it))
            elif isinstance(op, scf.ForOp):
                if not _has_cross_core(op):
                    continue
                n = static_trip_count(op)
                if n is None and (assumed is None or trip_key(op) is None):
                    raise NotRotatable("a loop with run-time bounds transfers")
                n = assumed if n is None else n
                body = op.body.block
                if op in plan:
                    ops_ = [o for o in body.ops if not isinstance(o, scf.YieldOp)]
                    cut, d = plan[op].cut, plan[op].depth
                    first, second = ops_[:cut], ops_[cut:]
                    for i in range(min(d, n)):
                        block(body, (*it, i), first)
                    for i in range(n - d):
                        block(body, (*it, i + d), first)
                        block(body, (*it, i), second)
                    for i in range(max(0, n - d), n):
                        block(body, (*it, i), second)
                else:
                    for i in range(n):
                        block(body, (*it, i))
            elif isinstance(op, scf.IfOp):
                if not _has_cross_core(op):
                    continue
                branches = [[type(o) for o in r.walk() if isinstance(o, (*TRANSFER_TYPES, SetFlagOp, WaitFlagOp))] for r in op.regions]
                if len(branches) != 2 or branches[0] != branches[1]:
                    raise NotRotatable("a branch transfers")
                block(op.true_region.block, it)  # both branches transfer alike
            elif op.regions and _has_cross_core(op):
                raise NotRotatable(f"transfers inside '{op.name}'")

    block(func.body.block, ())
    return out


def _channel(e: _Event) -> tuple[str, Pipe, int | None]:
    op = e.op
    if isinstance(op, TRANSFER_TYPES):
        return ("ring", op.pipe_kind, None)
    return ("flag", op.pipe_kind, op.id_value)


def _is_producer_end(e: _Event) -> bool:
    return isinstance(e.op, (PushOp, SetFlagOp))


def _pairs(aic: list[_Event], aiv: list[_Event]) -> list[tuple[_Event, _Event]]:
    """(producer event, consumer event) per ring transfer, matched in order."""
    ends: dict[tuple, tuple[list[_Event], list[_Event]]] = {}
    for e in (*aic, *aiv):
        if isinstance(e.op, TRANSFER_TYPES):
            sides = ends.setdefault(_channel(e), ([], []))
            sides[0 if _is_producer_end(e) else 1].append(e)
    out = []
    for producers, consumers in ends.values():
        if len(producers) != len(consumers):
            raise NotRotatable("a ring's pushes and pops do not match")
        out += zip(producers, consumers)
    return out


def _runs_to_completion(aic: list[_Event], aiv: list[_Event], slots: dict[Pipe, int]) -> bool:
    """The two members, run against each other with rings of `slots` and the flags, finish."""
    queues = {0: deque(aic), 1: deque(aiv)}
    level: dict[tuple, int] = {}
    while queues[0] or queues[1]:
        progressed = False
        for side in (0, 1):
            q = queues[side]
            while q:
                e = q[0]
                ch = _channel(e)
                have = level.get(ch, 0)
                if _is_producer_end(e):
                    cap = slots[ch[1]] if ch[0] == "ring" else MAX_FLAG_ID
                    if have >= cap:
                        break
                    level[ch] = have + 1
                else:
                    if have == 0:
                        break
                    level[ch] = have - 1
                q.popleft()
                progressed = True
        if not progressed:
            return False
    return True


# --- the plan of a group ---------------------------------------------------------------------


def _transfer_loop(op: Operation) -> scf.ForOp | None:
    parent = op.parent_op()
    return parent if isinstance(parent, scf.ForOp) else None


def plan_group(group: FuncOp, depth: int = DEFAULT_DEPTH) -> tuple[Plan, dict[Pipe, int]]:
    """The loops of `group`'s members to rotate, each by `depth` iterations (fewer when the
    loop is shorter), and the new ring depths (empty when nothing can be rotated); raises
    NotRotatable when the group cannot be checked."""
    aic, aiv = group_members(group)
    if aic is None or aiv is None:
        return {}, {}
    runtime = _runtime_keys(aic) | _runtime_keys(aiv)
    if None in runtime:
        raise NotRotatable("a loop with run-time bounds that are not parameters or constants transfers")
    before = {m: _events(m, {}, ASSUMED_TRIPS[-1]) for m in (aic, aiv)}
    pairs = _pairs(before[aic], before[aiv])
    partner: dict[Operation, Operation] = {}
    for p, c in pairs:
        if p.iteration != c.iteration or partner.setdefault(p.op, c.op) is not c.op or partner.setdefault(c.op, p.op) is not p.op:
            raise NotRotatable("transfers do not pair up loop by loop")
    plan: Plan = {}
    seen: set[scf.ForOp] = set()
    for op in partner:
        loop, peer_op = _transfer_loop(op), partner[op]
        peer = _transfer_loop(peer_op)
        if loop is None or peer is None or loop in seen:
            continue
        seen |= {loop, peer}
        try:
            for lp, other in ((loop, peer), (peer, loop)):
                n = static_trip_count(lp)
                if n is None and trip_key(lp) != trip_key(other) or n is not None and (n < 2 or n != static_trip_count(other)):
                    raise NotRotatable("trip counts")
                for o in body_ops(lp):
                    if o.regions and _has_cross_core(o) or isinstance(o, (SetFlagOp, WaitFlagOp)):
                        raise NotRotatable("nested transfers or flags")
                    if isinstance(o, TRANSFER_TYPES) and _transfer_loop(partner[o]) is not other:
                        raise NotRotatable("the peer's transfers are in another loop")
            cuts = {lp: round_trip_cut(lp, other, partner) for lp, other in ((loop, peer), (peer, loop))}
            cuts = {lp: c for lp, c in cuts.items() if c is not None}
            # both loops of a pair rotate by the same depth, or the rings would pair other transfers
            pair_depth = min((_depth_for(lp, loop_stages(lp, c), depth) for lp, c in cuts.items()), default=1)
            plan |= {lp: Rotation(c, pair_depth) for lp, c in cuts.items()}
        except NotRotatable:
            continue
    if not plan:
        return {}, {}
    current = _ring_depths(aic, aiv, {})
    # shallower when the deeper plan fails the checks (a ring would need more than 15 slots)
    for d in range(max(r.depth for r in plan.values()), 0, -1):
        shallower = {lp: Rotation(r.cut, min(r.depth, d)) for lp, r in plan.items()}
        slots = _ring_depths(aic, aiv, shallower)
        if check_plan(group, shallower, slots) is None:
            return shallower, {p: n for p, n in slots.items() if n != current[p]}
    return {}, {}


def _depth_for(loop: scf.ForOp, stages: Stages, depth: int) -> int:
    """`depth`, or less: at most the loop's trip count - 1, and 1 when a value stage 2 takes
    from an earlier iteration could not sit in a shift register."""
    n = static_trip_count(loop)
    types = [v.type for v in stages.piped] + [loop.body.block.args[k + 1].type for k in stages.stale]
    if not all(holds_placeholder(t) for t in types):
        if n is None:  # its prologue is a loop of 0 or 1 iterations, which starts the slots
            raise NotRotatable("a value stage 2 takes from stage 1 cannot be carried")
        return 1
    return 1 if n is None else max(1, min(depth, n - 1))


def _ring_depths(aic: FuncOp, aiv: FuncOp, plan: Plan) -> dict[Pipe, int]:
    """Each ring's slots: as declared, and at least (depth + 1) times its transfers per
    iteration of a loop of `plan` (`depth` blocks in flight more than without the rotation)."""
    slots = {o.pipe_kind: o.slot_count for m in (aic, aiv) for o in m.walk() if isinstance(o, TRANSFER_TYPES)}
    for lp, rotation in plan.items():
        for pipe in slots:
            per_iteration = sum(1 for o in body_ops(lp) if isinstance(o, TRANSFER_TYPES) and o.pipe_kind is pipe)
            slots[pipe] = min(MAX_FLAG_ID, max(slots[pipe], (rotation.depth + 1) * per_iteration))
    return slots


def check_plan(group: FuncOp, plan: Plan, slots: dict[Pipe, int]) -> str | None:
    """Why rotating `plan`'s loops of `group`'s members (with rings of `slots`) would change
    what the group computes, or None: every pop must receive the push it received before,
    and the members, run against each other, must finish."""
    aic, aiv = group_members(group)
    assert aic is not None and aiv is not None
    def key(pairs: list[tuple[_Event, _Event]]) -> list[tuple[int, tuple[int, ...], int, tuple[int, ...]]]:
        return sorted((id(p.op), p.iteration, id(c.op), c.iteration) for p, c in pairs)

    runtime = _runtime_keys(aic) | _runtime_keys(aiv)
    for assumed in ASSUMED_TRIPS if runtime else (None,):
        try:
            pairs = _pairs(*(_events(m, {}, assumed) for m in (aic, aiv)))
            after = {m: _events(m, plan, assumed) for m in (aic, aiv)}
            rotated = _pairs(after[aic], after[aiv])
        except NotRotatable as e:
            return str(e)
        if key(rotated) != key(pairs):
            return "a pop would receive another push than before"
        if not _runs_to_completion(after[aic], after[aiv], slots):
            return "the members would deadlock"
    return None


class RotateCrossCoreLoop(RewritePattern):
    """Rotates a loop of the plan."""

    def __init__(self, plan: Plan):
        self.plan = plan

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        rotation = self.plan.pop(op, None)
        if rotation is not None:
            rotate_loop(op, rotation.cut, rewriter, rotation.depth)


class DeepenRing(RewritePattern):
    """Gives a ring of a rotated group its new slot count, on both ends."""

    def __init__(self, slots: dict[Pipe, int]):
        self.slots = slots

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, TRANSFER_TYPES) and (want := self.slots.get(op.pipe_kind)) and op.slot_count != want:
            op.slots = IntegerAttr(want, 64)
            rewriter.handle_operation_modification(op)


def pipeline_cross_core_loops(module: ModuleOp, depth: int = DEFAULT_DEPTH) -> list[str]:
    """Rotate the loops of every group of `module` by `depth` iterations; the names of the
    groups rotated."""
    if depth < 1:
        raise ValueError(f"pipeline-cross-core-loops: depth must be at least 1, not {depth}")
    rotated = []
    for group in [f for f in func_ops(module) if f.func_kind == FuncKind.GROUP]:
        try:
            plan, slots = plan_group(group, depth)
        except NotRotatable:
            continue
        if not plan:
            continue
        members = [m for m in group_members(group) if m is not None]
        for pattern in (RotateCrossCoreLoop(dict(plan)), DeepenRing(slots)):
            walker = PatternRewriteWalker(pattern, apply_recursively=False)
            for m in members:
                walker.rewrite_region(m.body)
        rotated.append(group.sym_name.data)
        invalidate(group)
    invalidate(module)
    return rotated


@dataclass(frozen=True)
class PipelineCrossCoreLoopsPass(ModulePass):
    """`pipeline-cross-core-loops`."""

    name = "pipeline-cross-core-loops"

    depth: int = DEFAULT_DEPTH

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pipeline_cross_core_loops(op, self.depth)


__all__ = [
    "DeepenRing",
    "PipelineCrossCoreLoopsPass",
    "RotateCrossCoreLoop",
    "Rotation",
    "check_plan",
    "pipeline_cross_core_loops",
    "plan_group",
    "rotate_loop",
]
