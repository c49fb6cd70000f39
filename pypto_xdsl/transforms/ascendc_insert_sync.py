"""ascendc-insert-sync: make the pipeline hand-offs of every `ascendc.kernel` explicit.

The pipes of an AI Core (MTE2 copies in, V computes, MTE3 copies out; on the cube MTE2 ->
MTE1 -> M -> FIX) run concurrently; the kernel orders them in three ways, each inserted per
site by a RewritePattern:

* **queue hand-offs** (the TPipe/TQue paradigm): after the copy that fills a VECIN/A1/B1
  tensor and after the LoadData (3D v2, or a 2D loop) that fills an A2/B2 tensor, `enque` + `deque` on its
  queue (after the L1 -> bias-table copy filling a C2 tensor too: MTE1 -> M); before the copy-out of a VECOUT tensor and before the Fixpipe of a CO1 tensor, the
  same. Later uses read the dequeued tensor;
  A chunk of a resident L1 panel (convert-pypto-to-ascendc copies it in the first N block,
  followed by SetFlag/WaitFlag<MTE2_MTE1>) is already synchronised and gets none;
* **flags**: after a copy-out into a GlobalTensor the kernel also reads (MTE3 then MTE2 on
  the same GM), `SetFlag<HardEvent::MTE3_MTE2>`/`WaitFlag` with an event id taken from the
  TPipe (`FetchEventID`: the wait follows at once, so the id is only borrowed; the queues
  reserve theirs with AllocEventID from the same pool, which a hard-coded EVENT_ID0 could
  collide with). Conservative: every such copy-out gets one; ascendc-remove-redundant-sync
  drops those with no later read;
* **PIPE_V barriers**: a `PipeBarrier<PIPE_V>` before every vector instruction that
  depends on an earlier one (analysis/ascendc_pipes.py) with no queue hand-off in between,
  placed before that instruction's declarations. Conservative too: the remove pass keeps
  only the barriers no earlier barrier already implies. Option `pipe-v-barriers=false`
  leaves them to the toolchain (the kernel's `sync` is then "auto").

The kernel's `sync` records that this pass ran; running it again changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.ascendc_pipes import (
    Pending,
    VectorOrder,
    add,
    barrier_point,
    buffer_of,
    conflicts,
    is_v_barrier,
    mte2_read,
    mte3_write,
    vector_access,
)
from pypto_xdsl.analysis.cxx_names import BackendError, Namer
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import HardEvent, LocalTensorType, Pipe, TPosition
from pypto_xdsl.transforms.ascendc_plan_buffers import kernel_names

_PRODUCED_IN = (TPosition.VECIN, TPosition.A1, TPosition.B1, TPosition.C1)  # filled by MTE2
_PRODUCED_L0 = (TPosition.A2, TPosition.B2)  # filled by MTE1 (LoadData)
_PRODUCED_BT = (TPosition.C2,)  # filled by MTE1 (DataCopy L1 -> bias table)


def _kernel_of(op: Operation) -> KernelOp | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, KernelOp):
        p = p.parent_op()
    return p


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _handle(value: SSAValue) -> SSAValue:
    """The tensor a subtensor (`ascendc.at`) is part of."""
    return M.base_tensor(value)


def _origin(value: SSAValue) -> M.AllocTensorOp | None:
    owner = value.owner
    return owner if isinstance(owner, M.AllocTensorOp) else None


def _read_dequeued_after(tensor: SSAValue, enque: Operation, deque: M.DequeOp, block: Block) -> None:
    """Uses of `tensor` after `deque` (in `block`, nested ones included) read the dequeued tensor."""
    order = {o: k for k, o in enumerate(block.ops)}
    start = order[deque]

    def after(use) -> bool:
        if use.operation in (enque, deque):
            return False
        anc = _ancestor_in(use.operation, block)
        return anc is not None and order[anc] > start

    tensor.replace_uses_with_if(deque.result, after)


def _hand_off(rewriter: PatternRewriter, queue: SSAValue, tensor: SSAValue, point: InsertPoint,
              users_after: Operation) -> None:
    """`enque` + `deque` at `point`; uses of `tensor` from `users_after` on read the dequeued one."""
    enque = M.EnqueOp(queue, tensor)
    deque = M.DequeOp(queue, tensor)
    deque.result.name_hint = tensor.name_hint
    rewriter.insert([enque, deque], point)
    block = deque.parent_block()
    assert block is not None
    _read_dequeued_after(tensor, enque, deque, block)
    del users_after


def _hand_off_deferred(rewriter: PatternRewriter, queue: SSAValue, tensor: SSAValue, producer: Operation) -> None:
    """`enque` right after `producer`, `deque` right before the first later use of `tensor`
    (before that use's declarations): the cube stages of one step (A and B copies, their
    LoadData) are all issued before the scalar unit waits on the first of them, as the
    samples' CopyIn / Split / Compute stages do."""
    block = producer.parent_block()
    assert block is not None
    order = {o: k for k, o in enumerate(block.ops)}
    later = [a for u in tensor.uses if (a := _ancestor_in(u.operation, block)) is not None and order[a] > order[producer]]
    if not later:
        _hand_off(rewriter, queue, tensor, InsertPoint.after(producer), producer)
        return
    first = min(later, key=order.__getitem__)
    while first.prev_op is not None and first.prev_op is not producer and isinstance(
        first.prev_op, M.AtOp | M.ReinterpretCastOp | M.ParamsOp | arith.ConstantOp
    ):
        first = first.prev_op  # before the consumer's declarations and loop bounds
    enque = M.EnqueOp(queue, tensor)
    deque = M.DequeOp(queue, tensor)
    deque.result.name_hint = tensor.name_hint
    rewriter.insert(enque, InsertPoint.after(producer))
    rewriter.insert(deque, InsertPoint.before(first))
    _read_dequeued_after(tensor, enque, deque, block)


