"""Alias lineage: which storage a tensor value names ("write-through" analysis).

Tensors have reference semantics. `pypto.tile.store`, `pypto.tensor.assemble` and
`pypto.tile.matmul_acc` write into one operand and return an SSA value naming the same
storage (the `ResultAliasesOperand` trait, see `pypto_xdsl.dialects.traits`). Structured
control flow forwards that storage:

* `scf.for`: iteration argument `i` starts as init operand `i`, so it names the init's
  storage; result `i` names it too when the body's `scf.yield` operand `i` still does
  (the loop writes in place); otherwise the result is fresh storage.
* `scf.while`: a "before" block argument names its init's storage; the results and the
  "after" block arguments name whatever the `scf.condition` operands name.
* `scf.if`: result `i` names a storage when both branches yield values naming it.
* `pypto.tensor.slice` and `pypto.tensor.reinterpret_view` are views: their result names
  their source's storage (a write into the view writes the source).
* `pypto.call` / `pypto.submit`: an argument bound to an `out`/`inout` parameter is written
  through; result `i` names argument `j`'s storage when the callee returns its parameter `j`.

`WriteThrough.root(v)` follows these links back to the value that *is* the storage: a
function parameter, a `pypto.tensor.create`, ..., or, when a boundary predicate is given,
the first value outside the analysed region (a value an outlined region captures).
Results are memoised; chains are followed iteratively, so long store chains are cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.attributes import ParamDirection
from pypto_xdsl.dialects.traits import alias_trait, aliased_operand

# Ops whose result is a view sharing the storage of an operand (op name -> operand index).
# A view does not write; writing *into* a view writes the viewed tensor.
VIEW_OPS: dict[str, int] = {"pypto.tensor.slice": 0, "pypto.tensor.reinterpret_view": 0}


def _parent_loop_arg_source(arg: BlockArgument) -> SSAValue | None:
    """The value a structured-control-flow block argument starts as, if any."""
    block = arg.block
    parent = block.parent_op()
    if isinstance(parent, scf.ForOp):
        if arg.index == 0:
            return None  # induction variable
        return parent.iter_args[arg.index - 1]
    if isinstance(parent, scf.WhileOp):
        if block is parent.before_region.blocks.first:
            return parent.arguments[arg.index]
        cond = parent.before_region.blocks.first.last_op  # type: ignore[union-attr]
        if isinstance(cond, scf.ConditionOp):
            return cond.args[arg.index]
    return None


class WriteThrough:
    """Memoised storage roots of SSA values.

    `is_boundary(v)` (optional) stops the trace at `v`: used by outlining, where values
    defined outside the outlined region are the roots (they become parameters).
    """

    def __init__(self, is_boundary: Callable[[SSAValue], bool] | None = None):
        self._is_boundary = is_boundary
        self._roots: dict[SSAValue, SSAValue] = {}

    def root(self, value: SSAValue) -> SSAValue:
        roots = self._roots
        path: list[SSAValue] = []
        v = value
        while True:
            known = roots.get(v)
            if known is not None:
                v = known
                break
            nxt = self._step(v)
            if nxt is None or nxt is v:
                break
            path.append(v)
            v = nxt
        roots[value] = v
        for p in path:
            roots[p] = v
        roots[v] = v
        return v

    def same_storage(self, a: SSAValue, b: SSAValue) -> bool:
        return self.root(a) is self.root(b)

    # ---- one link of the chain

    def _step(self, v: SSAValue) -> SSAValue | None:
        if self._is_boundary is not None and self._is_boundary(v):
            return None
        if isinstance(v, OpResult):
            return self._step_result(v.op, v.index)
        if isinstance(v, BlockArgument):
            return _parent_loop_arg_source(v)
        return None

    def _step_result(self, op: Operation, index: int) -> SSAValue | None:
        if index == 0:
            src = aliased_operand(op)
            if src is not None:
                return src
            view_of = VIEW_OPS.get(op.name)
            if view_of is not None:
                return op.operands[view_of]
        if op.name in _CALL_OPS:
            return _call_result_alias(op, index)
        if isinstance(op, scf.ForOp):
            init = op.iter_args[index]
            yielded = _yield_operand(op.body.blocks.first, index)
            if yielded is not None and self.root(yielded) is self.root(init):
                return init
            return None
        if isinstance(op, scf.WhileOp):
            cond = op.before_region.blocks.first.last_op  # type: ignore[union-attr]
            if isinstance(cond, scf.ConditionOp):
                return cond.args[index]
            return None
        if isinstance(op, scf.IfOp):
            if not op.false_region.blocks:
                return None
            then_v = _yield_operand(op.true_region.blocks.first, index)
            else_v = _yield_operand(op.false_region.blocks.first, index)
            if then_v is None or else_v is None:
                return None
            root = self.root(then_v)
            if root is self.root(else_v) and root is not op.results[index]:
                return root
            return None
        return None


def _yield_operand(block: Block | None, index: int) -> SSAValue | None:
    if block is None:
        return None
    term = block.last_op
    if isinstance(term, scf.YieldOp) and index < len(term.arguments):
        return term.arguments[index]
    return None


_CALL_OPS = ("pypto.call", "pypto.submit")


def callee_directions(op: Operation) -> tuple[ParamDirection, ...] | None:
    """Directions of the parameters a `pypto.call`/`pypto.submit`'s arguments bind to."""
    if op.name not in _CALL_OPS:
        return None
    from pypto_xdsl.dialects.program import FuncOp

    callee = lookup_symbol(op, op.callee)  # type: ignore[attr-defined]
    if not isinstance(callee, FuncOp):
        return None
    return callee.directions[: len(op.args)]  # type: ignore[attr-defined]


