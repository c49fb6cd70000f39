"""ascendc-plan-buffers: plan the on-chip buffers of every `ascendc.kernel` by transforming its
declarations.

`convert-pypto-to-ascendc` declares one buffer per tile, every queue with depth 1. For each
kernel without a `memory_plan` this pass:

* when the kernel's double-buffered plan does not fit otherwise (option `in-place`), gives an
  elementwise instruction's result the buffer of a source tile that dies at it: the result
  tile's TBuf goes, the instruction computes in place (`Add(a, a, b)`; a row broadcast's
  level-0 instructions each over their own elements, `Sub(x[64], x[64], brcb, ...)`), and
  the source's FreeTensor moves after the result's last use;
* shares cube queues used in turn: L1, L0A/L0B and L0C queues of one type whose uses follow
  each other (pair-cube-blocks' peeled K steps, the odd block after the pairs) become one,
  and so do tiles live at once in the same loops (the peeled steps' A tiles, the pair's
  accumulators), the queue keeping a buffer for each;
* shares a tail's queues: a VECIN/VECOUT queue used only in top-level branches after a loop
  (a partial tail) takes a same-position queue of the loop whose uses have all ended;
* shares TBufs: VECCALC buffers (not `fixed`, i.e. not holding a tile carried through a loop
  or branch) whose tensors' live ranges do not overlap become one TBuf (`calcBuf<k>`, the
  largest size, its `values` listing every tile). A tensor is live from its `get_buf` to the
  end of the last op, in the block of the `get_buf`, that uses it; ranges touching at one op
  never share, so no instruction reads and writes one buffer through two tensors;
* double-buffers: a queue whose tensors are allocated inside a loop gets depth 2
  (`TQue<P, 2>`, `InitBuffer(q, 2, bytes)`) when every buffer of its memory still fits (for
  CO1, two accumulators in L0C: one block's Fixpipe overlaps the next block's Mmads); an L1
  queue (A1/B1) gets depth 4 when L1 holds that (`L1_LOOP_DEPTH`: a K-step copy runs three
  steps ahead), else 2; otherwise every queue of that memory keeps depth 1; if that does not fit either the kernel
  is rejected, listing its buffers;
* records `memory_plan = {UB = {capacity, used}, ...}` on the kernel.

Capacities: UB 192 KiB (option `ub-bytes`), L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB. A kernel
using an API with hidden UB scratch on dav-c220 (`ascendc.select`: Select uses the top 8 KiB,
TMP_UB_OFFSET = 184 KiB) may plan only up to TMP_UB_OFFSET. A kernel that already has a
plan is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.ascendc_pipes import element_offset, enclosing_loops
from pypto_xdsl.analysis.cxx_names import BackendError, Namer, kernel_namer
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import (
    MEMORY_BYTES,
    POSITION_MEMORY,
    TMP_UB_OFFSET,
    LocalTensorType,
    Memory,
    QueueType,
    TPosition,
)

UB_BYTES = MEMORY_BYTES[Memory.UB]
_PLANNED_MEMORIES = (Memory.UB, Memory.L1, Memory.L0A, Memory.L0B, Memory.L0C, Memory.BT)

L1_LOOP_DEPTH = 4
"""Buffers of an L1 (A1/B1) queue refilled in a loop when L1 holds them: the K-step copies
read GM while the core's Fixpipe writes share its GM bandwidth, so each copy may run three
steps ahead of its LoadData instead of one (docs/performance.md, session 7)."""


@dataclass(frozen=True)
class Capacities:
    """Options of the plan: the UB size, whether loop queues may be double-buffered, and when
    results take the buffer of a source dying at them (`IN_PLACE_MODES`)."""

    ub_bytes: int = UB_BYTES
    double_buffer: bool = True
    in_place: str = "auto"

    def of(self, memory: Memory, reserved_ub: bool) -> int:
        if memory == Memory.UB:
            return min(self.ub_bytes, TMP_UB_OFFSET) if reserved_ub else self.ub_bytes
        return MEMORY_BYTES[memory]


def kernel_names(kernel: KernelOp) -> Namer:
    """A namer that knows every name the kernel already uses."""
    namer = kernel_namer(kernel.sym_name.data)
    if kernel.arg_names is not None:
        namer.used |= {n.data for n in kernel.arg_names.data}
    for arg in kernel.args:
        if arg.name_hint:
            namer.used.add(arg.name_hint)
    for op in kernel.walk():
        n = op.properties.get("name")
        if isinstance(n, StringAttr):
            namer.used.add(n.data)
    return namer


def _spans(kernel: KernelOp) -> dict[Operation, tuple[int, int]]:
    """Pre-order position of each op (start) and of the last op nested in it (end)."""
    spans: dict[Operation, tuple[int, int]] = {}
    counter = 0

    def visit(op: Operation) -> None:
        nonlocal counter
        start = counter
        counter += 1
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    visit(inner)
        spans[op] = (start, counter - 1)

    for op in kernel.body.block.ops:
        visit(op)
    return spans


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _users(value: SSAValue) -> list[Operation]:
    """The ops using a local tensor, through `ascendc.at` subtensors, reinterpret_cast views
    and deque hand-overs."""
    out: list[Operation] = []
    pending = [value]
    while pending:
        v = pending.pop()
        for use in v.uses:
            out.append(use.operation)
            if isinstance(use.operation, M.AtOp | M.ReinterpretCastOp | M.DequeOp):
                pending.extend(use.operation.results)
    return out


def live_range(tensor: SSAValue, spans: dict[Operation, tuple[int, int]]) -> tuple[int, int]:
    owner = tensor.owner
    assert isinstance(owner, Operation)
    block = owner.parent_block()
    assert block is not None
    start = spans[owner][0]
    end = start
    for user in _users(tensor):
        anc = _ancestor_in(user, block)
        if anc is not None:
            end = max(end, spans[anc][1])
    return start, end


def _in_loop(op: Operation, kernel: KernelOp) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


class KernelBuffers:
    """The kernel's buffer declarations and their InitBuffer calls."""

    def __init__(self, kernel: KernelOp):
        self.kernel = kernel
        self.decls: list[M.TQueOp | M.TBufOp] = []
        self.init: dict[SSAValue, M.InitBufferOp] = {}
        # queues some of whose tensors are live at once outside any loop of their own (two
        # L0A tiles of a pair's peeled K steps): the buffers `fit` must give them at least
        self.min_depth: dict[M.TQueOp, int] = {}
        for op in kernel.body.block.ops:
            if isinstance(op, M.TQueOp | M.TBufOp):
                self.decls.append(op)
            elif isinstance(op, M.InitBufferOp):
                self.init[op.buffer] = op
        for d in self.decls:
            if d.result not in self.init:
                raise BackendError(
                    f"ascendc: @{kernel.sym_name.data}: buffer '{d.var_name}' is declared but never initialised (InitBuffer)"
                )

    def memory(self, d: M.TQueOp | M.TBufOp) -> Memory:
        return POSITION_MEMORY[d.result.type.pos]  # type: ignore[union-attr]


