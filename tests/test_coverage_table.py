"""docs/dialect.md's coverage table of PyPTO's op catalogue stays true: every dialect op
appears in it, and its dialect, interpreter and frontend columns agree with the code in
both directions (a ✓ is backed by the op, its implementation, its `pl` handler; a ✗ is not
hiding one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects.pypto import Pypto
from pypto_xdsl.frontend.ops import HANDLERS
from pypto_xdsl.interpreter.api import make_interpreter

DOC = Path(__file__).resolve().parent.parent / "docs" / "dialect.md"


def _section() -> str:
    text = DOC.read_text()
    start = text.index("## Coverage of PyPTO's op catalogue")
    end = text.index("\n## ", start + 10)
    return text[start:end]


def _tables() -> list[tuple[list[str], list[list[str]]]]:
    """(header, rows) of every table in the section."""
    tables, current = [], None
    for line in _section().splitlines():
        if not line.startswith("|"):
            current = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if current is None:
            current = (cells, [])
            tables.append(current)
        elif not set(line) <= set("|-"):
            current[1].append(cells)
    return tables


def _catalogue_rows() -> list[dict[str, str]]:
    rows = []
    for header, body in _tables():
        if header[:2] == ["`pl` op", "pypto op"]:
            rows += [dict(zip(header, r)) for r in body]
    return rows


def _usage_rows() -> list[dict[str, str]]:
    rows = []
    for header, body in _tables():
        if header[:2] == ["`pl` op", "uses"]:
            rows += [dict(zip(header, r)) for r in body]
    return rows


def _pypto_ops(cell: str) -> list[str]:
    return re.findall(r"`(pypto\.[a-z_.]+)`", cell)


def _handler_key(spelling: str) -> tuple[str, str]:
    m = re.fullmatch(r"`pl\.(?:(tile|tensor)\.)?(\w+)`", spelling)
    assert m, spelling
    return (m.group(1) or "", m.group(2))


OPS = {op.name for op in Pypto.operations}
_impls = make_interpreter(ModuleOp([]))._impls  # pyright: ignore[reportPrivateUsage]
IMPLEMENTED = {t.name for t in (*_impls._impl_dict, *_impls._callable_impl_dict)}  # pyright: ignore


def test_the_section_has_the_catalogue_and_usage_tables():
    assert len(_catalogue_rows()) > 300  # tile_ops.py, tensor_ops.py and unified_ops.py
    assert len(_usage_rows()) > 40  # examples/ and tests/st/


def test_every_dialect_op_appears_in_the_table():
    listed = set()
    for header, body in _tables():
        for r in body:
            for cell in r:
                listed |= set(_pypto_ops(cell))
    missing = {op for op in OPS if op.startswith(("pypto.tensor.", "pypto.tile."))} - listed
    assert not missing, f"dialect ops missing from the coverage table: {sorted(missing)}"


@pytest.mark.parametrize("column", ["dialect", "interpreter"])
def test_dialect_and_interpreter_columns_agree_with_the_code(column):
    wrong = []
    for r in _catalogue_rows():
        ops = _pypto_ops(r["pypto op"])
        if r[column] == "n/a" or not ops:
            continue
        have = all(o in OPS for o in ops) and (column == "dialect" or all(o in IMPLEMENTED for o in ops))
        if r[column].startswith("✓") != have:
            wrong.append((r["`pl` op"], r[column], ops))
    assert not wrong, f"{column} column out of date: {wrong}"


def test_frontend_column_agrees_with_the_handlers():
    wrong = []
    for r in _catalogue_rows() + _usage_rows():
        if r["frontend"] == "n/a":
            continue
        if r["frontend"].startswith("✓") != (_handler_key(r["`pl` op"]) in HANDLERS):
            wrong.append((r["`pl` op"], r["frontend"]))
    assert not wrong, f"frontend column out of date: {wrong}"


def test_every_op_the_examples_use_is_in_the_first_three_layers():
    (examples,) = [b for h, b in _tables() if h[:2] == ["`pl` op", "uses"]][:1]
    gaps = [r[0] for r in examples if not all(c.startswith("✓") or c == "n/a" for c in r[2:5])]
    assert not gaps, gaps


def test_ascendc_column_agrees_with_the_lowering():
    """A tile row is ✓ in the Ascend C column exactly when the kernel lowering emits its op."""
    from pypto_xdsl.transforms.ascendc_kernel_lowering import LOWERED_TILE_OPS

    lowered = {op.name for op in LOWERED_TILE_OPS}
    wrong = []
    for r in _catalogue_rows():
        ops = [o for o in _pypto_ops(r["pypto op"]) if o.startswith("pypto.tile.")]
        if r["Ascend C"] == "n/a" or not ops or not r["`pl` op"].startswith("`pl.tile."):
            continue
        if r["Ascend C"].startswith("✓") != (ops[0] in lowered):
            wrong.append((r["`pl` op"], r["Ascend C"], ops[0]))
    assert not wrong, f"Ascend C column out of date: {wrong}"
