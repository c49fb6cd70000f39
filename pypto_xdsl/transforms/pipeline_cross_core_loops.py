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
rings' slots and the group's flags, finish (no deadlock). Loops with run-time bounds, with
transfers in nested regions or with flags inside are left alone.

**Ring depths.** A ring rotated by d holds d more blocks in flight; a ring with transfers in
a rotated loop gets at least `(d + 1) × (transfers per iteration)` slots (at most 15), on both
ends.

Runs in `pypto-ascendc` after hoist-cube-loads and before lower-cross-core-rings;
docs/passes/pipeline-cross-core-loops.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import is_side_effect_free

from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, ParamDirection, TileType
from pypto_xdsl.dialects.cross_core import (
    MAX_FLAG_ID,
    TRANSFER_TYPES,
    Pipe,
    PopOp,
    PushOp,
    SetFlagOp,
    WaitFlagOp,
    group_members,
)
from pypto_xdsl.dialects.program import FuncOp, func_ops

DEFAULT_DEPTH = 3
"""Iterations stage 1 runs ahead of stage 2 unless told otherwise: in the cost model the
attention block and the FFN gain up to 3 and nothing beyond (docs/passes/pipeline-cross-core-loops.md)."""

MAX_EVENTS = 200_000
"""Transfers and flags per member, as run, beyond which a group is not checked (nor rotated)."""

CUBE_SPACES = frozenset({MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC, MemorySpace.BIAS})


class _NotRotatable(Exception):
    """A loop or group the pass leaves as it is."""


