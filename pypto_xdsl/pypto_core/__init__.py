"""PyPTO's `pypto.pypto_core` path (its C++ core's Python bindings): only `passes`, for
`passes.MemoryPlanner`, which PyPTO's test harness imports.

The rest of PyPTO's core (its IR classes, logging, codegen) has no counterpart here: this
project's IR is xDSL's (`pypto_xdsl.dialects`), and its passes are xDSL passes.
"""

from __future__ import annotations

import importlib

from pypto_xdsl.reference_names import missing_name

__all__ = ["passes"]

_REASON = (
    "PyPTO's C++ core has no counterpart: the IR is xDSL's (pypto_xdsl.dialects), the passes xDSL passes "
    "(pypto-opt -p, RunConfig(pipeline=...))"
)


def __getattr__(name: str):
    if name == "passes":  # `pypto.pypto_core.passes` without importing it first
        return importlib.import_module(f"{__name__}.passes")
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing_name(__name__, name, _REASON, tuple(__all__))
