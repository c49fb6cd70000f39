"""`pl.tile.*`: on-chip tile ops, lowered to `pypto.tile.*`."""

from pypto_xdsl.language.ops import OpStub

_NAMES = (
    "load store full add sub mul div maximum minimum adds subs muls divs exp log sqrt neg "
    "abs relu lrelu prelu not_ recip row_max row_sum row_expand_sub row_expand_mul row_expand_div move matmul "
    "matmul_acc matmul_bias cast get_block_idx get_block_num "
    "create create_tile read write slice assemble fillpad fillpad_inplace fillpad_expand set_validshape "
    "rsqrt tanh sin cos maximums minimums expands row_min row_prod col_sum col_max col_min "
    "col_prod row_argmax row_argmin col_argmax col_argmin row_expand row_expand_add row_expand_max row_expand_min row_expand_expdif "
    "col_expand col_expand_mul col_expand_div col_expand_sub col_expand_add col_expand_max "
    "col_expand_min col_expand_expdif reshape transpose transpose_view concat min max "
    "cmp cmps sel sels tri"
    " mgather gatherb mscatter"
).split()
_NAMES += ["gemv", "gemv_acc", "gemv_bias", "batch_matmul", "batch_matmul_acc"]  # frontend/ops_cube.py

for _n in _NAMES:
    globals()[_n] = OpStub("tile", _n)

__all__ = list(_NAMES)
