"""Running pass pipelines by name, as `pypto-opt -p` does, and the Ascend C backend after them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp

if TYPE_CHECKING:
    from pypto_xdsl.backend.ascendc.emit import EmittedProgram


def apply_passes(module: ModuleOp, passes: Sequence[str]) -> None:
    """Run registered passes (by pypto-opt name) on `module` in place."""
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.transforms import get_all_passes

    available = get_all_passes()
    ctx = make_context()
    for p in passes:
        if p not in available:
            raise NotImplementedError(f"pass '{p}' is not available in this build")
        available[p]()().apply(ctx, module)


def apply_pipeline(module: ModuleOp, pipeline: str) -> None:
    """Run a pipeline in pypto-opt's syntax (`'pypto-default'`, `'a,b{opt=1}'`); '' runs none."""
    if not pipeline:
        return
    from xdsl.passes import PassPipeline

    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.transforms import get_all_passes

    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)
    module.verify()


def emit_ascendc(module: ModuleOp, entry: str | None = None, with_sim: bool = True) -> EmittedProgram:
    """The Ascend C backend's files for `module` (kernels, host code, CMakeLists.txt, README):
    a module whose kernels are not codegen-ready yet is lowered on a copy first
    (`transforms.pipelines.lower_for_ascendc`), so `module` never changes. Raises BackendError."""
    from pypto_xdsl.backend.ascendc.emit import emit_program
    from pypto_xdsl.transforms.pipelines import lower_for_ascendc

    return emit_program(lower_for_ascendc(module), entry=entry, with_sim=with_sim)
