"""Fusion groups of convert-tensor-to-tile: which tensor ops are converted, how they group,
and what storage their values name (see the pass module and docs/passes/convert-tensor-to-tile.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import (
    Dim,
    FuncKind,
    TensorType,
    format_shape,
)
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.utils import walk_ops

UB_BYTES = 192 * 1024
"""Unified Buffer capacity of one AI core (A2/A3)."""


CONVERTED_KINDS = frozenset({FuncKind.INCORE, FuncKind.AIV})

BINARY: dict[type[Operation], type[Operation]] = {
    tensor.AddOp: tile.AddOp,
    tensor.SubOp: tile.SubOp,
    tensor.MulOp: tile.MulOp,
    tensor.DivOp: tile.DivOp,
    tensor.MaximumOp: tile.MaximumOp,
    tensor.MinimumOp: tile.MinimumOp,
}
SCALAR: dict[type[Operation], type[Operation]] = {
    tensor.AddsOp: tile.AddsOp,
    tensor.SubsOp: tile.SubsOp,
    tensor.MulsOp: tile.MulsOp,
    tensor.DivsOp: tile.DivsOp,
    tensor.MaximumsOp: tile.MaximumsOp,
    tensor.MinimumsOp: tile.MinimumsOp,
}
UNARY: dict[type[Operation], type[Operation]] = {
    tensor.ExpOp: tile.ExpOp,
    tensor.LogOp: tile.LogOp,
    tensor.SqrtOp: tile.SqrtOp,
    tensor.NegOp: tile.NegOp,
    tensor.AbsOp: tile.AbsOp,
    tensor.ReluOp: tile.ReluOp,
    tensor.RecipOp: tile.RecipOp,
    tensor.RsqrtOp: tile.RsqrtOp,
    tensor.TanhOp: tile.TanhOp,
    tensor.SinOp: tile.SinOp,
    tensor.CosOp: tile.CosOp,
}
FILLS: tuple[type[Operation], ...] = (tensor.FullOp, tensor.ExpandsOp)
"""Ops whose result is one scalar everywhere: a `tile.full` per block, nothing loaded."""
ELEMENTWISE_OPS: tuple[type[Operation], ...] = (*BINARY, *SCALAR, *UNARY, tensor.CastOp, *FILLS)
ROW_REDUCE: dict[type[Operation], type[Operation]] = {
    tensor.RowMaxOp: tile.RowMaxOp,
    tensor.RowSumOp: tile.RowSumOp,
    tensor.RowMinOp: tile.RowMinOp,
    tensor.RowProdOp: tile.RowProdOp,
}
ROW_EXPAND: dict[type[Operation], type[Operation]] = {
    tensor.RowExpandSubOp: tile.RowExpandSubOp,
    tensor.RowExpandMulOp: tile.RowExpandMulOp,
    tensor.RowExpandDivOp: tile.RowExpandDivOp,
    tensor.RowExpandOp: tile.RowExpandOp,
    tensor.RowExpandAddOp: tile.RowExpandAddOp,
    tensor.RowExpandMaxOp: tile.RowExpandMaxOp,
    tensor.RowExpandMinOp: tile.RowExpandMinOp,
    tensor.RowExpandExpdifOp: tile.RowExpandExpdifOp,
}
COL_EXPAND: dict[type[Operation], type[Operation]] = {
    tensor.ColExpandOp: tile.ColExpandOp,
    tensor.ColExpandMulOp: tile.ColExpandMulOp,
    tensor.ColExpandDivOp: tile.ColExpandDivOp,
    tensor.ColExpandSubOp: tile.ColExpandSubOp,
    tensor.ColExpandAddOp: tile.ColExpandAddOp,
    tensor.ColExpandMaxOp: tile.ColExpandMaxOp,
    tensor.ColExpandMinOp: tile.ColExpandMinOp,
    tensor.ColExpandExpdifOp: tile.ColExpandExpdifOp,
}
"""Column broadcasts: row i of the result needs row i of the input and the whole [1, N]
column vector, which each loop loads once, before it starts."""
ROW_OPS: tuple[type[Operation], ...] = (*ROW_REDUCE, *ROW_EXPAND, *COL_EXPAND, tensor.ConcatOp)
FUSED_OPS: tuple[type[Operation], ...] = (*ELEMENTWISE_OPS, *ROW_OPS)
FUSED_TYPES: frozenset[type[Operation]] = frozenset(FUSED_OPS)
ROW_TYPES: frozenset[type[Operation]] = frozenset(ROW_OPS)
"""The same as sets: the pass asks "is this op one of them" for every op of every InCore
function, and each is a leaf class (exact type tests)."""
_FRESH_TYPES: frozenset[type[Operation]] = frozenset((tensor.CreateOp, tensor.MatmulOp, *FUSED_OPS))
"""The tensor ops that fusion groups are made of."""

MAX_REDUCE_ROWS = 255
"""Rows of one row-reduction tile: the backend reduces with one vector repeat per row, and
an instruction repeats at most 255 times."""

GroupKey = tuple[str, object]
"""What the ops of one fusion group share: ("rows", M) for 2-D values (any column count,
[M, 1] row values included; M a static extent or a dimension symbol), ("shape", shape) for
values of other ranks (static shapes only)."""


def group_key(shape: tuple[Dim, ...]) -> GroupKey:
    return ("rows", shape[0]) if len(shape) == 2 else ("shape", shape)


def pass_failure(func: FuncOp, message: str) -> PassFailedException:
    return PassFailedException(f"convert-tensor-to-tile: in @{func.sym_name.data}: {message}")


_STATIC_SHAPES: dict[int, tuple[Attribute, tuple[int, ...] | None]] = {}
_SHAPES: dict[int, tuple[Attribute, tuple[Dim, ...] | None]] = {}


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a static tensor type of rank >= 1, else None (memoised per type
    instance: the pass asks for the same few types many times)."""
    hit = _STATIC_SHAPES.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    shape = tuple(t.get_shape()) if isinstance(t, TensorType) and t.is_static() and t.rank >= 1 else None
    if len(_STATIC_SHAPES) < 65536:
        _STATIC_SHAPES[id(t)] = (t, shape)  # keeps `t` alive, so the id stays its own
    return shape  # type: ignore[return-value]


