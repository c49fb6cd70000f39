"""The Ascend C backend (`pypto_xdsl.backend.ascendc`), and PyPTO's `pypto.backend` path.

`from pypto_xdsl.backend import BackendType` is PyPTO's `from pypto.backend import
BackendType` (the enum `RunConfig(backend_type=...)` takes, defined in
`pypto_xdsl.runtime.config`); it is loaded on first use, so importing this package (as the
backend's own modules do) loads nothing else. PyPTO's SoC model (`Backend`, `SoC`, `Core`,
`set_backend_type`, ...) is a reference name pypto-xdsl does not provide.
"""

from __future__ import annotations

import importlib

_REEXPORTS = {"BackendType": "pypto_xdsl.runtime.config"}
_SUBMODULES = ("ascendc", "pto_backend")


def __getattr__(name: str):
    if name in _REEXPORTS:
        return getattr(importlib.import_module(_REEXPORTS[name]), name)
    if name.startswith("__") or name in _SUBMODULES:
        # A submodule not imported yet: the import system probes for it with hasattr first.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pypto_xdsl.reference_names import missing_name

    raise missing_name(
        __name__,
        name,
        "the Ascend C backend targets the 910B family and has no SoC model to configure; "
        "choose the target with RunConfig(target=...)",
        tuple(_REEXPORTS),
    )


def __dir__():
    return sorted({*globals(), *_REEXPORTS})
