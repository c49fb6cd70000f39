"""`PyptoParser`: xDSL's MLIR parser over a faster lexer.

xDSL's `MLIRLexer` dispatches on each character in Python and spends most of a large parse
there. `FastMLIRLexer` recognises the common tokens (identifiers of every prefix, `->`, and
single-character punctuation) with one compiled regular expression and hands everything else
(numbers, strings, `{`, `...`, file metadata, end of input, malformed input) to `MLIRLexer`,
so tokens, spans and error messages are exactly xDSL's: `tests/test_parsing.py` compares the
two token streams on every `.mlir` file of the repository and on random text.

`parse_call_tail` reads the rest of a call op in its canonical spelling,
`@f(%a, %b) : (A, B) -> R`, with one regular expression, when every type in it was parsed
before; anything else is left to the op's general parser.

`PyptoParser` also turns the malformed inputs on which xDSL 0.74's parser raises Python
errors, or accepts what MLIR rejects, into located `ParseError`s: bytes that are not UTF-8;
a name used outside the region that defines it (xDSL resolves a forward reference with a
definition inside a later nested region, and leaves the op holding an unresolved value); a
value never defined (reported at its first use, not at the end of the input); a dialect type
or attribute with the wrong number of parameters (`!pypto.task_id<[64, 32], f32>`); an `index`
constant outside 64 bits. `LocatingParser` records where each op starts, for the tools'
located verifier errors.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.parser.generic_parser import ParserState, Position
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from pypto_xdsl.utils import deep_stack

_SUFFIX_ID = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
_TOKEN = re.compile(
    # Whitespace and comments, as MLIRLexer skips them; atomic, so a failed token match never
    # backtracks into a comment and reads its `/` as punctuation.
    r"(?>(?://[^\n]*\n?|\s+)*)"
    r"(?:"
    r"(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)"
    rf"|(?P<percent>%{_SUFFIX_ID})"
    rf"|(?P<exclamation>!{_SUFFIX_ID})"
    r"|(?P<at>@[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<arrow>->)"
    r"|(?P<punctuation>[:,()}\[\]<>=+/*?|])"
    rf"|(?P<caret>\^{_SUFFIX_ID})"
    rf"|(?!#-\}})(?P<hash>#{_SUFFIX_ID})"
    r")",
    re.ASCII,
)
_KIND_BY_GROUP = {
    "bare": MLIRTokenKind.BARE_IDENT,
    "percent": MLIRTokenKind.PERCENT_IDENT,
    "exclamation": MLIRTokenKind.EXCLAMATION_IDENT,
    "at": MLIRTokenKind.AT_IDENT,
    "arrow": MLIRTokenKind.ARROW,
    "caret": MLIRTokenKind.CARET_IDENT,
    "hash": MLIRTokenKind.HASH_IDENT,
}
_KIND_BY_PUNCTUATION = {
    ":": MLIRTokenKind.COLON,
    ",": MLIRTokenKind.COMMA,
    "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN,
    "}": MLIRTokenKind.R_BRACE,
    "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE,
    "<": MLIRTokenKind.LESS,
    ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL,
    "+": MLIRTokenKind.PLUS,
    "/": MLIRTokenKind.SLASH,
    "*": MLIRTokenKind.STAR,
    "?": MLIRTokenKind.QUESTION,
    "|": MLIRTokenKind.VERTICAL_BAR,
}


class FastMLIRLexer(MLIRLexer):
    """`MLIRLexer` with a one-regex fast path for the common tokens.

    It also fixes xDSL 0.74's string-literal pattern, `"(?:[^"\\...]+|\\...)*"`, whose nested
    repetition backtracks exponentially on an unterminated string (24 characters take 0.5 s,
    each further character doubles it); the atomic group below accepts the same strings in
    linear time.
    """

    _unescaped_characters_regex = re.compile(r'"(?>[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')

    def lex(self) -> MLIRToken:
        match = _TOKEN.match(self.input.content, self.pos)
        group = match.lastgroup if match is not None else None
        if group is None:
            return super().lex()  # the rare tokens, end of input, and errors
        assert match is not None
        start, self.pos = match.span(group)
        if group == "punctuation":
            kind = _KIND_BY_PUNCTUATION[match.group(group)]
        else:
            kind = _KIND_BY_GROUP[group]
        return Token(kind, Span(start, self.pos, self.input))


_INTEGER_TEXT = re.compile(r"-?\s*(?:0[xX][0-9a-fA-F]+|[0-9]+)")
INDEX_MIN, INDEX_MAX = -(2**63), 2**63 - 1
"""The values of `index` (64 bits, as the interpreter and the generated code hold them)."""


def decode_source(data: str | bytes, name: str = "<unknown>") -> str:
    """`data` as text; bytes that are not UTF-8 are a `ParseError` at the first bad byte."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", errors="replace")
        start = len(data[: e.start].decode("utf-8"))
        raise ParseError(
            Span(start, start + 1, Input(text, name)),
            f"invalid UTF-8 byte 0x{data[e.start]:02x}: the input must be UTF-8 text",
        ) from None


