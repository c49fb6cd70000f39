"""Every op of the pypto and ascendc dialects round-trips in a FileCheck test, and every verifier
message in pypto_xdsl/dialects/ is checked by one (the project's rule for dialect tests).

Messages are found with `ast`: every construction of `VerifyException` or a subclass defined
in the dialects (`OpVerifyException`, raised or returned by a helper), and the message an
exception class of the dialects builds itself (`SymbolBindingError`, which a verifier wraps).
A message's literal parts (what stays of an f-string, a `+` concatenation or a `.format` of a
module constant once its holes are taken out) must all appear, in order, in one check line of a
FileCheck test that reports diagnostics (`--verify-diagnostics`, `PYPTO_VERIFY_DIAG`, `not`,
`2>&1`). An op is covered when a `.mlir` test that prints IR parses it (its name in an input
line) and checks its printed form (its name in a check line of the same file).

A new op or message fails this test until its FileCheck case is written: that is intended.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pypto_xdsl.universe import PYPTO_UNIVERSE

ROOT = Path(__file__).resolve().parent.parent
DIALECTS = ROOT / "pypto_xdsl" / "dialects"
FILECHECK = ROOT / "tests" / "filecheck"

# Messages no textual IR can reach, keyed by (module, one literal part of the message), with
# the reason. Each is raised only through a Python API (built IR, a pass's rewrite), where a
# pytest case checks it (tests/test_robustness.py, tests/test_dialect.py) unless said otherwise.
_INFER_API = (
    "raised by `infer_result_types()`, which passes call on ops whose operands they have just "
    "substituted (inline-functions), before IRDL's constraints run; parsed IR meets the op's "
    "operand constraint first (tests/test_dialect.py)"
)
UNREACHABLE: dict[tuple[str, str], str] = {
    ("ascendc_kernel", "a kernel result is 'param N' or 'workspace OFFSET', not '"): (
        "#ascendc.result<...> parses only the keywords `param` and `workspace`; the check guards "
        "KernelResultAttr built in Python"
    ),
    ("ascendc_kernel", "a kernel result index or offset is not negative"): (
        "#ascendc.result<...> parses a non-negative integer; the check guards KernelResultAttr built in Python"
    ),
    ("attributes", "dimension must be non-negative, got"): (
        "the shape parser reads a dimension as a non-negative integer, `?` or a symbol; the check "
        "guards TensorType/TileType built in Python"
    ),
    ("dominance", "is never defined"): (
        "the parser rejects a use of an undefined name ('use of undefined SSA value'); a pass "
        "that erases an op whose result is still used reaches it"
    ),
    ("dominance", "is defined inside a region of"): (
        "the parser scopes names by region, so a value of another region is undefined there; a "
        "pass that moves an op out of its region reaches it (tests/test_robustness.py)"
    ),
    ("traits", "results, got"): (
        "IRDL's result definitions fix the count of every parsed op before `verify_result_types` "
        "compares it (tests/test_dialect.py)"
    ),
    ("verification", "' expected in operation '"): (
        "xDSL's own message for a missing required attribute, repeated by the signature memo; no "
        "pypto or ascendc op declares a required (non-property) attribute, so nothing reaches it"
    ),
    ("common", "offset #"): _INFER_API,
    ("common", "must be of the same kind as operand 'input'"): _INFER_API,
    ("families", "' must be a tile, got"): _INFER_API,
    ("families", "' must be index, got"): _INFER_API,
    ("families", "like operand 'input'"): _INFER_API,
    ("families", ") and 'src1' ("): _INFER_API,
    ("tile", "valid extent #"): _INFER_API,
}


def _allow_listed(message: Message) -> bool:
    return any(module == message.module and part in message.fragments for module, part in UNREACHABLE)


@dataclass(frozen=True)
class Message:
    module: str
    line: int
    fragments: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {' ... '.join(repr(f) for f in self.fragments)}"


# --------------------------------------------------------------------------- messages


def _module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    constants: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            constants[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            constants[node.target.id] = node.value
    return constants


def _parts(node: ast.expr | None, constants: dict[str, ast.expr]) -> list[str | None]:
    """The message as literal strings and holes (None) for whatever is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.Constant) else None for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left, constants) + _parts(node.right, constants)
    if isinstance(node, ast.Name) and isinstance(constants.get(node.id), ast.Constant | ast.JoinedStr | ast.BinOp):
        return _parts(constants[node.id], constants)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        parts: list[str | None] = []
        for piece in _parts(node.func.value, constants):
            if piece is None:
                parts.append(None)
                continue
            for literal, field, _, _ in string.Formatter().parse(piece):
                parts.append(literal)
                if field is not None:
                    parts.append(None)
        return parts
    return [None]


