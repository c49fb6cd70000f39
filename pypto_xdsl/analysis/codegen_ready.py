"""Is a module ready for the Ascend C printers? Every kernel must be an `ascendc.kernel` whose
buffers are planned and whose pipes are synchronised (a MIX kernel's members are, each on its
own core), with no tile-level pypto kernel or group left. The backend refuses anything else;
`transforms.pipelines.lower_for_ascendc` lowers what is not ready."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import KernelKind
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import FuncOp


def pending_kernel(module: ModuleOp) -> FuncOp | KernelOp | None:
    """The first kernel of `module` the printers cannot print yet, or None."""
    for op in module.body.block.ops:
        if isinstance(op, FuncOp) and (op.is_incore or op.func_kind == FuncKind.GROUP):
            return op
        if isinstance(op, KernelOp) and op.kernel_kind != KernelKind.MIX and (op.memory_plan is None or op.sync is None):
            return op
    return None
