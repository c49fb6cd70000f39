"""PyPTO's `pypto.runtime.distributed_runner` path. Multi-chip execution is not modelled: every
name of it is a reference name pypto-xdsl does not provide (the module imports, so the error
names the name)."""

from __future__ import annotations

from pypto_xdsl.reference_names import reference_only_getattr

__all__: list[str] = []


__getattr__ = reference_only_getattr(
    __name__,
    "distributed (multi-chip) execution is not modelled; a program runs on one chip, "
    "on the interpreter or the CPU simulation",
)
