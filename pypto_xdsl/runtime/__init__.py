"""Running PyPTO programs: `@pl.jit` calls, `run(program, ...)`, targets, caching.

    import pypto_xdsl.language as pl
    from pypto_xdsl.runtime import RunConfig

    @pl.jit
    def add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], c)
        return c

    add(x, y, out, config=RunConfig())               # interpreter (default target)
    add(x, y, out, config=RunConfig(target="sim"))   # Ascend C on the CPU simulation

This package composes the frontend (IR), the pass pipeline, the reference interpreter and
the Ascend C backend; none of those import it. See docs/language.md, "Running programs".
"""

from pypto_xdsl.runtime.config import (
    BackendType,
    IgnoredOptionWarning,
    OptimizationStrategy,
    RunConfig,
)
from pypto_xdsl.runtime.tensor_spec import TensorSpec

__all__ = [
    "BackendType",
    "IgnoredOptionWarning",
    "OptimizationStrategy",
    "RunConfig",
    "TensorSpec",
    "run",
]


def __getattr__(name: str):
    if name == "run":
        from pypto_xdsl.runtime.program import run

        return run
    if name in ("apply_passes", "apply_pipeline"):
        from pypto_xdsl.runtime import passes

        return getattr(passes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
