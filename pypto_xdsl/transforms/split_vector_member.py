"""`split-vector-member`: the vector member of a group over both AIVs of its core group
(KERNEL_TYPE_MIX_AIC_1_2).

On dav-c220 a core group has one cube core (AIC) and two vector cores (AIV). A group's `aiv`
member, after lower-cross-core-rings, computes on whole tiles: it loads each cube result
from its ring slot, runs its epilogue and stores the outcome (or stores a tile into the
`v2c` ring for the cube). `split_vector_member` rewrites such a member so that each of the two
AIVs (`GetSubBlockIdx()` 0 and 1) computes one half of every tile:

* along rows (`up_down`, the default) or columns (`left_right`, the scope's
  `pl.split(pl.SplitMode.LEFT_RIGHT)`): every `vec` tile whose extent along that dimension
  is more than 1 is halved; a tile of extent 1 there (a `[1, C]` bias row under a row split,
  a `[R, 1]` row statistic under a column split) stays whole, and each AIV holds all of it;
* a `tile.load` or `tile.store` of a halved tile moves its offset along the split dimension
  by `GetSubBlockIdx() * half`: each AIV reads and writes its half of every window,
  including the ring slots, so the cube side is unchanged;
* a reduction across the split dimension (`col_sum`/`col_max`/`col_min`/`col_prod` under a
  row split, the `row_` ones under a column split) reduces each AIV's half; the two partial
  results are exchanged through a workspace the member creates (`tensor.create`, the core
  group's part of the launch workspace, which both AIVs share) and a flag among the AIVs
  (`set_flag among aiv`, CrossCoreSetFlag's mode 1: a wait returns once both AIVs have set
  it), and each AIV combines its own with the other's (`add`, `maximum`, `minimum`, `mul`:
  commutative, so both get the same whole tile);
* a `tile.store` of a whole tile is done by sub-block 0 alone (`scf.if GetSubBlockIdx() ==
  0`): such a tile holds the same values on both AIVs, as every tile derived from whole
  tiles and combined reductions does;
* the ring flags stay as they are: in mode 2 a `CrossCoreSetFlag` of the AIC reaches both
  AIVs, and the AIC's counter counts a setting when both AIVs have set the flag. Each AIV
  runs the same flag sequence, so the ring protocol holds with two consumers (or two
  producers) of each slot.

A member is split only when every op is independent along the split dimension (elementwise
ops, broadcasts of whole tiles, reductions and expansions along the other dimension, loads,
stores, fills, moves, scalar and control-flow ops) or a reduction across it that combines as
above; the first op that is not is the reason it stays on one AIV (KERNEL_TYPE_MIX_AIC_1_1):
a sum or product across the split in f16/bf16 (two partial results rounded to it would not
add up to the whole one), a store of a whole tile whose result feeds more than a return or a
yield, a tile element read or write, an odd extent, a partial (`valid[...]`) tile, a column
half that is not 32-byte aligned.

The pass records the outcome on the group (`task_ratio` 2 or 1), which is what the
interpreter reads: it runs a task_ratio 2 group's aiv member once per sub-block, so the
split is checked by running the program before and after it. The Ascend C group lowering
(`ascendc_mix_lowering`) splits a group that has no task ratio yet the same way
(`split_group_member`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i64
from xdsl.dialects.builtin import f32 as builtin_f32
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException, VerifyException

from pypto_xdsl.analysis.ascendc_kernel import byte_width, in_loop
from pypto_xdsl.dialects import cross_core, tensor, tile
from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, SplitMode, SplitModeAttr, TensorType, TileType
from pypto_xdsl.dialects.cross_core import MAX_FLAG_ID, TASK_RATIO_ATTR, TRANSFER_TYPES, Pipe, group_members
from pypto_xdsl.dialects.program import FuncOp, ReturnOp, SplitAivOp
from pypto_xdsl.dialects.tile_vector import (
    AddOp,
    CastOp,
    ColExpandTileOp,
    ColMaxOp,
    ColMinOp,
    ColProdOp,
    ColReductionOp,
    ColSumOp,
    ExpandsOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    RowExpandTileOp,
    RowMaxOp,
    RowMinOp,
    RowProdOp,
    RowReductionOp,
    RowSumOp,
    TileBinaryOp,
    TileScalarOp,
    TileUnaryOp,
)

SPLIT_ATTR = "split"
"""Function attribute (`pl.split(...)` of the scope, copied by outline-incore-scopes and
expand-mixed-kernel) choosing the split dimension."""

_ELEMENTWISE = (TileBinaryOp, TileScalarOp, TileUnaryOp, CastOp, ExpandsOp)
_ALONG_A_DIMENSION = (RowReductionOp, RowExpandTileOp, ColReductionOp, ColExpandTileOp)
_SCALAR_DIALECTS = ("arith", "math", "index")
_NEUTRAL = (
    tile.GetBlockIdxOp, tile.GetBlockNumOp, tile.FullOp, tile.CreateOp,
    cross_core.SetFlagOp, cross_core.WaitFlagOp, tensor.ReadOp, tensor.DimOp, tensor.CreateOp, tensor.SliceOp,
    tensor.ReshapeOp, scf.ForOp, scf.IfOp, scf.YieldOp, ReturnOp,
)
_BLOCK_BYTES = 32
_RESERVED_FLAG_IDS = frozenset(range(11, 15))
"""CrossCoreSetFlag ids SyncAll uses on dav-c220 (as lower-cross-core-rings leaves them)."""

# A reduction across the split dimension: each sub-block reduces its half, and the two
# partial results are combined with this op (max and min exactly; a sum or product rounds
# differently from the whole reduction, so only where the interpreter accumulates in the
# element type itself: f32 and integers).
_COMBINE: dict[type[Operation], tuple[int, type[TileBinaryOp], bool]] = {
    ColSumOp: (0, AddOp, False), ColProdOp: (0, MulOp, False), ColMaxOp: (0, MaximumOp, True), ColMinOp: (0, MinimumOp, True),
    RowSumOp: (1, AddOp, False), RowProdOp: (1, MulOp, False), RowMaxOp: (1, MaximumOp, True), RowMinOp: (1, MinimumOp, True),
}
"""(the dimension it reduces, the combining op, whether any element type combines exactly)."""


def split_dimension(func: FuncOp) -> tuple[int, bool]:
    """(the dimension to halve, whether the scope asked for a split explicitly)."""
    attr = func.attributes.get(SPLIT_ATTR)
    if isinstance(attr, SplitModeAttr) and attr.data != SplitMode.NONE:
        return (1 if attr.data == SplitMode.LEFT_RIGHT else 0), True
    return 0, False


@dataclass
class _Plan:
    dim: int
    halved: dict[SSAValue, TileType]
    first_only: list[Operation] = field(default_factory=list)
    """Stores of a whole tile (extent 1 along the split dimension): sub-block 0 does them."""
    exchanges: list[Operation] = field(default_factory=list)
    """Reductions across the split dimension: the sub-blocks swap partial results."""
    flag_id: int = 0
    """The mode-1 flag of those exchanges."""


def _tiles(op: Operation) -> list[SSAValue]:
    return [v for v in (*op.operands, *op.results) if isinstance(v.type, TileType)]


def _static_2d(t: TileType) -> bool:
    shape = t.get_shape()
    return len(shape) == 2 and all(isinstance(d, int) for d in shape)


def _describe(op: Operation) -> str:
    return f"'{op.name}'"


class _Refusal(Exception):
    pass


def _check_value(value: SSAValue, dim: int, halved: dict[SSAValue, TileType]) -> None:
    t = value.type
    if not isinstance(t, TileType):
        return
    if t.space != MemorySpace.VEC:
        raise _Refusal(f"it holds a {t.space.value} tile ({t})")
    if not _static_2d(t):
        raise _Refusal(f"a tile of type {t} is not 2-D with static extents")
    shape = list(t.get_shape())
    extent = shape[dim]
    assert isinstance(extent, int)
    if extent <= 1:
        return
    if extent % 2:
        raise _Refusal(f"a tile of type {t} has an odd extent along the split dimension")
    if dim == 1:
        if (extent // 2 * byte_width(t.element_type)) % _BLOCK_BYTES:
            raise _Refusal(f"half the columns of {t} are not a multiple of {_BLOCK_BYTES} bytes")
    shape[dim] = extent // 2
    halved[value] = t.with_shape(shape)


def _check_op(op: Operation, dim: int, plan: _Plan) -> None:
    halved = plan.halved
    tiles = _tiles(op)
    if isinstance(op, tile.LoadOp):
        if op.is_partial:
            raise _Refusal(f"{_describe(op)} loads a partial tile (valid[...])")
        return
    if isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
        if op.tile not in halved:
            _check_first_only_store(op)
            plan.first_only.append(op)
        return
    if isinstance(op, tile.MoveOp):
        if op.input.type != op.result.type:
            raise _Refusal(f"{_describe(op)} reshapes a tile ({op.input.type} -> {op.result.type})")
        return
    if isinstance(op, tile.GetSubBlockIdxOp | SplitAivOp):
        raise _Refusal(f"{_describe(op)}: the member already tells its vector cores apart")
    if isinstance(op, _NEUTRAL) or op.dialect_name() in _SCALAR_DIALECTS:
        return
    if isinstance(op, _ELEMENTWISE):
        return
    if isinstance(op, _ALONG_A_DIMENSION):
        results = [r for r in op.results if isinstance(r.type, TileType)]
        for operand in op.operands:
            if operand in halved and any(r not in halved for r in results):
                _check_exchange(op, dim)
                plan.exchanges.append(op)
                return
        return
    if not tiles:
        if op.name.startswith("pypto.tensor."):
            raise _Refusal(f"{_describe(op)} works on a tensor (both vector cores would run it)")
        return
    raise _Refusal(f"{_describe(op)} is not split over the vector cores")


def _check_exchange(op: Operation, dim: int) -> None:
    """`op` reduces a halved tile across the split dimension: the two sub-blocks can combine
    their partial results when its combining op gives what the whole reduction did."""
    combine = _COMBINE.get(type(op))
    t = op.results[0].type
    assert isinstance(t, TileType)
    if combine is None or combine[0] != dim:
        raise _Refusal(f"{_describe(op)} reduces across the split dimension")
    if not (combine[2] or t.element_type == builtin_f32 or isinstance(t.element_type, IntegerType)):
        raise _Refusal(
            f"{_describe(op)} reduces across the split dimension in {t.element_type}: two partial results rounded "
            "to it would not add up to the whole reduction"
        )


def _root(value: SSAValue) -> SSAValue | None:
    """The storage a tensor value names: a parameter or a `tensor.create`, through stores
    and loop-carried values; None when it is anything else (a view, a branch's result)."""
    seen = 0
    while seen < 1000:
        seen += 1
        if isinstance(value, BlockArgument):
            owner = value.block.parent_op()
            if isinstance(owner, scf.ForOp) and value.index > 0:
                value = owner.iter_args[value.index - 1]
                continue
            return value if isinstance(owner, FuncOp) else None
        op = value.owner
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
            value = op.dest
        elif isinstance(op, scf.ForOp):
            value = op.iter_args[op.results.index(value)]  # type: ignore[arg-type]
        elif isinstance(op, tensor.CreateOp):
            return value
        else:
            return None
    return None


def _multiple_of(value: SSAValue, n: int) -> bool:
    """`value` (an index) is provably a multiple of `n`."""
    if n <= 1:
        return True
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        return isinstance(loop, scf.ForOp) and value.index == 0 and _multiple_of(loop.lb, n) and _multiple_of(loop.step, n)
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data % n == 0
    if isinstance(op, arith.MuliOp):
        return _multiple_of(op.lhs, n) or _multiple_of(op.rhs, n)
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        return _multiple_of(op.lhs, n) and _multiple_of(op.rhs, n)
    return False


def _check_ownership(func: FuncOp, dim: int, shared: set[SSAValue]) -> None:
    """Every element of a tensor the member writes is touched by one sub-block only.

    An access of extent E > 1 along the split dimension at an offset that is a multiple of E
    gives sub-block k the rows (or columns) [o + kE/2, o + (k+1)E/2): with one E per tensor,
    an element belongs to the same sub-block in every access. A tensor written by whole
    tiles (sub-block 0 alone) may not be read by the member. The group's workspaces
    (`shared`: the rings lower-cross-core-rings made) are left out: every access of a slot is
    ordered through the AIC by the ring's flags, which wait for both AIVs."""
    accesses: dict[SSAValue, list[tuple[Operation, int]]] = {}
    written: set[SSAValue] = set()
    for op in func.body.walk():
        if isinstance(op, tile.LoadOp | tile.StoreOp | tile.AtomicStoreOp):
            t = op.result.type if isinstance(op, tile.LoadOp) else op.tile.type
            source = op.source if isinstance(op, tile.LoadOp) else op.dest
        elif isinstance(op, tensor.ReadOp):
            t, source = None, op.source
        else:
            continue
        root = _root(source)
        if root is None:
            raise _Refusal(f"{_describe(op)} accesses a tensor view the split cannot follow")
        if root in shared:
            continue
        extent = t.get_shape()[dim] if isinstance(t, TileType) else 1
        accesses.setdefault(root, []).append((op, extent))  # type: ignore[arg-type]
        if not isinstance(op, tile.LoadOp | tensor.ReadOp):
            written.add(root)
    for root in written:
        uses = accesses[root]
        extents = {e for _, e in uses}
        if extents == {1}:
            reader = next((op for op, _ in uses if isinstance(op, tile.LoadOp | tensor.ReadOp)), None)
            if reader is not None:
                raise _Refusal(f"{_describe(reader)} reads a tensor that sub-block 0 alone writes")
            continue
        if len(extents) > 1:
            raise _Refusal(
                f"the member accesses one tensor with tiles of {sorted(extents)} along the split dimension: "
                "one sub-block would touch elements the other writes"
            )
        (extent,) = extents
        for op, _ in uses:
            offset = op.offsets[dim] if not isinstance(op, tensor.ReadOp) else None
            if offset is None or not _multiple_of(offset, extent):
                raise _Refusal(
                    f"{_describe(op)}: its offset along the split dimension is not a provable multiple of {extent}, "
                    "so one sub-block could touch elements of a tensor the other writes"
                )


def plan_split(func: FuncOp, dim: int, shared: set[SSAValue] | None = None) -> _Plan | str:
    """The tiles to halve in `func`, or why it cannot be split (see the module docstring).
    `shared`: the parameters that are the group's workspaces."""
    halved: dict[SSAValue, TileType] = {}
    try:
        for op in func.body.walk():
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        _check_value(arg, dim, halved)
            for r in op.results:
                _check_value(r, dim, halved)
        plan = _Plan(dim, halved)
        for op in func.body.walk():
            _check_op(op, dim, plan)
        _check_ownership(func, dim, shared or set())
        if plan.exchanges:
            plan.flag_id = _free_flag_id(func)
    except _Refusal as e:
        return str(e)
    if not halved:
        return "it has no tile to split"
    return plan


def _check_first_only_store(op: tile.StoreOp | tile.AtomicStoreOp) -> None:
    """A whole tile is stored (or atomically added) by sub-block 0 alone, inside `if
    GetSubBlockIdx() == 0`: both AIVs hold the same values (every tile it derives from is
    whole on both, or a reduction across the split both AIVs combine alike), so one write
    is the unsplit member's."""
    for use in op.result.uses:
        if not isinstance(use.operation, ReturnOp | scf.YieldOp):
            raise _Refusal(
                f"{_describe(op)} stores a tile of extent 1 along the split dimension ({op.tile.type}), and "
                f"'{use.operation.name}' uses the tensor it returns: only sub-block 0 stores it"
            )


def _guard_first_only(op: tile.StoreOp | tile.AtomicStoreOp, sub: SSAValue) -> None:
    """`op` in `scf.if GetSubBlockIdx() == 0`; its result (the tensor it writes) is its
    destination on both sub-blocks."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    first = arith.CmpiOp(sub, zero.result, "eq")
    guard = scf.IfOp(first.result, [], Region(Block()), None)
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before([zero, first, guard], op)
    op.result.replace_all_uses_with(op.dest)
    op.detach()
    guard.true_region.block.add_ops([op, scf.YieldOp()])


def _shift_offset(op: tile.LoadOp | tile.StoreOp | tile.AtomicStoreOp, dim: int, half: int, sub: SSAValue) -> None:
    """Offset `dim` of `op` += GetSubBlockIdx() * half (new index ops right before `op`)."""
    offset = op.offsets[dim]
    amount = arith.ConstantOp(IntegerAttr(half, IndexType()))
    scaled = arith.MuliOp(sub, amount.result)
    new_ops: list[Operation] = [amount, scaled]
    result = scaled.result
    base = offset.owner
    if not (isinstance(base, arith.ConstantOp) and isinstance(base.value, IntegerAttr) and base.value.value.data == 0):
        shifted = arith.AddiOp(offset, scaled.result)
        new_ops.append(shifted)
        result = shifted.result
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before(new_ops, op)
    first = len(op.operands) - len(op.offsets)
    op.operands[first + dim] = result


def apply_split(func: FuncOp, plan: _Plan) -> None:
    block: Block = func.body.block
    sub = tile.GetSubBlockIdxOp()
    sub.result.name_hint = "sub_block"
    if block.first_op is not None:
        block.insert_op_before(sub, block.first_op)
    else:
        block.add_op(sub)
    halves: dict[Operation, int] = {}
    for op in func.body.walk():
        if isinstance(op, tile.LoadOp) and op.result in plan.halved:
            halves[op] = plan.halved[op.result].get_shape()[plan.dim]  # type: ignore[assignment]
        elif isinstance(op, tile.StoreOp | tile.AtomicStoreOp) and op.tile in plan.halved:
            halves[op] = plan.halved[op.tile].get_shape()[plan.dim]  # type: ignore[assignment]
    for op, half in halves.items():
        _shift_offset(op, plan.dim, half, sub.result)  # type: ignore[arg-type]
    for op in plan.first_only:
        _guard_first_only(op, sub.result)  # type: ignore[arg-type]
    anchor: Operation = sub
    for op in plan.exchanges:
        # In a loop, a sub-block must not overwrite its slot before the other has read it in
        # the previous iteration. Between a load and the next write of the same slot lies
        # the meeting of every other exchange of the block, so only a block with one
        # exchange needs a second meeting.
        alone = sum(other.parent_block() is op.parent_block() for other in plan.exchanges) == 1
        anchor = _exchange_partials(func, op, sub.result, plan.flag_id, anchor, alone and in_loop(op, func))  # type: ignore[arg-type]
    for value, new_type in plan.halved.items():
        Rewriter.replace_value_with_new_type(value, new_type)


def _free_flag_id(func: FuncOp) -> int:
    """A flag id of the AIVs that `func` does not use yet (the AIC's flags to the AIVs count on
    the same counters) and SyncAll does not reserve."""
    used = {op.id_value for op in func.walk() if isinstance(op, cross_core.SetFlagOp | cross_core.WaitFlagOp)}
    free = [k for k in range(MAX_FLAG_ID + 1) if k not in used and k not in _RESERVED_FLAG_IDS]
    if not free:
        raise _Refusal("every cross-core flag id of the AIVs is in use: none is left for the exchange of partial results")
    return free[0]


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _barrier(flag_id: int) -> list[Operation]:
    """Both AIVs set the mode-1 flag; each waits until both have (CrossCoreSetFlag<1, pipe>)."""
    return [cross_core.SetFlagOp(Pipe.V2V, flag_id), cross_core.WaitFlagOp(Pipe.V2V, flag_id)]


def _exchange_partials(
    func: FuncOp, op: Operation, sub: SSAValue, flag_id: int, anchor: Operation, meet_again: bool
) -> Operation:
    """After `op` (each sub-block's reduction of its half): each sub-block stores its partial
    result into its slot of a workspace (slot k: rows [kR, (k+1)R) of a [2R, C] tensor, made
    after `anchor` at the top of `func`; returned), both meet at a mode-1 flag, each loads
    the other's partial and combines it with its own. The combining op is commutative, so
    both compute the same whole result (which keeps a whole tile the same on both AIVs, as
    the whole-tile stores need). `meet_again` (in a loop): a second meeting keeps a sub-block
    from overwriting its slot in the next iteration before the other has read it."""
    partial = op.results[0]
    uses = list(partial.uses)
    t = partial.type
    assert isinstance(t, TileType)
    rows, cols = t.get_shape()
    assert isinstance(rows, int) and isinstance(cols, int)
    workspace = tensor.CreateOp(TensorType([2 * rows, cols], t.element_type))
    workspace.result.name_hint = "partials"
    func.body.block.insert_op_after(workspace, anchor)
    zero, height = _index(0), _index(rows)
    mine = arith.MuliOp(sub, height.result)
    theirs = arith.SubiOp(height.result, mine.result)
    store = tile.StoreOp(partial, workspace.result, [mine.result, zero.result])
    load = tile.LoadOp(store.result, [theirs.result, zero.result], t)
    load.result.name_hint = "other_partial"
    combined = _COMBINE[type(op)][1](partial, load.result)
    combined.results[0].name_hint = partial.name_hint
    ops: list[Operation] = [zero, height, mine, theirs, store, *_barrier(flag_id), load, combined]
    if meet_again:
        ops += _barrier(flag_id)
    block = op.parent_block()
    assert block is not None
    block.insert_ops_after(ops, op)
    for use in uses:
        use.operation.operands[use.index] = combined.results[0]
    return workspace


def split_vector_member(
    func: FuncOp, dim: int, shared: frozenset[int] = frozenset(), *, exchange: bool = True
) -> FuncOp | str:
    """The aiv member `func` split over two vector cores along `dim` (a new function), or the
    reason it stays on one (`func` is not changed). `shared`: the indices of the parameters
    that are the group's workspaces. `exchange`: whether a reduction across the split may be
    combined through an exchange of partial results (else it keeps the member on one AIV)."""
    split = func.clone()
    plan = plan_split(split, dim, {split.body.block.args[k] for k in shared})
    if isinstance(plan, str):
        return plan
    if plan.exchanges and not exchange:
        return (
            f"{_describe(plan.exchanges[0])} reduces across the split dimension, and exchanging partial results "
            "(a GM copy each way and a mode-1 meeting) costs more than the split saves at tile sizes that fit the "
            "UB: the scope can ask for it with pl.split"
        )
    apply_split(split, plan)
    try:
        split.verify()
    except VerifyException as e:  # a rule above missed a shape constraint: keep one AIV
        return f"its split form does not verify ({e})"
    return split


def group_workspace_params(group: FuncOp, member: FuncOp) -> frozenset[int]:
    """The indices of `member`'s parameters to which the group passes a workspace it creates."""
    from pypto_xdsl.dialects.program import CallOp

    for op in group.body.block.ops:
        if isinstance(op, CallOp) and op.callee.string_value() == member.sym_name.data:
            return frozenset(
                k for k, arg in enumerate(op.args) if isinstance(arg.owner, tensor.CreateOp) and arg.owner.parent_op() is group
            )
    return frozenset()


def split_group_member(group: FuncOp, member: FuncOp) -> FuncOp | None:
    """`member` (the group's aiv function) split over both AIVs, or None when it stays on one
    (with a warning naming the reason if the group's scope asked for a split)."""
    dim, asked = split_dimension(group)
    # the cost model puts a split with an exchange behind the member on one AIV (1.5-1.7x its
    # cycles at 64 x 64 tiles: docs/passes/split-vector-member.md), so only an explicit
    # pl.split pays for one
    split = split_vector_member(member, dim, group_workspace_params(group, member), exchange=asked)
    if not isinstance(split, str):
        return split
    if asked:
        mode = group.attributes[SPLIT_ATTR].data.value  # type: ignore[union-attr]
        print(
            f"warning: split-vector-member: group @{group.sym_name.data} asks for split({mode}), but its vector "
            f"member runs on one AIV (KERNEL_TYPE_MIX_AIC_1_1): {split}",
            file=sys.stderr,
        )
    return None


class SplitGroupVectorMember(RewritePattern):
    """A `group` without a task ratio: its aiv member split (task_ratio 2) or kept (1)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FuncOp, rewriter: PatternRewriter) -> None:
        if op.func_kind != FuncKind.GROUP or TASK_RATIO_ATTR in op.attributes:
            return
        _, member = group_members(op)
        if member is None:
            return
        for inner in member.walk():
            if isinstance(inner, TRANSFER_TYPES):
                raise PassFailedException(
                    f"split-vector-member: '{inner.name}' in @{member.sym_name.data}: the rings of group "
                    f"@{op.sym_name.data} are lowered to global memory first (lower-cross-core-rings)"
                )
        split = split_group_member(op, member)
        if split is not None:
            rewriter.replace(member, split, [])
        op.attributes[TASK_RATIO_ATTR] = IntegerAttr(1 if split is None else 2, i64)
        rewriter.notify_op_modified(op)


class SplitVectorMemberPass(ModulePass):
    """`split-vector-member`: every group's aiv member over both AIVs of its core group where
    it splits (the group's `task_ratio` says which: 2 split, 1 kept)."""

    name = "split-vector-member"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SplitGroupVectorMember(), apply_recursively=False, walk_regions_first=False).rewrite_module(op)


__all__ = [
    "SPLIT_ATTR",
    "SplitVectorMemberPass",
    "apply_split",
    "plan_split",
    "split_dimension",
    "split_group_member",
    "split_vector_member",
]