def _fragments(parts: list[str | None]) -> tuple[str, ...]:
    """Consecutive literals joined, split at holes and line breaks, stripped of blanks."""
    text = "".join("\0" if p is None else p for p in parts)
    return tuple(f.strip() for f in re.split(r"[\0\n]", text) if f.strip())


def _exception_classes(trees: dict[str, ast.Module]) -> tuple[set[str], set[str]]:
    """(VerifyException and its subclasses in the dialects, the dialects' other exception classes)."""
    verify = {"VerifyException"}
    other: set[str] = set()
    bases = {
        node.name: {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in verify and parents & verify:
                verify.add(name)
                changed = True
            elif name not in verify | other and parents & ({"Exception", "ValueError"} | other):
                other.add(name)
                changed = True
    return verify, other


def _message_argument(call: ast.Call) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg in ("message", "msg"):
            return keyword.value
    return call.args[-1] if call.args else None


@cache
def verifier_messages() -> tuple[list[Message], list[str]]:
    """(every message with a literal part, the sites whose message is entirely computed)."""
    trees = {
        p.relative_to(DIALECTS).with_suffix("").as_posix(): ast.parse(p.read_text(), str(p))
        for p in sorted(DIALECTS.rglob("*.py"))
    }
    verify_classes, other_classes = _exception_classes(trees)
    messages: list[Message] = []
    opaque: list[str] = []
    for module, tree in trees.items():
        constants = _module_constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in verify_classes | other_classes:
                # the message the class builds itself; a pass-through (`message`) has no literal part
                for call in ast.walk(node):
                    if (
                        isinstance(call, ast.Call)
                        and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "__init__"
                        and call.args
                    ):
                        fragments = _fragments(_parts(call.args[0], constants))
                        if fragments:
                            messages.append(Message(module, call.lineno, fragments))
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in verify_classes:
                continue
            fragments = _fragments(_parts(_message_argument(node), constants))
            if fragments:
                messages.append(Message(module, node.lineno, fragments))
            else:
                opaque.append(f"{module}:{node.lineno}: {ast.unparse(node)[:120]}")
    return messages, opaque


# --------------------------------------------------------------------------- FileCheck tests


@dataclass(frozen=True)
class FileCheckTest:
    path: Path
    run_lines: tuple[str, ...]
    input_lines: tuple[str, ...]
    check_lines: tuple[str, ...]

    @property
    def reports_diagnostics(self) -> bool:
        return any(
            "--verify-diagnostics" in r or "PYPTO_VERIFY_DIAG" in r or r.startswith("not ") or "2>&1" in r
            for r in self.run_lines
        )

    @property
    def prints_ir(self) -> bool:
        """Parses the file with an opt tool and checks what it prints (not only its diagnostics)."""
        return any(
            ("ROUNDTRIP" in r or re.match(r"(pypto|xdsl)-opt\b", r))
            and "--verify-diagnostics" not in r
            and "VERIFY_DIAG" not in r
            and not r.startswith("not ")
            for r in self.run_lines
        )


_CHECK_SUFFIXES = r"(?:-NEXT|-SAME|-DAG|-LABEL|-EMPTY|-COUNT-\d+)?"


def _parse_filecheck_test(path: Path) -> FileCheckTest:
    lines = path.read_text().splitlines()
    run_lines = tuple(
        m.group(1).strip() for line in lines if (m := re.match(r"\s*(?://|#)\s*RUN:(.*)", line))
    )
    prefixes = {"CHECK"}
    for run in run_lines:
        for m in re.finditer(r"--check-prefix(?:es)?[= ]([\w,-]+)", run):
            prefixes.update(m.group(1).split(","))
    directive = re.compile(
        r"\s*(?://|#)\s*(?:" + "|".join(map(re.escape, sorted(prefixes))) + ")" + _CHECK_SUFFIXES + r":(.*)"
    )
    checks = tuple(m.group(1) for line in lines if (m := directive.match(line)))
    inputs = tuple(line for line in lines if not re.match(r"\s*(//|#)", line))
    return FileCheckTest(path, run_lines, inputs, checks)


@cache
def filecheck_tests() -> tuple[FileCheckTest, ...]:
    paths = sorted(p for p in FILECHECK.rglob("*") if p.suffix in (".mlir", ".test") and "Output" not in p.parts)
    return tuple(_parse_filecheck_test(p) for p in paths)


def _in_order(fragments: tuple[str, ...], line: str) -> bool:
    at = 0
    for fragment in fragments:
        at = line.find(fragment, at)
        if at < 0:
            return False
        at += len(fragment)
    return True


def uncovered_messages() -> list[Message]:
    checks = [c for t in filecheck_tests() if t.reports_diagnostics for c in t.check_lines]
    return [
        m
        for m in verifier_messages()[0]
        if not _allow_listed(m) and not any(_in_order(m.fragments, c) for c in checks)
    ]


def registered_op_names() -> list[str]:
    """Every op of the dialects pypto-opt registers as the project's own (the universe's)."""
    return sorted(op.name for factory in PYPTO_UNIVERSE.all_dialects.values() for op in factory().operations)


def _mentions(name: str, lines: tuple[str, ...]) -> bool:
    pattern = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?![\w.])")
    return any(pattern.search(line) for line in lines)


def ops_without_round_trip() -> list[str]:
    printing = [t for t in filecheck_tests() if t.path.suffix == ".mlir" and t.prints_ir]
    return [
        name
        for name in registered_op_names()
        if not any(_mentions(name, t.input_lines) and _mentions(name, t.check_lines) for t in printing)
    ]


# --------------------------------------------------------------------------- tests


def test_finds_the_verifier_messages():
    messages, _ = verifier_messages()
    assert len(messages) > 250
    assert any(m.module == "scopes" and "split_aiv" in " ".join(m.fragments) for m in messages)


def test_every_verifier_message_has_a_literal_part():
    _, opaque = verifier_messages()
    assert not opaque, "verifier messages with no literal text to check for:\n" + "\n".join(opaque)


def test_every_verifier_message_is_checked_by_a_filecheck_test():
    missing = uncovered_messages()
    assert not missing, (
        f"{len(missing)} verifier messages are checked by no FileCheck test (add a `// -----` case "
        "to a tests/filecheck/**/*invalid*.mlir file):\n" + "\n".join(map(str, missing))
    )


def test_every_op_round_trips_in_a_filecheck_test():
    missing = ops_without_round_trip()
    assert not missing, (
        f"{len(missing)} ops are parsed and printed by no FileCheck test:\n" + "\n".join(missing)
    )


def test_allow_list_entries_are_still_messages():
    messages = verifier_messages()[0]
    stale = [
        key
        for key in UNREACHABLE
        if not any(m.module == key[0] and key[1] in m.fragments for m in messages)
    ]
    assert not stale, f"allow-listed messages that no longer exist: {stale}"


def test_in_order_matching():
    assert _in_order(("a ", "b"), "x a y b")
    assert not _in_order(("b", "a"), "a b")
    assert _fragments(["op ", None, " has ", None, ""]) == ("op", "has")