def shape_of(t: Attribute) -> tuple[Dim, ...] | None:
    """The shape of a tensor type of rank >= 1 whose dims are static extents or named
    symbols (no `?`), else None (memoised like `static_shape`)."""
    hit = _SHAPES.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    shape = None
    if isinstance(t, TensorType) and t.rank >= 1:
        dims = t.get_shape()
        if all(d is not None for d in dims):
            shape = tuple(dims)
    if len(_SHAPES) < 65536:
        _SHAPES[id(t)] = (t, shape)
    return shape


_IS_INT = int.__instancecheck__


def is_static(shape: Sequence[Dim]) -> bool:
    return all(map(_IS_INT, shape))  # (the pass asks this of every shape it meets)


def enclosing_func(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


_PARAMETER_SYMBOLS: dict[int, tuple[FuncOp, Attribute, frozenset[str]]] = {}


def parameter_symbols(func: FuncOp | None) -> frozenset[str]:
    """The dimension symbols of `func`'s tensor parameters: the extents a kernel can read
    (`tensor.dim` of the parameter) when it tiles a dynamic dimension."""
    if func is None:
        return frozenset()
    signature = func.function_type
    hit = _PARAMETER_SYMBOLS.get(id(func))
    if hit is not None and hit[0] is func and hit[1] is signature:
        return hit[2]
    symbols = frozenset(
        d for t in signature.inputs.data if isinstance(t, TensorType) for d in t.get_shape() if isinstance(d, str)
    )
    if len(_PARAMETER_SYMBOLS) < 4096:
        _PARAMETER_SYMBOLS[id(func)] = (func, signature, symbols)
    return symbols


def dynamic_reason(op: Operation, shape: Sequence[Dim]) -> str | None:
    """Why a group cannot tile a value of the non-static `shape` in `op` (None: it can): only
    2-D values (a partial tile is 2-D) whose symbols are parameter dimensions."""
    if len(shape) != 2:
        return f"a dynamic shape {format_shape(shape)} of rank {len(shape)}: only 2-D values tile dynamic dimensions (a partial tile is 2-D)"
    symbols = parameter_symbols(enclosing_func(op))
    for d in shape:
        if isinstance(d, str) and d not in symbols:
            return f"the dynamic dimension {d} is no dimension of a tensor parameter, so the kernel cannot read its extent"
    return None


def _tileable(op: Operation, shape: tuple[Dim, ...] | None) -> bool:
    if shape is None or any(d == 0 for d in shape):
        return False
    return is_static(shape) or dynamic_reason(op, shape) is None


def convertible_key(op: Operation) -> GroupKey | None:
    """The fusion key of a convertible op (non-empty shapes, static or 2-D with parameter
    dimension symbols), else None."""
    if type(op) not in FUSED_TYPES:
        return None
    shape = shape_of(op.results[0].type)
    if not _tileable(op, shape):
        return None
    assert shape is not None
    for v in op.operands:
        if not isinstance(v.type, TensorType):
            continue
        vs = shape_of(v.type)
        if type(op) in ROW_TYPES:
            # row ops are 2-D (verified) and row-aligned: [M, C] with [M, 1]
            if not _tileable(op, vs):
                return None
        elif vs != shape:
            return None
    if isinstance(op, tensor.ConcatOp) and not all(
        isinstance(shape_of(v.type)[1], int) for v in (op.src0, op.src1, op.result)  # type: ignore[index]
    ):
        return None  # columns of a partial tile would leave a gap between the halves
    return group_key(shape)


def read_operands(op: Operation) -> list[SSAValue]:
    """The tensor operands a member computes from (an `expands` only takes its target's shape)."""
    if isinstance(op, tensor.ExpandsOp):
        return []
    return [v for v in op.operands if isinstance(v.type, TensorType)]


def dims_of(v: SSAValue) -> tuple[Dim, ...]:
    """The shape of a group value, input or sink source (static extents and symbols)."""
    t = v.type
    hit = _SHAPES.get(id(t))
    shape = hit[1] if hit is not None and hit[0] is t else shape_of(t)
    assert shape is not None
    return shape


def may_write(op: Operation) -> bool:
    effects = get_effects(op)
    if effects is None:
        return True
    return any(e.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE) for e in effects)


