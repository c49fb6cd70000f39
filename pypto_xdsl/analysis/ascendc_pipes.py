"""Which pipe each `ascendc` op runs on and which Unified Buffer buffers its vector
instructions read and write: the model `ascendc-insert-sync` and
`ascendc-remove-redundant-sync` reason with.

Buffers are compared by declaration (the `tque`/`tbuf` value), so tensors sharing a TBuf
conflict. Vector instructions may overlap on the V pipe: one that reads a buffer an earlier
one wrote (RAW), writes one it wrote (WAW) or writes one it read (WAR) needs a
`PipeBarrier<PIPE_V>` in between. A queue hand-off orders the V pipe through another pipe
and back, so it clears what concerns its buffer: allocating a VECIN tensor (the previous
user freed it), `EnQue` (everything), `FreeTensor` (the reads). Loops are analysed to a
fixed point from the state before the loop joined with the state at the end of the body,
so a dependence across iterations is seen where it is first needed; after an `scf.if` the
state joins both branches, after a loop the body and the entry (zero iterations).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue

from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects.ascendc_types import (
    POSITION_MEMORY,
    GlobalTensorType,
    LocalTensorType,
    Memory,
    Pipe,
    TPosition,
)


def buffer_of(value: SSAValue) -> SSAValue | None:
    """The tque/tbuf a local tensor (or subtensor) lives in."""
    value = M.base_tensor(value)
    for _ in range(10000):
        owner = value.owner
        if isinstance(owner, M.AllocTensorOp | M.DequeHeadOp):
            return owner.queue
        if isinstance(owner, M.GetBufOp):
            return owner.buffer
        if isinstance(owner, M.DequeOp):
            value = owner.tensor
            continue
        return None
    return None


def global_root(value: SSAValue) -> SSAValue | None:
    """The global_tensor a GM operand (or subtensor) names; of several declared over the same
    storage (a reshaped parameter is another GlobalTensor at the same address), the first."""
    value = M.base_tensor(value)
    owner = value.owner
    if not isinstance(owner, M.GlobalTensorOp):
        return None
    block = owner.parent_block()
    if block is not None:
        for op in block.ops:
            if isinstance(op, M.GlobalTensorOp) and op.addr is owner.addr and op.offset == owner.offset:
                return op.result
    return value


def _in_ub(decl: SSAValue | None) -> bool:
    if decl is None:
        return False
    pos = decl.type.pos  # type: ignore[attr-defined]
    return POSITION_MEMORY.get(pos) == Memory.UB


def is_vector_instruction(op: Operation) -> bool:
    if isinstance(op, C.VectorOp):
        return True
    return isinstance(op, M.DataCopyOp) and op.direction == "local->local"


def element_offset(value: SSAValue) -> int | None:
    """Elements (of `value`'s type) from the start of its buffer a (sub)tensor begins at,
    through windows and reinterpret_cast views (None: not constant)."""
    eb = value.type.element_bytes  # type: ignore[attr-defined]
    offset = 0  # bytes
    while isinstance(value.owner, M.AtOp | M.ReinterpretCastOp):
        if isinstance(value.owner, M.AtOp):
            for v, c in value.owner.term_list():
                if v is not None:
                    return None
                offset += c * value.type.element_bytes  # type: ignore[attr-defined]
        value = value.owner.operands[0]
    return offset // eb if offset % eb == 0 else None


def _blocks(value: SSAValue, spans: list[tuple[int, int]]) -> frozenset[int] | None:
    """The 32-byte blocks of its buffer an operand touches, from (first element, elements)
    spans relative to the operand's start; None when unknown (the whole buffer)."""
    off = element_offset(value)
    if off is None:
        return None
    eb = value.type.element_bytes  # type: ignore[attr-defined]
    out: set[int] = set()
    for first, n in spans:
        lo = (off + first) * eb // 32
        hi = -(-((off + first + n) * eb) // 32)
        out.update(range(lo, hi))
    return frozenset(out)


def _strided(first_block: int, repeat: int, per_repeat: int, blk_stride: int, rep_stride: int) -> list[int]:
    return [first_block + r * rep_stride + b * blk_stride for r in range(repeat) for b in range(per_repeat)]


def _level0_blocks(value: SSAValue, mask: int, repeat: int, blk_stride: int, rep_stride: int) -> frozenset[int] | None:
    off = element_offset(value)
    if off is None:
        return None
    eb = value.type.element_bytes  # type: ignore[attr-defined]
    base = off * eb // 32
    per_repeat = -(-(mask * eb) // 32)
    extra = 1 if (off * eb) % 32 else 0
    return frozenset(_strided(base, repeat, per_repeat + extra, blk_stride, rep_stride))


def _footprints(op: Operation) -> list[tuple[SSAValue, frozenset[int] | None, bool]]:
    """(operand, blocks touched, written) of every tensor operand of a vector instruction."""
    props = op.properties

    def ints(name: str) -> list[int]:
        return [int(a.value.data) for a in props[name].data]  # type: ignore[union-attr]

    def num(name: str) -> int:
        return int(props[name].value.data)  # type: ignore[union-attr]

    tensors = [o for o in op.operands if isinstance(o.type, LocalTensorType)]
    if isinstance(op, C.WholeReduceOp):
        dst, src = tensors
        dst_rep, src_blk, src_rep = ints("strides")
        repeat, mask = num("repeat"), num("mask")
        return [
            (dst, _blocks(dst, [(r * dst_rep, 1) for r in range(repeat)]), True),
            (src, _level0_blocks(src, mask, repeat, src_blk, src_rep), False),
        ]
    if isinstance(op, C.AdvancedMathOp):
        # several instructions over chunks: dst and src over `count`, the whole scratch written
        n = num("count")
        return [(op.dst, _blocks(op.dst, [(0, n)]), True), (op.src, _blocks(op.src, [(0, n)]), False), (op.tmp, None, True)]
    if isinstance(op, C.BrcbOp):
        dst, src = tensors
        dst_blk, dst_rep = ints("params")
        repeat = num("repeat")
        off = element_offset(dst)
        dst_blocks = None
        if off is not None:
            base = off * dst.type.element_bytes // 32  # type: ignore[attr-defined]
            dst_blocks = frozenset(_strided(base, repeat, 8, dst_blk, dst_rep))
        return [(dst, dst_blocks, True), (src, _blocks(src, [(0, 8 * repeat)]), False)]
    if isinstance(op, C.GatherbOp):
        # the blocks of src it reads depend on the offsets' values: all of src
        dst_blk, dst_rep = ints("params")
        repeat = num("repeat")
        off = element_offset(op.dst)
        dst_blocks = None
        if off is not None and (off * op.dst.type.element_bytes) % 32 == 0:  # type: ignore[attr-defined]
            base = off * op.dst.type.element_bytes // 32  # type: ignore[attr-defined]
            dst_blocks = frozenset(_strided(base, repeat, 8, dst_blk or 1, dst_rep))
        return [(op.dst, dst_blocks, True), (op.src, None, False),
                (op.offset, _blocks(op.offset, [(0, 8 * repeat)]), False)]
    if isinstance(op, C.DuplicateOp) and op.extents:
        return [(op.dst, None, True)]  # a run-time extent: the whole buffer
    if "count" in props:
        n = num("count")
        return [(t, _blocks(t, [(0, n)]), k == 0) for k, t in enumerate(tensors)]
    if "mask" in props:
        mask, repeat, params = num("mask"), num("repeat"), ints("params")
        if len(params) == 6:  # BinaryRepeatParams(dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)
            strides = [(params[0], params[3]), (params[1], params[4]), (params[2], params[5])]
        else:  # UnaryRepeatParams(dstBlk, srcBlk, dstRep, srcRep)
            strides = [(params[0], params[2]), (params[1], params[3])]
        return [
            (t, _level0_blocks(t, mask, repeat, blk, rep), k == 0) for k, (t, (blk, rep)) in enumerate(zip(tensors, strides))
        ]
    return [(t, None, k == 0) for k, t in enumerate(tensors)]


Access = dict[SSAValue, frozenset[int] | None]  # buffer -> blocks (None: all of it)


def vector_access(op: Operation) -> tuple[Access, Access]:
    """(blocks read, blocks written) per UB buffer by a vector instruction."""
    reads: Access = {}
    writes: Access = {}
    for value, blocks, written in _footprints(op):
        decl = buffer_of(value)
        if not _in_ub(decl):
            continue
        table = writes if written else reads
        assert decl is not None
        table[decl] = _union(table.get(decl, frozenset()), blocks)
    return reads, writes


def _union(a: frozenset[int] | None, b: frozenset[int] | None) -> frozenset[int] | None:
    if a is None or b is None:
        return None
    return a | b


def _overlap(a: frozenset[int] | None, b: frozenset[int] | None) -> bool:
    if a is None or b is None:
        return True
    return not a.isdisjoint(b)


def mte2_read(op: Operation) -> SSAValue | None:
    """The global_tensor an MTE2 copy (GM -> local) reads."""
    if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "GM->local":
        return global_root(op.src)
    return None


def mte3_write(op: Operation) -> SSAValue | None:
    """The global_tensor an MTE3 copy (local -> GM) writes."""
    if isinstance(op, M.DataCopyOp | M.DataCopyPadOp) and op.direction == "local->GM":
        return global_root(op.dst)
    return None


# Ops that print no statement with a vector effect: a barrier guarding the next instruction
# may sit before them (the generated code puts it before the instruction's declarations).
def is_transparent(op: Operation) -> bool:
    if isinstance(op, M.AllocTensorOp):
        return op.queue.type.pos != TPosition.VECIN  # type: ignore[union-attr]
    return isinstance(op, M.GetBufOp | M.AtOp | M.ReinterpretCastOp | M.ParamsOp | C.ScalarCastOp | C.UnaryMinusOp
                      | arith.ConstantOp)


def is_v_barrier(op: Operation) -> bool:
    return isinstance(op, S.PipeBarrierOp) and op.pipe_kind in (Pipe.PIPE_V, Pipe.PIPE_ALL)


Pending = tuple[Access, Access]  # vector reads and writes since the last barrier
NONE: Pending = ({}, {})


def _join_access(a: Access, b: Access) -> Access:
    out = dict(a)
    for k, v in b.items():
        out[k] = _union(out[k], v) if k in out else v
    return out


def join(a: Pending, b: Pending) -> Pending:
    return (_join_access(a[0], b[0]), _join_access(a[1], b[1]))


def add(state: Pending, reads: Access, writes: Access) -> Pending:
    return join(state, (reads, writes))


def _hits(a: Access, b: Access) -> bool:
    return any(k in b and _overlap(v, b[k]) for k, v in a.items())


def conflicts(state: Pending, reads: Access, writes: Access) -> bool:
    r, w = state
    return _hits(reads, w) or _hits(writes, w) or _hits(writes, r)


class VectorOrder:
    """The dataflow over one kernel. `on_instruction(op, state)` returns the state after the
    instruction (and records what it wants); `on_barrier(op, state)` likewise. Decisions are
    recorded by the callbacks; inside loops the last pass over the body counts."""

    def __init__(self, on_instruction: Callable[[Operation, Pending], Pending],
                 on_barrier: Callable[[Operation, Pending], Pending]):
        self.on_instruction = on_instruction
        self.on_barrier = on_barrier

    def run(self, block: Block, state: Pending = NONE) -> Pending:
        return self._block(block, state)

    def _block(self, block: Block, state: Pending) -> Pending:
        for op in block.ops:
            state = self._op(op, state)
        return state

    def _forget(self, state: Pending, decl: SSAValue | None, reads_only: bool = False) -> Pending:
        if decl is None or (decl not in state[0] and decl not in state[1]):
            return state
        reads = {k: v for k, v in state[0].items() if k is not decl}
        writes = state[1] if reads_only else {k: v for k, v in state[1].items() if k is not decl}
        return (reads, writes)

    def _loop(self, entry: Pending, body: Callable[[Pending], tuple[Pending, Pending]]) -> tuple[Pending, Pending]:
        state = entry
        for _ in range(1000):
            exit_, end = body(state)
            # grow monotonically: a barrier an earlier pass did not need could otherwise shrink
            # the end state and make the iteration oscillate
            nxt = join(state, end)
            if nxt == state:
                return exit_, end
            state = nxt
        return body(state)

    def _op(self, op: Operation, state: Pending) -> Pending:
        if is_vector_instruction(op):
            return self.on_instruction(op, state)
        if is_v_barrier(op):
            return self.on_barrier(op, state)
        if isinstance(op, M.AllocTensorOp) and op.queue.type.pos == TPosition.VECIN:  # type: ignore[union-attr]
            return self._forget(state, op.queue)
        if isinstance(op, M.EnqueOp | M.DequeHeadOp):
            return self._forget(state, op.queue)
        if isinstance(op, M.FreeTensorOp):
            return self._forget(state, op.queue, reads_only=True)
        if isinstance(op, scf.ForOp):
            body = op.body.block

            def run_for(s: Pending) -> tuple[Pending, Pending]:
                end = self._block(body, s)
                return end, end

            _, end = self._loop(state, run_for)
            return join(state, end)
        if isinstance(op, scf.IfOp):
            out = state
            for region in (op.true_region, op.false_region):
                if region.blocks:
                    out = join(out, self._block(region.block, state))
            return out
        if isinstance(op, scf.WhileOp):
            before, after = op.before_region.block, op.after_region.block

            def run_while(s: Pending) -> tuple[Pending, Pending]:
                exit_ = self._block(before, s)
                return exit_, self._block(after, exit_)

            exit_, _ = self._loop(state, run_while)
            return exit_
        return state


def guarded_instruction(barrier: Operation) -> Operation | None:
    """The vector instruction a barrier sits before (across transparent ops), if any."""
    op = barrier.next_op
    while op is not None and (is_transparent(op) or is_v_barrier(op)):
        op = op.next_op
    return op if op is not None and is_vector_instruction(op) else None


def barrier_point(instruction: Operation) -> Operation:
    """Where a barrier for `instruction` goes: before the declarations and expressions that
    directly precede it."""
    point = instruction
    while point.prev_op is not None and is_transparent(point.prev_op):
        point = point.prev_op
    return point


def global_tensor_type(value: SSAValue) -> bool:
    return isinstance(value.type, GlobalTensorType)


def enclosing_loops(op: Operation) -> list[Operation]:
    """The `scf.for` / `scf.while` loops around `op`, innermost first."""
    loops: list[Operation] = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            loops.append(parent)
        parent = parent.parent_op()
    return loops
