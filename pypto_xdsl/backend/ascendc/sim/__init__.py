"""Build and run generated code against the CPU simulation headers (`sim/include`).

The headers are pypto-xdsl's own plain-C++ simulation of the Ascend C / ACL subset the
printers emit; see `include/pypto_sim/core.h`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SIM_INCLUDE_DIR = Path(__file__).parent / "include"


class SimulationError(RuntimeError):
    """Building or running the simulated program failed."""


@dataclass
class SimResult:
    returncode: int
    stdout: str
    stderr: str


def write_parameter_file(path: Path, value: Any, param_type: Any) -> None:
    """Write one entry parameter the way the generated driver (`host/main.cpp`) reads it: raw
    little-endian, row-major, in the host element type (`aclFloat16` for f16, the upper 16 bits of
    the rounded float32 for bf16, int64 for `index`)."""
    np.ascontiguousarray(_host_array(value, param_type)).tofile(path)


def read_parameter_file(path: Path, tensor_type: Any, dims: Any = None) -> np.ndarray:
    """Read an out/inout tensor the driver wrote (its dynamic dimensions bound by `dims`);
    bf16 comes back carried as float32."""
    from xdsl.dialects.builtin import BFloat16Type

    from pypto_xdsl.interpreter.values import numpy_dtype

    shape = [int(dims[d]) if isinstance(d, str) else int(d) for d in tensor_type.get_shape()]
    if isinstance(tensor_type.element_type, BFloat16Type):
        bits = np.fromfile(path, dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    return np.fromfile(path, dtype=numpy_dtype(tensor_type.element_type)).reshape(shape)


def _host_array(value: Any, param_type: Any) -> np.ndarray:
    from xdsl.dialects.builtin import BFloat16Type, IndexType

    from pypto_xdsl.dialects.attributes import TensorType
    from pypto_xdsl.interpreter.values import bf16_round, numpy_dtype

    if isinstance(param_type, TensorType):
        if isinstance(param_type.element_type, BFloat16Type):
            bits = bf16_round(np.asarray(value, dtype=np.float32)).view(np.uint32) >> 16
            return bits.astype(np.uint16)
        return np.asarray(value, dtype=numpy_dtype(param_type.element_type))
    return np.asarray(value, dtype=np.int64 if isinstance(param_type, IndexType) else numpy_dtype(param_type))


def copy_headers(out_dir: Path) -> Path:
    """Copy the simulation headers into `out_dir/sim/include` (self-contained output)."""
    dest = Path(out_dir) / "sim" / "include"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(SIM_INCLUDE_DIR, dest)
    return dest


def compiler() -> str | None:
    return shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")


def build(out_dir: Path, exe_name: str = "pypto_main", opt: str = "-O1") -> Path:
    """Compile kernels/*.cpp and host/*.cpp in `out_dir` with g++ against the simulation."""
    out_dir = Path(out_dir)
    cxx = compiler()
    if cxx is None:
        raise SimulationError("no C++ compiler (g++) found; install g++ to run the simulation")
    include = out_dir / "sim" / "include"
    if not include.exists():
        include = SIM_INCLUDE_DIR
    sources = sorted(str(p) for p in (out_dir / "kernels").glob("*.cpp"))
    sources += sorted(str(p) for p in (out_dir / "host").glob("*.cpp"))
    if not (out_dir / "host" / "main.cpp").exists():
        raise SimulationError("nothing to run: the program has no orchestration function (no host/main.cpp)")
    build_dir = out_dir / "build-sim"
    build_dir.mkdir(exist_ok=True)
    exe = build_dir / exe_name
    cmd = [
        cxx, "-std=c++17", opt, "-g", "-Wall", "-Wno-unused-variable", "-Werror=return-type",
        f"-I{include}", f"-I{out_dir / 'sim'}", f"-I{out_dir / 'host'}", *sources, "-o", str(exe), "-pthread",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SimulationError(f"g++ failed ({' '.join(cmd)}):\n{proc.stderr}")
    return exe


def run_profiled(
    argv: list[str], profile: Path | None, env: dict[str, str] | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess:
    """Run a simulated program; with `profile`, the cost model writes one JSON line per kernel
    launch there. When blocks of a launch read the same GM lines (matmul panels), the program is
    run a second time with the first run's reader counts, so that the L2 model can share each
    HBM fetch between the blocks that read the line (see `include/pypto_sim/cost.h`)."""
    env = dict(os.environ if env is None else env)
    if profile is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    profile = Path(profile)
    share = profile.with_suffix(".l2share")
    for f in (profile, share):
        f.unlink(missing_ok=True)
    env["PYPTO_SIM_PROFILE"] = str(profile)
    env["PYPTO_SIM_L2_SHARE_OUT"] = str(share)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0 or not share.exists() or share.stat().st_size == 0:
        return proc
    profile.unlink(missing_ok=True)
    del env["PYPTO_SIM_L2_SHARE_OUT"]
    env["PYPTO_SIM_L2_SHARE_IN"] = str(share)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def run(
    exe: Path, in_dir: Path, out_dir: Path, timeout: float = 120.0, profile: Path | None = None,
    args: list[str] | None = None,
) -> SimResult:
    """Run a built program; with `profile`, the cost model's launch records go to that file.
    `args` follow the two folders (a dynamic program's extents, `N=17`)."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    try:
        proc = run_profiled([str(exe), str(in_dir), str(out_dir), *(args or [])], profile, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise SimulationError(
            f"{exe} did not finish within {timeout:.0f} s (an endless loop, e.g. a loop step of 0?)"
        ) from e
    return SimResult(proc.returncode, proc.stdout, proc.stderr)
