"""`localize-windows`: a rank's program as the program of one device.

A function a host dispatches to a rank takes its windows as `!pypto.dist_tensor` parameters.
When the rank is built and run as a device of its own (the sim target simulates each rank
separately), a window is just global memory of that device: this pass turns every
`!pypto.dist_tensor` parameter into the `!pypto.tensor` of the same shape and element type
(an `inout` parameter: what the rank writes is the window's content) and replaces each
`pypto.dist.local` of it by the parameter itself. Anything that addresses
another rank (`pypto.dist.remote_load`, `put`, `barrier`, `pypto.system.notify`, a rank
query, ...) has no meaning on one device and fails the pass, naming the op, as does a host
function (`pypto.func host`: the program of a group, not of a device).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection, TensorType
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.dialects.distributed_comm import LocalWindowOp
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.dialects.verification import OpVerifyException


class LocalWindowIsTheTensor(RewritePattern):
    """`%l = pypto.dist.local %w` of a parameter made a tensor: `%l` is `%w`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LocalWindowOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.window.type, TensorType):
            rewriter.replace(op, [], [op.window])


def _localize_parameters(func: FuncOp) -> None:
    """Each window parameter becomes an `inout` tensor: the rank's code may write its
    window, and what it writes is the window's content after the run."""
    directions = list(func.directions)
    for i, arg in enumerate(list(func.args)):
        t = arg.type
        if isinstance(t, DistributedTensorType):
            Rewriter.replace_value_with_new_type(arg, TensorType(t.get_shape(), t.element_type))
            directions[i] = ParamDirection.INOUT
    if directions != list(func.directions):
        func.update_function_type()
        func.set_directions(directions)


def _check_no_remote_access(func: FuncOp) -> None:
    for op in func.walk():
        if isinstance(op, LocalWindowOp):
            continue
        if any(isinstance(o.type, DistributedTensorType) for o in op.operands) or op.name.startswith(
            ("pypto.dist.", "pypto.system.")
        ):
            raise OpVerifyException(
                op,
                f"{op.name} in @{func.sym_name.data} addresses the windows of other ranks: a rank "
                f"built as a device of its own (the sim target) reaches only its own window; run "
                f"the program on the interpreter target",
            )


@dataclass(frozen=True)
class LocalizeWindowsPass(ModulePass):
    name = "localize-windows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.body.block.ops if isinstance(f, FuncOp)]
        for func in funcs:
            if func.func_kind == FuncKind.HOST:
                raise OpVerifyException(
                    func, f"@{func.sym_name.data} is a host function: the program of a rank group, not of one device"
                )
        for func in funcs:
            _localize_parameters(func)
        PatternRewriteWalker(GreedyRewritePatternApplier([LocalWindowIsTheTensor()])).rewrite_module(op)
        for func in funcs:
            _check_no_remote_access(func)
