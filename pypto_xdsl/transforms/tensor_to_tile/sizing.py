"""Tile sizing of a fusion group: the tiles of one loop iteration (loads, op results and the
ops' scratch) laid out as the backend does, and the row count that fits the Unified Buffer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Operation, SSAValue

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
    MAX_REDUCE_ROWS,
    ROW_EXPAND,
    ROW_REDUCE,
    ROW_TYPES,
    FusionGroup,
    dims_of,
    is_static,
    pass_failure,
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
    block of, and its element type."""

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

    def bytes(self, rows: int, row_group: bool) -> int:
        if self.fixed_bytes is not None:
            return self.fixed_bytes
        if self.fixed_rows is not None:
            rows = self.fixed_rows
        if row_group:
            rows = -(-rows // self.rows_per_repeat) * self.rows_per_repeat
            return tile_bytes(rows, self.shape[1], self.element_type)
        return rows * unit_bytes(self.shape, self.element_type)

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


def tile_needs(g: FusionGroup, shape: Callable[[SSAValue], tuple[Dim, ...]] | None = None) -> list[TileNeed]:
    """Every tile one iteration of the group's loop holds: loads (a column vector once, not
    per row), op results, the scratch tile of a row reduction over more than 256 bytes per
    row (the backend folds the row's 256-byte chunks into it first), the Brcb scratch of a
    row broadcast and the temporary buffer of a math API (tanh, sin, cos). `shape` gives a
    value's shape with its dynamic columns bounded (default: its static shape)."""
    shape = shape or dims_of
    tiles: list[TileNeed] = []
    for i, v in enumerate(g.external_inputs()):
        tiles.append(TileNeed(
            f"load of {describe_value(v, f'input #{i}')}", shape(v), v.type.element_type,  # type: ignore[attr-defined]
            fixed_rows=1 if g.is_broadcast(v) else None,
        ))
    for m in g.members:
        r = m.results[0]
        name = f"{m.name.replace('pypto.tensor.', 'pypto.tile.')} {describe_value(r, 'result')}"
        element = r.type.element_type  # type: ignore[attr-defined]
        tiles.append(TileNeed(name, shape(r), element))
        if type(m) in ROW_REDUCE:
            lanes = 256 // element_byte_width(element)
            rows, cols = shape(m.operands[0])
            if cols > lanes:  # type: ignore[operator]  (columns are bounded: ints)
                tiles.append(TileNeed(f"scratch of {name}", (rows, lanes), element))
        if type(m) in ROW_EXPAND:
            rows, cols = shape(m.operands[0])
            if cols > 1:  # type: ignore[operator]  (Brcb spreads each row value over one 32-byte block, 8 rows a repeat)
                block = 32 // element_byte_width(element)
                tiles.append(TileNeed(f"broadcast scratch of {name}", (rows, block), element, rows_per_repeat=8))
        if type(m) in MATH_SCRATCH:
            f32_bytes, half_bytes = MATH_SCRATCH[type(m)]
            size = f32_bytes if element_byte_width(element) == 4 else half_bytes
            tiles.append(TileNeed(f"math scratch of {name}", shape(r), element, fixed_bytes=size))
    return tiles


def plan_group(
    func: FuncOp, g: FusionGroup, budget: int, ub_bytes: int, double_buffer: bool = True,
    bound_of: BoundOf = lambda _: None,
) -> TilePlan:
    bounds: dict[str, int] = {}
    ops = "row-wise" if any(type(m) in ROW_TYPES for m in g.members) else "elementwise"

    def shape(v: SSAValue) -> tuple[Dim, ...]:
        dims = dims_of(v)
        if is_static(dims[1:]):
            return dims  # nothing to bound (and no message to build)
        what = f"the tile of {describe_value(v, 'a value')} in the {ops} ops"
        return bounded_dims(func, dims, bound_of, what, bounds)

    tiles = tile_needs(g, shape)
    row_group = g.key[0] == "rows"

    def total(rows: int) -> int:
        return sum(t.bytes(rows, row_group) for t in tiles)

    if total(1) > budget:
        listing = ", ".join(f"{t.name} {t.block(1)} ({t.bytes(1, row_group)} B)" for t in tiles)
        what = "one row" if not g.one_dimensional else "one element"
        if row_group and any(type(m) in ROW_TYPES for m in g.members):
            over = f"the row-wise ops over {g.extent} rows"
        else:
            over = f"the elementwise ops over {TensorType(tiles[0].shape, tiles[0].element_type)}"
        raise pass_failure(
            func,
            f"the tiles of {over} need {total(1)} bytes "
            f"for {what} but a {'double-buffered ' if double_buffer else ''}tile set may use {budget} of the "
            f"{ub_bytes} bytes of Unified Buffer: {listing}",
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
    return TilePlan(block_rows(extent, g.one_dimensional, lo, tiles), tiles, None, bounds)


def block_rows(total: int, one_dimensional: bool, max_rows: int, tiles: list[TileNeed]) -> int:
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
