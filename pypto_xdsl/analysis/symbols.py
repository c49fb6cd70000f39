"""Cached symbol lookup: one dictionary per symbol table, rebuilt only when stale.

xDSL's `SymbolTable.lookup_symbol` scans the module for every lookup, which makes verifying
N calls O(N * functions). Verifiers and passes use `lookup_symbol` here instead.
"""

from __future__ import annotations

import weakref

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable

_tables: weakref.WeakKeyDictionary[Operation, dict[str, Operation]] = weakref.WeakKeyDictionary()


def nearest_symbol_table(op: Operation) -> Operation | None:
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    return anchor


def _build(table_op: Operation) -> dict[str, Operation]:
    symbols: dict[str, Operation] = {}
    for o in table_op.regions[0].block.ops:
        if (iface := o.get_trait(SymbolOpInterface)) is not None:
            if (name := iface.get_sym_attr_name(o)) is not None:
                symbols.setdefault(name.data, o)
    _tables[table_op] = symbols
    return symbols


def _symbol_name(op: Operation) -> str | None:
    sym = op.get_attr_or_prop("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """The symbol `name` in the symbol table enclosing `op` (flat references only)."""
    if isinstance(name, SymbolRefAttr):
        name = name.root_reference
    if isinstance(name, StringAttr):
        name = name.data
    table_op = nearest_symbol_table(op)
    if table_op is None:
        return None
    symbols = _tables.get(table_op)
    if symbols is not None:
        found = symbols.get(name)
        if found is not None and found.parent_op() is table_op and _symbol_name(found) == name:
            return found
    found = _build(table_op).get(name)
    return found


def invalidate(table_op: Operation) -> None:
    _tables.pop(table_op, None)
