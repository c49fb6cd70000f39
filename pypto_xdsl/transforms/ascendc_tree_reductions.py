"""ascendc-tree-reductions: fold the 256-byte column chunks of a row reduction as a halving
tree instead of one after another.

`convert-pypto-to-ascendc` reduces each row of an `[R, C]` tile wider than one repeat
(C · size > 256 B) in two stages: it copies the first chunk of every row into an `[R, lanes]`
scratch tensor (level-0 `Muls` by 1, one repeat per row), folds every further chunk into it
with one level-0 `Add`/`Max`/`Min`/`Mul` each, then reduces the scratch rows
(`WholeReduceSum/Max`). Every fold reads the scratch the previous one wrote, so the chain is
C / lanes dependent instructions, each behind a `PipeBarrier<PIPE_V>` (15 for 1024 f32
columns). For each such chain (`TreeFold`, one site per `whole_reduce_*`) this pass:

* widens the scratch to `w = ceil(full / 2)` chunks per row (at most 31: level-0 repeat
  strides count 32-byte blocks in 8 bits), `full` being the number of whole chunks;
* writes level 1 as `w` independent instructions, chunk c of the scratch = chunk c op
  chunk c + w of the input (a copy where c + w is past the last chunk; further `op` of
  chunks c + 2w, ... when `full > 2w`);
* halves the scratch in place, `ceil(log2 w)` levels of independent instructions;
* folds a partial last chunk (C not a multiple of lanes) into chunk 0 with its mask;
* lets the `whole_reduce_*` read the scratch rows at their new stride.

`ascendc-insert-sync` then places barriers between levels only (4 instead of 15 for 1024
f32 columns): the instructions of one level write disjoint scratch blocks. Sums (and
products) are reassociated, as the hardware's own `WholeReduceSum` tree does; max and min are
exact. The scratch TBuf's `InitBuffer` grows to R · w · 256 bytes; run the pass before
`ascendc-plan-buffers`, which it leaves planned kernels alone for. Running it again changes
nothing (a tree's level 1 is not a copy chain).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects.ascendc_format import ints_prop
from pypto_xdsl.dialects.ascendc_kernel import KernelOp

_FOLDS = (C.AddOp, C.MaxOp, C.MinOp, C.MulOp)
_REPEAT_BYTES, _BLOCK_BYTES, _MAX_STRIDE = 256, 32, 255
_CHUNK_BLOCKS = _REPEAT_BYTES // _BLOCK_BYTES


def _ints(op: Operation, name: str) -> list[int]:
    return [int(a.value.data) for a in op.properties[name].data]  # type: ignore[union-attr]


def _num(op: Operation, name: str) -> int:
    return int(op.properties[name].value.data)  # type: ignore[union-attr]


def _const_offset(value: SSAValue) -> tuple[SSAValue, int] | None:
    """(tensor, constant element offset) of `tensor[k]`, or of the tensor itself (0)."""
    owner = value.owner
    if isinstance(owner, M.AtOp):
        terms = owner.term_list()
        if any(v is not None for v, _ in terms):
            return None
        return owner.base, sum(c for _, c in terms)
    return value, 0


@dataclass
class Chain:
    """A copy-then-fold chain feeding one whole_reduce: the copy, the folds in order, the
    input tensor and its rows' repeat stride (blocks), the scratch and its get_buf."""

    copy: C.MulsOp
    folds: list[C.BinaryOp]
    src: SSAValue
    src_rep: int
    scratch: SSAValue
    get: M.GetBufOp
    lanes: int
    rows: int


def _is_one(value: SSAValue) -> bool:
    owner = value.owner
    if isinstance(owner, C.ScalarCastOp):
        value = owner.operands[0]
        owner = value.owner
    return isinstance(owner, arith.ConstantOp) and getattr(owner.value, "value", None) is not None and (
        owner.value.value.data == 1  # type: ignore[union-attr]
    )


def match_chain(reduce: C.WholeReduceOp) -> Chain | None:
    scratch = reduce.src
    get = scratch.owner
    if not isinstance(get, M.GetBufOp) or len(list(get.buffer.uses)) != 2:  # its get_buf and InitBuffer
        return None
    lanes = _REPEAT_BYTES // scratch.type.element_bytes  # type: ignore[attr-defined]
    rows = _num(reduce, "repeat")
    if _num(reduce, "mask") != lanes or _ints(reduce, "strides")[1:] != [1, _CHUNK_BLOCKS]:
        return None
    # the ops writing the scratch, walking back from the reduce over declarations
    folds: list[C.BinaryOp] = []
    op = reduce.prev_op
    copy: C.MulsOp | None = None
    while op is not None:
        if isinstance(op, M.AtOp | arith.ConstantOp | C.ScalarCastOp):
            op = op.prev_op
            continue
        if isinstance(op, _FOLDS) and op.dst is scratch and op.src0 is scratch:
            folds.append(op)
            op = op.prev_op
            continue
        if isinstance(op, C.MulsOp) and op.dst is scratch:
            copy = op
        break
    if copy is None or not folds or "mask" not in copy.properties or not _is_one(copy.scalar):
        return None
    folds.reverse()
    if len({type(f) for f in folds}) != 1:
        return None
    src = copy.src
    base = _const_offset(src)
    if base is None or base[1] != 0:
        return None
    params = _ints(copy, "params")
    if _num(copy, "mask") != lanes or _num(copy, "repeat") != rows or params[:3] != [1, 1, _CHUNK_BLOCKS]:
        return None
    src_rep = params[3]
    for k, f in enumerate(folds, start=1):
        at = _const_offset(f.src1)
        fp = _ints(f, "params")
        if at is None or at[0] is not src or at[1] != k * lanes or _num(f, "repeat") != rows:
            return None
        if fp != [1, 1, 1, _CHUNK_BLOCKS, _CHUNK_BLOCKS, src_rep]:
            return None
        if _num(f, "mask") != lanes and k != len(folds):
            return None  # only the last chunk may be partial
    # nothing else may touch the scratch
    if {u.operation for u in scratch.uses} - {copy, reduce, *folds}:
        return None
    return Chain(copy, folds, src, src_rep, scratch, get, lanes, rows)


