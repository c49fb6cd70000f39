"""PyPTO's module paths under `pypto_xdsl`: the reference's programs run with only `pypto`
changed to `pypto_xdsl` on their import lines.

`pypto_xdsl.ir`, `pypto_xdsl.ir.pass_manager`, `pypto_xdsl.backend`, ... are thin re-export
modules over the runtime (see docs/language.md, "The reference's examples"). A name PyPTO has
there and this project does not is reported by `missing_name`: the error names the reference
name, says that pypto-xdsl does not provide it, and what to use instead where there is
something. This module imports nothing of the project.
"""

from __future__ import annotations

import dis
import sys

_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


class ReferenceNameError(AttributeError):
    """Attribute access to a PyPTO name pypto-xdsl does not provide."""


class ReferenceImportError(ImportError):
    """`from pypto_xdsl.x import name` of a PyPTO name pypto-xdsl does not provide."""


def missing_name(module: str, name: str, reason: str, provided: tuple[str, ...] = ()) -> Exception:
    """The error for `module.name`, a reference name with no counterpart here: `reason` says
    why (and what to use instead), `provided` lists what `module` does have.

    `from m import name` turns an AttributeError raised by a module's `__getattr__` into a
    bare "cannot import name", dropping its message; so when the caller is that import
    statement the error is an ImportError, which Python passes on as it is. Elsewhere
    (`m.name`, `hasattr`, the import system's own probing of a package) it is an
    AttributeError, as attribute access must raise."""
    reference = "pypto" + module.removeprefix("pypto_xdsl")
    message = f"{reference}.{name} is a PyPTO name that pypto-xdsl does not provide ({module}.{name}): {reason}"
    if provided:
        message += f"; {module} provides {', '.join(provided)}"
    if _called_from_import_from():
        return ReferenceImportError(message, name=module)
    return ReferenceNameError(message, name=name)


def _called_from_import_from() -> bool:
    # Frames: this function, missing_name, the module's __getattr__, its caller.
    frame = sys._getframe(3)
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _IMPORT_FROM


def reference_only_getattr(module: str, reason: str, provided: tuple[str, ...] = ()):
    """A module `__getattr__` for which every other name is a reference name (`reason`, as for
    `missing_name`); dunder probes keep the usual AttributeError."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        raise missing_name(module, name, reason, provided)

    return __getattr__
