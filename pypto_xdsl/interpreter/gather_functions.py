"""Interpreter implementations of `pypto.tile.mgather`, `gatherb` and `mscatter`
(pypto_xdsl/dialects/tile_gather.py).

Indices are read as unsigned 32-bit values (-1 is 4294967295, past any table). An index the
op leaves undefined (an `undefined` out-of-bounds policy, a `gatherb` block outside its
source, an `mscatter` position outside its tensor) is an error naming the op, not a guess.
`gatherb` works on the tiles' bytes: a bf16 tile (carried as float32) is its 16-bit patterns.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BFloat16Type
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, register_impls
from xdsl.ir import Attribute

from pypto_xdsl.dialects import tile_gather as G
from pypto_xdsl.dialects.attributes import GatherCoalesce, GatherOob, MemorySpace, element_byte_width
from pypto_xdsl.interpreter import numerics
from pypto_xdsl.interpreter.functions import check_write, fail, pimpl
from pypto_xdsl.interpreter.partial import valid_block, valid_of, with_valid
from pypto_xdsl.interpreter.values import numpy_dtype


def _bytes(a: np.ndarray, elem: Attribute) -> np.ndarray:
    """The row-major bytes of `a` (as element type `elem`), one row of bytes per row."""
    data = np.asarray(a)
    if isinstance(elem, BFloat16Type):
        bits = (np.ascontiguousarray(data, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        bits = np.ascontiguousarray(data, dtype=numpy_dtype(elem))
    return bits.view(np.uint8).reshape(data.shape[0], -1)


def _from_bytes(b: np.ndarray, elem: Attribute) -> np.ndarray:
    """The array of element type `elem` whose row-major bytes are `b` (one row per row)."""
    b = np.ascontiguousarray(b, dtype=np.uint8)
    if isinstance(elem, BFloat16Type):
        return (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return b.view(numpy_dtype(elem))


class GatherFunctions(InterpreterFunctions):
    """`pypto.tile.mgather` / `gatherb` / `mscatter`."""

    @pimpl(G.MgatherOp)
    def run_mgather(self, interpreter: Interpreter, op: G.MgatherOp, args: PythonValues):
        mem, idx = args[0], args[1]
        result = op.result.type
        table = np.asarray(mem)
        row = op.coalesce.data == GatherCoalesce.ROW
        entries = table.reshape(-1, table.shape[-1]) if row else table.reshape(-1)
        n = entries.shape[0]
        ishape = np.asarray(idx).shape
        ivalid = valid_of(idx) or ishape
        chosen = np.asarray(idx)[valid_block(ivalid)].astype(np.int64) & 0xFFFFFFFF
        if row:
            chosen = chosen.reshape(-1)
        policy = op.oob.data
        past = chosen >= n
        if policy == GatherOob.UNDEFINED and past.any():
            bad = int(chosen[past].flat[0])
            what = f"its {n} rows" if row else f"its {n} elements"
            raise fail(
                interpreter,
                op,
                f"index {bad} is past the table ({what}) and gather_oob is 'undefined'; "
                "give gather_oob='clamp', 'wrap' or 'zero' for out-of-range indices",
            )
        if policy == GatherOob.CLAMP:
            chosen = np.minimum(chosen, n - 1)
        elif policy == GatherOob.WRAP:
            chosen = chosen % n
        safe = np.where(past, 0, chosen) if policy == GatherOob.ZERO else chosen
        gathered = entries[safe]
        if policy == GatherOob.ZERO:
            gathered = np.where(past[:, None] if row else past, np.zeros((), gathered.dtype), gathered)
        shape = tuple(int(d) for d in result.get_shape())  # type: ignore[union-attr]
        out = numerics.unspecified(shape, numpy_dtype(result.element_type))  # type: ignore[union-attr]
        if row:
            valid = (len(chosen), shape[1])
        else:
            valid = tuple(ivalid)
        out[valid_block(valid)] = gathered
        if result.space == MemorySpace.MAT:  # type: ignore[union-attr]
            return (out,)
        return (with_valid(out, valid if valid != shape else None),)

    @pimpl(G.GatherbOp)
    def run_gatherb(self, interpreter: Interpreter, op: G.GatherbOp, args: PythonValues):
        src, offsets = args
        src_elem, elem = op.source.type.element_type, op.result.type.element_type  # type: ignore[union-attr]
        source = _bytes(src, src_elem).reshape(-1)
        shape = tuple(int(d) for d in op.result.type.get_shape())  # type: ignore[union-attr]
        out = _bytes(numerics.unspecified(shape, numpy_dtype(elem)), elem).copy()
        off = np.asarray(offsets)
        vrows, vblocks = valid_of(offsets) or off.shape
        block = G.BLOCK_BYTES
        for i in range(vrows):
            for b in range(vblocks):
                o = int(off[i, b])
                if o % block or o + block > source.size:
                    raise fail(
                        interpreter,
                        op,
                        f"offset [{i}, {b}] is byte {o}: a 32-byte block of the "
                        f"{source.size}-byte source starts at a multiple of 32 inside it",
                    )
                out[i, b * block : (b + 1) * block] = source[o : o + block]
        per_block = block // element_byte_width(elem)
        valid = (vrows, vblocks * per_block)
        return (with_valid(_from_bytes(out, elem).reshape(shape), valid if valid != shape else None),)

    @pimpl(G.MscatterOp)
    def run_mscatter(self, interpreter: Interpreter, op: G.MscatterOp, args: PythonValues):
        src, idx, dst = args
        check_write(interpreter, op, dst)
        block = valid_block(valid_of(src) or np.asarray(src).shape)
        where = np.asarray(idx)[block].reshape(-1).astype(np.int64)
        values = np.asarray(src)[block].reshape(-1)
        outside = (where < 0) | (where >= dst.size)
        if outside.any():
            bad = int(where[outside][0])
            raise fail(
                interpreter, op, f"index {bad} is outside the {dst.size} elements of the destination {list(dst.shape)}"
            )
        dst[np.unravel_index(where, dst.shape)] = values
        return (dst,)


register_impls(GatherFunctions)
