"""PyPTO's `pypto.ir` path: `from pypto_xdsl import ir` (PyPTO's `from pypto import ir`).

PyPTO's `pypto.ir` is its whole IR library; here the IR is xDSL's, and this package gives the
names of it PyPTO's programs use, re-exported from `pypto_xdsl.runtime.ir` (its `__all__`:
`ir.compile`, `ir.OptimizationStrategy`, ...), loaded on first use. Submodules:
`pass_manager` (`OptimizationStrategy`) and `distributed_compiled_program` (reference names
only, not provided). Any other name is a reference name pypto-xdsl does not provide.
"""

from __future__ import annotations

import importlib

from pypto_xdsl.reference_names import missing_name

_SOURCE = "pypto_xdsl.runtime.ir"
_SUBMODULES = ("distributed_compiled_program", "pass_manager")


def _exported() -> tuple[str, ...]:
    return tuple(importlib.import_module(_SOURCE).__all__)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _exported():
        return getattr(importlib.import_module(_SOURCE), name)
    raise missing_name(
        __name__,
        name,
        "the IR here is xDSL's (pypto_xdsl.dialects; a program's module is `program.module`)",
        (*_exported(), *_SUBMODULES),
    )


def __dir__():
    return sorted({*globals(), *_exported()})
