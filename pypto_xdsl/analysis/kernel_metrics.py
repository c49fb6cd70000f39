"""Static metrics of an `ascendc.kernel`: what one block executes, counted on the IR.

Each instruction op counts once per execution: an op in `scf.for` loops with constant bounds
counts their trip counts' product. A loop with run-time bounds, an `scf.while` or an `scf.if`
makes the counts depend on the data; the kernel is then counted as if each such loop ran once
and both branches of each `if` ran, and the counts are marked `exact = False` (not a bound
either way: a run-time loop may run zero or many times).

The categories are the simulation's counters (`sim/include/pypto_sim/cost.h`) so that the
two can be compared: DMA instructions (GM <-> local copies and Fixpipes), vector
instructions (`ascendc.*` vector ops and local copies on the vector unit), Mmads, L1 -> L0
loads, Fixpipes, PIPE_V and PIPE_ALL barriers, SetFlag / WaitFlag, EnQue / DeQue, the
on-chip memory the plan uses, and the GM side of every DMA: bytes read and written and
bursts (rows) with their sizes, read off the copy's parameters (`DataCopyParams`,
`DataCopyExtParams`, `Nd2NzParams`, `FixpipeParamsV220`; one burst for a counted copy), as
the simulation counts them. A copy whose rows or row length are known only at run time (a
partial tile's valid extent) is counted apart (`gm_runtime`), its bytes not included. Vector
repeats are read off each vector instruction as the simulation counts them: a static
`repeat` (level 0, reductions, Brcb), else a level-2 `count` in 256-byte repeats (a Cast in
those of its wider type); an instruction of another form (run-time repeats, a select, a
compare) is counted apart (`vec_runtime`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from pypto_xdsl.analysis.ascendc_kernel import const_value
from pypto_xdsl.analysis.ascendc_pipes import is_vector_instruction, mte2_read, mte3_write
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import LocalTensorType, Pipe

COUNTERS = (
    "dma", "vec", "mmad", "mte1", "fixpipe", "barriers_v", "barriers_all",
    "set_flags", "wait_flags", "enques", "deques", "cross_sets", "cross_waits",
    "gm_read", "gm_written", "dma_bursts", "vec_repeats",
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
    bursts: tuple[int, int] | None = None
    """The smallest and largest DMA burst (bytes) of the copies of static size."""
    gm_runtime: int = 0
    """DMA instructions whose size is known only at run time (not in the byte counts)."""
    vec_runtime: int = 0
    """Vector instructions whose repeats are not read statically (not in `vec_repeats`)."""

    def lines(self) -> list[str]:
        c = self.counts
        how = "per block" if self.exact else "per block, each run-time loop once and both branches of each if"
        lines = [f"static counts ({how}):"]
        if self.memory:
            lines.append("  on-chip memory: " + ", ".join(
                f"{m} {used}/{cap} ({used / cap * 100:.0f}%)" for m, (used, cap) in self.memory.items()))
        lines.append(f"  DMA {c['dma']} (of which Fixpipe {c['fixpipe']}), vector {c['vec']}, "
                     f"Mmad {c['mmad']}, LoadData {c['mte1']}")
        if c["dma"]:
            sizes = f", burst {self.bursts[0]}..{self.bursts[1]} B" if self.bursts else ""
            mean = (c["gm_read"] + c["gm_written"]) / c["dma_bursts"] if c["dma_bursts"] else 0
            lines.append(
                f"  GM: read {format_bytes(c['gm_read'])}, written {format_bytes(c['gm_written'])}, "
                f"{c['dma_bursts']} bursts{sizes} (mean {mean:.0f} B)"
                + (f"; {self.gm_runtime} DMA of run-time size not counted" if self.gm_runtime else "")
            )
        if c["vec"]:
            lines.append(f"  vector repeats {c['vec_repeats']}"
                         + (f" ({self.vec_runtime} instructions of other forms not counted)" if self.vec_runtime else ""))
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


def format_bytes(n: float) -> str:
    """`n` bytes in the largest binary unit it fills (the metrics' and profile reports' form)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


