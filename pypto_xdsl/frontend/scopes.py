"""Frontend constructs around task scopes and loops, beside `FunctionBuilder`'s core:

* `with pl.manual_scope():` -> `pypto.manual_scope` (names it rebinds that are used after it,
  or existed before it, become its results);
* `for a, b in pl.while_(init_values=(x, 0)):` whose body starts with `pl.cond(c)` and ends
  with `ra, rb = pl.yield_(...)` -> `scf.while` (the condition runs in the "before" region on
  the carried values, the rest of the body in the "after" region);
* `predicate=` of `pl.spmd`: the launch runs only when the predicate holds, built as
  `if predicate: <the launch>` (so names the launch defines follow the `if` rules);
* the deferred-waiter checks that can only be made on the source: a `pld.system.defer_wait`
  under a predicate or inside another launch scope.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Block, Region, SSAValue

from pypto_xdsl.analysis import deferred_wait
from pypto_xdsl.dialects.program import ManualScopeOp, YieldOp
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.values import Const, Undefined, describe
from pypto_xdsl.language.distributed import system as pld_system
from pypto_xdsl.language.ops import OpStub

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder


def _stub_of(fb: FunctionBuilder, func: ast.expr) -> object:
    try:
        return fb.expr(func) if isinstance(func, ast.Attribute | ast.Name) else None
    except ParserError:
        return None


def contains_defer_wait(fb: FunctionBuilder, stmts: Sequence[ast.stmt]) -> bool:
    """Does the source of `stmts` call `pld.system.defer_wait` (at any depth)?"""
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "defer_wait":
                if _stub_of(fb, node.func) is pld_system.defer_wait:
                    return True
    return False


def check_nested_launch(fb: FunctionBuilder, node: ast.stmt, body: Sequence[ast.stmt]) -> None:
    """A scope inside another launch scope: PyPTO's wording when it holds a deferred waiter
    (the outer launch would own its dispatch predicate and early resolve)."""
    if contains_defer_wait(fb, body):
        raise fb.error(node, deferred_wait.NESTED_LAUNCH)


# --------------------------------------------------------------------------- manual scope


def manual_scope(fb: FunctionBuilder, node: ast.With, call: ast.Call) -> None:
    if call.args or call.keywords:
        raise fb.error(call, "pl.manual_scope() takes no arguments")
    if node.items[0].optional_vars is not None:
        raise fb.error(node.items[0].optional_vars, "pl.manual_scope() gives no value to bind with 'as'")
    outer_env, outer_block = fb.env, fb.block
    fb.env = dict(outer_env)
    fb.block = Block()
    fb.stmts(node.body)
    inner_env, body = fb.env, fb.block
    fb.env, fb.block = outer_env, outer_block
    end = (node.end_lineno or 0, node.end_col_offset or 0)
    # Results: every name bound to a new value inside (also by a write-through statement such
    # as `pl.store(t, [0], out)`) that existed before or is read after the scope.
    outputs: list[str] = []
    for n, v in inner_env.items():
        if v is outer_env.get(n) or isinstance(v, Undefined):
            continue
        predefined = n in outer_env and not isinstance(outer_env[n], Undefined)
        if n in fb.last_load and (predefined or fb.last_load[n] > end):
            outputs.append(n)
    values: list[SSAValue] = []
    for n in outputs:
        v = inner_env[n]
        if isinstance(v, Const):
            fb.block, saved = body, fb.block
            v = fb.materialize(v, None, node)
            fb.block = saved
        if not isinstance(v, SSAValue):
            raise fb.error(node, f"'{n}' holds {describe(v)} and cannot leave the pl.manual_scope")
        values.append(v)
    body.add_op(YieldOp(*values))
    op = ManualScopeOp([v.type for v in values], Region(body))
    fb.block.add_op(op)
    for n, res in zip(outputs, op.outputs):
        fb._hint(res, n)
        fb.env[n] = res
    for n, v in inner_env.items():
        if n not in outputs and n not in fb.env:
            fb.env[n] = Undefined(f"'{n}' is only defined inside the pl.manual_scope at line {node.lineno}")


# --------------------------------------------------------------------------- while_


def while_loop(fb: FunctionBuilder, node: ast.For, call: ast.Call) -> None:
    """`for a, b in pl.while_(init_values=(x, 0)): pl.cond(...); ...; ra, rb = pl.yield_(...)`."""
    if call.args or [kw.arg for kw in call.keywords] != ["init_values"]:
        raise fb.error(call, "pl.while_ takes init_values=(...) only")
    target = node.target
    names_node = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
    if not all(isinstance(t, ast.Name) for t in names_node):
        raise fb.error(target, "the targets of pl.while_ must be names, one per init value")
    explicit = [t.id for t in names_node]  # type: ignore[attr-defined]
    init_node = call.keywords[0].value
    values = fb.expr(init_node)
    values = list(values) if isinstance(values, tuple | list) else [values]
    if len(values) != len(explicit):
        raise fb.error(init_node, f"init_values has {len(values)} values for {len(explicit)} names")
    inits = []
    for v in values:
        if isinstance(v, Const):
            v = fb.materialize(v, None, init_node)
        if not isinstance(v, SSAValue):
            raise fb.error(init_node, f"init_values must hold values, got {describe(v)}")
        inits.append(v)
    body = list(node.body)
    cond_call = None
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call):
        stub = _stub_of(fb, body[0].value.func)
        if isinstance(stub, OpStub) and stub.family == "" and stub.op == "cond":
            cond_call = body[0].value
    if cond_call is None or len(cond_call.args) != 1 or cond_call.keywords:
        raise fb.error(node, "a pl.while_ body must start with pl.cond(<condition>)")
    yield_stmt = fb._yield_stmt(body[-1]) if len(body) > 1 else None
    if yield_stmt is None:
        raise fb.error(node, "a pl.while_ body must end with 'names = pl.yield_(...)'")
    inner = body[1:-1]
    from pypto_xdsl.frontend.builder import _assigned_names

    assigned = _assigned_names(inner)
    yield_targets = _assigned_names([yield_stmt])
    carried = [
        n for n in assigned
        if n not in explicit and n not in yield_targets and n in fb.env
        and not isinstance(fb.env[n], Undefined) and n in fb.last_load
    ]
    inits += [fb._carried_value(n, node) for n in carried]
    names = [*explicit, *carried]
    types = [v.type for v in inits]
    before, after = Block(arg_types=types), Block(arg_types=types)
    for block in (before, after):
        for arg, n in zip(block.args, names):
            fb._hint(arg, n)
    outer_env, outer_block = fb.env, fb.block
    try:
        fb.env = dict(outer_env)
        fb.env.update(zip(names, before.args))
        fb.block = before
        cond = fb.expr(cond_call.args[0])
        if not isinstance(cond, SSAValue) or cond.type != IntegerType(1):
            raise fb.error(cond_call.args[0], f"pl.cond needs a comparison (i1) computed at run time, got {describe(cond)}")
        before.add_op(scf.ConditionOp(cond, *before.args))
        fb.env = dict(outer_env)
        fb.env.update(zip(names, after.args))
        fb.block = after
        fb.stmts(inner)
        ycall = yield_stmt.value
        assert isinstance(ycall, ast.Call)
        vals = [v for v, _ in fb.call_args(ycall.args)]
        if len(vals) != len(explicit):
            raise fb.error(ycall, f"pl.yield_ yields {len(vals)} values for {len(explicit)} loop-carried names")
        nexts = [*zip(explicit, vals), *((n, fb.env[n]) for n in carried)]
        after.add_op(scf.YieldOp(*fb._loop_yields(node, nexts, inits)))
    finally:
        fb.env, fb.block = outer_env, outer_block
    loop = scf.WhileOp(inits, types, Region(before), Region(after))
    fb.block.add_op(loop)
    results = list(loop.results)
    ytarget = yield_stmt.targets[0]
    explicit_results = results[: len(explicit)]
    fb.bind(
        ytarget,
        explicit_results[0] if len(explicit_results) == 1 and isinstance(ytarget, ast.Name) else tuple(explicit_results),
        yield_stmt,
    )
    for n, res in zip(carried, results[len(explicit) :]):
        fb._hint(res, n)
        fb.env[n] = res
    for n in [*explicit, *assigned]:
        if n in yield_targets or n in carried:
            continue
        if n not in fb.env or isinstance(fb.env[n], Undefined) or n in explicit:
            fb.env[n] = Undefined(f"'{n}' is only defined inside the pl.while_ loop at line {node.lineno}")


# --------------------------------------------------------------------------- predicates


def predicate_keyword(call: ast.Call) -> ast.keyword | None:
    return next((kw for kw in call.keywords if kw.arg == "predicate"), None)


def predicated_launch(fb: FunctionBuilder, node: ast.With | ast.For, call: ast.Call) -> None:
    """`pl.spmd(..., predicate=p)`: the launch runs only when `p` holds (`if p: <launch>`)."""
    kw = predicate_keyword(call)
    assert kw is not None
    if isinstance(node, ast.With) and node.items[0].optional_vars is not None:
        raise fb.error(
            kw, "predicate= with 'as <task id>' is not supported: the task id would be undefined "
            "when the predicate is false",
        )
    launch = copy.copy(node)
    new_call = copy.copy(call)
    new_call.keywords = [k for k in call.keywords if k is not kw]
    if isinstance(launch, ast.With):
        item = copy.copy(node.items[0])  # type: ignore[union-attr]
        item.context_expr = new_call
        launch.items = [item]
    else:
        launch.iter = new_call
    if contains_defer_wait(fb, node.body):
        inner_scope = any(
            isinstance(sub, ast.With) for stmt in node.body for sub in ast.walk(stmt)
        )
        raise fb.error(node, deferred_wait.NESTED_LAUNCH if inner_scope else deferred_wait.PREDICATED)
    guarded = ast.If(test=kw.value, body=[launch], orelse=[])
    ast.copy_location(guarded, node)
    guarded.end_lineno, guarded.end_col_offset = node.end_lineno, node.end_col_offset
    fb.stmt_If(guarded)
