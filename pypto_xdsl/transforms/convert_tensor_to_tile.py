"""convert-tensor-to-tile: tensor-level compute inside InCore functions -> tiled tile ops.

In every `pypto.func incore` / `aiv` function, tensor-level elementwise ops over static
shapes (`pypto.tensor.add sub mul div maximum minimum`, `adds subs muls divs`,
`exp log sqrt neg abs relu recip`, `cast`) and row ops (`row_max row_sum`,
`row_expand_sub mul div`) are grouped into **fusion groups** and each group becomes one loop
over row blocks. Ops over 2-D tensors group by their row count M (every one computes row i
from row i of its operands), so [M, C] values of any C and the [M, 1] row values fuse: a
tensor-level softmax is one loop. Other ranks group by exact shape.

    scf.for %row = 0 to <full rows> step R iter_args(<destinations>) {
      pypto.tile.load of each external tensor input's [R, ...] block
      the tile ops of the group, in program order
      pypto.tile.store of every group value that must exist as a tensor
    }
    <the same body once more for the M % R tail rows, if any>

A group value that is only used inside the group never exists as a tensor. A group value
assembled into another tensor (`pypto.tensor.assemble %v into %dst[...]`) is stored straight
into `%dst` (the assemble is *fused*); any other use outside the group gets a
`pypto.tensor.create`d tensor that the loop stores into.

Tile sizing: all tiles of one loop iteration (one per loaded input, one per op, and the
scratch tile of a two-stage row reduction) must fit half of the 192 KiB Unified Buffer (the
other half is for double buffering), laid out as the backend does (rows padded to 32 bytes,
[R, 1] tiles contiguous); R is the largest row count that fits (at most 255 with a
reduction). A group whose tiles do not fit even for one
row raises PassFailedException naming the function, the tiles and their sizes.

SPMD: when the function (or every call of it) carries `pypto.block_dim = N > 1`, the
function's body is a single group and does not already query its block index, the row
blocks are distributed cyclically over the cores with `pypto.tile.get_block_idx` /
`get_block_num`.

Cube matmul: in `incore` / `aic` functions, `pypto.tensor.matmul` of static f16 operands
(dims multiples of 16; the product is f32, like the cube's accumulator) becomes blocked cube
code (M/N loops, `tile.matmul` for the first K block, `tile.matmul_acc` in a K loop, one store
of the acc tile into the assemble destination or a created tensor); an identity
`tensor.cast` of the product is folded into it; see `_MatmulRewriter`.

The page `docs/passes/convert-tensor-to-tile.md` describes grouping, ordering and aliasing
rules; this docstring summarises.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float16Type, IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    TensorType,
    TileType,
    element_byte_width,
)
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    CallOp,
    FuncOp,
    ReturnOp,
    SubmitOp,
)

UB_BYTES = 192 * 1024
"""Unified Buffer capacity of one AI core (A2/A3)."""


_CONVERTED_KINDS = frozenset({FuncKind.INCORE, FuncKind.AIV})

_BINARY: dict[type[Operation], type[Operation]] = {
    tensor.AddOp: tile.AddOp,
    tensor.SubOp: tile.SubOp,
    tensor.MulOp: tile.MulOp,
    tensor.DivOp: tile.DivOp,
    tensor.MaximumOp: tile.MaximumOp,
    tensor.MinimumOp: tile.MinimumOp,
}
_SCALAR: dict[type[Operation], type[Operation]] = {
    tensor.AddsOp: tile.AddsOp,
    tensor.SubsOp: tile.SubsOp,
    tensor.MulsOp: tile.MulsOp,
    tensor.DivsOp: tile.DivsOp,
}
_UNARY: dict[type[Operation], type[Operation]] = {
    tensor.ExpOp: tile.ExpOp,
    tensor.LogOp: tile.LogOp,
    tensor.SqrtOp: tile.SqrtOp,
    tensor.NegOp: tile.NegOp,
    tensor.AbsOp: tile.AbsOp,
    tensor.ReluOp: tile.ReluOp,
    tensor.RecipOp: tile.RecipOp,
}
ELEMENTWISE_OPS: tuple[type[Operation], ...] = (*_BINARY, *_SCALAR, *_UNARY, tensor.CastOp)
_ROW_REDUCE: dict[type[Operation], type[Operation]] = {
    tensor.RowMaxOp: tile.RowMaxOp,
    tensor.RowSumOp: tile.RowSumOp,
}
_ROW_EXPAND: dict[type[Operation], type[Operation]] = {
    tensor.RowExpandSubOp: tile.RowExpandSubOp,
    tensor.RowExpandMulOp: tile.RowExpandMulOp,
    tensor.RowExpandDivOp: tile.RowExpandDivOp,
}
ROW_OPS: tuple[type[Operation], ...] = (*_ROW_REDUCE, *_ROW_EXPAND)
FUSED_OPS: tuple[type[Operation], ...] = (*ELEMENTWISE_OPS, *ROW_OPS)
"""The tensor ops that fusion groups are made of."""

_MAX_REDUCE_ROWS = 255
"""Rows of one row-reduction tile: the backend reduces with one vector repeat per row, and
an instruction repeats at most 255 times."""

GroupKey = tuple[str, object]
"""What the ops of one fusion group share: ("rows", M) for 2-D values (any column count,
[M, 1] row values included), ("shape", shape) for values of other ranks."""


def _group_key(shape: tuple[int, ...]) -> GroupKey:
    return ("rows", shape[0]) if len(shape) == 2 else ("shape", shape)


def _fail(func: FuncOp, message: str) -> PassFailedException:
    return PassFailedException(f"convert-tensor-to-tile: in @{func.sym_name.data}: {message}")


def _static_shape(t: Attribute) -> tuple[int, ...] | None:
    if isinstance(t, TensorType) and t.is_static() and t.rank >= 1:
        return tuple(t.get_shape())  # type: ignore[arg-type]
    return None


def _convertible_key(op: Operation) -> GroupKey | None:
    """The fusion key of a convertible op (static, non-empty shapes), else None."""
    if not isinstance(op, FUSED_OPS):
        return None
    shape = _static_shape(op.results[0].type)
    if shape is None or any(d == 0 for d in shape):
        return None
    for v in op.operands:
        if not isinstance(v.type, TensorType):
            continue
        vs = _static_shape(v.type)
        if isinstance(op, ROW_OPS):
            # row ops are 2-D (verified) and row-aligned: [M, C] with [M, 1]
            if vs is None or 0 in vs:
                return None
        elif vs != shape:
            return None
    return _group_key(shape)


def _shape(v: SSAValue) -> tuple[int, ...]:
    """The static shape of a group value, input or sink source."""
    shape = _static_shape(v.type)
    assert shape is not None
    return shape


def _may_write(op: Operation) -> bool:
    effects = get_effects(op)
    if effects is None:
        return True
    return any(e.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE) for e in effects)


def _const_index(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


@dataclass(frozen=True)
class _Storage:
    """Where a tensor value lives: a root (function argument or tensor.create) and the
    constant origin of the window, or an unknown root (None)."""

    root: SSAValue | None
    origin: tuple[int, ...] | None  # None: not a constant origin

    def distinct_from(self, other: _Storage) -> bool:
        return self.root is not None and other.root is not None and self.root is not other.root

    def same_window(self, other: _Storage) -> bool:
        return (
            self.root is not None
            and self.root is other.root
            and self.origin is not None
            and self.origin == other.origin
        )

    def disjoint(self, shape: Sequence[int], other: _Storage, other_shape: Sequence[int]) -> bool:
        """Two constant windows of one storage that share no element."""
        if self.root is None or self.root is not other.root or self.origin is None or other.origin is None:
            return False
        return any(
            a + n <= b or b + m <= a for a, n, b, m in zip(self.origin, shape, other.origin, other_shape)
        )

    def independent(self, shape: Sequence[int], other: _Storage, other_shape: Sequence[int]) -> bool:
        """Reading (or writing) one block by block, interleaved with writing the other block
        by block at the same positions, gives the same result as one after the other."""
        return self.distinct_from(other) or self.same_window(other) or self.disjoint(shape, other, other_shape)


def _storage(v: SSAValue, visiting: frozenset[SSAValue] = frozenset()) -> _Storage:
    """Follow views and write-through results back to the storage a tensor value names.

    An `scf.for` carried tensor names its initial value's storage when every iteration
    yields a value naming that same storage; otherwise (and for anything not understood)
    the root is unknown."""
    if v in visiting or len(visiting) > 64:
        return _Storage(None, None)
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        if isinstance(owner, FuncOp) and v.block is owner.body.blocks[0]:
            return _Storage(v, (0,) * v.type.rank)  # type: ignore[attr-defined]
        if isinstance(owner, scf.ForOp) and v.index > 0:
            init = _storage(owner.iter_args[v.index - 1], visiting | {v})
            yielded = owner.body.block.last_op
            if init.root is None or not isinstance(yielded, scf.YieldOp):
                return _Storage(None, None)
            out = yielded.operands[v.index - 1]
            # the yielded value must name the carried storage itself (a cycle back to v)
            if not _names_storage_of(out, v):
                return _Storage(None, None)
            return init
        return _Storage(None, None)
    op = v.owner
    if isinstance(op, (tensor.CreateOp, tensor.MatmulOp, *FUSED_OPS)):
        # fresh storage (compute results become tensor.create'd tensors)
        return _Storage(v, (0,) * v.type.rank)  # type: ignore[attr-defined]
    if isinstance(op, tile.StoreOp | tensor.AssembleOp):
        return _storage(op.dest, visiting | {v})
    if isinstance(op, tensor.SliceOp):
        base = _storage(op.source, visiting | {v})
        offsets = [_const_index(o) for o in op.offsets]
        if base.origin is None or any(o is None for o in offsets):
            return _Storage(base.root, None)
        return _Storage(base.root, tuple(a + b for a, b in zip(base.origin, offsets)))  # type: ignore[operator]
    if isinstance(op, scf.ForOp) and isinstance(v, OpResult):
        return _storage(op.body.block.args[1 + v.index], visiting | {v})
    return _Storage(None, None)


def _names_storage_of(v: SSAValue, carried: BlockArgument) -> bool:
    """`v` is `carried` or a write-through result (store/assemble) chain ending in it."""
    for _ in range(1000):
        if v is carried:
            return True
        if isinstance(v, OpResult) and isinstance(v.op, tile.StoreOp | tensor.AssembleOp):
            v = v.op.dest
            continue
        return False
    return False


@dataclass(eq=False)
class _Group:
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
    def extent(self) -> int:
        """The rows (elements, for 1-D values) the loop iterates over."""
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
        compute, in first-use order: each is loaded once per block."""
        computed = self.values()
        seen: list[SSAValue] = []
        operands = [v for m in self.members for v in m.operands] + [s.source for s in self.sinks]
        for v in operands:
            if isinstance(v.type, TensorType) and v not in computed and v not in seen:
                seen.append(v)
        return seen


