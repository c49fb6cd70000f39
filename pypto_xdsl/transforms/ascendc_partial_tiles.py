"""Partial tiles in the kernel lowering: valid shapes, `fillpad`, and the copies of a valid block.

A tile's valid shape (`tile.load ... valid[r, c]`, `tile.set_validshape`) changes no data:
it says which [r, c] block at the origin is real. Before a kernel is lowered,
`fold_partial_tiles` follows valid shapes through the ops that keep them (elementwise ops,
broadcasts and casts keep their first operand's; row reductions give [r, 1]) and removes
`set_validshape` and `fillpad`, recording instead what the Ascend C code does with a valid
block:

* a **store** of a partial tile copies its valid block (`DataCopyPad`, run-time `blockCount`
  and `blockLen`);
* a **load** made partial (by `valid[...]`, or a `set_validshape` that is the whole load's
  only use) copies only the valid block;
* on the cube path, the partial M block of a run-time M: its left operand's L1 tile is a
  partial load (Nd2Nz `nValue` = the valid rows), its move to L0A keeps the valid shape, and
  a matmul whose only partial operand is the left one computes stale rows nothing stores;
  a right operand of valid width (a ragged N block): its L1 tile is a partial load (Nd2Nz
  `dValue` = the valid columns), its move to L0B and the matmuls taking it load and compute
  only the valid columns (rounded up to whole 16-column fractals), and the Fixpipe stores
  the valid columns (`nSize`);
* a predicate mask (`tile.cmp` / `cmps`) of a partial tile is valid in its valid rows and
  the `ceil(cols / 8)` bytes of its valid columns; a selection (`tile.sel` / `sels`) keeps
  the valid shape of the tile it selects from (it computes every element);
* a **fill** writes a pad value over the invalid part of a tile, in its own buffer (the
  invalid part is unspecified, so no reader of the tile can tell): `fillpad`, and a row
  reduction over a tile with invalid columns (its identity: 0 for a sum, -inf for a max,
  +inf for a min), so that the reduction sees only the valid columns, as PyPTO's does.

A fill is the copy's own padding in the 32-byte block where the valid columns end
(`DataCopyPadExtParams(true, 0, rightPadding, padValue)`), then `Duplicate`s on the vector
unit: a level-0 `Duplicate` with a continuous mask repeated over the valid rows for the
columns from that block's end to the row's end, and a level-2 `Duplicate` of the rows past
the valid ones. A computed tile can be filled when its valid columns end on a 32-byte
boundary (nothing to pad inside a block).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, Signedness
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from pypto_xdsl.analysis.ascendc_kernel import BLOCK_BYTES
from pypto_xdsl.analysis.cxx_names import op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.attributes import MemorySpace, PadValue, TensorType, TileType

Extent = SSAValue | int
Valid = tuple[Extent, Extent]

REPEAT_BYTES = 256
MAX_REPEAT = 255

# The pad that makes a row reduction over a whole row see only its valid columns.
_IDENTITY: dict[type, PadValue] = {tile.RowSumOp: PadValue.ZERO, tile.RowMaxOp: PadValue.MIN, tile.RowMinOp: PadValue.MAX}
# Ops whose result has the valid shape of their first operand (PyPTO's rule).
_KEEPS_VALID = (tile.TileUnaryOp, tile.TileScalarOp, tile.TileBinaryOp, tile.CastOp, tile.RowExpandTileOp,
                tile.ColExpandTileOp)


@dataclass(frozen=True)
class Fill:
    """Write `pad` over the invalid part of a tile whose valid block is `valid`."""

    valid: Valid
    pad: PadValue
    reason: Operation


@dataclass
class PartialTiles:
    stores: dict[Operation, Valid] = field(default_factory=dict)
    loads: dict[Operation, Valid] = field(default_factory=dict)
    columns: dict[Operation, Extent] = field(default_factory=dict)
    """The valid columns of a right operand with a valid width: its move into L0B (the
    LoadData's `kExtension`) and each matmul taking it (the Mmad's `n`)."""
    fills: dict[SSAValue, Fill] = field(default_factory=dict)
    """The fill of each tile (the value whose buffer is filled), by the first op asking."""
    before: dict[Operation, list[SSAValue]] = field(default_factory=dict)
    after: dict[Operation, list[SSAValue]] = field(default_factory=dict)
    """Where each fill is emitted: before the row reduction needing it; after the op
    preceding a fillpad (its valid extents are defined by then)."""


def const_of(value: Extent) -> int | None:
    if isinstance(value, int):
        return value
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a tile"


def _refuse(user: Operation, value: SSAValue) -> None:
    raise op_error(user, f"it reads the partial tile {_name(value)} (a valid shape); the Ascend C backend lowers "
                         "a valid shape where a store, a fillpad, an elementwise op or a row reduction uses it")


def fold_partial_tiles(func: program.FuncOp) -> PartialTiles:
    """Record what every valid shape of `func` (a copy, changed in place) means for the copies
    and fills of the kernel, and remove `set_validshape` and `fillpad` (see the module
    docstring). Raises BackendError for a valid shape the backend cannot lower."""
    out = PartialTiles()
    valid: dict[SSAValue, Valid] = {}
    sets: list[tile.SetValidShapeOp] = []
    pads: list[tile.FillPadOp] = []
    for op in list(func.walk()):
        if isinstance(op, tile.LoadOp) and not op.is_partial and isinstance(op.source.owner, tensor.SetValidShapeOp):
            valid[op.result] = _window_share(op, op.source.owner)
            out.loads[op] = valid[op.result]
            continue
        if isinstance(op, tile.LoadOp) and op.is_partial:
            if len(op.valid_shape) == 2:
                valid[op.result] = (op.valid_shape[0], op.valid_shape[1])
            continue
        partial_operands = [v for v in op.operands if v in valid]
        if isinstance(op, tile.SetValidShapeOp):
            valid[op.result] = (op.valid_rows, op.valid_cols)
            sets.append(op)
            continue
        if not partial_operands:
            if isinstance(op, tile.FillPadOp):
                pads.append(op)
            continue
        first = op.operands[0] if op.operands else None
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp) and op.tile in valid and op.dest not in valid:
            out.stores[op] = valid[op.tile]
        elif isinstance(op, tile.FillPadOp):
            root = _request(out, valid, op.input, Fill(valid[op.input], op.pad.data, op))
            if root is not None:
                prev, nxt = op.prev_op, op.next_op
                while isinstance(prev, tile.SetValidShapeOp | tile.FillPadOp):  # removed below
                    prev = prev.prev_op
                while isinstance(nxt, tile.SetValidShapeOp | tile.FillPadOp):
                    nxt = nxt.next_op
                if prev is not None:
                    out.after.setdefault(prev, []).append(root)
                elif nxt is not None and not nxt.has_trait(IsTerminator):
                    out.before.setdefault(nxt, []).append(root)
                else:
                    raise op_error(op, f"a fillpad alone in its block (of {_name(op.input)}) is not supported; "
                                       "move it next to the op defining the tile")
            pads.append(op)
        elif isinstance(op, tile.RowReductionOp) and first in valid:
            rows, cols = valid[first]
            t = first.type
            assert isinstance(t, TileType)
            if const_of(cols) != t.get_shape()[-1]:
                pad = _IDENTITY.get(type(op))
                if pad is None:
                    raise op_error(op, f"a {op.name.split('.')[-1]} over the partial tile {_name(first)} needs its invalid "
                                       "columns filled with its identity, which pl.PadValue cannot express")
                root = _request(out, valid, first, Fill(valid[first], pad, op))
                if root is not None:
                    out.before.setdefault(op, []).append(root)
            valid[op.results[0]] = (rows, 1)
        elif isinstance(op, tile.GatherbOp):
            # the source is read as bytes, valid or not (as the interpreter does); a partial
            # offsets tile is zeroed past its valid block, so that every block Gatherb reads is
            # the source's first, and the result is valid where the offsets are
            if op.offsets in valid:
                rows, cols = valid[op.offsets]
                root = _request(out, valid, op.offsets, Fill(valid[op.offsets], PadValue.ZERO, op))
                if root is not None:
                    out.before.setdefault(op, []).append(root)
                valid[op.result] = (rows, _scaled(op, cols, op.result.type.get_shape()[1] // op.offsets.type.get_shape()[1]))  # type: ignore[union-attr]
        elif (isinstance(op, tile.SliceOp) and op.result.type.space == MemorySpace.MAT  # type: ignore[union-attr]
              and op.result.uses and all(isinstance(u.operation, tile.SetValidShapeOp) for u in op.result.uses)):
            pass  # a window of a partial L1 tile whose uses say its valid shape (pair-cube-blocks' B halves)
        elif isinstance(op, _KEEPS_VALID):
            if first in valid:
                valid[op.results[0]] = valid[first]
        elif isinstance(op, tile.CmpOp | tile.CmpsOp):
            # the mask of a partial tile: its valid rows, the bytes of its valid columns
            if first in valid:
                rows, cols = valid[first]
                valid[op.result] = (rows, _mask_bytes(op, cols))
        elif isinstance(op, tile.SelOp | tile.SelsOp):
            src = op.operands[1]  # the result keeps the valid shape of the selected tile
            if src in valid:
                valid[op.result] = valid[src]
        elif isinstance(op, tile.MoveOp) and op.result.type.space == MemorySpace.LEFT:  # type: ignore[union-attr]
            valid[op.result] = valid[first]  # type: ignore[index]
        elif (isinstance(op, tile.MoveOp) and op.result.type.space == MemorySpace.RIGHT  # type: ignore[union-attr]
              and const_of(valid[first][0]) == op.result.type.get_shape()[0]):  # type: ignore[index, union-attr]
            # a right operand of valid width: only its valid columns move into L0B
            valid[op.result] = valid[first]  # type: ignore[index]
            out.columns[op] = valid[first][1]  # type: ignore[index]
        elif isinstance(op, tile.MatmulOp | tile.MatmulAccOp) and set(partial_operands) <= {op.lhs, op.rhs}:
            # rows of a product depend only on the same rows of the left operand, its columns
            # only on the same columns of the right one (of which the Mmad computes only the
            # valid ones): a product is valid in those rows and columns (PyPTO's rule), and an
            # accumulating matmul keeps its accumulator's valid shape (the cube path marks the
            # acc a K loop stores)
            if op.rhs in valid:
                out.columns[op] = valid[op.rhs][1]
            if isinstance(op, tile.MatmulOp):
                m, n = op.result.type.get_shape()  # type: ignore[attr-defined]
                valid[op.result] = (valid[op.lhs][0] if op.lhs in valid else m, valid[op.rhs][1] if op.rhs in valid else n)
        else:
            _refuse(op, partial_operands[0])
    for op in sets:
        loaded = op.input.owner
        if (isinstance(loaded, tile.LoadOp) and not loaded.is_partial and loaded.result.type.space == MemorySpace.VEC  # type: ignore[union-attr]
                and op.input.has_one_use() and all(_defined_before(v, loaded) for v in (op.valid_rows, op.valid_cols))):
            out.loads[loaded] = valid[op.result]  # reads only the valid block
        op.result.replace_all_uses_with(op.input)
        op.detach()
        op.erase()
    for op in pads:
        op.result.replace_all_uses_with(op.input)
        op.detach()
        op.erase()
    for load in func.walk():
        if isinstance(load, tile.LoadOp) and load.is_partial and load.result in valid:
            out.loads[load] = valid[load.result]
    return out


def _mask_bytes(op: Operation, cols: Extent) -> Extent:
    """ceil(cols / 8), computed before `op` when `cols` is known at run time only."""
    c = const_of(cols)
    if c is not None:
        return (c + 7) // 8
    assert isinstance(cols, SSAValue)
    seven, eight = (arith.ConstantOp(IntegerAttr(k, cols.type)) for k in (7, 8))
    plus = arith.AddiOp(cols, seven.result)
    share = arith.DivUIOp(plus.result, eight.result)
    share.result.name_hint = "mask_bytes"
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before([seven, eight, plus, share], op)
    return share.result
def _scaled(op: Operation, extent: Extent, factor: int) -> Extent:
    """`extent * factor`, computed before `op` where it is a run-time value."""
    c = const_of(extent)
    if c is not None:
        return c * factor
    k = arith.ConstantOp(IntegerAttr(factor, IndexType()))
    product = arith.MuliOp(extent, k.result)  # type: ignore[arg-type]
    product.result.name_hint = "valid_cols"
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before([k, product], op)
    return product.result


def _window_share(load: tile.LoadOp, view: tensor.SetValidShapeOp) -> Valid:
    """The valid block of a load from a tensor with a valid region (PyPTO's window read): in
    each dimension max(0, min(extent, valid - offset)), computed before the load."""
    shape = load.result.type.get_shape()  # type: ignore[union-attr]
    out: list[Extent] = []
    for extent, v, off in zip(shape, (view.valid_rows, view.valid_cols), load.offsets):
        if const_of(off) == 0 and const_of(v) is not None:
            out.append(max(0, min(int(extent), int(const_of(v)))))  # type: ignore[arg-type]
            continue
        ops: list[Operation] = [arith.SubiOp(v, off)] if const_of(off) != 0 else []
        left = ops[-1].results[0] if ops else v
        top, zero = arith.ConstantOp(IntegerAttr(int(extent), IndexType())), arith.ConstantOp(IntegerAttr(0, IndexType()))
        cut = arith.MinSIOp(left, top.result)
        share = arith.MaxSIOp(cut.result, zero.result)
        share.result.name_hint = "valid_share"
        ops += [top, zero, cut, share]
        block = load.parent_block()
        assert block is not None
        block.insert_ops_before(ops, load)
        out.append(share.result)
    return out[0], out[1]


def _root(value: SSAValue) -> SSAValue:
    while isinstance(value.owner, tile.SetValidShapeOp):
        value = value.owner.input
    return value


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """`value` is available where `op` runs (a block argument of an enclosing block, or
    defined by an earlier op of `op`'s block or an enclosing one)."""
    if isinstance(value, BlockArgument):
        return True
    owner = value.owner
    assert isinstance(owner, Operation)
    anc: Operation | None = op
    while anc is not None and anc.parent_block() is not owner.parent_block():
        anc = anc.parent_op()
    return anc is not None and owner.is_before_in_block(anc)


def _request(out: PartialTiles, valid: dict[SSAValue, Valid], value: SSAValue, fill: Fill) -> SSAValue | None:
    """Fill `value` (in the buffer of the tile it views) with `fill`: the tile to fill, or
    None when an earlier op already asked for the same fill."""
    root = _root(value)
    if root is not value and not root.has_one_use():
        raise op_error(fill.reason, f"it pads the partial tile {_name(value)}, whose tile {_name(root)} is also used "
                                    "whole; pad a copy (the fill writes the tile's own buffer)")
    known = out.fills.get(root)
    if known is not None and known.pad != fill.pad:
        raise op_error(fill.reason, f"the partial tile {_name(value)} is already padded with {known.pad.value} (for "
                                    f"'{known.reason.name}'), not {fill.pad.value}; pad a copy")
    if known is not None:
        return None
    out.fills[root] = fill
    return root


def pad_scalar(pad: PadValue, elem) -> arith.ConstantOp:
    """The pad value as a constant of the tile's element type (of a signless integer type of
    its width for an unsigned or signed one, which arith constants cannot have: the caller
    casts it)."""
    if isinstance(elem, IntegerType):
        width = elem.width.data
        if elem.signedness.data == Signedness.UNSIGNED:
            lo, hi = 0, (1 << width) - 1
        else:
            lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        value = {PadValue.ZERO: 0, PadValue.MAX: hi, PadValue.MIN: lo}[pad]
        if elem.signedness.data != Signedness.SIGNLESS:
            value = value - (1 << width) if value >= 1 << (width - 1) else value
            elem = IntegerType(width)
        return arith.ConstantOp(IntegerAttr(value, elem))
    value = {PadValue.ZERO: 0.0, PadValue.MAX: float("inf"), PadValue.MIN: float("-inf")}[pad]
    return arith.ConstantOp(FloatAttr(value, elem))


class PartialTileLowering:
    """Mixin of KernelLowering: the copies of valid blocks and the fills."""

    partial: PartialTiles

    # ---- index arithmetic on the kernel's scalars

    def _ext(self, value: Extent) -> SSAValue:
        if isinstance(value, int):
            return self._index_const(value)
        return self.scalar(value)  # type: ignore[attr-defined]

    def _index_const(self, value: int) -> SSAValue:
        return self._insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]  # type: ignore[attr-defined]

    def _op(self, cls, a: SSAValue, b: SSAValue | int, name: str) -> SSAValue:
        rhs = self._index_const(b) if isinstance(b, int) else b
        result = self._insert(cls(a, rhs)).results[0]  # type: ignore[attr-defined]
        result.name_hint = name
        return result

    def _round_up(self, value: SSAValue, to: int, name: str) -> SSAValue:
        return self._op(arith.MuliOp, self._op(arith.DivUIOp, self._op(arith.AddiOp, value, to - 1, name), to, name), to, name)

    def _guarded(self, cond: SSAValue, body) -> None:
        block = Block()
        self._in_block(block, lambda: (body(), self._insert(scf.YieldOp())))  # type: ignore[attr-defined]
        self._insert(scf.IfOp(cond, [], Region(block), Region()))  # type: ignore[attr-defined]

    # ---- copies

    def _partial_copy(self, op: Operation, tensor_type: TensorType, lay, local: SSAValue, gm: SSAValue,
                      valid: Valid, *, to_gm: bool, pad: PadValue | None = None) -> None:
        """The valid [rows, cols] block (run-time or static extents, at most the tile's) of a
        copy: DataCopyPad, one block per row with run-time `blockCount` / `blockLen` / strides
        where the extents are run-time. Each row of the local tile starts at its 32-byte
        aligned row; the rest of the tile is not touched, except (GM -> local, `pad`) the
        32-byte block where a row's valid columns end, padded with `pad`."""
        rows, cols = valid
        last = tensor_type.get_shape()[-1]
        n: Extent = self.dim_args[last] if isinstance(last, str) else int(last)  # type: ignore[attr-defined, arg-type]
        eb = lay.elem_bytes
        if lay.rows > 1 and lay.ld == lay.cols == n == 1 and const_of(cols) == 1 and const_of(rows) is None:
            # [R, 1] row values, contiguous on both sides (rows of 4 bytes are no 32-byte row pitch): one block
            length = self._op(arith.MuliOp, self._ext(rows), n * eb, "valid_bytes")
            has = self._op(_cmp_sgt, length, 0, "has_rows")
            if to_gm:
                copy = M.DataCopyPadOp(gm, local, [1, lay.rows * n * eb, 0, 0, 0], runtime={"blockLen": length})
            else:
                copy = M.DataCopyPadOp(local, gm, [1, lay.rows * n * eb, 0, 0, 0], [False, 0, 0, 0],
                                       runtime={"blockLen": length})
            self._guarded(has, lambda: self._insert(copy))  # type: ignore[attr-defined]
            return
        if lay.rows > 1 and lay.ld * eb != -(-lay.cols * eb // BLOCK_BYTES) * BLOCK_BYTES:
            raise op_error(op, f"a partial [{lay.rows}, {lay.cols}] tile with rows of {lay.ld * eb} bytes is not "
                               "supported (DataCopyPad places each row at a 32-byte boundary)")
        if lay.rows > 4095:
            raise op_error(op, f"a partial tile of {lay.rows} rows is more than DataCopyPad's 4095 blocks")
        runtime: dict[str, SSAValue] = {}
        if const_of(rows) is None:
            runtime["blockCount"] = self._ext(rows)
        static_rows = const_of(rows)
        count = lay.rows if static_rows is None else static_rows
        static_cols = const_of(cols)
        if static_cols is not None and isinstance(n, SSAValue):
            # static columns of rows of the run-time length n: the GM gap between rows is run-time
            length, gap = static_cols * eb, 0
            runtime["srcStride" if not to_gm else "dstStride"] = self._op(
                arith.MuliOp, self._op(arith.SubiOp, n, static_cols, "row_gap"), eb, "row_gap_bytes")
            row_bytes = -(-length // BLOCK_BYTES) * BLOCK_BYTES
            ub_gap, right = (lay.ld * eb - row_bytes) // BLOCK_BYTES, (row_bytes - length) // eb
        elif static_cols is not None:
            length, gap = static_cols * eb, (n - static_cols) * eb
            row_bytes = -(-length // BLOCK_BYTES) * BLOCK_BYTES
            ub_gap, right = (lay.ld * eb - row_bytes) // BLOCK_BYTES, (row_bytes - length) // eb
        else:
            c = self._ext(cols)
            length, gap = lay.cols * eb, 0
            runtime["blockLen"] = self._op(arith.MuliOp, c, eb, "block_len")
            row_len = self._index_const(n) if isinstance(n, int) else n
            runtime["srcStride" if not to_gm else "dstStride"] = self._op(
                arith.MuliOp, self._op(arith.SubiOp, row_len, c, "row_gap"), eb, "row_gap_bytes")
            padded = self._round_up(c, BLOCK_BYTES // eb, "padded_cols")
            ub_gap = 0
            runtime["dstStride" if not to_gm else "srcStride"] = self._op(
                arith.DivUIOp, self._op(arith.MuliOp, self._op(arith.SubiOp, self._index_const(lay.ld), padded, "ub_gap"),
                                        eb, "ub_gap"), BLOCK_BYTES, "ub_gap_blocks")
            right = 0
            if pad is not None:
                runtime["rightPadding"] = self._op(arith.SubiOp, padded, c, "right_padding")
        if count == 0 or length == 0:
            return
        if to_gm:
            copy = M.DataCopyPadOp(gm, local, [count, length, ub_gap, gap, 0], runtime=runtime)
        else:
            pad_params: list[int | bool] = [False, 0, 0, 0]
            if pad is not None:
                pad_params = [True, 0, right, 0]
                if pad != PadValue.ZERO:
                    runtime["paddingValue"] = self._pad_value(pad, local.type.element_type)  # type: ignore[attr-defined]
            copy = M.DataCopyPadOp(local, gm, [count, length, gap, ub_gap, 0], pad_params, runtime=runtime)
        if static_cols is not None:
            self._insert(copy)  # type: ignore[attr-defined]
            return
        # run-time columns may be none (a row of blockLen 0 is not a copy)
        cond = self._op(_cmp_sgt, runtime["blockLen"], 0, "has_cols")
        if static_rows is None:
            cond = self._op(arith.AndIOp, cond, self._op(_cmp_sgt, runtime["blockCount"], 0, "has_rows"), "has_block")
        self._guarded(cond, lambda: self._insert(copy))  # type: ignore[attr-defined]

    def _pad_value(self, pad: PadValue, elem) -> SSAValue:
        c = self._insert(pad_scalar(pad, elem))  # type: ignore[attr-defined]
        c.results[0].name_hint = f"pad_{pad.value}"
        if c.results[0].type != elem:  # a signed / unsigned integer: static_cast<T>(the signless bits)
            return self._insert(C.ScalarCastOp(c.results[0], elem)).results[0]  # type: ignore[attr-defined]
        return c.results[0]

    # ---- fills

    def fills_at(self, op: Operation, where: dict[Operation, list[SSAValue]]) -> None:
        """The fills placed before / after `op`."""
        for root in where.get(op, ()):
            fill = self.partial.fills[root]
            ref = self.tiles.get(root)  # type: ignore[attr-defined]
            if ref is None:
                raise op_error(fill.reason, f"the tile it pads ({_name(root)}) has no local tensor")
            self._fill(fill, ref, root)

    def _fill(self, fill: Fill, ref, root: SSAValue) -> None:
        lay = ref.layout
        rows, cols = fill.valid
        eb = lay.elem_bytes
        per_block, lanes = BLOCK_BYTES // eb, REPEAT_BYTES // eb
        static_cols = const_of(cols)
        padded_by_copy = root.owner in self.partial.loads
        value = self._pad_value(fill.pad, ref.elem)  # before any guard: every Duplicate below uses it

        def pad_value() -> SSAValue:
            return value

        # columns from the end of the 32-byte block holding the last valid column, in the valid rows
        if static_cols is None or static_cols < lay.cols:
            if lay.rows > MAX_REPEAT or lay.ld * eb // BLOCK_BYTES > 255:
                raise op_error(fill.reason, f"padding the columns of a [{lay.rows}, {lay.cols}] tile needs more than one "
                                            "Duplicate repeat per row (at most 255 rows of at most 8160 bytes)")
            if not padded_by_copy and (static_cols is None or static_cols % per_block):
                self._fill_block_tail(ref, cols, rows, pad_value)
            start: Extent = -(-static_cols // per_block) * per_block if static_cols is not None else \
                self._round_up(self._ext(cols), per_block, "pad_from")
            r = self._ext(rows)
            for k in range(-(-lay.ld // lanes)):
                chunk = start + k * lanes if isinstance(start, int) else (start if k == 0 else self._op(arith.AddiOp, start, k * lanes, "pad_from"))
                if isinstance(chunk, int) and chunk >= lay.ld:
                    break
                self._fill_columns(ref, chunk, r, lanes, pad_value, rows)
        # the rows past the valid ones
        static_rows = const_of(rows)
        if static_rows is None or static_rows < lay.rows:
            if static_rows is not None:
                at = self.at_const(ref.value, static_rows * lay.ld)  # type: ignore[attr-defined]
                self._insert(C.DuplicateOp(at, pad_value(), (lay.rows - static_rows) * lay.ld))  # type: ignore[attr-defined]
            else:
                r = self._ext(rows)
                missing = self._op(arith.SubiOp, self._index_const(lay.rows), r, "pad_rows")
                has = self._op(_cmp_sgt, missing, 0, "has_pad_rows")

                def rows_body() -> None:
                    at = self.at(ref.value, [(r, lay.ld)])  # type: ignore[attr-defined]
                    count = self._op(arith.MuliOp, missing, lay.ld, "pad_elems")
                    self._insert(C.DuplicateOp(at, pad_value(), count))  # type: ignore[attr-defined]

                self._guarded(has, rows_body)

    def _fill_block_tail(self, ref, cols: Extent, rows: Extent, pad_value) -> None:
        """The invalid columns inside the 32-byte block where a computed tile's valid columns
        end (what a load's DataCopyPad pads): a level-0 Duplicate with a bit mask (lanes
        [c mod B, B) of the block, B elements a block), one repeat per valid row."""
        lay = ref.layout
        eb = lay.elem_bytes
        per_block = BLOCK_BYTES // eb
        c = self._ext(cols)
        first = self._op(arith.MuliOp, self._op(arith.DivUIOp, c, per_block, "block_start"), per_block, "block_start")
        lane = self._op(arith.SubiOp, c, first, "first_lane")
        r = self._ext(rows)
        cond = self._op(_cmp_sgt, lane, 0, "has_block_tail")
        if const_of(rows) is None:
            cond = self._op(arith.AndIOp, cond, self._op(_cmp_sgt, r, 0, "has_rows"), "pad_block_rows")

        def body() -> None:
            one = self._index_const(1)
            bits = self._op(arith.SubiOp, self._op(arith.ShLIOp, one, per_block, "all_lanes"),
                            self._op(arith.ShLIOp, one, lane, "valid_lanes"), "pad_lanes")
            at = self.at(ref.value, [(first, 1)])  # type: ignore[attr-defined]
            name = self.namer.fresh("pad_mask")  # type: ignore[attr-defined]
            self._insert(C.DuplicateBitsOp(name, at, pad_value(), bits, self._index_const(0), r,  # type: ignore[attr-defined]
                                           (1, lay.ld * eb // BLOCK_BYTES)))

        self._guarded(cond, body)

    def _fill_columns(self, ref, start: Extent, r: SSAValue, lanes: int, pad_value, rows: Extent) -> None:
        """Columns [start, min(start + lanes, ld)) of the first `r` rows: one level-0
        Duplicate, the mask continuous, one repeat per row."""
        lay = ref.layout
        eb = lay.elem_bytes
        stride = lay.ld * eb // BLOCK_BYTES
        if isinstance(start, int) and const_of(rows) is not None:
            mask = min(lanes, lay.ld - start)
            if const_of(rows) == 0 or mask <= 0:
                return
            at = self.at_const(ref.value, start)  # type: ignore[attr-defined]
            m, rep = self._index_const(mask), self._index_const(int(const_of(rows)))  # type: ignore[arg-type]
            self._insert(C.DuplicateOp(at, pad_value(), mask=m, repeat=rep, params=(1, stride)))  # type: ignore[attr-defined]
            return
        s = self._index_const(start) if isinstance(start, int) else start  # a kernel value already
        left = self._op(arith.SubiOp, self._index_const(lay.ld), s, "pad_cols")
        cond = self._op(_cmp_sgt, left, 0, "has_pad_cols")
        if const_of(rows) is None:
            cond = self._op(arith.AndIOp, cond, self._op(_cmp_sgt, r, 0, "has_rows"), "pad_cols_rows")

        def body() -> None:
            mask = self._op(arith.MinUIOp, left, lanes, "pad_mask")
            at = self.at(ref.value, [(s, 1)])  # type: ignore[attr-defined]
            self._insert(C.DuplicateOp(at, pad_value(), mask=mask, repeat=r, params=(1, stride)))  # type: ignore[attr-defined]

        self._guarded(cond, body)


def _cmp_sgt(a: SSAValue, b: SSAValue) -> arith.CmpiOp:
    return arith.CmpiOp(a, b, "sgt")

