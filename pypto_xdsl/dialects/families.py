"""More op families shared by the tensor and tile dialects (see common.py for the syntax).

Column reductions and broadcasts (the column counterparts of the row families), the scalar
broadcast `expands`, the layout ops `reshape`, `transpose` and `concat`, and element access
(`read`, `write`). Each base checks its operands and infers its result type; the tensor and
tile modules give the operand kinds, names and memory effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import operand_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    ShapedType,
    TensorType,
    TileType,
    dims_compatible,
    format_shape,
    is_float_type,
)
from pypto_xdsl.dialects.common import PyptoValueOp, check_offsets, join_shapes


def kind_of(t: Attribute) -> str:
    return "tile" if isinstance(t, TileType) else "tensor"


def check_same_element_type(a: ShapedType, b: ShapedType, names: tuple[str, str]) -> None:
    if a.element_type != b.element_type:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' have different element types "
            f"{a.element_type} and {b.element_type}"
        )


def check_same_space(a: Attribute, b: Attribute, names: tuple[str, str]) -> None:
    if isinstance(a, TileType) and isinstance(b, TileType) and a.space != b.space:
        raise VerifyException(
            f"operands '{names[0]}' and '{names[1]}' are in different memory spaces "
            f"{a.space.value} and {b.space.value}"
        )


def check_scratch(input: ShapedType, scratch: SSAValue | None, name: str = "tmp") -> None:
    """A scratch tile (`tmp`) has the input's element type, memory space and rank, and is at
    least as large in every dimension (PyPTO's rule for reduction scratch)."""
    if scratch is None:
        return
    t = scratch.type
    if not isinstance(t, TileType):
        raise VerifyException(f"operand '{name}' must be a tile, got {t}")
    if t.element_type != input.element_type:
        raise VerifyException(
            f"operand '{name}' has element type {t.element_type}, expected {input.element_type} like 'input'"
        )
    check_same_space(input, t, ("input", name))
    if t.rank != input.rank or any(
        isinstance(s, int) and isinstance(d, int) and s < d for s, d in zip(t.get_shape(), input.get_shape())
    ):
        raise VerifyException(
            f"operand '{name}' {format_shape(t.get_shape())} must have the rank of 'input' "
            f"{format_shape(input.get_shape())} and be at least as large in every dimension"
        )


# --------------------------------------------------------------------------- columns


class ColReductionOpBase(PyptoValueOp):
    """`%r = op %a : A`: reduce each column of a 2-D tensor or tile, [M, N] -> [1, N]."""

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
        return t.with_shape([1, t.get_shape()[1]])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TensorType | TileType)
        if t.rank != 2:
            raise VerifyException(f"operand 'input' must be a 2-D {kind_of(t)}, got {t}")
        for name in self.OPTIONAL:
            check_scratch(t, getattr(self, name), name)
        return (self.implied_result_type([t]),)


