"""hoist-cube-loads: a group's AIC member loads its read-only inputs into L1 before it waits
for the vector core, not after.

`pypto.cross_core.pop` becomes `CrossCoreWaitFlag<2, PIPE_S>`, which stops the cube core's
scalar unit from issuing anything until the AIV has sent the tile. A `tile.load` into `mat`
that follows the pop in program order but does not depend on it (flash attention's `V_j`
after `P_j`) is then issued only once the tile has arrived, and its GM transfer and latency
sit on the path between the two cores. Moving the load (and the index arithmetic it needs)
above the pop issues it first; the MTE2 transfer then runs while the core waits.

A load moves above the pops before it in its block when:

* it is in an `aic` member and loads into `mat` (L1; its buffer lives a little longer, and L1
  is 512 KiB, against the AIV's 192 KiB of UB, which this pass leaves alone);
* its source is an `in` parameter of the member: the kernel never writes it, so no flag
  orders it against the peer;
* every operand is defined before the pop, or by side-effect-free single-result ops between
  the pop and the load that depend on nothing the pop defines (they move with it, in order).

The load's `tile.move` into `left` or `right` (the MTE1 `LoadData` into L0A/L0B) follows it
above the pops, so the operand is in L0 when the popped tile arrives.

Pops and loads keep their order among themselves, so the rings are untouched; the
interpreter computes the same result. Runs in `pypto-ascendc` before lower-cross-core-rings,
and in the backend's lowering of groups (ascendc_mix_lowering.lower_groups);
docs/passes/hoist-cube-loads.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, ParamDirection, TileType
from pypto_xdsl.dialects.cross_core import PopOp
from pypto_xdsl.dialects.program import FuncOp, func_ops


def _member(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _read_only_input(func: FuncOp, value) -> bool:
    if not isinstance(value, BlockArgument) or value.block is not func.body.block:
        return False
    return func.directions[value.index] == ParamDirection.IN


def _preceding_pop(op: Operation) -> PopOp | None:
    prev = op.prev_op
    while prev is not None:
        if isinstance(prev, PopOp):
            return prev
        prev = prev.prev_op
    return None


def _movable_operands(load: Operation, pop: PopOp) -> list[Operation] | None:
    """The ops between `pop` and `load` that `load` needs, in program order, or None if one of
    them cannot move above the pop."""
    block: Block = load.parent_block()  # type: ignore[assignment]
    between: set[Operation] = set()
    op = pop.next_op
    while op is not None and op is not load:
        between.add(op)
        op = op.next_op
    needed: set[Operation] = set()
    stack = [v for v in load.operands]
    while stack:
        v = stack.pop()
        if not isinstance(v, OpResult):
            continue
        owner = v.op
        if owner is pop:
            return None
        if owner not in between or owner in needed:
            continue
        if owner.regions or len(owner.results) != 1 or not is_side_effect_free(owner):
            return None
        needed.add(owner)
        stack.extend(owner.operands)
    return [op for op in block.ops if op in needed]


class HoistCubeLoadAbovePop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.LoadOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        if not isinstance(t, TileType) or t.space != MemorySpace.MAT:
            return
        func = _member(op)
        if func is None or func.func_kind != FuncKind.AIC or not _read_only_input(func, op.source):
            return
        pop = _preceding_pop(op)
        if pop is None:
            return
        deps = _movable_operands(op, pop)
        if deps is None:
            return
        for moved in (*deps, op):
            moved.detach()
            rewriter.insert(moved, InsertPoint.before(pop))


class HoistMoveOfHoistedLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.MoveOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        if not isinstance(t, TileType) or t.space not in (MemorySpace.LEFT, MemorySpace.RIGHT):
            return
        load = op.input.owner
        if not isinstance(load, tile.LoadOp) or load.parent_block() is not op.parent_block():
            return
        func = _member(op)
        if func is None or func.func_kind != FuncKind.AIC or not _read_only_input(func, load.source):
            return
        pop = _preceding_pop(op)
        if pop is None or not load.is_before_in_block(pop):
            return
        op.detach()
        rewriter.insert(op, InsertPoint.before(pop))


def hoist_cube_loads(module: ModuleOp) -> None:
    """Apply the pass to every `aic` member of `module`."""
    members = [f for f in func_ops(module) if f.func_kind == FuncKind.AIC]
    if not members:
        return
    walker = PatternRewriteWalker(GreedyRewritePatternApplier([HoistCubeLoadAbovePop(), HoistMoveOfHoistedLoad()]), apply_recursively=True)
    for f in members:
        walker.rewrite_region(f.body)
    invalidate(module)


@dataclass(frozen=True)
class HoistCubeLoadsPass(ModulePass):
    """`hoist-cube-loads`."""

    name = "hoist-cube-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoist_cube_loads(op)


__all__ = ["HoistCubeLoadAbovePop", "HoistCubeLoadsPass", "HoistMoveOfHoistedLoad", "hoist_cube_loads"]
