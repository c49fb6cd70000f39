"""PyPTO's `pypto.runtime.distributed_runner` path. The distributed runtime (its worker
processes, callbacks, their argument buffers) is not modelled: every name of it is a
reference name pypto-xdsl does not provide (the module imports, so the error names the
name). `@pl.jit.host` programs run their ranks in one process (docs/language.md)."""

from __future__ import annotations

from pypto_xdsl.reference_names import reference_only_getattr

__all__: list[str] = []


__getattr__ = reference_only_getattr(
    __name__,
    "the distributed runtime (worker processes, host callbacks) is not modelled (multi-chip); "
    "a @pl.jit.host program runs its ranks in one process when called",
)
