"""Packed predicate masks for the interpreter: `tile.cmp` / `tile.cmps` build them,
`tile.sel` / `tile.sels` read them, `tile.tri` fills triangles (see dialects/tile_mask.py
for the layout: bit `j % 8`, least significant first, of byte `j // 8` of a row, a wider
mask carrier read little-endian)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from pypto_xdsl.dialects.tile_mask import CmpMode
from pypto_xdsl.interpreter.partial import valid_of, with_valid
from pypto_xdsl.interpreter.values import coerce

_RELATIONS = {
    CmpMode.EQ: np.equal,
    CmpMode.NE: np.not_equal,
    CmpMode.LT: np.less,
    CmpMode.LE: np.less_equal,
    CmpMode.GT: np.greater,
    CmpMode.GE: np.greater_equal,
}


def as_element(value: object, dtype: np.dtype) -> np.ndarray:
    """A scalar operand as a 0-d array of the tile's dtype; an integer of an unsigned tile
    is taken by its bit pattern (the signless scalar of its width)."""
    if dtype.kind == "u" and isinstance(value, int | np.integer):
        return np.array(int(value) % (1 << (8 * dtype.itemsize)), dtype=dtype)
    return np.array(value).astype(dtype)


def _holds(a: np.ndarray, b: object, mode: CmpMode) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return _RELATIONS[mode](np.asarray(a), np.asarray(b))


def relation(a: np.ndarray, b: object, mode: CmpMode, dtype: np.dtype) -> np.ndarray:
    """1 where `a <mode> b`, else 0, as `dtype` (`tensor.cmp`)."""
    return _holds(a, b, mode).astype(dtype)


def compare(a: np.ndarray, b: object, mode: CmpMode, shape: Sequence[int]) -> np.ndarray:
    """The `ui8` mask of shape `shape` of `a <mode> b` over the whole buffer (padding bytes
    zero); on a partial `a` it is valid in the valid rows and the bytes of the valid columns."""
    bits = _holds(a, b, mode)
    packed = np.packbits(bits, axis=-1, bitorder="little")
    out = np.zeros(tuple(shape), dtype=np.uint8)
    out[(..., slice(0, packed.shape[-1]))] = packed
    valid = valid_of(a)
    if valid is None:
        return out
    return with_valid(out, (*valid[:-1], (valid[-1] + 7) // 8))


def bits_for(mask: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """The predicate bits of `mask` for a tile of `shape`, as booleans of that shape."""
    m = np.ascontiguousarray(np.asarray(mask))
    raw = m.astype(m.dtype.newbyteorder("<"), copy=False).view(np.uint8)
    bits = np.unpackbits(raw, axis=-1, bitorder="little")
    return bits[tuple(slice(0, n) for n in shape)].astype(bool)


def select(mask: np.ndarray, a: np.ndarray, b: object, element: Attribute) -> np.ndarray:
    """`a` where the mask bit is set, else `b` (a tile of `a`'s shape or a scalar)."""
    data = np.asarray(a)
    return coerce(np.where(bits_for(mask, data.shape), data, np.asarray(b)).astype(data.dtype), element)


def triangle(shape: Sequence[int], diagonal: int, upper: bool, dtype: np.dtype) -> np.ndarray:
    """Ones where `j - i <= diagonal` (lower) or `j - i >= diagonal` (upper), else zeros."""
    rows, cols = shape
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    inside = offset >= diagonal if upper else offset <= diagonal
    return inside.astype(dtype)
