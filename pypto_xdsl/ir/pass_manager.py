"""PyPTO's `pypto.ir.pass_manager` path: `OptimizationStrategy` (accepted by `RunConfig` and
`ir.compile`; the passes are chosen with `RunConfig(pipeline=...)`)."""

from __future__ import annotations

from pypto_xdsl.reference_names import missing_name
from pypto_xdsl.runtime.config import OptimizationStrategy

__all__ = ["OptimizationStrategy"]


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing_name(
        __name__,
        name,
        "passes run as xDSL pipelines: RunConfig(pipeline=...), pypto_xdsl.runtime.passes.apply_pipeline "
        "or pypto-opt -p",
        tuple(__all__),
    )
