"""Building blocks shared by the tensor and tile op families.

Each op class declares its operand layout through a base class here; the bases provide the
custom syntax, the builders' type inference and the verifiers. The syntax of every op is

    %r = pypto.<family>.<op> <operands> [attr-dict] : <operand types> [-> <result type>]

where an operand group `%t[%i, %j]` carries `index` offsets whose types are not printed, and
`-> <result type>` is elided when the result type equals the first printed operand type.
Optional operands (a scratch tile) follow the operands as `name(%v : T)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import Float32Type, IndexType, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    Dim,
    ShapedType,
    TensorType,
    TileType,
    dims_compatible,
    format_shape,
    is_float_type,
    join_dims,
    type_text,
)
from pypto_xdsl.dialects.traits import InferResultTypes


def expect_type(value: SSAValue, cls: type | tuple[type, ...], what: str) -> Attribute:
    if not isinstance(value.type, cls):
        names = cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls)
        raise VerifyException(f"{what} must be a {names}, got {value.type}")
    return value.type


def join_shapes(a: Sequence[Dim], b: Sequence[Dim], what: str) -> list[Dim]:
    if len(a) != len(b):
        raise VerifyException(f"{what}: rank mismatch, {format_shape(a)} vs {format_shape(b)}")
    for x, y in zip(a, b):
        if not dims_compatible(x, y):
            raise VerifyException(f"{what}: shape mismatch, {format_shape(a)} vs {format_shape(b)}")
    return [join_dims(x, y) for x, y in zip(a, b)]


def join_elementwise(lhs: Attribute, rhs: Attribute, names: tuple[str, str] = ("lhs", "rhs")) -> ShapedType:
    """Result type of an elementwise op over two tensors or two tiles."""
    if lhs is rhs and isinstance(lhs, TensorType | TileType):
        return lhs  # the common case: joining a type with itself
    if type(lhs) is not type(rhs) or not isinstance(lhs, TensorType | TileType):
        raise VerifyException(
            f"operands '{names[0]}' ({lhs}) and '{names[1]}' ({rhs}) must both be tensors or both tiles"
        )
    assert isinstance(rhs, TensorType | TileType)
    if lhs.element_type != rhs.element_type:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' have different element types "
            f"{lhs.element_type} and {rhs.element_type}"
        )
    if isinstance(lhs, TileType) and isinstance(rhs, TileType) and lhs.space != rhs.space:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' are in different memory spaces "
            f"{lhs.space.value} and {rhs.space.value}"
        )
    lhs_shape = lhs.get_shape()
    shape = join_shapes(lhs_shape, rhs.get_shape(), f"operands '{names[0]}' and '{names[1]}'")
    return lhs if tuple(shape) == lhs_shape else lhs.with_shape(shape)


def check_offsets(offsets: Sequence[SSAValue], rank: int, what: str) -> None:
    if len(offsets) != rank:
        raise VerifyException(f"{what} has rank {rank} but {len(offsets)} offsets were given")
    for i, o in enumerate(offsets):
        if not isinstance(o.type, IndexType):
            raise VerifyException(f"offset #{i} of {what} must be index, got {o.type}")


def check_window(source: ShapedType, window: Sequence[Dim], what: str) -> None:
    """A static window must fit in the static extents of what it is taken from."""
    if len(window) != source.rank:
        raise VerifyException(
            f"{what}: rank {len(window)} differs from the rank {source.rank} of {source}"
        )
    for w, s in zip(window, source.get_shape()):
        if isinstance(w, int) and isinstance(s, int) and w > s:
            raise VerifyException(f"{what}: window {format_shape(window)} exceeds {source}")


# --------------------------------------------------------------------------- syntax


def _parse_operand_group(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    value = parser.parse_unresolved_operand()
    offsets: list[UnresolvedOperand] = []
    if parser.parse_optional_punctuation("[") is not None:
        if parser.parse_optional_punctuation("]") is None:
            offsets = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation("]")
    return value, offsets


def print_window(
    printer: Printer, op: Operation, source: SSAValue, offsets: Sequence[SSAValue],
    extra: tuple[str, Sequence[SSAValue], str],
) -> None:
    """The text of a window op: ` %src[%i, %j] <open>%a, %b<close> {attrs} : T -> R`, the
    `extra` operand group (opening text, operands, closing text) printed only when it has
    operands (tensor.slice's run-time `sizes(...)`, tile.load's `valid[...]`)."""
    printer.print_string(" ")
    printer.print_operand(source)
    printer.print_string("[")
    printer.print_list(offsets, printer.print_operand)
    printer.print_string("]")
    opening, values, closing = extra
    if values:
        printer.print_string(opening)
        printer.print_list(values, printer.print_operand)
        printer.print_string(closing)
    printer.print_op_attributes(op.attributes)
    printer.print_string(f" : {type_text(source.type)} -> {type_text(op.results[0].type)}")


_OPERANDS_IN_DEFINITION_ORDER: dict[type, bool] = {}
_DEFINITION_ORDER: dict[type, tuple[int, ...] | None] = {}
_MISSING = object()


class PyptoValueOp(InferResultTypes, IRDLOperation):
    """Base of tensor/tile ops: one result, operands in `OPERANDS` order, optional offsets.

    `OPERANDS` names the single-value operand fields in syntax order; `OFFSETS_AFTER` is the
    index (into OPERANDS) of the operand followed by `[offsets]`, or None. `KEYWORDS` maps an
    operand position to a keyword printed before it (`into`). `-> R` is elided when the result
    type equals the type of operand `RESULT_LIKE`.
    """

    OPERANDS: ClassVar[tuple[str, ...]] = ()
    OFFSETS_AFTER: ClassVar[int | None] = None
    KEYWORDS: ClassVar[dict[int, str]] = {}
    RESULT_LIKE: ClassVar[int] = 0
    OPTIONAL: ClassVar[tuple[str, ...]] = ()
    """Optional operand fields (`opt_operand_def`), defined after the others and printed
    after them as `name(%v : T)`. An op has offsets or optional operands, not both (one
    variadic group needs no segment sizes)."""

    @classmethod
    def optional_operands(cls, *values: SSAValue | Operation | None) -> list:
        """Builder operands for the `OPTIONAL` fields: one entry each (`[]` when absent)."""
        if not cls.OPTIONAL:
            if any(v is not None for v in values):
                raise TypeError(f"{cls.name} takes no optional operands")
            return []
        assert len(values) <= len(cls.OPTIONAL)
        values = (*values, *([None] * (len(cls.OPTIONAL) - len(values))))
        return [[] if v is None else SSAValue.get(v) for v in values]

    @property
    def value_operands(self) -> list[SSAValue]:
        cls = type(self)
        in_order = _OPERANDS_IN_DEFINITION_ORDER.get(cls)
        if in_order is None:
            names = [name for name, _ in cls.get_irdl_definition().operands]
            in_order = _OPERANDS_IN_DEFINITION_ORDER[cls] = names == list(cls.OPERANDS)
        if in_order:  # the operand list is exactly the value operands: skip the accessors
            return list(self.operands)
        return [getattr(self, name) for name in self.OPERANDS]

    @classmethod
    def parse(cls, parser: Parser):
        unresolved: list[UnresolvedOperand] = []
        offsets: list[UnresolvedOperand] = []
        for i in range(len(cls.OPERANDS)):
            if i:
                if i in cls.KEYWORDS:
                    parser.parse_keyword(cls.KEYWORDS[i])
                else:
                    parser.parse_punctuation(",")
            if i == cls.OFFSETS_AFTER:
                value, offsets = _parse_operand_group(parser)
            else:
                value = parser.parse_unresolved_operand()
            unresolved.append(value)
        optional: list[SSAValue] = []
        for name in cls.OPTIONAL:
            if parser.parse_optional_keyword(name) is not None:
                parser.parse_punctuation("(")
                opt = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                optional.append(parser.resolve_operand(opt, parser.parse_type()))
                parser.parse_punctuation(")")
        properties = cls.parse_properties(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types: list[Attribute] = []
        for i in range(len(cls.OPERANDS)):
            if i == 1 and cls.KEYWORDS.get(1) is None and parser.parse_optional_punctuation(",") is None:
                # `: T` alone: every operand (and the result) has type T.
                types = types * len(cls.OPERANDS)
                break
            if i:
                if i in cls.KEYWORDS:
                    parser.parse_keyword(cls.KEYWORDS[i])
                elif i > 1:
                    parser.parse_punctuation(",")
            types.append(parser.parse_type())
        if not cls.OPERANDS:
            result_type = parser.parse_type()
        elif parser.parse_optional_punctuation("->") is not None:
            result_type = parser.parse_type()
        else:
            result_type = cls.implied_result_type(types)
        values = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
        if (order := cls._syntax_to_definition_order()) is not None:
            values = [values[i] for i in order]
        index_values = [parser.resolve_operand(u, IndexType()) for u in offsets]
        # `create`, not `build`: the operands are already in definition order (the value
        # operands, then the one variadic group of offsets), and parsing large programs is
        # dominated by per-op costs such as `build`'s argument-list checks, which the
        # verifier repeats anyway.
        op = cls.create(
            operands=[*values, *index_values, *optional],
            result_types=[result_type],
            properties={k: v for k, v in properties.items() if v is not None},
        )
        op.attributes |= attributes
        return op

    @classmethod
    def _syntax_to_definition_order(cls) -> tuple[int, ...] | None:
        """For an op whose value operands are defined in another order than `OPERANDS`
        (the syntax order): for each definition position, the syntax position; else None."""
        order = _DEFINITION_ORDER.get(cls, _MISSING)
        if order is _MISSING:
            names = [name for name, _ in cls.get_irdl_definition().operands if name in cls.OPERANDS]
            order = None if names == list(cls.OPERANDS) else tuple(cls.OPERANDS.index(n) for n in names)
            _DEFINITION_ORDER[cls] = order
        return order  # type: ignore[return-value]

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        """The result type the syntax leaves out when no `-> R` is written."""
        return operand_types[cls.RESULT_LIKE]

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    def print_properties(self, printer: Printer) -> None:
        pass

    def check_optional(self, input: ShapedType) -> None:
        """Each present optional operand is a scratch tile for `input` (see `check_scratch`)."""
        if self.OPTIONAL:
            from pypto_xdsl.dialects.families import check_scratch

            for name in self.OPTIONAL:
                check_scratch(input, getattr(self, name), name)

    def print(self, printer: Printer) -> None:
        operands = self.value_operands
        for i, value in enumerate(operands):
            printer.print_string(f" {self.KEYWORDS[i]} " if i in self.KEYWORDS else (", " if i else " "))
            printer.print_operand(value)
            if i == self.OFFSETS_AFTER:
                printer.print_string("[")
                printer.print_list(self.offsets, printer.print_operand)
                printer.print_string("]")
        for name in self.OPTIONAL:
            opt = getattr(self, name)
            if opt is not None:
                printer.print_string(f" {name}(")
                printer.print_operand(opt)
                printer.print_string(f" : {type_text(opt.type)})")
        self.print_properties(printer)
        printer.print_op_attributes(self.attributes)
        result_type = self.results[0].type
        if len(operands) > 1 and not self.KEYWORDS and all(v.type == result_type for v in operands):
            printer.print_string(f" : {type_text(result_type)}")
            return
        parts = [" :"]
        for i, value in enumerate(operands):
            parts.append(f" {self.KEYWORDS[i]} " if i in self.KEYWORDS else (", " if i else " "))
            parts.append(type_text(value.type))
        if not operands or result_type != self.implied_result_type([v.type for v in operands]):
            parts.append(" -> " if operands else " ")
            parts.append(type_text(result_type))
        printer.print_string("".join(parts))


# --------------------------------------------------------------------------- families


class ElementwiseBinaryOp(PyptoValueOp):
    """`%c = op %a, %b : T`: elementwise over two operands of the same shape and dtype."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs = operand_def(TensorType | TileType)
    rhs = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[join_elementwise(lhs.type, rhs.type)])

    def infer_result_types(self) -> Sequence[Attribute]:
        return (join_elementwise(self.lhs.type, self.rhs.type),)


