"""`pl.tensor.*`: tensor-level ops (global memory), lowered to `pypto.tensor.*`."""

from pypto_xdsl.language.ops import OpStub

_NAMES = (
    "create slice assemble dim read add sub mul div maximum minimum adds subs muls divs "
    "exp neg abs sqrt log recip relu matmul cast row_max row_sum row_expand_sub row_expand_mul "
    "row_expand_div"
).split()

for _n in _NAMES:
    globals()[_n] = OpStub("tensor", _n)

create_tensor = globals()["create"]
__all__ = [*_NAMES, "create_tensor"]
