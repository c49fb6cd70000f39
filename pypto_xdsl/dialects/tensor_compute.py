"""`pypto.tensor.*` compute: elementwise ops (binary, with a scalar, unary), casts, row and
column reductions and broadcasts, scalar broadcasts, matmul, `matmul_acc` and `concat`. Each
reads its operands and produces a new tensor; `convert-tensor-to-tile` lowers it to tile ops
inside InCore functions.

Part of the tensor family with `tensor.py` (creation, windows and views, element reads and
writes, `assemble`, `full`), which lists every op in `TENSOR_OPS` and re-exports these
(`tensor.AddOp`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import TensorType
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
    batch_matmul_shape,
    check_batch_accumulator,
    expect_type,
    join_shapes,
    matmul_shape,
)
from pypto_xdsl.dialects.families import (
    ColExpandOpBase,
    ColReductionOpBase,
    ConcatOpBase,
    ExpandScalarOpBase,
)
from pypto_xdsl.dialects.verification import pypto_op_definition

_READS = traits_def(MemoryReadEffect(), MemoryAllocEffect())


class TensorBinaryOp(ElementwiseBinaryOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


class TensorScalarOp(ElementwiseScalarOp):
    lhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


class TensorUnaryOp(ElementwiseUnaryOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class AddOp(TensorBinaryOp):
    name = "pypto.tensor.add"


@pypto_op_definition
class SubOp(TensorBinaryOp):
    name = "pypto.tensor.sub"


@pypto_op_definition
class MulOp(TensorBinaryOp):
    name = "pypto.tensor.mul"


@pypto_op_definition
class DivOp(TensorBinaryOp):
    name = "pypto.tensor.div"


@pypto_op_definition
class MaximumOp(TensorBinaryOp):
    name = "pypto.tensor.maximum"


@pypto_op_definition
class MinimumOp(TensorBinaryOp):
    name = "pypto.tensor.minimum"


@pypto_op_definition
class AddsOp(TensorScalarOp):
    name = "pypto.tensor.adds"


@pypto_op_definition
class SubsOp(TensorScalarOp):
    name = "pypto.tensor.subs"


@pypto_op_definition
class MulsOp(TensorScalarOp):
    name = "pypto.tensor.muls"


@pypto_op_definition
class DivsOp(TensorScalarOp):
    name = "pypto.tensor.divs"


@pypto_op_definition
class ExpOp(TensorUnaryOp):
    name = "pypto.tensor.exp"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class LogOp(TensorUnaryOp):
    name = "pypto.tensor.log"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class SqrtOp(TensorUnaryOp):
    name = "pypto.tensor.sqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class NegOp(TensorUnaryOp):
    name = "pypto.tensor.neg"


@pypto_op_definition
class AbsOp(TensorUnaryOp):
    name = "pypto.tensor.abs"


@pypto_op_definition
class ReluOp(TensorUnaryOp):
    name = "pypto.tensor.relu"


@pypto_op_definition
class RecipOp(TensorUnaryOp):
    name = "pypto.tensor.recip"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class CastOp(CastOpBase):
    """`%c = pypto.tensor.cast %a : A -> B`: elementwise dtype conversion."""

    name = "pypto.tensor.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class MatmulOp(MatmulOpBase):
    """`%c = pypto.tensor.matmul %a, %b : A, B -> C`: [M, K] x [K, N] -> [M, N].

    The product has the accumulator's element type, as `pypto.tile.matmul`: f32 for float
    inputs, i32 for integers.
    """

    name = "pypto.tensor.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        result = self._infer(expect_type(lhs, TensorType, "operand 'lhs'"), expect_type(rhs, TensorType, "operand 'rhs'"))
        super().__init__(operands=[lhs, rhs], result_types=[result])

    @staticmethod
    def _infer(lhs: Attribute, rhs: Attribute) -> TensorType:
        assert isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        return TensorType(matmul_shape(lhs, rhs), accumulator_element_type(lhs.element_type))

    def infer_result_types(self) -> Sequence[Attribute]:
        return (self._infer(self.lhs.type, self.rhs.type),)


@pypto_op_definition
class BatchMatmulOp(MatmulOpBase):
    """`%c = pypto.tensor.batch_matmul %a, %b : A, B -> C`: a matmul per batch,
    [*Ba, M, K] x [*Bb, K, N] -> [*B, M, N], where B broadcasts Ba and Bb (aligned at their
    ends, a size-1 or missing dim repeated: PyPTO's `tensor.matmul` of rank > 2). The product
    has the accumulator's element type, as `pypto.tensor.matmul`.
    """

    name = "pypto.tensor.batch_matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        result = self._infer(expect_type(lhs, TensorType, "operand 'lhs'"), expect_type(rhs, TensorType, "operand 'rhs'"))
        super().__init__(operands=[lhs, rhs], result_types=[result])

    @staticmethod
    def _infer(lhs: Attribute, rhs: Attribute) -> TensorType:
        assert isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        return TensorType(batch_matmul_shape(lhs, rhs), accumulator_element_type(lhs.element_type))

    def infer_result_types(self) -> Sequence[Attribute]:
        return (self._infer(self.lhs.type, self.rhs.type),)


class TensorRowReductionOp(RowReductionOpBase):
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class RowMaxOp(TensorRowReductionOp):
    """`%r = pypto.tensor.row_max %a : A`: the maximum of each row, [M, N] -> [M, 1]."""

    name = "pypto.tensor.row_max"


@pypto_op_definition
class RowSumOp(TensorRowReductionOp):
    """`%r = pypto.tensor.row_sum %a : A`: the sum of each row, [M, N] -> [M, 1]."""

    name = "pypto.tensor.row_sum"


class TensorRowExpandOp(RowExpandOpBase):
    input = operand_def(TensorType)
    row = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class RowExpandSubOp(TensorRowExpandOp):
    """`%c = pypto.tensor.row_expand_sub %a, %r : A, R`: `a[i, j] - r[i, 0]`."""

    name = "pypto.tensor.row_expand_sub"


@pypto_op_definition
class RowExpandMulOp(TensorRowExpandOp):
    """`%c = pypto.tensor.row_expand_mul %a, %r : A, R`: `a[i, j] * r[i, 0]`."""

    name = "pypto.tensor.row_expand_mul"


@pypto_op_definition
class RowExpandDivOp(TensorRowExpandOp):
    """`%c = pypto.tensor.row_expand_div %a, %r : A, R`: `a[i, j] / r[i, 0]`."""

    name = "pypto.tensor.row_expand_div"


@pypto_op_definition
class RsqrtOp(TensorUnaryOp):
    name = "pypto.tensor.rsqrt"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class TanhOp(TensorUnaryOp):
    """`tanh`: not in PyPTO's catalogue (a pypto-xdsl extension; Ascend C has `Tanh`)."""

    name = "pypto.tensor.tanh"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class SinOp(TensorUnaryOp):
    name = "pypto.tensor.sin"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class CosOp(TensorUnaryOp):
    name = "pypto.tensor.cos"
    FLOAT_ONLY: ClassVar[bool] = True


@pypto_op_definition
class MaximumsOp(TensorScalarOp):
    name = "pypto.tensor.maximums"


@pypto_op_definition
class MinimumsOp(TensorScalarOp):
    name = "pypto.tensor.minimums"


@pypto_op_definition
class ExpandsOp(ExpandScalarOpBase):
    """`%c = pypto.tensor.expands %t, %s : T, E`: a new tensor shaped like `%t`, every element `%s`."""

    name = "pypto.tensor.expands"
    target = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect())