def _call_result_alias(op: Operation, index: int) -> SSAValue | None:
    """The argument whose storage result `index` of a call names, if the callee returns it."""
    from pypto_xdsl.dialects.program import FuncOp, ReturnOp

    callee = lookup_symbol(op, op.callee)  # type: ignore[attr-defined]
    if not isinstance(callee, FuncOp):
        return None
    ret = callee.body.block.last_op
    if not isinstance(ret, ReturnOp) or index >= len(ret.arguments):
        return None
    root = WriteThrough().root(ret.arguments[index])
    args = op.args  # type: ignore[attr-defined]
    if isinstance(root, BlockArgument) and root.block is callee.body.block and root.index < len(args):
        if callee.directions[root.index] != ParamDirection.IN:
            return args[root.index]
    return None


def write_target(op: Operation) -> tuple[int, SSAValue] | None:
    """`(operand index, operand)` that `op` writes through, if it is a write-through op."""
    trait = alias_trait(op)
    if trait is None:
        return None
    return trait.operand_index, op.operands[trait.operand_index]


def escapes_region(value: SSAValue) -> bool:
    """Whether a value, or a write-through alias of it, is yielded out of its region."""
    from pypto_xdsl.dialects import program
    from pypto_xdsl.dialects.ascendc_kernel import LaunchOp
    from pypto_xdsl.dialects.traits import aliased_operand

    pending, seen = [value], set()
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses:
            user = use.operation
            if isinstance(user, scf.YieldOp | scf.ConditionOp | program.YieldOp):
                return True
            if isinstance(user, program.CallOp | program.SubmitOp | LaunchOp):
                pending.extend(_results_through(user, use.index))
            elif aliased_operand(user) is v or user.name == "pypto.tensor.slice":
                pending.extend(user.results[:1])
    return False


def _results_through(call: Operation, index: int) -> list[SSAValue]:
    """The results of a call or launch that may name the storage of its operand `index`:
    those the callee returns that argument as, when its results are known (a kernel's result
    kinds, an incore function's returns), else all (the callee may return its argument)."""
    from pypto_xdsl.dialects import program
    from pypto_xdsl.dialects.ascendc_kernel import KernelOp

    callee = lookup_symbol(call, call.callee)  # type: ignore[attr-defined]
    if isinstance(callee, KernelOp):
        kinds = callee.result_kinds
        return [r for r, k in zip(call.results, kinds) if k.kind.data != "param" or k.value.data == index]
    if isinstance(callee, program.FuncOp) and callee.is_incore:
        from pypto_xdsl.analysis.ascendc_kernel import returned_params

        params = returned_params(callee)
        return [r for k, r in enumerate(call.results) if k >= len(params) or params[k] in (None, index)]
    return list(call.results)
