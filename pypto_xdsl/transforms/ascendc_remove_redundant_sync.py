"""ascendc-remove-redundant-sync: drop synchronisation nothing needs.

* A `SetFlag<MTE3_MTE2>`/`WaitFlag` pair (and its event id) orders the copies-out before
  it against later copies-in; it is redundant when no copy-in of a GlobalTensor those
  copies-out wrote can run after it: none later in program order and none in a loop that
  encloses it (its next iteration). Typically the pair after a kernel's last store.
* A `PipeBarrier<PIPE_V>` before a vector instruction is redundant when that instruction
  does not conflict with the vector accesses since the last barrier kept (an earlier
  barrier already implies it): the analysis of ascendc-insert-sync, with the barriers it
  keeps clearing the pending accesses. Barriers that guard no instruction directly are kept.

Both are decided on the whole kernel (dataflow), then removed; running the pass again
removes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from pypto_xdsl.analysis.ascendc_pipes import (
    NONE,
    Pending,
    VectorOrder,
    add,
    conflicts,
    enclosing_loops,
    guarded_instruction,
    mte2_read,
    mte3_write,
    vector_access,
)
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import HardEvent


def _preorder(kernel: KernelOp) -> dict[Operation, int]:
    return {op: k for k, op in enumerate(kernel.walk())}


def _stores_before(set_flag: S.SetFlagOp) -> set[SSAValue]:
    """GlobalTensors written by the copies-out the flag orders: back to the previous wait."""
    roots: set[SSAValue] = set()
    op = set_flag.prev_op
    while op is not None:
        if isinstance(op, S.WaitFlagOp) and op.hard_event == HardEvent.MTE3_MTE2:
            break
        for inner in op.walk():
            if (r := mte3_write(inner)) is not None:
                roots.add(r)
        op = op.prev_op
    return roots


def redundant_flags(kernel: KernelOp) -> list[S.SetFlagOp]:
    order = _preorder(kernel)
    reads: dict[SSAValue, list[Operation]] = {}
    for op in kernel.walk():
        if (r := mte2_read(op)) is not None:
            reads.setdefault(r, []).append(op)
    out = []
    for op in kernel.walk():
        if not isinstance(op, S.SetFlagOp) or op.hard_event != HardEvent.MTE3_MTE2:
            continue
        stored = _stores_before(op)
        if not stored:
            continue  # orders something we cannot see: keep
        loops = set(enclosing_loops(op))
        needed = False
        for root in stored:
            for load in reads.get(root, ()):
                if order[load] > order[op] or loops & set(enclosing_loops(load)):
                    needed = True
        if not needed:
            out.append(op)
    return out


def _remove_pair(set_flag: S.SetFlagOp) -> None:
    event_id = set_flag.id
    users = [u.operation for u in event_id.uses]
    for user in users:
        if isinstance(user, S.SetFlagOp | S.WaitFlagOp | S.ReleaseEventIdOp):
            user.detach()
            user.erase()
    owner = event_id.owner
    if isinstance(owner, Operation) and not any(True for _ in event_id.uses):
        owner.detach()
        owner.erase()


def redundant_barriers(kernel: KernelOp) -> list[Operation]:
    """Barriers that guard an instruction not conflicting with the accesses since the last
    barrier kept (decided by the last pass over each loop body)."""
    keep: dict[Operation, bool] = {}
    guards: dict[Operation, list[Operation]] = {}
    for op in kernel.walk():
        if isinstance(op, S.PipeBarrierOp):
            target = guarded_instruction(op)
            if target is not None:
                guards.setdefault(target, []).append(op)
            else:
                keep[op] = True

    guarded = {b for bs in guards.values() for b in bs}

    def instruction(op: Operation, state: Pending) -> Pending:
        reads, writes = vector_access(op)
        barriers = guards.get(op, [])
        if barriers:
            need = conflicts(state, reads, writes)
            for k, b in enumerate(barriers):
                keep[b] = need and k == 0
            if need:
                state = NONE
        return add(state, reads, writes)

    def barrier(op: Operation, state: Pending) -> Pending:
        return state if op in guarded else NONE

    VectorOrder(instruction, barrier).run(kernel.body.block)
    return [b for b, k in keep.items() if not k]


def remove_redundant_sync(kernel: KernelOp) -> None:
    for set_flag in redundant_flags(kernel):
        _remove_pair(set_flag)
    for b in redundant_barriers(kernel):
        b.detach()
        b.erase()


def remove_module(module: ModuleOp) -> None:
    for op in module.body.block.ops:
        if isinstance(op, KernelOp):
            remove_redundant_sync(op)


@dataclass(frozen=True)
class AscendCRemoveRedundantSyncPass(ModulePass):
    """`ascendc-remove-redundant-sync`."""

    name = "ascendc-remove-redundant-sync"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        remove_module(op)


__all__ = ["AscendCRemoveRedundantSyncPass", "remove_redundant_sync", "Block"]
