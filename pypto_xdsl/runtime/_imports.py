"""Importing xDSL's interpreter implementations without the rest of `xdsl.interpreters`.

`xdsl/interpreters/__init__.py` imports every interpreter xDSL ships (RISC-V, Snitch, linalg,
...), which defines hundreds of op classes: about half a second, the largest part of a first
jit call on the interpreter target. The reference interpreter uses four of them (arith, scf,
func, builtin). Before the first import, `xdsl.interpreters` is registered as a package whose
submodules import normally and whose own attributes (`register_implementations`, ...) load
xDSL's `__init__` on first access, so code that uses the package as a whole still works.
"""

from __future__ import annotations

import importlib.util
import sys
import types


class _LazyPackage(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__") or self.__dict__.get("_pypto_loaded"):
            raise AttributeError(name)
        self.__dict__["_pypto_loaded"] = True
        spec = self.__spec__
        assert spec is not None and spec.origin is not None
        with open(spec.origin) as f:
            code = compile(f.read(), spec.origin, "exec", dont_inherit=True)
        exec(code, self.__dict__)  # xDSL's __init__, in this module's namespace
        return getattr(self, name)


def light_xdsl_interpreters() -> None:
    if "xdsl.interpreters" in sys.modules:
        return
    spec = importlib.util.find_spec("xdsl.interpreters")
    if spec is None or spec.submodule_search_locations is None or spec.origin is None:
        return
    package = _LazyPackage("xdsl.interpreters")
    package.__spec__ = spec
    package.__file__ = spec.origin
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = "xdsl.interpreters"
    sys.modules["xdsl.interpreters"] = package
