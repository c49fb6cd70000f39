"""fold-bias-epilogue: a matmul whose vector epilogue only adds a bias row (and rectifies)
becomes a tile.matmul_bias, so the cube computes the whole linear layer.

The rewritten form, per stored product (tile ops of an incore function, before
expand-mixed-kernel):

    %acc = tile.matmul %l, %r                      (or a K loop carrying it into tile.matmul_acc;
                                                    or a tile.matmul_acc of a zero fill, or a K loop
                                                    from one, whose first step is peeled)
    %t   = tile.move %acc -> vec
    %row = tile.load %bias[...] -> [1, N] f32 vec
    %s   = tile.col_expand_add %t, %row
    [%s  = tile.relu %s]
    tile.store %s, %dst[...]

becomes

    %bm  = tile.load %bias[...] -> [1, N] f32 mat       (before the first matmul)
    %bt  = tile.move %bm -> bias
    %acc = tile.matmul_bias %l, %r, %bt
    ...
    [%acc = tile.relu %acc]                              (the Fixpipe's reluEn on Ascend C)
    tile.store %acc, %dst[...]

The bias joins the accumulation first instead of last (f32 either way: the difference is the
order of one rounding per element, within the K- and dtype-derived matmul tolerance). Only
where nothing else reads the vector values, the row fits the bias table (N f32 of at most
1 KB, N a multiple of 16) and the row's offsets can be computed before the first matmul.
An f16 row cast to f32 (`tile.load` f16, `tile.cast` to f32) folds too, N a multiple of 32:
it is loaded f16 into `mat` and the move to `bias` converts it (`tile.move` f16 -> f32).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.availability import available_before
from pypto_xdsl.analysis.static_loops import constant_index, static_trip_count
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import MemorySpace, TileType

BIAS_TABLE_BYTES = 1024


def _only_use(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


@dataclass(frozen=True)
class _ZeroStartLoop:
    """A K loop whose carried accumulator (iter_arg `index`) starts from a zero fill: its first
    step, peeled off, becomes the product the bias joins."""

    loop: scf.ForOp
    index: int


def _is_zero_fill(value: SSAValue) -> bool:
    """A `tile.full` of 0.0 in `acc`, read only once."""
    owner = value.owner
    if not (isinstance(owner, tile.FullOp) and isinstance(owner.value.owner, arith.ConstantOp)):
        return False
    fill = owner.value.owner.value
    return (isinstance(fill, FloatAttr) and fill.value.data == 0.0 and _only_use(value) is not None
            and owner.result.type.space == MemorySpace.ACC)  # type: ignore[union-attr]


def _first_product(acc: SSAValue) -> tile.MatmulOp | tile.MatmulAccOp | _ZeroStartLoop | None:
    """Where an accumulator starts: a tile.matmul, a tile.matmul_acc of a zero fill, or a K loop
    that carries it (each step a tile.matmul_acc of the carried value) from one of those or
    from a zero fill (then with at least one step)."""
    owner = acc.owner
    if isinstance(owner, tile.MatmulOp):
        return owner if _only_use(acc) is not None else None
    if isinstance(owner, tile.MatmulAccOp):
        return owner if _only_use(acc) is not None and _is_zero_fill(owner.acc) else None
    if isinstance(owner, scf.ForOp):
        arg = owner.body.block.args[acc.index + 1]
        yielded = owner.body.block.last_op.operands[acc.index]  # type: ignore[union-attr]
        if not (isinstance(yielded.owner, tile.MatmulAccOp) and yielded.owner.acc is arg and _only_use(arg) is not None):
            return None
        init = owner.iter_args[acc.index]
        if _only_use(init) is not owner:
            return None
        if _is_zero_fill(init):
            trips = static_trip_count(owner)
            return _ZeroStartLoop(owner, acc.index) if trips is not None and trips > 0 else None
        return _first_product(init)
    return None


def _peel_first_step(start: _ZeroStartLoop, bias_table: SSAValue, rewriter: PatternRewriter) -> None:
    """Copy the loop's first step in front of it, its tile.matmul_acc of the zero fill becoming
    a tile.matmul_bias; the loop starts one step later from the copy's values (or is gone if
    it had only that step)."""
    loop, block = start.loop, start.loop.body.block
    mapping: dict[SSAValue, SSAValue] = {block.args[0]: loop.lb, **dict(zip(block.args[1:], loop.iter_args))}
    yield_op = block.last_op
    assert yield_op is not None
    first_step = yield_op.operands[start.index].owner
    for op in list(block.ops)[:-1]:
        if op is first_step:
            assert isinstance(op, tile.MatmulAccOp)
            fused = tile.MatmulBiasOp(mapping.get(op.lhs, op.lhs), mapping.get(op.rhs, op.rhs), bias_table)
            fused.result.name_hint = op.result.name_hint
            mapping[op.result] = fused.result
            rewriter.insert(fused, InsertPoint.before(loop))
        else:
            rewriter.insert(op.clone(mapping), InsertPoint.before(loop))
    firsts = [mapping.get(v, v) for v in yield_op.operands]
    zero_fill = loop.iter_args[start.index].owner
    if static_trip_count(loop) == 1:
        rewriter.replace(loop, [], firsts)
    else:
        step = constant_index(loop.step)
        lb = constant_index(loop.lb)
        assert step is not None and lb is not None
        second = arith.ConstantOp(IntegerAttr(lb + step, IndexType()))
        rewriter.insert(second, InsertPoint.before(loop))
        loop.operands = (second.result, loop.ub, loop.step, *firsts)
        rewriter.notify_op_modified(loop)
    assert isinstance(zero_fill, Operation)
    rewriter.erase(zero_fill)


def _hoist_before(value: SSAValue, point: Operation, moves: list[Operation]) -> bool:
    """Make `value` available before `point`, moving the pure arith ops that compute it (in
    `point`'s block) there; the moves are recorded, not done, so a failure changes nothing."""
    if available_before(value, point):
        return True
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp | arith.MuliOp | arith.AddiOp | arith.SubiOp):
        return False
    if owner.parent_block() is not point.parent_block():
        return False
    if not all(_hoist_before(o, point, moves) for o in owner.operands):
        return False
    if owner not in moves:
        moves.append(owner)
    return True


