"""The shared custom assembly format of `ascendc` instruction-like ops.

    [%r =] ascendc.<op> ["name"] [ENUM ...] %a, %b, ... [kw value ...] [{attrs}] [: T_a, T_b, ... [-> T_r]]

Each op class lists its leading enum properties (`FORMAT_ENUMS`), its keyword properties
(`FORMAT_KEYWORDS`: `count 2048`, `params(1, 1, 8, 16)`, `round CAST_TRUNC`, ...; optional
ones are printed only when set) and whether its result type follows from its operands
(`result_type()`). Properties not in the format go in the attribute dictionary, so every op
round-trips in custom form; the generic form is xDSL's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i1, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

# keyword kinds
INT = "int"  # `kw 64`
INTS = "ints"  # `kw(1, 1, 8, 16)`
BOOLS_INTS = "bools_ints"  # `kw(false, 0, 0, 0)`: a bool then integers
ENUM = "enum"  # `kw ORDER_ONLY_VALUE` (the property's EnumAttribute class given)


def int_prop(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def ints_prop(values: Sequence[int | bool]) -> ArrayAttr:
    return ArrayAttr([IntegerAttr.from_bool(v) if isinstance(v, bool) else IntegerAttr(v, i64) for v in values])


def prop_int(op: Operation, name: str) -> int | None:
    a = op.properties.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else None


def prop_ints(op: Operation, name: str) -> list[int] | None:
    a = op.properties.get(name)
    if not isinstance(a, ArrayAttr):
        return None
    return [int(x.value.data) for x in a.data]  # type: ignore[union-attr]


def _print_int_list(printer: Printer, values: ArrayAttr) -> None:
    parts = []
    for v in values.data:
        if isinstance(v, IntegerAttr) and v.type == i1:
            parts.append("true" if v.value.data else "false")
        else:
            parts.append(str(v.value.data))  # type: ignore[union-attr]
    printer.print_string("(" + ", ".join(parts) + ")")


class AscendCFormat:
    """Mixin: the custom format above for an IRDLOperation subclass."""

    FORMAT_NAMED: ClassVar[bool] = False
    FORMAT_ENUMS: ClassVar[tuple[tuple[str, type[EnumAttribute]], ...]] = ()
    FORMAT_KEYWORDS: ClassVar[tuple[tuple[str, str, str, type | None], ...]] = ()  # (keyword, prop, kind, enum cls)

    @classmethod
    def result_type(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]) -> Attribute | None:
        """The result type implied by the operands, or None when it is printed (`-> T`)."""
        return None

    # ---- printing

    def print(self, printer: Printer) -> None:
        op: IRDLOperation = self  # type: ignore[assignment]
        shown: set[str] = set()
        if self.FORMAT_NAMED:
            printer.print_string(" ")
            printer.print_string_literal(op.properties["name"].data)  # type: ignore[union-attr]
            shown.add("name")
        for prop, _ in self.FORMAT_ENUMS:
            printer.print_string(f" {op.properties[prop].data.value}")  # type: ignore[union-attr]
            shown.add(prop)
        if op.operands:
            printer.print_string(" ")
            printer.print_list(op.operands, printer.print_operand)
        for keyword, prop, kind, _ in self.FORMAT_KEYWORDS:
            value = op.properties.get(prop)
            if value is None:
                continue
            shown.add(prop)
            printer.print_string(f" {keyword}")
            if kind == INT:
                printer.print_string(f" {value.value.data}")  # type: ignore[union-attr]
            elif kind == ENUM:
                printer.print_string(f" {value.data.value}")  # type: ignore[union-attr]
            else:
                assert isinstance(value, ArrayAttr)
                _print_int_list(printer, value)
        extra = {k: v for k, v in op.properties.items() if k not in shown}
        extra.update(op.attributes)
        if extra:
            printer.print_op_attributes(extra)
        types = [o.type for o in op.operands]
        result_types = [r.type for r in op.results]
        implied = type(self).result_type(types, dict(op.properties)) if result_types else None
        if types or (result_types and implied is None):
            printer.print_string(" : ")
            if types:
                printer.print_list(types, printer.print_attribute)
            if result_types and implied is None:
                if types:
                    printer.print_string(" -> ")
                printer.print_attribute(result_types[0])

    # ---- parsing

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        props: dict[str, Attribute] = {}
        if cls.FORMAT_NAMED:
            props["name"] = StringAttr(parser.parse_str_literal())
        for prop, enum_cls in cls.FORMAT_ENUMS:
            props[prop] = enum_cls(parser.parse_str_enum(enum_cls.enum_type))  # type: ignore[call-arg]
        unresolved = []
        op_def = cls.get_irdl_definition()  # type: ignore[attr-defined]
        first = parser.parse_optional_unresolved_operand() if op_def.operands else None
        if first is not None:
            unresolved.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                unresolved.append(parser.parse_unresolved_operand())
        for keyword, prop, kind, enum_cls in cls.FORMAT_KEYWORDS:
            if parser.parse_optional_keyword(keyword) is None:
                continue
            if kind == INT:
                props[prop] = int_prop(parser.parse_integer(allow_boolean=False))
            elif kind == ENUM:
                assert enum_cls is not None
                props[prop] = enum_cls(parser.parse_str_enum(enum_cls.enum_type))  # type: ignore[attr-defined]
            else:
                values: list[int | bool] = parser.parse_comma_separated_list(
                    parser.Delimiter.PAREN,
                    lambda: (
                        b if (b := parser.parse_optional_boolean()) is not None else parser.parse_integer(allow_boolean=False)
                    ),
                )
                props[prop] = ints_prop(values)
        attrs = parser.parse_optional_attr_dict()
        result_type = None
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            if not op_def.operands:
                result_type = parser.parse_type()
            else:
                types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                if parser.parse_optional_punctuation("->") is not None:
                    result_type = parser.parse_type()
        if len(types) != len(unresolved):
            parser.raise_error(f"{cls.name} has {len(unresolved)} operands but {len(types)} types")  # type: ignore[attr-defined]
        operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
        for key in list(attrs):
            if key in op_def.properties:
                props[key] = attrs.pop(key)
        has_result = bool(op_def.results)
        if has_result and result_type is None:
            result_type = cls.result_type(types, props)
            if result_type is None:
                parser.raise_error(f"{cls.name} needs its result type (`: ... -> T`)")  # type: ignore[attr-defined]
        op = cls.create(  # type: ignore[attr-defined]
            operands=operands,
            result_types=[result_type] if has_result else [],
            properties=props,
            attributes=attrs,
        )
        return op


def check_positive(op: Operation, prop: str, limit: int | None = None) -> None:
    v = prop_int(op, prop)
    if v is None:
        return
    if v <= 0:
        raise VerifyException(f"{op.name}: '{prop}' must be positive, got {v}")
    if limit is not None and v > limit:
        raise VerifyException(f"{op.name}: '{prop}' is {v}, more than the {limit} the instruction encodes")


def check_ints(op: Operation, prop: str, n: int, limit: int, what: str) -> None:
    v = prop_ints(op, prop)
    if v is None:
        return
    if len(v) != n:
        raise VerifyException(f"{op.name}: {what} takes {n} values, got {len(v)}")
    for x in v:
        if x < 0 or x > limit:
            raise VerifyException(f"{op.name}: {what} value {x} is outside [0, {limit}]")
