"""The loops of convert-tensor-to-tile: the row-block loop (or SPMD loop and tail) that
replaces one fusion group, built through the pattern rewriter."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.dim_bounds import parameter_dim
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import AtomicKind, Dim, TileType
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.transforms.tensor_to_tile.grouping import (
    BINARY,
    COL_EXPAND,
    FILLS,
    ROW_EXPAND,
    ROW_REDUCE,
    SCALAR,
    UNARY,
    FusionGroup,
    const_index,
    dims_of,
)
from pypto_xdsl.transforms.tensor_to_tile.sizing import (
    TilePlan,
)


def tile_op(m: Operation, operands: dict[SSAValue, SSAValue], shape: Sequence[int]) -> Operation:
    """The tile op computing the block of member `m` (a tile of `shape`) from the blocks of
    its operands (`operands`: tensor value -> tile)."""
    get = lambda v: operands.get(v, v)
    if type(m) in ROW_REDUCE:
        return ROW_REDUCE[type(m)](get(m.operands[0]))
    if type(m) in ROW_EXPAND:
        return ROW_EXPAND[type(m)](get(m.operands[0]), get(m.operands[1]))
    if type(m) in COL_EXPAND:
        return COL_EXPAND[type(m)](get(m.operands[0]), get(m.operands[1]))
    if isinstance(m, tensor.ConcatOp):
        return tile.ConcatOp(get(m.src0), get(m.src1))
    if type(m) in BINARY:
        return BINARY[type(m)](get(m.operands[0]), get(m.operands[1]))
    if type(m) in SCALAR:
        return SCALAR[type(m)](get(m.operands[0]), m.operands[1])
    if type(m) in UNARY:
        return UNARY[type(m)](get(m.operands[0]))
    if isinstance(m, FILLS):
        t = m.results[0].type
        value = m.value if isinstance(m, tensor.FullOp) else m.scalar
        return tile.FullOp(value, TileType(list(shape), t.element_type))  # type: ignore[attr-defined]
    assert isinstance(m, tensor.CastOp)
    return tile.CastOp(get(m.input), m.result.type.element_type, m.rounding)  # type: ignore[attr-defined]


Store = tuple[SSAValue, int, Sequence[SSAValue] | None, AtomicKind]
"""(value, carry index, window offsets or None for a whole materialized tensor, atomic kind)."""


class IndexConstants:
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
                and const_index(prev.result) == value
            ):
                return prev.result
        return None

    def _insert(self, value: int) -> SSAValue:
        c = arith.ConstantOp(IntegerAttr(value, IndexType()))
        c.result.name_hint = f"c{value}"
        self.rewriter.insert(c, self.at)
        return c.result


class GroupRewriter:
    """Emits the loop of one planned fusion group in place of its ops (through `rewriter`).

    Static row counts: a loop over the full blocks and a tail block of static size, or (SPMD)
    the blocks dealt cyclically over the cores. A run-time row count (a dimension symbol):
    the rows [lo, hi) of this core (all of them, or a balanced contiguous share under SPMD),
    a loop over its full blocks and one partial block (`tile.load ... valid[...]`) for the
    rest when there is any. Dynamic columns make every block partial in its columns."""

    def __init__(self, func: FuncOp, g: FusionGroup, plan: TilePlan, spmd: bool, rewriter: PatternRewriter):
        self.func, self.g, self.plan, self.spmd = func, g, plan, spmd
        self.rewriter = rewriter
        assert g.last is not None
        self.at = InsertPoint.before(g.last)
        self.consts = IndexConstants(g.last, rewriter)
        self.extents: dict[str, SSAValue] = {}

    def _index(self, value: int) -> SSAValue:
        """An index constant, inserted before the group's loop (so it dominates its body)."""
        return self.consts.get(value)

    def _extent(self, symbol: str) -> SSAValue:
        """The run-time extent of dimension `symbol`: `tensor.dim` of a parameter that has it,
        inserted before the group's loop."""
        if symbol not in self.extents:
            found = parameter_dim(self.func, symbol)
            assert found is not None, symbol  # grouping converts parameter dimensions only
            dim = tensor.DimOp(found[0], found[1])
            dim.result.name_hint = symbol
            self.rewriter.insert(dim, self.at)
            self.extents[symbol] = dim.result
        return self.extents[symbol]

    def _dim(self, d: Dim) -> SSAValue:
        return self._extent(d) if isinstance(d, str) else self._index(d)  # type: ignore[arg-type]

    def _arith(self, at: InsertPoint, op: Operation, name: str) -> SSAValue:
        op.results[0].name_hint = name
        self.rewriter.insert(op, at)
        return op.results[0]

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
        stores: list[Store] = []
        for r in materialize:
            create = tensor.CreateOp(r.type)  # type: ignore[arg-type]
            create.result.name_hint = r.name_hint
            self.rewriter.insert(create, at)
            stores.append((r, len(inits), None, AtomicKind.NONE))
            inits.append(create.result)
        sink_carry: dict[SSAValue, int] = {}
        for sink in g.sinks:
            carry = sink_carry.get(sink.dest)
            if carry is None:
                carry = len(inits)
                inits.append(sink.dest)
            sink_carry[sink.result] = carry
            atomic = sink.atomic.data if sink.atomic is not None else AtomicKind.NONE
            stores.append((sink.source, carry, list(sink.offsets), atomic))
        # Column vectors are read whole, once, before the loop (every block reads all of them).
        self.broadcast: dict[SSAValue, SSAValue] = {}
        for v in g.external_inputs():
            if g.is_broadcast(v):
                dims = dims_of(v)
                zeros = [self._index(0)] * v.type.rank  # type: ignore[attr-defined]
                valid = [self._dim(d) for d in dims] if self.plan.dynamic else []
                load = tile.LoadOp(v, zeros, TileType(self.plan.tile_shape(dims, 1), v.type.element_type), valid)  # type: ignore[attr-defined]
                load.result.name_hint = f"{v.name_hint}_tile" if v.name_hint else None
                self.rewriter.insert(load, at)
                self.broadcast[v] = load.result
        rows, total = self.plan.rows, g.extent
        current = inits
        if isinstance(total, str):
            current = self._runtime_rows(at, stores, inits, rows, total)
        elif self.spmd and total // rows > 0:
            full_blocks, tail = divmod(total, rows)
            current = self._spmd_loop(at, stores, inits, rows, full_blocks)
            if tail:
                current = self._spmd_tail(at, stores, current, full_blocks * rows, tail, full_blocks)
        else:
            full_blocks, tail = divmod(total, rows)
            if full_blocks > 1:
                current = self._loop(at, stores, inits, rows, self._index(0), self._index(full_blocks * rows))
            elif full_blocks == 1:
                current = self._body(at, stores, inits, self._index(0), rows)
            if tail:
                current = self._body(at, stores, current, self._index(full_blocks * rows), tail)
        inside = members.union(g.sinks)
        for value, carry, offsets, _ in stores:
            if offsets is None:
                self.rewriter.replace_uses_with_if(value, current[carry], lambda use: use.operation not in inside)
        for sink in reversed(g.sinks):
            self.rewriter.replace_all_uses_with(sink.result, current[sink_carry[sink.result]])
            self.rewriter.erase(sink)
        self._erase_members()

    def _erase_members(self) -> None:
        for m in reversed(self.g.members):
            self.rewriter.erase(m)

    def _loop(self, at: InsertPoint, stores, inits, rows: int, start: SSAValue, end: SSAValue) -> list[SSAValue]:
        """`scf.for %row = start to end step rows`, one full block per iteration."""
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        body.args[0].name_hint = "row"
        for arg, init in zip(body.args[1:], inits):
            arg.name_hint = init.name_hint
        loop = scf.ForOp(start, end, self._index(rows), inits, body)
        inner_at = InsertPoint.at_end(body)
        stored = self._body(inner_at, stores, list(body.args[1:]), body.args[0], rows)
        self.rewriter.insert(scf.YieldOp(*stored), inner_at)
        # Inserted last: constants made while building the body go before it.
        self.rewriter.insert(loop, at)
        for r, init in zip(loop.results, inits):
            r.name_hint = init.name_hint
        return list(loop.results)

    def _block_index(self, at: InsertPoint) -> tuple[SSAValue, SSAValue]:
        idx, num = tile.GetBlockIdxOp(), tile.GetBlockNumOp()
        idx.result.name_hint, num.result.name_hint = "block_idx", "block_num"
        self.rewriter.insert([idx, num], at)
        self.block_idx, self.block_num = idx.result, num.result
        return idx.result, num.result

    def _spmd_loop(self, at: InsertPoint, stores, inits, rows: int, nblocks: int) -> list[SSAValue]:
        idx, num = self._block_index(at)
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        body.args[0].name_hint = "blk"
        for arg, init in zip(body.args[1:], inits):
            arg.name_hint = init.name_hint
        loop = scf.ForOp(idx, self._index(nblocks), num, inits, body)
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
        return self._guarded(at, stores, current, is_owner.result, self._index(start), tail, None)

    def _guarded(
        self, at: InsertPoint, stores, current, cond: SSAValue, start: SSAValue, rows: int, valid_rows: SSAValue | None
    ) -> list[SSAValue]:
        """`scf.if cond` around one block of `rows` rows at `start` (the carried tensors
        pass through unchanged otherwise)."""
        then_block, else_block = Block(), Block()
        inner_at = InsertPoint.at_end(then_block)
        stored = self._body(inner_at, stores, current, start, rows, valid_rows)
        self.rewriter.insert(scf.YieldOp(*stored), inner_at)
        else_block.add_op(scf.YieldOp(*current))
        branch = scf.IfOp(cond, [v.type for v in current], [then_block], [else_block])
        self.rewriter.insert(branch, at)
        for r, v in zip(branch.results, current):
            r.name_hint = v.name_hint
        return list(branch.results)

    def _runtime_rows(self, at: InsertPoint, stores, inits, rows: int, symbol: str) -> list[SSAValue]:
        """The blocks of a run-time row count `symbol`: this core's rows [lo, hi), a loop over
        its full blocks, then the partial block of the remaining rows, if any. Under SPMD the
        share of core b of B is rows [b*n/B, (b+1)*n/B): balanced (shares differ by at most
        one row), contiguous, every row on exactly one core, nothing when n = 0."""
        n = self._extent(symbol)
        zero = self._index(0)
        if self.spmd:
            idx, num = self._block_index(at)
            first = self._arith(at, arith.MuliOp(idx, n), "first_scaled")
            lo = self._arith(at, arith.DivUIOp(first, num), "first_row")
            nxt = self._arith(at, arith.AddiOp(idx, self._index(1)), "next_block")
            last = self._arith(at, arith.MuliOp(nxt, n), "end_scaled")
            hi = self._arith(at, arith.DivUIOp(last, num), "end_row")
            count = self._arith(at, arith.SubiOp(hi, lo), "core_rows")
        else:
            lo, hi, count = zero, n, n
        current = inits
        name = "has_tail"
        if rows == 1:  # blocks of one row: no partial rows
            return self._loop(at, stores, inits, rows, lo, hi)
        if self.plan.row_bound is not None and self.plan.row_bound <= rows:
            start, rest, name = lo, count, "has_rows"  # every share fits one block
        else:
            blocks = self._arith(at, arith.DivUIOp(count, self._index(rows)), "full_blocks")
            full = self._arith(at, arith.MuliOp(blocks, self._index(rows)), "full_rows")
            end = full if lo is zero else self._arith(at, arith.AddiOp(lo, full), "full_end")
            current = self._loop(at, stores, inits, rows, lo, end)
            start = end
            rest = self._arith(at, arith.SubiOp(hi, end), "tail_rows")
        has_rest = self._arith(at, arith.CmpiOp(rest, zero, "sgt"), name)
        return self._guarded(at, stores, current, has_rest, start, rows, rest)

    def _body(
        self,
        at: InsertPoint,
        stores: Sequence[Store],
        carries: Sequence[SSAValue],
        row: SSAValue,
        rows: int,
        valid_rows: SSAValue | None = None,
    ) -> list[SSAValue]:
        """Loads, tile ops and stores of one [rows, ...] block starting at `row`; returns the
        carried tensors after the stores. A block is partial when only `valid_rows` of its
        rows exist (the tail of a run-time row count) or its columns are dynamic: its loads
        read the valid block (`valid[...]`), its fills and stored tiles are marked with
        `tile.set_validshape` (a store writes the valid block of its tile)."""
        g = self.g
        zero = self._index(0) if g.rank > 1 else None
        offsets = [row, *([zero] * (g.rank - 1))]
        partial = valid_rows is not None or self.plan.dynamic

        def valid_of(dims: Sequence[Dim]) -> list[SSAValue]:
            return [valid_rows if valid_rows is not None else self._index(rows), *(self._dim(d) for d in dims[1:])]

        def mark(t: SSAValue, dims: Sequence[Dim], name: str | None) -> SSAValue:
            marked = tile.SetValidShapeOp(t, *valid_of(dims))
            marked.result.name_hint = name
            self.rewriter.insert(marked, at)
            return marked.result

        tiles: dict[SSAValue, SSAValue] = dict(self.broadcast)
        for v in g.block_inputs():
            dims = dims_of(v)
            shape = self.plan.tile_shape(dims, rows)
            load = tile.LoadOp(v, offsets, TileType(shape, v.type.element_type), valid_of(dims) if partial else ())  # type: ignore[attr-defined]
            load.result.name_hint = f"{v.name_hint}_tile" if v.name_hint else None
            self.rewriter.insert(load, at)
            tiles[v] = load.result
        for m in g.members:
            if isinstance(m, tensor.CastOp) and m.result.type == m.input.type:
                # an identity cast (e.g. of an f32 matmul product): the same tile
                tiles[m.result] = tiles[m.input]
                continue
            dims = dims_of(m.results[0])
            t = tile_op(m, tiles, self.plan.tile_shape(dims, rows))
            name = f"{m.results[0].name_hint}_tile" if m.results[0].name_hint else None
            t.results[0].name_hint = name
            self.rewriter.insert(t, at)
            result = t.results[0]
            if partial and isinstance(m, FILLS):
                result = mark(result, dims, name)
            tiles[m.results[0]] = result
        current = list(carries)
        for value, carry, sink_offsets, atomic in stores:
            if sink_offsets is None:
                where = offsets
            else:
                where = list(sink_offsets)
                base, start = const_index(where[0]), const_index(row)
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
            stored = tiles[value]
            if partial:
                stored = mark(stored, dims_of(value), f"{value.name_hint}_valid" if value.name_hint else None)
            if atomic == AtomicKind.NONE:
                store = tile.StoreOp(stored, target, where)
            else:
                store = tile.AtomicStoreOp(stored, target, where, atomic)
            store.result.name_hint = target.name_hint
            self.rewriter.insert(store, at)
            current[carry] = store.result
        return current