class FoldBiasEpilogue(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tile.ColExpandAddOp):
            return
        move, row_load = op.input.owner, op.col.owner
        widen = row_load if isinstance(row_load, tile.CastOp) else None
        if widen is not None:
            # an f16 row cast to f32: the L1 -> bias-table copy does that conversion (exact)
            row_load = widen.input.owner
            if not (isinstance(row_load, tile.LoadOp) and isinstance(row_load.result.type.element_type, Float16Type)  # type: ignore[union-attr]
                    and isinstance(widen.result.type.element_type, Float32Type)  # type: ignore[union-attr]
                    and _only_use(widen.result) is op):
                return
        if not (isinstance(move, tile.MoveOp) and isinstance(row_load, tile.LoadOp)):
            return
        if (move.input.type.space != MemorySpace.ACC or _only_use(move.result) is not op  # type: ignore[union-attr]
                or _only_use(move.input) is not move):
            return
        row = row_load.result.type
        assert isinstance(row, TileType)
        n = row.get_shape()[1] if row.rank == 2 else None
        # the copy to the bias table moves 64-byte blocks of its source: 16 f32 or 32 f16
        block = 16 if widen is None else 32
        if (row.get_shape()[0] != 1 or not isinstance(n, int) or n % block or n * 4 > BIAS_TABLE_BYTES
                or not isinstance(row.element_type, Float32Type if widen is None else Float16Type) or row_load.is_partial
                or _only_use(row_load.result) is not (op if widen is None else widen)):
            return
        result, relu = op.result, None
        user = _only_use(result)
        if isinstance(user, tile.ReluOp):
            relu, result = user, user.result
            user = _only_use(result)
        if not isinstance(user, tile.StoreOp) or user.tile is not result:
            return
        product = _first_product(move.input)
        if product is None:
            return
        point = product.loop if isinstance(product, _ZeroStartLoop) else product
        moves: list[Operation] = []
        if not all(_hoist_before(v, point, moves) for v in row_load.operands):
            return
        for m in moves:
            m.detach()
            rewriter.insert(m, InsertPoint.before(point))
        bias_mat = tile.LoadOp(row_load.source, row_load.offsets, TileType(row.get_shape(), row.element_type, MemorySpace.MAT))
        bias_mat.result.name_hint = row_load.result.name_hint or "bias_row"
        bias_table = tile.MoveOp(bias_mat, MemorySpace.BIAS, Float32Type())
        rewriter.insert([bias_mat, bias_table], InsertPoint.before(point))
        if isinstance(product, _ZeroStartLoop):
            _peel_first_step(product, bias_table.result, rewriter)
        else:
            zero_fill = product.acc.owner if isinstance(product, tile.MatmulAccOp) else None
            fused = tile.MatmulBiasOp(product.lhs, product.rhs, bias_table)
            fused.result.name_hint = product.result.name_hint
            rewriter.replace(product, fused)
            if isinstance(zero_fill, Operation):
                rewriter.erase(zero_fill)
        stored: SSAValue = move.input
        if relu is not None:
            rectified = tile.ReluOp(stored)
            rewriter.insert(rectified, InsertPoint.before(user))
            stored = rectified.result
        store = tile.StoreOp(stored, user.dest, user.offsets)
        store.result.name_hint = user.result.name_hint
        rewriter.replace(user, store)
        for dead in ([relu] if relu is not None else []) + [op, move] + ([widen] if widen is not None else []) + [row_load]:
            rewriter.erase(dead)


@dataclass(frozen=True)
class FoldBiasEpiloguePass(ModulePass):
    """`fold-bias-epilogue`."""

    name = "fold-bias-epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldBiasEpilogue(), apply_recursively=False).rewrite_module(op)


__all__ = ["FoldBiasEpiloguePass"]
