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
a K step that do not depend on the block (A's window and its move to L0A) once for both, the
two blocks' B tiles of a step as one load when the second's columns provably follow the
first's, and the last K steps (two, when there are three or more and two A tiles fit L0A)
peeled block by block so that the first block's store (its Fixpipe) is issued before the
second block's last Mmads and runs while they compute; an odd trip count leaves the original
loop for the last block. In the cost model the A reads of a K step are shared by two Mmads
and the B reads take half the bursts (docs/performance.md, phases 13 and 14).

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
from pypto_xdsl.analysis.index_forms import IndexForms, LinearForm
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.ascendc_types import MEMORY_BYTES, Memory
from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, TileType
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
        # and the next block waits (in the cost model 17,719 -> 18,347 cycles for 1024^3 with
        # one peeled step, -> 18,008 with two and the merged B copies)
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


def _position(load: tile.LoadOp, forms: IndexForms) -> tuple[SSAValue, list[SSAValue], LinearForm, LinearForm]:
    """The tensor a 2-D load reads (through at most one view), the view's offsets in it (none
    without a view) and the load's first row and column in it."""
    source, view_offsets = load.source, []
    rows, cols = (forms.form(v) for v in load.offsets)
    if isinstance(source.owner, tensor.SliceOp) and not source.owner.sizes:
        view = source.owner
        view_offsets = list(view.offsets)
        rows, cols = rows + forms.form(view.offsets[0]), cols + forms.form(view.offsets[1])
        source = view.source
    return source, view_offsets, rows, cols


def _merge_adjacent_loads(
    rewriter: PatternRewriter, first: tile.LoadOp, second: tile.LoadOp, forms: IndexForms, view_point: InsertPoint,
) -> None:
    """The two blocks' B tiles of a K step as one copy when the second block's columns start
    where the first's window ends: one [Kb, 2 Nb] load (half the DMA bursts, 512-byte rows for
    f16 blocks of 128) and a window of each half, valid as each load was. In the cost model the
    1024^3 f16 matmul goes from 14,614 to 14,182 cycles (docs/performance.md, phase 14)."""
    t = first.result.type
    if not (isinstance(t, TileType) and t == second.result.type and t.space == MemorySpace.MAT and t.is_static()
            and t.rank == 2 and len(first.offsets) == 2 and len(second.offsets) == 2):
        return
    if not all(isinstance(u.operation, tile.MoveOp) and u.operation.result.type.space == MemorySpace.RIGHT
               for load in (first, second) for u in load.result.uses):
        return
    kb, nb = t.get_shape()
    source, view_offsets, rows, cols = _position(first, forms)
    source_2, view_offsets_2, rows_2, cols_2 = _position(second, forms)
    if source is not source_2 or rows != rows_2 or (cols_2 - cols).constant != nb:
        return
    if bool(view_offsets) != bool(view_offsets_2) or first.is_partial != second.is_partial:
        return
    valid = [list(first.valid_shape), list(second.valid_shape)]
    if first.is_partial and (len(valid[0]) != 2 or forms.form(valid[0][0]) != forms.form(valid[1][0])):
        return
    merged_type = t.with_shape([kb, 2 * nb])
    load_source = first.source
    if view_offsets:
        view = first.source.owner
        assert isinstance(view, tensor.SliceOp)
        view_type = view.result.type
        view_type_2 = second.source.owner.result.type  # type: ignore[union-attr]
        delta = (forms.form(view_offsets_2[1]) - forms.form(view_offsets[1])).constant
        if view_type != view_type_2 or delta is None or delta < 0 or not view_type.is_static():
            return
        view_rows, view_cols = view_type.get_shape()
        merged_view = tensor.SliceOp(view.source, view_offsets, view_type.with_shape([view_rows, view_cols + delta]))
        merged_view.result.name_hint = view.result.name_hint
        rewriter.insert(merged_view, view_point)
        load_source = merged_view.result
    here = InsertPoint.before(first)
    merged_valid: list[SSAValue] = []
    if first.is_partial:
        width = arith.AddiOp(_index(rewriter, nb, here), valid[1][1])
        rewriter.insert(width, here)
        merged_valid = [valid[0][0], width.result]
    merged = tile.LoadOp(load_source, list(first.offsets), merged_type, merged_valid)
    merged.result.name_hint = f"{first.result.name_hint or 'b'}_pair"
    rewriter.insert(merged, here)
    zero, half = _index(rewriter, 0, here), _index(rewriter, nb, here)
    halves: list[tuple[tile.LoadOp, SSAValue]] = []
    for load, column, extents in ((first, zero, valid[0]), (second, half, valid[1])):
        window = tile.SliceOp(merged.result, [zero, column], t)
        window.result.name_hint = load.result.name_hint
        rewriter.insert(window, here)
        result = window.result
        if extents:
            marked = tile.SetValidShapeOp(result, extents[0], extents[1])
            marked.result.name_hint = load.result.name_hint
            rewriter.insert(marked, here)
            result = marked.result
        halves.append((load, result))
    for load, result in halves:
        rewriter.replace(load, [], [result])


def _peeled_steps(k_trips: int, cloner: _Cloner) -> int:
    """K steps taken block by block at the end of a pair: two when the loop keeps at least
    one jammed step and two of a step's shared L0A tiles fit L0A at once (the second block's
    two Mmads then cover the first block's Fixpipe), else one."""
    if k_trips < 3:
        return 1
    left = [
        result.type
        for op in cloner.step_ops
        if op not in cloner.per_block
        for result in op.results
        if isinstance(result.type, TileType) and result.type.space == MemorySpace.LEFT
    ]
    if not left or not all(t.is_static() for t in left):
        return 1
    shared_left = sum(t.num_elements() * byte_width(t.element_type) for t in left)
    return 2 if 2 * shared_left <= MEMORY_BYTES[Memory.L0A] else 1


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

        # the K steps but the peeled ones, both accumulators carried
        k_trips = _trips(k_lb, k_ub, k_step)
        peeled = _peeled_steps(k_trips, cloner)
        first_peeled = k_lb + (k_trips - peeled) * k_step  # where the first peeled K step starts
        k_args = k_loop.body.block.args
        steps_body = Block(arg_types=[k_args[0].type, k_args[1].type, k_args[1].type])
        for new_arg, old_arg in zip(steps_body.args, (k_args[0], k_args[1], k_args[1])):
            new_arg.name_hint = old_arg.name_hint
        k_inits = [first[k_loop.iter_args[0]], second[k_loop.iter_args[0]]]
        k_ub_peeled = _index(rewriter, first_peeled, here)
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
        forms = IndexForms({pair_body.args[0]: (shape.lb, shape.lb + 2 * shape.step * (pairs - 1))})
        for old in cloner.step_ops:
            if isinstance(old, tile.LoadOp) and old in cloner.per_block:
                first_load, second_load = step_first[old.result].owner, step_second[old.result].owner
                assert isinstance(first_load, tile.LoadOp) and isinstance(second_load, tile.LoadOp)
                _merge_adjacent_loads(rewriter, first_load, second_load, forms, InsertPoint.before(steps))

        # the peeled K steps block by block: the first block's Mmads and store, then the
        # second block's Mmads on the same A tiles, which run while the store does
        shared_steps: list[Mapping] = []
        acc_first = steps.results[0]
        for value in range(first_peeled, k_ub, k_step):
            k_value = _index(rewriter, value, here)
            step_first = {**first, k_args[0]: k_value, k_args[1]: acc_first}
            shared: Mapping = {k_args[0]: k_value}
            cloner.first_step(step_first, shared, pair_body)
            acc_first = step_first[k_yield.operands[0]]
            shared_steps.append(shared)
        first[k_loop.results[0]] = acc_first
        for epilogue_op in shape.epilogue:
            cloner.clone(epilogue_op, first, pair_body)
        n_yield = body.last_op
        assert isinstance(n_yield, scf.YieldOp)
        for old, value in zip(body.args[1:], n_yield.operands):
            second[old] = _look(first, value)
        acc_second = steps.results[1]
        for shared in shared_steps:
            step_second = {**second, **shared, k_args[1]: acc_second}
            cloner.second_step(step_second, pair_body)
            acc_second = step_second[k_yield.operands[0]]
        second[k_loop.results[0]] = acc_second
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
