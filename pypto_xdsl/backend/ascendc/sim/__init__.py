"""Build and run generated code against the CPU simulation headers (`sim/include`).

The headers are pypto-xdsl's own plain-C++ simulation of the Ascend C / ACL subset the
printers emit; see `include/pypto_sim/core.h`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
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


# `-g1`: line tables and function names (a debugger's backtrace), without the full debug
# information of every header type, which costs as much as the rest of a kernel's build.
# `$PYPTO_SIM_CXXFLAGS` is appended (e.g. `-g -O0` to step through a kernel in gdb).
DEBUG_FLAGS = ("-g1",)
WARNING_FLAGS = ("-Wall", "-Wno-unused-variable", "-Werror=return-type")

# The headers every translation unit of one side starts with, precompiled once per header
# contents, compiler and flags (`precompiled_header`): kernels include kernel_operator.h; the
# host driver and orchestration include acl/acl.h and the launch headers.
_PCH_HEADERS = {
    "kernel": ("kernel_operator.h",),
    "host": ("acl/acl.h", "pypto_sim/launch.h"),
}


def compile_flags(opt: str = "-O1") -> list[str]:
    """The g++ flags of a simulation build (`build` adds the include paths)."""
    return ["-std=c++17", opt, *DEBUG_FLAGS, *WARNING_FLAGS, *os.environ.get("PYPTO_SIM_CXXFLAGS", "").split()]


def cache_root() -> Path:
    """pypto-xdsl's cache folder: `$PYPTO_XDSL_CACHE`, else `$XDG_CACHE_HOME/pypto-xdsl`,
    else `~/.cache/pypto-xdsl`."""
    explicit = os.environ.get("PYPTO_XDSL_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pypto-xdsl"


@lru_cache(maxsize=8)
def _compiler_identity(cxx: str) -> str:
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    return f"{os.path.realpath(cxx)}\n{version}"


def _hash_tree(h: Any, root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())


def _publish(staging: Path, final: Path) -> None:
    """Rename a finished `staging` folder to `final`; another process may have got there first
    (same key, same contents): then its copy is kept."""
    try:
        staging.rename(final)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not final.exists():
            raise


def precompiled_header(cxx: str, include: Path, flags: list[str], side: str) -> Path | None:
    """The precompiled header of `side` ("kernel" or "host") for the headers in `include`, built
    on first use into `$PYPTO_SIM_PCH_CACHE` (default: the cache folder's `sim-pch/`), keyed by
    the headers' contents, the compiler and the flags. The returned wrapper header is passed
    with `-include`; g++ reads its `.gch` next to it, or, when that does not fit
    (`-Winvalid-pch` says so), includes the headers as text. None when no PCH can be made."""
    h = hashlib.sha256()
    h.update(_compiler_identity(cxx).encode())
    h.update("\0".join([side, *_PCH_HEADERS[side], *flags]).encode())
    _hash_tree(h, include)
    key = h.hexdigest()[:24]
    root = Path(os.environ.get("PYPTO_SIM_PCH_CACHE") or cache_root() / "sim-pch")
    final = root / f"{side}-{key}"
    wrapper = final / f"pypto_sim_{side}.h"
    if (final / "DONE").exists():
        return wrapper
    try:
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{side}-{key}-", dir=root))
    except OSError:
        return None  # no writable cache: build without
    try:
        header = staging / wrapper.name
        header.write_text("".join(f'#include "{name}"\n' for name in _PCH_HEADERS[side]))
        proc = subprocess.run([cxx, *flags, f"-I{include}", "-x", "c++-header", str(header), "-o", f"{header}.gch"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return None  # the headers' own errors show in the build itself
        (staging / "DONE").write_text(key + "\n")
        _publish(staging, final)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return wrapper if (final / "DONE").exists() else None


def _build_key(cxx: str, flags: list[str], out_dir: Path, sources: list[Path]) -> str:
    """The content address of a build: compiler, flags, every source and every header of the
    program (its `host/*.h`, the `sim/` launch headers and simulation headers)."""
    h = hashlib.sha256()
    h.update(_compiler_identity(cxx).encode())
    h.update("\0".join(flags).encode())
    for path in sources:
        h.update(str(path.relative_to(out_dir)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    for path in sorted((out_dir / "host").glob("*.h")):
        h.update(path.name.encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    if (out_dir / "sim").is_dir():
        _hash_tree(h, out_dir / "sim")
    else:
        _hash_tree(h, SIM_INCLUDE_DIR)
    return h.hexdigest()[:32]


def build(out_dir: Path, exe_name: str = "pypto_main", opt: str = "-O1") -> Path:
    """Compile kernels/*.cpp and host/*.cpp in `out_dir` with g++ against the simulation.

    Each translation unit starts from a precompiled header of the simulation headers
    (`precompiled_header`); the units compile in parallel, then link. With
    `$PYPTO_SIM_BUILD_CACHE` set, executables are also kept there by the hash of everything
    that goes into them, and a build whose inputs were built before is a copy."""
    out_dir = Path(out_dir)
    cxx = compiler()
    if cxx is None:
        raise SimulationError("no C++ compiler (g++) found; install g++ to run the simulation")
    include = out_dir / "sim" / "include"
    if not include.exists():
        include = SIM_INCLUDE_DIR
    kernels = sorted((out_dir / "kernels").glob("*.cpp"))
    hosts = sorted((out_dir / "host").glob("*.cpp"))
    if not (out_dir / "host" / "main.cpp").exists():
        raise SimulationError("nothing to run: the program has no orchestration function (no host/main.cpp)")
    build_dir = out_dir / "build-sim"
    build_dir.mkdir(exist_ok=True)
    exe = build_dir / exe_name
    flags = compile_flags(opt)
    cache = os.environ.get("PYPTO_SIM_BUILD_CACHE")
    cached = None
    if cache:
        cached = Path(cache) / _build_key(cxx, flags, out_dir, kernels + hosts) / "pypto_main"
        if cached.exists():
            shutil.copy2(cached, exe)
            return exe
    includes = [f"-I{include}", f"-I{out_dir / 'sim'}", f"-I{out_dir / 'host'}"]
    obj_dir = build_dir / f"{exe_name}.obj"
    obj_dir.mkdir(exist_ok=True)
    units = []
    for side, sources in (("kernel", kernels), ("host", hosts)):
        pch = precompiled_header(cxx, include, flags, side) if sources else None
        prefix = ["-Winvalid-pch", "-include", str(pch)] if pch is not None else []
        for src in sources:
            obj = obj_dir / f"{src.parent.name}_{src.stem}.o"
            units.append(([cxx, *flags, *includes, *prefix, "-c", str(src), "-o", str(obj)], obj))
    _compile_all([cmd for cmd, _ in units])
    link = [cxx, *[str(obj) for _, obj in units], "-o", str(exe), "-pthread"]
    _run_compiler(link)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        staging = cached.with_name(f".{cached.name}.{os.getpid()}")
        shutil.copy2(exe, staging)
        os.replace(staging, cached)
    return exe


def _run_compiler(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SimulationError(f"g++ failed ({' '.join(cmd)}):\n{proc.stderr}")


def _compile_all(commands: list[list[str]]) -> None:
    """Run the compile commands, up to one per core at a time; the first failure is raised
    (after the others finish)."""
    jobs = max(1, min(len(commands), os.cpu_count() or 1))
    running: list[tuple[list[str], subprocess.Popen]] = []
    failure: str | None = None
    pending = list(commands)
    while pending or running:
        while pending and len(running) < jobs:
            cmd = pending.pop(0)
            running.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        cmd, proc = running.pop(0)
        _, err = proc.communicate()
        if proc.returncode != 0 and failure is None:
            failure = f"g++ failed ({' '.join(cmd)}):\n{err}"
    if failure is not None:
        raise SimulationError(failure)


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
