"""`pl` ops lowered to several existing pypto ops (no op of their own in the IR).

* `pl.tile.lrelu(tile, slope)` (also `pl.lrelu`): leaky ReLU, `x > 0 ? x : slope * x` (PyPTO's
  TLRELU), for any scalar slope (not only slope <= 1, where it is `max(x, slope * x)`);
* `pl.tile.prelu(tile, slope, tmp)` (also `pl.prelu`): parametric ReLU, the same with a
  slope tile of the input's type; PyPTO's scratch `tmp` (any tile) is unused;
* `pl.tile.not_(tile)`, `pl.tensor.not_`, `pl.not_`: bitwise NOT of a signed integer tile or
  tensor (PyPTO's TNOT), `-x - 1` (two's complement: `~x == -x - 1`, wrapping included).

Both ReLUs are `relu(x) + slope * min(x, 0)`, which is exact: for x > 0 it is `x + slope * 0`,
for x <= 0 `0 + slope * x`. Each is four element-wise ops (relu, minimums, muls or mul, add),
which both the interpreter and the Ascend C backend have, partial tiles included.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import SSAValue

from pypto_xdsl.frontend.ops import Args, _check_family, binary, scalar, unary
from pypto_xdsl.frontend.values import Const, describe

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder
    from pypto_xdsl.frontend.ops import Handler


def _negative_part(fb: FunctionBuilder, value: SSAValue, node: ast.AST, fam: str) -> SSAValue:
    return scalar(fb, "minimums", value, Const(0), node, fam)


def _lrelu(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = "tile" if family == "tile" else "input"
        a = Args(fb, node, qual, [first, "slope"], 2, aliases={"input": first} if first != "input" else None)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        slope = a.value("slope")
        if not isinstance(slope, SSAValue | Const) or isinstance(slope, SSAValue) and not _is_scalar(slope):
            raise fb.error(a.node_of("slope"), f"'slope' of {qual} must be a scalar, got {describe(slope)}")
        positive = unary(fb, "relu", value, node, fam)
        scaled = scalar(fb, "muls", _negative_part(fb, value, node, fam), slope, node, fam)
        return binary(fb, "add", positive, scaled, node, fam)

    return handle


def _prelu(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = "tile" if family == "tile" else "input"
        a = Args(fb, node, qual, [first, "slope", "tmp"], 2, aliases={"input": first} if first != "input" else None)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        slope = a.shaped("slope")
        if slope.type != value.type:
            raise fb.error(
                a.node_of("slope"),
                f"'slope' of {qual} must have the type of '{first}' ({describe(value)}), got {describe(slope)}",
            )
        if "tmp" in a:
            a.tile("tmp")  # the hardware's scratch (PyPTO passes e.g. a u8 mask tile): a tile, unused here
        positive = unary(fb, "relu", value, node, fam)
        scaled = binary(fb, "mul", _negative_part(fb, value, node, fam), slope, node, fam)
        return binary(fb, "add", positive, scaled, node, fam)

    return handle


def _not(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = "tile" if family == "tile" else "input"
        a = Args(fb, node, qual, [first], 1, aliases={"input": first} if first != "input" else None)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        element = value.type.element_type  # type: ignore[union-attr]
        if not isinstance(element, IntegerType) or element.width.data == 1 or element.signedness.data != Signedness.SIGNLESS:
            raise fb.error(
                a.node_of(first),
                f"{qual} takes a signed integer {fam} (INT8, INT16, INT32, INT64), got {describe(value)}",
            )
        return scalar(fb, "subs", unary(fb, "neg", value, node, fam), Const(1), node, fam)

    return handle


def _is_scalar(value: SSAValue) -> bool:
    from pypto_xdsl.dialects.attributes import TensorType, TileType

    return not isinstance(value.type, TensorType | TileType)


def register(handlers: dict[tuple[str, str], Handler]) -> None:
    for key in ("", "tile"):  # PyPTO's ReLUs are tile ops (`pl.lrelu` is `pl.tile.lrelu`)
        handlers[(key, "lrelu")] = _lrelu("tile")
        handlers[(key, "prelu")] = _prelu("tile")
    for key, fam in (("", None), ("tile", "tile"), ("tensor", "tensor")):
        handlers[(key, "not_")] = _not(fam)