IN_PLACE_MODES = ("auto", "always", "never")
"""auto: only when the kernel's double-buffered plan would not fit otherwise; always; never."""

# Instructions whose documentation allows a destination 100% overlapping a source in one
# iteration (the devkit's general address-overlap rule), level 2 or level 0 with the same
# strides for both; Cast changes the element size, Duplicate, reductions, Brcb and Select are
# not elementwise on one layout.
_IN_PLACE_OPS = (C.BinaryOp, C.UnaryOp, C.ScalarOp)


def _sole_get(d: M.TBufOp) -> M.GetBufOp | None:
    gets = [u.operation for u in d.result.uses if isinstance(u.operation, M.GetBufOp)]
    others = [u for u in d.result.uses if not isinstance(u.operation, M.GetBufOp | M.InitBufferOp)]
    return gets[0] if len(gets) == 1 and not others else None


def _storage_decl(tensor: SSAValue) -> M.TQueOp | M.TBufOp | None:
    """The declaration a whole local tensor comes from (an alloc from a queue or a Get)."""
    owner = tensor.owner
    if isinstance(owner, M.AllocTensorOp | M.GetBufOp):
        decl = (owner.queue if isinstance(owner, M.AllocTensorOp) else owner.buffer).owner
        if isinstance(decl, M.TQueOp | M.TBufOp):
            return decl
    return None


