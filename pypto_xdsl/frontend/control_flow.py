"""Python control flow in a `pl.function` -> scf: `for` over `pl.range` / `pl.parallel` /
`pl.pipeline` (`scf.for`), `while` (`scf.while`), `if` (`scf.if`), and `pl.split_aiv` regions.
Which names each construct carries is described in builder.py's docstring."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Block, Region, SSAValue

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.dialects.program import SplitAivOp
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.names import (
    assigned_before_read,
    assigned_names,
    end_of,
    reads_name,
    storage_root,
)
from pypto_xdsl.frontend.scopes import predicate_keyword, predicated_launch, while_loop
from pypto_xdsl.frontend.values import Const, Undefined, Value, describe
from pypto_xdsl.language import types as T
from pypto_xdsl.language.ops import OpStub

LOOP_KINDS = ("range", "parallel", "pipeline", "unroll")
LOOP_KIND_ATTR = "pypto.loop_kind"
"""Discardable attribute of an `scf.for` from `pl.parallel` / `pl.pipeline` (PyPTO's ForKind)."""
PIPELINE_STAGE_ATTR = "pypto.pipeline_stage"
"""Discardable attribute of an `scf.for` from `pl.pipeline(n, stage=S)`: PyPTO's pipelining depth
(a hint; the loop runs sequentially here)."""


class ControlFlowMixin:
    """The loops, branches and `pl.split_aiv` regions of `FunctionBuilder`."""

    _WRITES = {"store": ("output_tensor", 2), "assemble": ("target", 0), "write": ("dst", 0)}

    def _escaping_writes(self, node: ast.For, assigned: Sequence[str], excluded: set[str]) -> dict[str, str]:
        """Names first assigned inside the loop and read after it, each assigned a write into
        the storage of a tensor from before the loop (`new = pl.store(t, offs, out)`): name ->
        that tensor's name. PyPTO carries a name that escapes its loop, starting from an
        out/inout tensor of its type; when the name is a write into a known storage, that
        storage is the start (a loop that runs no iteration leaves the tensor as it was), so
        the name is carried from it, and names the storage after the loop."""
        found: dict[str, str] = {}
        after = end_of(node)
        for stmt in ast.walk(node):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            n = stmt.targets[0].id
            if n in excluded or n not in assigned or n in found or self.decl.last_load.get(n, (0, 0)) <= after:
                continue
            if n in self.env and not isinstance(self.env[n], Undefined):
                continue
            call = stmt.value
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                continue
            write = self._WRITES.get(call.func.attr)
            if write is None:
                continue
            keyword, position = write
            dest = next((k.value for k in call.keywords if k.arg == keyword), None)
            if dest is None and len(call.args) > position:
                dest = call.args[position]
            if not isinstance(dest, ast.Name) or dest.id in assigned:
                continue
            value = self.env.get(dest.id)
            if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
                found[n] = dest.id
        return found

    def _carried_value(self, name: str, node: ast.AST) -> SSAValue:
        value = self.env[name]
        if isinstance(value, Const):
            value = self.materialize(value, None, node)
        if not isinstance(value, SSAValue):
            raise self.error(node, f"'{name}' holds {describe(value)} and cannot change inside control flow")
        return value

    def _yield_stmt(self, stmt: ast.stmt) -> ast.Assign | None:
        """`targets = pl.yield_(values)` (PyPTO's explicit loop/branch result), or None."""
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and len(stmt.targets) == 1:
            func = stmt.value.func
            try:
                callee = self.expr(func) if isinstance(func, ast.Attribute | ast.Name) else None
            except ParserError:
                return None
            if isinstance(callee, OpStub) and callee.op == "yield_":
                return stmt
        return None

    def _loop_yields(self, node: ast.AST, values: list[tuple[str, Value]], inits: list[SSAValue]) -> list[SSAValue]:
        """The values a loop body yields for its carried names, each of its initial type."""
        yielded = []
        for (n, v), init in zip(values, inits):
            if isinstance(v, Undefined):
                raise self.error(node, f"'{n}' is not defined at the end of the loop body ({v.reason})")
            v = self.materialize(v, init.type, node) if isinstance(v, Const) else v
            if not isinstance(v, SSAValue) or v.type != init.type:
                raise self.error(
                    node,
                    f"loop-carried variable '{n}' changes type in the loop: {init.type} before, "
                    f"{describe(v)} after an iteration",
                )
            yielded.append(v)
        return yielded

    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node.orelse[0], "'for ... else' is not supported")
        it = node.iter
        callee = self.expr(it.func) if isinstance(it, ast.Call) else None
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "split_aiv":
            assert isinstance(it, ast.Call)
            return self.split_aiv(node, it)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "while_":
            assert isinstance(it, ast.Call)
            return while_loop(self, node, it)
        if isinstance(callee, OpStub) and callee.family == "" and callee.op == "spmd":
            assert isinstance(it, ast.Call)
            if node.orelse:
                raise self.error(node.orelse[0], "'for ... else' is not supported")
            if not isinstance(node.target, ast.Name):
                raise self.error(node.target, "the block index of pl.spmd must be a single name")
            if predicate_keyword(it) is not None:
                return predicated_launch(self, node, it)
            return self.spmd(node, it, node.body, block_index=node.target.id)
        if not (
            callee is builtins.range
            or (isinstance(callee, OpStub) and callee.family == "" and callee.op in LOOP_KINDS)
        ):
            raise self.error(it, "loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...) or pl.unroll(...)")
        assert isinstance(it, ast.Call)
        kind = "range" if callee is builtins.range else callee.op  # type: ignore[union-attr]
        qual = "range" if callee is builtins.range else f"pl.{kind}"
        init_node = None
        stage: int | None = None
        for kw in it.keywords:
            if kw.arg == "stage" and kind == "pipeline":  # PyPTO's pipelining depth
                value = self.expr(kw.value)
                if not (isinstance(value, Const) and type(value.value) is int and value.value >= 1):
                    raise self.error(kw.value, f"'stage' of pl.pipeline must be a positive integer constant, got {describe(value)}")
                stage = value.value
                continue
            if kw.arg != "init_values" or callee is builtins.range or kind == "unroll":
                raise self.error(kw, f"{qual} does not accept '{kw.arg}'")
            init_node = kw.value
        if not 1 <= len(it.args) <= 3:
            raise self.error(it, f"{qual} takes 1 to 3 arguments (stop | start, stop[, step])")
        values = [self.expr(a) for a in it.args]
        if kind == "unroll":
            # PyPTO unrolls at compile time: its bounds are int literals (the loop stays an
            # scf.for tagged "unroll"; rebinding names in it carries them, as in pl.range)
            for v, a in zip(values, it.args):
                if not (isinstance(v, Const) and type(v.value) is int):
                    raise self.error(a, f"the bounds of pl.unroll are compile-time int constants, got {describe(v)}")
        if len(values) == 3 and isinstance(values[2], Const) and values[2].value <= 0:
            raise self.error(it.args[2], f"{qual} needs a positive step, got {values[2].value}")
        bounds = [self.index(v, a) for v, a in zip(values, it.args)]
        if len(bounds) == 1:
            lb, ub, step = self.materialize(Const(0), IndexType(), it), bounds[0], self.materialize(Const(1), IndexType(), it)
        elif len(bounds) == 2:
            lb, ub, step = bounds[0], bounds[1], self.materialize(Const(1), IndexType(), it)
        else:
            lb, ub, step = bounds
        # Explicit form: `for i, (a, b) in pl.range(n, init_values=(x, y)):` whose body ends
        # with `ra, rb = pl.yield_(a2, b2)`; ra, rb name the loop results afterwards.
        explicit: list[str] = []
        explicit_inits: list[SSAValue] = []
        yield_stmt: ast.Assign | None = None
        body_stmts = list(node.body)
        if init_node is not None:
            target = node.target
            if not (
                isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], ast.Tuple | ast.List)
                and all(isinstance(e, ast.Name) for e in target.elts[1].elts)
            ):
                raise self.error(target, "with init_values the loop target must be 'i, (a, b, ...)'")
            loop_var = target.elts[0].id
            explicit = [e.id for e in target.elts[1].elts]  # type: ignore[union-attr]
            values = self.expr(init_node)
            values = list(values) if isinstance(values, tuple | list) else [values]
            if len(values) != len(explicit):
                raise self.error(init_node, f"init_values has {len(values)} values for {len(explicit)} names")
            explicit_inits = []
            for v in values:
                if isinstance(v, Const):
                    v = self.materialize(v, None, init_node)
                if not isinstance(v, SSAValue):
                    raise self.error(init_node, f"init_values must hold values, got {describe(v)}")
                explicit_inits.append(v)
            yield_stmt = self._yield_stmt(body_stmts[-1]) if body_stmts else None
            if yield_stmt is None:
                raise self.error(node, "a loop with init_values must end with 'names = pl.yield_(...)'")
            body_stmts = body_stmts[:-1]
        else:
            if not isinstance(node.target, ast.Name):
                raise self.error(node.target, "the loop variable must be a single name")
            loop_var = node.target.id
        assigned = assigned_names(node.body)
        yield_targets = assigned_names([yield_stmt]) if yield_stmt is not None else []
        carried = [
            n for n in assigned
            if n != loop_var and n not in explicit and n not in yield_targets
            and n in self.env and not isinstance(self.env[n], Undefined) and n in self.last_load
        ]
        # A name the body rebinds before reading it, and that nothing reads after the loop, is
        # a new variable per iteration (Python reuses the name): it is not carried, so it may
        # take another type (a tile of another shape) than before the loop.
        fresh = [n for n in carried if assigned_before_read(n, body_stmts) and not self._live_after(n, node)]
        carried = [n for n in carried if n not in fresh]
        escaping = self._escaping_writes(node, assigned, {loop_var, *explicit, *yield_targets, *carried})
        carried += list(escaping)
        inits = [*explicit_inits, *[self._carried_value(escaping.get(n, n), node) for n in carried]]
        names = [*explicit, *carried]
        body = Block(arg_types=[IndexType(), *[v.type for v in inits]])
        self._hint(body.args[0], loop_var)
        for arg, n in zip(body.args[1:], names):
            self._hint(arg, n)
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.env[loop_var] = body.args[0]
        for n, arg in zip(names, body.args[1:]):
            self.env[n] = arg
        self.block = body
        self.stmts(body_stmts)
        next_values: list[tuple[str, Value]] = []
        if yield_stmt is not None:
            call = yield_stmt.value
            assert isinstance(call, ast.Call)
            if call.keywords:
                raise self.error(call.keywords[0], "pl.yield_ takes positional values only")
            vals = [v for v, _ in self.call_args(call.args)]
            if len(vals) != len(explicit):
                raise self.error(call, f"pl.yield_ yields {len(vals)} values for {len(explicit)} loop-carried names")
            next_values = [(n, v) for n, v in zip(explicit, vals)]
        next_values += [(n, self.env[n]) for n in carried]
        body.add_op(scf.YieldOp(*self._loop_yields(node, next_values, inits)))
        self.env, self.block = outer_env, outer_block
        loop = scf.ForOp(lb, ub, step, inits, Region(body))
        if kind != "range":  # PyPTO's ForKind, kept as a discardable attribute
            loop.attributes[LOOP_KIND_ATTR] = StringAttr(kind)
        if stage is not None:
            loop.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(stage, 64)
        self.block.add_op(loop)
        results = list(loop.results)
        if yield_stmt is not None:
            explicit_results = results[: len(explicit)]
            target = yield_stmt.targets[0]
            self.bind(target, explicit_results[0] if len(explicit_results) == 1 and isinstance(target, ast.Name) else tuple(explicit_results), yield_stmt)
        for n, res in zip(carried, results[len(explicit):]):
            self._hint(res, n)
            self.env[n] = res
        for n in [loop_var, *explicit, *assigned]:
            if n in yield_targets or n in carried:
                continue
            if n == loop_var or n in explicit or n not in self.env:
                self.env[n] = Undefined(f"'{n}' is only defined inside the loop at line {node.lineno}")
            elif n in fresh:
                self.env[n] = Undefined(f"'{n}' is rebound inside the loop at line {node.lineno} and not carried out of it")

    def _live_after(self, name: str, node: ast.stmt) -> bool:
        """May the program read `name` after `node` before rebinding it? Walks outwards through
        the statements that follow `node` (`assigned_before_read`); leaving a loop's body, the
        next iteration comes first."""
        parents = self._parents
        if parents is None:
            parents = self._parents = {
                child: parent for parent in ast.walk(self.decl.node) for child in ast.iter_child_nodes(parent)
            }
        child: ast.AST = node
        up = parents.get(child)
        while up is not None:
            for part in ("body", "orelse", "finalbody"):
                stmts = getattr(up, part, None)
                if isinstance(stmts, list) and child in stmts:
                    bound = assigned_before_read(name, stmts[stmts.index(child) + 1:])
                    if bound is not None:
                        return not bound
                    if isinstance(up, ast.For | ast.While) and part == "body":
                        if isinstance(up, ast.While) and reads_name(name, up.test):
                            return True
                        if assigned_before_read(name, up.body) is False:
                            return True  # the next iteration reads it first
                    break
            if up is self.decl.node:
                return False
            child, up = up, parents.get(up)
        return False

    def split_aiv(self, node: ast.For, it: ast.Call) -> None:
        """`for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):` -> `pypto.split_aiv`.

        The region runs once per AIV lane (`aiv_id` is the lane index) and has no results:
        its writes go through the tensors' storage, so after it a name rebound inside to a
        write of its own storage (`out = pl.store(t, offs, out)`) keeps naming that storage;
        any other name assigned inside is undefined after the region. Outside a `pl.at` in
        a non-InCore function the region is wrapped in an InCore scope (as PyPTO does).
        """
        from pypto_xdsl.frontend.ops import Args

        if node.orelse:
            raise self.error(node.orelse[0], "'for ... else' is not supported")
        a = Args(self, it, "pl.split_aiv", ["count", "mode"], 0)
        if "count" in a:
            count = a.value("count")
            if not (isinstance(count, Const) and count.value == 2 and type(count.value) is int):
                raise self.error(a.node_of("count"), f"pl.split_aiv splits into 2 lanes, got {describe(count)}")
        if "mode" not in a:
            raise self.error(it, "pl.split_aiv needs mode=pl.SplitMode.<mode>")
        mode = a.value("mode")
        if not isinstance(mode, T.SplitMode):
            raise self.error(a.node_of("mode"), f"'mode' of pl.split_aiv must be a pl.SplitMode member, got {describe(mode)}")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the lane variable of pl.split_aiv must be a single name")
        if not self.in_scope and self.decl.kind not in A.INCORE_KINDS:
            self.scope(node, [node])  # wrapped in an InCore scope; builds the region inside
            return
        if self.scope_split is not None:
            raise self.error(
                node,
                f"the enclosing pl.at has a split mode ({self.scope_split}, from pl.split(...) or "
                "split=) and holds a pl.split_aiv region; these are mutually exclusive AIV-split "
                "mechanisms (the function-level split would be silently dropped). To pin a "
                "cross-core slot count, use optimizations=[pl.cross_core_slot(slot_num=N)]",
            )
        lane_name = node.target.id
        region = SplitAivOp(mode.value)
        block = region.body.block
        self._hint(block.args[0], lane_name)
        outer_env, outer_block = self.env, self.block
        self.env = dict(outer_env)
        self.env[lane_name] = block.args[0]
        self.block = block
        self.stmts(node.body)
        inner_env = self.env
        self.env, self.block = outer_env, outer_block
        self.block.add_op(region)
        for n in assigned_names(node.body):
            inner, outer = inner_env.get(n), outer_env.get(n)
            if n == lane_name or inner is outer:
                continue
            if isinstance(outer, SSAValue) and isinstance(inner, SSAValue) and storage_root(inner) is storage_root(outer):
                self.region_writes.add(n)  # an enclosing scope yields the storage (ordering)
                continue  # written in place: the name keeps naming the storage
            self.env[n] = Undefined(f"'{n}' is only defined inside the pl.split_aiv region at line {node.lineno}")
        self.env[lane_name] = Undefined(f"'{lane_name}' is the lane of the pl.split_aiv region at line {node.lineno}")

    def stmt_While(self, node: ast.While) -> None:
        """`while cond:` -> `scf.while`; the condition is evaluated in the 'before' region.

        Names carried by the loop are chosen as for `for` loops: defined before the loop,
        assigned in its body and read somewhere. Both regions see them as block arguments.
        """
        if node.orelse:
            raise self.error(node.orelse[0], "'while ... else' is not supported")
        assigned = assigned_names(node.body)
        carried = [
            n for n in assigned
            if n in self.env and not isinstance(self.env[n], Undefined) and n in self.last_load
        ]
        inits = [self._carried_value(n, node) for n in carried]
        types = [v.type for v in inits]
        before, after = Block(arg_types=types), Block(arg_types=types)
        for block in (before, after):
            for arg, n in zip(block.args, carried):
                self._hint(arg, n)
        outer_env, outer_block = self.env, self.block
        # the condition, on the values at the start of each iteration
        self.env = dict(outer_env)
        self.env.update(zip(carried, before.args))
        self.block = before
        cond = self.expr(node.test)
        if isinstance(cond, Const) or not isinstance(cond, SSAValue):
            self.env, self.block = outer_env, outer_block
            raise self.error(
                node.test,
                f"a 'while' condition must be a comparison (i1) computed at run time, got {describe(cond)}",
            )
        if cond.type != IntegerType(1):
            self.env, self.block = outer_env, outer_block
            raise self.error(node.test, f"a 'while' condition must be a comparison (i1), got {describe(cond)}")
        before.add_op(scf.ConditionOp(cond, *before.args))
        # the body
        self.env = dict(outer_env)
        self.env.update(zip(carried, after.args))
        self.block = after
        self.stmts(node.body)
        after.add_op(scf.YieldOp(*self._loop_yields(node, [(n, self.env[n]) for n in carried], inits)))
        self.env, self.block = outer_env, outer_block
        loop = scf.WhileOp(inits, types, Region(before), Region(after))
        self.block.add_op(loop)
        for n, res in zip(carried, loop.results):
            self._hint(res, n)
            self.env[n] = res
        for n in assigned:
            if n not in carried and (n not in self.env or isinstance(self.env[n], Undefined)):
                self.env[n] = Undefined(f"'{n}' is only defined inside the loop at line {node.lineno}")

    def stmt_Break(self, node: ast.Break) -> None:
        raise self.error(
            node,
            "'break' is not supported: loops lower to scf.for / scf.while, which have no early exit; "
            "put the exit test in a 'while' condition",
        )

    def stmt_Continue(self, node: ast.Continue) -> None:
        raise self.error(
            node, "'continue' is not supported: loops lower to scf.for / scf.while; use 'if' around the rest of the body"
        )

    def stmt_If(self, node: ast.If) -> None:
        cond = self.expr(node.test)
        if isinstance(cond, Const) or (not isinstance(cond, SSAValue) and isinstance(cond, bool | int)):
            taken = node.body if (cond.value if isinstance(cond, Const) else cond) else node.orelse
            self.stmts(taken)  # a compile-time condition selects one branch
            return
        if not isinstance(cond, SSAValue) or cond.type != IntegerType(1):
            raise self.error(node.test, f"an 'if' condition must be a comparison (i1), got {describe(cond)}")
        outer_env, outer_block = self.env, self.block
        branch_envs: list[dict[str, Value]] = []
        blocks: list[Block] = []
        for stmts in (node.body, node.orelse):
            self.env = dict(outer_env)
            self.block = Block()
            self.stmts(stmts)
            branch_envs.append(self.env)
            blocks.append(self.block)
        self.env, self.block = outer_env, outer_block
        then_env, else_env = branch_envs
        end = end_of(node)
        results: list[str] = []
        for n in assigned_names([*node.body, *node.orelse]):
            t, e = then_env.get(n), else_env.get(n)
            if t is None or e is None or isinstance(t, Undefined) or isinstance(e, Undefined):
                continue
            if t is e:
                outer_env[n] = t
                continue
            predefined = n in outer_env and not isinstance(outer_env[n], Undefined)
            if n in self.last_load and (predefined or self.last_load[n] > end):
                results.append(n)
        then_vals: list[SSAValue] = []
        else_vals: list[SSAValue] = []
        for n in results:
            t, e = then_env[n], else_env[n]
            want = t.type if isinstance(t, SSAValue) else e.type if isinstance(e, SSAValue) else None
            self.block = blocks[0]
            tv = self.materialize(t, want, node) if isinstance(t, Const) else t
            self.block = blocks[1]
            ev = self.materialize(e, want, node) if isinstance(e, Const) else e
            self.block = outer_block
            if not isinstance(tv, SSAValue) or not isinstance(ev, SSAValue):
                raise self.error(node, f"'{n}' must hold a single value in both branches")
            if tv.type != ev.type:
                raise self.error(
                    node, f"'{n}' has type {tv.type} in the 'if' branch but {ev.type} in the 'else' branch"
                )
            then_vals.append(tv)
            else_vals.append(ev)
        blocks[0].add_op(scf.YieldOp(*then_vals))
        has_else = bool(node.orelse) or bool(results)
        if has_else:
            blocks[1].add_op(scf.YieldOp(*else_vals))
        op = scf.IfOp(cond, [v.type for v in then_vals], Region(blocks[0]), Region(blocks[1]) if has_else else None)
        self.block.add_op(op)
        for n, res in zip(results, op.results):
            self._hint(res, n)
            outer_env[n] = res
        for n in assigned_names([*node.body, *node.orelse]):
            if n in results:
                continue
            if n not in outer_env or isinstance(outer_env[n], Undefined):
                outer_env[n] = Undefined(f"'{n}' is only defined in one branch of the 'if' at line {node.lineno}")
