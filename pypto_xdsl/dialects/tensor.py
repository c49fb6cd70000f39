"""`pypto.tensor.*`: ops on tensors in global memory (reference semantics).

This module holds the structure of tensors: creation (`create`, `full`), windows and views
(`slice`, `set_validshape`, `reinterpret_view`, `reshape`, `transpose`), extents (`dim`),
element reads and writes (`read`, `write`) and `assemble`, which writes into its destination
and returns a value naming the same storage. Whole-tensor compute (`add`, `exp`, `matmul`,
...) is in `tensor_compute.py`; this module re-exports it (`tensor.AddOp`) and lists every op
of the family in `TENSOR_OPS`.
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
    PyptoValueOp,
    check_offsets,
    check_window,
    print_window,
)
from pypto_xdsl.dialects.families import (
    ReshapeOpBase,
    TransposeOpBase,
    WriteOpBase,
    index_operand,
)
from pypto_xdsl.dialects.tensor_compute import (  # noqa: F401  (the tensor family's compute ops)
    AbsOp,
    AddOp,
    AddsOp,
    BatchMatmulAccOp,
    BatchMatmulOp,
    CastOp,
    ColExpandAddOp,
    ColExpandDivOp,
    ColExpandExpdifOp,
    ColExpandMaxOp,
    ColExpandMinOp,
    ColExpandMulOp,
    ColExpandOp,
    ColExpandSubOp,
    ColMaxOp,
    ColMinOp,
    ColProdOp,
    ColSumOp,
    ConcatOp,
    CosOp,
    DivOp,
    DivsOp,
    ExpandsOp,
    ExpOp,
    LogOp,
    MatmulAccOp,
    MatmulOp,
    MaximumOp,
    MaximumsOp,
    MinimumOp,
    MinimumsOp,
    MulOp,
    MulsOp,
    NegOp,
    RecipOp,
    ReluOp,
    RowExpandAddOp,
    RowExpandDivOp,
    RowExpandExpdifOp,
    RowExpandMaxOp,
    RowExpandMinOp,
    RowExpandMulOp,
    RowExpandOp,
    RowExpandSubOp,
    RowMaxOp,
    RowMinOp,
    RowProdOp,
    RowSumOp,
    RsqrtOp,
    SinOp,
    SqrtOp,
    SubOp,
    SubsOp,
    TanhOp,
    TensorBinaryOp,
    TensorColExpandOp,
    TensorColReductionOp,
    TensorRowExpandOp,
    TensorRowReductionOp,
    TensorScalarOp,
    TensorUnaryOp,
)
from pypto_xdsl.dialects.tile_mask import TENSOR_CMP_OPS
from pypto_xdsl.dialects.tile_mask import TensorCmpOp as CmpOp  # noqa: F401  (tensor.CmpOp)
from pypto_xdsl.dialects.tile_mask import TensorCmpsOp as CmpsOp  # noqa: F401
from pypto_xdsl.dialects.traits import InferResultTypes, ResultAliasesOperand
from pypto_xdsl.dialects.verification import pypto_op_definition

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
                f"{self.name} keeps the element type {src.element_type}; it views the bytes "
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
            raise VerifyException(f"{self.name}: {src} holds {sizes[0]} bytes but {r} holds {sizes[1]}")
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
    BatchMatmulOp,
    BatchMatmulAccOp,
    *TENSOR_CMP_OPS,
]