def _constant(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _trip_count(loop: scf.ForOp) -> int | None:
    lb, ub, step = (_constant(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, (ub - lb + step - 1) // step)


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


def _events(func: FuncOp, plan: Plan) -> list[_Event]:
    """The member's transfers and flags in the order they run, loops unrolled, with `plan`'s
    loops rotated."""
    out: list[_Event] = []

    def block(b: Block, it: tuple[int, ...], ops: list[Operation] | None = None) -> None:
        for op in ops if ops is not None else list(b.ops):
            if len(out) > MAX_EVENTS:
                raise _NotRotatable("too many transfers to check")
            if isinstance(op, (*TRANSFER_TYPES, SetFlagOp, WaitFlagOp)):
                out.append(_Event(op, it))
            elif isinstance(op, scf.ForOp):
                if not _has_cross_core(op):
                    continue
                n = _trip_count(op)
                if n is None:
                    raise _NotRotatable("a loop with run-time bounds transfers")
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
                    raise _NotRotatable("a branch transfers")
                block(op.true_region.block, it)  # both branches transfer alike
            elif op.regions and _has_cross_core(op):
                raise _NotRotatable(f"transfers inside '{op.name}'")

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
            raise _NotRotatable("a ring's pushes and pops do not match")
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


# --- the cut and the stages of one loop ------------------------------------------------------


def _body_ops(loop: scf.ForOp) -> list[Operation]:
    return [o for o in loop.body.block.ops if not isinstance(o, scf.YieldOp)]


def _round_trip_cut(loop: scf.ForOp, peer: scf.ForOp, partner: dict[Operation, Operation]) -> int | None:
    """The index of the first pop of `loop` whose tile `peer` pushes after popping a tile
    `loop` pushed earlier in the iteration."""
    ops = _body_ops(loop)
    peer_order = {o: i for i, o in enumerate(_body_ops(peer))}
    for i, op in enumerate(ops):
        if not isinstance(op, PopOp):
            continue
        push = partner[op]
        for earlier in ops[:i]:
            if isinstance(earlier, PushOp) and peer_order[partner[earlier]] < peer_order[push]:
                return i
    return None


def _defined_in(op: Operation) -> set[SSAValue]:
    values: set[SSAValue] = set()
    for o in op.walk():
        values.update(o.results)
        for r in o.regions:
            for b in r.blocks:
                values.update(b.args)
    return values


def _uses(op: Operation) -> set[SSAValue]:
    """Values `op` (with its regions) uses from outside it."""
    inner = _defined_in(op)
    return {v for o in op.walk() for v in o.operands if v not in inner}


def _reads_only_inputs(op: Operation) -> bool:
    if not isinstance(op, tile.LoadOp):
        return False
    src = op.source
    if not isinstance(src, BlockArgument):
        return False
    func = src.block.parent_op()
    return isinstance(func, FuncOp) and src.block is func.body.block and func.directions[src.index] == ParamDirection.IN


def _touches_memory(op: Operation) -> bool:
    return any(
        not isinstance(o, TRANSFER_TYPES) and not _reads_only_inputs(o) and not is_side_effect_free(o) for o in op.walk()
    )


def _rematerialisable(op: Operation) -> bool:
    return op.dialect_name() == "arith" and not op.regions and is_side_effect_free(op)


@dataclass
class _Stages:
    first: list[Operation]
    second: list[Operation]
    late: set[int] = field(default_factory=set)  # carried values stage 2 yields
    piped: list[SSAValue] = field(default_factory=list)  # stage-1 values stage 2 uses
    stale: list[int] = field(default_factory=list)  # early carried values stage 2 reads


def _stages(loop: scf.ForOp, cut: int) -> _Stages:
    ops = _body_ops(loop)
    first, second = ops[:cut], ops[cut:]
    yielded = list(loop.body.block.last_op.operands)  # type: ignore[union-attr]
    second_set = set(second) | _sinking(loop, first, set(second), yielded)
    first = [o for o in ops if o not in second_set]
    second = _waits_last(ops, second_set)
    stages = _Stages(first, second)
    first_values = set().union(*(_defined_in(o) for o in first)) if first else set()
    second_values = set().union(*(_defined_in(o) for o in second)) if second else set()
    args = loop.body.block.args
    for k, y in enumerate(yielded):
        if y in second_values:
            stages.late.add(k)
    first_uses = set().union(*(_uses(o) for o in first)) if first else set()
    if first_uses & second_values:
        raise _NotRotatable("stage 1 uses a value of stage 2")
    if any(args[k + 1] in first_uses for k in stages.late):
        raise _NotRotatable("stage 1 of the next iteration needs a value stage 2 carries")
    if any(_touches_memory(o) for o in first) and any(_touches_memory(o) for o in second):
        raise _NotRotatable("both stages access memory")
    # what stage 2 needs from stage 1 and from the carried values, looking through the index
    # arithmetic it recomputes
    work = list(set().union(*(_uses(o) for o in second)) if second else set())
    seen: set[SSAValue] = set()
    piped: set[SSAValue] = set()
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in first_values:
            if isinstance(v, OpResult) and _rematerialisable(v.op) and _top(v.op, loop) is v.op:
                work.extend(v.op.operands)
            elif isinstance(v.type, TileType) and v.type.space in CUBE_SPACES:
                raise _NotRotatable("a cube tile would be carried from one iteration to the next")
            else:
                piped.add(v)
    stages.piped = sorted(piped, key=lambda v: ops.index(_top(v.owner, loop)))  # type: ignore[arg-type]
    stages.stale = [k for k in range(len(yielded)) if k not in stages.late and args[k + 1] in seen]
    return stages


def _sinking(loop: scf.ForOp, first: list[Operation], second: set[Operation], yielded: list[SSAValue]) -> set[Operation]:
    """The ops of stage 1 that sink into stage 2: only stage 2 uses their results, they may
    move (no side effects, or loads of inputs), and sinking them carries nothing new from one
    iteration to the next (their operands come from outside the loop, the induction variable,
    index arithmetic or other sinking ops)."""
    movable = {
        op
        for op in first
        if not op.regions
        and not isinstance(op, (*TRANSFER_TYPES, SetFlagOp, WaitFlagOp))
        and (is_side_effect_free(op) or _reads_only_inputs(op))
        and not any(r in yielded for r in op.results)
        and any(r.uses for r in op.results)
    }
    body = loop.body.block
    sinking = set(movable)

    def available(v: SSAValue) -> bool:
        if isinstance(v, BlockArgument):
            return v.block is not body or v.index == 0
        op = v.op  # type: ignore[union-attr]
        if _top(op, loop) is None:
            return True
        return op in sinking or _rematerialisable(op)

    changed = True
    while changed:
        changed = False
        for op in list(sinking):
            users = {_top(u.operation, loop) for r in op.results for u in r.uses}
            if not users <= (second | sinking) or not all(available(v) for v in op.operands):
                sinking.discard(op)
                changed = True
    return sinking


def _waits_last(ops: list[Operation], stage: set[Operation]) -> list[Operation]:
    """The ops of `stage` in program order, except that the ones that need no tile of the
    stage's pops (and may move: no side effects, or loads of inputs) come first, so the core
    does them before it waits (the AIV's `α_j · o` before its pop of P_j V_j)."""
    waiting: set[SSAValue] = set()
    early, late = [], []
    for op in ops:
        if op not in stage:
            continue
        movable = not op.regions and (is_side_effect_free(op) or _reads_only_inputs(op))
        if isinstance(op, PopOp) or not movable or _uses(op) & waiting:
            waiting.update(_defined_in(op))
            late.append(op)
        else:
            early.append(op)
    return early + late


def _top(op: Operation, loop: scf.ForOp) -> Operation | None:
    """The op of `loop`'s body that holds `op` (None when `op` is outside the loop)."""
    while op.parent_op() is not loop:
        parent = op.parent_op()
        if parent is None:
            return None
        op = parent
    return op


# --- the rewrite -----------------------------------------------------------------------------


def _index(ops: list[Operation], value: int) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    ops.append(c)
    return c.result


def _clone_stage(
    stage: list[Operation], mapping: dict[SSAValue, SSAValue], out: list[Operation], remat_from: list[Operation]
) -> None:
    """Clone `stage` into `out` under `mapping`; values of `remat_from` it uses that are index
    and scalar arithmetic are recomputed first."""
    remat = {r: o for o in remat_from if _rematerialisable(o) for r in o.results}

    def ensure(v: SSAValue) -> None:
        if v in mapping or v not in remat:
            return
        op = remat[v]
        for operand in op.operands:
            ensure(operand)
        out.append(op.clone(mapping))

    for op in stage:
        for v in _uses(op):
            ensure(v)
        out.append(op.clone(mapping))


def _split(values: list[SSAValue], depth: int, width: int) -> list[list[SSAValue]]:
    return [values[i * width : (i + 1) * width] for i in range(depth)]


def _flat(groups: list[list[SSAValue]]) -> list[SSAValue]:
    return [v for group in groups for v in group]


def _holds_placeholder(t: Attribute) -> bool:
    """A value of type `t` can be made up for a shift register's first slots."""
    if isinstance(t, TileType):
        t = t.element_type
    return isinstance(t, (IndexType, IntegerType, AnyFloat))


def _placeholder(t: Attribute, out: list[Operation]) -> SSAValue:
    """A value of type `t` that is never read: what a shift register's slots start with
    before the prologue has filled them."""
    element = t.element_type if isinstance(t, TileType) else t
    zero = arith.ConstantOp(FloatAttr(0.0, element) if isinstance(element, AnyFloat) else IntegerAttr(0, element))
    out.append(zero)
    if not isinstance(t, TileType):
        return zero.result
    full = tile.FullOp(zero.result, t)
    out.append(full)
    return full.result


@dataclass
class _Loop:
    """What rotate_loop knows of the loop it rotates."""

    stages: _Stages
    iv: SSAValue
    carried: list[SSAValue]
    yielded: list[SSAValue]
    depth: int

    @property
    def early(self) -> list[int]:
        return [k for k in range(len(self.carried)) if k not in self.stages.late]


def _prologue(lp: _Loop, inits: list[SSAValue], lb: int, step: int, out: list[Operation]):
    """Stage 1 of the first `depth` iterations, appended to `out`: the carried values after
    them, and per iteration i the values of stage 1 (piped) and of before it (stale) that
    stage 2 of iteration i needs. One iteration is inlined; more are a loop whose shift
    registers end up holding them, so its tiles take the buffers of one iteration."""
    st, first = lp.stages, lp.stages.first
    if lp.depth == 1:
        pro: dict[SSAValue, SSAValue] = {lp.iv: _index(out, lb), **dict(zip(lp.carried, inits))}
        _clone_stage(first, pro, out, [])
        current = [pro.get(lp.yielded[k], lp.yielded[k]) if k not in st.late else inits[k] for k in range(len(inits))]
        return current, [[pro[v] for v in st.piped]], [[inits[k] for k in st.stale]]
    d, early = lp.depth, lp.early
    holes = [_placeholder(v.type, out) for v in st.piped] + [_placeholder(lp.carried[k].type, out) for k in st.stale]
    slot_inits = [*(holes[: len(st.piped)] * d), *(holes[len(st.piped) :] * d)]
    loop_inits = [inits[k] for k in early] + slot_inits
    lo, hi, one = _index(out, lb), _index(out, lb + d * step), _index(out, step)
    loop = scf.ForOp(lo, hi, one, loop_inits, Block(arg_types=[IndexType(), *(v.type for v in loop_inits)]))
    args = list(loop.body.block.args)
    args[0].name_hint = lp.iv.name_hint
    e_args = args[1 : 1 + len(early)]
    piped = _split(args[1 + len(early) :], d, len(st.piped))
    stale = _split(args[1 + len(early) + d * len(st.piped) :], d, len(st.stale))
    mapping: dict[SSAValue, SSAValue] = {lp.iv: args[0], **{lp.carried[k]: a for k, a in zip(early, e_args)}}
    for k, a in zip(early, e_args):
        a.name_hint = lp.carried[k].name_hint
    body: list[Operation] = []
    _clone_stage(first, mapping, body, [])
    body.append(
        scf.YieldOp(
            *(mapping.get(lp.yielded[k], lp.yielded[k]) for k in early),
            *_flat(piped[1:]), *(mapping[v] for v in st.piped),
            *_flat(stale[1:]), *(mapping[lp.carried[k]] for k in st.stale),
        )
    )
    loop.body.block.add_ops(body)
    out.append(loop)
    res = list(loop.results)
    current = list(inits)
    for k, r in zip(early, res):
        r.name_hint = lp.carried[k].name_hint
        current[k] = r
    rest = res[len(early) :]
    return current, _split(rest, d, len(st.piped)), _split(rest[d * len(st.piped) :], d, len(st.stale))


def _epilogue(lp: _Loop, late: dict[int, SSAValue], piped, stale, lb: int, step: int, out: list[Operation]) -> dict[int, SSAValue]:
    """Stage 2 of the last `depth` iterations (from `lb`), appended to `out`; the carried
    values stage 2 updates, after them. One iteration is inlined, more are a loop that shifts
    the piped and stale values down by one per iteration."""
    st = lp.stages
    late_k = sorted(late)
    if lp.depth == 1:
        epi: dict[SSAValue, SSAValue] = {lp.iv: _index(out, lb), **{lp.carried[k]: v for k, v in late.items()}}
        epi |= dict(zip(st.piped, piped[0])) | {lp.carried[k]: v for k, v in zip(st.stale, stale[0])}
        _clone_stage(st.second, epi, out, st.first)
        return {k: epi.get(lp.yielded[k], lp.yielded[k]) for k in late_k}
    d = lp.depth
    loop_inits = [late[k] for k in late_k] + _flat(piped) + _flat(stale)
    lo, hi, one = _index(out, lb), _index(out, lb + d * step), _index(out, step)
    loop = scf.ForOp(lo, hi, one, loop_inits, Block(arg_types=[IndexType(), *(v.type for v in loop_inits)]))
    args = list(loop.body.block.args)
    args[0].name_hint = lp.iv.name_hint
    l_args = args[1 : 1 + len(late_k)]
    p_args = _split(args[1 + len(late_k) :], d, len(st.piped))
    s_args = _split(args[1 + len(late_k) + d * len(st.piped) :], d, len(st.stale))
    mapping: dict[SSAValue, SSAValue] = {lp.iv: args[0], **{lp.carried[k]: a for k, a in zip(late_k, l_args)}}
    mapping |= dict(zip(st.piped, p_args[0])) | {lp.carried[k]: v for k, v in zip(st.stale, s_args[0])}
    for k, a in zip(late_k, l_args):
        a.name_hint = lp.carried[k].name_hint
    body: list[Operation] = []
    _clone_stage(st.second, mapping, body, st.first)
    body.append(
        scf.YieldOp(
            *(mapping.get(lp.yielded[k], lp.yielded[k]) for k in late_k),
            *_flat(p_args[1:]), *p_args[-1], *_flat(s_args[1:]), *s_args[-1],
        )
    )
    loop.body.block.add_ops(body)
    out.append(loop)
    for k, r in zip(late_k, loop.results):
        r.name_hint = lp.carried[k].name_hint
    return dict(zip(late_k, loop.results))


def rotate_loop(loop: scf.ForOp, cut: int, rewriter: PatternRewriter, depth: int = 1) -> None:
    """Rotate `loop` by `depth` iterations at `cut` (see the module docstring)."""
    stages = _stages(loop, cut)
    n = _trip_count(loop)
    assert n is not None and 1 <= depth < n
    lb, step = _constant(loop.lb), _constant(loop.step)
    assert lb is not None and step is not None
    block = loop.body.block
    iv, carried = block.args[0], list(block.args[1:])
    yielded = list(block.last_op.operands)  # type: ignore[union-attr]
    lp = _Loop(stages, iv, carried, yielded, depth)
    early, n_piped, n_stale = lp.early, len(stages.piped), len(stages.stale)

    before: list[Operation] = []
    current, piped, stale = _prologue(lp, list(loop.iter_args), lb, step, before)
    new_lb, new_ub, new_step = _index(before, lb), _index(before, lb + (n - depth) * step), _index(before, step)
    ahead = new_step if depth == 1 else _index(before, depth * step)
    init_values = current + _flat(piped) + _flat(stale)
    new_loop = scf.ForOp(new_lb, new_ub, new_step, init_values, Block(arg_types=[IndexType(), *(v.type for v in init_values)]))
    nb = new_loop.body.block
    j = nb.args[0]
    j.name_hint = iv.name_hint
    a_args = list(nb.args[1 : 1 + len(carried)])
    p_args = _split(list(nb.args[1 + len(carried) :]), depth, n_piped)
    b_args = _split(list(nb.args[1 + len(carried) + depth * n_piped :]), depth, n_stale)
    for arg, old in zip(a_args, carried):
        arg.name_hint = old.name_hint
    body: list[Operation] = []
    next_iv = arith.AddiOp(j, ahead)
    body.append(next_iv)
    # stage 1 of iteration j + depth * step
    s1: dict[SSAValue, SSAValue] = {iv: next_iv.result, **{carried[k]: a_args[k] for k in early}}
    _clone_stage(stages.first, s1, body, [])
    # stage 2 of iteration j
    s2: dict[SSAValue, SSAValue] = {iv: j, **{carried[k]: a_args[k] for k in stages.late}}
    s2 |= dict(zip(stages.piped, p_args[0])) | {carried[k]: b for k, b in zip(stages.stale, b_args[0])}
    _clone_stage(stages.second, s2, body, stages.first)
    yields = (
        [s2.get(yielded[k], yielded[k]) if k in stages.late else s1.get(yielded[k], yielded[k]) for k in range(len(carried))]
        + _flat(p_args[1:])
        + [s1[v] for v in stages.piped]
        + _flat(b_args[1:])
        + [a_args[k] for k in stages.stale]
    )
    body.append(scf.YieldOp(*yields))
    nb.add_ops(body)
    after: list[Operation] = []
    res = list(new_loop.results)
    rest = res[len(carried) :]
    late = _epilogue(
        lp, {k: res[k] for k in stages.late}, _split(rest, depth, n_piped), _split(rest[depth * n_piped :], depth, n_stale),
        lb + (n - depth) * step, step, after,
    )
    results = [late[k] if k in stages.late else res[k] for k in range(len(carried))]
    for old, new in zip(loop.results, res):
        new.name_hint = old.name_hint
    before, after = ([o for o in ops if not (isinstance(o, arith.ConstantOp) and not o.result.uses)] for ops in (before, after))
    bounds = [v.owner for v in (loop.lb, loop.ub, loop.step)]
    rewriter.replace(loop, [*before, new_loop, *after], results)
    for bound in dict.fromkeys(bounds):  # the old loop's bounds, unless something else uses them
        if isinstance(bound, arith.ConstantOp) and not bound.result.uses:
            rewriter.erase(bound)


# --- the plan of a group ---------------------------------------------------------------------


def _transfer_loop(op: Operation) -> scf.ForOp | None:
    parent = op.parent_op()
    return parent if isinstance(parent, scf.ForOp) else None


def plan_group(group: FuncOp, depth: int = DEFAULT_DEPTH) -> tuple[Plan, dict[Pipe, int]]:
    """The loops of `group`'s members to rotate, each by `depth` iterations (fewer when the
    loop is shorter), and the new ring depths (empty when nothing can be rotated); raises
    _NotRotatable when the group cannot be checked."""
    aic, aiv = group_members(group)
    if aic is None or aiv is None:
        return {}, {}
    before = {m: _events(m, {}) for m in (aic, aiv)}
    pairs = _pairs(before[aic], before[aiv])
    partner: dict[Operation, Operation] = {}
    for p, c in pairs:
        if p.iteration != c.iteration or partner.setdefault(p.op, c.op) is not c.op or partner.setdefault(c.op, p.op) is not p.op:
            raise _NotRotatable("transfers do not pair up loop by loop")
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
                n = _trip_count(lp)
                if n is None or n < 2 or n != _trip_count(other):
                    raise _NotRotatable("trip counts")
                for o in _body_ops(lp):
                    if o.regions and _has_cross_core(o) or isinstance(o, (SetFlagOp, WaitFlagOp)):
                        raise _NotRotatable("nested transfers or flags")
                    if isinstance(o, TRANSFER_TYPES) and _transfer_loop(partner[o]) is not other:
                        raise _NotRotatable("the peer's transfers are in another loop")
            cuts = {lp: _round_trip_cut(lp, other, partner) for lp, other in ((loop, peer), (peer, loop))}
            cuts = {lp: c for lp, c in cuts.items() if c is not None}
            # both loops of a pair rotate by the same depth, or the rings would pair other transfers
            pair_depth = min((_depth_for(lp, _stages(lp, c), depth) for lp, c in cuts.items()), default=1)
            plan |= {lp: Rotation(c, pair_depth) for lp, c in cuts.items()}
        except _NotRotatable:
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


def _depth_for(loop: scf.ForOp, stages: _Stages, depth: int) -> int:
    """`depth`, or less: at most the loop's trip count - 1, and 1 when a value stage 2 takes
    from an earlier iteration could not sit in a shift register."""
    n = _trip_count(loop)
    assert n is not None
    types = [v.type for v in stages.piped] + [loop.body.block.args[k + 1].type for k in stages.stale]
    if not all(_holds_placeholder(t) for t in types):
        return 1
    return max(1, min(depth, n - 1))


def _ring_depths(aic: FuncOp, aiv: FuncOp, plan: Plan) -> dict[Pipe, int]:
    """Each ring's slots: as declared, and at least (depth + 1) times its transfers per
    iteration of a loop of `plan` (`depth` blocks in flight more than without the rotation)."""
    slots = {o.pipe_kind: o.slot_count for m in (aic, aiv) for o in m.walk() if isinstance(o, TRANSFER_TYPES)}
    for lp, rotation in plan.items():
        for pipe in slots:
            per_iteration = sum(1 for o in _body_ops(lp) if isinstance(o, TRANSFER_TYPES) and o.pipe_kind is pipe)
            slots[pipe] = min(MAX_FLAG_ID, max(slots[pipe], (rotation.depth + 1) * per_iteration))
    return slots


def check_plan(group: FuncOp, plan: Plan, slots: dict[Pipe, int]) -> str | None:
    """Why rotating `plan`'s loops of `group`'s members (with rings of `slots`) would change
    what the group computes, or None: every pop must receive the push it received before,
    and the members, run against each other, must finish."""
    aic, aiv = group_members(group)
    assert aic is not None and aiv is not None
    try:
        pairs = _pairs(*(_events(m, {}) for m in (aic, aiv)))
        after = {m: _events(m, plan) for m in (aic, aiv)}
        rotated = _pairs(after[aic], after[aiv])
    except _NotRotatable as e:
        return str(e)
    def key(pairs: list[tuple[_Event, _Event]]) -> list[tuple[int, tuple[int, ...], int, tuple[int, ...]]]:
        return sorted((id(p.op), p.iteration, id(c.op), c.iteration) for p, c in pairs)

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
        except _NotRotatable:
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
