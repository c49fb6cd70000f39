"""The parser's fast paths give exactly what xDSL's general paths give.

`FastMLIRLexer` against xDSL's `MLIRLexer` (token kinds, spans, error messages) on every
`.mlir` file of the repository and on random text; the call op's canonical-spelling fast path
against its general parser; interned parsed types; the cached type spellings the printers use.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IndexType, f16, f32
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from pypto_xdsl.dialects import make_context, program
from pypto_xdsl.dialects.attributes import MemorySpace, TensorType, TileType, type_text
from pypto_xdsl.parsing import FastMLIRLexer, PyptoParser

ROOT = Path(__file__).resolve().parent.parent
MLIR_FILES = sorted(p for p in ROOT.rglob("*.mlir") if ".venv" not in p.parts and "build" not in p.parts)


class ReferenceLexer(MLIRLexer):
    """xDSL's lexer with only its string-literal pattern replaced by the linear-time one
    (xDSL's backtracks exponentially on the unterminated strings random text produces)."""

    _unescaped_characters_regex = FastMLIRLexer._unescaped_characters_regex


def tokens(lexer_cls: type[MLIRLexer], text: str) -> list[tuple]:
    lexer = lexer_cls(Input(text, "<t>"))
    out: list[tuple] = []
    while True:
        try:
            token = lexer.lex()
        except ParseError as e:
            return out + [("error", str(e))]
        out.append((token.kind, token.span.start, token.span.end))
        if token.kind == MLIRTokenKind.EOF:
            return out


def test_the_repository_has_mlir_files_to_compare_on():
    assert len(MLIR_FILES) >= 50


@pytest.mark.parametrize("path", MLIR_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_lexer_tokens_equal_xdsl_lexer_tokens_on_repository_files(path: Path):
    text = path.read_text()
    assert tokens(FastMLIRLexer, text) == tokens(MLIRLexer, text)


_PIECES = [
    " ", "\n", "\t", "// comment\n", "//", "/", "%", "%x", "%0", "%a.b-c", "%1#2", "@f", '@"q r"', "@",
    "!pypto.tensor", "!", "#map", "#-}", "{-#", "#", "^bb0", "^", "->", "-", ">", "<", "(", ")", "[",
    "]", "{", "}", ":", ",", "=", "+", "*", "?", "|", "...", "..", ".", "x", "_y$", "é", "0", "12",
    "1.5", "0x1F", "1e3", '"s"', '"unterminated', "\\", "`", "~",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_fast_lexer_tokens_equal_xdsl_lexer_tokens_on_random_text(pieces: list[str]):
    text = "".join(pieces)
    assert tokens(FastMLIRLexer, text) == tokens(ReferenceLexer, text)


@pytest.mark.parametrize(
    "literal", ['"', '"a', '"a\\n b"', '"\\41\\"x"', '"tab\\t"', '"bad\\q"', '"line\nbreak"', '"\\"', '""']
)
def test_the_linear_string_pattern_accepts_what_xdsls_accepts(literal: str):
    assert tokens(FastMLIRLexer, literal) == tokens(MLIRLexer, literal)


def test_an_unterminated_string_is_reported_without_exponential_backtracking():
    text = 'pypto.func @f() { "' + "a" * 5000
    (*_, last) = tokens(FastMLIRLexer, text)
    assert last[0] == "error" and "End of file reached before closing string literal" in last[1]


def test_a_comment_at_the_end_of_input_is_not_read_as_punctuation():
    fast = tokens(FastMLIRLexer, "a //b")
    assert [kind for kind, *_ in fast] == [MLIRTokenKind.BARE_IDENT, MLIRTokenKind.EOF]
    assert fast == tokens(MLIRLexer, "a //b")


T = "!pypto.tensor<[64], f32>"
CALL_PROGRAMS = {
    "canonical": f"%r = pypto.call @h(%a, %b) : ({T}, {T}) -> {T}",
    "spaced": f"%r = pypto.call @h( %a ,%b ) :( {T} , {T} )->{T}",
    "parenthesised results": f"%r, %s = pypto.call @h2(%a, %b) : ({T}, {T}) -> ({T}, {T})",
    "no results": f"pypto.call @h0(%a) : ({T}) -> ()",
    "attribute dict": f'%r = pypto.call @h(%a, %b) {{note = "x"}} : ({T}, {T}) -> {T}',
    "comment inside": f"%r = pypto.call @h(%a, // first\n %b) : ({T}, {T}) -> {T}",
    "forward reference": f"%r = pypto.call @h(%a, %later) : ({T}, {T}) -> {T}",
    "index argument": f"%r = pypto.call @hi(%a, %i) : ({T}, index) -> {T}",
}


def call_module(body: str) -> str:
    later = f"%later = pypto.tensor.create : {T}" if "%later" in body else ""
    return f"""
pypto.func inline @h(%x: {T}, %y: {T}) -> {T} {{
  pypto.return %x : {T}
}}
pypto.func inline @h2(%x: {T}, %y: {T}) -> ({T}, {T}) {{
  pypto.return %x, %y : {T}, {T}
}}
pypto.func inline @h0(%x: {T}) {{
  pypto.return
}}
pypto.func inline @hi(%x: {T}, %i: index) -> {T} {{
  pypto.return %x : {T}
}}
pypto.func @main(%a: {T}, %b: {T}, %i: index) {{
  {body}
  {later}
  pypto.return
}}
"""


def printed(module) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


@pytest.mark.parametrize("body", CALL_PROGRAMS.values(), ids=CALL_PROGRAMS.keys())
def test_call_fast_path_builds_the_same_module_as_xdsl_parser(body: str):
    ctx = make_context()
    text = call_module(body)
    fast = PyptoParser(ctx, text).parse_module()
    general = Parser(ctx, text).parse_module()
    if "%later" in body:  # parsed alike, but a use before the definition does not verify
        with pytest.raises(VerifyException, match="used before its definition"):
            fast.verify()
    else:
        fast.verify()
    assert printed(fast) == printed(general)
    (call,) = [op for op in fast.walk() if isinstance(op, program.CallOp)]
    assert call.properties == next(op for op in general.walk() if isinstance(op, program.CallOp)).properties


@pytest.mark.parametrize(
    "body",
    [
        f"%r = pypto.call @h(%a, %b) : ({T}) -> {T}",  # count mismatch
        f"%r = pypto.call @h(%a, %b) : ({T}, !pypto.tensor<[32], f32>) -> {T}",  # %b is [64]
        f"%r = pypto.call @h(%a, %b) : ({T}, {T}) -> {T}\n  %q = pypto.call @h(%r, %r) : (index, {T}) -> {T}",
    ],
    ids=["count", "type of a defined value", "type of a result"],
)
def test_call_fast_path_reports_the_same_errors_as_xdsl_parser(body: str):
    ctx = make_context()
    text = call_module(body)
    # Parse once so every type spelling is known and the fast path is taken where it can be.
    PyptoParser(ctx, call_module(CALL_PROGRAMS["index argument"])).parse_module()
    errors = []
    for parser_cls in (PyptoParser, Parser):
        with pytest.raises(ParseError) as info:
            parser_cls(ctx, text).parse_module()
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_types_parsed_from_the_same_spelling_are_one_instance():
    ctx = make_context()
    module = PyptoParser(ctx, call_module(CALL_PROGRAMS["canonical"])).parse_module()
    main = next(op for op in module.walk() if isinstance(op, program.FuncOp) and op.sym_name.data == "main")
    a, b, _ = main.args
    assert a.type is b.type
    assert a.type == TensorType([64], f32)


@pytest.mark.parametrize(
    "t",
    [
        TensorType([64, "N", None], f32),
        TensorType([], f16),
        TileType([16, 128], f32, MemorySpace.VEC),
        TileType([16, 16], f16, MemorySpace.LEFT),
        IndexType(),
    ],
    ids=str,
)
def test_type_text_is_the_printers_spelling(t):
    stream = StringIO()
    Printer(stream=stream).print_attribute(t)
    assert type_text(t) == stream.getvalue()
    assert type_text(TensorType([64, "N", None], f32)) == type_text(TensorType([64, "N", None], f32))


def test_value_ops_list_their_operands_in_definition_order():
    """`PyptoValueOp.parse` builds ops with `create` from (value operands, offsets): the value
    operands are those the syntax lists (`tensor.assemble` defines them in PyPTO's order,
    dest first, and prints `source into dest`), with the one variadic group of offsets last."""
    from xdsl.irdl import VariadicDef

    from pypto_xdsl.dialects import tensor, tile
    from pypto_xdsl.dialects.common import PyptoValueOp

    ops = [op for op in (*tensor.TENSOR_OPS, *tile.TILE_OPS) if issubclass(op, PyptoValueOp)]
    assert len(ops) > 40
    for op in ops:
        if op.parse.__func__ is not PyptoValueOp.parse.__func__:
            # its own syntax and segment sizes (tile.load's `valid[...]` group)
            assert op.get_irdl_definition().options, op.name
            continue
        names = [name for name, _ in op.get_irdl_definition().operands]
        variadic = [
            name for name, d in op.get_irdl_definition().operands
            if isinstance(d, VariadicDef) and name not in op.OPTIONAL
        ]
        value_names = names[: len(op.OPERANDS)]
        if op is tensor.AssembleOp:
            assert value_names == ["dest", "source"]  # PyPTO's order; the syntax reads source first
        else:
            assert value_names == list(op.OPERANDS), op.name
        assert sorted(value_names) == sorted(op.OPERANDS), op.name
        assert names[len(value_names):] == [*variadic, *op.OPTIONAL], op.name
        assert len(variadic) + len(op.OPTIONAL) <= 1, op.name  # no segment sizes needed
        assert (op.OFFSETS_AFTER is not None) == bool(variadic), op.name
