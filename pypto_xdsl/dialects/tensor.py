"""`pypto.tensor.*`: ops on tensors in global memory (reference semantics).

Whole-tensor compute (`add`, `exp`, `matmul`, ...) reads its operands and produces a new
tensor; `convert-tensor-to-tile` lowers it to tile ops inside InCore functions.
`assemble` writes into its destination and returns a value naming the same storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import AtomicKind, AtomicKindAttr, TensorType, element_byte_width
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
    expect_type,
    join_shapes,
    matmul_shape,
    print_window,
)
from pypto_xdsl.dialects.families import (
    ColExpandOpBase,
    ColReductionOpBase,
    ConcatOpBase,
    ExpandScalarOpBase,
    ReshapeOpBase,
    TransposeOpBase,
    WriteOpBase,
    index_operand,
)
from pypto_xdsl.dialects.traits import InferResultTypes, ResultAliasesOperand
from pypto_xdsl.dialects.verification import pypto_op_definition

_READS = traits_def(MemoryReadEffect(), MemoryAllocEffect())


# --------------------------------------------------------------------------- structure


def atomic_property(atomic: AtomicKind) -> dict[str, Attribute]:
    return {} if atomic == AtomicKind.NONE else {"atomic": AtomicKindAttr(atomic)}


def parse_atomic(parser: Parser) -> dict[str, Attribute]:
    """` atomic(add)` after the operands of a write into global memory (absent: overwrite)."""
    if parser.parse_optional_keyword("atomic") is None:
        return {}
    parser.parse_punctuation("(")
    kind = parser.parse_str_enum(AtomicKind)
    parser.parse_punctuation(")")
    return atomic_property(kind)


def print_atomic(atomic: AtomicKindAttr | None, printer: Printer) -> None:
    if atomic is not None and atomic.data != AtomicKind.NONE:
        printer.print_string(f" atomic({atomic.data.value})")


@pypto_op_definition
class CreateOp(InferResultTypes, IRDLOperation):
    """`%t = pypto.tensor.create(%n) : !pypto.tensor<[?, 128], f32>`: a new GM tensor.

    One `index` operand per `?` dimension gives its extent; symbolic dimensions are bound
    by the function's parameters.
    """

    name = "pypto.tensor.create"
    dynamic_sizes = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect())

    def __init__(self, result_type: TensorType, dynamic_sizes: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[dynamic_sizes], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.result.type
        assert isinstance(t, TensorType)
        unknown = sum(d is None for d in t.get_shape())
        if unknown != len(self.dynamic_sizes):
            raise VerifyException(
                f"{t} has {unknown} dynamic dimensions but {len(self.dynamic_sizes)} sizes were given"
            )
        return (t,)

    @classmethod
    def parse(cls, parser: Parser) -> CreateOp:
        sizes = []
        if parser.parse_optional_punctuation("(") is not None:
            if parser.parse_optional_punctuation(")") is None:
                sizes = parser.parse_comma_separated_list(
                    parser.Delimiter.NONE, lambda: parser.parse_operand(IndexType())
                )
                parser.parse_punctuation(")")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        op = cls.build(operands=[sizes], result_types=[result_type])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        if self.dynamic_sizes:
            printer.print_string("(")
            printer.print_list(self.dynamic_sizes, printer.print_operand)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


_SLICE_SEGMENTS: dict[tuple[int, int], DenseArrayBase] = {}


@pypto_op_definition
class SliceOp(InferResultTypes, IRDLOperation):
    """`%v = pypto.tensor.slice %t[%i, %j] [sizes(%n)] : T -> V`: a view of a window of `%t`.

    The window's shape is the result type; the view shares `%t`'s storage. A `?` dimension
    of the result is a run-time extent (PyPTO's `pl.slice(t, [16, n], ...)` with an `index`
    `n`): `sizes(...)` gives one `index` operand per `?`, in order, as for `tensor.create`.
    """

    name = "pypto.tensor.slice"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        result_type: TensorType,
        sizes: Sequence[SSAValue | Operation] = (),
    ):
        counts = (len(offsets), len(sizes))
        segments = _SLICE_SEGMENTS.get(counts)
        if segments is None:
            segments = _SLICE_SEGMENTS[counts] = DenseArrayBase.from_list(i32, [1, *counts])
        Operation.__init__(
            self,
            operands=[SSAValue.get(source), *map(SSAValue.get, offsets), *map(SSAValue.get, sizes)],
            result_types=[result_type],
            properties={"operandSegmentSizes": segments},
        )

    @property
    def value_operands(self) -> list[SSAValue]:
        return [self.source]

    def infer_result_types(self) -> Sequence[Attribute]:
        src = self.source.type
        r = self.result.type
        assert isinstance(src, TensorType) and isinstance(r, TensorType)
        check_offsets(self.offsets, src.rank, "operand 'source'")
        if r.element_type != src.element_type:
            raise VerifyException(
                f"result element type {r.element_type} differs from the source's {src.element_type}"
            )
        unknown = sum(d is None for d in r.get_shape())
        if unknown != len(self.sizes):
            raise VerifyException(
                f"the result {r} has {unknown} run-time ('?') dimensions but {len(self.sizes)} "
                f"sizes were given"
            )
        check_window(src, r.get_shape(), "slice")
        return (r,)

    @classmethod
    def parse(cls, parser: Parser) -> SliceOp:
        source = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        sizes = []
        if parser.parse_optional_keyword("sizes") is not None:
            sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        index = IndexType()
        op = cls(
            parser.resolve_operand(source, source_type),
            [parser.resolve_operand(o, index) for o in offsets],
            result_type,
            [parser.resolve_operand(n, index) for n in sizes],
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        print_window(printer, self, self.source, self.offsets, (" sizes(", self.sizes, ")"))


@pypto_op_definition
class SetValidShapeOp(PyptoValueOp):
    """`%v = pypto.tensor.set_validshape %t, %rows, %cols : T, index, index`: a view of `%t`
    (the same storage) of which only the [rows, cols] block at the origin is *valid* (PyPTO's
    tensor valid shape, `pl.slice(..., valid_shape=...)`): a tile loaded from it is partial
    where its window leaves that block (see `tile.load`). A 2-D tensor.
    """

    name = "pypto.tensor.set_validshape"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input", "valid_rows", "valid_cols")
    input = operand_def(TensorType)
    valid_rows = operand_def(IndexType)
    valid_cols = operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, input: SSAValue | Operation, valid_rows: SSAValue | Operation, valid_cols: SSAValue | Operation):
        super().__init__(operands=[input, valid_rows, valid_cols], result_types=[SSAValue.get(input).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TensorType)
        if t.rank != 2:
            raise VerifyException(f"operand 'input' must be a 2-D tensor, got {t}")
        index_operand(self.valid_rows, "valid_rows")
        index_operand(self.valid_cols, "valid_cols")
        return (t,)


@pypto_op_definition
class AssembleOp(PyptoValueOp):
    """`%r = pypto.tensor.assemble %src into %dst[%i, %j] : S into D`.

    Writes `%src` into the window of `%dst` at the offsets; `%r` names `%dst`'s storage.
    The operands are `(dest, source, offsets...)`, the order of PyPTO's
    `pl.assemble(target, source, offsets)`, so analyses that follow operand order (the
    first-use order of outlined parameters) follow the program as written; the text keeps
    the `source into dest[...]` reading of `tensor.insert_slice`.
    """

    name = "pypto.tensor.assemble"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    KEYWORDS: ClassVar[dict[int, str]] = {1: "into"}
    RESULT_LIKE: ClassVar[int] = 1
    dest = operand_def(TensorType)
    source = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    atomic = opt_prop_def(AtomicKindAttr)
    """`add`: the window is incremented by `%src` instead of overwritten (PyPTO's
    `atomic=pl.AtomicType.Add`); absent: overwrite."""
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), ResultAliasesOperand(0))

    def __init__(
        self,
        source: SSAValue | Operation,
        dest: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        atomic: AtomicKind = AtomicKind.NONE,
    ):
        super().__init__(
            operands=[dest, source, offsets],
            result_types=[SSAValue.get(dest).type],
            properties=atomic_property(atomic),
        )

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        return parse_atomic(parser)

    def print_properties(self, printer: Printer) -> None:
        print_atomic(self.atomic, printer)

    def infer_result_types(self) -> Sequence[Attribute]:
        src, dst = self.source.type, self.dest.type
        assert isinstance(src, TensorType) and isinstance(dst, TensorType)
        check_offsets(self.offsets, dst.rank, "operand 'dest'")
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"operand 'source' has element type {src.element_type} but 'dest' has {dst.element_type}"
            )
        check_window(dst, src.get_shape(), "assemble")
        return (dst,)


@pypto_op_definition
class ReinterpretViewOp(InferResultTypes, IRDLOperation):
    """`%v = pypto.tensor.reinterpret_view %x : S -> R`: the bytes of `%x` seen with another
    element type (PyPTO's `pl.tensor.reinterpret_view`); a zero-copy view of `%x`'s storage.

    The element types differ and both types cover the same number of bytes (when their
    shapes are static).
    """

    name = "pypto.tensor.reinterpret_view"
    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[source], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        src, r = self.source.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(r, TensorType)
        if src.element_type == r.element_type:
            raise VerifyException(
                f"reinterpret_view keeps the element type {src.element_type}; it views the bytes "
                f"as another element type"
            )
        sizes = []
        for t in (src, r):
            shape = t.get_shape()
            if not all(isinstance(d, int) for d in shape):
                return (r,)
            n = 1
            for d in shape:
                n *= d  # type: ignore[operator]
            sizes.append(n * element_byte_width(t.element_type))
        if sizes[0] != sizes[1]:
            raise VerifyException(f"{src} holds {sizes[0]} bytes but {r} holds {sizes[1]}")
        return (r,)

    @classmethod
    def parse(cls, parser: Parser) -> ReinterpretViewOp:
        source = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls.create(operands=[parser.resolve_operand(source, src_type)], result_types=[result_type])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@pypto_op_definition
class DimOp(InferResultTypes, IRDLOperation):
    """`%n = pypto.tensor.dim %t, 0 : T`: the extent of one dimension, as `index`."""

    name = "pypto.tensor.dim"
    source = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue | Operation, axis: int):
        super().__init__(
            operands=[source], result_types=[IndexType()], properties={"axis": IntegerAttr(axis, i64)}
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.source.type
        assert isinstance(t, TensorType)
        axis = self.axis.value.data
        if not 0 <= axis < t.rank:
            raise VerifyException(f"axis {axis} is out of range for {t}")
        return (IndexType(),)

    @classmethod
    def parse(cls, parser: Parser) -> DimOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(source, t), axis)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f", {self.axis.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)


@pypto_op_definition
class ReadOp(PyptoValueOp):
    """`%x = pypto.tensor.read %t[%i, %j] : T`: one element, as a scalar."""

    name = "pypto.tensor.read"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    def __init__(self, source: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        t = SSAValue.get(source).type
        assert isinstance(t, TensorType)
        super().__init__(operands=[source, indices], result_types=[t.element_type])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        t = operand_types[0]
        return t.element_type if isinstance(t, TensorType) else t

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.source.type
        assert isinstance(t, TensorType)
        check_offsets(self.offsets, t.rank, "operand 'source'")
        return (t.element_type,)


# --------------------------------------------------------------------------- compute


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
class FullOp(PyptoValueOp):
    """`%t = pypto.tensor.full %v : f32 -> T`: a new tensor with every element `%v`."""

    name = "pypto.tensor.full"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    value = operand_def()
    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect())

    def __init__(self, value: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[value], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.result.type
        assert isinstance(t, TensorType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"operand 'value' has type {self.value.type}, expected the element type {t.element_type}"
            )
        return (t,)


@pypto_op_definition
class WriteOp(WriteOpBase):
    """`%r = pypto.tensor.write %v into %t[%i, %j] : E into T`: one element of `%t` becomes
    `%v`; `%r` names `%t`'s storage."""

    name = "pypto.tensor.write"
    value = operand_def()
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(1))


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
class ReshapeOp(ReshapeOpBase):
    """`%r = pypto.tensor.reshape %t : T -> R`: a view of `%t`'s elements (row-major) in
    another shape of the same element count; shares `%t`'s storage."""

    name = "pypto.tensor.reshape"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())