class ElementwiseScalarOp(PyptoValueOp):
    """`%c = op %a, %s : T, f32`: elementwise with a scalar of the element type."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "scalar")
    lhs = operand_def(TensorType | TileType)
    scalar = operand_def()
    result = result_def(TensorType | TileType)

    def __init__(self, lhs: SSAValue | Operation, scalar: SSAValue | Operation):
        lhs, scalar = SSAValue.get(lhs), SSAValue.get(scalar)
        super().__init__(operands=[lhs, scalar], result_types=[lhs.type])

    def infer_result_types(self) -> Sequence[Attribute]:
        shaped = self.lhs.type
        assert isinstance(shaped, TensorType | TileType)
        if self.scalar.type != shaped.element_type:
            raise VerifyException(
                f"operand 'scalar' has type {self.scalar.type}, expected the element type "
                f"{shaped.element_type} of 'lhs'"
            )
        return (shaped,)


class ElementwiseUnaryOp(PyptoValueOp):
    """`%c = op %a : T`."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, input: SSAValue | Operation, tmp: SSAValue | Operation | None = None):
        input = SSAValue.get(input)
        super().__init__(operands=[input, *self.optional_operands(tmp)], result_types=[input.type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TensorType | TileType)
        if self.FLOAT_ONLY and not is_float_type(t.element_type):
            raise VerifyException(f"operand 'input' must have a float element type, got {t.element_type}")
        self.check_optional(t)
        return (t,)


CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


class CastOpBase(PyptoValueOp):
    """`%c = op %a [mode "rint"] : A -> B`: same shape (and memory space), new element type.
    `mode` is PyPTO's rounding mode (`pl.cast(..., mode=)`: none, rint, round, floor, ceil,
    trunc, odd); without it the conversion is the default one (docs/semantics.md)."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)
    mode = opt_prop_def(StringAttr)

    def __init__(self, input: SSAValue | Operation, element_type: Attribute, mode: str | None = None):
        input = SSAValue.get(input)
        t = input.type
        assert isinstance(t, TensorType | TileType)
        if isinstance(t, TileType):
            result = TileType(t.get_shape(), element_type, t.memory_space)
        else:
            result = TensorType(t.get_shape(), element_type)
        props = {} if mode is None else {"mode": StringAttr(mode)}
        super().__init__(operands=[input], result_types=[result], properties=props)

    @property
    def rounding(self) -> str | None:
        return None if self.mode is None else self.mode.data

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_keyword("mode") is None:
            return {}
        return {"mode": StringAttr(parser.parse_str_literal())}

    def print_properties(self, printer: Printer) -> None:
        if self.mode is not None:
            printer.print_string(" mode ")
            printer.print_string_literal(self.mode.data)

    def verify_(self) -> None:
        if self.mode is not None and self.mode.data not in CAST_MODES:
            raise VerifyException(f"{self.name}: mode \"{self.mode.data}\" is not one of {', '.join(CAST_MODES)}")
        super().verify_()

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.result.type
        if type(t) is not type(r):
            raise VerifyException(f"result {r} must be of the same kind as operand 'input' {t}")
        # (the result type's own verifier has rejected an element type that is none of ours)
        assert isinstance(t, TensorType | TileType) and isinstance(r, TensorType | TileType)
        if isinstance(t, TileType):
            return (TileType(t.get_shape(), r.element_type, t.memory_space),)
        return (TensorType(t.get_shape(), r.element_type),)


def _kind(t: Attribute) -> str:
    return "tile" if isinstance(t, TileType) else "tensor"


class RowReductionOpBase(PyptoValueOp):
    """`%r = op %a : A`: reduce each row of a 2-D tensor or tile, [M, N] -> [M, 1]."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, input: SSAValue | Operation, tmp: SSAValue | Operation | None = None):
        input = SSAValue.get(input)
        super().__init__(
            operands=[input, *self.optional_operands(tmp)], result_types=[self.implied_result_type([input.type])]
        )

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        t = operand_types[0]
        if not isinstance(t, TensorType | TileType) or t.rank != 2:
            return t
        return t.with_shape([t.get_shape()[0], 1])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TensorType | TileType)
        if t.rank != 2:
            raise VerifyException(f"operand 'input' must be a 2-D {_kind(t)}, got {t}")
        self.check_optional(t)
        return (self.implied_result_type([t]),)


