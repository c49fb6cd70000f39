"""Named pipelines: passes that run a fixed sequence of other passes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

# The default strategy, in order; names refer to pypto_xdsl.transforms' registry.
DEFAULT_PIPELINE: tuple[str, ...] = (
    "inline-functions",
    "outline-incore-scopes",
    "convert-tensor-to-tile",
    "expand-mixed-kernel",
)


# Down to the ascendc dialect: the default pipeline, then the Ascend C backend's passes.
# ascendc-broadcast-reciprocal is not among them: it rounds twice (up to 2 ulp of f32 from the
# interpreter's division), so it is opt-in, run by name before ascendc-plan-buffers.
ASCENDC_PIPELINE: tuple[str, ...] = DEFAULT_PIPELINE + (
    "hoist-cube-loads",
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
    targets that cannot run an unsplit mixed kernel (pypto-compile's default)."""

    name = "pypto-default"
    stages: ClassVar[tuple[str, ...]] = DEFAULT_PIPELINE

    strict_mixed: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pypto_xdsl.transforms import get_all_passes

        available = get_all_passes()
        for stage in self.stages:
            options = {"strict": True} if stage == "expand-mixed-kernel" and self.strict_mixed else {}
            available[stage]()(**options).apply(ctx, op)


@dataclass(frozen=True)
class PyptoAscendCPipeline(PyptoDefaultPipeline):
    """`pypto-ascendc`: everything down to the ascendc dialect (what `-t ascendc` prints)."""

    name = "pypto-ascendc"
    stages: ClassVar[tuple[str, ...]] = ASCENDC_PIPELINE
