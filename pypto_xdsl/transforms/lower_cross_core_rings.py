"""lower-cross-core-rings: the slot rings of a group become a global-memory workspace, stores,
loads and numbered cross-core flags.

On dav-c220 the cube core reaches the vector cores only through global memory, so a ring of
S slots is a GM tensor `[S * rows, cols]` that the group creates (one per launch block, as
every workspace: the backend places it in the block's part of the launch workspace) and
passes to both members. Each ring has two flag ids: FULL (producer -> consumer, one setting
per stored slot) and FREE (consumer -> producer, one setting per slot read back):

* the consumer starts by setting FREE S times (every slot is free);
* push number n: wait FREE; store the tile into slot n % S; set FULL;
* pop number n: wait FULL; load slot n % S; set FREE;
* the producer ends by waiting FREE S times, so every counter is 0 when the kernel exits.

The push or pop number of a site is the number of transfers of its ring before it: the
enclosing loops' iteration indices times their bodies' counts, plus what earlier ops
transfer. A loop with run-time bounds counts `max(0, ceil((ub - lb) / step))` times its
body, computed at run time from its bounds (which must not change between iterations of an
enclosing loop); a branch must transfer equally often on both sides. The
flags expand-mixed-kernel inserted for shared tensors keep id 0; rings take ids from 1 up,
skipping 11-14 (SyncAll's). The result is plain pypto IR the interpreter runs (the ring
discipline is checked by its race detector) and the Ascend C backend lowers.

One rewrite per group (both members change together); docs/passes/lower-cross-core-rings.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FunctionType, IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.availability import available_before
from pypto_xdsl.analysis.static_loops import constant_index, static_trip_count
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection, TensorType
from pypto_xdsl.dialects.cross_core import (
    MAX_FLAG_ID,
    TRANSFER_TYPES,
    Pipe,
    PopOp,
    PushOp,
    SetFlagOp,
    WaitFlagOp,
    group_members,
    transfer_type,
)
from pypto_xdsl.dialects.program import CallOp, FuncOp, ReturnOp, func_ops

RESERVED_FLAG_IDS = frozenset(range(11, 15))
"""CrossCoreSetFlag ids SyncAll uses on dav-c220."""


class RingLoweringError(Exception):
    """A ring the pass cannot lower; the message names the op."""


def _describe(op: Operation) -> str:
    return f"'{op.name}' in @{_func_name(op)}"


def _func_name(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if parent is not None else "?"



Count = dict[tuple[scf.ForOp, ...], int]
"""How many transfers something performs: coefficient per product of run-time trip counts
(the loops of each key; `()` is the constant part). Static trip counts are folded in."""


def _static_trip_count(loop: scf.ForOp) -> int | None:
    step = constant_index(loop.step)
    if step is not None and step <= 0 and constant_index(loop.lb) is not None and constant_index(loop.ub) is not None:
        raise RingLoweringError(f"{_describe(loop)}: a loop holding cross-core transfers needs a positive step")
    return static_trip_count(loop)


def _sum(a: Count, b: Count) -> Count:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v}


def _times_trips(count: Count, loop: scf.ForOp) -> Count:
    trips = _static_trip_count(loop)
    if trips is not None:
        return {k: v * trips for k, v in count.items() if v * trips}
    return {tuple(sorted((*k, loop), key=id)): v for k, v in count.items()}


@dataclass
class _Counter:
    """How many transfers of one pipe each block and op performs (per run)."""

    pipe: Pipe

    def of_op(self, op: Operation) -> Count:
        if isinstance(op, TRANSFER_TYPES):
            return {(): 1} if op.pipe_kind is self.pipe else {}
        if isinstance(op, scf.ForOp):
            return _times_trips(self.of_block(op.body.block), op)
        if isinstance(op, scf.IfOp):
            counts = [self.of_block(r.block) if r.blocks else {} for r in op.regions]
            if len(counts) == 2 and counts[0] != counts[1]:
                raise RingLoweringError(
                    f"{_describe(op)}: its branches transfer on the {self.pipe.value} ring "
                    f"{' and '.join(map(_show, counts))} times; both must transfer equally often"
                )
            return counts[0]
        total: Count = {}
        for r in op.regions:
            for b in r.blocks:
                total = _sum(total, self.of_block(b))
        if total:
            raise RingLoweringError(f"{_describe(op)}: cross-core transfers inside it are not lowered")
        return {}

    def of_block(self, block: Block) -> Count:
        total: Count = {}
        for op in block.ops:
            total = _sum(total, self.of_op(op))
        return total


def _show(count: Count) -> str:
    if not count:
        return "0"
    parts = []
    for loops, k in count.items():
        trips = " * ".join(f"trips(%{lp.body.block.args[0].name_hint or 'iv'})" for lp in loops)
        parts.append(str(k) if not loops else (trips if k == 1 else f"{k} * {trips}"))
    return " + ".join(parts)


def _index(builder_ops: list[Operation], value: int) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    builder_ops.append(c)
    return c.result


def _trips_value(loop: scf.ForOp, site: Operation, ops: list[Operation], anchor: Operation) -> SSAValue:
    """max(0, ceil((ub - lb) / step)) of `loop`, computed before `site`; its bounds must be
    known before `anchor` (the site, or the loop whose earlier iterations it counts)."""
    for v in (loop.lb, loop.ub, loop.step):
        if not available_before(v, anchor):
            raise RingLoweringError(
                f"{_describe(site)}: its slot depends on the run-time trip count of {_describe(loop)}, whose "
                "bounds change from one iteration of an enclosing loop to the next (or are not known there)"
            )
    span = arith.SubiOp(loop.ub, loop.lb)
    trips = arith.CeilDivSIOp(span.result, loop.step)
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    clamped = arith.MaxSIOp(trips.result, zero.result)
    ops += [span, trips, zero, clamped]
    return clamped.result


def _accumulate(ops: list[Operation], total: SSAValue | None, term: SSAValue) -> SSAValue:
    """`total + term` as an index op appended to `ops` (just `term` when there is no total yet)."""
    if total is None:
        return term
    add = arith.AddiOp(total, term)
    ops.append(add)
    return add.result


def _plus_constant(ops: list[Operation], total: SSAValue, const: int) -> SSAValue:
    return _accumulate(ops, total, _index(ops, const)) if const else total


def _materialise(count: Count, site: Operation, ops: list[Operation], anchor: Operation | None = None) -> SSAValue | int:
    """`count` as index ops before `site` (an int when it is constant); see _trips_value."""
    anchor = anchor or site
    const = count.get((), 0)
    total: SSAValue | None = None
    for loops, k in count.items():
        if not loops:
            continue
        term: SSAValue = _trips_value(loops[0], site, ops, anchor)
        for lp in loops[1:]:
            mul = arith.MuliOp(term, _trips_value(lp, site, ops, anchor))
            ops.append(mul)
            term = mul.result
        if k != 1:
            mul = arith.MuliOp(term, _index(ops, k))
            ops.append(mul)
            term = mul.result
        total = _accumulate(ops, total, term)
    if total is None:
        return const
    return _plus_constant(ops, total, const)


def _sequence_number(site: Operation, func: FuncOp, counter: _Counter, ops: list[Operation]) -> SSAValue:
    """The number of transfers of the pipe before `site` in one run of `func`, as index ops
    appended to `ops` (to insert before `site`). Loops with run-time bounds contribute their
    trip counts computed at run time from their bounds."""
    before: Count = {}
    terms: list[tuple[scf.ForOp, Count]] = []
    op: Operation = site
    while True:
        block = op.parent_block()
        assert block is not None
        for earlier in block.ops:
            if earlier is op:
                break
            before = _sum(before, counter.of_op(earlier))
        parent = op.parent_op()
        assert parent is not None
        if parent is func:
            break
        if isinstance(parent, scf.ForOp):
            terms.append((parent, counter.of_block(parent.body.block)))
        op = parent
    fixed = _materialise(before, site, ops)
    total: SSAValue | None = None if isinstance(fixed, int) else fixed
    const = fixed if isinstance(fixed, int) else 0
    for loop, per_iteration in terms:
        iteration: SSAValue = loop.body.block.args[0]
        lb, step = constant_index(loop.lb), constant_index(loop.step)
        if lb != 0:
            sub = arith.SubiOp(iteration, loop.lb if lb is None else _index(ops, lb))
            ops.append(sub)
            iteration = sub.result
        if step != 1:
            div = arith.DivUIOp(iteration, loop.step if step is None else _index(ops, step))
            ops.append(div)
            iteration = div.result
        per = _materialise(per_iteration, site, ops, anchor=loop)  # the same in every earlier iteration
        if per != 1:
            mul = arith.MuliOp(iteration, _index(ops, per) if isinstance(per, int) else per)
            ops.append(mul)
            iteration = mul.result
        total = _accumulate(ops, total, iteration)
    if total is None:
        return _index(ops, const)
    return _plus_constant(ops, total, const)


def _slot_row(site: Operation, func: FuncOp, counter: _Counter, slots: int, rows: int) -> tuple[list[Operation], SSAValue]:
    ops: list[Operation] = []
    if slots == 1:
        return ops, _index(ops, 0)
    n = _sequence_number(site, func, counter, ops)
    if (value := constant_index(n)) is not None:
        ops.clear()
        return ops, _index(ops, (value % slots) * rows)
    rem = arith.RemUIOp(n, _index(ops, slots))
    ops.append(rem)
    mul = arith.MuliOp(rem.result, _index(ops, rows))
    ops.append(mul)
    return ops, mul.result


def _add_parameter(func: FuncOp, t: TensorType, name: str) -> SSAValue:
    block = func.body.block
    directions = [*func.directions, ParamDirection.INOUT]  # before the type changes: directions default to it
    arg = block.insert_arg(t, len(block.args))
    arg.name_hint = name
    inputs = [*func.function_type.inputs.data, t]
    func.function_type = FunctionType.from_lists(inputs, list(func.function_type.outputs.data))
    func.set_directions(directions)
    return arg


def _flag_ids(group: FuncOp, aic: FuncOp, aiv: FuncOp):
    used = {op.id_value for m in (aic, aiv) for op in m.walk() if isinstance(op, SetFlagOp | WaitFlagOp)}
    candidate = 0
    while True:
        if candidate not in used and candidate not in RESERVED_FLAG_IDS:
            if candidate > MAX_FLAG_ID:
                raise RingLoweringError(
                    f"group @{group.sym_name.data} needs more cross-core flag ids than a core has "
                    f"(0-{MAX_FLAG_ID}, without SyncAll's 11-14)"
                )
            yield candidate
        candidate += 1


def lower_group_rings(group: FuncOp) -> int:
    """Lower the rings of `group`; return how many rings were lowered (raises RingLoweringError)."""
    aic, aiv = group_members(group)
    if aic is None or aiv is None:
        return 0
    members = {FuncKind.AIC: aic, FuncKind.AIV: aiv}
    transfers: dict[Pipe, list[PushOp | PopOp]] = {}
    for member in (aic, aiv):
        for op in member.walk():
            if isinstance(op, TRANSFER_TYPES):
                transfers.setdefault(op.pipe_kind, []).append(op)
    if not transfers:
        return 0
    calls = [op for op in group.body.block.ops if isinstance(op, CallOp)]
    ids = _flag_ids(group, aic, aiv)
    plans = []  # everything is checked, and every slot computed, before the IR changes
    for pipe in (Pipe.C2V, Pipe.V2C):
        sites = transfers.get(pipe)
        if not sites:
            continue
        elems = {transfer_type(o).element_type for o in sites}
        if len(elems) != 1:
            raise RingLoweringError(
                f"the {pipe.value} ring of group @{group.sym_name.data} carries tiles of different element "
                "types; a ring's slots have one element type"
            )
        elem = next(iter(elems))
        shapes = [transfer_type(o).get_shape() for o in sites]
        if any(len(shape) != 2 for shape in shapes):
            raise RingLoweringError(f"{_describe(sites[0])}: only 2-D tiles cross cores")
        for o in sites:
            if isinstance(o, PushOp) and transfer_type(o).space.name == "MAT":
                raise RingLoweringError(
                    f"{_describe(o)}: a 'mat' (L1) tile has no path to global memory on dav-c220; "
                    "push the 'acc' result or load the tile from its tensor"
                )
        # a slot holds the largest tile; a smaller one is a window of it (strided rows)
        rows, cols = (max(s[0] for s in shapes), max(s[1] for s in shapes))
        slots = sites[0].slot_count
        if slots > MAX_FLAG_ID:
            raise RingLoweringError(
                f"{_describe(sites[0])}: a ring of {slots} slots needs {slots} FREE credits at once, but a "
                f"cross-core flag counts to {MAX_FLAG_ID}; use at most slots({MAX_FLAG_ID})"
            )
        counter = _Counter(pipe)
        producer, consumer = members[pipe.producer], members[pipe.consumer]
        positions = [
            _slot_row(site, producer if isinstance(site, PushOp) else consumer, counter, slots, rows)
            for site in sites
        ]
        plans.append((pipe, sites, elem, rows, cols, slots, positions, next(ids), next(ids)))
    for pipe, sites, elem, rows, cols, slots, positions, full, free in plans:
        ring_type = TensorType([slots * rows, cols], elem)
        create = tensor.CreateOp(ring_type)
        create.result.name_hint = f"{pipe.value}_ring"
        group.body.block.insert_op_before(create, calls[0])
        params = {kind: _add_parameter(m, ring_type, f"{pipe.value}_ring") for kind, m in members.items()}
        for call in calls:
            new_call = CallOp(call.callee, [*call.args, create.result], list(call.res.types))
            for old, new in zip(call.res, new_call.res):
                new.name_hint = old.name_hint
            new_call.attributes |= call.attributes
            group.body.block.insert_op_before(new_call, call)
            for old, new in zip(call.res, new_call.res):
                old.replace_all_uses_with(new)
            call.detach()
            call.erase()
        calls = [op for op in group.body.block.ops if isinstance(op, CallOp)]
        producer, consumer = members[pipe.producer], members[pipe.consumer]
        back = Pipe.V2C if pipe is Pipe.C2V else Pipe.C2V
        for site, (ops, row) in zip(sites, positions):
            ring = params[pipe.producer if isinstance(site, PushOp) else pipe.consumer]
            zero = _index(ops, 0)
            if isinstance(site, PushOp):
                ops.append(WaitFlagOp(back, free))
                ops.append(tile.StoreOp(site.tile, ring, [row, zero]))
                ops.append(SetFlagOp(pipe, full))
                after: list[Operation] = []
            else:
                ops.append(WaitFlagOp(pipe, full))
                load = tile.LoadOp(ring, [row, zero], site.result.type)  # type: ignore[arg-type]
                ops.append(load)
                after = [SetFlagOp(back, free)]
            block = site.parent_block()
            assert block is not None
            for o in ops:
                block.insert_op_before(o, site)
            for o in reversed(after):
                block.insert_op_after(o, site)
            if isinstance(site, PopOp):
                load.result.name_hint = site.result.name_hint
                site.result.replace_all_uses_with(load.result)
            site.detach()
            site.erase()
        first = consumer.body.block.first_op
        assert first is not None
        for _ in range(slots):
            consumer.body.block.insert_op_before(SetFlagOp(back, free), first)
        ret = producer.body.block.last_op
        assert isinstance(ret, ReturnOp)
        for _ in range(slots):
            producer.body.block.insert_op_before(WaitFlagOp(back, free), ret)
    invalidate(group)
    return len(transfers)


def lower_rings(module: ModuleOp) -> list[str]:
    """Lower every group's rings; the messages of the rings that could not be lowered."""
    errors: list[str] = []
    for func in list(func_ops(module)):
        if func.func_kind == FuncKind.GROUP:
            try:
                lower_group_rings(func)
            except RingLoweringError as e:
                errors.append(str(e))
    invalidate(module)
    return errors


@dataclass(frozen=True)
class LowerCrossCoreRingsPass(ModulePass):
    """`lower-cross-core-rings`."""

    name = "lower-cross-core-rings"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        errors = lower_rings(op)
        if errors:
            raise PassFailedException(f"{self.name}: " + "; ".join(errors))


__all__ = ["LowerCrossCoreRingsPass", "RingLoweringError", "lower_group_rings", "lower_rings"]
