"""pypto-xdsl: PyPTO programs compiled with xDSL.

`import pypto_xdsl as pypto` gives PyPTO's top-level spelling: `pypto.language`,
`pypto.runtime`, `pypto.ir`, `pypto.backend` and `pypto.pypto_core` are imported on first
use (so importing this package stays light). PyPTO's top-level `passes` (its C++ pass
manager) and `LogLevel` are reference names this project does not provide.
"""

import importlib

_SUBPACKAGES = ("backend", "ir", "language", "pypto_core", "runtime")
_REFERENCE_ONLY = {
    "passes": "passes run as xDSL pipelines: RunConfig(pipeline=...), pypto_xdsl.runtime.passes.apply_pipeline "
    "or pypto-opt -p",
    "LogLevel": "diagnostics are always reported, as located errors",
}


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _REFERENCE_ONLY:
        from pypto_xdsl.reference_names import missing_name

        raise missing_name(__name__, name, _REFERENCE_ONLY[name], _SUBPACKAGES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_SUBPACKAGES})
