"""PyPTO's `pypto.ir.pass_manager` path: `OptimizationStrategy` (accepted by `RunConfig` and
`ir.compile`; the passes are chosen with `RunConfig(pipeline=...)`)."""

from __future__ import annotations

from pypto_xdsl.reference_names import reference_only_getattr
from pypto_xdsl.runtime.config import OptimizationStrategy

__all__ = ["OptimizationStrategy"]


__getattr__ = reference_only_getattr(
    __name__,
    "passes run as xDSL pipelines: RunConfig(pipeline=...), pypto_xdsl.runtime.passes.apply_pipeline "
    "or pypto-opt -p",
    tuple(__all__),
)
