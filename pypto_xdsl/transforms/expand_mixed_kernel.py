"""expand-mixed-kernel: split every mixed cube + vector kernel into an AIC and an AIV part.

After `convert-tensor-to-tile`, an `incore` function may hold cube ops (`mat`/`left`/`right`/
`acc` tiles, matmuls) and vector ops (`vec` tiles) together — a matmul with a vector epilogue,
an attention block, an FFN. The two kinds run on different cores of a core group, so each
such **mixed** function becomes three:

* `@k_aic` (`aic`): the cube ops and the shared ones (scalars, loops, tensor views);
* `@k_aiv` (`aiv`): the vector ops and the shared ones; it returns the function's results;
* `@k` (`group`, the original name, so callers are unchanged): the launch of both as one
  task, with the global-memory workspaces they share.

Every op is classified by `pypto_xdsl.analysis.core_affinity` (memory-space rules, as in
PyPTO's ExpandMixedKernel). The split is done in three steps on a copy of the function, so a
function that cannot be split is left exactly as it was:

1. **Boundary moves.** A `tile.move` from a cube buffer to `vec` becomes a
   `pypto.cross_core.push ... to aiv` of the source and a `pop from aic` into `vec`; a move
   from `vec` becomes a `push ... to aic` and a `pop from aiv` into `mat`, followed by a
   `tile.move` to `left`/`right`/`bias` when that was the target (the cube receives into L1).
   Rings have the function's `slot_num` slots (`pl.cross_core_slot`, default 2).
2. **Flags for global memory.** Where one core accesses a tensor after the other core wrote it
   (or writes it after the other read or wrote it) in program order, a `set_flag` / `wait_flag`
   pair orders the two: the flag is set right after the first core's accesses and waited for
   right before the second core's. Blocks are scanned in order; a loop body is scanned twice,
   so accesses of one iteration are also ordered before conflicting accesses of the next.
   Both ops sit at the same point of a block both parts share, so they run equally often.
3. **Split.** Each part is a copy of the function without the other core's ops. A value the
   removed op wrote through (a `tile.store` result) is replaced by the storage it names; a
   loop-carried value of the other core is dropped from the loop (loops and branches holding
   both cores exist in both parts with the values each part needs); pass-through loop values
   and dead code are removed. A workspace (`tensor.create`) both parts use moves to the group
   and becomes an `inout` parameter of both.

Non-mixed `incore` functions become `aic` (they use cube tiles) or `aiv`. A mixed function
that cannot be split — a value one core computes used by the other without a tile transfer,
tensor-level compute `convert-tensor-to-tile` left on both cores, a mixed `scf.while` — stays
`incore`, with a warning naming the reason (`verify-expand-mixed-kernel` lists it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.traits import MemoryEffectKind, get_effects
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.availability import available_before
from pypto_xdsl.analysis.core_affinity import (
    Affinity,
    Side,
    Unsplittable,
    classify,
    move_direction,
    writes_memory,
)
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.analysis.write_through import WriteThrough
from pypto_xdsl.dialects import cross_core, tensor, tile
from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, ParamDirection, TensorType, TileType
from pypto_xdsl.dialects.cross_core import DEFAULT_SLOTS, Pipe
from pypto_xdsl.dialects.program import BLOCK_DIM_ATTR, CallOp, FuncOp, ReturnOp, func_ops
from pypto_xdsl.utils import paused_gc

SLOT_NUM_ATTR = "slot_num"
"""Function attribute (from the scope's `slots(N)`) setting the ring depth."""

def _drop(op: Operation) -> None:
    """Detach and erase `op` (its results must be unused)."""
    block = op.parent_block()
    if block is not None:
        block.erase_op(op)
    else:
        op.erase()


def _pipe_from(side: Side) -> Pipe:
    return Pipe.C2V if side is Side.CUBE else Pipe.V2C


# --------------------------------------------------------------------------- step 1: boundaries


def lower_boundary_moves(func: FuncOp, aff: Affinity, slots: int) -> int:
    """Replace every cross-core `tile.move` by a push/pop pair (see the module docstring)."""
    moves = [op for op in func.walk() if isinstance(op, tile.MoveOp) and aff.of(op) is Side.MIXED]
    for move in moves:
        pipe = move_direction(move)
        assert pipe is not None
        src, dst = move.input.type, move.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        producer, consumer = (Side.CUBE, Side.VECTOR) if pipe is Pipe.C2V else (Side.VECTOR, Side.CUBE)
        landing = MemorySpace.VEC if pipe is Pipe.C2V else MemorySpace.MAT
        push = cross_core.PushOp(move.input, pipe, slots)
        pop = cross_core.PopOp(TileType(src.get_shape(), src.element_type, landing), pipe, slots)
        new_ops: list[Operation] = [push, pop]
        aff.ops[push], aff.ops[pop] = producer, consumer
        result = pop.result
        if landing != dst.space:
            again = tile.MoveOp(pop.result, dst.space)
            aff.ops[again] = consumer
            new_ops.append(again)
            result = again.result
        if move.result.name_hint:
            result.name_hint = move.result.name_hint
            if result is not pop.result:
                pop.result.name_hint = f"{move.result.name_hint}_mat"
        for op in new_ops:
            for r in op.results:
                aff.values[r] = consumer
        block = move.parent_block()
        assert block is not None
        block.insert_ops_before(new_ops, move)
        move.result.replace_all_uses_with(result)
        _drop(move)
    return len(moves)


# --------------------------------------------------------------------------- step 2: flags

_Access = tuple[SSAValue, bool]  # (storage root, writes)


class _Footprints:
    """Which tensors each core reads and writes in an op, by storage root."""

    def __init__(self, aff: Affinity):
        self.aff = aff
        self.lineage = WriteThrough()

    def root(self, value: SSAValue) -> SSAValue:
        for _ in range(10000):
            owner = value.owner if not isinstance(value, BlockArgument) else None
            if isinstance(owner, tensor.ReshapeOp | tensor.TransposeOp):
                value = owner.operands[0]
                continue
            nxt = self.lineage.root(value)
            if nxt is value:
                return value
            value = nxt
        return value

    def _accesses(self, op: Operation) -> list[_Access]:
        if isinstance(op, tile.LoadOp):
            return [(self.root(op.source), False)]
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
            return [(self.root(op.dest), True)]
        if isinstance(op, tensor.AssembleOp):
            return [(self.root(op.source), False), (self.root(op.dest), True)]
        if isinstance(op, tensor.WriteOp):
            return [(self.root(op.dest), True)]
        if isinstance(op, tensor.ReadOp):
            return [(self.root(op.source), False)]
        if isinstance(op, cross_core.CROSS_CORE_TYPES) or isinstance(
            op, tensor.CreateOp | tensor.SliceOp | tensor.ReshapeOp | tensor.TransposeOp | tensor.DimOp
        ):
            return []
        tensors = [o for o in op.operands if isinstance(o.type, TensorType)]
        if op.name.startswith("pypto.tensor."):
            return [(self.root(t), False) for t in tensors]
        if writes_memory(op):
            return [(self.root(t), True) for t in tensors]
        return []

    def of(self, op: Operation) -> dict[Side, set[_Access]]:
        out: dict[Side, set[_Access]] = {Side.CUBE: set(), Side.VECTOR: set()}
        self._collect(op, None, out)
        return out

    def _collect(self, op: Operation, forced: Side | None, out: dict[Side, set[_Access]]) -> None:
        side = forced or self.aff.of(op)
        if op.regions:
            inner_forced = side if side in (Side.CUBE, Side.VECTOR) else None
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.ops:
                        self._collect(inner, inner_forced, out)
            return
        accesses = self._accesses(op)
        if side in (Side.CUBE, Side.VECTOR):
            out[side].update(accesses)
        else:
            out[Side.CUBE].update(accesses)
            out[Side.VECTOR].update(accesses)


def _conflict(earlier: set[_Access], later: set[_Access]) -> bool:
    """Some later access touches a storage an earlier one wrote, or writes one it read."""
    if not earlier or not later:
        return False
    return any((r, True) in earlier or (w and (r, False) in earlier) for r, w in later)


_DIRECTIONS = ((Side.CUBE, Side.VECTOR), (Side.VECTOR, Side.CUBE))


def insert_flags(func: FuncOp, aff: Affinity) -> int:
    """Order conflicting global-memory accesses of the two cores (see the module docstring)."""
    return _flag_block(func.body.block, aff, _Footprints(aff), cyclic=False)


def _flag_block(block: Block, aff: Affinity, fp: _Footprints, cyclic: bool) -> int:
    items = [op for op in block.ops if not _is_terminator(op)]
    prints = [fp.of(op) for op in items]
    pending: dict[tuple[Side, Side], set[_Access]] = {d: set() for d in _DIRECTIONS}
    fences: set[tuple[int, tuple[Side, Side]]] = set()
    for _ in range(2 if cyclic else 1):
        for j in range(len(items)):
            for d in _DIRECTIONS:
                later = d[1]
                if (j, d) in fences:
                    pending[d] = set()
                elif _conflict(pending[d], prints[j][later]):
                    fences.add((j, d))
                    pending[d] = set()
            for d in _DIRECTIONS:
                pending[d] |= prints[j][d[0]]
    count = 0
    for j, op in enumerate(items):
        for d in _DIRECTIONS:
            if (j, d) in fences:
                a, b = d
                pipe = _pipe_from(a)
                set_flag, wait_flag = cross_core.SetFlagOp(pipe), cross_core.WaitFlagOp(pipe)
                aff.ops[set_flag], aff.ops[wait_flag] = a, b
                block.insert_ops_before([set_flag, wait_flag], op)
                count += 1
    for op in items:
        if aff.of(op) in (Side.MIXED, Side.SHARED) and isinstance(op, scf.ForOp | scf.IfOp):
            for region in op.regions:
                for inner in region.blocks:
                    count += _flag_block(inner, aff, fp, cyclic=isinstance(op, scf.ForOp))
    return count


def _is_terminator(op: Operation) -> bool:
    return isinstance(op, scf.YieldOp | ReturnOp | scf.ConditionOp)


# --------------------------------------------------------------------------- step 3: split


@dataclass
class _Placeholders:
    """Stand-ins for values of the other core while a part is pruned; any left in use at the
    end is a value that would have to cross cores without a transfer."""

    block: Block
    origin: dict[SSAValue, str] = field(default_factory=dict)

    def make(self, value: SSAValue) -> SSAValue:
        op = UnrealizedConversionCastOp.get([], [value.type])
        self.block.insert_op_before(op, self.block.first_op) if self.block.first_op else self.block.add_op(op)
        r = op.results[0]
        r.name_hint = value.name_hint
        self.origin[r] = _describe_value(value)
        return r

    def has(self, value: SSAValue) -> bool:
        return value in self.origin


def _describe_value(value: SSAValue) -> str:
    name = f"%{value.name_hint}" if value.name_hint else "a value"
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        return f"{name} (carried by '{owner.name if owner else '?'}')"
    return f"{name} (the result of '{value.owner.name}')"


def _storage_alias(op: Operation, index: int, lineage: WriteThrough) -> SSAValue | None:
    """The value naming the storage result `index` of `op` names, from before `op`."""
    from pypto_xdsl.dialects.traits import aliased_operand

    if index == 0 and (src := aliased_operand(op)) is not None:
        return src
    if isinstance(op, scf.ForOp):
        term = op.body.block.last_op
        if isinstance(term, scf.YieldOp) and lineage.root(term.arguments[index]) is lineage.root(op.iter_args[index]):
            return op.iter_args[index]
        return None
    if isinstance(op, scf.IfOp | scf.WhileOp):
        root = lineage.root(op.results[index])
        if root is not op.results[index] and available_before(root, op):
            return root
    return None


class _PartBuilder:
    """One part (AIC or AIV) of a mixed function: a pruned copy of its body."""

    def __init__(self, work: FuncOp, aff: Affinity, side: Side):
        self.side = side
        self.region = work.body.clone()
        self.sides: dict[Operation, Side] = {}
        self.origin: dict[Operation, Operation] = {}
        for old, new in zip(work.body.walk(), self.region.walk()):
            self.sides[new] = aff.of(old)
            self.origin[new] = old
        self.block = self.region.block
        self.ph = _Placeholders(self.block)
        self.lineage = WriteThrough()

    def build(self) -> Region:
        ret = self.block.last_op
        assert isinstance(ret, ReturnOp)
        if self.side is Side.CUBE:  # results come from the AIV part
            self.block.insert_op_before(ReturnOp(), ret)
            _drop(ret)
        self._erase_other(self.block)
        for op in reversed([o for o in self.region.walk() if isinstance(o, scf.ForOp | scf.IfOp)]):
            self._repair(op)
        self._clean()
        self._check_placeholders()
        return self.region

    # ---- phase A: remove the other core's ops

    def _erase_other(self, block: Block) -> None:
        other = self.side.other
        for op in reversed(list(block.ops)):
            side = self.sides.get(op, Side.SHARED)
            if side is other:
                self._erase(op)
            elif op.regions and side in (Side.MIXED, Side.SHARED):
                for region in op.regions:
                    for inner in region.blocks:
                        self._erase_other(inner)

    def _erase(self, op: Operation) -> None:
        for r in op.results:
            if not r.uses:
                continue
            alias = _storage_alias(op, r.index, self.lineage) if isinstance(r.type, TensorType) else None
            r.replace_all_uses_with(alias if alias is not None else self.ph.make(r))
        _drop(op)

    # ---- phase B: loops and branches keep the values this part needs

    def _repair(self, op: Operation) -> None:
        if op.parent is None:
            return
        if isinstance(op, scf.ForOp):
            self._repair_for(op)
        elif isinstance(op, scf.IfOp):
            self._repair_if(op)

    def _repair_for(self, op: scf.ForOp, dead_only: bool = False) -> bool:
        block = op.body.block
        term = block.last_op
        assert isinstance(term, scf.YieldOp)
        drop: list[int] = []
        for i, (init, arg, res, yv) in enumerate(zip(op.iter_args, block.args[1:], op.res, term.arguments)):
            if dead_only:
                if not res.uses and all(u.operation is term and u.index == i for u in arg.uses):
                    drop.append(i)
            elif self.ph.has(init) or self.ph.has(yv):
                for v in (arg, res):
                    if v.uses:
                        v.replace_all_uses_with(self.ph.make(v))
                drop.append(i)
            elif yv is arg:  # this part does not update it: the loop passes it through
                arg.replace_all_uses_with(init)
                res.replace_all_uses_with(init)
                drop.append(i)
        if not drop:
            return False
        keep = [i for i in range(len(op.iter_args)) if i not in drop]
        block.insert_op_before(scf.YieldOp(*[term.arguments[i] for i in keep]), term)
        _drop(term)
        for i in reversed(drop):
            arg = block.args[1 + i]
            if arg.uses:
                arg.replace_all_uses_with(self.ph.make(arg))
            block.erase_arg(arg)
        new = scf.ForOp(op.lb, op.ub, op.step, [op.iter_args[i] for i in keep], op.detach_region(op.body))
        new.attributes |= op.attributes
        parent = op.parent_block()
        assert parent is not None
        parent.insert_op_before(new, op)
        for k, i in enumerate(keep):
            new.res[k].name_hint = op.res[i].name_hint
            op.res[i].replace_all_uses_with(new.res[k])
        for i in drop:
            if op.res[i].uses:
                op.res[i].replace_all_uses_with(self.ph.make(op.res[i]))
        self.sides[new] = self.sides.get(op, Side.SHARED)
        _drop(op)
        return True

    def _repair_if(self, op: scf.IfOp, dead_only: bool = False) -> bool:
        yields = [b.last_op for r in op.regions for b in r.blocks]
        drop: list[int] = []
        for i, res in enumerate(op.results):
            operands = [y.arguments[i] for y in yields if isinstance(y, scf.YieldOp)]
            if dead_only:
                if not res.uses:
                    drop.append(i)
            elif any(self.ph.has(v) for v in operands):
                if res.uses:
                    res.replace_all_uses_with(self.ph.make(res))
                drop.append(i)
            elif len(operands) == 2 and operands[0] is operands[1] and available_before(operands[0], op):
                res.replace_all_uses_with(operands[0])
                drop.append(i)
        if not drop:
            return False
        keep = [i for i in range(len(op.results)) if i not in drop]
        for y in yields:
            assert isinstance(y, scf.YieldOp)
            y.parent_block().insert_op_before(scf.YieldOp(*[y.arguments[i] for i in keep]), y)  # type: ignore[union-attr]
            _drop(y)
        regions = [op.detach_region(r) for r in list(op.regions)]
        new = scf.IfOp(op.cond, [op.results[i].type for i in keep], regions[0], regions[1] if len(regions) > 1 else None)
        new.attributes |= op.attributes
        parent = op.parent_block()
        assert parent is not None
        parent.insert_op_before(new, op)
        for k, i in enumerate(keep):
            new.results[k].name_hint = op.results[i].name_hint
            op.results[i].replace_all_uses_with(new.results[k])
        self.sides[new] = self.sides.get(op, Side.SHARED)
        _drop(op)
        return True

    # ---- phase C: dead code

    def _clean(self) -> None:
        changed = True
        while changed:
            changed = False
            for op in reversed(list(self.region.walk())):
                if op.parent is None or _is_terminator(op) or isinstance(op, UnrealizedConversionCastOp):
                    continue
                if isinstance(op, scf.ForOp) and self._repair_for(op, dead_only=True):
                    changed = True
                    continue
                if isinstance(op, scf.IfOp) and self._repair_if(op, dead_only=True):
                    changed = True
                    continue
                if isinstance(op, scf.IfOp) and _drop_empty_else(op):
                    changed = True
                    continue
                if any(r.uses for r in op.results) or not _removable(op):
                    continue
                _drop(op)
                changed = True

    def _check_placeholders(self) -> None:
        for value, what in self.ph.origin.items():
            for use in value.uses:
                user = use.operation
                raise Unsplittable(
                    f"{what} is computed on the {self.side.other.core} core, but '{user.name}' on the "
                    f"{self.side.core} core uses it; only tiles cross between the cores (tile.move)",
                    self.origin.get(user),
                    tensor_level=isinstance(value.type, TensorType),
                )
        for value in list(self.ph.origin):
            _drop(value.owner)


def _drop_empty_else(op: scf.IfOp) -> bool:
    """`scf.if %c { ... } else { }` (no results) loses its empty else region."""
    if op.results or not op.false_region.blocks:
        return False
    block = op.false_region.block
    if block.first_op is not block.last_op:
        return False
    new = scf.IfOp(op.cond, [], op.detach_region(op.true_region))
    new.attributes |= op.attributes
    parent = op.parent_block()
    assert parent is not None
    parent.insert_op_before(new, op)
    _drop(op)
    return True


def _removable(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and all(e.kind in (MemoryEffectKind.READ, MemoryEffectKind.ALLOC) for e in effects)


# --------------------------------------------------------------------------- the function


@dataclass
class Expansion:
    aic: FuncOp
    aiv: FuncOp
    group: FuncOp


def _slot_count(func: FuncOp) -> int:
    attr = func.attributes.get(SLOT_NUM_ATTR)
    if isinstance(attr, IntegerAttr) and attr.value.data >= 1:
        return attr.value.data
    return DEFAULT_SLOTS


def _top_level_creates(part: _PartBuilder) -> dict[Operation, Operation]:
    """work-function create -> this part's surviving copy, for every create still in the part."""
    found: dict[Operation, Operation] = {}
    for op in part.region.walk():
        if isinstance(op, tensor.CreateOp):
            found[part.origin[op]] = op
    return found


def expand_function(func: FuncOp, names: Iterable[str]) -> Expansion:
    """The AIC part, the AIV part and the group of a mixed `func` (not modified).

    Raises Unsplittable when the function cannot be split."""
    work = func.clone()
    aff = classify(work)
    if aff.problem is not None:
        raise aff.problem
    lower_boundary_moves(work, aff, _slot_count(work))
    insert_flags(work, aff)
    parts = {side: _PartBuilder(work, aff, side) for side in (Side.CUBE, Side.VECTOR)}
    regions = {side: part.build() for side, part in parts.items()}
    creates = {side: _top_level_creates(part) for side, part in parts.items()}
    shared = [c for c in creates[Side.CUBE] if c in creates[Side.VECTOR]]
    for c in shared:
        if c.parent_block() is not work.body.block:
            raise Unsplittable(
                "a workspace (pypto.tensor.create) made inside a loop or branch is used by both cores; "
                "create it at the kernel's top level",
                func_op_at(func, work, c),
            )
        for o in c.operands:
            if not (isinstance(o, BlockArgument) and o.block is work.body.block):
                raise Unsplittable(
                    "a workspace both cores use has a size computed in the kernel; the group can only "
                    "size it from its parameters",
                    func_op_at(func, work, c),
                )
    ws_types = [c.results[0].type for c in shared]
    for side, region in regions.items():
        block = region.block
        for c in shared:
            arg = block.insert_arg(c.results[0].type, len(block.args))
            arg.name_hint = c.results[0].name_hint or "workspace"
            mine = creates[side][c]
            mine.results[0].replace_all_uses_with(arg)
            _drop(mine)
    base = func.sym_name.data
    taken = set(names)
    aic_name, aiv_name = _fresh(f"{base}_aic", taken), _fresh(f"{base}_aiv", taken)
    inputs = list(func.function_type.inputs.data)
    outputs = list(func.function_type.outputs.data)
    dirs = list(func.directions) + [ParamDirection.INOUT] * len(shared)
    member_attrs = {k: v for k, v in func.attributes.items() if k != BLOCK_DIM_ATTR}
    aic = FuncOp(aic_name, inputs + ws_types, [], FuncKind.AIC, dirs, regions[Side.CUBE])
    aiv = FuncOp(aiv_name, inputs + ws_types, outputs, FuncKind.AIV, dirs, regions[Side.VECTOR])
    for member in (aic, aiv):
        member.attributes |= member_attrs
    group_block = Block(arg_types=inputs)
    for arg, old in zip(group_block.args, func.args):
        arg.name_hint = old.name_hint
    arg_map = dict(zip(work.body.block.args, group_block.args))
    workspaces = []
    for c in shared:
        made = c.clone(value_mapper=dict(arg_map))
        group_block.add_op(made)
        workspaces.append(made.results[0])
    call_args = [*group_block.args, *workspaces]
    group_block.add_op(CallOp(aic_name, call_args, []))
    aiv_call = CallOp(aiv_name, call_args, outputs)
    ret = work.body.block.last_op
    if isinstance(ret, ReturnOp):
        for r, v in zip(aiv_call.res, ret.arguments):
            r.name_hint = v.name_hint
    group_block.add_op(aiv_call)
    group_block.add_op(ReturnOp(*aiv_call.res))
    group = FuncOp(base, inputs, outputs, FuncKind.GROUP, list(func.directions), Region(group_block))
    group.attributes |= dict(func.attributes)
    return Expansion(aic, aiv, group)


def func_op_at(func: FuncOp, work: FuncOp, op: Operation) -> Operation | None:
    """The op of `func` that `op` of its copy `work` stands for."""
    for a, b in zip(work.walk(), func.walk()):
        if a is op:
            return b
    return None


def _fresh(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        candidate = f"{name}_{n}"
        n += 1
    taken.add(candidate)
    return candidate


# --------------------------------------------------------------------------- pattern and pass


@dataclass
class ExpandReport:
    split: list[str] = field(default_factory=list)
    retyped: dict[str, FuncKind] = field(default_factory=dict)
    left: dict[str, Unsplittable] = field(default_factory=dict)
    """incore functions left as they are, with the reason."""


class ExpandMixedFunction(RewritePattern):
    """An `incore` function becomes an `aic`/`aiv` kernel, or a group of both when mixed."""

    def __init__(self, module: ModuleOp, report: ExpandReport):
        self.names = {f.sym_name.data for f in func_ops(module)}
        self.report = report

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, FuncOp) or op.func_kind != FuncKind.INCORE:
            return
        name = op.sym_name.data
        aff = classify(op)
        if not aff.is_mixed:
            kind = FuncKind.AIC if aff.uses_cube else FuncKind.AIV
            op.set_kind(kind)
            rewriter.notify_op_modified(op)
            self.report.retyped[name] = kind
            return
        try:
            exp = expand_function(op, self.names)
        except Unsplittable as e:
            self.report.left[name] = e
            return
        self.names |= {exp.aic.sym_name.data, exp.aiv.sym_name.data}
        rewriter.replace(op, [exp.aic, exp.aiv, exp.group], [])
        self.report.split.append(name)


@dataclass(frozen=True)
class ExpandMixedKernelPass(ModulePass):
    """`expand-mixed-kernel`: see the module docstring and docs/passes/expand-mixed-kernel.md.

    Option `strict` (default false): a mixed function that cannot be split is an error
    instead of a warning."""

    name = "expand-mixed-kernel"

    strict: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():  # the pass builds three copies of every mixed kernel
            report = expand_mixed_kernels(op)
        for name, problem in report.left.items():
            if self.strict:
                raise PassFailedException(
                    f"expand-mixed-kernel: cannot split @{name} into an aic and an aiv kernel: {problem.detail}"
                )
            print(
                f"warning: expand-mixed-kernel: @{name} mixes cube and vector ops but stays incore: {problem.detail}",
                file=sys.stderr,
            )


def expand_mixed_kernels(module: ModuleOp) -> ExpandReport:
    report = ExpandReport()
    walker = PatternRewriteWalker(ExpandMixedFunction(module, report), apply_recursively=False, walk_regions_first=False)
    walker.rewrite_module(module)
    invalidate(module)
    return report


# --------------------------------------------------------------------------- verifier


def check_mixed_kernels_expanded(module: ModuleOp) -> list[str]:
    """What `expand-mixed-kernel` establishes, one message per violation."""
    from pypto_xdsl.dialects.cross_core import group_members

    problems: list[str] = []
    members: dict[str, str] = {}
    for func in func_ops(module):
        if func.func_kind == FuncKind.GROUP:
            for m in group_members(func):
                if m is not None:
                    other = members.setdefault(m.sym_name.data, func.sym_name.data)
                    if other != func.sym_name.data:
                        problems.append(f"@{m.sym_name.data} is a member of both group @{other} and group @{func.sym_name.data}")
    for func in func_ops(module):
        name = func.sym_name.data
        if func.func_kind == FuncKind.INCORE:
            aff = classify(func)
            if not aff.is_mixed:
                reason = "it was not given a core (aic/aiv)"
            elif aff.problem is not None:
                reason = f"it mixes cube and vector ops and cannot be split: {aff.problem.detail}"
            else:
                reason = "it mixes cube and vector ops"
            problems.append(f"@{name} is still an incore function: {reason}")
            continue
        if func.func_kind not in (FuncKind.AIC, FuncKind.AIV):
            continue
        aff = classify(func)
        wrong = Side.VECTOR if func.func_kind == FuncKind.AIC else Side.CUBE
        for op, side in aff.ops.items():
            if side is wrong or side is Side.MIXED and not op.regions:
                problems.append(
                    f"@{name} is an {func.func_kind.value} kernel but '{op.name}' runs on the {wrong.core} core"
                )
                break
        if any(True for _ in cross_core.cross_core_ops(func)) and name not in members:
            problems.append(
                f"@{name} uses cross-core rings or flags but no group launches it with a peer"
            )
    return problems


@dataclass(frozen=True)
class VerifyMixedKernelExpandedPass(ModulePass):
    """`verify-expand-mixed-kernel`: no incore function left, aic kernels use the cube only
    and aiv kernels the vector cores only, cross-core ops only in group members (and the
    dialect's group verifier on every group)."""

    name = "verify-expand-mixed-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems = check_mixed_kernels_expanded(op)
        if problems:
            raise PassFailedException("verify-expand-mixed-kernel:\n  " + "\n  ".join(problems))


def iter_members(module: ModuleOp) -> Iterator[tuple[FuncOp, FuncOp | None, FuncOp | None]]:
    from pypto_xdsl.dialects.cross_core import group_members

    for func in func_ops(module):
        if func.func_kind == FuncKind.GROUP:
            yield (func, *group_members(func))
