"""Frontend constructs around task scopes: `ScopeMixin` (`with pl.at(...)`, `pl.spmd`,
`pl.cluster` and the `pypto.incore_scope` they build), and beside it:

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
from typing import TYPE_CHECKING, Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, UnitAttr
from xdsl.ir import Block, Region, SSAValue

from pypto_xdsl.analysis import deferred_wait
from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TaskIdType, TensorType
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    SYNC_START_ATTR,
    CallOp,
    IncoreScopeOp,
    ManualScopeOp,
    SubmitOp,
    YieldOp,
)
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.names import assigned_names
from pypto_xdsl.frontend.values import Const, ScopeOption, Undefined, Value, describe
from pypto_xdsl.language import types as T
from pypto_xdsl.language.distributed import system as pld_system
from pypto_xdsl.language.ops import OpStub

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder


def _split_name(mode: A.SplitMode) -> str:
    return "pl.SplitMode." + mode.name


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
    assigned = assigned_names(inner)
    yield_targets = assigned_names([yield_stmt])
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


class ScopeMixin:
    """The `with` statements of `FunctionBuilder`: `pl.at`, `pl.spmd`, `pl.cluster` and the
    InCore scope they (and `pl.split_aiv` outside a scope) build."""

    def stmt_With(self, node: ast.With) -> None:
        if len(node.items) != 1:
            raise self.error(node, "'with' takes a single pl.at(...)")
        item = node.items[0]
        call = item.context_expr
        callee = self.expr(call.func) if isinstance(call, ast.Call) else None
        if isinstance(callee, OpStub) and callee.op == "spmd":
            assert isinstance(call, ast.Call)
            if predicate_keyword(call) is not None:
                return predicated_launch(self, node, call)
            tid = item.optional_vars
            if tid is not None and not isinstance(tid, ast.Name):
                raise self.error(tid, "'as' must name a single variable (the task id)")
            return self.spmd(node, call, node.body, tid_name=tid.id if tid is not None else None)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "manual_scope":
            assert isinstance(call, ast.Call)
            return manual_scope(self, node, call)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "cluster":
            assert isinstance(call, ast.Call)
            return self.cluster(node, call)
        if not (isinstance(callee, OpStub) and callee.op == "at"):
            raise self.error(
                call,
                "only 'with pl.at(...)', 'with pl.spmd(...)', 'with pl.manual_scope()' and "
                "'with pl.cluster()' are supported",
            )
        assert isinstance(call, ast.Call)
        kwargs: dict[str, Any] = {}
        if call.args:
            if len(call.args) > 1:
                raise self.error(call.args[1], "pl.at takes the level as its only positional argument")
            kwargs["level"] = (self.expr(call.args[0]), call.args[0])
        for kw in call.keywords:
            if kw.arg is None:
                raise self.error(kw, "'**' arguments are not supported")
            kwargs[kw.arg] = (self.expr(kw.value), kw.value)
        level = kwargs.pop("level", (T.Level.CORE_GROUP, call))
        if level[0] != T.Level.CORE_GROUP:
            raise self.error(level[1], f"only level=pl.Level.CORE_GROUP is supported, got {describe(level[0])}")
        name_hint = None
        if "name_hint" in kwargs:
            v, n = kwargs.pop("name_hint")
            name_hint = self.scope_name(v, n)
        deps: list[SSAValue] = []
        if "deps" in kwargs:
            deps = self.task_ids(*kwargs.pop("deps"))
        dumps: list[SSAValue] = []
        if "dumps" in kwargs:
            v, n = kwargs.pop("dumps")
            if not isinstance(v, list | tuple) or not all(isinstance(d, SSAValue) for d in v):
                raise self.error(n, "dumps must be a list of values")
            dumps = list(v)
        split = None
        split_given = "split" in kwargs
        if "split" in kwargs:
            v, n = kwargs.pop("split")
            if not isinstance(v, T.SplitMode):
                raise self.error(n, f"split must be a pl.SplitMode, got {describe(v)}")
            split = v.value if v != T.SplitMode.NONE else None
        slot_num = None
        if "optimizations" in kwargs:  # PyPTO: optimizations=[pl.split(mode), pl.cross_core_slot(slot_num=N)]
            v, n = kwargs.pop("optimizations")
            opt_split, opt_given, slot_num = self.scope_optimizations(v, n, "split" in {kw.arg for kw in call.keywords})
            if opt_given:
                split, split_given = opt_split, True
        no_dep: list[SSAValue] = []
        if "no_dep_args" in kwargs:  # tensors the launch's dependency tracking ignores
            v, n = kwargs.pop("no_dep_args")
            if not isinstance(v, list | tuple) or not all(
                isinstance(d, SSAValue) and isinstance(d.type, TensorType) for d in v
            ):
                raise self.error(n, f"no_dep_args must be a list of tensors, got {describe(v)}")
            no_dep = list(v)
        early = False
        if "allow_early_resolve" in kwargs:
            v, n = kwargs.pop("allow_early_resolve")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(n, f"allow_early_resolve must be True or False, got {describe(v)}")
            early = v.value
        if kwargs:
            key = next(iter(kwargs))
            raise self.error(kwargs[key][1], f"pl.at does not support '{key}' yet")
        if self.decl.kind in A.INCORE_KINDS:
            raise self.error(
                node, f"pl.at inside {self.decl.kind.value} function '{self.decl.name}': it already runs on a core"
            )
        if self.in_scope:
            check_nested_launch(self, node, node.body)
            raise self.error(node, "pl.at scopes cannot be nested")
        tid_name = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error(item.optional_vars, "'as' must name a single variable (the task id)")
            tid_name = item.optional_vars.id
        # A scope with no option for its own kernel (slots, dumps, no_dep_args) around one call
        # of an InCore function is that launch, as for pl.spmd; its split goes to the callee.
        lift = not dumps and slot_num is None and not no_dep
        self.scope(
            node, node.body, name_hint=name_hint, deps=deps, dumps=dumps, split=split,
            slot_num=slot_num, tid_name=tid_name, split_given=split_given, no_dep=no_dep,
            allow_early_resolve=early, lift_kernel_call=lift,
        )

    def scope_optimizations(
        self, value: Value, node: ast.expr, split_given: bool, *, slots: bool = True
    ) -> tuple[A.SplitMode | None, bool, int | None]:
        """The `optimizations=[...]` of a `pl.at` (or, without slot counts, a `pl.spmd`): its
        split mode (None for pl.SplitMode.NONE), whether one was given, its slot count."""
        allowed = "pl.split(...) / pl.cross_core_slot(...)" if slots else "pl.split(...)"
        if not isinstance(value, list | tuple) or not all(isinstance(o, ScopeOption) for o in value):
            raise self.error(node, f"optimizations must be a list of {allowed}")
        split: A.SplitMode | None = None
        slot_num: int | None = None
        elements = node.elts if isinstance(node, ast.List | ast.Tuple) else [node] * len(value)
        for opt, opt_node in zip(value, elements):
            if not slots and (opt.split is None or opt.slot_num is not None):
                raise self.error(opt_node, f"optimizations of pl.spmd must be a list of {allowed}")
            if opt.split is not None:
                if split_given:
                    raise self.error(opt_node, "the split mode of the scope is given twice")
                split_given = True
                split = opt.split.value if opt.split != T.SplitMode.NONE else None
            if opt.slot_num is not None:
                if slot_num is not None and slot_num != opt.slot_num:
                    raise self.error(opt_node, f"conflicting slot counts {slot_num} and {opt.slot_num}")
                slot_num = opt.slot_num
        return split, split_given, slot_num

    def scope_name(self, value: Value, node: ast.AST) -> str:
        """The `name_hint` of a `pl.at` / `pl.spmd` scope: the outlined function's name."""
        if not isinstance(value, str) or not value.isidentifier():
            raise self.error(node, f"name_hint must be an identifier string, got {describe(value)}")
        return value

    def task_ids(self, value: Value, node: ast.AST) -> list[SSAValue]:
        """The `deps=[...]` of a `pl.at`, `pl.spmd`, `pl.submit` or `pl.system.task_dummy`: task
        ids, and arrays of them (each element, read with `task_ids.get`)."""
        from xdsl.dialects.arith import ConstantOp
        from xdsl.dialects.builtin import IndexType, IntegerAttr

        from pypto_xdsl.dialects.task_arrays import TaskIdArrayType, TaskIdsGetOp

        if not isinstance(value, list | tuple) or not all(
            isinstance(d, SSAValue) and isinstance(d.type, TaskIdType | TaskIdArrayType) for d in value
        ):
            raise self.error(node, f"deps must be a list of task ids (or arrays of them), got {describe(value)}")
        deps: list[SSAValue] = []
        for d in value:
            if isinstance(d.type, TaskIdArrayType):
                for i in range(d.type.extent.data):
                    index = self.build_op(node, lambda i=i: ConstantOp(IntegerAttr(i, IndexType())))
                    deps.append(self.build_op(node, lambda index=index, d=d: TaskIdsGetOp(d, index)))
            else:
                deps.append(d)
        return deps

    def cluster(self, node: ast.With, call: ast.Call) -> None:
        """`with pl.cluster(name_hint=...):` around launches: PyPTO's hint that the cube and
        vector kernels inside share one AIC+AIV cluster (its OutlineClusterScopes makes them a
        group function). The grouping does not change what the launches compute, and here
        `expand-mixed-kernel` forms the groups a mixed kernel needs, so the body is
        translated in place, as if the `with` were not there."""
        from pypto_xdsl.frontend.ops import Args

        if node.items[0].optional_vars is not None:
            raise self.error(node.items[0].optional_vars, "pl.cluster() gives no value to bind with 'as'")
        a = Args(self, call, "pl.cluster", ["name_hint"], 0)
        if "name_hint" in a:
            self.scope_name(a.value("name_hint"), a.node_of("name_hint"))  # checks it is a name
        if self.decl.kind in A.INCORE_KINDS or self.in_scope:
            raise self.error(node, "pl.cluster groups launches: it belongs in an orchestration function, outside pl.at/pl.spmd")
        self.stmts(node.body)

    def spmd(
        self,
        node: ast.stmt,
        call: ast.Call,
        stmts: Sequence[ast.stmt],
        *,
        block_index: str | None = None,
        tid_name: str | None = None,
    ) -> None:
        """`for i in pl.spmd(N, name_hint=...)` / `with pl.spmd(N, ...) [as tid]:` -> an InCore
        scope launched on N cores (`pypto.block_dim = N`); `i` is `pl.tile.get_block_idx()`."""
        from pypto_xdsl.frontend.ops import Args

        a = Args(self, call, "pl.spmd",
                 ["core_num", "name_hint", "deps", "allow_early_resolve", "sync_start", "optimizations"], 1)
        core_num = a.value("core_num")
        block_dim: int | None = None
        cores: SSAValue | None = None
        if isinstance(core_num, Const) and type(core_num.value) is int and core_num.value >= 1:
            block_dim = core_num.value
        elif isinstance(core_num, SSAValue) and isinstance(core_num.type, IndexType):
            cores = core_num  # read at run time (e.g. from pl.tensor.dim)
        else:
            raise self.error(
                a.node_of("core_num"),
                f"the core count of pl.spmd must be a positive integer constant or an index value, "
                f"got {describe(core_num)}",
            )
        name_hint = self.scope_name(a.value("name_hint"), a.node_of("name_hint")) if "name_hint" in a else None
        deps = self.task_ids(a.value("deps"), a.node_of("deps")) if "deps" in a else []
        early = False
        if "allow_early_resolve" in a:
            v = a.value("allow_early_resolve")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(a.node_of("allow_early_resolve"), f"allow_early_resolve must be True or False, got {describe(v)}")
            early = v.value
        sync_start = False
        if "sync_start" in a:  # PyPTO: every block starts at once (kept on the launch: SYNC_START_ATTR)
            v = a.value("sync_start")
            if not isinstance(v, Const) or not isinstance(v.value, bool):
                raise self.error(a.node_of("sync_start"), f"sync_start must be True or False, got {describe(v)}")
            sync_start = v.value
        split, split_given = None, False
        if "optimizations" in a:  # PyPTO: optimizations=[pl.split(mode)], the split of the launched kernel
            split, split_given, _ = self.scope_optimizations(
                a.value("optimizations"), a.node_of("optimizations"), False, slots=False)
        if self.decl.kind in A.INCORE_KINDS:
            raise self.error(
                node, f"pl.spmd inside {self.decl.kind.value} function '{self.decl.name}': it already runs on a core"
            )
        if self.in_scope:
            check_nested_launch(self, node, stmts)
            raise self.error(node, "pl.spmd launches an InCore scope and cannot be inside pl.at or another pl.spmd")
        self.scope(
            node, stmts, name_hint=name_hint, deps=deps, tid_name=tid_name,
            block_dim=block_dim, cores=cores, block_index=block_index, allow_early_resolve=early,
            sync_start=sync_start, split=split, split_given=split_given,
        )

    def scope(
        self,
        node: ast.stmt,
        stmts: Sequence[ast.stmt],
        *,
        name_hint: str | None = None,
        deps: Sequence[SSAValue] = (),
        dumps: Sequence[SSAValue] = (),
        split: A.SplitMode | None = None,
        slot_num: int | None = None,
        tid_name: str | None = None,
        split_given: bool = False,
        block_dim: int | None = None,
        block_index: str | None = None,
        cores: SSAValue | None = None,
        no_dep: Sequence[SSAValue] = (),
        allow_early_resolve: bool = False,
        lift_kernel_call: bool = False,
        sync_start: bool = False,
    ) -> None:
        """A `pypto.incore_scope` holding `stmts` (the body of a `pl.at`, or a synthesised scope);
        with `block_dim` (or `cores`, a count read at run time), launched on that many cores,
        `block_index` naming the core's index. A launch on cores, or with `lift_kernel_call`,
        whose body is one call of an InCore function is that call (`_lift_kernel_launch`)."""
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.block = Block()
        if block_index is not None:
            index = tile_ops.GetBlockIdxOp()
            self.block.add_op(index)
            self._hint(index.result, block_index)
            self.env[block_index] = index.result
        self.in_scope = True
        self.scope_split = split.value if split is not None else "none" if split_given else None
        self.region_writes = set()
        try:
            self.stmts(stmts)
        finally:
            self.in_scope = False
            self.scope_split = None
        region_writes, self.region_writes = self.region_writes, set()
        inner_env, body = self.env, self.block
        outputs: list[str] = []
        for n in assigned_names(stmts):
            v = inner_env.get(n)
            if v is None or isinstance(v, Undefined) or (v is outer_env.get(n) and n not in region_writes):
                continue
            if n in self.last_load and self._live_after(n, node):
                outputs.append(n)
        values = []
        for n in outputs:
            v = inner_env[n]
            if isinstance(v, Const):
                v = self.materialize(v, None, node)
            if not isinstance(v, SSAValue):
                raise self.error(node, f"'{n}' holds {describe(v)} and cannot leave the pl.at scope")
            values.append(v)
        body.add_op(YieldOp(*values))
        self.env, self.block = outer_env, outer_block
        if block_dim is not None or cores is not None or lift_kernel_call:
            launch = self._lift_kernel_launch(
                body, block_dim=block_dim, cores=cores, deps=deps, with_task_id=tid_name is not None,
                allow_early_resolve=allow_early_resolve, sync_start=sync_start,
                split=(split or A.SplitMode.NONE) if split_given else None, node=node,
            )
            if launch is not None:
                results, task_id = launch
                self._bind_scope_results(node, stmts, inner_env, outputs, results, block_index)
                if tid_name is not None:
                    assert task_id is not None
                    self._hint(task_id, tid_name)
                    self.env[tid_name] = task_id
                return
        op = IncoreScopeOp(
            [v.type for v in values],
            Region(body),
            name_hint=name_hint,
            deps=deps,
            dumps=dumps,
            with_task_id=tid_name is not None,
            split=split,
            slot_num=slot_num,
            no_dep=no_dep,
            cores=cores,
            allow_early_resolve=allow_early_resolve,
        )
        if block_dim is not None:
            op.attributes[BLOCK_DIM_ATTR] = IntegerAttr(block_dim, 64)
        if sync_start:
            op.attributes[SYNC_START_ATTR] = UnitAttr()
        self.block.add_op(op)
        self._bind_scope_results(node, stmts, inner_env, outputs, list(op.outputs), block_index)
        if tid_name is not None:
            assert op.task_id is not None
            self._hint(op.task_id, tid_name)
            self.env[tid_name] = op.task_id

    def launch_split(self, callee: str, split: A.SplitMode, node: ast.stmt) -> None:
        """A launch of `callee` asking for `split`: stamped on the callee once the module is
        built (`ModuleBuilder.launch_splits`). One kernel has one split mode."""
        seen = self.mb.launch_splits.get(callee)
        if seen is not None and seen[0] != split:
            raise self.error(
                node, f"'{callee}' is launched here with pl.split({_split_name(split)}) but with "
                f"pl.split({_split_name(seen[0])}) at line {seen[1].lineno}; a kernel has one split mode, "
                "so launch two functions",
            )
        self.mb.launch_splits.setdefault(callee, (split, node))

    def _bind_scope_results(
        self,
        node: ast.stmt,
        stmts: Sequence[ast.stmt],
        inner_env: dict[str, Value],
        outputs: Sequence[str],
        results: Sequence[SSAValue],
        block_index: str | None,
    ) -> None:
        """After a scope (or the launch lifted from it): its live names read its results;
        the names only its body defined are undefined."""
        if block_index is not None:
            self.env[block_index] = Undefined(
                f"'{block_index}' is the block index of the pl.spmd at line {node.lineno}"
            )
        for n, res in zip(outputs, results):
            self._hint(res, n)
            self.env[n] = res
        for n in assigned_names(stmts):
            if n not in outputs and (n not in self.env or isinstance(self.env[n], Undefined)):
                inner = inner_env.get(n)
                self.env[n] = inner if isinstance(inner, Undefined) else Undefined(
                    f"'{n}' is only defined inside the pl.at scope at line {node.lineno}"
                )

    def _lift_kernel_launch(
        self,
        body: Block,
        *,
        block_dim: int | None,
        cores: SSAValue | None,
        deps: Sequence[SSAValue],
        with_task_id: bool,
        allow_early_resolve: bool,
        sync_start: bool = False,
        split: A.SplitMode | None = None,
        node: ast.stmt | None = None,
    ) -> tuple[list[SSAValue], SSAValue | None] | None:
        """A `pl.spmd` (or plain `pl.at`) whose body is one call of an InCore (AIC, AIV) function
        launches that kernel itself, as PyPTO dispatches such a scope: the call (a `pypto.submit`
        when the scope has a task id, deps or early resolve) carries the core count, and no scope
        is left to outline around it (a kernel calling a kernel). Returns the launch's results
        in the order the body yields them, and its task id; None when the body is anything
        else (it stays a scope). The scope's `split` (given, NONE included) becomes the
        callee's (`launch_split`)."""
        ops = list(body.ops)
        if ops and isinstance(ops[0], tile_ops.GetBlockIdxOp) and not ops[0].result.uses:
            ops = ops[1:]  # `for i in pl.spmd(n)` with `i` unused
        if len(ops) < 2 or not isinstance(ops[-2], CallOp) or not isinstance(ops[-1], YieldOp):
            return None
        call, yield_op = ops[-2:]
        # The scalar conversions of the call's arguments (an i64 passed for an index
        # parameter) run in the orchestration before the launch.
        scalars = ops[:-2]
        if not all(op.dialect_name() == "arith" and not op.regions for op in scalars):
            return None
        decl = self.mb.source.functions.get(call.callee.string_value())
        if decl is None or decl.kind not in A.INCORE_KINDS:
            return None
        if any(v.owner is not call for v in yield_op.operands):
            return None
        if call.cores or BLOCK_DIM_ATTR in call.attributes or call.dumps:
            return None
        if split is not None:
            assert node is not None
            self.launch_split(decl.name, split, node)
        yielded = [call.results.index(v) for v in yield_op.operands]  # type: ignore[arg-type]
        body.erase_op(yield_op)
        body.detach_op(call)
        for op in scalars:
            body.detach_op(op)
            self.block.add_op(op)
        task_id = None
        if with_task_id or deps or allow_early_resolve:
            launch: CallOp | SubmitOp = SubmitOp(
                call.callee, call.args, call.result_types, deps, cores=cores,
                allow_early_resolve=allow_early_resolve,
            )
            for old, new in zip(call.results, launch.outputs):
                new.name_hint = old.name_hint
            results = list(launch.outputs)
            task_id = launch.task_id
            call.erase()
        else:
            launch = call if cores is None else CallOp(call.callee, call.args, call.result_types, cores=cores)
            if launch is not call:
                for old, new in zip(call.results, launch.results):
                    new.name_hint = old.name_hint
                call.erase()
            results = list(launch.results)
        if block_dim is not None:
            launch.attributes[BLOCK_DIM_ATTR] = IntegerAttr(block_dim, 64)
        if sync_start:
            launch.attributes[SYNC_START_ATTR] = UnitAttr()
        self.block.add_op(launch)
        return [results[i] for i in yielded], task_id
