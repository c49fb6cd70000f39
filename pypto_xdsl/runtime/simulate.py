"""The `sim` target: the Ascend C backend's files, built with g++ against the CPU simulation,
run on the caller's arrays.

The generated driver (`host/main.cpp`) reads every parameter from `<in>/<name>.bin` and writes
the `out`/`inout` tensors to `<out>/<name>.bin`: raw little-endian, row-major, in the host
element type (`aclFloat16` for f16, raw bf16 bits for bf16, int64 for `index`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects.attributes import ParamDirection, TensorType


@dataclass
class SimBuild:
    """A built simulation program: its directory and executable, and the entry's files."""

    directory: Path
    exe: Path
    entry: str
    file_names: list[str]
    types: list[Any]
    directions: list[ParamDirection]
    cached: bool = False
    symbols: tuple[str, ...] = ()  # the dynamic dimensions the driver takes (`N=17`)


def emit_and_build(module: ModuleOp, entry: str, directory: Path) -> None:
    """Write the backend's files for `module` into `directory` and build them with g++."""
    from pypto_xdsl.backend.ascendc import sim
    from pypto_xdsl.runtime.passes import emit_ascendc

    program = emit_ascendc(module, entry=entry)
    for rel, text in program.files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sim.copy_headers(directory)
    sim.build(directory)


def describe_build(module: ModuleOp, entry: str, directory: Path, cached: bool) -> SimBuild:
    from pypto_xdsl.analysis.dynamic_extents import dynamic_symbols
    from pypto_xdsl.backend.ascendc.emit import choose_entry
    from pypto_xdsl.backend.ascendc.host_driver import param_file_names

    func = choose_entry(module, entry)
    assert func is not None
    return SimBuild(
        directory,
        directory / "build-sim" / "pypto_main",
        entry,
        param_file_names(func),
        [a.type for a in func.args],
        list(func.directions),
        cached,
        tuple(dynamic_symbols(func)),
    )


def run_build(build: SimBuild, inputs: list[Any], keep: Path | None = None, timeout: float = 300.0,
              dims: dict[str, int] | None = None, env: dict[str, str] | None = None) -> list[np.ndarray | None]:
    """Run the built program on `inputs` (one per entry parameter), its dynamic dimensions
    bound by `dims`; the out/inout results."""
    running = start_build(build, inputs, keep, dims, env)
    return running.finish(timeout)


@dataclass
class RunningBuild:
    """A simulated program started on its inputs (`start_build`); `finish` waits for it."""

    build: SimBuild
    proc: Any
    work: Path
    keep: bool
    dims: dict[str, int] | None

    def finish(self, timeout: float = 300.0) -> list[np.ndarray | None]:
        from pypto_xdsl.backend.ascendc import sim

        try:
            try:
                out, err = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
                raise sim.SimulationError(
                    f"{self.build.exe} did not finish within {timeout:.0f} s (an endless loop, e.g. a loop step of 0?)"
                ) from None
            if self.proc.returncode != 0:
                raise sim.SimulationError(
                    f"the simulated program exited with status {self.proc.returncode}:\n{err}{out}".rstrip()
                )
            outputs: list[np.ndarray | None] = []
            b = self.build
            for name, t, d in zip(b.file_names, b.types, b.directions):
                if isinstance(t, TensorType) and d != ParamDirection.IN:
                    outputs.append(sim.read_parameter_file(self.work / "out" / f"{name}.bin", t, self.dims))
                else:
                    outputs.append(None)
            return outputs
        finally:
            if not self.keep:
                shutil.rmtree(self.work, ignore_errors=True)

    def stop(self) -> None:
        """End the program if it still runs (another rank of its group failed)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)


def start_build(build: SimBuild, inputs: list[Any], keep: Path | None = None, dims: dict[str, int] | None = None,
                env: dict[str, str] | None = None) -> RunningBuild:
    """Write the inputs and start the built program (`env`: added to the environment, a
    rank's communication domain)."""
    import os

    from pypto_xdsl.backend.ascendc import sim

    work = Path(tempfile.mkdtemp(prefix="pypto-run-")) if keep is None else keep / "sim-run"
    in_dir, out_dir = work / "in", work / "out"
    in_dir.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, t, value in zip(build.file_names, build.types, inputs):
        sim.write_parameter_file(in_dir / f"{name}.bin", value, t)
    extents = [f"{d}={(dims or {})[d]}" for d in build.symbols]
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.Popen([str(build.exe), str(in_dir), str(out_dir), *extents], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full_env)
    return RunningBuild(build, proc, work, keep is not None, dims)
