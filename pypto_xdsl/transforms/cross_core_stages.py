"""The stages of a loop pipeline-cross-core-loops rotates, and the rotation itself: where a
member's loop body is cut, which ops sink into stage 2 or wait until after it, what the
rotated loop carries, and the rewrite into prologue, loop and epilogue
(docs/passes/pipeline-cross-core-loops.md). The plan, its checks and the pass are in
pipeline_cross_core_loops."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from pypto_xdsl.analysis.static_loops import constant_index, static_trip_count
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import MemorySpace, ParamDirection, TileType
from pypto_xdsl.dialects.cross_core import TRANSFER_TYPES, PopOp, PushOp, SetFlagOp, WaitFlagOp
from pypto_xdsl.dialects.program import FuncOp

CUBE_SPACES = frozenset({MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC, MemorySpace.BIAS})


class NotRotatable(Exception):
    """A loop or group the pass leaves as it is."""



# --- the cut and the stages of one loop ------------------------------------------------------


def body_ops(loop: scf.ForOp) -> list[Operation]:
    return [o for o in loop.body.block.ops if not isinstance(o, scf.YieldOp)]


def round_trip_cut(loop: scf.ForOp, peer: scf.ForOp, partner: dict[Operation, Operation]) -> int | None:
    """The index of the first pop of `loop` whose tile `peer` pushes after popping a tile
    `loop` pushed earlier in the iteration."""
    ops = body_ops(loop)
    peer_order = {o: i for i, o in enumerate(body_ops(peer))}
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
class Stages:
    first: list[Operation]
    second: list[Operation]
    late: set[int] = field(default_factory=set)  # carried values stage 2 yields
    piped: list[SSAValue] = field(default_factory=list)  # stage-1 values stage 2 uses
    stale: list[int] = field(default_factory=list)  # early carried values stage 2 reads


def loop_stages(loop: scf.ForOp, cut: int) -> Stages:
    ops = body_ops(loop)
    first, second = ops[:cut], ops[cut:]
    yielded = list(loop.body.block.last_op.operands)  # type: ignore[union-attr]
    second_set = set(second) | _sinking(loop, first, set(second), yielded)
    first = [o for o in ops if o not in second_set]
    second = _waits_last(ops, second_set)
    stages = Stages(first, second)
    first_values = set().union(*(_defined_in(o) for o in first)) if first else set()
    second_values = set().union(*(_defined_in(o) for o in second)) if second else set()
    args = loop.body.block.args
    for k, y in enumerate(yielded):
        if y in second_values:
            stages.late.add(k)
    first_uses = set().union(*(_uses(o) for o in first)) if first else set()
    if first_uses & second_values:
        raise NotRotatable("stage 1 uses a value of stage 2")
    if any(args[k + 1] in first_uses for k in stages.late):
        raise NotRotatable("stage 1 of the next iteration needs a value stage 2 carries")
    if any(_touches_memory(o) for o in first) and any(_touches_memory(o) for o in second):
        raise NotRotatable("both stages access memory")
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
                raise NotRotatable("a cube tile would be carried from one iteration to the next")
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


def holds_placeholder(t: Attribute) -> bool:
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

    stages: Stages
    iv: SSAValue
    carried: list[SSAValue]
    yielded: list[SSAValue]
    depth: int

    @property
    def early(self) -> list[int]:
        return [k for k in range(len(self.carried)) if k not in self.stages.late]


def _open_loop(lp: _Loop, kept: list[int], inits: list[SSAValue], lo: SSAValue, hi: SSAValue, one: SSAValue):
    """An empty loop from `lo` to `hi` carrying the carried values `kept` and the shift
    registers (`inits` in that order): the loop, the arguments of the kept values, of the
    piped and of the stale slots, and the mapping of the induction variable and kept values."""
    loop = scf.ForOp(lo, hi, one, inits, Block(arg_types=[IndexType(), *(v.type for v in inits)]))
    args = list(loop.body.block.args)
    args[0].name_hint = lp.iv.name_hint
    kept_args = args[1 : 1 + len(kept)]
    n_piped = len(lp.stages.piped)
    piped = _split(args[1 + len(kept) :], lp.depth, n_piped)
    stale = _split(args[1 + len(kept) + lp.depth * n_piped :], lp.depth, len(lp.stages.stale))
    mapping: dict[SSAValue, SSAValue] = {lp.iv: args[0]}
    for k, a in zip(kept, kept_args):
        a.name_hint = lp.carried[k].name_hint
        mapping[lp.carried[k]] = a
    return loop, kept_args, piped, stale, mapping


def _prologue(lp: _Loop, inits: list[SSAValue], lb: int, step: int, out: list[Operation]):
    """Stage 1 of the first `depth` iterations from constant `lb`: one iteration inlined, more
    as _prologue_loop."""
    st = lp.stages
    if lp.depth == 1:
        pro: dict[SSAValue, SSAValue] = {lp.iv: _index(out, lb), **dict(zip(lp.carried, inits))}
        _clone_stage(st.first, pro, out, [])
        current = [pro.get(lp.yielded[k], lp.yielded[k]) if k not in st.late else inits[k] for k in range(len(inits))]
        return current, [[pro[v] for v in st.piped]], [[inits[k] for k in st.stale]]
    bounds = _index(out, lb), _index(out, lb + lp.depth * step), _index(out, step)
    return _prologue_loop(lp, inits, *bounds, out)


def _prologue_loop(lp: _Loop, inits: list[SSAValue], lo: SSAValue, hi: SSAValue, one: SSAValue, out: list[Operation]):
    """A loop from `lo` to `hi` running stage 1 (the first `depth` iterations, or 0 or 1 of a
    loop with run-time bounds), appended to `out`: the carried values after it, and per
    iteration i the values of stage 1 (piped) and of before it (stale) that stage 2 of
    iteration i needs, which its shift registers end up holding. Its tiles take the buffers
    of one iteration."""
    st, first = lp.stages, lp.stages.first
    d, early = lp.depth, lp.early
    holes = [_placeholder(v.type, out) for v in st.piped] + [_placeholder(lp.carried[k].type, out) for k in st.stale]
    slot_inits = [*(holes[: len(st.piped)] * d), *(holes[len(st.piped) :] * d)]
    loop, e_args, piped, stale, mapping = _open_loop(lp, early, [inits[k] for k in early] + slot_inits, lo, hi, one)
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
    """Stage 2 of the last `depth` iterations from constant `lb`: one iteration inlined, more
    as _epilogue_loop."""
    st = lp.stages
    if lp.depth == 1:
        epi: dict[SSAValue, SSAValue] = {lp.iv: _index(out, lb), **{lp.carried[k]: v for k, v in late.items()}}
        epi |= dict(zip(st.piped, piped[0])) | {lp.carried[k]: v for k, v in zip(st.stale, stale[0])}
        _clone_stage(st.second, epi, out, st.first)
        return {k: epi.get(lp.yielded[k], lp.yielded[k]) for k in sorted(late)}
    bounds = _index(out, lb), _index(out, lb + lp.depth * step), _index(out, step)
    return _epilogue_loop(lp, late, piped, stale, *bounds, out)


def _epilogue_loop(
    lp: _Loop, late: dict[int, SSAValue], piped, stale, lo: SSAValue, hi: SSAValue, one: SSAValue, out: list[Operation]
) -> dict[int, SSAValue]:
    """A loop from `lo` to `hi` running stage 2 (the last `depth` iterations, or 0 or 1 of a
    loop with run-time bounds), appended to `out`, shifting the piped and stale values down
    by one per iteration; the carried values stage 2 updates, after it."""
    st = lp.stages
    late_k = sorted(late)
    loop_inits = [late[k] for k in late_k] + _flat(piped) + _flat(stale)
    loop, _, p_args, s_args, mapping = _open_loop(lp, late_k, loop_inits, lo, hi, one)
    mapping |= dict(zip(st.piped, p_args[0])) | {lp.carried[k]: v for k, v in zip(st.stale, s_args[0])}
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


def trip_key(loop: scf.ForOp) -> tuple | None:
    """What a loop's trip count is made of, comparable between the two members of a group:
    per bound a constant or the index of a parameter of the member (both members take the
    group's parameters), or None when a bound is anything else or the step is not a positive
    constant."""
    keys = []
    for v in (loop.lb, loop.ub, loop.step):
        c = constant_index(v)
        if c is not None:
            keys.append(("constant", c))
        elif isinstance(v, BlockArgument) and isinstance(v.block.parent_op(), FuncOp) and v.block.parent_op().body.block is v.block:
            keys.append(("parameter", v.index))
        else:
            return None
    step = constant_index(loop.step)
    return tuple(keys) if step is not None and step > 0 else None


@dataclass
class _RuntimeBounds:
    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    prologue_ub: SSAValue  # min(ub, lb + step): stage 1 of the first iteration, if there is one
    loop_ub: SSAValue  # ub - step: n - 1 iterations, none when n <= 1
    epilogue_lb: SSAValue  # max(lb, lb + (n - 1) step): stage 2 of the last iteration, if there is one


def _runtime_bounds(loop: scf.ForOp, step: int, rewriter: PatternRewriter) -> _RuntimeBounds:
    """The bounds of a rotated loop with run-time bounds, computed at the start of its
    function from the parameters and constants its bounds are (trip_key): lower-cross-core-rings
    then finds them known before every enclosing loop it counts the transfers of."""
    func = loop.parent_op()
    while not isinstance(func, FuncOp):
        assert func is not None
        func = func.parent_op()
    entry = func.body.block
    ops: list[Operation] = []

    def at_entry(v: SSAValue) -> SSAValue:
        c = constant_index(v)
        return v if c is None else _index(ops, c)

    lb, ub, st = at_entry(loop.lb), at_entry(loop.ub), _index(ops, step)
    first_end = arith.AddiOp(lb, st)
    prologue_ub = arith.MinSIOp(ub, first_end.result)
    loop_ub = arith.SubiOp(ub, st)
    span = arith.SubiOp(ub, lb)
    trips = arith.CeilDivSIOp(span.result, st)
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    before_last = arith.SubiOp(trips.result, one.result)
    offset = arith.MuliOp(before_last.result, st)
    last = arith.AddiOp(lb, offset.result)
    epilogue_lb = arith.MaxSIOp(lb, last.result)
    ops += [first_end, prologue_ub, loop_ub, span, trips, one, before_last, offset, last, epilogue_lb]
    rewriter.insert(ops, InsertPoint.at_start(entry))
    return _RuntimeBounds(lb, ub, st, prologue_ub.result, loop_ub.result, epilogue_lb.result)


def rotate_loop(loop: scf.ForOp, cut: int, rewriter: PatternRewriter, depth: int = 1) -> None:
    """Rotate `loop` by `depth` iterations at `cut` (see the module docstring)."""
    stages = loop_stages(loop, cut)
    n = static_trip_count(loop)
    assert 1 <= depth and (n is None and depth == 1 or n is not None and depth < n)
    lb, step = constant_index(loop.lb), constant_index(loop.step)
    assert step is not None and (lb is not None or n is None)
    block = loop.body.block
    iv, carried = block.args[0], list(block.args[1:])
    yielded = list(block.last_op.operands)  # type: ignore[union-attr]
    lp = _Loop(stages, iv, carried, yielded, depth)
    early, n_piped, n_stale = lp.early, len(stages.piped), len(stages.stale)

    before: list[Operation] = []
    if n is None:  # run-time bounds: loops of min(n, 1), n - 1 and min(n, 1) iterations, none when n = 0
        runtime = _runtime_bounds(loop, step, rewriter)
        current, piped, stale = _prologue_loop(lp, list(loop.iter_args), runtime.lb, runtime.prologue_ub, runtime.step, before)
        new_lb, new_ub, new_step = runtime.lb, runtime.loop_ub, runtime.step
    else:
        assert lb is not None
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
    late_values = {k: res[k] for k in stages.late}
    piped, stale = _split(rest, depth, n_piped), _split(rest[depth * n_piped :], depth, n_stale)
    if n is None:
        late = _epilogue_loop(lp, late_values, piped, stale, runtime.epilogue_lb, runtime.ub, runtime.step, after)
    else:
        assert lb is not None
        late = _epilogue(lp, late_values, piped, stale, lb + (n - depth) * step, step, after)
    results = [late[k] if k in stages.late else res[k] for k in range(len(carried))]
    for old, new in zip(loop.results, res):
        new.name_hint = old.name_hint
    before, after = ([o for o in ops if not (isinstance(o, arith.ConstantOp) and not o.result.uses)] for ops in (before, after))
    bounds = [v.owner for v in (loop.lb, loop.ub, loop.step)]
    rewriter.replace(loop, [*before, new_loop, *after], results)
    for bound in dict.fromkeys(bounds):  # the old loop's bounds, unless something else uses them
        if isinstance(bound, arith.ConstantOp) and not bound.result.uses:
            rewriter.erase(bound)


__all__ = [
    "NotRotatable",
    "Stages",
    "body_ops",
    "holds_placeholder",
    "loop_stages",
    "rotate_loop",
    "round_trip_cut",
    "trip_key",
]