class _ScopedNames(dict):
    """The parser's SSA names, scoped per region without copying.

    xDSL's `parse_optional_region` copies the whole name table on entry and restores the
    copy on exit, which is quadratic in the nesting depth (10,000 nested loops: 2.6 GB).
    Here `copy()` returns the table itself, and `PyptoParser.parse_optional_region` drops
    the names the region defined on exit: they are the most recently inserted keys (a dict
    keeps insertion order, and names are only ever removed this way), so `popitem()` drops
    exactly them."""

    def copy(self) -> _ScopedNames:  # pyright: ignore[reportIncompatibleMethodOverride]
        return self

    def truncate(self, size: int) -> None:
        while len(self) > size:
            self.popitem()


class PyptoParser(Parser):
    """xDSL's `Parser`, lexing with `FastMLIRLexer`, with located errors on malformed input."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(FastMLIRLexer(Input(decode_source(input, name), name)))
        self._forward_use_spans: dict[int, Span] = {}
        self.ssa_values = _ScopedNames()

    # -- names and regions

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        value = super().resolve_operand(operand, type)
        if value.__class__ is ForwardDeclaredValue:
            self._forward_use_spans.setdefault(id(value), operand.span)
        return value

    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region | None:
        """A region in which values used but not yet defined outside it stay unresolved:
        a definition inside the region is not visible outside it (MLIR's scoping). The
        region's own unresolved names stay pending in the enclosing scope. Names the region
        defines are dropped on exit (`_ScopedNames`), in time linear in their number."""
        outer = self.forward_ssa_references
        self.forward_ssa_references = {}
        names = self.ssa_values
        visible = len(names)
        try:
            region = super().parse_optional_region(arguments)
        except BaseException:
            self.forward_ssa_references = outer
            raise
        if isinstance(names, _ScopedNames):
            names.truncate(visible)
        inner, self.forward_ssa_references = self.forward_ssa_references, outer
        for name, references in inner.items():
            pending = outer.setdefault(name, {})
            for index, value in references.items():
                earlier = pending.get(index)
                if earlier is None:
                    pending[index] = value
                    continue
                if earlier.type != value.type:
                    raise ParseError(
                        self._forward_use_spans[id(value)],
                        f"%{name} is used with type {value.type} here but with type "
                        f"{earlier.type} before",
                    )
                value.replace_all_uses_with(earlier)
        return region

    @deep_stack
    def parse_module(self, allow_implicit_module: bool = True):
        """xDSL's `parse_module`, on a deep stack (deeply nested input parses) and with an
        undefined value reported at its first use; an input without ops (empty, or only
        comments) is an empty module, as for mlir-opt."""
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            if not (e.msg.startswith("values used but not defined") and self.forward_ssa_references):
                raise
            raise self._undefined_value_error() from None

    def _undefined_value_error(self) -> ParseError:
        """The first use of a value that is never defined (in a region enclosing the use)."""
        uses = [
            (self._forward_use_spans[id(value)], name)
            for name, references in self.forward_ssa_references.items()
            for value in references.values()
            if id(value) in self._forward_use_spans
        ]
        if not uses:
            return ParseError(Span(self.pos, self.pos, self.lexer.input), "use of undefined SSA values")
        span, name = min(uses, key=lambda use: use[0].start)
        return ParseError(span, f"use of undefined SSA value %{name}")

    # -- types, attributes and numbers

    def _parse_dialect_type_or_attribute_body(
        self, attr_name: str, is_type: bool, is_opaque: bool, starting_opaque_pos: Position | None
    ):
        start = self._current_token.span.start
        try:
            return super()._parse_dialect_type_or_attribute_body(
                attr_name, is_type, is_opaque, starting_opaque_pos
            )
        except ParseError:
            raise
        except (ValueError, TypeError, IndexError, KeyError, AssertionError, VerifyException) as e:
            kind = "type" if is_type else "attribute"
            message = str(e)
            if message.startswith("zip() argument"):
                definition = (self.ctx.get_optional_type if is_type else self.ctx.get_optional_attr)(attr_name)
                if definition is not None and issubclass(definition, ParametrizedAttribute):
                    expected = len(definition.get_irdl_definition().parameters)
                    message = f"wrong number of parameters: it takes {expected}"
            raise ParseError(self._span_from(start), f"invalid {kind} '{attr_name}': {message}") from None

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        start = self._current_token.span.start
        attr = super().parse_optional_builtin_int_or_float_attr()
        if (
            isinstance(attr, IntegerAttr)
            and isinstance(attr.type, IndexType)
            and not INDEX_MIN <= attr.value.data <= INDEX_MAX
        ):
            number = _INTEGER_TEXT.match(self.lexer.input.content, start)
            raise ParseError(
                Span(start, number.end() if number else start + 1, self.lexer.input),
                f"integer {attr.value.data} is out of the range of index (64-bit signed)",
            )
        return attr

    def _span_from(self, start: int) -> Span:
        """From `start` to the end of the text parsed so far (without trailing blanks)."""
        content = self.lexer.input.content
        end = self.pos
        while end > start + 1 and content[end - 1].isspace():
            end -= 1
        return Span(start, max(end, start + 1), self.lexer.input)


class LocatingParser(PyptoParser):
    """A parser that records where each op starts (`spans`: op -> (span, line offset)), for
    verifier errors with a `file:line:col` location. A type or attribute that fails its own
    verifier while being parsed is reported at the op that spells it."""

    def __init__(
        self,
        ctx: Context,
        input: str | bytes,
        name: str = "<unknown>",
        *,
        spans: weakref.WeakKeyDictionary[Operation, tuple[Span, int]] | None = None,
        line_offset: int = 0,
    ):
        super().__init__(ctx, input, name)
        self.spans: weakref.WeakKeyDictionary[Operation, tuple[Span, int]] = (
            weakref.WeakKeyDictionary() if spans is None else spans
        )
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            raise ParseError(Span(start.start, start.end, start.input), str(e)) from e
        self.spans[op] = (start, self._line_offset)
        return op


_TYPE = r"![a-zA-Z_][\w.]*(?:<[^<>]*>)?|[a-z][a-z0-9]*"
_TYPES = rf"(?:(?:{_TYPE})(?:\s*,\s*(?:{_TYPE}))*)?"
_OPERAND = r"%[a-zA-Z0-9$._-]+"
_CALL_TAIL = re.compile(
    rf"\s*@([a-zA-Z_][a-zA-Z0-9_$.]*)\(\s*((?:{_OPERAND})(?:\s*,\s*{_OPERAND})*)?\s*\)"
    rf"\s*:\s*\(\s*({_TYPES})\s*\)\s*->\s*(?:\(\s*({_TYPES})\s*\)|({_TYPE}))",
    re.ASCII,
)
_TYPE_TEXT = re.compile(_TYPE, re.ASCII)
_OPERAND_TEXT = re.compile(_OPERAND, re.ASCII)
_BUILTIN_TYPES: dict[str, Attribute] = {
    "index": IndexType(),
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    **{f"i{w}": IntegerType(w) for w in (1, 8, 16, 32, 64)},
}


def _known_types(text: str) -> list[Attribute] | None:
    from pypto_xdsl.dialects.attributes import PARSED_TYPES_BY_TEXT

    types = []
    for spelling in _TYPE_TEXT.findall(text):
        t = PARSED_TYPES_BY_TEXT.get(spelling) or _BUILTIN_TYPES.get(spelling)
        if t is None:
            return None
        types.append(t)
    return types


def parse_call_tail(parser: Parser) -> tuple[str, list[SSAValue], list[Attribute]] | None:
    """`@f(%a, %b) : (A, B) -> R` at the parser's position: (callee, resolved arguments, result
    types), the parser advanced past it; None (nothing consumed) if the text is spelled
    otherwise or names a type not parsed before."""
    lexer = parser.lexer
    content = lexer.input.content
    start = parser.pos
    match = _CALL_TAIL.match(content, start)
    if match is None:
        return None
    callee, operand_text, input_text, outputs_text, output_text = match.groups()
    inputs = _known_types(input_text)
    outputs = _known_types(output_text or outputs_text or "")
    if inputs is None or outputs is None:
        return None
    offset = match.start(2)
    operands = [
        UnresolvedOperand(Span(offset + m.start(), offset + m.end(), lexer.input), 0)
        for m in _OPERAND_TEXT.finditer(operand_text or "")
    ]
    if len(operands) != len(inputs):
        return None  # the general parser reports the count mismatch
    lexer.pos = match.end()
    parser._parser_state.current_token = lexer.lex()  # pyright: ignore[reportPrivateUsage]
    return callee, [parser.resolve_operand(u, t) for u, t in zip(operands, inputs)], outputs