class TreeFold(RewritePattern):
    """One copy-then-fold chain of a row reduction -> a halving tree (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: C.WholeReduceOp, rewriter: PatternRewriter) -> None:
        chain = match_chain(op)
        if chain is None:
            return
        lanes, rows = chain.lanes, chain.rows
        last_mask = _num(chain.folds[-1], "mask")
        full = 1 + len(chain.folds) - (1 if last_mask != lanes else 0)
        partial = last_mask if last_mask != lanes else 0
        if full < 2:
            return
        width = min(-(-full // 2), _MAX_STRIDE // _CHUNK_BLOCKS)
        stride = width * _CHUNK_BLOCKS  # scratch row, in 32-byte blocks
        fold = type(chain.folds[0])
        at = InsertPoint.before(chain.copy)
        new: list[Operation] = []

        def part(base: SSAValue, elements: int) -> SSAValue:
            if not elements:
                return base
            a = M.AtOp(base, [(None, elements)])
            new.append(a)
            return a.results[0]

        src, scratch = chain.src, chain.scratch
        for c in range(width):
            others = list(range(c + width, full, width))
            if others:
                first = others.pop(0)
                new.append(fold(part(scratch, c * lanes), part(src, c * lanes), part(src, first * lanes), mask=lanes,
                                repeat=rows, params=[1, 1, 1, stride, chain.src_rep, chain.src_rep]))
            else:
                new.append(C.MulsOp(part(scratch, c * lanes), part(src, c * lanes), chain.copy.scalar, mask=lanes,
                                    repeat=rows, params=[1, 1, stride, chain.src_rep]))
            for k in others:
                dst = part(scratch, c * lanes)
                new.append(fold(dst, dst, part(src, k * lanes), mask=lanes, repeat=rows,
                                params=[1, 1, 1, stride, stride, chain.src_rep]))
        live = width
        while live > 1:
            half = -(-live // 2)
            for c in range(live - half):
                dst = part(scratch, c * lanes)
                new.append(fold(dst, dst, part(scratch, (c + half) * lanes), mask=lanes, repeat=rows,
                                params=[1, 1, 1, stride, stride, stride]))
            live = half
        if partial:
            new.append(fold(scratch, scratch, part(src, full * lanes), mask=partial, repeat=rows,
                            params=[1, 1, 1, stride, stride, chain.src_rep]))
        rewriter.insert(new, at)
        for old in [chain.copy, *chain.folds]:
            rewriter.erase(old)
        strides = _ints(op, "strides")
        op.properties["strides"] = ints_prop([strides[0], strides[1], stride])
        init = next(u.operation for u in chain.get.buffer.uses if isinstance(u.operation, M.InitBufferOp))
        elem_bytes = scratch.type.element_bytes  # type: ignore[attr-defined]
        init.properties["len"] = IntegerAttr(rows * width * lanes * elem_bytes, i64)


def tree_reductions(kernel: KernelOp) -> None:
    if kernel.memory_plan is not None:
        return  # planned: the buffer sizes are fixed
    PatternRewriteWalker(GreedyRewritePatternApplier([TreeFold()], dce_enabled=False),
                         apply_recursively=False).rewrite_region(kernel.body)
    # the subtensors and the scalar 1 of the old chains that nothing uses any more
    for op in list(kernel.walk(reverse=True)):
        if isinstance(op, M.AtOp | C.ScalarCastOp) and not any(True for _ in op.results[0].uses):
            source = op.operands[0].owner if isinstance(op, C.ScalarCastOp) else None
            op.detach()
            op.erase()
            if isinstance(source, arith.ConstantOp) and not any(True for _ in source.result.uses):
                source.detach()
                source.erase()


@dataclass(frozen=True)
class AscendCTreeReductionsPass(ModulePass):
    """`ascendc-tree-reductions`."""

    name = "ascendc-tree-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            if isinstance(kernel, KernelOp):
                tree_reductions(kernel)
