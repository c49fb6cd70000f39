"""`pl.tensor.*`: tensor-level ops (global memory), lowered to `pypto.tensor.*`."""

from pypto_xdsl.language.ops import OpStub

_NAMES = (
    "create slice assemble dim read add sub mul div maximum minimum adds subs muls divs "
    "exp neg abs sqrt log recip relu matmul cast"
).split()

for _n in _NAMES:
    globals()[_n] = OpStub("tensor", _n)

create_tensor = globals()["create"]
__all__ = [*_NAMES, "create_tensor"]
