"""Static metrics of an `ascendc.kernel`: what one block executes, counted on the IR.

Each instruction op counts once per execution: an op in `scf.for` loops with constant bounds
counts their trip counts' product. A loop with run-time bounds, an `scf.while` or an `scf.if`
makes the counts depend on the data; the kernel is then counted as if each such loop ran once
and both branches of each `if` ran, and the counts are marked `exact = False` (not a bound
either way: a run-time loop may run zero or many times).

The categories are the simulation's counters (`sim/include/pypto_sim/cost.h`) so that the
two can be compared: DMA instructions (GM <-> local copies and Fixpipes), vector
instructions (`ascendc.*` vector ops and local copies on the vector unit), Mmads, L1 -> L0
loads, Fixpipes, PIPE_V and PIPE_ALL barriers, SetFlag / WaitFlag, EnQue / DeQue, and the
on-chip memory the plan uses. Bytes, bursts and repeats, which depend on the parameter
structs, are the simulation's only (docs/performance.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Operation

from pypto_xdsl.analysis.ascendc_kernel import const_value
from pypto_xdsl.analysis.ascendc_pipes import is_vector_instruction, mte2_read, mte3_write
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import Pipe

COUNTERS = (
    "dma", "vec", "mmad", "mte1", "fixpipe", "barriers_v", "barriers_all",
    "set_flags", "wait_flags", "enques", "deques", "cross_sets", "cross_waits",
)
"""The counters, named as the simulation's (`KernelProfile.counters`)."""


@dataclass
class KernelMetrics:
    """One block's counts of a kernel (see the module docstring)."""

    kernel: str
    counts: Counter[str] = field(default_factory=Counter)
    exact: bool = True
    memory: dict[str, tuple[int, int]] = field(default_factory=dict)
    """memory -> (bytes used, capacity), from the kernel's buffer plan."""

    def lines(self) -> list[str]:
        c = self.counts
        how = "per block" if self.exact else "per block, each run-time loop once and both branches of each if"
        lines = [f"static counts ({how}):"]
        if self.memory:
            lines.append("  on-chip memory: " + ", ".join(
                f"{m} {used}/{cap} ({used / cap * 100:.0f}%)" for m, (used, cap) in self.memory.items()))
        lines.append(f"  DMA {c['dma']} (of which Fixpipe {c['fixpipe']}), vector {c['vec']}, "
                     f"Mmad {c['mmad']}, LoadData {c['mte1']}")
        lines.append(
            f"  sync: {c['barriers_v']} PipeBarrier<PIPE_V>, {c['barriers_all']} PipeBarrier<PIPE_ALL>, "
            f"{c['set_flags']} SetFlag / {c['wait_flags']} WaitFlag, {c['enques']} EnQue / {c['deques']} DeQue"
            + (f", {c['cross_sets']} CrossCoreSetFlag / {c['cross_waits']} CrossCoreWaitFlag"
               if c["cross_sets"] or c["cross_waits"] else "")
        )
        return lines


def _category(op: Operation) -> tuple[str, ...]:
    if isinstance(op, C.FixpipeOp):
        return ("dma", "fixpipe")
    if mte2_read(op) is not None or mte3_write(op) is not None:
        return ("dma",)
    if isinstance(op, C.MmadOp):
        return ("mmad",)
    if isinstance(op, C.L1ToL0LoadOp):
        return ("mte1",)
    if is_vector_instruction(op):
        return ("vec",)
    if isinstance(op, S.PipeBarrierOp):
        if op.pipe_kind == Pipe.PIPE_V:
            return ("barriers_v",)
        return ("barriers_all",) if op.pipe_kind == Pipe.PIPE_ALL else ()
    if isinstance(op, S.SetFlagOp):
        return ("set_flags",)
    if isinstance(op, S.WaitFlagOp):
        return ("wait_flags",)
    if isinstance(op, S.CrossCoreSetFlagOp):
        return ("cross_sets",)
    if isinstance(op, S.CrossCoreWaitFlagOp):
        return ("cross_waits",)
    if isinstance(op, M.EnqueOp):
        return ("enques",)
    if isinstance(op, M.DequeOp | M.DequeHeadOp):
        return ("deques",)
    return ()


def _trips(loop: scf.ForOp) -> int | None:
    lb, ub, step = const_value(loop.lb), const_value(loop.ub), const_value(loop.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def kernel_metrics(kernel: KernelOp) -> KernelMetrics:
    metrics = KernelMetrics(kernel.sym_name.data)
    metrics.memory = {m.value: v for m, v in kernel.memory().items()}

    def visit(op: Operation, times: int) -> bool:
        """Count `op` run `times` times; whether it holds an instruction."""
        names = _category(op)
        for name in names:
            metrics.counts[name] += times
        inner, data_dependent = times, isinstance(op, scf.WhileOp | scf.IfOp)
        if isinstance(op, scf.ForOp):
            trips = _trips(op)
            if trips is None:
                data_dependent = True
            else:
                inner = times * trips
        holds = False
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    holds = visit(nested, inner) or holds
        if holds and data_dependent:
            metrics.exact = False  # only instructions under data-dependent control make counts uncertain
        return bool(names) or holds

    for op in kernel.body.block.ops:
        visit(op, 1)
    return metrics


__all__ = ["COUNTERS", "KernelMetrics", "kernel_metrics"]
