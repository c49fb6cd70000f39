"""PyPTO's `pypto.pypto_core` path (its C++ core's Python bindings): only `passes`, for
`passes.MemoryPlanner`, which PyPTO's test harness imports.

The rest of PyPTO's core (its IR classes, logging, codegen) has no counterpart here: this
project's IR is xDSL's (`pypto_xdsl.dialects`), and its passes are xDSL passes.
"""

from __future__ import annotations

from pypto_xdsl.reference_names import reference_only_getattr

__all__ = ["passes"]

__getattr__ = reference_only_getattr(
    __name__,
    "PyPTO's C++ core has no counterpart: the IR is xDSL's (pypto_xdsl.dialects), the passes xDSL passes "
    "(pypto-opt -p, RunConfig(pipeline=...))",
    tuple(__all__),
)