class ColExpandOpBase(PyptoValueOp):
    """`%c = op %a, %v : A, V`: combine each column j of `%a` [M, N] with `%v[0, j]` ([1, N])."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input", "col")
    input = operand_def(TensorType | TileType)
    col = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, input: SSAValue | Operation, col: SSAValue | Operation):
        input = SSAValue.get(input)
        super().__init__(operands=[input, col], result_types=[input.type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t, c = self.input.type, self.col.type
        assert isinstance(t, TensorType | TileType) and isinstance(c, TensorType | TileType)
        if t.rank != 2 or c.rank != 2:
            raise VerifyException(f"operands 'input' and 'col' must be 2-D {kind_of(t)}s, got {t} and {c}")
        if not dims_compatible(c.get_shape()[0], 1):
            raise VerifyException(f"operand 'col' must have shape [1, N], got {c}")
        join_shapes(t.get_shape()[1:], c.get_shape()[1:], "operands 'input' and 'col' (columns)")
        check_same_element_type(t, c, ("input", "col"))
        check_same_space(t, c, ("input", "col"))
        return (t,)


class ExpandScalarOpBase(PyptoValueOp):
    """`%c = op %t, %s : T, E`: a value shaped like `%t` with every element `%s` (`%t` is
    not read)."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("target", "scalar")
    target = operand_def(TensorType | TileType)
    scalar = operand_def()
    result = result_def(TensorType | TileType)

    def __init__(self, target: SSAValue | Operation, scalar: SSAValue | Operation):
        target = SSAValue.get(target)
        super().__init__(operands=[target, scalar], result_types=[target.type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.target.type
        assert isinstance(t, TensorType | TileType)
        if self.scalar.type != t.element_type:
            raise VerifyException(
                f"operand 'scalar' has type {self.scalar.type}, expected the element type "
                f"{t.element_type} of 'target'"
            )
        return (t,)


# --------------------------------------------------------------------------- layout


def _count(shape: Sequence[object]) -> int | None:
    n = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        n *= d
    return n


class ReshapeOpBase(PyptoValueOp):
    """`%r = op %a : A -> R`: the same elements in row-major order, in the shape of `R`."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, input: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.result.type
        assert isinstance(t, TensorType | TileType) and isinstance(r, TensorType | TileType)
        if type(t) is not type(r):
            raise VerifyException(f"result {r} must be a {kind_of(t)} like operand 'input'")
        if r.element_type != t.element_type:
            raise VerifyException(
                f"result element type {r.element_type} differs from the element type {t.element_type} of 'input'"
            )
        before, after = _count(t.get_shape()), _count(r.get_shape())
        if before is None or after is None:
            # Without static counts, only unit dims may come and go ([N, 1] <-> [1, N]).
            if [d for d in t.get_shape() if d != 1] != [d for d in r.get_shape() if d != 1]:
                raise VerifyException(
                    f"reshape from {t} to {r} needs static shapes (only unit dimensions may be "
                    f"added or removed around symbolic ones)"
                )
        elif before != after:
            raise VerifyException(
                f"reshape changes the element count: {format_shape(t.get_shape())} has {before} "
                f"elements, {format_shape(r.get_shape())} has {after}"
            )
        if isinstance(t, TileType):
            return (TileType(r.get_shape(), r.element_type, t.memory_space),)
        return (r,)


def _swap(shape: Sequence[object], a: int, b: int) -> list:
    out = list(shape)
    out[a], out[b] = out[b], out[a]
    return out


class TransposeOpBase(PyptoValueOp):
    """`%r = op %a, <axis1>, <axis2> : A -> R`: `%a` with two axes exchanged."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TensorType | TileType)
    axis1 = prop_def(IntegerAttr)
    axis2 = prop_def(IntegerAttr)
    result = result_def(TensorType | TileType)

    def __init__(self, input: SSAValue | Operation, axis1: int, axis2: int):
        input = SSAValue.get(input)
        t = input.type
        assert isinstance(t, TensorType | TileType)
        super().__init__(
            operands=[input],
            result_types=[t.with_shape(_swap(t.get_shape(), axis1, axis2)) if 0 <= axis1 < t.rank and 0 <= axis2 < t.rank else t],
            properties={"axis1": IntegerAttr(axis1, i64), "axis2": IntegerAttr(axis2, i64)},
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TensorType | TileType)
        a, b = self.axis1.value.data, self.axis2.value.data
        for name, axis in (("axis1", a), ("axis2", b)):
            if not 0 <= axis < t.rank:
                raise VerifyException(f"{name} {axis} is out of range for the rank-{t.rank} {kind_of(t)} {t}")
        if a == b:
            raise VerifyException(f"axis1 and axis2 are both {a}: a transpose exchanges two different axes")
        return (t.with_shape(_swap(t.get_shape(), a, b)),)

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_punctuation(",")
        a = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(",")
        b = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return {"axis1": IntegerAttr(a, i64), "axis2": IntegerAttr(b, i64)}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(f", {self.axis1.value.data}, {self.axis2.value.data}")


class ConcatOpBase(PyptoValueOp):
    """`%c = op %a, %b : A, B`: the columns of `%a` then those of `%b`: [M, N1] and [M, N2]
    give [M, N1 + N2]."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("src0", "src1")
    src0 = operand_def(TensorType | TileType)
    src1 = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(self, src0: SSAValue | Operation, src1: SSAValue | Operation):
        src0, src1 = SSAValue.get(src0), SSAValue.get(src1)
        super().__init__(operands=[src0, src1], result_types=[self.implied_result_type([src0.type, src1.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        a, b = operand_types
        if isinstance(a, TensorType | TileType) and isinstance(b, TensorType | TileType) and a.rank == b.rank == 2:
            n1, n2 = a.get_shape()[1], b.get_shape()[1]
            cols = n1 + n2 if isinstance(n1, int) and isinstance(n2, int) else None
            rows = a.get_shape()[0] if a.get_shape()[0] is not None else b.get_shape()[0]
            return a.with_shape([rows, cols])
        return a

    def infer_result_types(self) -> Sequence[Attribute]:
        a, b = self.src0.type, self.src1.type
        assert isinstance(a, TensorType | TileType) and isinstance(b, TensorType | TileType)
        if type(a) is not type(b):
            raise VerifyException(f"operands 'src0' ({a}) and 'src1' ({b}) must both be tensors or both tiles")
        if a.rank != 2 or b.rank != 2:
            raise VerifyException(f"operands 'src0' and 'src1' must be 2-D {kind_of(a)}s, got {a} and {b}")
        join_shapes(a.get_shape()[:1], b.get_shape()[:1], "operands 'src0' and 'src1' (rows)")
        check_same_element_type(a, b, ("src0", "src1"))
        check_same_space(a, b, ("src0", "src1"))
        return (self.implied_result_type([a, b]),)


# --------------------------------------------------------------------------- elements


class ReadOpBase(PyptoValueOp):
    """`%x = op %t[%i, %j] : T`: one element, as a scalar of the element type."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TensorType | TileType)
    result = result_def()

    def __init__(self, source: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        t = SSAValue.get(source).type
        assert isinstance(t, TensorType | TileType)
        super().__init__(operands=[source, indices], result_types=[t.element_type])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        t = operand_types[0]
        return t.element_type if isinstance(t, TensorType | TileType) else t

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.source.type
        assert isinstance(t, TensorType | TileType)
        check_offsets(self.offsets, t.rank, "operand 'source'")
        return (t.element_type,)


class WriteOpBase(PyptoValueOp):
    """`%r = op %v into %t[%i, %j] : E into T`: store scalar `%v` into one element of `%t`;
    `%r` names `%t`'s storage."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    KEYWORDS: ClassVar[dict[int, str]] = {1: "into"}
    RESULT_LIKE: ClassVar[int] = 1
    value = operand_def()
    dest = operand_def(TensorType | TileType)
    result = result_def(TensorType | TileType)

    def __init__(
        self, value: SSAValue | Operation, dest: SSAValue | Operation, indices: Sequence[SSAValue | Operation]
    ):
        super().__init__(operands=[value, dest, indices], result_types=[SSAValue.get(dest).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.dest.type
        assert isinstance(t, TensorType | TileType)
        check_offsets(self.offsets, t.rank, "operand 'dest'")
        if self.value.type != t.element_type:
            raise VerifyException(
                f"operand 'value' has type {self.value.type}, expected the element type {t.element_type} of 'dest'"
            )
        return (t,)


def float_only(t: ShapedType, name: str = "input") -> None:
    if not is_float_type(t.element_type):
        raise VerifyException(f"operand '{name}' must have a float element type, got {t.element_type}")


def index_operand(v: SSAValue, name: str) -> None:
    if not isinstance(v.type, IndexType):
        raise VerifyException(f"operand '{name}' must be index, got {v.type}")