def const_index(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


@dataclass(frozen=True)
class Storage:
    """Where a tensor value lives: a root (function argument or tensor.create) and the
    constant origin of the window, or an unknown root (None)."""

    root: SSAValue | None
    origin: tuple[int, ...] | None  # None: not a constant origin

    def distinct_from(self, other: Storage) -> bool:
        return self.root is not None and other.root is not None and self.root is not other.root

    def same_window(self, other: Storage) -> bool:
        return (
            self.root is not None
            and self.root is other.root
            and self.origin is not None
            and self.origin == other.origin
        )

    def disjoint(self, shape: Sequence[Dim], other: Storage, other_shape: Sequence[Dim]) -> bool:
        """Two constant windows of one storage that share no element (a dynamic extent is
        not known to end anywhere)."""
        if self.root is None or self.root is not other.root or self.origin is None or other.origin is None:
            return False
        return any(
            (isinstance(n, int) and a + n <= b) or (isinstance(m, int) and b + m <= a)
            for a, n, b, m in zip(self.origin, shape, other.origin, other_shape)
        )

    def independent(self, shape: Sequence[Dim], other: Storage, other_shape: Sequence[Dim]) -> bool:
        """Reading (or writing) one block by block, interleaved with writing the other block
        by block at the same positions, gives the same result as one after the other."""
        return self.distinct_from(other) or self.same_window(other) or self.disjoint(shape, other, other_shape)


def storage_of(v: SSAValue, visiting: frozenset[SSAValue] = frozenset()) -> Storage:
    """Follow views and write-through results back to the storage a tensor value names.

    An `scf.for` carried tensor names its initial value's storage when every iteration
    yields a value naming that same storage; otherwise (and for anything not understood)
    the root is unknown."""
    if v in visiting or len(visiting) > 64:
        return Storage(None, None)
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        if isinstance(owner, FuncOp) and v.block is owner.body.blocks[0]:
            return Storage(v, (0,) * v.type.rank)  # type: ignore[attr-defined]
        if isinstance(owner, scf.ForOp) and v.index > 0:
            init = storage_of(owner.iter_args[v.index - 1], visiting | {v})
            yielded = owner.body.block.last_op
            if init.root is None or not isinstance(yielded, scf.YieldOp):
                return Storage(None, None)
            out = yielded.operands[v.index - 1]
            # the yielded value must name the carried storage itself (a cycle back to v)
            if not names_storage_of(out, v):
                return Storage(None, None)
            return init
        return Storage(None, None)
    op = v.owner
    if type(op) in _FRESH_TYPES:
        # fresh storage (compute results become tensor.create'd tensors)
        return Storage(v, (0,) * v.type.rank)  # type: ignore[attr-defined]
    if isinstance(op, tile.StoreOp | tile.AtomicStoreOp | tensor.AssembleOp):
        return storage_of(op.dest, visiting | {v})
    if isinstance(op, tensor.SliceOp):
        base = storage_of(op.source, visiting | {v})
        offsets = [const_index(o) for o in op.offsets]
        if base.origin is None or any(o is None for o in offsets):
            return Storage(base.root, None)
        return Storage(base.root, tuple(a + b for a, b in zip(base.origin, offsets)))  # type: ignore[operator]
    if isinstance(op, scf.ForOp) and isinstance(v, OpResult):
        return storage_of(op.body.block.args[1 + v.index], visiting | {v})
    if isinstance(op, tensor.SetValidShapeOp):  # a valid region of the same storage
        return storage_of(op.input, visiting | {v})
    return Storage(None, None)


def names_storage_of(v: SSAValue, carried: BlockArgument) -> bool:
    """`v` is `carried` or a write-through result (store/assemble) chain ending in it."""
    for _ in range(1000):
        if v is carried:
            return True
        if isinstance(v, OpResult) and isinstance(v.op, tile.StoreOp | tile.AtomicStoreOp | tensor.AssembleOp):
            v = v.op.dest
            continue
        return False
    return False


@dataclass(eq=False)
class FusionGroup:
    """Elementwise and row tensor ops of one block over one key (see `GroupKey`), fused into
    one loop over row blocks."""

    key: GroupKey
    members: list[Operation] = field(default_factory=list)
    sinks: list[tensor.AssembleOp] = field(default_factory=list)
    closed: bool = False
    last: Operation | None = None

    def values(self) -> set[SSAValue]:
        return {m.results[0] for m in self.members}

    @property
    def extent(self) -> Dim:
        """The rows (elements, for 1-D values) the loop iterates over: a static extent, or
        the symbol of a dynamic row count."""
        kind, value = self.key
        return value if kind == "rows" else value[0]  # type: ignore[return-value,index]

    @property
    def rank(self) -> int:
        kind, value = self.key
        return 2 if kind == "rows" else len(value)  # type: ignore[arg-type]

    @property
    def one_dimensional(self) -> bool:
        return self.rank == 1

    def external_inputs(self) -> list[SSAValue]:
        """Tensor operands of members (and sources of sinks) that the group does not
        compute, in first-use order: each is loaded once per block, or once before the loop
        when it is a column vector (`is_broadcast`)."""
        computed = self.values()
        seen: list[SSAValue] = []
        operands = [v for m in self.members for v in read_operands(m)] + [s.source for s in self.sinks]
        for v in operands:
            if isinstance(v.type, TensorType) and v not in computed and v not in seen:
                seen.append(v)
        return seen

    def is_broadcast(self, v: SSAValue) -> bool:
        """A [1, N] input of a group over M > 1 rows: a column vector every row block reads
        whole (column broadcasts take nothing else of that shape)."""
        return self.key[0] == "rows" and self.extent != 1 and dims_of(v)[0] == 1

    def block_inputs(self) -> list[SSAValue]:
        """The external inputs loaded block by block."""
        inputs = self.external_inputs()
        if not any(type(m) in COL_EXPAND for m in self.members):
            return inputs  # only column broadcasts read column vectors
        return [v for v in inputs if not self.is_broadcast(v)]


def uses_in(op: Operation) -> Iterable[SSAValue]:
    """The operands of `op` and of every op nested in it, in pre-order (a constant cost per
    op at any nesting depth: see `walk_ops`)."""
    for inner in walk_ops(op):
        yield from inner.operands


class BlockGrouper:
    """Scans one block in order and forms fusion groups (see the module docstring)."""

    def __init__(self, skip: frozenset[Operation] = frozenset()) -> None:
        self.skip = skip  # ops another rewrite owns (the cast/assemble of a cube matmul)
        self.groups: list[FusionGroup] = []  # in closing order
        self.open: list[FusionGroup] = []
        self.owner: dict[SSAValue, FusionGroup] = {}  # member results and sink results

    def close(self, g: FusionGroup) -> None:
        if not g.closed:
            g.closed = True
            self.open.remove(g)
            self.groups.append(g)

    def close_all(self, keep: FusionGroup | None = None) -> None:
        for g in list(self.open):
            if g is not keep:
                self.close(g)

    def _open_owner(self, v: SSAValue) -> FusionGroup | None:
        g = self.owner.get(v)
        return g if g is not None and not g.closed else None

    def scan(self, block: Block) -> list[FusionGroup]:
        for op in block.ops:
            key = convertible_key(op) if op not in self.skip else None
            if op in self.skip:
                self._other(op)
            elif key is not None:
                self._add_member(op, key)
            elif isinstance(op, tensor.AssembleOp) and (self._try_sink(op) or self._try_copy(op)):
                pass  # fused into a group's loop, or a copy loop of its own
            else:
                self._other(op)
        self.close_all()
        return self.groups

    def _add_member(self, op: Operation, key: GroupKey) -> None:
        # A group that already stores into a destination accepts only further sinks.
        for g in list(self.open):
            if g.sinks:
                self.close(g)
        joined: list[FusionGroup] = []
        for v in op.operands:
            g = self._open_owner(v)
            if g is not None and g.key == key and g not in joined:
                joined.append(g)
        for v in op.operands:
            g = self._open_owner(v)
            if g is not None and g.key != key:
                self.close(g)
        if joined:
            target = joined[0]
            for other in joined[1:]:
                self._merge(target, other)
        else:
            target = FusionGroup(key)
            self.open.append(target)
        target.members.append(op)
        target.last = op
        self.owner[op.results[0]] = target

    def _merge(self, target: FusionGroup, other: FusionGroup) -> None:
        """Fold open group `other` (no sinks) into `target`."""
        assert not other.sinks
        target.members.extend(other.members)
        target.members.sort(key=lambda m: m.parent_block().get_operation_index(m))  # type: ignore[union-attr]
        for m in other.members:
            self.owner[m.results[0]] = target
        self.open.remove(other)

    def _try_sink(self, op: tensor.AssembleOp) -> bool:
        g = self._open_owner(op.source)
        if g is None or op.source not in g.values():
            return False
        src_shape = dims_of(op.source)
        dst_shape = shape_of(op.dest.type)
        if dst_shape is None or len(dst_shape) != len(src_shape):
            return False
        if op.dest in g.values() or any(self.owner.get(o) is g for o in op.offsets):
            return False
        if self.owner.get(op.dest) is g and op.dest not in {s.result for s in g.sinks}:
            return False
        dst = sink_storage(op)
        # Reads of the group happen block by block before the store of the same block (every
        # value of a group is row-aligned): fine when they read a window at the written
        # window's origin, a disjoint one or other storage.
        for v in g.block_inputs():
            if not storage_of(v).independent(dims_of(v), dst, src_shape):
                return False
        for other in g.sinks:
            if not sink_storage(other).independent(dims_of(other.source), dst, src_shape):
                return False
        # The store is a write: other open groups are closed before it, except those over
        # the same shape whose reads are independent of it, which join this loop (they may
        # compute what a later assemble stores).
        for h in list(self.open):
            if h is g:
                continue
            if h.key == g.key and all(
                storage_of(v).independent(dims_of(v), dst, src_shape) for v in h.block_inputs()
            ):
                self._merge(g, h)
            else:
                self.close(h)
        g.sinks.append(op)
        g.last = op
        self.owner[op.result] = g
        return True

    def _try_copy(self, op: tensor.AssembleOp) -> bool:
        """An assemble of a tensor that no open group computes: a copy loop of its own
        (load the source's blocks, store them into the window)."""
        shape = shape_of(op.source.type)
        dst_shape = shape_of(op.dest.type)
        if shape is None or dst_shape is None or len(shape) != len(dst_shape) or not _tileable(op, shape):
            return False
        src, dst = storage_of(op.source), sink_storage(op)
        if not src.independent(shape, dst, shape):
            return False
        self._other(op)  # closes the groups it reads from or could disturb
        g = FusionGroup(group_key(shape), sinks=[op], closed=True, last=op)
        self.groups.append(g)
        return True

    def _other(self, op: Operation) -> None:
        if not self.open:
            # Nothing to close. Checked first: the effects and the uses of an op holding
            # regions are found by walking its whole subtree, and the grouper meets such an
            # op at every level of a loop nest (1,000 loops in one scope took 64 s).
            return
        if not is_side_effect_free(op):
            for g in list(self.open):
                if g.sinks:
                    self.close(g)
        for v in uses_in(op):
            g = self._open_owner(v)
            if g is not None:
                self.close(g)
        if may_write(op):
            self.close_all()


def sink_storage(op: tensor.AssembleOp) -> Storage:
    dst = storage_of(op.dest)
    offsets = [const_index(o) for o in op.offsets]
    if dst.origin is not None and all(o is not None for o in offsets):
        return Storage(dst.root, tuple(a + b for a, b in zip(dst.origin, offsets)))  # type: ignore[operator]
    return Storage(dst.root, None)
