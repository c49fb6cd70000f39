"""`pypto.tile.*` comparisons into packed predicate masks, selections by them, and
triangular fills: `cmp` `cmps` `sel` `sels` `tri` (PyPTO's TCMP / TCMPS / TSEL / TSELS /
TTRI).

A *predicate mask* is an integer tile holding one bit per element of the tiles it was
compared from: the bit of element `[..., j]` is bit `j % 8` (least significant first) of byte
`j // 8` of its row, the row's bytes being the row of the mask tile read as bytes (a wider
integer mask carrier is read little-endian). `cmp` / `cmps` produce a `ui8` mask of shape
`[..., round_up(ceil(N / 8), 32)]` for an `[..., N]` input (PyPTO's packed layout: each row
padded to 32 bytes). `sel` / `sels` read a mask of any 8-, 16- or 32-bit integer type whose
rows cover the selected tile's rows and hold at least `ceil(N / 8)` bytes.

Part of the tile family (`tile.py` lists them in `TILE_OPS` and re-exports them). All are
`Pure` on tile values. The tensor forms `pypto.tensor.cmp` / `cmps` (PyPTO's `tensor.cmp`)
give a 0/1 tensor of the operand's type instead of a mask (`tensor.py` lists them).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, Signedness, UnitAttr, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    TensorType,
    TileType,
    element_byte_width,
    format_shape,
    is_float_type,
)
from pypto_xdsl.dialects.common import PyptoValueOp, join_elementwise
from pypto_xdsl.dialects.verification import pypto_op_definition

_PURE = traits_def(Pure())

MASK_ROW_ALIGN = 32
"""Bytes a row of a `cmp` / `cmps` mask is padded to (PyPTO's A2/A3 predicate layout)."""


class CmpMode(StrEnum):
    """The relation of `tile.cmp` / `tile.cmps`; PyPTO's `cmp_type` 0..5 in this order."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


CMP_MODES = tuple(CmpMode)
"""`cmp_type=k` of PyPTO is `CMP_MODES[k]`."""


@irdl_attr_definition
class CmpModeAttr(EnumAttribute[CmpMode], SpacedOpaqueSyntaxAttribute):
    """`#pypto<cmp lt>`"""

    name = "pypto.cmp"


def mask_type_for(t: TileType) -> TileType:
    """The `ui8` packed mask `cmp` of a `t` gives: the last dimension becomes
    `round_up(ceil(N / 8), 32)` bytes."""
    shape = list(t.get_shape())
    if not shape:
        raise VerifyException(f"operand 'lhs' must be a tile of rank 1 or more, got {t}")
    n = shape[-1]
    if not isinstance(n, int):
        raise VerifyException(f"the last dimension of {t} must be static to size its predicate mask")
    packed = (n + 7) // 8
    shape[-1] = (packed + MASK_ROW_ALIGN - 1) // MASK_ROW_ALIGN * MASK_ROW_ALIGN
    return TileType(shape, IntegerType(8, Signedness.UNSIGNED), t.memory_space)


def is_mask_carrier(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data in (8, 16, 32)


def scalar_type_ok(scalar: Attribute, element: Attribute) -> bool:
    """A scalar operand is of the element type or, for an unsigned integer element type,
    the signless integer of its width (its bit pattern: arith constants are signless)."""
    if scalar == element:
        return True
    return (
        isinstance(element, IntegerType)
        and element.signedness.data == Signedness.UNSIGNED
        and scalar == IntegerType(element.width.data)
    )


def check_scalar(scalar: Attribute, element: Attribute, name: str, of: str) -> None:
    if not scalar_type_ok(scalar, element):
        also = (
            f" (or {IntegerType(element.width.data)}, its bit pattern)"
            if isinstance(element, IntegerType) and element.signedness.data == Signedness.UNSIGNED
            else ""
        )
        raise VerifyException(
            f"operand '{name}' has type {scalar}, expected the element type {element} of '{of}'{also}"
        )


def check_numeric(t: TileType, what: str) -> None:
    e = t.element_type
    if not (is_float_type(e) or (isinstance(e, IntegerType) and e.width.data in (8, 16, 32, 64))):
        raise VerifyException(f"{what} must be an integer or float tile, got {t}")


def check_mask(mask: Attribute, src: TileType, what: str) -> None:
    """`mask` is a predicate mask for `src` (see the module docstring)."""
    assert isinstance(mask, TileType)
    if not is_mask_carrier(mask.element_type):
        raise VerifyException(f"operand 'mask' must be an 8-, 16- or 32-bit integer tile, got {mask}")
    if mask.space != src.space:
        raise VerifyException(
            f"operands 'mask' and '{what}' are in different memory spaces {mask.space.value} and {src.space.value}"
        )
    ms, ss = mask.get_shape(), src.get_shape()
    if len(ms) != len(ss):
        raise VerifyException(f"operand 'mask' {format_shape(ms)} must have the rank of '{what}' {format_shape(ss)}")
    short_rows = any(isinstance(m, int) and isinstance(s, int) and m < s for m, s in zip(ms[:-1], ss[:-1]))
    m_last, s_last = ms[-1], ss[-1]
    short_row = (
        isinstance(m_last, int)
        and isinstance(s_last, int)
        and m_last * element_byte_width(mask.element_type) < (s_last + 7) // 8
    )
    if short_rows or short_row:
        raise VerifyException(
            f"operand 'mask' {mask} does not cover '{what}' {format_shape(ss)}: it needs the rows of "
            f"'{what}' and ceil({s_last} / 8) bytes per row"
        )


def check_tmp(tmp: Attribute, src: TileType) -> None:
    assert isinstance(tmp, TileType)
    if tmp.space != src.space:
        raise VerifyException(
            f"operand 'tmp' is a {tmp.space.value} tile, expected a {src.space.value} tile like the selected ones"
        )


class CmpOpBase(PyptoValueOp):
    """`cmp(lt)` after the operands."""

    cmp = prop_def(CmpModeAttr)

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_keyword("cmp")
        parser.parse_punctuation("(")
        mode = parser.parse_str_enum(CmpMode)
        parser.parse_punctuation(")")
        return {"cmp": CmpModeAttr(mode)}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(f" cmp({self.cmp.data.value})")

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        t = operand_types[0]
        if isinstance(t, TileType) and t.rank and isinstance(t.get_shape()[-1], int):
            return mask_type_for(t)
        return t


@pypto_op_definition
class CmpOp(CmpOpBase):
    """`%m = pypto.tile.cmp %a, %b cmp(lt) : A, B`: the packed predicate mask of `a op b`
    (PyPTO's `tile.cmp`, TCMP); `%a` and `%b` of one type. On a partial `%a` the mask is
    valid in the valid rows and the `ceil(cols / 8)` bytes of the valid columns."""

    name = "pypto.tile.cmp"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, mode: CmpMode):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[self.implied_result_type([lhs.type])],
            properties={"cmp": CmpModeAttr(mode)},
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        t = join_elementwise(self.lhs.type, self.rhs.type)
        assert isinstance(t, TileType)
        check_numeric(t, "operand 'lhs'")
        return (mask_type_for(t),)


@pypto_op_definition
class CmpsOp(CmpOpBase):
    """`%m = pypto.tile.cmps %a, %s cmp(gt) : A, E`: the packed predicate mask of `a op s`
    for a scalar `%s` of `%a`'s element type (PyPTO's `tile.cmps`, TCMPS)."""

    name = "pypto.tile.cmps"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "scalar")
    lhs = operand_def(TileType)
    scalar = operand_def()
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, scalar: SSAValue | Operation, mode: CmpMode):
        lhs, scalar = SSAValue.get(lhs), SSAValue.get(scalar)
        super().__init__(
            operands=[lhs, scalar],
            result_types=[self.implied_result_type([lhs.type])],
            properties={"cmp": CmpModeAttr(mode)},
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.lhs.type
        assert isinstance(t, TileType)
        check_numeric(t, "operand 'lhs'")
        check_scalar(self.scalar.type, t.element_type, "scalar", "lhs")
        return (mask_type_for(t),)


@pypto_op_definition
class SelOp(PyptoValueOp):
    """`%r = pypto.tile.sel %m, %a, %b, %tmp : M, A, A, T`: `a` where the mask bit is set,
    else `b` (PyPTO's `tile.sel`, TSEL); `%tmp` is the instruction's scratch tile (no value).
    The result keeps the valid shape of `%a`."""

    name = "pypto.tile.sel"
    OPERANDS: ClassVar[tuple[str, ...]] = ("mask", "lhs", "rhs", "tmp")
    RESULT_LIKE: ClassVar[int] = 1
    mask = operand_def(TileType)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    tmp = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(
        self,
        mask: SSAValue | Operation,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        tmp: SSAValue | Operation,
    ):
        operands = [SSAValue.get(v) for v in (mask, lhs, rhs, tmp)]
        super().__init__(operands=operands, result_types=[operands[1].type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = join_elementwise(self.lhs.type, self.rhs.type)
        assert isinstance(t, TileType)
        check_mask(self.mask.type, t, "lhs")
        check_tmp(self.tmp.type, t)
        return (t,)


@pypto_op_definition
class SelsOp(PyptoValueOp):
    """`%r = pypto.tile.sels %m, %a, %tmp, %s : M, A, T, E`: `a` where the mask bit is set,
    else the scalar `%s` (PyPTO's `tile.sels`, TSELS); `%s` is of `%a`'s element type, or for
    an unsigned element type the signless integer of its width (the bit pattern)."""

    name = "pypto.tile.sels"
    OPERANDS: ClassVar[tuple[str, ...]] = ("mask", "src", "tmp", "scalar")
    RESULT_LIKE: ClassVar[int] = 1
    mask = operand_def(TileType)
    src = operand_def(TileType)
    tmp = operand_def(TileType)
    scalar = operand_def()
    result = result_def(TileType)
    traits = _PURE

    def __init__(
        self,
        mask: SSAValue | Operation,
        src: SSAValue | Operation,
        tmp: SSAValue | Operation,
        scalar: SSAValue | Operation,
    ):
        operands = [SSAValue.get(v) for v in (mask, src, tmp, scalar)]
        super().__init__(operands=operands, result_types=[operands[1].type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.src.type
        assert isinstance(t, TileType)
        check_numeric(t, "operand 'src'")
        check_mask(self.mask.type, t, "src")
        check_tmp(self.tmp.type, t)
        check_scalar(self.scalar.type, t.element_type, "scalar", "src")
        return (t,)


@pypto_op_definition
class TriOp(PyptoValueOp):
    """`%t = pypto.tile.tri %d lower : i32 -> T` (or `upper`): a rank-2 tile of ones on and
    below (above) the diagonal `%d` and zeros elsewhere, `torch.tril` / `torch.triu` of a
    ones tile: `[i, j]` is 1 when `j - i <= d` (lower) or `j - i >= d` (upper); PyPTO's
    `tile.tri` (TTRI). `pl.tile.tri(..., valid_shape=[r, c])` is this op followed by
    `tile.set_validshape`."""

    name = "pypto.tile.tri"
    OPERANDS: ClassVar[tuple[str, ...]] = ("diagonal",)
    diagonal = operand_def(i32)
    result = result_def(TileType)
    upper = opt_prop_def(UnitAttr)
    traits = _PURE

    def __init__(self, diagonal: SSAValue | Operation, result_type: TileType, upper: bool = False):
        super().__init__(
            operands=[SSAValue.get(diagonal)],
            result_types=[result_type],
            properties={"upper": UnitAttr()} if upper else {},
        )

    @property
    def is_upper(self) -> bool:
        return self.upper is not None

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_keyword("upper") is not None:
            return {"upper": UnitAttr()}
        if parser.parse_optional_keyword("lower") is None:
            parser.raise_error("Expected 'lower' or 'upper'")
        return {}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(" upper" if self.is_upper else " lower")

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.result.type
        assert isinstance(t, TileType)
        if t.rank != 2:
            raise VerifyException(f"result {t} must be a 2-D tile")
        check_numeric(t, "result")
        return (t,)


# --------------------------------------------------------------------------- tensor level


@pypto_op_definition
class TensorCmpOp(CmpOpBase):
    """`%c = pypto.tensor.cmp %a, %b cmp(lt) : T`: 1 where `a op b`, else 0, in `%a`'s type
    (PyPTO's `tensor.cmp` of two tensors: a 0/1 tensor, not a mask)."""

    name = "pypto.tensor.cmp"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, mode: CmpMode):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type], properties={"cmp": CmpModeAttr(mode)})

    def infer_result_types(self) -> Sequence[Attribute]:
        t = join_elementwise(self.lhs.type, self.rhs.type)
        assert isinstance(t, TensorType)
        check_numeric(t, "operand 'lhs'")
        return (t,)


@pypto_op_definition
class TensorCmpsOp(CmpOpBase):
    """`%c = pypto.tensor.cmps %a, %s cmp(ge) : T, E`: 1 where `a op s`, else 0, in `%a`'s
    type (PyPTO's `tensor.cmp` of a tensor and a scalar)."""

    name = "pypto.tensor.cmps"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "scalar")
    lhs = operand_def(TensorType)
    scalar = operand_def()
    result = result_def(TensorType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, scalar: SSAValue | Operation, mode: CmpMode):
        lhs, scalar = SSAValue.get(lhs), SSAValue.get(scalar)
        super().__init__(operands=[lhs, scalar], result_types=[lhs.type], properties={"cmp": CmpModeAttr(mode)})

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.lhs.type
        assert isinstance(t, TensorType)
        check_numeric(t, "operand 'lhs'")
        check_scalar(self.scalar.type, t.element_type, "scalar", "lhs")
        return (t,)


TILE_MASK_OPS = [CmpOp, CmpsOp, SelOp, SelsOp, TriOp]
TENSOR_CMP_OPS = [TensorCmpOp, TensorCmpsOp]
TILE_MASK_ATTRIBUTES = [CmpModeAttr]
