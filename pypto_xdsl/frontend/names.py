"""What a statement list does with Python names, read from the AST alone (the names it
assigns, whether it binds a name before reading it), and the storage an SSA value names. The
function builder decides from these which names a loop, a branch or a scope carries."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from pypto_xdsl.dialects.traits import aliased_operand

Pos = tuple[int, int]


def subscript_store_base(node: ast.AST) -> str | None:
    """`t` for an item assignment `t[...] = v` / `t[...] += v` (it rebinds `t`), else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def assigned_names(stmts: Sequence[ast.stmt]) -> list[str]:
    """Names stored anywhere in `stmts` (nested blocks included), in first-store order.

    An item assignment `t[a:b] = v` stores `t` (it rebinds `t` to the assembled tensor); a
    call passing `k` to a scalar pl.Out / pl.InOut parameter stores `k` (see
    `ModuleBuilder._mark_writeback_calls`).
    """
    seen: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
            elif isinstance(node, ast.Call) and hasattr(node, "_pl_writeback"):
                # a call writing scalar pl.Out / pl.InOut arguments back rebinds them
                for name in node._pl_writeback:
                    seen.setdefault(name, None)
            else:
                base = subscript_store_base(node)
                if base is not None:
                    seen.setdefault(base, None)
    return list(seen)


def storage_root(value: SSAValue) -> SSAValue:
    """The value whose storage `value` names, following writes (store, assemble, ...)."""
    while isinstance(value.owner, Operation):
        target = aliased_operand(value.owner)
        if target is None:
            break
        value = target
    return value


def end_of(node: ast.AST) -> Pos:
    return (node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def reads_name(name: str, node: ast.AST) -> bool:
    """Does `node` read `name` (a load, an augmented assignment, an item store `name[i] = v`)?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and not isinstance(sub.ctx, ast.Store):
            return True
        if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and sub.target.id == name:
            return True
    return False


def _stores(name: str, target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Tuple | ast.List):
        return any(_stores(name, e) for e in target.elts)
    return False


def assigned_before_read(name: str, stmts: Sequence[ast.stmt]) -> bool | None:
    """True when every run of `stmts` binds `name` before it reads it (so the value `name`
    held before is dead), False when a run may read it first, None when no run reads it and
    some run may not bind it. Syntactic and conservative: a loop body may run no iteration,
    an `if` binds only when both branches do."""
    for stmt in stmts:
        if isinstance(stmt, ast.With):
            if any(reads_name(name, item) for item in stmt.items):
                return False
            inner = assigned_before_read(name, stmt.body)
        elif isinstance(stmt, ast.If):
            if reads_name(name, stmt.test):
                return False
            then, other = assigned_before_read(name, stmt.body), assigned_before_read(name, stmt.orelse)
            if then is False or other is False:
                return False
            inner = True if then and other else None
        elif isinstance(stmt, ast.For | ast.While):
            head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            if reads_name(name, head) or assigned_before_read(name, [*stmt.body, *stmt.orelse]) is False:
                return False
            inner = None  # the loop may run no iteration
        elif reads_name(name, stmt):
            return False
        elif isinstance(stmt, ast.Assign) and any(_stores(name, t) for t in stmt.targets):
            return True
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and _stores(name, stmt.target):
            return True
        else:
            inner = None
        if inner is not None:
            return inner
    return None