class RowExpandOpBase(PyptoValueOp):
    """`%c = op %a, %r : A, R`: combine each row of `%a` [M, N] with `%r` [M, 1]."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input", "row")
    input = operand_def(TensorType | TileType)
    row = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, input: SSAValue | Operation, row: SSAValue | Operation, tmp: SSAValue | Operation | None = None):
        input = SSAValue.get(input)
        super().__init__(operands=[input, row, *self.optional_operands(tmp)], result_types=[input.type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.row.type
        assert isinstance(t, TensorType | TileType) and isinstance(r, TensorType | TileType)
        if t.rank != 2 or r.rank != 2:
            raise VerifyException(f"operands 'input' and 'row' must be 2-D {_kind(t)}s, got {t} and {r}")
        if not dims_compatible(r.get_shape()[1], 1):
            raise VerifyException(f"operand 'row' must have shape [M, 1], got {r}")
        join_shapes(t.get_shape()[:1], r.get_shape()[:1], "operands 'input' and 'row' (rows)")
        if t.element_type != r.element_type:
            raise VerifyException(
                f"operands 'input' and 'row' have different element types {t.element_type} and {r.element_type}"
            )
        if isinstance(t, TileType) and isinstance(r, TileType) and t.space != r.space:
            raise VerifyException(
                f"operands 'input' and 'row' are in different memory spaces {t.space.value} and {r.space.value}"
            )
        self.check_optional(t)
        return (t,)


class MatmulOpBase(PyptoValueOp):
    """`%c = op %a, %b : A, B -> C` with A [M, K], B [K, N], C [M, N]."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs = operand_def(TensorType | TileType)
    rhs = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)


