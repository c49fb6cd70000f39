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

`ChipWorker` registers compiled programs (`fn.compile(...)`) and dispatches them
explicitly, with buffers it owns (`alloc_tensor`), as PyPTO's runtime does.

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
from pypto_xdsl.runtime.worker import ChipWorker, DeviceTensor, RegistrationHandle

__all__ = [
    "BackendType",
    "ChipWorker",
    "DeviceTensor",
    "IgnoredOptionWarning",
    "OptimizationStrategy",
    "RegistrationHandle",
    "RunConfig",
    "TensorSpec",
    "run",
]

_MULTI_CHIP = (
    "the distributed runtime (worker processes shared by programs, host callbacks) is not modelled "
    "(multi-chip); a @pl.jit.host program runs its ranks in one process when called"
)
_DEVICE = "there is no NPU here; programs run on the interpreter or the CPU simulation (RunConfig(target=...))"
# PyPTO's pypto.runtime names with no counterpart here: name -> why, and what to use instead.
_REFERENCE_ONLY = {
    "Worker": "PyPTO's base of its workers; use ChipWorker (one chip) or call the @pl.jit function",
    "DistributedWorker": _MULTI_CHIP,
    "DistributedRunHandle": _MULTI_CHIP,
    "execute_distributed_compiled": _MULTI_CHIP,
    "StackedDeviceTensor": _DEVICE + "; pass torch tensors or numpy arrays",
    "compile_program": "compile with program.compile(out_dir), ir.compile(program) or pypto-compile",
    "execute_compiled": "run with run(program, ...) or the @pl.jit function",
    "benchmark": "benchmarks/ measures compile and simulation times",
}


def __getattr__(name: str):
    if name == "run":
        from pypto_xdsl.runtime.program import run

        return run
    if name in ("apply_passes", "apply_pipeline"):
        from pypto_xdsl.runtime import passes

        return getattr(passes, name)
    if name in _REFERENCE_ONLY:
        from pypto_xdsl.reference_names import missing_name

        raise missing_name(__name__, name, _REFERENCE_ONLY[name], tuple(__all__))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