@pypto_op_definition
class RowMinOp(TensorRowReductionOp):
    """`%r = pypto.tensor.row_min %a : A`: the minimum of each row, [M, N] -> [M, 1]."""

    name = "pypto.tensor.row_min"


@pypto_op_definition
class RowProdOp(TensorRowReductionOp):
    """`%r = pypto.tensor.row_prod %a : A`: the product of each row, [M, N] -> [M, 1]."""

    name = "pypto.tensor.row_prod"


class TensorColReductionOp(ColReductionOpBase):
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class ColSumOp(TensorColReductionOp):
    """`%r = pypto.tensor.col_sum %a : A`: the sum of each column, [M, N] -> [1, N]."""

    name = "pypto.tensor.col_sum"


@pypto_op_definition
class ColMaxOp(TensorColReductionOp):
    name = "pypto.tensor.col_max"


@pypto_op_definition
class ColMinOp(TensorColReductionOp):
    name = "pypto.tensor.col_min"


@pypto_op_definition
class ColProdOp(TensorColReductionOp):
    name = "pypto.tensor.col_prod"


@pypto_op_definition
class RowExpandOp(TensorRowExpandOp):
    """`%c = pypto.tensor.row_expand %a, %r : A, R`: `r[i, 0]` everywhere in row i (`%a`
    gives the shape)."""

    name = "pypto.tensor.row_expand"