def matmul_shape(lhs: ShapedType, rhs: ShapedType, names: tuple[str, str] = ("lhs", "rhs")) -> list[Dim]:
    if lhs.rank != 2 or rhs.rank != 2:
        raise VerifyException(f"operands '{names[0]}' and '{names[1]}' must be 2-D, got {lhs} and {rhs}")
    m, k1 = lhs.get_shape()
    k2, n = rhs.get_shape()
    if not dims_compatible(k1, k2):
        raise VerifyException(
            f"contraction dimension mismatch: '{names[0]}' is {lhs} and '{names[1]}' is {rhs}"
        )
    if lhs.element_type != rhs.element_type:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' have different element types "
            f"{lhs.element_type} and {rhs.element_type}"
        )
    return [m, n]


def broadcast_batch(a: Sequence[Dim], b: Sequence[Dim], what: str) -> list[Dim]:
    """The batch dims of a batched matmul: `a` and `b` aligned at their ends, a missing or
    size-1 dim taking the other's extent (numpy's rule); an unknown dim `?` takes the other's
    unless that is 1."""
    out: list[Dim] = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x is None or y is None:
            out.append(y if x is None else x)
        else:
            raise VerifyException(
                f"{what}: batch dims {format_shape(a)} and {format_shape(b)} do not broadcast"
            )
    return out[::-1]


