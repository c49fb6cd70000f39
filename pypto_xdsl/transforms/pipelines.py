"""Named pipelines: passes that run a fixed sequence of other passes, and the lowering the
Ascend C backend's callers run on a module whose kernels are not codegen-ready yet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from pypto_xdsl.analysis.cxx_names import BackendError
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import KernelKind
from pypto_xdsl.dialects.program import FuncOp

# The default strategy, in order; names refer to pypto_xdsl.transforms' registry.
DEFAULT_PIPELINE: tuple[str, ...] = (
    "inline-functions",
    "outline-incore-scopes",
    "convert-tensor-to-tile",
    "fold-bias-epilogue",
    "expand-mixed-kernel",
)


# Down to the ascendc dialect: the default pipeline, then the Ascend C backend's passes.
# ascendc-broadcast-reciprocal is not among them: it rounds twice (up to 2 ulp of f32 from the
# interpreter's division), so it is opt-in, run by name before ascendc-plan-buffers.
ASCENDC_PIPELINE: tuple[str, ...] = DEFAULT_PIPELINE + (
    "hoist-cube-loads",
    "pair-cube-blocks",
    "pipeline-cross-core-loops",
    "lower-cross-core-rings",
    "split-vector-member",
    "convert-pypto-to-ascendc",
    "ascendc-tree-reductions",
    "ascendc-plan-buffers",
    "ascendc-insert-sync",
    "ascendc-remove-redundant-sync",
    "ascendc-prefetch-copy-in",
    "ascendc-cse",
)


@dataclass(frozen=True)
class PyptoDefaultPipeline(ModulePass):
    """`pypto-default`: everything up to codegen-ready IR.

    Option `strict-mixed` (default false): a mixed cube + vector kernel expand-mixed-kernel
    cannot split is an error rather than a warning (`expand-mixed-kernel{strict=true}`), for
    targets that cannot run an unsplit mixed kernel (pypto-compile's default).

    Option `fold-bias` (default true): run fold-bias-epilogue, which makes a matmul whose
    epilogue only adds a bias row (and rectifies) one cube kernel; `fold-bias=false` keeps
    such a linear layer a mixed cube + vector kernel."""

    name = "pypto-default"
    stages: ClassVar[tuple[str, ...]] = DEFAULT_PIPELINE

    strict_mixed: bool = False
    fold_bias: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pypto_xdsl.transforms import get_all_passes

        available = get_all_passes()
        for stage in self.stages:
            if stage == "fold-bias-epilogue" and not self.fold_bias:
                continue
            options = {"strict": True} if stage == "expand-mixed-kernel" and self.strict_mixed else {}
            available[stage]()(**options).apply(ctx, op)


@dataclass(frozen=True)
class PyptoAscendCPipeline(PyptoDefaultPipeline):
    """`pypto-ascendc`: everything down to the ascendc dialect (what `-t ascendc` prints)."""

    name = "pypto-ascendc"
    stages: ClassVar[tuple[str, ...]] = ASCENDC_PIPELINE


def lower_for_ascendc(module: ModuleOp) -> ModuleOp:
    """`module` ready for the Ascend C printers: `module` itself when it is
    (`analysis.codegen_ready`), else a copy whose kernels went through the backend stages of
    `ASCENDC_PIPELINE` (convert-pypto-to-ascendc onwards), so the input never changes.

    A kernel or orchestration function over a run-time extent the backend does not lower is
    refused first, naming it. An error raised while lowering the copy names the input's op.
    Raises BackendError.
    """
    from pypto_xdsl.analysis.codegen_ready import pending_kernel
    from pypto_xdsl.analysis.cxx_names import name_original_op
    from pypto_xdsl.transforms.convert_pypto_to_ascendc import check_dynamic_extents, has_pypto_kernels, lower_module

    check_dynamic_extents(module)
    if pending_kernel(module) is None:
        return module
    clone = module.clone()
    originals = dict(zip(clone.walk(), module.walk()))
    try:
        if has_pypto_kernels(clone):
            lower_module(clone)
        for kernel in clone.body.block.ops:
            if isinstance(kernel, KernelOp):
                _complete_kernel(kernel)
    except BackendError as e:
        name_original_op(e, originals)  # located in the input, not in the copy
        raise
    return clone


def lower_kernel_for_ascendc(func: FuncOp) -> KernelOp:
    """A planned and synchronised `ascendc.kernel` for one tile-level pypto kernel (a copy)."""
    from pypto_xdsl.transforms.ascendc_kernel_lowering import lower_kernel

    kernel = lower_kernel(func)
    _complete_kernel(kernel)
    return kernel


def _complete_kernel(kernel: KernelOp) -> None:
    """The per-kernel stages after convert-pypto-to-ascendc; a stage a kernel has been
    through leaves it as it is."""
    if kernel.kernel_kind == KernelKind.MIX:
        return  # its members are planned and synchronised, each on its own core
    from pypto_xdsl.transforms.ascendc_cse import kernel_cse
    from pypto_xdsl.transforms.ascendc_insert_sync import sync_kernel
    from pypto_xdsl.transforms.ascendc_plan_buffers import plan_kernel
    from pypto_xdsl.transforms.ascendc_prefetch_copy_in import prefetch_kernel
    from pypto_xdsl.transforms.ascendc_remove_redundant_sync import remove_redundant_sync
    from pypto_xdsl.transforms.ascendc_tree_reductions import tree_reductions

    tree_reductions(kernel)
    plan_kernel(kernel)
    if kernel.sync is None:
        sync_kernel(kernel)
        remove_redundant_sync(kernel)
        prefetch_kernel(kernel)
        kernel_cse(kernel)
