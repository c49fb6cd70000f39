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
"""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Input, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

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


class PyptoParser(Parser):
    """xDSL's `Parser`, lexing with `FastMLIRLexer`."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(FastMLIRLexer(Input(text, name)))


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