def batch_matmul_shape(lhs: ShapedType, rhs: ShapedType, names: tuple[str, str] = ("lhs", "rhs")) -> list[Dim]:
    """[*Ba, M, K] x [*Bb, K, N] -> [*broadcast(Ba, Bb), M, N] (PyPTO's batched matmul)."""
    if lhs.rank < 2 or rhs.rank < 2:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' must have rank 2 or more, got {lhs} and {rhs}"
        )
    a, b = lhs.get_shape(), rhs.get_shape()
    if not dims_compatible(a[-1], b[-2]):
        raise VerifyException(
            f"contraction dimension mismatch: '{names[0]}' is {lhs} and '{names[1]}' is {rhs}"
        )
    if lhs.element_type != rhs.element_type:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' have different element types "
            f"{lhs.element_type} and {rhs.element_type}"
        )
    batch = broadcast_batch(a[:-2], b[:-2], f"operands '{names[0]}' and '{names[1]}'")
    return [*batch, a[-2], b[-1]]


def check_batch_accumulator(acc: ShapedType, product: Sequence[Dim]) -> None:
    """The accumulator of a batched matmul_acc has the product's shape: it is not broadcast."""
    join_shapes(acc.get_shape(), product, "operand 'acc' and the product of 'lhs' and 'rhs'")


def accumulator_element_type(element_type: Attribute) -> Attribute:
    """The element type of a matmul product (tensor and tile alike): the cube unit
    accumulates float inputs in f32 and integer inputs in i32."""
    return Float32Type() if is_float_type(element_type) else i32
