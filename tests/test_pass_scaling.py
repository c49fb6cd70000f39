"""inline-functions and outline-incore-scopes on deep programs: the work is linear in the
program (no per-helper re-expansion of a chain) and nothing recurses per nesting level
(the passes run under Python's default recursion limit on IR nested 2,000 regions deep)."""

from __future__ import annotations

import sys

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, f32
from xdsl.ir import Block, Region

from pypto_xdsl.analysis import inline_plans
from pypto_xdsl.dialects.attributes import FuncKind, TensorType
from pypto_xdsl.dialects.program import CallOp, FuncOp, IncoreScopeOp, ReturnOp, YieldOp, func_ops
from pypto_xdsl.dialects.tensor import AddOp, ExpOp
from pypto_xdsl.transforms.inline_functions import InlineFunctionsPass, inline_functions
from pypto_xdsl.transforms.outline_incore_scopes import OutlineIncoreScopesPass
from pypto_xdsl.utils import walk_ops

T = TensorType([8], f32)


def growing_chain(depth: int) -> ModuleOp:
    """h0(x) = x + x; h_i(x) = h_{i-1}(x) + x; main calls h_{depth-1} once: the expanded
    program has `depth` adds, and every helper's own expansion is as long as its index."""
    funcs = []
    h0 = FuncOp("h0", [T], [T], FuncKind.INLINE)
    add = AddOp(h0.args[0], h0.args[0])
    h0.body.block.add_ops([add, ReturnOp(add.result)])
    funcs.append(h0)
    for i in range(1, depth):
        h = FuncOp(f"h{i}", [T], [T], FuncKind.INLINE)
        call = CallOp(f"h{i - 1}", [h.args[0]], [T])
        add = AddOp(call.res[0], h.args[0])
        h.body.block.add_ops([call, add, ReturnOp(add.result)])
        funcs.append(h)
    main = FuncOp("main", [T], [T])
    call = CallOp(f"h{depth - 1}", [main.args[0]], [T])
    main.body.block.add_ops([call, ReturnOp(call.res[0])])
    return ModuleOp([*funcs, main])


def test_a_5000_deep_helper_chain_expands_once_and_linearly(monkeypatch):
    expanded: list[str] = []
    original = inline_plans.InlinePlans._expand

    def counting(self, plan):
        expanded.append(plan.name)
        return original(self, plan)

    monkeypatch.setattr(inline_plans.InlinePlans, "_expand", counting)
    depth = 5000
    module = growing_chain(depth)
    stats = inline_functions(module)
    assert stats.sites == depth and len(stats.removed) == depth
    # Only the helper called from main gets an expansion (built from the original bodies),
    # so the pass clones each helper body twice at most: O(depth) work and memory.
    assert expanded == [f"h{depth - 1}"]
    (main,) = func_ops(module)
    assert sum(op.name == "pypto.tensor.add" for op in main.body.block.ops) == depth
    module.verify()


def deep_loops(depth: int) -> ModuleOp:
    """main: `depth` nested scf.for loops around a call of an inline helper and a scope."""
    helper = FuncOp("h", [T], [T], FuncKind.INLINE)
    e = ExpOp(helper.args[0])
    helper.body.block.add_ops([e, ReturnOp(e.result)])
    main = FuncOp("main", [T, IndexType()], [T])
    a, n = main.args
    c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
    c1 = arith.ConstantOp.from_int_and_width(1, IndexType())
    main.body.block.add_ops([c0, c1])
    block, carried, loops = main.body.block, a, []
    for _ in range(depth):
        body = Block(arg_types=[IndexType(), T])
        loop = scf.ForOp(c0.result, n, c1.result, [carried], Region(body))
        block.add_op(loop)
        loops.append((block, loop))
        block, carried = body, body.args[1]
    call = CallOp("h", [carried], [T])
    scope_body = Block()
    x = ExpOp(call.res[0])
    scope_body.add_ops([x, YieldOp(x.result)])
    scope = IncoreScopeOp([T], Region(scope_body))
    block.add_ops([call, scope, scf.YieldOp(scope.outputs[0])])
    for outer, loop in reversed(loops[1:]):
        outer.add_op(scf.YieldOp(loop.results[0]))
    main.body.block.add_op(ReturnOp(loops[0][1].results[0]))
    return ModuleOp([helper, main])


def test_both_passes_run_at_nesting_depth_2000_under_the_default_recursion_limit():
    assert sys.getrecursionlimit() <= 2000  # so a recursion per nesting level would fail here
    module = deep_loops(2000)
    InlineFunctionsPass().apply(None, module)  # type: ignore[arg-type]  (its check included)
    OutlineIncoreScopesPass().apply(None, module)  # type: ignore[arg-type]
    assert [f.sym_name.data for f in func_ops(module)] == ["main", "main_incore_0"]
    innermost = [op for op in walk_ops(module) if op.name == "pypto.call"]
    assert [c.callee.root_reference.data for c in innermost] == ["main_incore_0"]
    assert not any(op.name in ("pypto.incore_scope",) for op in walk_ops(module))
