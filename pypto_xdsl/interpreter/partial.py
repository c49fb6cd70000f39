"""Partial tiles: tile values of which only an origin-anchored block holds real data.

PyPTO tiles carry a *valid shape* (`pl.load(..., valid_shape=[r, c])`,
`pl.tile.set_validshape`): the [r, c] block at the origin is data, the rest is unspecified
until `pl.tile.fillpad` fills it. The interpreter carries the valid shape with the value: a
partial tile is a `PartialTile`, a numpy array with a `.valid` tuple; every other tile is a
plain array (fully valid). The elements outside the valid block are `numerics.unspecified`
(NaN for floats), so a program that computes with them sees it in its results.

How ops treat a partial operand (PyPTO's type rules for valid shapes):
* elementwise ops, broadcasts, casts, moves: computed over the whole buffer, the result has
  the valid shape of the first operand;
* row reductions reduce the valid columns (result valid [r, 1]); column reductions the
  valid rows (result valid [1, c]);
* `tile.store` writes only the valid block into the tensor;
* `tile.fillpad` / `fillpad_expand` give a fully valid tile;
* reshape carries the valid block when it is a prefix of the buffer or only unit axes move.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pypto_xdsl.interpreter.numerics import unspecified


class PartialTile(np.ndarray):
    """A tile value whose valid block is `.valid` (one extent per dimension)."""

    valid: tuple[int, ...] | None

    def __array_finalize__(self, obj: object) -> None:
        # Arrays numpy derives from a partial tile (ufunc results, views) are not partial
        # unless an op says so (`with_valid`).
        self.valid = None


def valid_of(value: object) -> tuple[int, ...] | None:
    """The valid shape of a partial tile, None for a fully valid one."""
    return getattr(value, "valid", None)


def with_valid(array: np.ndarray, valid: Sequence[int] | None) -> np.ndarray:
    """`array` as a tile value with valid shape `valid` (None or the whole shape: a plain,
    fully valid array)."""
    base = np.asarray(array)
    if valid is None or tuple(valid) == base.shape:
        return base
    part = base.view(PartialTile)
    part.valid = tuple(int(v) for v in valid)
    return part


def valid_block(valid: Sequence[int]) -> tuple[slice, ...]:
    return tuple(slice(0, v) for v in valid)


def mark_partial(array: np.ndarray, valid: Sequence[int]) -> np.ndarray:
    """A copy of `array` whose elements outside the valid block are unspecified."""
    out = unspecified(array.shape, array.dtype)
    block = valid_block(valid)
    out[block] = np.asarray(array)[block]
    return with_valid(out, valid)


def filled(array: np.ndarray, pad: object, shape: Sequence[int] | None = None) -> np.ndarray:
    """A fully valid tile of `shape` (default: the array's) holding the valid block of
    `array` at the origin and `pad` everywhere else."""
    valid = valid_of(array) or array.shape
    out = np.full(tuple(shape) if shape is not None else array.shape, pad, dtype=array.dtype)
    block = valid_block(valid)
    out[block] = np.asarray(array)[block]
    return out


def reshaped_valid(valid: Sequence[int], old: Sequence[int], new: Sequence[int]) -> tuple[int, ...] | None:
    """The valid block of a reshape from `old` to `new`, or None when no origin-anchored block
    of `new` holds exactly the valid cells."""
    cells = np.zeros(tuple(old), dtype=bool)
    cells[valid_block(valid)] = True
    moved = cells.reshape(tuple(new))
    extents = tuple(int(np.max(np.nonzero(moved)[k])) + 1 if moved.any() else 0 for k in range(len(new)))
    expected = np.zeros(tuple(new), dtype=bool)
    expected[valid_block(extents)] = True
    return extents if np.array_equal(moved, expected) else None
