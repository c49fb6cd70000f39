"""Mutations of valid `.mlir` inputs and `pl` DSL programs, for the negative fuzzer
(`pypto_xdsl.fuzz.errors`).

Each mutation takes the text of a valid program and a `random.Random` and returns the mutated
bytes, or None when it does not apply (no token of the kind it changes). Token-level
mutations work on the spans `FastMLIRLexer` produces, so they cut and copy whole tokens.

    for kind, mutate in MUTATIONS.items():
        mutant = mutate(text, rng)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRTokenKind

from pypto_xdsl.parsing import FastMLIRLexer

Mutation = Callable[[str, random.Random], bytes | None]

_HUGE = [2**63, 2**63 - 1, 2**64, 10**30, -(2**63) - 1, 2**31, -1, 0, 99999999999]
_TYPES = ["f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "ui8", "index", "!pypto.task_id", "tensor<4xf32>"]
_SPACES = ["vec", "mat", "left", "right", "acc", "bias", "gm"]
_KEYWORDS = {
    "in": ["out", "inout"], "out": ["in", "inout"], "inout": ["in", "out"],
    "inline": ["incore", "opaque", "aic", "aiv", "orchestration"],
    "incore": ["inline", "aiv", "aic", "orchestration", "opaque"],
    "orchestration": ["incore", "inline"], "opaque": ["inline", "incore"],
    "slt": ["sge", "eq", "ult"], "sge": ["slt"], "ogt": ["olt", "une"], "olt": ["ogt"],
    "iter_args": ["iter_arg"], "to": ["step"], "step": ["to"], "deps": ["dumps"], "dumps": ["deps"],
    "task_id": ["deps"], "into": ["to"],
}


def tokens(text: str) -> list[tuple[MLIRTokenKind, int, int]]:
    """(kind, start, end) of every token up to the first lexing error."""
    lexer = FastMLIRLexer(Input(text, "<mutate>"))
    out = []
    while True:
        try:
            token = lexer.lex()
        except ParseError:
            return out
        if token.kind == MLIRTokenKind.EOF:
            return out
        out.append((token.kind, token.span.start, token.span.end))


def _splice(text: str, start: int, end: int, new: str) -> bytes:
    return (text[:start] + new + text[end:]).encode()


def _pick(rng: random.Random, items: list):
    return rng.choice(items) if items else None


def delete_token(text: str, rng: random.Random) -> bytes | None:
    token = _pick(rng, tokens(text))
    return None if token is None else _splice(text, token[1], token[2], "")


def duplicate_token(text: str, rng: random.Random) -> bytes | None:
    token = _pick(rng, tokens(text))
    if token is None:
        return None
    piece = text[token[1] : token[2]]
    return _splice(text, token[1], token[2], piece + " " + piece)


def _code_lines(text: str) -> tuple[list[str], list[int]]:
    lines = text.split("\n")
    return lines, [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")]


def swap_lines(text: str, rng: random.Random) -> bytes | None:
    lines, code = _code_lines(text)
    if len(code) < 2:
        return None
    i = rng.choice(code)
    j = rng.choice([c for c in code if c != i]) if rng.random() < 0.5 else min(
        (c for c in code if c > i), default=code[0]
    )
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines).encode()


def delete_line(text: str, rng: random.Random) -> bytes | None:
    lines, code = _code_lines(text)
    if not code:
        return None
    del lines[rng.choice(code)]
    return "\n".join(lines).encode()


def duplicate_line(text: str, rng: random.Random) -> bytes | None:
    lines, code = _code_lines(text)
    if not code:
        return None
    i = rng.choice(code)
    lines.insert(i, lines[i])
    return "\n".join(lines).encode()


_TYPE_TEXT = re.compile(r"!pypto\.(tensor|tile)<\[([^\]]*)\],\s*([a-z0-9]+)(?:,\s*([a-z]+))?>")


def change_type(text: str, rng: random.Random) -> bytes | None:
    """A tensor/tile type with a changed extent, rank, dtype or memory space, or a scalar
    type replaced by another."""
    matches = list(_TYPE_TEXT.finditer(text))
    scalars = [m for m in re.finditer(r"(?<![\w.!])(f32|f16|bf16|i1|i32|i64|index)(?![\w.])", text)]
    if not matches and not scalars:
        return None
    if not matches or (scalars and rng.random() < 0.25):
        m = rng.choice(scalars)
        return _splice(text, m.start(), m.end(), rng.choice(_TYPES))
    m = rng.choice(matches)
    kind, dims, dtype, space = m.group(1), [d.strip() for d in m.group(2).split(",") if d.strip()], m.group(3), m.group(4)
    what = rng.choice(["extent", "rank", "dtype", "space", "symbol"])
    if what == "extent" and dims:
        i = rng.randrange(len(dims))
        dims[i] = str(rng.choice([0, 1, 3, 7, 15, 17, 63, 65, 128, 4096, 2**40]))
    elif what == "rank":
        if dims and rng.random() < 0.5:
            del dims[rng.randrange(len(dims))]
        else:
            dims.insert(rng.randrange(len(dims) + 1), str(rng.choice([1, 2, 16])))
    elif what == "dtype":
        dtype = rng.choice(["f32", "f16", "bf16", "i32", "i8", "i1", "f64", "index"])
    elif what == "space":
        space = rng.choice(_SPACES) if kind == "tile" or rng.random() < 0.3 else space
    elif dims:
        dims[rng.randrange(len(dims))] = rng.choice(["N", "M", "?", "K"])
    new = f"!pypto.{kind}<[{', '.join(dims)}], {dtype}" + (f", {space}" if space else "") + ">"
    return _splice(text, m.start(), m.end(), new)


def undefined_name(text: str, rng: random.Random) -> bytes | None:
    """A value or symbol use renamed: to a name never defined, or to another name of the text."""
    toks = [t for t in tokens(text) if t[0] in (MLIRTokenKind.PERCENT_IDENT, MLIRTokenKind.AT_IDENT)]
    token = _pick(rng, toks)
    if token is None:
        return None
    old = text[token[1] : token[2]]
    sigil = old[0]
    others = sorted({text[t[1] : t[2]] for t in toks if text[t[1]] == sigil} - {old})
    new = rng.choice(others) if others and rng.random() < 0.5 else f"{sigil}undefined{rng.randrange(10)}"
    return _splice(text, token[1], token[2], new)


def truncate(text: str, rng: random.Random) -> bytes | None:
    if len(text) < 2:
        return None
    return text[: rng.randrange(1, len(text))].encode()


def random_bytes(text: str, rng: random.Random) -> bytes | None:
    data = text.encode()
    at = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return data[:at] + junk + data[at:]


def huge_number(text: str, rng: random.Random) -> bytes | None:
    numbers = [m for m in re.finditer(r"(?<![\w.%@#^!])-?\d+(?![\w.])", text)]
    m = _pick(rng, numbers)
    return None if m is None else _splice(text, m.start(), m.end(), str(rng.choice(_HUGE)))


_OP_NAME = re.compile(r"\b(pypto\.(?:tensor\.|tile\.)?[a-z_]+|arith\.[a-z_]+|scf\.[a-z_]+)\b")


def swap_op(text: str, rng: random.Random) -> bytes | None:
    """An op name replaced by another op name of the text or of its dialect family."""
    matches = list(_OP_NAME.finditer(text))
    m = _pick(rng, matches)
    if m is None:
        return None
    names = sorted(({x.group(1) for x in matches} | _family(m.group(1))) - {m.group(1)})
    return _splice(text, m.start(), m.end(), rng.choice(names)) if names else None


def _family(name: str) -> set[str]:
    from pypto_xdsl.dialects import get_all_dialects

    prefix = name.rsplit(".", 1)[0] + "."
    found = set()
    for factory in get_all_dialects().values():
        for op in factory().operations:
            if op.name.startswith(prefix) and op.name.count(".") == name.count("."):
                found.add(op.name)
    return found


def swap_keyword(text: str, rng: random.Random) -> bytes | None:
    toks = [t for t in tokens(text) if t[0] == MLIRTokenKind.BARE_IDENT and text[t[1] : t[2]] in _KEYWORDS]
    token = _pick(rng, toks)
    if token is None:
        return None
    return _splice(text, token[1], token[2], rng.choice(_KEYWORDS[text[token[1] : token[2]]]))


_DSL_NAME = re.compile(r"\bpl\.([A-Za-z_][A-Za-z_0-9]*)\b")


def swap_dsl_name(text: str, rng: random.Random) -> bytes | None:
    """In a `pl` DSL program, a `pl.<name>` replaced by another of the text's or by a name
    `pl` does not have."""
    matches = list(_DSL_NAME.finditer(text))
    m = _pick(rng, matches)
    if m is None:
        return None
    names = sorted({x.group(1) for x in matches} - {m.group(1)})
    new = rng.choice(names) if names and rng.random() < 0.8 else rng.choice(["undefined", "Tensor", "FP8", "jit"])
    return _splice(text, m.start(1), m.end(1), new)


MUTATIONS: dict[str, Mutation] = {
    "token-delete": delete_token,
    "token-duplicate": duplicate_token,
    "line-swap": swap_lines,
    "line-delete": delete_line,
    "line-duplicate": duplicate_line,
    "type-shape": change_type,
    "undefined-name": undefined_name,
    "truncate": truncate,
    "random-bytes": random_bytes,
    "huge-number": huge_number,
    "op-swap": swap_op,
    "keyword-swap": swap_keyword,
    "dsl-name": swap_dsl_name,
}
"""Every mutation, by the name the report's table uses."""


def mutate(text: str, rng: random.Random, kind: str | None = None) -> tuple[str, bytes]:
    """One mutant of `text`: (mutation kind, bytes). With `kind` None a kind is drawn among
    those that apply; a second mutation follows one time in five."""
    kinds = [kind] if kind is not None else list(MUTATIONS)
    for _ in range(20):
        chosen = rng.choice(kinds)
        mutant = MUTATIONS[chosen](text, rng)
        if mutant is None:
            continue
        if kind is None and rng.random() < 0.2:
            try:
                again = MUTATIONS[rng.choice(kinds)](mutant.decode(), rng)
            except UnicodeDecodeError:
                again = None
            if again is not None:
                return chosen, again
        return chosen, mutant
    return "truncate", text[: max(1, len(text) // 2)].encode()
