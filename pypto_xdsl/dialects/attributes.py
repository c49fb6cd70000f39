"""Types and enum attributes of the `pypto` dialect.

Shapes are lists of dimensions; each dimension is a static extent (`64`), a named
symbol (`N`, PyPTO's `pl.dynamic("N")`) or unknown (`?`). In Python a dimension is
`int | str | None` (`None` is `?`); in the IR it is an `IntAttr` (`?` is -1) or a
`StringAttr`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from io import StringIO
from typing import Self, TypeAlias

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerType,
    Signedness,
    StringAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    TypeAttribute,
)
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

Dim: TypeAlias = int | str | None
"""One dimension in Python: a static extent, a symbol name, or None for `?`."""

DYNAMIC = -1


# --------------------------------------------------------------------------- enums


class FuncKind(StrEnum):
    OPAQUE = "opaque"
    INLINE = "inline"
    INCORE = "incore"
    AIC = "aic"
    AIV = "aiv"
    ORCHESTRATION = "orchestration"
    GROUP = "group"
    """A mixed cube + vector kernel: an `aic` and an `aiv` member launched together as one
    task (`expand-mixed-kernel` makes them; see dialects/cross_core.py)."""
    GRAPH = "graph"
    """A recordable, replayable orchestration fragment (PyPTO's FunctionType.Graph): an
    orchestration body whose every call is one task launch; outlining keeps the kind."""
    HOST = "host"
    """The host orchestrator of a group of ranks (PyPTO's `@pl.jit.host`): dispatches
    orchestration functions to ranks (see dialects/distributed_host.py)."""


INCORE_KINDS = frozenset({FuncKind.INCORE, FuncKind.AIC, FuncKind.AIV})
ORCHESTRATION_LIKE_KINDS = frozenset({FuncKind.ORCHESTRATION, FuncKind.GRAPH})


class ParamDirection(StrEnum):
    IN = "in"
    OUT = "out"
    INOUT = "inout"


class MemorySpace(StrEnum):
    VEC = "vec"
    MAT = "mat"
    LEFT = "left"
    RIGHT = "right"
    ACC = "acc"
    BIAS = "bias"


class Level(StrEnum):
    AIV = "aiv"
    AIC = "aic"
    CORE_GROUP = "core_group"


class SplitMode(StrEnum):
    NONE = "none"
    UP_DOWN = "up_down"
    LEFT_RIGHT = "left_right"


class PadValue(StrEnum):
    """What `tile.fillpad` writes outside a tile's valid region: 0, the largest or the
    smallest value of the element type (+inf / -inf for floats)."""

    ZERO = "zero"
    MAX = "max"
    MIN = "min"


class GatherCoalesce(StrEnum):
    """What one index of `tile.mgather` selects: a whole row of the table, or one element of
    the table read as a flat array."""

    ROW = "row"
    ELEM = "elem"


class GatherOob(StrEnum):
    """What `tile.mgather` does with an index past the table (indices read as unsigned 32-bit
    values): `undefined` (the program guarantees none), `clamp` to the last entry, `wrap`
    modulo the entry count, or `zero` the destination."""

    UNDEFINED = "undefined"
    CLAMP = "clamp"
    WRAP = "wrap"
    ZERO = "zero"


class AtomicKind(StrEnum):
    """How a write into global memory combines with what is there (PyPTO's AtomicType)."""

    NONE = "none"
    ADD = "add"


@irdl_attr_definition
class FuncKindAttr(EnumAttribute[FuncKind], SpacedOpaqueSyntaxAttribute):
    """`#pypto<kind inline>`"""

    name = "pypto.kind"


@irdl_attr_definition
class ParamDirectionAttr(EnumAttribute[ParamDirection], SpacedOpaqueSyntaxAttribute):
    """`#pypto<dir out>`"""

    name = "pypto.dir"


@irdl_attr_definition
class MemorySpaceAttr(EnumAttribute[MemorySpace], SpacedOpaqueSyntaxAttribute):
    """`#pypto<mem vec>`"""

    name = "pypto.mem"


@irdl_attr_definition
class LevelAttr(EnumAttribute[Level], SpacedOpaqueSyntaxAttribute):
    """`#pypto<level core_group>`"""

    name = "pypto.level"


@irdl_attr_definition
class SplitModeAttr(EnumAttribute[SplitMode], SpacedOpaqueSyntaxAttribute):
    """`#pypto<split up_down>`"""

    name = "pypto.split"


@irdl_attr_definition
class PadValueAttr(EnumAttribute[PadValue], SpacedOpaqueSyntaxAttribute):
    """`#pypto<pad min>`"""

    name = "pypto.pad"


@irdl_attr_definition
class AtomicKindAttr(EnumAttribute[AtomicKind], SpacedOpaqueSyntaxAttribute):
    """`#pypto<atomic add>`"""

    name = "pypto.atomic"


@irdl_attr_definition
class GatherCoalesceAttr(EnumAttribute[GatherCoalesce], SpacedOpaqueSyntaxAttribute):
    """`#pypto<coalesce row>`"""

    name = "pypto.coalesce"


@irdl_attr_definition
class GatherOobAttr(EnumAttribute[GatherOob], SpacedOpaqueSyntaxAttribute):
    """`#pypto<oob clamp>`"""

    name = "pypto.oob"


# --------------------------------------------------------------------------- dims


def dim_to_attr(dim: Dim) -> IntAttr | StringAttr:
    if dim is None:
        return IntAttr(DYNAMIC)
    if isinstance(dim, str):
        return StringAttr(dim)
    return IntAttr(dim)


def attr_to_dim(attr: Attribute) -> Dim:
    if isinstance(attr, StringAttr):
        return attr.data
    assert isinstance(attr, IntAttr)
    return None if attr.data == DYNAMIC else attr.data


def format_dim(dim: Dim) -> str:
    return "?" if dim is None else str(dim)


def format_shape(shape: Sequence[Dim]) -> str:
    return "[" + ", ".join(format_dim(d) for d in shape) + "]"


def dims_compatible(a: Dim, b: Dim) -> bool:
    """Two dims may describe the same extent: equal, or one is unknown."""
    return a is None or b is None or a == b


def join_dims(a: Dim, b: Dim) -> Dim:
    """The more precise of two compatible dims."""
    return b if a is None else a


def shapes_compatible(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


MAX_DIM = 2**63 - 1
"""Extents are 64-bit signed integers (in the interpreter, the generated code and MLIR)."""


def _parse_shape(parser: AttrParser) -> list[Dim]:
    def parse_dim() -> Dim:
        if parser.parse_optional_punctuation("?") is not None:
            return None
        if (sym := parser.parse_optional_identifier()) is not None:
            return sym
        pos = parser.pos
        if parser._current_token.text.lower().startswith("0x"):  # `[0x40]`, `[0x4]`: not a dim
            parser.raise_error("dimension must be a decimal integer", pos, parser._current_token.span.end)
        value = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if value < 0:
            parser.raise_error("dimension must be non-negative", pos, parser.pos)
        if value > MAX_DIM:
            parser.raise_error(f"dimension {value} is larger than the largest extent, 2^63 - 1", pos, parser._current_token.span.start)
        return value

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_dim)


_ELEMENT_TYPES: tuple[Attribute, ...] = (
    Float32Type(),
    Float16Type(),
    BFloat16Type(),
    IntegerType(1),
    IntegerType(8),
    IntegerType(16),
    IntegerType(32),
    IntegerType(64),
    IntegerType(8, Signedness.UNSIGNED),
    IntegerType(16, Signedness.UNSIGNED),
    IntegerType(32, Signedness.UNSIGNED),
    IntegerType(64, Signedness.UNSIGNED),
)


def is_element_type(t: Attribute) -> bool:
    return t in _ELEMENT_TYPES


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, Float32Type | Float16Type | BFloat16Type)


def element_byte_width(t: Attribute) -> int:
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, Float16Type | BFloat16Type):
        return 2
    assert isinstance(t, IntegerType)
    return max(1, t.width.data // 8)


def is_scalar_type(t: Attribute) -> bool:
    """Scalars are builtin `index` or an element type."""
    return isinstance(t, IndexType) or is_element_type(t)


class ShapedTypeMixin:
    """Shape accessors shared by tensor and tile types (which declare the parameters)."""

    def get_shape(self) -> tuple[Dim, ...]:
        return tuple(attr_to_dim(d) for d in self.shape.data)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    def symbols(self) -> set[str]:
        return {d for d in self.get_shape() if isinstance(d, str)}

    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.get_shape())

    def num_elements(self) -> int:
        count = 1
        for d in self.get_shape():
            assert isinstance(d, int), "num_elements needs a static shape"
            count *= d
        return count

    def _verify_shape(self, kind: str) -> None:
        for d in self.shape.data:
            if isinstance(d, IntAttr) and d.data < DYNAMIC:
                raise VerifyException(f"{kind} dimension must be non-negative, got {d.data}")
            if isinstance(d, IntAttr) and d.data > MAX_DIM:
                raise VerifyException(f"{kind} dimension {d.data} is larger than the largest extent, 2^63 - 1")
        if not is_element_type(self.element_type):
            raise VerifyException(
                f"{kind} element type must be one of f32, f16, bf16, i1, i8, i16, i32, i64, "
                f"ui8, ui16, ui32, ui64, got {self.element_type}"
            )


_PARAMETER_CACHE: dict[tuple[type, str], Sequence[Attribute]] = {}
# id(cached parameters) -> (those parameters, the type built from them). The parameter cache
# keeps the sequences alive, so their ids stay unique.
_PARSED_TYPES: dict[int, tuple[Sequence[Attribute], Attribute]] = {}
_CACHED_PARAMETER_TEXT: dict[int, str] = {}  # id(cached parameters) -> their `<...>` text
# A parsed type by its exact spelling (`!pypto.tensor<[64], f32>`), for parsers' fast paths.
PARSED_TYPES_BY_TEXT: dict[str, Attribute] = {}


def parse_cached_parameters(
    cls: type, parser: AttrParser, parse: Callable[[AttrParser], Sequence[Attribute]]
) -> Sequence[Attribute]:
    """Parse `<...>` type parameters, memoised on their text.

    Large programs spell the same few types thousands of times and type parsing dominates
    parse time; a body without nested brackets is looked up instead of lexed again (the
    same skip xDSL's parser performs for unregistered types).
    """
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    content = parser.lexer.input.content
    start = token.span.start
    end = content.find(">", start)
    key = content[start : end + 1] if token.text == "<" and end > 0 else ""
    if key and "<" not in key[1:]:
        cached = _PARAMETER_CACHE.get((cls, key))
        if cached is not None:
            parser.lexer.pos = end + 1
            parser._parser_state.current_token = parser.lexer.lex()  # pyright: ignore[reportPrivateUsage]
            return cached
        params = parse(parser)
        if len(_PARAMETER_CACHE) < 65536:
            _PARAMETER_CACHE[(cls, key)] = params
            _CACHED_PARAMETER_TEXT[id(params)] = key
        return params
    return parse(parser)


_TYPE_TEXT_BY_ID: dict[int, tuple[Attribute, str]] = {}
_TYPE_TEXT: dict[Attribute, str] = {}


def type_text(t: Attribute) -> str:
    """`t` as the printer spells it, rendered once per distinct type.

    Ops print their types through this: large programs print the same few types hundreds of
    thousands of times. Instances are looked up by identity first (parsed types are shared,
    see `InternedParsedType`), then by value.
    """
    hit = _TYPE_TEXT_BY_ID.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    text = _TYPE_TEXT.get(t)
    if text is None:
        stream = StringIO()
        Printer(stream=stream).print_attribute(t)
        text = stream.getvalue()
        if len(_TYPE_TEXT) < 65536:
            _TYPE_TEXT[t] = text
    if len(_TYPE_TEXT_BY_ID) < 65536:
        _TYPE_TEXT_BY_ID[id(t)] = (t, text)  # keeps `t` alive, so the id stays its own
    return text


class InternedParsedType(ParametrizedAttribute):
    """Types parsed from the same text are one instance, built and verified once.

    Attributes are immutable, so sharing them is safe; it saves an attribute construction
    and verification per spelling of a type in large programs.
    """

    @classmethod
    def new(cls, params: Sequence[Attribute]) -> Self:
        hit = _PARSED_TYPES.get(id(params))
        if hit is not None and hit[0] is params and type(hit[1]) is cls:
            return hit[1]  # pyright: ignore[reportReturnType]
        attr = super().new(params)
        text = _CACHED_PARAMETER_TEXT.get(id(params))
        if text is not None:
            _PARSED_TYPES[id(params)] = (params, attr)
            PARSED_TYPES_BY_TEXT[f"!{cls.name}{text}"] = attr
        return attr


class ShapeElementSyntax:
    """The `<[64, N, ?], f32>` syntax of a type whose parameters are a shape and an element
    type (tensors and the distributed types built like them)."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_cached_parameters(cls, parser, cls._parse_parameters)  # type: ignore[arg-type]

    @staticmethod
    def _parse_parameters(parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape = _parse_shape(parser)
            parser.parse_punctuation(",")
            element_type = parser.parse_type()
        return (ArrayAttr(dim_to_attr(d) for d in shape), element_type)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(format_shape(self.get_shape()) + ", ")  # type: ignore[attr-defined]
            printer.print_attribute(self.element_type)  # type: ignore[attr-defined]


@irdl_attr_definition
class TensorType(ShapedTypeMixin, ShapeElementSyntax, InternedParsedType, TypeAttribute):
    """`!pypto.tensor<[64, N, ?], f32>`: a tensor in global memory (GM)."""

    name = "pypto.tensor"
    shape: ArrayAttr[IntAttr | StringAttr]
    element_type: Attribute

    def __init__(self, shape: Iterable[Dim], element_type: Attribute):
        super().__init__(ArrayAttr(dim_to_attr(d) for d in shape), element_type)

    def verify(self) -> None:
        self._verify_shape("tensor")

    def with_shape(self, shape: Iterable[Dim]) -> TensorType:
        return TensorType(shape, self.element_type)



@irdl_attr_definition
class TileType(ShapedTypeMixin, InternedParsedType, TypeAttribute):
    """`!pypto.tile<[64, 64], f32, vec>`: a tile in one on-chip buffer."""

    name = "pypto.tile"
    shape: ArrayAttr[IntAttr | StringAttr]
    element_type: Attribute
    memory_space: MemorySpaceAttr

    def __init__(
        self,
        shape: Iterable[Dim],
        element_type: Attribute,
        memory_space: MemorySpace | MemorySpaceAttr = MemorySpace.VEC,
    ):
        if isinstance(memory_space, MemorySpace):
            memory_space = MemorySpaceAttr(memory_space)
        super().__init__(ArrayAttr(dim_to_attr(d) for d in shape), element_type, memory_space)

    @property
    def space(self) -> MemorySpace:
        return self.memory_space.data

    def verify(self) -> None:
        self._verify_shape("tile")

    def with_shape(self, shape: Iterable[Dim]) -> TileType:
        return TileType(shape, self.element_type, self.memory_space)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_cached_parameters(cls, parser, cls._parse_parameters)

    @staticmethod
    def _parse_parameters(parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape = _parse_shape(parser)
            parser.parse_punctuation(",")
            element_type = parser.parse_type()
            parser.parse_punctuation(",")
            space = MemorySpaceAttr(parser.parse_str_enum(MemorySpace))
        return (ArrayAttr(dim_to_attr(d) for d in shape), element_type, space)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(format_shape(self.get_shape()) + ", ")
            printer.print_attribute(self.element_type)
            printer.print_string(f", {self.space.value}")


@irdl_attr_definition
class TaskIdType(ParametrizedAttribute, TypeAttribute):
    """`!pypto.task_id`: handle of a launched task, consumed by `deps`."""

    name = "pypto.task_id"


ShapedType: TypeAlias = TensorType | TileType


def substitute_symbols(t: Attribute, binding: Mapping[str, Dim]) -> Attribute:
    """Replace bound symbols in a tensor/tile type; other types are returned as is."""
    if not isinstance(t, TensorType | TileType) or not binding:
        return t
    shape = t.get_shape()
    new_shape = [binding.get(d, d) if isinstance(d, str) else d for d in shape]
    if new_shape == list(shape):
        return t
    return t.with_shape(new_shape)


class SymbolBindingError(Exception):
    """A symbol would be bound to two different extents."""

    def __init__(self, symbol: str, first: Dim, second: Dim):
        super().__init__(
            f"symbol '{symbol}' bound to both {format_dim(first)} and {format_dim(second)}"
        )
        self.symbol, self.first, self.second = symbol, first, second


def bind_shape(
    formal: Sequence[Dim], actual: Sequence[Dim], binding: dict[str, Dim], strict: bool = True
) -> bool:
    """Match an actual shape against a formal one, extending `binding` (symbol -> dim).

    Returns False when the shapes cannot match (rank or a static extent differs). A symbol
    already bound to another known extent raises SymbolBindingError when `strict`, and
    is otherwise left with its first binding.
    """
    if len(formal) != len(actual):
        return False
    for f, a in zip(formal, actual):
        if isinstance(f, str):
            if f in binding:
                bound = binding[f]
                if not dims_compatible(bound, a):
                    if strict:
                        raise SymbolBindingError(f, bound, a)
                elif bound is None:
                    binding[f] = a
            else:
                binding[f] = a
        elif not dims_compatible(f, a):
            return False
    return True


def argument_mismatch(
    formal: Attribute, actual: Attribute, binding: dict[str, Dim], strict: bool = True
) -> str | None:
    """Why a value of type `actual` cannot be passed for a parameter of type `formal`.

    Returns None when it can (binding the formal's shape symbols into `binding`), otherwise
    what differs: "kind", "dtype", "memory space", "rank", "shape" or "type". A symbol bound to
    two extents raises SymbolBindingError when `strict`.
    """
    if not isinstance(formal, TensorType | TileType):
        return None if actual == formal else "type"
    if type(actual) is not type(formal):
        return "kind"
    assert isinstance(actual, TensorType | TileType)
    if actual.element_type != formal.element_type:
        return "dtype"
    if isinstance(formal, TileType) and isinstance(actual, TileType) and actual.space != formal.space:
        return "memory space"
    if actual.rank != formal.rank:
        return "rank"
    if not bind_shape(formal.get_shape(), actual.get_shape(), binding, strict):
        return "shape"
    return None
