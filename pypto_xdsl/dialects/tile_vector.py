"""`pypto.tile.*` vector compute: elementwise ops, row and column reductions and broadcasts,
scalar broadcasts, casts and tile layout (reshape, transpose, transpose_view, concat).

Part of the tile family with `tile.py` (memory, partial tiles, windows, cube, block queries),
which lists every op in `TILE_OPS` and re-exports these (`tile.AddOp`). All are `Pure` on
tile values.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    TileType,
)
from pypto_xdsl.dialects.common import (
    CastOpBase,
    ElementwiseBinaryOp,
    ElementwiseScalarOp,
    ElementwiseUnaryOp,
    PyptoValueOp,
    RowExpandOpBase,
    RowReductionOpBase,
)
from pypto_xdsl.dialects.families import (
    ColExpandOpBase,
    ColReductionOpBase,
    ConcatOpBase,
    ExpandScalarOpBase,
    ReshapeOpBase,
    TransposeOpBase,
)
from pypto_xdsl.dialects.verification import pypto_op_definition

_PURE = traits_def(Pure())


# --------------------------------------------------------------------------- compute


class TileBinaryOp(ElementwiseBinaryOp):
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


class TileScalarOp(ElementwiseScalarOp):
    lhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


class TileUnaryOp(ElementwiseUnaryOp):
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


class TileScratchUnaryOp(TileUnaryOp):
    """A unary op whose lowering may take a scratch tile (`tmp(%t : T)`, PyPTO's `tmp=`)."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    tmp = opt_operand_def(TileType)


@pypto_op_definition
class AddOp(TileBinaryOp):
    name = "pypto.tile.add"


@pypto_op_definition
class SubOp(TileBinaryOp):
    name = "pypto.tile.sub"


@pypto_op_definition
class MulOp(TileBinaryOp):
    name = "pypto.tile.mul"


@pypto_op_definition
class DivOp(TileBinaryOp):
    name = "pypto.tile.div"


@pypto_op_definition
class MaximumOp(TileBinaryOp):
    name = "pypto.tile.maximum"


@pypto_op_definition
class MinimumOp(TileBinaryOp):
    name = "pypto.tile.minimum"


@pypto_op_definition
class AddsOp(TileScalarOp):
    name = "pypto.tile.adds"


@pypto_op_definition
class SubsOp(TileScalarOp):
    name = "pypto.tile.subs"


@pypto_op_definition
class MulsOp(TileScalarOp):
    name = "pypto.tile.muls"


@pypto_op_definition
class DivsOp(TileScalarOp):
    name = "pypto.tile.divs"


@pypto_op_definition
class ExpOp(TileUnaryOp):
    name = "pypto.tile.exp"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class LogOp(TileUnaryOp):
    name = "pypto.tile.log"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class SqrtOp(TileUnaryOp):
    name = "pypto.tile.sqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class NegOp(TileUnaryOp):
    name = "pypto.tile.neg"


@pypto_op_definition
class AbsOp(TileUnaryOp):
    name = "pypto.tile.abs"


@pypto_op_definition
class ReluOp(TileUnaryOp):
    name = "pypto.tile.relu"


@pypto_op_definition
class RecipOp(TileUnaryOp):
    name = "pypto.tile.recip"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class CastOp(CastOpBase):
    """`%c = pypto.tile.cast %a : A -> B`: elementwise dtype conversion."""

    name = "pypto.tile.cast"
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


class RowReductionOp(RowReductionOpBase):
    """`%r = op %a [tmp(%t : T)] : A`: `tmp` is the scratch tile PyPTO's tile-level
    reductions take (`pl.row_max(x, tmp)`): same element type, memory space and rank as
    `%a`, at least as large. It carries no value; lowerings may use it as workspace."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    tmp = opt_operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowMaxOp(RowReductionOp):
    name = "pypto.tile.row_max"


@pypto_op_definition
class RowSumOp(RowReductionOp):
    name = "pypto.tile.row_sum"


class _ArgReductionTyping:
    """The index (i32) result of an arg reduction over a float tile."""

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        return _index_result(super().implied_result_type(operand_types))  # type: ignore[misc]

    def infer_result_types(self) -> Sequence[Attribute]:
        _check_float_input(self)  # type: ignore[arg-type]
        return super().infer_result_types()  # type: ignore[misc]


class RowArgReductionOp(_ArgReductionTyping, RowReductionOpBase):
    """`%r = op %a [tmp(%t : T)] : A`: the column index (i32) of each row's extremum of a
    float tile, [M, N] -> [M, 1] (PyPTO's TROWARGMAX / TROWARGMIN); the first index on ties.
    On a partial tile only the valid columns are compared; the result's valid rows are the
    input's. Not a RowReductionOp: its result is no value of the input's element type."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    tmp = opt_operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowArgmaxOp(RowArgReductionOp):
    name = "pypto.tile.row_argmax"


@pypto_op_definition
class RowArgminOp(RowArgReductionOp):
    name = "pypto.tile.row_argmin"


def _index_result(t: Attribute) -> Attribute:
    from xdsl.dialects.builtin import i32

    return TileType(t.get_shape(), i32, t.memory_space) if isinstance(t, TileType) else t


def _check_float_input(op: Operation) -> None:
    from pypto_xdsl.dialects.attributes import is_float_type

    t = op.operands[0].type
    if isinstance(t, TileType) and not is_float_type(t.element_type):
        raise VerifyException(f"operand 'input' must be a float tile, got {t}")


class RowExpandTileOp(RowExpandOpBase):
    input = operand_def(TileType)
    row = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowExpandSubOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_sub"


@pypto_op_definition
class RowExpandMulOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_mul"


@pypto_op_definition
class RowExpandDivOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_div"



# --------------------------------------------------------------------------- more compute


@pypto_op_definition
class RsqrtOp(TileScratchUnaryOp):
    """`1 / sqrt(x)`; `tmp(%t : T)` is PyPTO's high-precision scratch (same type as the input)."""

    name = "pypto.tile.rsqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class TanhOp(TileUnaryOp):
    """`tanh`: not in PyPTO's catalogue (a pypto-xdsl extension; Ascend C has `Tanh`)."""

    name = "pypto.tile.tanh"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class SinOp(TileUnaryOp):
    name = "pypto.tile.sin"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class CosOp(TileUnaryOp):
    name = "pypto.tile.cos"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class MaximumsOp(TileScalarOp):
    name = "pypto.tile.maximums"


@pypto_op_definition
class MinimumsOp(TileScalarOp):
    name = "pypto.tile.minimums"


@pypto_op_definition
class ExpandsOp(ExpandScalarOpBase):
    """`%c = pypto.tile.expands %t, %s : T, E`: a tile shaped like `%t`, every element `%s`."""

    name = "pypto.tile.expands"
    target = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowMinOp(RowReductionOp):
    name = "pypto.tile.row_min"


@pypto_op_definition
class RowProdOp(RowReductionOp):
    name = "pypto.tile.row_prod"


class ColReductionOp(ColReductionOpBase):
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class ColSumOp(ColReductionOp):
    """`%r = pypto.tile.col_sum %a [tmp(%t : T)] : A`: [M, N] -> [1, N]; `tmp` selects PyPTO's
    binary-tree reduction (same values here)."""

    name = "pypto.tile.col_sum"
    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    tmp = opt_operand_def(TileType)


@pypto_op_definition
class ColMaxOp(ColReductionOp):
    name = "pypto.tile.col_max"


@pypto_op_definition
class ColMinOp(ColReductionOp):
    name = "pypto.tile.col_min"


@pypto_op_definition
class ColProdOp(ColReductionOp):
    name = "pypto.tile.col_prod"


class ColArgReductionOp(_ArgReductionTyping, ColReductionOpBase):
    """`%r = op %a [tmp(%t : T)] : A`: the row index (i32) of each column's extremum of a
    float tile, [M, N] -> [1, N] (PyPTO's TCOLARGMAX / TCOLARGMIN); the first index on ties.
    On a partial tile only the valid rows are compared; the result's valid columns are the
    input's. Not a ColReductionOp: its result is no value of the input's element type."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    tmp = opt_operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class ColArgmaxOp(ColArgReductionOp):
    name = "pypto.tile.col_argmax"


@pypto_op_definition
class ColArgminOp(ColArgReductionOp):
    name = "pypto.tile.col_argmin"


@pypto_op_definition
class RowExpandOp(RowExpandTileOp):
    name = "pypto.tile.row_expand"


@pypto_op_definition
class RowExpandAddOp(RowExpandTileOp):
    """`%c = pypto.tile.row_expand_add %a, %r [tmp(%t : T)] : A, R`: `a[i, j] + r[i, 0]`."""

    name = "pypto.tile.row_expand_add"
    OPTIONAL: ClassVar[tuple[str, ...]] = ("tmp",)
    input = operand_def(TileType)
    row = operand_def(TileType)
    tmp = opt_operand_def(TileType)


@pypto_op_definition
class RowExpandMaxOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_max"


@pypto_op_definition
class RowExpandMinOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_min"


@pypto_op_definition
class RowExpandExpdifOp(RowExpandTileOp):
    name = "pypto.tile.row_expand_expdif"


class ColExpandTileOp(ColExpandOpBase):
    input = operand_def(TileType)
    col = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class ColExpandOp(ColExpandTileOp):
    name = "pypto.tile.col_expand"


@pypto_op_definition
class ColExpandMulOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_mul"


@pypto_op_definition
class ColExpandDivOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_div"


@pypto_op_definition
class ColExpandSubOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_sub"


@pypto_op_definition
class ColExpandAddOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_add"


@pypto_op_definition
class ColExpandMaxOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_max"


@pypto_op_definition
class ColExpandMinOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_min"


@pypto_op_definition
class ColExpandExpdifOp(ColExpandTileOp):
    name = "pypto.tile.col_expand_expdif"


# --------------------------------------------------------------------------- layout


@pypto_op_definition
class ReshapeOp(ReshapeOpBase):
    """`%r = pypto.tile.reshape %t : T -> R`: the elements of `%t` (row-major) in another
    shape of the same count, same memory space."""

    name = "pypto.tile.reshape"
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class TransposeOp(TransposeOpBase):
    """`%r = pypto.tile.transpose %t, 0, 1 : T -> R`: `%t` with two axes exchanged (data
    movement; PyPTO's `tile.transpose`)."""

    name = "pypto.tile.transpose"
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class TransposeViewOp(PyptoValueOp):
    """`%r = pypto.tile.transpose_view %t : T`: `%t` with its last two axes exchanged, as a
    reinterpretation of the same buffer (NZ <-> ZN fractal layouts on the cube side: a
    [N, K] `mat` tile read as [K, N]); values are those of the transpose."""

    name = "pypto.tile.transpose_view"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation):
        input = SSAValue.get(input)
        super().__init__(operands=[input], result_types=[self.implied_result_type([input.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        t = operand_types[0]
        if not isinstance(t, TileType) or t.rank < 2:
            return t
        shape = list(t.get_shape())
        shape[-2], shape[-1] = shape[-1], shape[-2]
        return t.with_shape(shape)

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TileType)
        if t.rank < 2:
            raise VerifyException(f"operand 'input' must be a tile of rank 2 or more, got {t}")
        return (self.implied_result_type([t]),)


@pypto_op_definition
class ConcatOp(ConcatOpBase):
    """`%c = pypto.tile.concat %a, %b : A, B`: the columns of `%a`, then those of `%b`."""

    name = "pypto.tile.concat"
    src0 = operand_def(TileType)
    src1 = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE
