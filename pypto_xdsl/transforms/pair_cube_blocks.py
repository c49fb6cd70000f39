"""pair-cube-blocks: an AIC kernel's loop over output blocks advances two blocks' K loops
together (unroll-and-jam by two), so the A operand each K step reads is read once for both.

The loop it pairs is the form convert-tensor-to-tile gives a user's loop of matmuls over
column blocks of one row panel:

    scf.for %j = lb to ub step s iter_args(%c = ...) {
      (prefix: index arithmetic, views, the zero accumulator %acc)
      %r = scf.for %k = 0 to K step kb iter_args(%part = %acc) {
        (A window and B tile of step %k, their moves to L0A/L0B)
        %p = pypto.tile.matmul_acc %part, %l, %rt
        scf.yield %p
      }
      (epilogue: valid shape, cast, relu, the store of %r into %c)
      scf.yield %stored
    }

becomes one loop over pairs `%j, %j + s` whose K loop carries both accumulators, the ops of
a K step that do not depend on the block (A's window and its move to L0A) once for both, and
the last K step peeled so that the first block's store (its Fixpipe) is issued before the
second block's last Mmad and runs while it computes; an odd trip count leaves the original
loop for the last block. In the cost model the A reads of a K step are shared by two Mmads
(docs/performance.md, phase 13).

The loop is paired when: it is in an `aic` function, its bounds are constants with at least
two iterations; its body holds one K loop from a zero accumulator (`zero_accumulator_loop`)
with constant bounds and at least two steps; the prefix and the K loop use none of the loop's
carried values, and hold only side-effect-free ops, loads, slices, moves and the matmul; the
epilogue loads nothing and stores the accumulator converted to f16 by the Fixpipe (an f32
product's longer Fixpipe would keep both L0C buffers busy past the pair); no tensor the loop loads from is one it stores into (so reordering a
block's loads before the previous block's store changes nothing); and two accumulators fit
L0C. The interpreter computes the same result before and after.
Runs in `pypto-ascendc` after hoist-cube-loads and in the backend's lowering of AIC kernels;
docs/passes/pair-cube-blocks.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from pypto_xdsl.analysis.ascendc_kernel import byte_width, const_value, quantised_accumulator, zero_accumulator_loop
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.ascendc_types import MEMORY_BYTES, Memory
from pypto_xdsl.dialects.attributes import FuncKind, TileType
from pypto_xdsl.dialects.program import FuncOp, func_ops

_K_STEP_OPS = (tile.SliceOp, tile.LoadOp, tile.MoveOp, tile.MatmulAccOp)


@dataclass(frozen=True)
class _BlockLoop:
    """A loop over output blocks that pair-cube-blocks can pair (see the module docstring)."""

    loop: scf.ForOp
    lb: int
    step: int
    trips: int
    prefix: list[Operation]
    k_loop: scf.ForOp
    epilogue: list[Operation]


def _function(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _operands_within(op: Operation) -> Iterable[SSAValue]:
    yield from op.operands
    for region in op.regions:
        for inner in region.walk():
            yield from inner.operands


def _root(value: SSAValue) -> BlockArgument | None:
    """The function parameter a tensor value views or updates (None: not known)."""
    while True:
        if isinstance(value, OpResult):
            owner = value.op
            if isinstance(owner, tensor.SliceOp):
                value = owner.source
            elif isinstance(owner, tile.StoreOp):
                value = owner.dest
            elif isinstance(owner, scf.ForOp):
                value = owner.iter_args[value.index]
            else:
                return None
        elif isinstance(value, BlockArgument):
            parent = value.block.parent_op()
            if isinstance(parent, FuncOp):
                return value
            if isinstance(parent, scf.ForOp) and value.index > 0:
                value = parent.iter_args[value.index - 1]
            else:
                return None
        else:
            return None


def _trips(lb: int, ub: int, step: int) -> int:
    """Iterations of `for i = lb to ub step step` (the last one may start less than a step
    before `ub`: a ragged last block)."""
    return max(0, -(-(ub - lb) // step))


def _block_loop(loop: scf.ForOp) -> _BlockLoop | None:
    func = _function(loop)
    if func is None or func.func_kind != FuncKind.AIC:
        return None
    lb, ub, step = const_value(loop.lb), const_value(loop.ub), const_value(loop.step)
    if lb is None or ub is None or step is None or step <= 0 or _trips(lb, ub, step) < 2:
        return None
    body = loop.body.block
    k_loops = [op for op in body.ops if isinstance(op, scf.ForOp)]
    if len(k_loops) != 1:
        return None
    (k_loop,) = k_loops
    if len(k_loop.iter_args) != 1 or len(k_loop.results) != 1:
        return None
    init = k_loop.iter_args[0].owner
    if not isinstance(init, tile.FullOp) or init.parent_block() is not body or zero_accumulator_loop(init) is not k_loop:
        return None
    k_lb, k_ub, k_step = const_value(k_loop.lb), const_value(k_loop.ub), const_value(k_loop.step)
    if k_lb is None or k_ub is None or k_step is None or k_step <= 0 or _trips(k_lb, k_ub, k_step) < 2:
        return None
    acc = init.result.type
    if not isinstance(acc, TileType) or not acc.is_static():
        return None
    if 2 * acc.num_elements() * byte_width(acc.element_type) > MEMORY_BYTES[Memory.L0C]:
        return None
    ops = list(body.ops)
    at = ops.index(k_loop)
    prefix, epilogue = ops[:at], ops[at + 1 : -1]
    carried = set(body.args[1:])
    for op in (*prefix, k_loop):
        if any(v in carried for v in _operands_within(op)):
            return None
    if not all(is_side_effect_free(op) or isinstance(op, tile.LoadOp | tile.FullOp) for op in prefix):
        return None
    k_body = list(k_loop.body.block.ops)[:-1]
    if not all(is_side_effect_free(op) or isinstance(op, _K_STEP_OPS) for op in k_body):
        return None
    if any(op.regions or isinstance(op, tile.LoadOp) for op in epilogue):
        return None
    if not all(is_side_effect_free(op) or isinstance(op, tile.StoreOp) for op in epilogue):
        return None
    stores = [op for op in epilogue if isinstance(op, tile.StoreOp)]
    if not stores or not all(quantised_accumulator(op.tile) for op in stores):
        # an f32 product's Fixpipe (64 KiB of a 128 x 128 block at the core's HBM share) is
        # as long as ~3 K steps: paired, both L0C buffers stay busy until the second one ends
        # and the next block waits (in the cost model 17,719 -> 18,347 cycles for 1024^3)
        return None
    loaded = {_root(op.source) for op in (*prefix, *k_body) if isinstance(op, tile.LoadOp)}
    stored = {_root(op.dest) for op in epilogue if isinstance(op, tile.StoreOp)}
    if None in loaded or None in stored or loaded & stored:
        return None
    return _BlockLoop(loop, lb, step, _trips(lb, ub, step), prefix, k_loop, epilogue)


def _index(rewriter: PatternRewriter, value: int, where: InsertPoint) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    rewriter.insert(c, where)
    return c.result


Mapping = dict[SSAValue, SSAValue]


def _look(mapping: Mapping, value: SSAValue) -> SSAValue:
    """`value` in the clone: what it maps to, or itself (defined outside the loop)."""
    return mapping.get(value, value)


class _Cloner:
    """Clones ops of the original loop for the two blocks of a pair."""

    def __init__(self, rewriter: PatternRewriter, shape: _BlockLoop):
        self.rewriter = rewriter
        self.step_ops = list(shape.k_loop.body.block.ops)[:-1]
        # the ops that depend on the block (through %j or the accumulator); a K step's others
        # (A's window and its move to L0A) are the same for both blocks
        self.per_block: set[Operation] = set()
        depends: set[SSAValue] = {shape.loop.body.block.args[0], shape.k_loop.body.block.args[1]}
        for op in (*shape.prefix, *self.step_ops):
            if any(v in depends for v in _operands_within(op)):
                self.per_block.add(op)
                depends.update(op.results)

    def clone(self, op: Operation, mapping: Mapping, block: Block) -> None:
        self.rewriter.insert(op.clone(mapping), InsertPoint.at_end(block))

    def first_step(self, first: Mapping, second: Mapping, block: Block) -> None:
        """A K step of the first block, all of it; the second block takes its shared ops."""
        for op in self.step_ops:
            self.clone(op, first, block)
            if op not in self.per_block:
                for old in op.results:
                    second[old] = first[old]

    def second_step(self, second: Mapping, block: Block) -> None:
        """What a K step of the second block adds: its block-dependent ops."""
        for op in self.step_ops:
            if op in self.per_block:
                self.clone(op, second, block)


class PairBlockLoop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        shape = _block_loop(op)
        if shape is None:
            return
        before = InsertPoint.before(op)
        pairs = shape.trips // 2
        pair_ub = shape.lb + 2 * pairs * shape.step
        body = op.body.block
        k_loop = shape.k_loop
        k_lb, k_ub, k_step = const_value(k_loop.lb), const_value(k_loop.ub), const_value(k_loop.step)
        assert k_lb is not None and k_ub is not None and k_step is not None
        last_k_value = k_lb + (_trips(k_lb, k_ub, k_step) - 1) * k_step  # where the last K step starts
        lb, ub, step = (_index(rewriter, v, before) for v in (shape.lb, pair_ub, 2 * shape.step))

        pair_body = Block(arg_types=[a.type for a in body.args])
        paired = scf.ForOp(lb, ub, step, list(op.iter_args), Region(pair_body))
        rewriter.insert(paired, before)
        cloner = _Cloner(rewriter, shape)
        here = InsertPoint.at_end(pair_body)
        second_j = arith.AddiOp(pair_body.args[0], _index(rewriter, shape.step, here))
        rewriter.insert(second_j, here)
        iv = body.args[0].name_hint or "j"
        pair_body.args[0].name_hint, second_j.result.name_hint = iv, f"{iv}_second"

        first: Mapping = dict(zip(body.args, pair_body.args))
        second: Mapping = {body.args[0]: second_j.result}
        for mapping in (first, second):
            for prefix_op in shape.prefix:
                cloner.clone(prefix_op, mapping, pair_body)

        # the K steps but the last, both accumulators carried
        k_args = k_loop.body.block.args
        steps_body = Block(arg_types=[k_args[0].type, k_args[1].type, k_args[1].type])
        for new_arg, old_arg in zip(steps_body.args, (k_args[0], k_args[1], k_args[1])):
            new_arg.name_hint = old_arg.name_hint
        k_inits = [first[k_loop.iter_args[0]], second[k_loop.iter_args[0]]]
        k_ub_peeled = _index(rewriter, last_k_value, here)
        steps = scf.ForOp(_look(first, k_loop.lb), k_ub_peeled, _look(first, k_loop.step), k_inits, Region(steps_body))
        rewriter.insert(steps, here)
        step_first: Mapping = {**first, k_args[0]: steps_body.args[0], k_args[1]: steps_body.args[1]}
        step_second: Mapping = {**first, **second, k_args[0]: steps_body.args[0], k_args[1]: steps_body.args[2]}
        cloner.first_step(step_first, step_second, steps_body)
        cloner.second_step(step_second, steps_body)
        k_yield = k_loop.body.block.last_op
        assert isinstance(k_yield, scf.YieldOp)
        rewriter.insert(
            scf.YieldOp(step_first[k_yield.operands[0]], step_second[k_yield.operands[0]]),
            InsertPoint.at_end(steps_body),
        )

        # the last K step peeled: the first block's Mmad and store, then the second block's
        last_k = _index(rewriter, last_k_value, here)
        first |= {k_args[0]: last_k, k_args[1]: steps.results[0]}
        second |= {k_args[0]: last_k, k_args[1]: steps.results[1]}
        cloner.first_step(first, second, pair_body)
        first[k_loop.results[0]] = first[k_yield.operands[0]]
        for epilogue_op in shape.epilogue:
            cloner.clone(epilogue_op, first, pair_body)
        n_yield = body.last_op
        assert isinstance(n_yield, scf.YieldOp)
        for old, value in zip(body.args[1:], n_yield.operands):
            second[old] = _look(first, value)
        cloner.second_step(second, pair_body)
        second[k_loop.results[0]] = second[k_yield.operands[0]]
        for epilogue_op in shape.epilogue:
            cloner.clone(epilogue_op, second, pair_body)
        rewriter.insert(scf.YieldOp(*(_look(second, v) for v in n_yield.operands)), here)

        if shape.trips % 2 == 0:
            rewriter.replace(op, [], list(paired.results))
            return
        # an odd trip count: the original loop runs the last block, from the pairs' results
        rest = op.clone()
        rest.operands = [
            _index(rewriter, pair_ub, before), op.ub, op.step, *paired.results
        ]
        rewriter.replace(op, rest, list(rest.results))


def pair_cube_blocks(module: ModuleOp | Operation) -> None:
    """Apply the pass to every `aic` function of `module`."""
    functions = [f for f in func_ops(module) if f.func_kind == FuncKind.AIC] if isinstance(module, ModuleOp) else [module]
    walker = PatternRewriteWalker(PairBlockLoop(), apply_recursively=False)
    for f in functions:
        assert isinstance(f, FuncOp)
        walker.rewrite_region(f.body)
    if isinstance(module, ModuleOp):
        invalidate(module)


@dataclass(frozen=True)
class PairCubeBlocksPass(ModulePass):
    """`pair-cube-blocks`."""

    name = "pair-cube-blocks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pair_cube_blocks(op)


__all__ = ["PairBlockLoop", "PairCubeBlocksPass", "pair_cube_blocks"]