def _uses_in(op: Operation) -> Iterable[SSAValue]:
    yield from op.operands
    for region in op.regions:
        for inner in region.walk():
            yield from inner.operands


class _BlockGrouper:
    """Scans one block in order and forms fusion groups (see the module docstring)."""

    def __init__(self, skip: frozenset[Operation] = frozenset()) -> None:
        self.skip = skip  # ops another rewrite owns (the cast/assemble of a cube matmul)
        self.groups: list[_Group] = []  # in closing order
        self.open: list[_Group] = []
        self.owner: dict[SSAValue, _Group] = {}  # member results and sink results

    def close(self, g: _Group) -> None:
        if not g.closed:
            g.closed = True
            self.open.remove(g)
            self.groups.append(g)

    def close_all(self, keep: _Group | None = None) -> None:
        for g in list(self.open):
            if g is not keep:
                self.close(g)

    def _open_owner(self, v: SSAValue) -> _Group | None:
        g = self.owner.get(v)
        return g if g is not None and not g.closed else None

    def scan(self, block: Block) -> list[_Group]:
        for op in block.ops:
            key = _convertible_key(op) if op not in self.skip else None
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
        joined: list[_Group] = []
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
            target = _Group(key)
            self.open.append(target)
        target.members.append(op)
        target.last = op
        self.owner[op.results[0]] = target

    def _merge(self, target: _Group, other: _Group) -> None:
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
        src_shape = _shape(op.source)
        dst_shape = _static_shape(op.dest.type)
        if dst_shape is None or len(dst_shape) != len(src_shape):
            return False
        if op.dest in g.values() or any(self.owner.get(o) is g for o in op.offsets):
            return False
        if self.owner.get(op.dest) is g and op.dest not in {s.result for s in g.sinks}:
            return False
        dst = _sink_storage(op)
        # Reads of the group happen block by block before the store of the same block (every
        # value of a group is row-aligned): fine when they read a window at the written
        # window's origin, a disjoint one or other storage.
        for v in g.external_inputs():
            if not _storage(v).independent(_shape(v), dst, src_shape):
                return False
        for other in g.sinks:
            if not _sink_storage(other).independent(_shape(other.source), dst, src_shape):
                return False
        # The store is a write: other open groups are closed before it, except those over
        # the same shape whose reads are independent of it, which join this loop (they may
        # compute what a later assemble stores).
        for h in list(self.open):
            if h is g:
                continue
            if h.key == g.key and all(
                _storage(v).independent(_shape(v), dst, src_shape) for v in h.external_inputs()
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
        shape = _static_shape(op.source.type)
        dst_shape = _static_shape(op.dest.type)
        if shape is None or dst_shape is None or len(shape) != len(dst_shape) or 0 in shape:
            return False
        src, dst = _storage(op.source), _sink_storage(op)
        if not src.independent(shape, dst, shape):
            return False
        self._other(op)  # closes the groups it reads from or could disturb
        g = _Group(_group_key(shape), sinks=[op], closed=True, last=op)
        self.groups.append(g)
        return True

    def _other(self, op: Operation) -> None:
        if not is_side_effect_free(op):
            for g in list(self.open):
                if g.sinks:
                    self.close(g)
        for v in _uses_in(op):
            g = self._open_owner(v)
            if g is not None:
                self.close(g)
        if _may_write(op):
            self.close_all()


def _sink_storage(op: tensor.AssembleOp) -> _Storage:
    dst = _storage(op.dest)
    offsets = [_const_index(o) for o in op.offsets]
    if dst.origin is not None and all(o is not None for o in offsets):
        return _Storage(dst.root, tuple(a + b for a, b in zip(dst.origin, offsets)))  # type: ignore[operator]
    return _Storage(dst.root, None)


# --------------------------------------------------------------------------- sizing


def _unit_bytes(shape: Sequence[int], element_type: Attribute) -> int:
    """UB bytes of one row ([1, ...] block) of a tile; rows padded to 32 bytes."""
    w = element_byte_width(element_type)
    if len(shape) == 1:
        return w
    inner = 1
    for d in shape[1:-1]:
        inner *= d
    return inner * (-(-shape[-1] * w // 32) * 32)


def _tile_bytes(rows: int, cols: int, element_type: Attribute) -> int:
    """UB bytes of an [rows, cols] tile as the backend lays it out (`tile_layout`): rows
    padded to 32 bytes, except a [rows, 1] tile, whose values are contiguous; the buffer a
    whole number of 32-byte blocks."""
    w = element_byte_width(element_type)
    per_block = 32 // w
    ld = cols if rows == 1 or cols == 1 else -(-cols // per_block) * per_block
    count = rows * ld if rows > 1 else cols
    return -(-count * w // 32) * 32


@dataclass(frozen=True)
class _TileNeed:
    """One tile of a loop iteration: what it holds, the shape of the whole value it is a
    block of, and its element type."""

    name: str
    shape: tuple[int, ...]
    element_type: Attribute
    rows_per_repeat: int = 1
    """The buffer holds whole repeats of this many rows (8 for a Brcb scratch)."""

    def bytes(self, rows: int, row_group: bool) -> int:
        if row_group:
            rows = -(-rows // self.rows_per_repeat) * self.rows_per_repeat
            return _tile_bytes(rows, self.shape[1], self.element_type)
        return rows * _unit_bytes(self.shape, self.element_type)

    def block(self, rows: int) -> TileType:
        return TileType([rows, *self.shape[1:]], self.element_type)


@dataclass
class _Plan:
    rows: int  # rows (elements for rank 1) per block
    tiles: list[_TileNeed]


def _describe(v: SSAValue, prefix: str) -> str:
    return f"%{v.name_hint}" if v.name_hint else prefix


def _tile_needs(g: _Group) -> list[_TileNeed]:
    """Every tile one iteration of the group's loop holds: loads, op results, the scratch
    tile of a row reduction over more than 256 bytes per row (the backend folds the row's
    256-byte chunks into it first) and the Brcb scratch of a row broadcast."""
    tiles: list[_TileNeed] = []
    for i, v in enumerate(g.external_inputs()):
        tiles.append(_TileNeed(f"load of {_describe(v, f'input #{i}')}", _shape(v), v.type.element_type))  # type: ignore[attr-defined]
    for m in g.members:
        r = m.results[0]
        name = f"{m.name.replace('pypto.tensor.', 'pypto.tile.')} {_describe(r, 'result')}"
        element = r.type.element_type  # type: ignore[attr-defined]
        tiles.append(_TileNeed(name, _shape(r), element))
        if isinstance(m, tuple(_ROW_REDUCE)):
            lanes = 256 // element_byte_width(element)
            rows, cols = _shape(m.operands[0])
            if cols > lanes:
                tiles.append(_TileNeed(f"scratch of {name}", (rows, lanes), element))
        if isinstance(m, tuple(_ROW_EXPAND)):
            rows, cols = _shape(m.operands[0])
            if cols > 1:  # Brcb spreads each row value over one 32-byte block, 8 rows a repeat
                block = 32 // element_byte_width(element)
                tiles.append(_TileNeed(f"broadcast scratch of {name}", (rows, block), element, rows_per_repeat=8))
    return tiles


def _plan(func: FuncOp, g: _Group, budget: int, ub_bytes: int, double_buffer: bool = True) -> _Plan:
    tiles = _tile_needs(g)
    row_group = g.key[0] == "rows"

    def total(rows: int) -> int:
        return sum(t.bytes(rows, row_group) for t in tiles)

    if total(1) > budget:
        listing = ", ".join(f"{t.name} {t.block(1)} ({t.bytes(1, row_group)} B)" for t in tiles)
        what = "one row" if not g.one_dimensional else "one element"
        if row_group and any(isinstance(m, ROW_OPS) for m in g.members):
            over = f"the row-wise ops over {g.extent} rows"
        else:
            over = f"the elementwise ops over {TensorType(tiles[0].shape, tiles[0].element_type)}"
        raise _fail(
            func,
            f"the tiles of {over} need {total(1)} bytes "
            f"for {what} but a {'double-buffered ' if double_buffer else ''}tile set may use {budget} of the "
            f"{ub_bytes} bytes of Unified Buffer: {listing}",
        )
    # the largest row count that fits (the byte count grows with the rows)
    lo, hi = 1, g.extent
    if any(isinstance(m, tuple(_ROW_REDUCE)) for m in g.members):
        hi = min(hi, _MAX_REDUCE_ROWS)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return _Plan(_block_rows(g.extent, g.one_dimensional, lo, tiles), tiles)


def _block_rows(total: int, one_dimensional: bool, max_rows: int, tiles: list[_TileNeed]) -> int:
    """Rows per block: as few blocks as `max_rows` allows, preferring a block size that
    divides the extent (no tail), else balanced blocks. Rank-1 blocks are whole 32-byte
    multiples of every tile's element width when possible."""
    align = 32 // min(element_byte_width(t.element_type) for t in tiles) if one_dimensional else 1
    if max_rows >= total:
        return total
    if max_rows >= align:
        max_rows -= max_rows % align
    blocks = -(-total // max_rows)
    for n in range(blocks, 2 * blocks + 1):
        if total % n == 0 and (total // n) % align == 0 and total // n <= max_rows:
            return total // n
    balanced = -(-total // blocks)
    balanced += -balanced % align
    return min(balanced, max_rows)


# --------------------------------------------------------------------------- rewriting




def _tile_op(m: Operation, operands: dict[SSAValue, SSAValue]) -> Operation:
    get = lambda v: operands.get(v, v)
    if type(m) in _ROW_REDUCE:
        return _ROW_REDUCE[type(m)](get(m.operands[0]))
    if type(m) in _ROW_EXPAND:
        return _ROW_EXPAND[type(m)](get(m.operands[0]), get(m.operands[1]))
    if type(m) in _BINARY:
        return _BINARY[type(m)](get(m.operands[0]), get(m.operands[1]))
    if type(m) in _SCALAR:
        return _SCALAR[type(m)](get(m.operands[0]), m.operands[1])
    if type(m) in _UNARY:
        return _UNARY[type(m)](get(m.operands[0]))
    assert isinstance(m, tensor.CastOp)
    return tile.CastOp(get(m.input), m.result.type.element_type)  # type: ignore[attr-defined]


class _IndexConstants:
    """`index` constants available just before `anchor`: reused when an earlier op of its
    block already defines one, otherwise inserted right before it (dominating what follows)."""

    def __init__(self, anchor: Operation, rewriter: PatternRewriter):
        self.anchor = anchor
        self.rewriter = rewriter
        self.at = InsertPoint.before(anchor)
        self.values: dict[int, SSAValue] = {}

    def get(self, value: int) -> SSAValue:
        if value not in self.values:
            existing = self._existing(value)
            self.values[value] = existing if existing is not None else self._insert(value)
        return self.values[value]

    def _existing(self, value: int) -> SSAValue | None:
        for prev in self.anchor.parent_block().ops:  # type: ignore[union-attr]
            if prev is self.anchor:
                return None
            if (
                isinstance(prev, arith.ConstantOp)
                and isinstance(prev.result.type, IndexType)
                and _const_index(prev.result) == value
            ):
                return prev.result
        return None

    def _insert(self, value: int) -> SSAValue:
        c = arith.ConstantOp(IntegerAttr(value, IndexType()))
        c.result.name_hint = f"c{value}"
        self.rewriter.insert(c, self.at)
        return c.result


class _GroupRewriter:
    """Emits the loop of one planned fusion group in place of its ops (through `rewriter`)."""

    def __init__(self, func: FuncOp, g: _Group, plan: _Plan, spmd: bool, rewriter: PatternRewriter):
        self.func, self.g, self.plan, self.spmd = func, g, plan, spmd
        self.rewriter = rewriter
        assert g.last is not None
        self.at = InsertPoint.before(g.last)
        self.consts = _IndexConstants(g.last, rewriter)

    def _index(self, value: int) -> SSAValue:
        """An index constant, inserted before the group's loop (so it dominates its body)."""
        return self.consts.get(value)

    def rewrite(self) -> None:
        g = self.g
        assert g.last is not None
        at = InsertPoint.before(g.last)
        # Group values needed as tensors: any use outside the members (sinks aside).
        members = set(g.members)
        materialize: list[SSAValue] = []
        for m in g.members:
            r = m.results[0]
            if any(u.operation not in members and u.operation not in g.sinks for u in r.uses):
                materialize.append(r)
        if not materialize and not g.sinks:
            self._erase_members()
            return
        # Carries: the tensors the loop writes (a tensor.create per materialized value, the
        # destination of every sink; a sink into an earlier sink's result shares its carry).
        # Stores: (value, carry index, window offsets or None for a whole materialized tensor).
        inits: list[SSAValue] = []
        stores: list[tuple[SSAValue, int, Sequence[SSAValue] | None]] = []
        for r in materialize:
            create = tensor.CreateOp(r.type)  # type: ignore[arg-type]
            create.result.name_hint = r.name_hint
            self.rewriter.insert(create, at)
            stores.append((r, len(inits), None))
            inits.append(create.result)
        sink_carry: dict[SSAValue, int] = {}
        for sink in g.sinks:
            carry = sink_carry.get(sink.dest)
            if carry is None:
                carry = len(inits)
                inits.append(sink.dest)
            sink_carry[sink.result] = carry
            stores.append((sink.source, carry, list(sink.offsets)))
        rows, total = self.plan.rows, g.extent
        full_blocks, tail = divmod(total, rows)
        current = inits
        if self.spmd and full_blocks > 0:
            current = self._spmd_loop(at, stores, inits, rows, full_blocks)
            if tail:
                current = self._spmd_tail(at, stores, current, full_blocks * rows, tail, full_blocks)
        else:
            if full_blocks > 1:
                current = self._loop(at, stores, inits, rows, full_blocks * rows)
            elif full_blocks == 1:
                current = self._body(at, stores, inits, self._index(0), rows)
            if tail:
                current = self._body(at, stores, current, self._index(full_blocks * rows), tail)
        inside = members.union(g.sinks)
        for value, carry, offsets in stores:
            if offsets is None:
                self.rewriter.replace_uses_with_if(value, current[carry], lambda use: use.operation not in inside)
        for sink in reversed(g.sinks):
            self.rewriter.replace_all_uses_with(sink.result, current[sink_carry[sink.result]])
            self.rewriter.erase(sink)
        self._erase_members()

    def _erase_members(self) -> None:
        for m in reversed(self.g.members):
            self.rewriter.erase(m)

    def _loop(self, at: InsertPoint, stores, inits, rows: int, end: int) -> list[SSAValue]:
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        body.args[0].name_hint = "row"
        for arg, init in zip(body.args[1:], inits):
            arg.name_hint = init.name_hint
        loop = scf.ForOp(self._index(0), self._index(end), self._index(rows), inits, body)
        inner_at = InsertPoint.at_end(body)
        stored = self._body(inner_at, stores, list(body.args[1:]), body.args[0], rows)
        self.rewriter.insert(scf.YieldOp(*stored), inner_at)
        # Inserted last: constants made while building the body go before it.
        self.rewriter.insert(loop, at)
        for r, init in zip(loop.results, inits):
            r.name_hint = init.name_hint
        return list(loop.results)

    def _spmd_loop(self, at: InsertPoint, stores, inits, rows: int, nblocks: int) -> list[SSAValue]:
        idx, num = tile.GetBlockIdxOp(), tile.GetBlockNumOp()
        idx.result.name_hint, num.result.name_hint = "block_idx", "block_num"
        self.rewriter.insert([idx, num], at)
        self.block_idx, self.block_num = idx.result, num.result
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        body.args[0].name_hint = "blk"
        for arg, init in zip(body.args[1:], inits):
            arg.name_hint = init.name_hint
        loop = scf.ForOp(idx.result, self._index(nblocks), num.result, inits, body)
        inner_at = InsertPoint.at_end(body)
        row = arith.MuliOp(body.args[0], self._index(rows))
        row.result.name_hint = "row"
        self.rewriter.insert(row, inner_at)
        stored = self._body(inner_at, stores, list(body.args[1:]), row.result, rows)
        self.rewriter.insert(scf.YieldOp(*stored), inner_at)
        self.rewriter.insert(loop, at)
        for r, init in zip(loop.results, inits):
            r.name_hint = init.name_hint
        return list(loop.results)

    def _spmd_tail(self, at: InsertPoint, stores, current, start: int, tail: int, nblocks: int) -> list[SSAValue]:
        """The tail block runs on core `nblocks % block_num` (the next one in the cycle)."""
        owner = arith.RemSIOp(self._index(nblocks), self.block_num)
        is_owner = arith.CmpiOp(self.block_idx, owner.result, "eq")
        owner.result.name_hint, is_owner.result.name_hint = "tail_core", "on_tail_core"
        self.rewriter.insert([owner, is_owner], at)
        then_block, else_block = Block(), Block()
        inner_at = InsertPoint.at_end(then_block)
        stored = self._body(inner_at, stores, current, self._index(start), tail)
        self.rewriter.insert(scf.YieldOp(*stored), inner_at)
        else_block.add_op(scf.YieldOp(*current))
        branch = scf.IfOp(is_owner.result, [v.type for v in current], [then_block], [else_block])
        self.rewriter.insert(branch, at)
        for r, v in zip(branch.results, current):
            r.name_hint = v.name_hint
        return list(branch.results)

    def _body(
        self,
        at: InsertPoint,
        stores: Sequence[tuple[SSAValue, int, Sequence[SSAValue] | None]],
        carries: Sequence[SSAValue],
        row: SSAValue,
        rows: int,
    ) -> list[SSAValue]:
        """Loads, tile ops and stores of one [rows, ...] block starting at `row`; returns the
        carried tensors after the stores."""
        g = self.g
        zero = self._index(0) if g.rank > 1 else None
        offsets = [row, *([zero] * (g.rank - 1))]
        tiles: dict[SSAValue, SSAValue] = {}
        for v in g.external_inputs():
            shape = [rows, *_shape(v)[1:]]
            load = tile.LoadOp(v, offsets, TileType(shape, v.type.element_type))  # type: ignore[attr-defined]
            load.result.name_hint = f"{v.name_hint}_tile" if v.name_hint else None
            self.rewriter.insert(load, at)
            tiles[v] = load.result
        for m in g.members:
            if isinstance(m, tensor.CastOp) and m.result.type == m.input.type:
                # an identity cast (e.g. of an f32 matmul product): the same tile
                tiles[m.result] = tiles[m.input]
                continue
            t = _tile_op(m, tiles)
            t.results[0].name_hint = f"{m.results[0].name_hint}_tile" if m.results[0].name_hint else None
            self.rewriter.insert(t, at)
            tiles[m.results[0]] = t.results[0]
        current = list(carries)
        for value, carry, sink_offsets in stores:
            if sink_offsets is None:
                where = offsets
            else:
                where = list(sink_offsets)
                base, start = _const_index(where[0]), _const_index(row)
                if base == 0:
                    where[0] = row
                elif start == 0:
                    pass
                elif base is not None and start is not None:
                    where[0] = self._index(base + start)
                else:
                    add = arith.AddiOp(where[0], row)
                    add.result.name_hint = "dst_row"
                    self.rewriter.insert(add, at)
                    where[0] = add.result
            target = current[carry]
            store = tile.StoreOp(tiles[value], target, where)
            store.result.name_hint = target.name_hint
            self.rewriter.insert(store, at)
            current[carry] = store.result
        return current


# --------------------------------------------------------------------------- cube matmul

L1_BYTES = 512 * 1024
L0A_BYTES = 64 * 1024
L0B_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
"""On-chip cube buffers of one AI core (A2/A3): L1 (`mat`), L0A (`left`), L0B (`right`),
L0C (`acc`)."""

_MATMUL_KINDS = frozenset({FuncKind.INCORE, FuncKind.AIC})
_CUBE_BLOCK_MAX = 128
_CUBE_COPIES = 4  # first-K-block tile + double-buffered K-loop tile, all double-buffered by outer loops


def _func_of(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _matmul_reason(op: tensor.MatmulOp) -> str | None:
    """Why the cube path cannot compute `op` (None: it can)."""
    func = _func_of(op)
    if func is None or func.func_kind not in _MATMUL_KINDS:
        return "matmul runs on the cube unit: it is converted in incore/aic functions only"
    a, b = _static_shape(op.lhs.type), _static_shape(op.rhs.type)
    if a is None or b is None:
        return "its shapes are not static"
    dtype = op.lhs.type.element_type  # type: ignore[attr-defined]
    if not isinstance(dtype, Float16Type):
        return f"the cube path multiplies f16 operands, not {dtype}"
    if any(d % 16 for d in (*a, *b)):
        return f"every dim must be a multiple of 16 for the cube path, got {a[0]}x{a[1]} @ {b[0]}x{b[1]}"
    return None


def _cube_block(dim: int, cap: int) -> int:
    """The largest multiple of 16 that divides `dim` and is at most `cap` (>= 16)."""
    best = 16
    for d in range(16, min(dim, cap) + 1, 16):
        if dim % d == 0:
            best = d
    return best


def _identity_cast(op: tensor.MatmulOp) -> tensor.CastOp | None:
    """The same-type `tensor.cast` that is the product's only use, in its block (what
    `pl.cast(pl.matmul(a, b), pl.FP32)` gives now that the product is already f32): the
    cube code stores straight into what the cast names, and the cast goes away."""
    uses = list(op.result.uses)
    if len(uses) != 1:
        return None
    cast = uses[0].operation
    if (
        isinstance(cast, tensor.CastOp)
        and cast.result.type == op.result.type
        and cast.parent_block() is op.parent_block()
    ):
        return cast
    return None


@dataclass
class _MatmulPlan:
    """One `tensor.matmul` (f16 -> f32), optionally through an identity cast, optionally
    assembled into `sink`."""

    matmul: tensor.MatmulOp
    cast: tensor.CastOp | None
    sink: tensor.AssembleOp | None
    blocks: tuple[int, int, int]  # M, N, K block sizes

    @property
    def result(self) -> SSAValue:
        """The tensor value the cube code computes (the cast's, when there is one)."""
        return self.cast.result if self.cast is not None else self.matmul.result

    @property
    def skipped(self) -> tuple[Operation, ...]:
        return tuple(o for o in (self.cast, self.sink) if o is not None)


def _plan_matmul(op: tensor.MatmulOp) -> _MatmulPlan | None:
    if _matmul_reason(op) is not None:
        return None
    cast = _identity_cast(op)
    (m, k), (_, n) = _static_shape(op.lhs.type), _static_shape(op.rhs.type)  # type: ignore[misc]
    mb, nb = _cube_block(m, _CUBE_BLOCK_MAX), _cube_block(n, _CUBE_BLOCK_MAX)
    kb = 16
    for d in range(16, k + 1, 16):
        if (
            k % d == 0
            and _CUBE_COPIES * mb * d * 2 <= L0A_BYTES
            and _CUBE_COPIES * d * nb * 2 <= L0B_BYTES
            and _CUBE_COPIES * (mb * d + d * nb) * 2 <= L1_BYTES
        ):
            kb = d
    assert mb * nb * 4 <= L0C_BYTES
    result = cast.result if cast is not None else op.result
    return _MatmulPlan(op, cast, _matmul_sink(op, result), (mb, nb, kb))


def _matmul_sink(op: tensor.MatmulOp, result: SSAValue) -> tensor.AssembleOp | None:
    """The assemble the accumulator can be stored into directly: the product's (or its
    identity cast's) only use, in the same block, with nothing that may write memory between
    the matmul and it, into storage that the operands are known not to share."""
    uses = list(result.uses)
    if len(uses) != 1:
        return None
    sink = uses[0].operation
    if not isinstance(sink, tensor.AssembleOp) or uses[0].index != 0 or sink.parent_block() is not op.parent_block():
        return None
    dst_shape = _static_shape(sink.dest.type)
    if dst_shape is None or len(dst_shape) != 2:
        return None
    block = op.parent_block()
    assert block is not None
    start, end = block.get_operation_index(op), block.get_operation_index(sink)
    for between in list(block.ops)[start + 1 : end]:
        if _may_write(between):
            return None
    dst = _sink_storage(sink)
    if not all(_storage(v).distinct_from(dst) for v in (op.lhs, op.rhs)):
        return None
    return sink


class _MatmulRewriter:
    """Emits the blocked cube code of one planned matmul:

        for m (M blocks), for n (N blocks) carrying the destination:
          load A[m, 0], B[0, n] into mat; move to left/right; acc = matmul
          scf.for k (the other K blocks) carrying acc: load, move, acc = matmul_acc
          store acc into the destination window
    """

    def __init__(self, plan: _MatmulPlan, rewriter: PatternRewriter):
        self.plan = plan
        self.rewriter = rewriter
        anchor = plan.sink if plan.sink is not None else plan.matmul
        self.at = InsertPoint.before(anchor)
        self.consts = _IndexConstants(anchor, rewriter)

    def _index(self, value: int) -> SSAValue:
        return self.consts.get(value)

    def rewrite(self) -> None:
        p = self.plan
        a, b = p.matmul.lhs, p.matmul.rhs
        (m, k), (_, n) = _static_shape(a.type), _static_shape(b.type)  # type: ignore[misc]
        mb, nb, kb = p.blocks
        result_name = p.result.name_hint
        if p.sink is not None:
            dest, offsets = p.sink.dest, list(p.sink.offsets)
        else:
            create = tensor.CreateOp(p.result.type)  # type: ignore[arg-type]
            create.result.name_hint = result_name
            self.rewriter.insert(create, self.at)
            dest, offsets = create.result, [self._index(0), self._index(0)]

        def tile_n(at: InsertPoint, carried: SSAValue, row: SSAValue) -> SSAValue:
            return self._loop(at, n, nb, carried, "n",
                              lambda at2, c2, col: self._block(at2, a, b, c2, offsets, row, col, k, (mb, nb, kb)))

        final = self._loop(self.at, m, mb, dest, "m", tile_n)
        if p.sink is not None:
            self.rewriter.replace_all_uses_with(p.sink.result, final)
            self.rewriter.erase(p.sink)
        else:
            self.rewriter.replace_all_uses_with(p.result, final)
        if p.cast is not None:
            self.rewriter.erase(p.cast)
        self.rewriter.erase(p.matmul)

    def _loop(self, at: InsertPoint, extent: int, step: int, carried: SSAValue, name: str, body) -> SSAValue:
        """`body(at, carried, iv)` once per block; a scf.for when there are several."""
        if extent == step:
            return body(at, carried, self._index(0))
        block = Block(arg_types=[IndexType(), carried.type])
        block.args[0].name_hint = name
        block.args[1].name_hint = carried.name_hint
        inner = InsertPoint.at_end(block)
        out = body(inner, block.args[1], block.args[0])
        self.rewriter.insert(scf.YieldOp(out), inner)
        loop = scf.ForOp(self._index(0), self._index(extent), self._index(step), [carried], block)
        self.rewriter.insert(loop, at)
        loop.results[0].name_hint = carried.name_hint
        return loop.results[0]

    def _offset(self, at: InsertPoint, base: SSAValue, delta: SSAValue, name: str) -> SSAValue:
        b, d = _const_index(base), _const_index(delta)
        if b == 0:
            return delta
        if d == 0:
            return base
        if b is not None and d is not None:
            return self._index(b + d)
        add = arith.AddiOp(base, delta)
        add.result.name_hint = name
        self.rewriter.insert(add, at)
        return add.result

    def _operands(self, at: InsertPoint, a: SSAValue, b: SSAValue, row: SSAValue, col: SSAValue,
                  kk: SSAValue, shape: tuple[int, int, int], suffix: str) -> tuple[SSAValue, SSAValue]:
        mb, nb, kb = shape
        f16 = a.type.element_type  # type: ignore[attr-defined]
        a_mat = tile.LoadOp(a, [row, kk], TileType([mb, kb], f16, MemorySpace.MAT))
        b_mat = tile.LoadOp(b, [kk, col], TileType([kb, nb], f16, MemorySpace.MAT))
        left = tile.MoveOp(a_mat, MemorySpace.LEFT)
        right = tile.MoveOp(b_mat, MemorySpace.RIGHT)
        a_name, b_name = a.name_hint or "lhs", b.name_hint or "rhs"
        a_mat.result.name_hint, b_mat.result.name_hint = f"{a_name}_mat{suffix}", f"{b_name}_mat{suffix}"
        left.result.name_hint, right.result.name_hint = f"{a_name}_left{suffix}", f"{b_name}_right{suffix}"
        self.rewriter.insert([a_mat, b_mat, left, right], at)
        return left.result, right.result

    def _block(self, at: InsertPoint, a: SSAValue, b: SSAValue, dest: SSAValue, offsets: Sequence[SSAValue],
               row: SSAValue, col: SSAValue, k: int, shape: tuple[int, int, int]) -> SSAValue:
        """One [mb, nb] output block: the K reduction into an acc tile, then its store."""
        _mb, _nb, kb = shape
        left, right = self._operands(at, a, b, row, col, self._index(0), shape, "")
        acc = tile.MatmulOp(left, right)
        acc.result.name_hint = "acc"
        self.rewriter.insert(acc, at)
        result = acc.result
        if k > kb:
            block = Block(arg_types=[IndexType(), result.type])
            block.args[0].name_hint, block.args[1].name_hint = "k", "part"
            inner = InsertPoint.at_end(block)
            l2, r2 = self._operands(inner, a, b, row, col, block.args[0], shape, "_k")
            nxt = tile.MatmulAccOp(block.args[1], l2, r2)
            nxt.result.name_hint = "part"
            self.rewriter.insert([nxt, scf.YieldOp(nxt.result)], inner)
            loop = scf.ForOp(self._index(kb), self._index(k), self._index(kb), [result], block)
            self.rewriter.insert(loop, at)
            loop.results[0].name_hint = "acc"
            result = loop.results[0]
        where = [self._offset(at, offsets[0], row, "dst_row"), self._offset(at, offsets[1], col, "dst_col")]
        store = tile.StoreOp(result, dest, where)
        store.result.name_hint = dest.name_hint
        self.rewriter.insert(store, at)
        return store.result


# --------------------------------------------------------------------------- patterns


class ConvertFusionGroup(RewritePattern):
    """Rewrites a planned fusion group into its loop over row blocks, at the group's anchor
    (its last member or sink): every member and sink precedes the anchor, so a forward walk
    reaches it after all of them."""

    def __init__(self, groups: dict[Operation, tuple[FuncOp, _Group, _Plan, bool]]):
        self.groups = groups

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        planned = self.groups.pop(op, None)
        if planned is not None:
            _GroupRewriter(*planned, rewriter).rewrite()


class ConvertCubeMatmul(RewritePattern):
    """Rewrites a planned `tensor.matmul` into blocked cube code, at its anchor (the
    assemble its accumulator is stored into, else the matmul)."""

    def __init__(self, plans: dict[Operation, _MatmulPlan]):
        self.plans = plans

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        plan = self.plans.pop(op, None)
        if plan is not None:
            _MatmulRewriter(plan, rewriter).rewrite()


# --------------------------------------------------------------------------- the pass


def _blocks(op: Operation) -> Iterable[Block]:
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in list(block.ops):
                yield from _blocks(inner)


def _launch_block_dim(module: ModuleOp, func: FuncOp) -> int:
    """N when the function is launched on N cores (`pypto.block_dim`), else 1."""
    attr = func.attributes.get(BLOCK_DIM_ATTR)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    dims: set[int] = set()
    name = func.sym_name.data
    for op in module.walk():
        if isinstance(op, CallOp | SubmitOp) and op.callee.root_reference.data == name:
            a = op.attributes.get(BLOCK_DIM_ATTR)
            dims.add(a.value.data if isinstance(a, IntegerAttr) else 1)
    return dims.pop() if len(dims) == 1 else 1


@dataclass(frozen=True)
class ConvertTensorToTilePass(ModulePass):
    """`convert-tensor-to-tile`: see the module docstring and docs/passes/convert-tensor-to-tile.md.

    Options: `ub-bytes` (Unified Buffer capacity, default 196608) and `double-buffer`
    (default true: a tile set may use half of it).
    """

    name = "convert-tensor-to-tile"

    ub_bytes: int = UB_BYTES
    double_buffer: bool = True

    KINDS: ClassVar[frozenset[FuncKind]] = _CONVERTED_KINDS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        budget = self.ub_bytes // 2 if self.double_buffer else self.ub_bytes
        work: list[tuple[FuncOp, _Group, _Plan, bool]] = []
        matmuls: list[_MatmulPlan] = []
        # Analyse and size everything first, so a failure leaves the module unchanged.
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if func.func_kind in _MATMUL_KINDS:
                for mm in func.walk():
                    if isinstance(mm, tensor.MatmulOp) and (plan := _plan_matmul(mm)) is not None:
                        matmuls.append(plan)
            if func.func_kind not in self.KINDS:
                continue
            skip = frozenset(o for p in matmuls for o in p.skipped)
            groups: list[_Group] = []
            for block in _blocks(func):
                groups.extend(_BlockGrouper(skip).scan(block))
            spmd = _launch_block_dim(op, func) > 1 and self._single_group_body(func, groups)
            for g in groups:
                work.append((func, g, _plan(func, g, budget, self.ub_bytes, self.double_buffer), spmd))
        if not work and not matmuls:
            return
        groups = {g.last: (func, g, plan, spmd) for func, g, plan, spmd in work}
        cube = {(p.sink if p.sink is not None else p.matmul): p for p in matmuls}
        patterns = GreedyRewritePatternApplier(
            [ConvertFusionGroup(groups), ConvertCubeMatmul(cube)], dce_enabled=False
        )
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
        invalidate(op)

    @staticmethod
    def _single_group_body(func: FuncOp, groups: list[_Group]) -> bool:
        """True when splitting the group's rows across cores cannot race: one group, at the
        function's top level, storing only into parameters, nothing else in the body touches
        memory, and the body does not already pick its share of the work by block index."""
        if len(groups) != 1:
            return False
        if any(isinstance(o, tile.GetBlockIdxOp | tile.GetBlockNumOp) for o in func.walk()):
            return False  # the body distributes its work over the cores itself
        g = groups[0]
        entry = func.body.blocks[0]
        if g.last is None or g.last.parent_block() is not entry or not g.sinks:
            return False
        members = set(g.members) | set(g.sinks)
        for o in entry.ops:
            if o in members or isinstance(o, ReturnOp) or is_side_effect_free(o):
                continue
            return False
        for m in g.members:
            if any(u.operation not in members for u in m.results[0].uses):
                return False
        return True


# --------------------------------------------------------------------------- verifier

_KEPT_TENSOR_OPS = (tensor.CreateOp, tensor.SliceOp, tensor.DimOp, tensor.ReadOp)


def _why_not_converted(op: Operation) -> str:
    func = _func_of(op)
    if isinstance(op, tensor.MatmulOp):
        return _matmul_reason(op) or "it was not converted"
    if func is not None and func.func_kind not in _CONVERTED_KINDS:
        return "tensor-level compute other than matmul is converted in incore/aiv functions only"
    if isinstance(op, FUSED_OPS):
        return "its shape is not static" if _convertible_key(op) is None else "it was not converted"
    if isinstance(op, tensor.AssembleOp):
        if _static_shape(op.source.type) is None or _static_shape(op.dest.type) is None:
            return "its shapes are not static"
        shape = _static_shape(op.source.type) or ()
        if not _storage(op.source).independent(shape, _sink_storage(op), shape):
            return "its source and destination may overlap"
        return "it was not converted"
    return "the op has no tile-level lowering"


def check_tensor_to_tile(
    module: ModuleOp,
    kinds: Iterable[FuncKind] = _CONVERTED_KINDS,
    matmul_kinds: Iterable[FuncKind] = _MATMUL_KINDS,
) -> list[str]:
    """Tensor-level compute left in InCore functions, one message per op: any tensor compute
    in `kinds` (`incore`/`aiv`), and `tensor.matmul` in `matmul_kinds` (`incore`/`aic`)."""
    kinds, matmul_kinds = frozenset(kinds), frozenset(matmul_kinds)
    problems: list[str] = []
    for func in module.walk():
        if not isinstance(func, FuncOp) or func.func_kind not in kinds | matmul_kinds:
            continue
        for op in func.walk():
            if not op.name.startswith("pypto.tensor.") or isinstance(op, _KEPT_TENSOR_OPS):
                continue
            if func.func_kind not in kinds and not isinstance(op, tensor.MatmulOp):
                continue
            what = f"%{op.results[0].name_hint}" if op.results and op.results[0].name_hint else "a result"
            problems.append(f"@{func.sym_name.data}: '{op.name}' ({what}) is left: {_why_not_converted(op)}")
    return problems


@dataclass(frozen=True)
class VerifyTensorToTilePass(ModulePass):
    """`verify-convert-tensor-to-tile`: no tensor-level compute left in incore/aiv functions
    and no `tensor.matmul` left in aic functions
    (what `convert-tensor-to-tile` establishes for everything it supports)."""

    name = "verify-convert-tensor-to-tile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems = check_tensor_to_tile(op)
        if problems:
            raise PassFailedException(
                "verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:\n  "
                + "\n  ".join(problems)
            )