@pypto_op_definition
class RowExpandAddOp(TensorRowExpandOp):
    name = "pypto.tensor.row_expand_add"


@pypto_op_definition
class RowExpandMaxOp(TensorRowExpandOp):
    name = "pypto.tensor.row_expand_max"


@pypto_op_definition
class RowExpandMinOp(TensorRowExpandOp):
    name = "pypto.tensor.row_expand_min"


@pypto_op_definition
class RowExpandExpdifOp(TensorRowExpandOp):
    """`%c = pypto.tensor.row_expand_expdif %a, %r : A, R`: `exp(a[i, j] - r[i, 0])`."""

    name = "pypto.tensor.row_expand_expdif"


class TensorColExpandOp(ColExpandOpBase):
    input = operand_def(TensorType)
    col = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class ColExpandOp(TensorColExpandOp):
    """`%c = pypto.tensor.col_expand %a, %v : A, V`: `v[0, j]` everywhere in column j (`%a`
    gives the shape)."""

    name = "pypto.tensor.col_expand"


@pypto_op_definition
class ColExpandMulOp(TensorColExpandOp):
    """`%c = pypto.tensor.col_expand_mul %a, %v : A, V`: `a[i, j] * v[0, j]`."""

    name = "pypto.tensor.col_expand_mul"


@pypto_op_definition
class ColExpandDivOp(TensorColExpandOp):
    name = "pypto.tensor.col_expand_div"


@pypto_op_definition
class ColExpandSubOp(TensorColExpandOp):
    name = "pypto.tensor.col_expand_sub"


@pypto_op_definition
class ColExpandAddOp(TensorColExpandOp):
    name = "pypto.tensor.col_expand_add"


@pypto_op_definition
class ColExpandMaxOp(TensorColExpandOp):
    name = "pypto.tensor.col_expand_max"


@pypto_op_definition
class ColExpandMinOp(TensorColExpandOp):
    name = "pypto.tensor.col_expand_min"


@pypto_op_definition
class ColExpandExpdifOp(TensorColExpandOp):
    """`%c = pypto.tensor.col_expand_expdif %a, %v : A, V`: `exp(a[i, j] - v[0, j])`."""

    name = "pypto.tensor.col_expand_expdif"


@pypto_op_definition
class ConcatOp(ConcatOpBase):
    """`%c = pypto.tensor.concat %a, %b : A, B`: a new tensor with the columns of `%a`, then
    those of `%b`."""

    name = "pypto.tensor.concat"
    src0 = operand_def(TensorType)
    src1 = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS


@pypto_op_definition
class MatmulAccOp(PyptoValueOp):
    """`%d = pypto.tensor.matmul_acc %acc, %a, %b : C, A, B`: a new tensor `acc + a @ b`
    ([M, N] += [M, K] x [K, N]); `%acc` has the accumulator's element type."""

    name = "pypto.tensor.matmul_acc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("acc", "lhs", "rhs")
    acc = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS

    def __init__(self, acc: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        acc, lhs, rhs = self.acc.type, self.lhs.type, self.rhs.type
        assert isinstance(acc, TensorType) and isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        product = MatmulOp._infer(lhs, rhs)
        if acc.element_type != product.element_type:
            raise VerifyException(
                f"operand 'acc' has element type {acc.element_type}, expected {product.element_type}"
            )
        shape = join_shapes(acc.get_shape(), product.get_shape(), "operand 'acc' and the product of 'lhs' and 'rhs'")
        return (acc.with_shape(shape),)


@pypto_op_definition
class BatchMatmulAccOp(PyptoValueOp):
    """`%d = pypto.tensor.batch_matmul_acc %acc, %a, %b : C, A, B`: a new tensor
    `acc + a @ b` per batch; the batch dims of `a` and `b` broadcast (as
    `pypto.tensor.batch_matmul`) to those of `%acc`, which is not broadcast."""

    name = "pypto.tensor.batch_matmul_acc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("acc", "lhs", "rhs")
    acc = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = _READS

    def __init__(self, acc: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        acc, lhs, rhs = self.acc.type, self.lhs.type, self.rhs.type
        assert isinstance(acc, TensorType) and isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
        product = BatchMatmulOp._infer(lhs, rhs)
        if acc.element_type != product.element_type:
            raise VerifyException(
                f"operand 'acc' has element type {acc.element_type}, expected {product.element_type}"
            )
        check_batch_accumulator(acc, product.get_shape())
        return (acc,)
