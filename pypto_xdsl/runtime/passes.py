"""Running pass pipelines by name, as `pypto-opt -p` does."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp


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
