"""`pl.tile.*`: on-chip tile ops, lowered to `pypto.tile.*`."""

from pypto_xdsl.language.ops import OpStub

_NAMES = (
    "load store full add sub mul div maximum minimum adds subs muls divs exp log sqrt neg "
    "abs relu recip row_max row_sum row_expand_sub row_expand_mul row_expand_div move matmul "
    "matmul_acc cast get_block_idx get_block_num"
).split()

for _n in _NAMES:
    globals()[_n] = OpStub("tile", _n)

__all__ = list(_NAMES)