def _already_handed_off(tensor: SSAValue) -> bool:
    return any(isinstance(u.operation, M.EnqueOp) for u in tensor.uses)


def _flagged_chunk(copy: Operation) -> bool:
    """A copy the kernel lowering synchronised itself: a chunk of a resident L1 panel, followed
    by SetFlag/WaitFlag<MTE2_MTE1> (its panel is read chunk by chunk, never handed off whole)."""
    nxt = copy.next_op
    while isinstance(nxt, S.FetchEventIdOp):
        nxt = nxt.next_op
    return isinstance(nxt, S.SetFlagOp) and nxt.event.data == HardEvent.MTE2_MTE1


class HandOffAfterProducer(RewritePattern):
    """MTE2 -> consumer: `enque`/`deque` right after the copy filling a VECIN/A1/B1/C1 tensor;
    MTE1 -> M: after the LoadData (loop) filling an A2/B2 tensor and the copy filling a C2 one."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "GM->local":
            if _flagged_chunk(op):
                return
            dst = _handle(op.dst)
            positions = _PRODUCED_IN
        elif isinstance(op, M.DataCopyOp) and op.direction == "local->local":
            dst = _handle(op.dst)
            positions = _PRODUCED_BT
        elif isinstance(op, C.L1ToL0LoadOp):
            dst = _handle(op.dst)
            positions = _PRODUCED_L0
        else:
            return
        alloc = _origin(dst)
        if alloc is None or alloc.queue.type.pos not in positions or _already_handed_off(dst):  # type: ignore[union-attr]
            return
        block = alloc.parent_block()
        assert block is not None
        anchor = _ancestor_in(op, block)
        assert anchor is not None
        if alloc.queue.type.pos == TPosition.VECIN:  # type: ignore[union-attr]
            _hand_off(rewriter, alloc.queue, dst, InsertPoint.after(anchor), anchor)
        else:
            _hand_off_deferred(rewriter, alloc.queue, dst, anchor)


def _hoisted(op: Operation) -> Operation:
    point = op
    while point.prev_op is not None and isinstance(point.prev_op, M.AtOp | M.ReinterpretCastOp | M.ParamsOp | M.SetAtomicAddOp):
        point = point.prev_op
    return point


class HandOffBeforeConsumer(RewritePattern):
    """V -> MTE3: `enque`/`deque` right before the copy-out of a VECOUT tensor; M -> FIX:
    before the Fixpipe of a CO1 tensor (and before the declarations of their operands)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "local->GM":
            src, positions = _handle(op.src), (TPosition.VECOUT,)
        elif isinstance(op, C.FixpipeOp):
            src, positions = _handle(op.src), (TPosition.CO1,)
        else:
            return
        alloc = _origin(src)
        if alloc is None or alloc.queue.type.pos not in positions or _already_handed_off(src):  # type: ignore[union-attr]
            return
        block = alloc.parent_block()
        assert block is not None
        anchor = _ancestor_in(_hoisted(op), block)
        assert anchor is not None
        _hand_off(rewriter, alloc.queue, src, InsertPoint.before(anchor), anchor)


