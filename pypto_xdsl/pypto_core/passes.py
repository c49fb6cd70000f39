"""PyPTO's `pypto.pypto_core.passes` path: `MemoryPlanner`, the enum PyPTO's test harness
passes as `memory_planner=` (accepted by `RunConfig`, reported as ignored: the Ascend C backend
plans on-chip buffers itself, `ascendc-plan-buffers`)."""

from __future__ import annotations

from enum import Enum

from pypto_xdsl.reference_names import reference_only_getattr

__all__ = ["MemoryPlanner"]


class MemoryPlanner(Enum):
    """Who plans on-chip buffer memory, in PyPTO: its own planner, DSA_RP or ptoas."""

    PYPTO = "PYPTO"
    DSA_RP = "DSA_RP"
    PTOAS = "PTOAS"


__getattr__ = reference_only_getattr(
    __name__,
    "passes run as xDSL pipelines: RunConfig(pipeline=...), pypto_xdsl.runtime.passes.apply_pipeline "
    "or pypto-opt -p",
    tuple(__all__),
)
