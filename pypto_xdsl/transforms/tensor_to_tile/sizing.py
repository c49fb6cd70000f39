"""Tile sizing of a fusion group: the tiles of one loop iteration (loads, op results and the
ops' scratch) laid out as the backend does, the buffers its plan gives them (double-buffered
queues, VECCALC buffers shared between disjoint live ranges), and the row count whose plan
fits the Unified Buffer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Operation, SSAValue

from pypto_xdsl.analysis.ascendc_kernel import math_scratch_bytes
from pypto_xdsl.analysis.dim_bounds import missing_bound_message
from pypto_xdsl.dialects import tensor
from pypto_xdsl.dialects.attributes import (
    Dim,
    TensorType,
    TileType,
    element_byte_width,
)
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.transforms.tensor_to_tile.grouping import (
    BINARY,
    MAX_REDUCE_ROWS,
    ROW_EXPAND,
    ROW_REDUCE,
    ROW_TYPES,
    SCALAR,
    UNARY,
    FusionGroup,
    dims_of,
    is_static,
    pass_failure,
    read_operands,
)

# --------------------------------------------------------------------------- sizing


def unit_bytes(shape: Sequence[int], element_type: Attribute) -> int:
    """UB bytes of one row ([1, ...] block) of a tile; rows padded to 32 bytes."""
    w = element_byte_width(element_type)
    if len(shape) == 1:
        return w
    inner = 1
    for d in shape[1:-1]:
        inner *= d
    return inner * (-(-shape[-1] * w // 32) * 32)


def tile_bytes(rows: int, cols: int, element_type: Attribute) -> int:
    """UB bytes of an [rows, cols] tile as the backend lays it out (`tile_layout`): rows
    padded to 32 bytes, except a [rows, 1] tile, whose values are contiguous; the buffer a
    whole number of 32-byte blocks."""
    w = element_byte_width(element_type)
    per_block = 32 // w
    ld = cols if rows == 1 or cols == 1 else -(-cols // per_block) * per_block
    count = rows * ld if rows > 1 else cols
    return -(-count * w // 32) * 32


@dataclass(frozen=True)
class TileNeed:
    """One tile of a loop iteration: what it holds, the shape of the whole value it is a
    block of, its element type, and the buffer the Ascend C backend gives it."""

    name: str
    shape: tuple[int, ...]
    element_type: Attribute
    rows_per_repeat: int = 1
    """The buffer holds whole repeats of this many rows (8 for a Brcb scratch)."""
    fixed_rows: int | None = None
    """Rows independent of the block size (1 for a column vector loaded once)."""
    fixed_bytes: int | None = None
    """A buffer of this size whatever the block (the minimum temporary buffer of an Ascend C
    math API)."""
    queue: bool = False
    """A queue of its own (a load, a directly stored result, a store's staging buffer), which
    the backend double-buffers inside a loop; otherwise a VECCALC buffer shared with the
    tiles whose live ranges are disjoint from `live`."""
    live: tuple[int, int] = (0, 0)
    """First and last step of the loop body holding the tile (loads are step 0, member k is
    step k + 1, the stores come after the last member)."""
    math_scratch: bool = False
    """The sharedTmpBuffer of Sin/Cos over the block (`math_scratch_bytes` of its elements)."""
    in_place_of: int | None = None
    """The index (in the group's tile list) of a source tile dying at this tile's op whose
    buffer ascendc-plan-buffers may compute it in, when the kernel does not fit
    double-buffered otherwise (`in-place=auto`)."""

    def bytes(self, rows: int, row_group: bool) -> int:
        if self.fixed_bytes is not None:
            return self.fixed_bytes
        if self.fixed_rows is not None:
            rows = self.fixed_rows
        if self.math_scratch:
            return max(self._min_math_bytes(), math_scratch_bytes(self._elements(rows, row_group)))
        if row_group:
            rows = -(-rows // self.rows_per_repeat) * self.rows_per_repeat
            return tile_bytes(rows, self.shape[1], self.element_type)
        return rows * unit_bytes(self.shape, self.element_type)

    def _elements(self, rows: int, row_group: bool) -> int:
        """Elements the backend's vector instructions cover in the block (row padding included)."""
        w = element_byte_width(self.element_type)
        if not row_group or len(self.shape) == 1:
            return rows * unit_bytes(self.shape, self.element_type) // w
        cols = self.shape[1]
        ld = cols if rows == 1 or cols == 1 else -(-cols // (32 // w)) * (32 // w)
        return rows * ld if rows > 1 else cols

    def _min_math_bytes(self) -> int:
        f32_bytes, half_bytes = MATH_SCRATCH[tensor.SinOp]
        return f32_bytes if element_byte_width(self.element_type) == 4 else half_bytes

    def block(self, rows: int) -> TileType:
        if self.fixed_bytes is not None:
            return TileType([self.fixed_bytes // element_byte_width(self.element_type)], self.element_type)
        return TileType([self.fixed_rows or rows, *self.shape[1:]], self.element_type)


@dataclass
class TilePlan:
    rows: int  # rows (elements for rank 1) per block
    tiles: list[TileNeed]
    row_bound: int | None = None
    """For a dynamic row count: its bound (None: unbounded)."""
    bounds: dict[str, int] = field(default_factory=dict)
    """The static size of every dynamic column dimension of the group's tiles."""

    def tile_shape(self, dims: Sequence[Dim], rows: int) -> list[int]:
        """The static shape of the [rows, ...] tile of a value of shape `dims`."""
        if not self.bounds:
            return [rows, *dims[1:]]  # type: ignore[list-item]  (static columns)
        return [rows, *(self.bounds[d] if isinstance(d, str) else d for d in dims[1:])]  # type: ignore[misc]

    @property
    def dynamic(self) -> bool:
        return bool(self.bounds)


MAX_DYNAMIC_ROWS = 4095
"""Rows of one block of a dynamic row count: a DataCopyPad moves at most 4095 blocks (rows)."""

BoundOf = Callable[[str], "int | None"]
"""The bound of a dimension symbol of the function being converted (None: unbounded)."""

BOUND_OPTION = "convert-tensor-to-tile{default-dim-bound=...}"


def bounded_dims(func: FuncOp, dims: Sequence[Dim], bound_of: BoundOf, what: str, bounds: dict[str, int]) -> tuple[Dim, ...]:
    """`dims` with every dynamic dimension after the first replaced by its bound (recorded in
    `bounds`); a dimension without one is a PassFailedException naming it."""
    out: list[Dim] = [dims[0]]
    for d in dims[1:]:
        if isinstance(d, str):
            b = bound_of(d)
            if b is None:
                raise pass_failure(func, missing_bound_message(func, d, what, BOUND_OPTION))
            bounds[d] = b
            out.append(b)
        else:
            out.append(d)
    return tuple(out)


def describe_value(v: SSAValue, prefix: str) -> str:
    return f"%{v.name_hint}" if v.name_hint else prefix


MATH_SCRATCH: dict[type[Operation], tuple[int, int]] = {
    tensor.TanhOp: (256, 1024),
    tensor.SinOp: (768, 2048),
    tensor.CosOp: (768, 2048),
}
"""The minimum temporary buffer (bytes, for f32 and for 16-bit floats) of the Ascend C math
APIs these ops lower to (`GetTanhMaxMinTmpSize`, `GetSinMaxMinTmpSize`, ...: 1 / 4 float
temporaries of one 256-byte repeat for Tanh, 3 / 8 for Sin and Cos)."""


ADVANCED_MATH = (tensor.SinOp, tensor.CosOp)
"""Ops the backend lowers to an advanced-API call given a scratch over the whole block
(`math_scratch_bytes`, at least the API's minimum)."""


def reduction_scratch_chunks(full_chunks: int) -> int:
    """256-byte chunks per row of a row reduction's scratch: ascendc-tree-reductions folds
    the `full_chunks` whole chunks of a row pairwise into ceil(full / 2) of them (at most 31:
    level-0 repeat strides are 8-bit counts of 32-byte blocks)."""
    return min(max(1, -(-full_chunks // 2)), 31)


def _is_identity_cast(m: Operation) -> bool:
    return isinstance(m, tensor.CastOp) and m.result.type == m.input.type


def tile_needs(
    g: FusionGroup, shape: Callable[[SSAValue], tuple[Dim, ...]] | None = None, tree_scratch: bool = True,
) -> list[TileNeed]:
    """Every tile one iteration of the group's loop holds, with the buffer the backend gives
    it (`analysis/ascendc_kernel.py`): a load a VECIN queue (a column vector once, not per
    row); a result stored once a VECOUT queue (the stores follow the last member, so the
    store is its last use); any other result a VECCALC buffer live from its op to its last
    use, plus a VECOUT staging queue per store; the scratch tile of a row reduction over more
    than 256 bytes per row (`reduction_scratch_chunks` wide), the Brcb scratch of a row
    broadcast and the temporary buffer of a math API (tanh, sin, cos) VECCALC buffers live
    during their op. An identity cast is its
    operand's tile. `shape` gives a value's shape with its dynamic columns bounded (default:
    its static shape)."""
    shape = shape or dims_of
    members = g.members
    alias: dict[SSAValue, SSAValue] = {}
    for m in members:
        if _is_identity_cast(m):
            alias[m.results[0]] = alias.get(m.operands[0], m.operands[0])
    resolve = lambda v: alias.get(v, v)  # noqa: E731
    store_step = len(members) + 1
    stores: dict[SSAValue, int] = {}
    member_set = set(members)
    for s in g.sinks:
        stores[resolve(s.source)] = stores.get(resolve(s.source), 0) + 1
    for m in members:
        r = m.results[0]
        if any(u.operation not in member_set and u.operation not in g.sinks for u in r.uses):
            stores[resolve(r)] = stores.get(resolve(r), 0) + 1
    last_use: dict[SSAValue, int] = {}
    for k, m in enumerate(members):
        for v in read_operands(m):
            last_use[resolve(v)] = max(last_use.get(resolve(v), 0), k + 1)
    for v in stores:
        last_use[v] = store_step

    tiles: list[TileNeed] = []
    tile_of: dict[SSAValue, int] = {}  # a value's own tile (not a staging copy)

    def staging(v: SSAValue, name: str, element: Attribute) -> None:
        for _ in range(stores.get(v, 0)):
            tiles.append(TileNeed(f"store staging of {name}", shape(v), element, queue=True))

    for i, v in enumerate(g.external_inputs()):
        name = f"load of {describe_value(v, f'input #{i}')}"
        element = v.type.element_type  # type: ignore[attr-defined]
        tile_of[v] = len(tiles)
        tiles.append(TileNeed(
            name, shape(v), element, fixed_rows=1 if g.is_broadcast(v) else None, queue=True,
        ))
        staging(v, name, element)
    for k, m in enumerate(members):
        r = m.results[0]
        step = k + 1
        element = r.type.element_type  # type: ignore[attr-defined]
        name = f"{m.name.replace('pypto.tensor.', 'pypto.tile.')} {describe_value(r, 'result')}"
        if r not in alias:
            direct = stores.get(r, 0) == 1
            source = None if direct else _in_place_source(m, step, tiles, tile_of, resolve, last_use, shape)
            tile_of[r] = len(tiles)
            tiles.append(TileNeed(name, shape(r), element, queue=direct,
                                  live=(step, last_use.get(r, step)), in_place_of=source))
            if not direct:
                staging(r, name, element)
        if isinstance(m, tensor.RowProdOp):
            # one 256-byte repeat of partial products per row, whatever the row length
            lanes = 256 // element_byte_width(element)
            tiles.append(TileNeed(f"scratch of {name}", (shape(m.operands[0])[0], lanes), element, live=(step, step)))
        elif type(m) in ROW_REDUCE:
            lanes = 256 // element_byte_width(element)
            rows, cols = shape(m.operands[0])
            if cols > lanes:  # type: ignore[operator]  (columns are bounded: ints)
                width = reduction_scratch_chunks(cols // lanes) if tree_scratch else 1  # type: ignore[operator]
                tiles.append(TileNeed(f"scratch of {name}", (rows, width * lanes), element, live=(step, step)))
        if type(m) in ROW_EXPAND:
            rows, cols = shape(m.operands[0])
            if cols > 1:  # type: ignore[operator]  Brcb spreads each row value over one 32-byte block, 8 rows a repeat
                block = 32 // element_byte_width(element)
                tiles.append(TileNeed(f"broadcast scratch of {name}", (rows, block), element, rows_per_repeat=8,
                                      live=(step, step)))
        if type(m) in ADVANCED_MATH:
            tiles.append(TileNeed(f"math scratch of {name}", shape(r), element, math_scratch=True, live=(step, step)))
        elif type(m) in MATH_SCRATCH:
            f32_bytes, half_bytes = MATH_SCRATCH[type(m)]
            size = f32_bytes if element_byte_width(element) == 4 else half_bytes
            tiles.append(TileNeed(f"math scratch of {name}", shape(r), element, fixed_bytes=size,
                                  live=(step, step)))
    return tiles


def _in_place_operands(m: Operation) -> tuple[SSAValue, ...]:
    """The operands whose tile the backend may compute `m`'s result in: the sources its
    instructions read at the positions they write (`ascendc-plan-buffers`' in-place rule):
    either source of a level-2 binary op, the tile of a scalar or unary op (not the composed
    tanh/sin/cos, nor abs, composed on integers), the [R, C] tile of a row broadcast."""
    kind = type(m)
    if kind in BINARY:
        return tuple(m.operands[:2])
    if kind in SCALAR or (kind in UNARY and kind not in _COMPOSED_UNARY):
        return (m.operands[0],)
    if kind in ROW_EXPAND and kind not in (tensor.RowExpandOp, tensor.RowExpandExpdifOp):
        return (m.operands[0],)
    return ()


_COMPOSED_UNARY = (tensor.TanhOp, tensor.SinOp, tensor.CosOp, tensor.AbsOp)


def _in_place_source(
    m: Operation, step: int, tiles: list[TileNeed], tile_of: dict[SSAValue, int],
    resolve: Callable[[SSAValue], SSAValue], last_use: dict[SSAValue, int],
    shape: Callable[[SSAValue], tuple[Dim, ...]],
) -> int | None:
    """The tile of an operand of `m` that dies at it (its last use is `m`, it is not stored)
    and has the result's shape and element type: the result may take its buffer."""
    r = m.results[0]
    for v in _in_place_operands(m):
        v = resolve(v)
        if sum(resolve(o) is v for o in m.operands) != 1:
            continue  # x * x: the instruction reads the tile twice (the backend keeps a buffer)
        k = tile_of.get(v)
        if k is None or last_use.get(v) != step or tiles[k].fixed_rows is not None or tiles[k].fixed_bytes is not None:
            continue
        if shape(v) != shape(r) or tiles[k].element_type != r.type.element_type:  # type: ignore[attr-defined]
            continue
        return k
    return None


def shared_bytes(sizes_and_ranges: Sequence[tuple[int, tuple[int, int]]]) -> int:
    """Bytes of VECCALC buffers once tiles with disjoint live ranges share them, packed as
    ascendc-plan-buffers packs TBufs: in order of first step, each tile joins the smallest
    free buffer (last step before its first) that is big enough, else the biggest free one
    (which grows), else a new one."""
    pools: list[list[int]] = []  # [size, last step]
    for size, (start, end) in sorted(sizes_and_ranges, key=lambda t: t[1][0]):
        free = [p for p in pools if p[1] < start]
        if free:
            fits = [p for p in free if p[0] >= size]
            pool = min(fits, key=lambda p: p[0]) if fits else max(free, key=lambda p: p[0])
            pool[0] = max(pool[0], size)
            pool[1] = end
        else:
            pools.append([size, end])
    return sum(p[0] for p in pools)


def ub_bytes_of(
    tiles: Sequence[TileNeed], rows: int, row_group: bool, double_buffer: bool, in_place: bool = False,
) -> int:
    """UB the backend's buffer plan of one loop iteration takes: queues (twice when double
    buffering; a column vector is loaded once, before the loop) and the shared VECCALC
    buffers; with `in_place`, a tile with an `in_place_of` source lives in that source's
    buffer (which then holds it until the tile's last use)."""
    root: dict[int, int] = {}
    live = {k: t.live for k, t in enumerate(tiles)}
    for k, t in enumerate(tiles):
        if in_place and t.in_place_of is not None:
            r = root.get(t.in_place_of, t.in_place_of)
            root[k] = r
            live[r] = (live[r][0], max(live[r][1], t.live[1]))
    queues = 0
    calc: list[tuple[int, tuple[int, int]]] = []
    for k, t in enumerate(tiles):
        if k in root:
            continue
        b = t.bytes(rows, row_group)
        if t.queue:
            queues += b * (2 if double_buffer and t.fixed_rows is None else 1)
        else:
            calc.append((b, live[k]))
    return queues + shared_bytes(calc)


def planned_ub_bytes(tiles: Sequence[TileNeed], rows: int, row_group: bool, double_buffer: bool, capacity: int) -> int:
    """UB of the plan ascendc-plan-buffers makes (`in-place=auto`): without in-place results
    when that fits `capacity`, else with them."""
    plain = ub_bytes_of(tiles, rows, row_group, double_buffer)
    if plain <= capacity:
        return plain
    return min(plain, ub_bytes_of(tiles, rows, row_group, double_buffer, in_place=True))


def plan_group(
    func: FuncOp, g: FusionGroup, budget: int, ub_bytes: int, double_buffer: bool = True,
    bound_of: BoundOf = lambda _: None,
) -> TilePlan:
    """The block size of one group: the largest row count whose buffer plan (`ub_bytes_of`)
    fits `budget` bytes (the group's share of the UB; all of it if one row does not fit the
    share), then balanced (`block_rows`); a tail block of a static row count adds its own
    (single-buffered) queues, which must fit as well."""
    bounds: dict[str, int] = {}
    ops = "row-wise" if any(type(m) in ROW_TYPES for m in g.members) else "elementwise"

    def shape(v: SSAValue) -> tuple[Dim, ...]:
        dims = dims_of(v)
        if is_static(dims[1:]):
            return dims  # nothing to bound (and no message to build)
        what = f"the tile of {describe_value(v, 'a value')} in the {ops} ops"
        return bounded_dims(func, dims, bound_of, what, bounds)

    row_group = g.key[0] == "rows"
    # Run-time extents and columns keep the conservative sizing (every tile live, half the UB
    # per group when double buffering) until the backend lowers them: their partial blocks
    # declare a second set of buffers that the plan model does not cover yet.
    legacy = isinstance(g.extent, str) or any(not is_static(dims_of(v)[1:]) for v in g.values() | set(g.external_inputs()))
    tiles = tile_needs(g, shape, tree_scratch=not legacy)
    if legacy:
        budget = ub_bytes // 2 if double_buffer else ub_bytes

    def total(rows: int) -> int:
        if legacy:
            return sum(t.bytes(rows, row_group) for t in tiles)
        return planned_ub_bytes(tiles, rows, row_group, double_buffer, budget)

    if total(1) > budget:
        budget = ub_bytes  # too big for its share: the whole UB (the backend may single-buffer)
    if total(1) > budget:
        listing = ", ".join(
            f"{t.name} {t.block(1)} ({t.bytes(1, row_group)} B{', queue' if t.queue else ''})" for t in tiles
        )
        what = "one row" if not g.one_dimensional else "one element"
        if row_group and any(type(m) in ROW_TYPES for m in g.members):
            over = f"the row-wise ops over {g.extent} rows"
        else:
            over = f"the elementwise ops over {TensorType(tiles[0].shape, tiles[0].element_type)}"
        queues = "double-buffered queues" if double_buffer else "queues"
        in_place = not legacy and any(t.in_place_of is not None for t in tiles)
        sharing = ", shared VECCALC buffers and in-place results" if in_place else " and shared VECCALC buffers"
        raise pass_failure(
            func,
            f"the tiles of {over} need {total(1)} bytes for {what} ({queues}{sharing}) but may use {budget} of the {ub_bytes} bytes of Unified Buffer: {listing}",
        )
    # the largest row count that fits (the byte count grows with the rows)
    extent = g.extent
    row_bound = bound_of(extent) if isinstance(extent, str) else None
    if isinstance(extent, int):
        hi = extent
    else:
        hi = min(row_bound, MAX_DYNAMIC_ROWS) if row_bound is not None else MAX_DYNAMIC_ROWS
        for sink in g.sinks:  # a block's tile must fit a static destination it is stored into
            dst_rows = dims_of(sink.dest)[0]
            if isinstance(dst_rows, int):
                hi = min(hi, dst_rows)
                row_bound = dst_rows if row_bound is None else min(row_bound, dst_rows)
    lo = 1
    if any(type(m) in ROW_REDUCE for m in g.members):
        hi = min(hi, MAX_REDUCE_ROWS)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    if isinstance(extent, str):
        # a run-time row count: the largest block that fits (its tail is a partial tile)
        return TilePlan(lo, tiles, row_bound, bounds)
    def fits_with_tail(r: int) -> bool:
        tail = extent % r if r < extent else 0  # type: ignore[operator]
        extra = ub_bytes_of([t for t in tiles if t.queue], tail, row_group, False) if tail else 0
        return total(r) + extra <= budget

    return TilePlan(block_rows(extent, g.one_dimensional, lo, tiles, fits_with_tail), tiles, None, bounds)


MAX_DIVISOR_SEARCH = 1 << 16
"""Block counts `block_rows` tries beyond the least one (for a block size without a tail, and
for a balanced one whose tail fits)."""


def block_rows(
    total: int, one_dimensional: bool, max_rows: int, tiles: list[TileNeed],
    fits: Callable[[int], bool] = lambda rows: True,
) -> int:
    """Rows per block: as few blocks as `max_rows` allows, preferring a block size that
    divides the extent (no tail), else balanced blocks whose tail block (its own,
    single-buffered queues) still `fits`. Rank-1 blocks are whole 32-byte multiples of every
    tile's element width when possible."""
    align = 32 // min(element_byte_width(t.element_type) for t in tiles) if one_dimensional else 1
    if max_rows >= total:
        return total
    if max_rows >= align:
        max_rows -= max_rows % align
    blocks = -(-total // max_rows)
    # (the search for a divisor is bounded: extents of 10^11 rows would take hours)
    for n in range(blocks, min(2 * blocks, blocks + MAX_DIVISOR_SEARCH) + 1):
        if total % n == 0 and (total // n) % align == 0 and total // n <= max_rows:
            return total // n
    for n in range(blocks, min(total, 4 * blocks, blocks + MAX_DIVISOR_SEARCH) + 1):
        balanced = -(-total // n)
        balanced += -balanced % align
        if balanced <= max_rows and fits(balanced):
            return balanced
    return min(align, max_rows) if fits(min(align, max_rows)) else 1