@pypto_op_definition
class TransposeOp(TransposeOpBase):
    """`%r = pypto.tensor.transpose %t, 0, 1 : T -> R`: a view of `%t` with two axes
    exchanged; shares `%t`'s storage."""

    name = "pypto.tensor.transpose"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())


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


TENSOR_OPS = [
    CreateOp,
    SliceOp,
    SetValidShapeOp,
    AssembleOp,
    ReinterpretViewOp,
    DimOp,
    ReadOp,
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
    FullOp,
    WriteOp,
    RsqrtOp,
    TanhOp,
    SinOp,
    CosOp,
    MaximumsOp,
    MinimumsOp,
    ExpandsOp,
    RowMinOp,
    RowProdOp,
    ColSumOp,
    ColMaxOp,
    ColMinOp,
    ColProdOp,
    RowExpandOp,
    RowExpandAddOp,
    RowExpandMaxOp,
    RowExpandMinOp,
    RowExpandExpdifOp,
    ColExpandOp,
    ColExpandMulOp,
    ColExpandDivOp,
    ColExpandSubOp,
    ColExpandAddOp,
    ColExpandMaxOp,
    ColExpandMinOp,
    ColExpandExpdifOp,
    ReshapeOp,
    TransposeOp,
    ConcatOp,
    MatmulAccOp,
]