def _walk(inst: Operation, k: int) -> tuple[int, ...] | None:
    """How `inst` walks operand k: (offset, count) at level 2, (offset, mask, repeat, block
    stride, repeat stride) at level 0; None when the offset is not a constant."""
    off = element_offset(inst.operands[k])
    if off is None:
        return None
    count = inst.properties.get("count")
    if isinstance(count, IntegerAttr):
        return (off, count.value.data)
    mask, repeat = inst.properties["mask"], inst.properties["repeat"]
    params = [a.value.data for a in inst.properties["params"].data]  # type: ignore[union-attr]
    # BinaryRepeatParams: (dst, src0, src1) block strides, then their repeat strides;
    # UnaryRepeatParams (also the scalar forms): (dst, src) likewise
    n = sum(isinstance(o.type, LocalTensorType) for o in inst.operands)
    return (off, mask.value.data, repeat.value.data, params[k], params[k + n])  # type: ignore[union-attr]


def _positions(walk: tuple[int, ...], per_block: int) -> set[int]:
    """The elements an operand walk touches."""
    if len(walk) == 2:
        return set(range(walk[0], walk[0] + walk[1]))
    off, mask, repeat, blk, rep = walk
    return {
        off + r * rep * per_block + (e // per_block) * blk * per_block + e % per_block
        for r in range(repeat) for e in range(mask)
    }


def _tensor_uses(tensor: SSAValue) -> list[Operation] | None:
    """The ops using a whole local tensor directly or through constant `ascendc.at` windows
    (None when a window is used by something other than an instruction)."""
    out: list[Operation] = []
    for use in tensor.uses:
        op = use.operation
        if isinstance(op, M.AtOp):
            if element_offset(op.result) is None:
                return None
            for inner in op.result.uses:
                if not isinstance(inner.operation, C.VectorOp):
                    return None
                out.append(inner.operation)
        else:
            out.append(op)
    return out


def _reads_in_step(inst: Operation, result: SSAValue, src: SSAValue) -> int | None:
    """The operand through which `inst`, writing `result`, reads `src` element for element at
    the positions it writes (None if it reads `src` otherwise, or `result` at all)."""
    if not isinstance(inst, _IN_PLACE_OPS) or M.base_tensor(inst.operands[0]) is not result:
        return None
    readers = [k for k in range(1, len(inst.operands)) if isinstance(inst.operands[k].type, LocalTensorType)
               and M.base_tensor(inst.operands[k]) in (src, result)]
    if len(readers) != 1 or M.base_tensor(inst.operands[readers[0]]) is not src:
        return None
    dst_walk = _walk(inst, 0)
    return readers[0] if dst_walk is not None and _walk(inst, readers[0]) == dst_walk else None


def _in_place_source(
    result: SSAValue, buffers: KernelBuffers, spans: dict[Operation, tuple[int, int]]
) -> SSAValue | None:
    """A tile `result` may be computed over: the source that the first instruction writing
    `result` reads at the positions it writes, when every later use of that source is such an
    instruction (each reading the source where it writes `result`), the instructions writing
    `result` touch disjoint elements, and the source is a whole tile of the same element type
    in a buffer at least as big, defined in the same block."""
    block = result.owner.parent_block()  # type: ignore[union-attr]
    uses = _tensor_uses(result)
    if not uses or not all(isinstance(u, C.VectorOp) and u.parent_block() is block for u in uses):
        return None
    first = min(uses, key=lambda u: spans[u][0])
    writers = [u for u in uses if M.base_tensor(u.operands[0]) is result]
    if first not in writers:
        return None
    per_block = 32 // result.type.element_bytes  # type: ignore[attr-defined]
    written: set[int] = set()
    for w in writers:
        walk = _walk(w, 0) if isinstance(w, _IN_PLACE_OPS) else None
        if walk is None:
            return None
        cells = _positions(walk, per_block)
        if not written.isdisjoint(cells):
            return None
        written |= cells
    result_bytes = buffers.init[result.owner.buffer].bytes_per_buffer  # type: ignore[union-attr]
    for k in range(1, len(first.operands)):
        src = M.base_tensor(first.operands[k])
        if not isinstance(src.type, LocalTensorType) or src is result or _reads_in_step(first, result, src) != k:
            continue
        decl = _storage_decl(src)
        if decl is None or src.owner.parent_block() is not block:  # type: ignore[union-attr]
            continue
        if isinstance(decl, M.TBufOp) and (decl.fixed is not None or _sole_get(decl) is None):
            continue
        if src.type.element_type != result.type.element_type:  # type: ignore[union-attr]
            continue
        if buffers.init[decl.result].bytes_per_buffer < result_bytes:
            continue
        src_uses = _tensor_uses(src)
        if src_uses is None:
            continue
        frees = [u for u in src_uses if isinstance(u, M.FreeTensorOp)]
        if len(frees) != (1 if isinstance(decl, M.TQueOp) else 0) or any(f.parent_block() is not block for f in frees):
            continue
        later = [u for u in src_uses if not isinstance(u, M.FreeTensorOp)]
        anc = [_ancestor_in(u, block) for u in later]
        if any(a is None for a in anc):
            continue
        if all(spans[a][0] < spans[first][0] or (a in writers and _reads_in_step(a, result, src) is not None)  # type: ignore[index]
               for a in anc):
            return src
    return None


def compute_in_place(kernel: KernelOp, buffers: KernelBuffers) -> bool:
    """Results of elementwise instructions take the buffer of a source tile dying there.

    A VECCALC TBuf tile (not fixed, one Get) used only by vector instructions (directly or
    through constant `ascendc.at` windows) is replaced by the source `_in_place_source`
    finds: a level-2 instruction over a dying source (`Add(a, a, b)`), or the level-0
    instructions of a row broadcast, each over its own rows and columns of the source
    (`Sub(x[64], x[64], brcb, ...)`). Returns whether anything changed."""
    changed = False
    rewriter = Rewriter()
    progress = True
    while progress:
        progress = False
        spans = _spans(kernel)
        for d in list(buffers.decls):
            if not isinstance(d, M.TBufOp) or d.result.type.pos != TPosition.VECCALC or d.fixed is not None:  # type: ignore[union-attr]
                continue
            get = _sole_get(d)
            if get is None:
                continue
            result = get.result
            src = _in_place_source(result, buffers, spans)
            if src is None:
                continue
            block = get.parent_block()
            uses = _tensor_uses(result)
            assert uses is not None and block is not None
            last = max(uses, key=lambda u: spans[u][1])
            source_decl = _storage_decl(src)
            assert source_decl is not None
            for at in [u.operation for u in result.uses if isinstance(u.operation, M.AtOp)]:
                window = M.AtOp(src, at.term_list())  # the window's type is its base's
                window.result.name_hint = at.result.name_hint
                rewriter.replace_op(at, window)
            result.replace_all_uses_with(src)
            for free in [u.operation for u in src.uses if isinstance(u.operation, M.FreeTensorOp)]:
                if spans[free][0] < spans[last][1]:
                    free.detach()
                    rewriter.insert_op(free, InsertPoint.after(last))
            source_decl.properties["values"] = ArrayAttr(
                [StringAttr(v) for v in source_decl.held_values + d.held_values]
            )
            rewriter.erase_op(get)
            rewriter.erase_op(buffers.init.pop(d.result))
            rewriter.erase_op(d)
            buffers.decls.remove(d)
            changed = progress = True
            break
    return changed


_Buffer = TypeVar("_Buffer")


def _pack_spans(
    span: dict[_Buffer, tuple[int, int]], size: dict[_Buffer, int], may_share: Callable[[_Buffer, _Buffer], bool]
) -> tuple[list[_Buffer], dict[_Buffer, list[_Buffer]]]:
    """Greedy packing of buffers by live span, in order of their start: a buffer joins a pool
    whose last member ended before it starts (and that `may_share` allows), the smallest one big
    enough, else the biggest one, grown (`size` is updated to each pool's size). Returns every
    pool, in order, and the buffers folded into each."""
    pools: list[tuple[_Buffer, int]] = []  # (pool, end of its last member)
    members: dict[_Buffer, list[_Buffer]] = {}
    for d in sorted(span, key=lambda d: span[d][0]):
        start, end = span[d]
        free = [k for k, (pool, last) in enumerate(pools) if last < start and may_share(pool, d)]
        if not free:
            pools.append((d, end))
            continue
        fits = [k for k in free if size[pools[k][0]] >= size[d]]
        k = min(fits, key=lambda k: size[pools[k][0]]) if fits else max(free, key=lambda k: size[pools[k][0]])
        pool = pools[k][0]
        members.setdefault(pool, []).append(d)
        size[pool] = max(size[pool], size[d])
        pools[k] = (pool, end)
    return [pool for pool, _ in pools], members


def share_tbufs(kernel: KernelOp, buffers: KernelBuffers, namer: Namer) -> None:
    """VECCALC TBufs whose tensors' live ranges are disjoint share one TBuf."""
    spans = _spans(kernel)
    ranges: dict[M.TBufOp, tuple[int, int]] = {}
    for d in buffers.decls:
        if not isinstance(d, M.TBufOp) or d.result.type.pos != TPosition.VECCALC or d.fixed is not None:  # type: ignore[union-attr]
            continue
        gets = [u.operation for u in d.result.uses if isinstance(u.operation, M.GetBufOp)]
        if len(gets) != 1:
            continue
        ranges[d] = live_range(gets[0].result, spans)
    size: dict[M.TBufOp, int] = {d: buffers.init[d.result].bytes_per_buffer for d in ranges}
    pools, members = _pack_spans(ranges, size, lambda pool, d: True)
    if not members:
        return
    rewriter = Rewriter()
    for k, pool in enumerate(pools):
        group = members.get(pool)
        if not group:
            continue
        values = pool.held_values + [v for m in group for v in m.held_values]
        name = namer.fresh(f"calcBuf{k}")
        pool.properties["name"] = StringAttr(name)
        pool.properties["values"] = ArrayAttr([StringAttr(v) for v in values])
        pool.result.name_hint = name
        buffers.init[pool.result].properties["len"] = IntegerAttr(size[pool], i64)
        for m in group:
            init = buffers.init.pop(m.result)
            rewriter.erase_op(init)
            m.result.replace_all_uses_with(pool.result)
            rewriter.erase_op(m)
            buffers.decls.remove(m)


_SHARED_QUEUE_POSITIONS = (TPosition.VECIN, TPosition.VECOUT)


def share_queues(kernel: KernelOp, buffers: KernelBuffers) -> None:
    """VECIN / VECOUT queues used in disjoint spans of the kernel's top level share one queue.

    A queue is in use from the first to the last top-level op that touches it (its allocs,
    EnQue/DeQue hand-overs and frees, nested ops included); a later queue whose span starts
    after an earlier one's ends becomes that queue: every tensor of the earlier one is freed
    before the later one allocates, so the TQue's buffers are reused in turn. This is the
    partial tail after a loop of full blocks, whose tiles are other values than the loop's:
    it takes the loop's queues instead of its own. The shared queue is sized for the larger
    of its members (and double-buffered as its loop members ask, by `fit`)."""
    block = kernel.body.block
    spans = _spans(kernel)
    span: dict[M.TQueOp, tuple[int, int]] = {}
    looped: set[M.TQueOp] = set()  # used in a top-level loop
    tail: set[M.TQueOp] = set()  # used only in top-level branches
    for d in buffers.decls:
        if not isinstance(d, M.TQueOp) or d.result.type.pos not in _SHARED_QUEUE_POSITIONS:  # type: ignore[union-attr]
            continue
        tops = [_ancestor_in(u.operation, block) for u in d.result.uses if not isinstance(u.operation, M.InitBufferOp)]
        if not tops or any(t is None for t in tops):
            continue
        span[d] = (min(spans[t][0] for t in tops), max(spans[t][1] for t in tops))  # type: ignore[index]
        if any(isinstance(t, scf.ForOp | scf.WhileOp) for t in tops):
            looped.add(d)
        if all(isinstance(t, scf.IfOp) for t in tops):
            tail.add(d)
    size = {d: buffers.init[d.result].bytes_per_buffer for d in span}
    # only a tail after a loop: straight-line tiles keep their own queues, so the copy of one
    # can overlap the compute of another (a shared buffer would order the pipes)
    _, members = _pack_spans(
        span, size, lambda pool, d: pool.result.type == d.result.type and pool in looped and d in tail
    )
    rewriter = Rewriter()
    for pool, group in members.items():
        pool.properties["values"] = ArrayAttr(
            [StringAttr(v) for v in dict.fromkeys(pool.held_values + [v for m in group for v in m.held_values])]
        )
        buffers.init[pool.result].properties["len"] = IntegerAttr(size[pool], i64)
        for m in group:
            rewriter.erase_op(buffers.init.pop(m.result))
            m.result.replace_all_uses_with(pool.result)
            rewriter.erase_op(m)
            buffers.decls.remove(m)


_CUBE_QUEUE_POSITIONS = (TPosition.A1, TPosition.B1, TPosition.A2, TPosition.B2, TPosition.CO1)


def _loops_of(users: list[Operation]) -> tuple[set[Operation], set[Operation]]:
    """The loops around some of `users`, and those around all of them."""
    loops = [set(enclosing_loops(op)) for op in users]
    return set.union(*loops), set.intersection(*loops)


def _in_turn(first: tuple[set[Operation], set[Operation]], then: tuple[set[Operation], set[Operation]]) -> bool:
    """Whether every tensor of a queue whose users are in the loops `first` (`_loops_of`) is
    freed before one of `then`'s allocates, every time they run: in a loop around both, both
    run wholly inside it, and no local tensor is carried from one iteration to the next
    (which could outlive its span)."""
    around = first[1] & then[1]
    if (first[0] & then[0]) - around:
        return False
    for loop in around:
        carried = loop.body.block.args[1:] if isinstance(loop, scf.ForOp) else loop.before_region.block.args
        if any(isinstance(a.type, LocalTensorType) for a in carried):
            return False
    return True


def share_sequential_cube_queues(kernel: KernelOp, buffers: KernelBuffers) -> None:
    """Cube queues (L1, L0A/L0B, L0C) of one type used one after the other share one queue.

    pair-cube-blocks peels the last K steps of a pair of blocks and leaves an odd block to the
    original loop: each has its own L0A, L0B, L1 and L0C tiles, used in spans that follow each
    other in program order. Their queues become one (its buffers reused in turn, double-buffered
    as its loop members ask, by `fit`) when every use of one precedes every use of the other
    and `_in_turn` holds. Tiles of one size whose spans overlap join too when all their queue
    operations sit in the same loops and their EnQue..DeQue spans do not interleave (the pair's
    peeled steps hold two A tiles at once, each used by both blocks; the pair's two
    accumulators): the queue keeps at least as many buffers as are live at once, the bytes of
    one queue each."""
    spans = _spans(kernel)
    users: dict[M.TQueOp, list[Operation]] = {}
    for d in buffers.decls:
        if isinstance(d, M.TQueOp) and d.result.type.pos in _CUBE_QUEUE_POSITIONS:  # type: ignore[union-attr]
            ops = [u.operation for u in d.result.uses if not isinstance(u.operation, M.InitBufferOp)]
            if ops:
                users[d] = ops
    span = {d: (min(spans[o][0] for o in ops), max(spans[o][1] for o in ops)) for d, ops in users.items()}
    loops = {d: _loops_of(ops) for d, ops in users.items()}

    def straight(d: M.TQueOp) -> bool:  # all its users inside the same loops
        return loops[d][0] == loops[d][1]

    def size(d: M.TQueOp) -> int:
        return buffers.init[d.result].bytes_per_buffer

    def hand_overs(d: M.TQueOp) -> tuple[int, int]:
        marks = [spans[o][0] for o in users[d] if isinstance(o, M.EnqueOp | M.DequeOp | M.DequeHeadOp)]
        return (min(marks), max(marks)) if marks else (span[d][0], span[d][0])

    # from each queue's first EnQue to its last DeQue: a FIFO queue hands two queues' tensors
    # back in their order only if these do not interleave
    in_flight = {d: hand_overs(d) for d in users}

    def disjoint(a: tuple[int, int], b: tuple[int, int]) -> bool:
        return a[1] < b[0] or b[1] < a[0]

    pools: list[list[M.TQueOp]] = []
    live: dict[M.TQueOp, int] = {}  # by the pool's first queue: the most of its tensors live at once
    for d in sorted(span, key=lambda d: span[d][0]):
        for pool in pools:
            if pool[0].result.type != d.result.type or not all(_in_turn(loops[m], loops[d]) for m in pool):
                continue
            # the pool's members are sorted by start: those overlapping d all hold d's start
            overlapping = [m for m in pool if span[m][1] >= span[d][0]]
            # tensors live at once join only when none rotates inside a loop the other spans
            # (a product per iteration of a loop an accumulator spans keeps its own buffers)
            if overlapping and not (straight(d) and all(
                loops[m] == loops[d] and size(m) == size(d) and disjoint(in_flight[m], in_flight[d]) for m in overlapping
            )):
                continue
            pool.append(d)
            live[pool[0]] = max(live.get(pool[0], 1), 1 + len(overlapping))
            break
        else:
            pools.append([d])
    for keep, *others in pools:
        for other in others:
            _fold_queue(buffers, keep, other)
        if live.get(keep, 1) > 1:
            buffers.min_depth[keep] = max(buffers.min_depth.get(keep, 1), live[keep])


def _fold_queue(buffers: KernelBuffers, keep: M.TQueOp, other: M.TQueOp) -> None:
    """`other` becomes `keep`: its tiles, its uses, the larger of the two buffer sizes."""
    size = max(buffers.init[keep.result].bytes_per_buffer, buffers.init[other.result].bytes_per_buffer)
    if other in buffers.min_depth:
        buffers.min_depth[keep] = max(buffers.min_depth.get(keep, 1), buffers.min_depth.pop(other))
    keep.properties["values"] = ArrayAttr([StringAttr(v) for v in dict.fromkeys(keep.held_values + other.held_values)])
    buffers.init[keep.result].properties["len"] = IntegerAttr(size, i64)
    rewriter = Rewriter()
    rewriter.erase_op(buffers.init.pop(other.result))
    other.result.replace_all_uses_with(keep.result)
    rewriter.erase_op(other)
    buffers.decls.remove(other)


def _branch_of(users: list[Operation]) -> tuple[scf.IfOp, int] | None:
    """The innermost branch (an `scf.if` and its region's index) holding every op of `users`."""
    first = users[0]
    region = first.parent_region()
    while region is not None:
        owner = region.parent_op()
        if isinstance(owner, scf.IfOp):
            if all(region.is_ancestor(u) for u in users):
                return owner, owner.regions.index(region)
        region = owner.parent_region() if owner is not None else None
    return None


def share_exclusive_queues(kernel: KernelOp, buffers: KernelBuffers) -> None:
    """Queues used only in one branch of an `scf.if` share with queues of the same type used
    only in its other branch: one execution runs one branch, whose tensors are all allocated
    and freed inside it, so the TQue's buffers serve whichever runs (sized for the larger of
    the two). Any position: the cube's L1 panels and L0 tiles of two static shapes dealt by a
    branch fit as one."""
    sides: dict[scf.IfOp, tuple[list[M.TQueOp], list[M.TQueOp]]] = {}
    for d in buffers.decls:
        if not isinstance(d, M.TQueOp):
            continue
        users = [u.operation for u in d.result.uses if not isinstance(u.operation, M.InitBufferOp)]
        where = _branch_of(users) if users else None
        if where is not None:
            sides.setdefault(where[0], ([], []))[where[1]].append(d)
    for then_side, else_side in sides.values():
        taken: set[M.TQueOp] = set()
        for keep in sorted(then_side, key=lambda d: -buffers.init[d.result].bytes_per_buffer):
            same = [d for d in else_side if d not in taken and d.result.type == keep.result.type]
            if not same:
                continue
            other = max(same, key=lambda d: buffers.init[d.result].bytes_per_buffer)
            taken.add(other)
            _fold_queue(buffers, keep, other)


def fit(
    kernel: KernelOp, buffers: KernelBuffers, capacities: Capacities, fallback: bool = True,
) -> dict[Memory, tuple[int, int]]:
    """Per on-chip memory: give loop queues the deepest depth at which everything fits (L1:
    `L1_LOOP_DEPTH`, then 2; other memories: 2), else depth 1 (without `fallback`: a
    BackendError instead of depth 1)."""
    reserved = any(M.uses_reserved_ub(op) for op in kernel.walk())
    totals: dict[Memory, tuple[int, int]] = {}
    depth: dict[M.TQueOp | M.TBufOp, int] = {}
    for mem in _PLANNED_MEMORIES:
        capacity = capacities.of(mem, reserved)
        decls = [d for d in buffers.decls if buffers.memory(d) == mem]
        if not decls:
            continue
        in_loop = {
            d: capacities.double_buffer and isinstance(d, M.TQueOp) and any(
                isinstance(u.operation, M.AllocTensorOp) and _in_loop(u.operation, kernel) for u in d.result.uses
            )
            for d in decls
        }
        tries = (L1_LOOP_DEPTH, 2) if mem == Memory.L1 else (2,)
        if not fallback:
            tries = tries[-1:]
        for loop_depth in (*tries, 1):
            for d in decls:
                depth[d] = max(loop_depth if in_loop[d] else 1, buffers.min_depth.get(d, 1))
            total = sum(buffers.init[d.result].bytes_per_buffer * depth[d] for d in decls)
            if total <= capacity or (loop_depth == tries[-1] and not fallback):
                break
        if total > capacity:
            listing = ", ".join(
                f"{(d.held_values or [d.var_name])[0]} ({d.result.type.pos.value}, "  # type: ignore[union-attr]
                f"{buffers.init[d.result].bytes_per_buffer} B)"
                for d in decls
            )
            name = "Unified Buffer" if mem == Memory.UB else mem.value
            raise BackendError(
                f"ascendc: cannot lower @{kernel.sym_name.data}: its tiles need {total} bytes of {name} "
                f"but a core has {capacity}: {listing}. Use smaller tiles (loop over the tensor)."
            )
        totals[mem] = (total, capacity)
    rewriter = Rewriter()
    for idx, d in enumerate(list(buffers.decls)):
        n = depth.get(d)
        if n is None or not isinstance(d, M.TQueOp):
            continue
        t = d.result.type
        assert isinstance(t, QueueType)
        init = buffers.init[d.result]
        if t.depth.data != n:
            new = M.TQueOp(d.var_name, t.pos, n, d.held_values)
            new.result.name_hint = d.result.name_hint
            del buffers.init[d.result]
            rewriter.replace_op(d, new)
            buffers.init[new.result] = init
            buffers.decls[idx] = new
        init.properties["num"] = IntegerAttr(n, i64)
    return totals


def _fits_as_planned(kernel: KernelOp, capacities: Capacities) -> bool:
    """Whether the plan without in-place results fits with every loop queue at the depth the
    options ask for (double-buffered by default; tried on a copy)."""
    trial = kernel.clone()
    buffers = KernelBuffers(trial)
    share_sequential_cube_queues(trial, buffers)  # first: within a branch, then across
    share_exclusive_queues(trial, buffers)
    share_queues(trial, buffers)
    share_tbufs(trial, buffers, kernel_names(trial))
    try:
        fit(trial, buffers, capacities, fallback=False)
    except BackendError:
        return False
    return True


def plan_kernel(kernel: KernelOp, capacities: Capacities | None = None) -> None:
    """Plan the buffers of one kernel (raises BackendError); a planned kernel is left alone."""
    if kernel.memory_plan is not None:
        return
    capacities = capacities or Capacities()
    buffers = KernelBuffers(kernel)
    if capacities.in_place == "always" or (capacities.in_place == "auto" and not _fits_as_planned(kernel, capacities)):
        compute_in_place(kernel, buffers)
    share_sequential_cube_queues(kernel, buffers)  # first: within a branch, then across
    share_exclusive_queues(kernel, buffers)
    share_queues(kernel, buffers)
    share_tbufs(kernel, buffers, kernel_names(kernel))
    totals = fit(kernel, buffers, capacities)
    kernel.memory_plan = DictionaryAttr({
        mem.value: DictionaryAttr({"capacity": IntegerAttr(cap, i64), "used": IntegerAttr(used, i64)})
        for mem, (used, cap) in sorted(totals.items(), key=lambda kv: kv[0].value)
    })


def plan_module(module: ModuleOp, capacities: Capacities | None = None) -> None:
    for op in module.body.block.ops:
        if isinstance(op, KernelOp):
            plan_kernel(op, capacities)


@dataclass(frozen=True)
class AscendCPlanBuffersPass(ModulePass):
    """`ascendc-plan-buffers{ub-bytes=N double-buffer=false in-place=auto|always|never}`."""

    name = "ascendc-plan-buffers"

    ub_bytes: int = UB_BYTES
    """Unified Buffer bytes a kernel may use (default: the 192 KiB of A2/A3)."""

    double_buffer: bool = True
    """Give queues of tiles allocated in loops two buffers when the plan still fits."""

    in_place: str = "auto"
    """When an elementwise result takes the buffer of a source dying at it: `auto` (only when
    the kernel's double-buffered plan does not fit otherwise), `always` or `never`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.ub_bytes <= 0:
            raise PassFailedException(f"{self.name}: ub-bytes must be positive, got {self.ub_bytes}")
        if self.in_place not in IN_PLACE_MODES:
            raise PassFailedException(
                f"{self.name}: in-place must be one of {', '.join(IN_PLACE_MODES)}, got '{self.in_place}'"
            )
        try:
            plan_module(op, Capacities(self.ub_bytes, self.double_buffer, self.in_place))
        except BackendError as e:
            raise PassFailedException(f"{self.name}: {str(e).removeprefix('ascendc: ')}") from e