@dataclass
class FlagStoreThenLoad(RewritePattern):
    """After a copy-out into a GlobalTensor the kernel also reads: SetFlag/WaitFlag<MTE3_MTE2>."""

    read_roots: set[SSAValue]
    namer: Namer
    pipe: SSAValue

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        root = mte3_write(op)
        if root is None or root not in self.read_roots:
            return
        point = op
        nxt = op.next_op
        if isinstance(nxt, M.FreeTensorOp) and _handle(nxt.tensor) is _handle(op.src):  # type: ignore[attr-defined]
            point = nxt
        after = point.next_op
        if isinstance(after, S.FetchEventIdOp | S.AllocEventIdOp) and after.event.data == HardEvent.MTE3_MTE2:
            return
        name = self.namer.fresh("event_mte3_mte2")
        fetch = S.FetchEventIdOp(name, HardEvent.MTE3_MTE2, self.pipe)
        fetch.result.name_hint = name
        rewriter.insert(
            [fetch, S.SetFlagOp(HardEvent.MTE3_MTE2, fetch.result), S.WaitFlagOp(HardEvent.MTE3_MTE2, fetch.result)],
            InsertPoint.after(point),
        )


def dependent_instructions(kernel: KernelOp) -> list[Operation]:
    """Vector instructions that depend on an earlier one with no queue hand-off in between
    (barriers not counted: the conservative placement)."""
    needs: dict[Operation, bool] = {}

    def instruction(op: Operation, state: Pending) -> Pending:
        reads, writes = vector_access(op)
        needs[op] = conflicts(state, reads, writes)
        return add(state, reads, writes)

    VectorOrder(instruction, lambda op, state: state).run(kernel.body.block)
    return [op for op in kernel.walk() if needs.get(op)]


def insert_barriers(kernel: KernelOp) -> None:
    for instr in dependent_instructions(kernel):
        point = barrier_point(instr)
        prev = point.prev_op
        if prev is not None and is_v_barrier(prev):
            continue
        block = point.parent_block()
        assert block is not None
        block.insert_op_before(S.PipeBarrierOp(Pipe.PIPE_V), point)


def sync_kernel(kernel: KernelOp, pipe_v_barriers: bool = True) -> None:
    """Insert the hand-offs, flags and (optionally) PIPE_V barriers of one kernel."""
    if kernel.sync is not None:
        return
    if kernel.memory_plan is None:
        raise BackendError(
            f"ascendc: @{kernel.sym_name.data} has no buffer plan ('memory_plan'); "
            "run ascendc-plan-buffers before ascendc-insert-sync"
        )
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier([HandOffAfterProducer(), HandOffBeforeConsumer()], dce_enabled=False), apply_recursively=False
    )
    walker.rewrite_region(kernel.body)
    read_roots = {r for op in kernel.walk() if (r := mte2_read(op)) is not None}
    pipes = [op.result for op in kernel.body.block.ops if isinstance(op, M.PipeOp)]
    if read_roots and pipes:
        PatternRewriteWalker(
            FlagStoreThenLoad(read_roots, kernel_names(kernel), pipes[0]), apply_recursively=False
        ).rewrite_region(kernel.body)
    if pipe_v_barriers:
        insert_barriers(kernel)
    kernel.sync = StringAttr("explicit" if pipe_v_barriers else "auto")


def sync_module(module: ModuleOp, pipe_v_barriers: bool = True) -> None:
    for op in module.body.block.ops:
        if isinstance(op, KernelOp):
            sync_kernel(op, pipe_v_barriers)


@dataclass(frozen=True)
class AscendCInsertSyncPass(ModulePass):
    """`ascendc-insert-sync{pipe-v-barriers=false}`."""

    name = "ascendc-insert-sync"

    pipe_v_barriers: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            sync_module(op, self.pipe_v_barriers)
        except BackendError as e:
            raise PassFailedException(f"{self.name}: {str(e).removeprefix('ascendc: ')}") from e


__all__ = ["AscendCInsertSyncPass", "sync_kernel", "buffer_of", "LocalTensorType", "scf"]
