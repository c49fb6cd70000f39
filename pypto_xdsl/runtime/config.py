"""`RunConfig`: where and how a program runs, in the spelling of PyPTO's examples.

    fn(a, b, out, config=RunConfig())                       # the reference interpreter
    fn(a, b, out, config=RunConfig(target="sim"))           # Ascend C, built with g++ against
                                                            # the CPU simulation
    RunConfig(platform="a2a3sim", device_id=3)              # PyPTO's options are accepted;
                                                            # those that cannot apply here are
                                                            # reported once, as ignored

The default target is `$PYPTO_XDSL_TARGET` when set (`interpreter` or `sim`), else the
interpreter, so an unmodified example runs on either target.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.locate import did_you_mean, located, user_frame

TARGETS = ("interpreter", "sim")
PLATFORMS = ("a2a3sim", "a2a3", "a5sim", "a5")


class _ConfigError(ParserError, TypeError):
    """A RunConfig option that does not exist or has an invalid value (also a TypeError)."""


class IgnoredOptionWarning(UserWarning):
    """A RunConfig option of PyPTO's that has no effect on pypto-xdsl's targets."""


class BackendType(Enum):
    """PyPTO's code-generation backends (accepted in `RunConfig(backend_type=...)`; the
    Ascend C backend here targets the Ascend 910B family)."""

    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


class OptimizationStrategy(Enum):
    """PyPTO's pass strategies (accepted in `RunConfig(strategy=...)`; the pipeline is chosen
    with `RunConfig(pipeline=...)`)."""

    Default = "Default"
    DebugTileOptimization = "DebugTileOptimization"


# PyPTO's RunConfig options that cannot apply here: name -> (default, why it is ignored).
IGNORED_OPTIONS: dict[str, tuple[Any, str]] = {
    "device_id": (0, "there is no NPU; programs run on the interpreter or the CPU simulation"),
    "backend_type": (BackendType.Ascend910B, "the Ascend C backend targets the 910B family"),
    "strategy": (OptimizationStrategy.Default, "choose passes with RunConfig(pipeline=...)"),
    "dump_passes": (False, "print the IR with fn.lower(...) or pypto-opt"),
    "dump_ptoas_passes": (False, "there is no ptoas step"),
    "enable_chip_swimlane": (0, "on-device profiling needs an NPU"),
    "enable_l2_swimlane": (0, "on-device profiling needs an NPU"),
    "enable_dump_args": (0, "per-task argument dumps need the device runtime"),
    "enable_pmu": (0, "PMU counters need an NPU"),
    "enable_dep_gen": (False, "task dependency capture needs the device runtime"),
    "enable_scope_stats": (False, "ring statistics need the device runtime"),
    "compile_profiling": (False, "benchmarks/bench_jit.py measures compile times"),
    "diagnostic_phase": (None, "diagnostics are always reported"),
    "disabled_diagnostics": (None, "diagnostics are always reported"),
    "golden_data_dir": (None, "results are checked by the caller"),
    "aicpu_thread_num": (None, "there is no AICPU"),
    "ring_task_window": (None, "the device runtime's rings are not modelled"),
    "ring_heap": (None, "the device runtime's rings are not modelled"),
    "ring_dep_pool": (None, "the device runtime's rings are not modelled"),
    "analyze_auto_scopes_for_deps": (False, "runtime scopes are not modelled"),
    "memory_planner": (None, "the backend plans buffers itself (ascendc-plan-buffers)"),
}

_reported: set[str] = set()

# The order of the first fields of PyPTO's RunConfig dataclass (for positional arguments).
_POSITIONAL = (
    "platform", "device_id", "rtol", "atol", "strategy", "backend_type", "dump_passes",
    "save_kernels", "save_kernels_dir", "codegen_only",
)


def _default_target() -> str:
    target = os.environ.get("PYPTO_XDSL_TARGET", "interpreter") or "interpreter"
    if target not in TARGETS:
        raise located(f"$PYPTO_XDSL_TARGET must be one of {', '.join(TARGETS)}, got {target!r}")
    return target


@dataclass
class RunConfig:
    """How a `@pl.jit` function (or `run(program, ...)`) compiles and runs.

    target: "interpreter" (the reference interpreter, nothing to build) or "sim" (the Ascend C
        backend's output built with g++ against the CPU simulation headers).
    pipeline: the pass pipeline before running, in pypto-opt's syntax ("" runs none).
    seed: seed of random inputs (when a program is run without them).
    rtol, atol: tolerances of `verify`.
    verify: on the sim target, also run the interpreter and raise if the results differ.
    save_kernels, save_kernels_dir: keep the generated files and the build (PyPTO's names;
        `keep_build_dir` / `build_dir` are synonyms); the directory is reported.
    platform: PyPTO's platform name, checked; pypto-xdsl simulates the a2a3 (910B) family.
    codegen_only: compile (and build, on the sim target) without running.
    distributed_config: the rank group of a `@pl.jit.host` program (a
        `pypto_xdsl.ir.distributed_compiled_program.DistributedConfig`).
    Other options of PyPTO's RunConfig are accepted and reported once as ignored.
    """

    target: str = field(default_factory=_default_target)
    pipeline: str = "pypto-default"
    seed: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    verify: bool = False
    save_kernels: bool = False
    save_kernels_dir: str | Path | None = None
    platform: str = "a2a3sim"
    codegen_only: bool = False
    distributed_config: Any = None
    ignored: dict[str, Any] = field(default_factory=dict, repr=False, init=False)  # not copied by dataclasses.replace

    def __init__(self, *args: Any, **options: Any) -> None:
        if len(args) > len(_POSITIONAL):
            raise located(f"RunConfig takes at most {len(_POSITIONAL)} positional options, got {len(args)}", _ConfigError)
        for name, value in zip(_POSITIONAL, args):  # PyPTO's dataclass order
            if name in options:
                raise located(f"RunConfig got '{name}' twice", _ConfigError)
            options[name] = value
        ours = {f.name for f in fields(RunConfig) if f.name != "ignored"}
        synonyms = {"keep_build_dir": "save_kernels", "build_dir": "save_kernels_dir"}
        self.ignored = {}
        for key in list(options):
            if key in synonyms:
                options[synonyms[key]] = options.pop(key)
        for key, value in options.items():
            if key in ours:
                continue
            if key in IGNORED_OPTIONS:
                self.ignored[key] = value
                continue
            raise located(
                f"RunConfig has no option '{key}'"
                f"{did_you_mean(key, [*ours, *synonyms, *IGNORED_OPTIONS])}",
                _ConfigError,
            )
        for f in fields(RunConfig):
            if f.name == "ignored":
                continue
            if f.name in options:
                setattr(self, f.name, options[f.name])
            elif f.default is MISSING:
                setattr(self, f.name, f.default_factory())  # type: ignore[misc]
            else:
                setattr(self, f.name, f.default)
        if self.save_kernels_dir is not None:
            self.save_kernels = True
        self._check()
        self._report_ignored()

    def _check(self) -> None:
        if self.target not in TARGETS:
            raise located(
                f"RunConfig(target=...) must be one of {', '.join(repr(t) for t in TARGETS)}, got {self.target!r}",
                _ConfigError,
            )
        if self.platform not in PLATFORMS:
            raise located(
                f"RunConfig(platform=...) must be one of {', '.join(PLATFORMS)}, got {self.platform!r}",
                _ConfigError,
            )
        if self.distributed_config is not None:
            from pypto_xdsl.ir.distributed_compiled_program import DistributedConfig

            if not isinstance(self.distributed_config, DistributedConfig):
                raise located(
                    "RunConfig(distributed_config=...) takes a DistributedConfig "
                    f"(pypto_xdsl.ir.distributed_compiled_program), got {self.distributed_config!r}",
                    _ConfigError,
                )
        if not isinstance(self.pipeline, str):
            raise located("RunConfig(pipeline=...) is a pass pipeline string, e.g. 'pypto-default'", _ConfigError)

    def _report_ignored(self) -> None:
        notes = []
        for key, value in self.ignored.items():
            default, why = IGNORED_OPTIONS[key]
            if value == default or key in _reported:
                continue
            _reported.add(key)
            notes.append(f"{key}={value!r} ({why})")
        if self.platform not in ("a2a3sim",) and "platform" not in _reported:
            _reported.add("platform")
            notes.append(
                f"platform={self.platform!r} (pypto-xdsl runs on the interpreter or its CPU simulation "
                "of the a2a3 family; choose with target=)"
            )
        if notes:
            frame = user_frame(sys._getframe(1))
            message = "RunConfig options ignored by pypto-xdsl: " + "; ".join(notes)
            if frame is not None:
                warnings.warn_explicit(message, IgnoredOptionWarning, frame.f_code.co_filename, frame.f_lineno)
            else:  # pragma: no cover - always called from user code
                warnings.warn(message, IgnoredOptionWarning, stacklevel=3)

    def __getattr__(self, name: str) -> Any:
        """PyPTO's ignored options read back as given, else as PyPTO's default (the
        reference's profiling tests read `config.enable_chip_swimlane` to decide whether to
        look for a swimlane file; 0 here, so they skip as they do without the option)."""
        if name in IGNORED_OPTIONS:
            ignored = self.__dict__.get("ignored", {})
            return ignored.get(name, IGNORED_OPTIONS[name][0])
        raise AttributeError(f"'RunConfig' object has no attribute '{name}'")

    @property
    def build_dir(self) -> Path | None:
        return Path(self.save_kernels_dir) if self.save_kernels_dir is not None else None
