"""`pl.tensor.*`: tensor-level ops (global memory), lowered to `pypto.tensor.*`."""

from pypto_xdsl.language.ops import OpStub

_NAMES = (
    "create slice assemble dim read reinterpret_view add sub mul div maximum minimum adds subs muls divs "
    "exp neg abs sqrt log recip relu not_ matmul cast row_max row_sum row_expand_sub row_expand_mul "
    "row_expand_div "
    "full write rsqrt tanh sin cos maximums minimums expands row_min row_prod col_sum col_max "
    "col_min col_prod row_expand row_expand_add row_expand_max row_expand_min row_expand_expdif "
    "col_expand col_expand_mul col_expand_div col_expand_sub col_expand_add col_expand_max "
    "col_expand_min col_expand_expdif reshape transpose concat matmul_acc get_block_idx get_block_num "
    "set_validshape cmp"
).split()

for _n in _NAMES:
    globals()[_n] = OpStub("tensor", _n)

create_tensor = globals()["create"]
__all__ = [*_NAMES, "create_tensor"]
