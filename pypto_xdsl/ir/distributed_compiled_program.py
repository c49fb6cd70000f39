"""PyPTO's `pypto.ir.distributed_compiled_program` path. Multi-chip programs
(`DistributedConfig`, `DistributedCompiledProgram`) are not modelled: every name of it is a
reference name pypto-xdsl does not provide (the module imports, so the error names the name)."""

from __future__ import annotations

from pypto_xdsl.reference_names import missing_name

__all__: list[str] = []


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing_name(
        __name__,
        name,
        "distributed (multi-chip) execution is not modelled; a program runs on one chip, "
        "on the interpreter or the CPU simulation",
    )