def _static(value: object) -> int | None:
    if isinstance(value, SSAValue):
        return const_value(value)
    return int(value)  # type: ignore[call-overload]


def gm_transfer(op: Operation) -> tuple[bool, int | None, int | None] | None:
    """A DMA's GM side: (whether it reads GM, bursts, bytes per burst), as the simulation
    counts them; None for an op that moves nothing to or from GM; None counts for a field
    known only at run time."""
    if isinstance(op, C.FixpipeOp):
        struct = op.params.owner
        assert isinstance(struct, M.ParamsOp)
        f = dict(struct.all_items())
        m, n = _static(f.get("mSize", 0)), _static(f.get("nSize", 0))
        return False, m, None if n is None else n * op.dst.type.element_bytes  # type: ignore[union-attr]
    read = mte2_read(op) is not None
    if not read and mte3_write(op) is None:
        return None
    if isinstance(op, M.DataCopyPadOp):
        ext = [v.value.data for v in op.ext.data]
        runtime = op.runtime_fields
        count = const_value(runtime["blockCount"]) if "blockCount" in runtime else ext[0]
        length = const_value(runtime["blockLen"]) if "blockLen" in runtime else ext[1]
        return read, count, length
    assert isinstance(op, M.DataCopyOp)
    eb = op.dst.type.element_bytes  # type: ignore[union-attr]
    if op.count is not None:
        return read, 1, op.count.value.data * eb
    if op.params is not None:
        count, length = (v.value.data for v in op.params.data[:2])
        return read, count, length * 32
    struct = op.struct_params.owner if op.struct_params is not None else None
    assert isinstance(struct, M.ParamsOp)  # Nd2NzParams: ndNum matrices of nValue rows of dValue elements
    f = dict(struct.all_items())
    nd, rows, cols = (_static(f.get(k, 1 if k == "ndNum" else 0)) for k in ("ndNum", "nValue", "dValue"))
    return read, None if nd is None or rows is None else nd * rows, None if cols is None else cols * eb


def vector_repeats(op: Operation) -> int | None:
    """A vector instruction's repeats as the simulation counts them, None when not static or
    of another form."""
    props = op.properties
    if isinstance(op, M.DataCopyOp):  # UB -> UB on the vector unit
        count = op.count.value.data if op.count is not None else None
        return None if count is None else -(-count * op.dst.type.element_bytes // 256)  # type: ignore[union-attr]
    repeat, count = props.get("repeat"), props.get("count")
    if isinstance(repeat, IntegerAttr):  # level 0, a reduction, a broadcast: its repeat times
        return repeat.value.data
    if isinstance(count, IntegerAttr) and op.operands:
        widths = [v.type.element_bytes for v in op.operands if isinstance(v.type, LocalTensorType)]
        eb = max(widths) if isinstance(op, C.CastOp) else op.operands[0].type.element_bytes  # type: ignore[attr-defined]
        return -(-count.value.data * eb // 256)
    return None


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
        if "vec" in names:
            repeats = vector_repeats(op)
            if repeats is None:
                metrics.vec_runtime += times
            else:
                metrics.counts["vec_repeats"] += times * repeats
        transfer = gm_transfer(op) if "dma" in names else None
        if transfer is not None:
            read, bursts, size = transfer
            if bursts is None or size is None:
                metrics.gm_runtime += times
            elif bursts and size:  # a copy of size 0 is the NOP its page documents
                metrics.counts["gm_read" if read else "gm_written"] += times * bursts * size
                metrics.counts["dma_bursts"] += times * bursts
                low, high = metrics.bursts or (size, size)
                metrics.bursts = (min(low, size), max(high, size))
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


__all__ = ["COUNTERS", "KernelMetrics", "format_bytes", "gm_transfer", "kernel_metrics"]
