"""The loops of convert-tensor-to-tile: the row-block loop (or SPMD loop and tail) that
replaces one fusion group, built through the pattern rewriter."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import AtomicKind, TileType
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
    static_shape_of,
)
from pypto_xdsl.transforms.tensor_to_tile.sizing import (
    TilePlan,
)


def tile_op(m: Operation, operands: dict[SSAValue, SSAValue], rows: int) -> Operation:
    """The tile op computing the [rows, ...] block of member `m` from the blocks of its
    operands (`operands`: tensor value -> tile)."""
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
        return tile.FullOp(value, TileType([rows, *t.get_shape()[1:]], t.element_type))  # type: ignore[attr-defined]
    assert isinstance(m, tensor.CastOp)
    return tile.CastOp(get(m.input), m.result.type.element_type)  # type: ignore[attr-defined]


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
    """Emits the loop of one planned fusion group in place of its ops (through `rewriter`)."""

    def __init__(self, func: FuncOp, g: FusionGroup, plan: TilePlan, spmd: bool, rewriter: PatternRewriter):
        self.func, self.g, self.plan, self.spmd = func, g, plan, spmd
        self.rewriter = rewriter
        assert g.last is not None
        self.at = InsertPoint.before(g.last)
        self.consts = IndexConstants(g.last, rewriter)

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
                zeros = [self._index(0)] * v.type.rank  # type: ignore[attr-defined]
                load = tile.LoadOp(v, zeros, TileType(static_shape_of(v), v.type.element_type))  # type: ignore[attr-defined]
                load.result.name_hint = f"{v.name_hint}_tile" if v.name_hint else None
                self.rewriter.insert(load, at)
                self.broadcast[v] = load.result
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
        stores: Sequence[Store],
        carries: Sequence[SSAValue],
        row: SSAValue,
        rows: int,
    ) -> list[SSAValue]:
        """Loads, tile ops and stores of one [rows, ...] block starting at `row`; returns the
        carried tensors after the stores."""
        g = self.g
        zero = self._index(0) if g.rank > 1 else None
        offsets = [row, *([zero] * (g.rank - 1))]
        tiles: dict[SSAValue, SSAValue] = dict(self.broadcast)
        for v in g.block_inputs():
            shape = [rows, *static_shape_of(v)[1:]]
            load = tile.LoadOp(v, offsets, TileType(shape, v.type.element_type))  # type: ignore[attr-defined]
            load.result.name_hint = f"{v.name_hint}_tile" if v.name_hint else None
            self.rewriter.insert(load, at)
            tiles[v] = load.result
        for m in g.members:
            if isinstance(m, tensor.CastOp) and m.result.type == m.input.type:
                # an identity cast (e.g. of an f32 matmul product): the same tile
                tiles[m.result] = tiles[m.input]
                continue
            t = tile_op(m, tiles, rows)
            t.results[0].name_hint = f"{m.results[0].name_hint}_tile" if m.results[0].name_hint else None
            self.rewriter.insert(t, at)
            tiles[m.results[0]] = t.results[0]
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
            if atomic == AtomicKind.NONE:
                store = tile.StoreOp(tiles[value], target, where)
            else:
                store = tile.AtomicStoreOp(tiles[value], target, where, atomic)
            store.result.name_hint = target.name_hint
            self.rewriter.insert(store, at)
            current[carry] = store.result
        return current
