"""ascendc-prefetch-copy-in: issue the next iteration's copy-in before this iteration's compute.

A kernel loop that follows the TPipe paradigm copies tile i in at the top of iteration i
(`AllocTensor`, `DataCopy`, `EnQue`, `DeQue`), computes on it and copies the result out. The
scalar unit issues instructions in program order, so the copy-in of tile i+1 is issued only
after every vector instruction of tile i has been issued; when a tile's compute is longer
than the vector pipe's instruction queue, the scalar unit stalls in it and the GM port idles
while V computes (softmax: 67 vector instructions per 8-row tile). Double buffering leaves the
second buffer free but nothing fills it in time.

This pass software-pipelines such loops: the copy-in of the first iteration moves before the
loop, and each iteration starts by copying in the next tile (guarded by `iv + step < ub`)
into the queue's other buffer, before its own compute. The iteration's own tile is then the
queue's oldest one: the paired `enque`/`deque` becomes a `deque_head`
(`LocalTensor<T> t = que.DeQue<T>();`, the FIFO head, as the real TQue hands it out).

A copy-in is prefetched when
* it fills a tensor allocated from a VECIN queue with two buffers, the only allocation from
  that queue inside the loop, and the copy, its `enque` and `deque` are in the loop body
  itself (not in a branch);
* its GM operand depends on the loop's induction variable and values from outside the loop
  only, through side-effect-free ops (index arithmetic, `ascendc.at`) and parameter structs;
* no op of the kernel writes that GlobalTensor (the prefetch would overtake a store; distinct
  parameters are assumed not to alias, as ascendc-insert-sync's MTE3 -> MTE2 flags assume).
Cube-side copy-ins (A1/B1) are left alone.

Runs after ascendc-insert-sync and ascendc-remove-redundant-sync (it needs the hand-offs,
and keeps the barriers they placed valid: only MTE2 work moves, and a `deque_head` orders
the vector pipe like the hand-off it replaces); `ascendc-cse` then merges the index
arithmetic it cloned. Running it again changes nothing (no paired copy-in is left).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from pypto_xdsl.analysis.ascendc_pipes import global_root
from pypto_xdsl.analysis.cxx_names import Namer
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import GlobalTensorType, TPosition
from pypto_xdsl.transforms.ascendc_plan_buffers import kernel_names


@dataclass
class CopyIn:
    """One prefetchable copy-in of a loop body: the ops that move, in body order."""

    alloc: M.AllocTensorOp
    copy: Operation
    enque: M.EnqueOp
    deque: M.DequeOp
    slice: list[Operation]  # in-body ops the copy's operands are computed by


def _written_roots(kernel: KernelOp) -> set[SSAValue]:
    """GlobalTensors something in the kernel may write: every GM operand except the source of
    a copy-in (and the subtensor expressions leading to it)."""
    out: set[SSAValue] = set()
    for op in kernel.walk():
        if isinstance(op, M.AtOp):
            continue
        reads = op.src if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "GM->local" else None
        for operand in op.operands:
            if isinstance(operand.type, GlobalTensorType) and operand is not reads:
                root = global_root(operand)
                if root is not None:
                    out.add(root)
    return out


def _slice(copy: Operation, body: Block, iv: SSAValue) -> list[Operation] | None:
    """The body ops computing the copy's operands (other than its destination), in body order;
    None when one of them is not re-computable for another iteration."""
    needed: set[Operation] = set()
    work = [v for v in copy.operands if v is not copy.operands[0]]
    while work:
        value = work.pop()
        if value is iv:
            continue
        owner = value.owner
        if isinstance(owner, Block):
            if owner is body:
                return None  # a carried value of the loop
            continue
        if owner.parent_block() is not body:
            if body.parent_op().is_ancestor(owner):  # type: ignore[union-attr]
                return None
            continue  # defined outside the loop
        if owner in needed:
            continue
        if owner.regions or not (is_side_effect_free(owner) or isinstance(owner, M.ParamsOp)):
            return None
        needed.add(owner)
        work.extend(owner.operands)
    return [op for op in body.ops if op in needed]


def _copy_ins(loop: scf.ForOp, written: set[SSAValue]) -> list[CopyIn]:
    body = loop.body.block
    iv = body.args[0]
    order = {op: k for k, op in enumerate(body.ops)}
    found: list[CopyIn] = []
    for alloc in body.ops:
        if not isinstance(alloc, M.AllocTensorOp):
            continue
        queue = alloc.queue
        qtype = queue.type
        if qtype.pos != TPosition.VECIN or qtype.depth.data < 2:  # type: ignore[union-attr]
            continue
        inits = [u.operation for u in queue.uses if isinstance(u.operation, M.InitBufferOp)]
        if len(inits) != 1 or inits[0].buffer_count < 2:
            continue
        if [u.operation for u in queue.uses if isinstance(u.operation, M.AllocTensorOp) and loop.is_ancestor(u.operation)] != [alloc]:
            continue
        uses = [u.operation for u in alloc.result.uses]
        copies = [op for op in uses if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "GM->local"]
        enques = [op for op in uses if isinstance(op, M.EnqueOp)]
        deques = [op for op in uses if isinstance(op, M.DequeOp)]
        if len(copies) != 1 or len(enques) != 1 or len(deques) != 1 or len(uses) != 3:
            continue
        copy, enque, deque = copies[0], enques[0], deques[0]
        if copy.operands[0] is not alloc.result or any(op.parent_block() is not body for op in (copy, enque, deque)):
            continue
        if not order[alloc] < order[copy] < order[enque] < order[deque]:
            continue
        root = global_root(copy.src)  # type: ignore[attr-defined]
        if root is None or root in written:
            continue
        sliced = _slice(copy, body, iv)
        if sliced is None:
            continue
        found.append(CopyIn(alloc, copy, enque, deque, sliced))
    return found


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _folded_at(at: M.AtOp) -> M.AtOp:
    """`at` with its constant index operands folded into the constant term."""
    terms: list[tuple[SSAValue | None, int]] = []
    const = 0
    for value, coeff in at.term_list():
        c = None if value is None else _constant(value)
        if value is None:
            const += coeff
        elif c is not None:
            const += c * coeff
        else:
            terms.append((value, coeff))
    if const or not terms:
        terms.append((None, const))
    return M.AtOp(at.base, terms)


def _clone_copy_ins(copy_ins: list[CopyIn], iv: SSAValue, at: SSAValue, namer: Namer, suffix: str) -> list[Operation]:
    """The copy-ins (their index arithmetic, allocation, copy and enque) for iteration `at`."""
    mapping: dict[SSAValue, SSAValue] = {iv: at}
    out: list[Operation] = []
    for c in copy_ins:
        for op in c.slice:
            clone = op.clone(value_mapper=mapping)
            if isinstance(clone, M.AtOp):
                folded = _folded_at(clone)
                clone.erase()
                clone = folded
            if isinstance(clone, M.ParamsOp):
                clone.properties["name"] = StringAttr(namer.fresh(f"{op.var.data}_{suffix}"))  # type: ignore[attr-defined]
            for old, new in zip(op.results, clone.results):
                mapping[old] = new
                new.name_hint = old.name_hint
            out.append(clone)
        alloc = M.AllocTensorOp(namer.fresh(f"{c.alloc.var.data}_{suffix}"), c.alloc.queue, c.alloc.result.type.element_type)
        alloc.result.name_hint = alloc.var.data
        mapping[c.alloc.result] = alloc.result
        out += [alloc, c.copy.clone(value_mapper=mapping), M.EnqueOp(c.enque.queue, alloc.result)]
    return out


def _guarded(ops: list[Operation], lhs: SSAValue, rhs: SSAValue, name: str) -> list[Operation]:
    """`if (lhs < rhs) { ops }`"""
    cmp = arith.CmpiOp(lhs, rhs, "slt")
    cmp.result.name_hint = name
    return [cmp, scf.IfOp(cmp.result, [], [*ops, scf.YieldOp()])]


@dataclass
class PrefetchCopyIns(RewritePattern):
    """One `scf.for`: its prefetchable copy-ins, moved (see the module docstring)."""

    written: set[SSAValue]
    namer: Namer

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.ForOp, rewriter: PatternRewriter) -> None:
        lb, ub = _constant(loop.lb), _constant(loop.ub)
        if lb is not None and ub is not None and lb >= ub:
            return  # never runs
        copy_ins = _copy_ins(loop, self.written)
        if not copy_ins:
            return
        body = loop.body.block
        iv = body.args[0]
        first = _clone_copy_ins(copy_ins, iv, loop.lb, self.namer, "first")
        static = lb is not None and ub is not None
        rewriter.insert(first if static else _guarded(first, loop.lb, loop.ub, "has_first"), InsertPoint.before(loop))
        nxt = arith.AddiOp(iv, loop.step)
        nxt.result.name_hint = f"{iv.name_hint or 'i'}_next"
        ahead = _clone_copy_ins(copy_ins, iv, nxt.result, self.namer, "next")
        rewriter.insert([nxt, *_guarded(ahead, nxt.result, loop.ub, "has_next")], InsertPoint.at_start(body))
        for c in copy_ins:
            head = M.DequeHeadOp(c.alloc.var.data, c.alloc.queue, c.alloc.result.type.element_type)
            rewriter.replace(c.deque, head)
            head.result.name_hint = c.alloc.var.data
            for op in (c.enque, c.copy, c.alloc):
                rewriter.erase(op)
            for op in reversed(c.slice):
                if all(not r.uses for r in op.results):
                    rewriter.erase(op)


def prefetch_kernel(kernel: KernelOp) -> None:
    """Pipeline every eligible loop of the kernel. A pipelined loop has no paired copy-in
    left, so running again changes nothing."""
    pattern = PrefetchCopyIns(_written_roots(kernel), kernel_names(kernel))
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_region(kernel.body)


@dataclass(frozen=True)
class AscendCPrefetchCopyInPass(ModulePass):
    """`ascendc-prefetch-copy-in`."""

    name = "ascendc-prefetch-copy-in"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            if isinstance(kernel, KernelOp):
                prefetch_kernel(kernel)
