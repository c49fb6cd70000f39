"""`pypto.tile.*`: ops on on-chip tiles (values private to one core).

`load` copies a window of a GM tensor into a tile; `store` writes a tile into a window of a
tensor and returns a value naming the tensor's storage. Compute ops are pure on tile values,
except `matmul_acc`, which accumulates into its `acc` operand in place (L0C).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    TensorType,
    TileType,
)
from pypto_xdsl.dialects.common import (
    CastOpBase,
    ElementwiseBinaryOp,
    ElementwiseScalarOp,
    ElementwiseUnaryOp,
    MatmulOpBase,
    PyptoValueOp,
    RowExpandOpBase,
    RowReductionOpBase,
    accumulator_element_type,
    check_offsets,
    check_window,
    join_shapes,
    matmul_shape,
)
from pypto_xdsl.dialects.traits import ResultAliasesOperand
from pypto_xdsl.dialects.verification import pypto_op_definition

_PURE = traits_def(Pure())


# --------------------------------------------------------------------------- memory


@pypto_op_definition
class LoadOp(PyptoValueOp):
    """`%t = pypto.tile.load %src[%i, %j] : T -> !pypto.tile<[64, 64], f32, vec>`.

    Copies the window of `%src` at the offsets, shaped like the result tile.
    """

    name = "pypto.tile.load"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self, source: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], result_type: TileType
    ):
        super().__init__(operands=[source, offsets], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        src, tile = self.source.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(tile, TileType)
        check_offsets(self.offsets, src.rank, "operand 'source'")
        if tile.element_type != src.element_type:
            raise VerifyException(
                f"result tile element type {tile.element_type} differs from the source's {src.element_type}"
            )
        check_window(src, tile.get_shape(), "load")
        return (tile,)


@pypto_op_definition
class StoreOp(PyptoValueOp):
    """`%r = pypto.tile.store %tile, %dst[%i, %j] : Tile, T`.

    Writes `%tile` into the window of `%dst` at the offsets; `%r` names `%dst`'s storage.
    """

    name = "pypto.tile.store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tile", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    RESULT_LIKE: ClassVar[int] = 1
    tile = operand_def(TileType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(1))

    def __init__(
        self, tile: SSAValue | Operation, dest: SSAValue | Operation, offsets: Sequence[SSAValue | Operation]
    ):
        super().__init__(operands=[tile, dest, offsets], result_types=[SSAValue.get(dest).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        tile, dst = self.tile.type, self.dest.type
        assert isinstance(tile, TileType) and isinstance(dst, TensorType)
        check_offsets(self.offsets, dst.rank, "operand 'dest'")
        if tile.element_type != dst.element_type:
            raise VerifyException(
                f"operand 'tile' has element type {tile.element_type} but 'dest' has {dst.element_type}"
            )
        check_window(dst, tile.get_shape(), "store")
        return (dst,)


@pypto_op_definition
class FullOp(PyptoValueOp):
    """`%t = pypto.tile.full %v : f32 -> Tile`: a tile with every element `%v`."""

    name = "pypto.tile.full"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    value = operand_def()
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, value: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[value], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.result.type
        assert isinstance(t, TileType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"operand 'value' has type {self.value.type}, expected the element type {t.element_type}"
            )
        return (t,)


@pypto_op_definition
class MoveOp(PyptoValueOp):
    """`%b = pypto.tile.move %a : A -> B`: copy a tile to another on-chip memory space."""

    name = "pypto.tile.move"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation, memory_space: MemorySpace):
        t = SSAValue.get(input).type
        assert isinstance(t, TileType)
        super().__init__(operands=[input], result_types=[TileType(t.get_shape(), t.element_type, memory_space)])

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.result.type
        assert isinstance(t, TileType) and isinstance(r, TileType)
        return (TileType(t.get_shape(), t.element_type, r.memory_space),)


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
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowMaxOp(RowReductionOp):
    name = "pypto.tile.row_max"


@pypto_op_definition
class RowSumOp(RowReductionOp):
    name = "pypto.tile.row_sum"


class RowExpandOp(RowExpandOpBase):
    input = operand_def(TileType)
    row = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE


@pypto_op_definition
class RowExpandSubOp(RowExpandOp):
    name = "pypto.tile.row_expand_sub"


@pypto_op_definition
class RowExpandMulOp(RowExpandOp):
    name = "pypto.tile.row_expand_mul"


@pypto_op_definition
class RowExpandDivOp(RowExpandOp):
    name = "pypto.tile.row_expand_div"


def _check_cube_operands(lhs: TileType, rhs: TileType) -> None:
    """The cube unit reads its left operand from L0A and its right operand from L0B."""
    if lhs.space != MemorySpace.LEFT:
        raise VerifyException(f"operand 'lhs' must be a 'left' tile, got {lhs}; move it there first")
    if rhs.space != MemorySpace.RIGHT:
        raise VerifyException(f"operand 'rhs' must be a 'right' tile, got {rhs}; move it there first")


def _accumulator_type(lhs: TileType, rhs: TileType) -> TileType:
    return TileType(matmul_shape(lhs, rhs), accumulator_element_type(lhs.element_type), MemorySpace.ACC)


@pypto_op_definition
class MatmulOp(MatmulOpBase):
    """`%c = pypto.tile.matmul %a, %b : A, B -> C`: cube matmul into an `acc` tile.

    [M, K] (`left`) x [K, N] (`right`) -> [M, N] (`acc`); the accumulator is f32 for float
    inputs, i32 for integers.
    """

    name = "pypto.tile.matmul"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[self.implied_result_type([lhs.type, rhs.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        lhs, rhs = operand_types
        if isinstance(lhs, TileType) and isinstance(rhs, TileType):
            try:
                return _accumulator_type(lhs, rhs)
            except VerifyException:
                pass
        return lhs

    def infer_result_types(self) -> Sequence[Attribute]:
        lhs, rhs = self.lhs.type, self.rhs.type
        assert isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        return (_accumulator_type(lhs, rhs),)


@pypto_op_definition
class MatmulAccOp(PyptoValueOp):
    """`%c = pypto.tile.matmul_acc %acc, %a, %b : C, A, B`: `acc += a @ b`, in place."""

    name = "pypto.tile.matmul_acc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("acc", "lhs", "rhs")
    acc = operand_def(TileType)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(0))

    def __init__(self, acc: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        acc, lhs, rhs = self.acc.type, self.lhs.type, self.rhs.type
        assert isinstance(acc, TileType) and isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        if acc.space != MemorySpace.ACC:
            raise VerifyException(f"operand 'acc' must be an 'acc' tile, got {acc}")
        expected = _accumulator_type(lhs, rhs)
        if acc.element_type != expected.element_type:
            raise VerifyException(
                f"operand 'acc' has element type {acc.element_type}, expected {expected.element_type}"
            )
        join_shapes(acc.get_shape(), expected.get_shape(), "operand 'acc' and the product of 'lhs' and 'rhs'")
        return (acc,)


class BlockQueryOp(PyptoValueOp):
    """`%i = op : index`."""

    result = result_def(IndexType)
    traits = _PURE

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def infer_result_types(self) -> Sequence[Attribute]:
        return (IndexType(),)


@pypto_op_definition
class GetBlockIdxOp(BlockQueryOp):
    """The index of the core (block) running this kernel instance, in [0, block_num)."""

    name = "pypto.tile.get_block_idx"


@pypto_op_definition
class GetBlockNumOp(BlockQueryOp):
    """The number of cores (blocks) the kernel was launched on."""

    name = "pypto.tile.get_block_num"


TILE_OPS = [
    LoadOp,
    StoreOp,
    FullOp,
    MoveOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    AddsOp,
    SubsOp,
    MulsOp,
    DivsOp,
    ExpOp,
    LogOp,
    SqrtOp,
    NegOp,
    AbsOp,
    ReluOp,
    RecipOp,
    CastOp,
    RowMaxOp,
    RowSumOp,
    RowExpandSubOp,
    RowExpandMulOp,
    RowExpandDivOp,
    MatmulOp,
    MatmulAccOp,
    GetBlockIdxOp,
    GetBlockNumOp,
]

