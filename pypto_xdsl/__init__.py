"""pypto-xdsl: PyPTO programs compiled with xDSL.

`import pypto_xdsl as pypto` gives PyPTO's top-level spelling: `pypto.language`,
`pypto.runtime`, `pypto.ir` and `pypto.backend` are imported on first use (so importing
this package stays light).
"""

import importlib

_SUBPACKAGES = ("backend", "ir", "language", "runtime")


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_SUBPACKAGES})
