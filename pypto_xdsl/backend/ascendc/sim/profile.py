"""The simulation's cost-model profile: reading, aggregating and printing it.

A simulated program run with `PYPTO_SIM_PROFILE=<file>` appends one JSON line per kernel
launch (`include/pypto_sim/cost.h`): estimated cycles of the launch's slowest core, busy cycles
per pipe on that core (S, V, M, MTE1, MTE2, MTE3, FIX, and GM: the core's share of the GM
bandwidth; a MIX kernel's slowest core group lists each of its cores' pipes, "AIC MTE2",
"AIV V", ...), and the launch's counters (GM bytes, DMA bursts, vector repeats, barriers, flags,
on-chip memory in use). The numbers are model estimates for an Ascend 910B, not measurements:
`docs/performance.md` describes the model, its parameters and their sources.

`pypto-compile --sim --profile` prints `format_profile`, `--report` prints `format_report`
and adds the same metrics to each kernel's header comment (`annotate_kernel_sources`).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto_xdsl.analysis.kernel_metrics import format_bytes

PIPES = ("MTE2", "MTE3", "V", "S", "M", "MTE1", "FIX")
"""Pipes in the order profiles list them (GM bandwidth is listed with them as `GM`)."""

MEMORY_CAPACITY = {"UB": 196608, "L1": 524288, "L0A": 65536, "L0B": 65536, "L0C": 131072}
CUBE_MACS_PER_CYCLE = 16 * 16 * 16
"""f16 multiply-accumulates per cycle of one cube core (devkit: 16x16x16 per cycle)."""


@dataclass
class KernelProfile:
    """The launches of one kernel in a run, added up (launches on one stream run in order)."""

    kernel: str
    launches: int = 0
    blocks: int = 0
    cores: int = 0
    core_type: str = "aiv"
    cycles: float = 0.0
    clock_ghz: float = 1.85
    hbm_gbps: float = 1600.0
    chip_cores: dict[str, int] = field(default_factory=dict)
    busy: dict[str, float] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    mem_used: dict[str, int] = field(default_factory=dict)

    @property
    def microseconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e3)

    def utilisation(self) -> dict[str, float]:
        """Busy fraction of each pipe (and of the GM port) on the slowest core."""
        if self.cycles <= 0:
            return {p: 0.0 for p in self.busy}
        return {p: b / self.cycles for p, b in self.busy.items()}

    @property
    def bounding_pipe(self) -> str:
        """The resource busiest on the critical core: a pipe, or GM (bandwidth)."""
        util = self.utilisation()
        return max(util, key=lambda p: util[p]) if util else "-"

    def gm_roofline_cycles(self, min_bytes: int | None = None) -> float:
        """Cycles the chip needs to move `min_bytes` (default: the bytes this kernel touched
        once, read + written) at full GM bandwidth with every core of its type streaming."""
        if min_bytes is None:
            min_bytes = self.counters.get("gm_read_unique", 0) + self.counters.get("gm_written_unique", 0)
        return min_bytes / (self.hbm_gbps / self.clock_ghz)

    def cube_roofline_cycles(self, macs: int | None = None) -> float:
        """Cycles every cube core of the chip needs for `macs` (default: the kernel's Mmad work)."""
        if macs is None:
            macs = self.counters.get("mmad_macs", 0)
        return macs / (CUBE_MACS_PER_CYCLE * self.chip_cores.get("aic", 24))

    def roofline_cycles(self, min_bytes: int | None = None, macs: int | None = None) -> float:
        return max(self.gm_roofline_cycles(min_bytes), self.cube_roofline_cycles(macs))


def read_profile(path: Path) -> list[dict[str, Any]]:
    """The launch records of a profile file (one JSON object per line)."""
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def by_kernel(launches: Sequence[Mapping[str, Any]]) -> dict[str, KernelProfile]:
    """Add up the launches of each kernel, in the order kernels were first launched."""
    result: dict[str, KernelProfile] = {}
    for rec in launches:
        k = result.setdefault(rec["kernel"], KernelProfile(rec["kernel"]))
        k.launches += 1
        k.blocks = max(k.blocks, int(rec["blocks"]))
        k.cores = max(k.cores, int(rec["cores"]))
        k.core_type = rec["core_type"]
        k.cycles += float(rec["cycles"])
        k.clock_ghz = float(rec.get("clock_ghz", k.clock_ghz))
        k.hbm_gbps = float(rec.get("hbm_gbps", k.hbm_gbps))
        k.chip_cores = {"aiv": int(rec.get("aiv_cores", 48)), "aic": int(rec.get("aic_cores", 24))}
        for p, b in rec["busy"].items():
            k.busy[p] = k.busy.get(p, 0.0) + float(b)
        for name, v in rec["counters"].items():
            if name == "dma_min_burst":
                if v:
                    k.counters[name] = min(k.counters.get(name, v), v)
            elif name == "dma_max_burst":
                k.counters[name] = max(k.counters.get(name, 0), v)
            else:
                k.counters[name] = k.counters.get(name, 0) + int(v)
        for mem, used in rec["mem_used"].items():
            k.mem_used[mem] = max(k.mem_used.get(mem, 0), int(used))
    for k in result.values():  # pipes the kernel never used are not listed
        k.busy = {p: b for p, b in k.busy.items() if b > 0 or p in ("MTE2", "MTE3", "V", "S", "GM")}
    return result


CORES = ("AIC", "AIV", "AIV0", "AIV1")
"""The cores of a MIX kernel's core group, in the order profiles list them."""


def ordered_resources(names) -> list[str]:
    """GM first, then the pipes in `PIPES` order; a MIX kernel's "<core> <pipe>" names core by core."""
    rank = {p: i for i, p in enumerate(("GM", *PIPES))}

    def key(name: str):
        core, _, pipe = name.rpartition(" ")
        return (CORES.index(core) if core in CORES else -1, rank.get(pipe, len(rank)), name)

    return sorted(names, key=key)


def program_min_bytes(func, dims: dict[str, int] | None = None) -> int | None:
    """GM bytes an orchestration function must move at least: each `in` tensor read once,
    each `out` tensor written once, `inout` tensors both; a dynamic extent takes its value
    from `dims` (None when it is not there)."""
    from pypto_xdsl.dialects.attributes import ParamDirection, TensorType
    from pypto_xdsl.interpreter.values import numpy_dtype

    total = 0
    for arg, d in zip(func.args, func.directions):
        t = arg.type
        if not isinstance(t, TensorType):
            continue
        n = 1
        for x in t.get_shape():
            extent = (dims or {}).get(x) if isinstance(x, str) else int(x)
            if extent is None:
                return None
            n *= extent
        nbytes = n * numpy_dtype(t.element_type).itemsize
        total += nbytes * (2 if d == ParamDirection.INOUT else 1)
    return total


def format_profile(kernels: Mapping[str, KernelProfile], indent: str = "  ") -> str:
    """Per kernel: estimated cycles, bounding pipe, utilisation per pipe."""
    if not kernels:
        return f"{indent}(no kernel was launched)"
    lines = []
    total = sum(k.cycles for k in kernels.values())
    first = next(iter(kernels.values()))
    lines.append(
        f"{indent}cost model (estimates for Ascend 910B at {first.clock_ghz:g} GHz, docs/performance.md): "
        f"{total:,.0f} cycles = {total / (first.clock_ghz * 1e3):.2f} us in kernels"
    )
    for k in kernels.values():
        launches = f"{k.launches} launches" if k.launches != 1 else "1 launch"
        lines.append(
            f"{indent}kernel {k.kernel}: {k.cycles:,.0f} cycles ({k.microseconds:.2f} us), {launches}, "
            f"{k.blocks} blocks on {k.cores} {_core_kind(k)}, bound by {k.bounding_pipe}"
        )
        util = k.utilisation()
        lines.append(indent * 2 + "  ".join(f"{p} {util[p] * 100:5.1f}%" for p in ordered_resources(util)))
    return "\n".join(lines)


def _core_kind(k: KernelProfile) -> str:
    if k.core_type != "mix":
        return f"{k.core_type.upper()} cores"
    aivs = sum(1 for p in k.busy if p.startswith("AIV") and p.endswith(" S"))
    return f"MIX core groups (AIC + {aivs} AIV{'s' if aivs > 1 else ''}, concurrent)"


def report_lines(k: KernelProfile, min_bytes: int | None = None) -> list[str]:
    """The metrics of one kernel, one per line (no prefix)."""
    c = k.counters
    read, written = c.get("gm_read", 0), c.get("gm_written", 0)
    uread, uwritten = c.get("gm_read_unique", 0), c.get("gm_written_unique", 0)
    lines = [
        f"GM read {format_bytes(read)} ({format_bytes(uread)} distinct, ratio {read / max(uread, 1):.2f}), "
        f"written {format_bytes(written)} ({format_bytes(uwritten)} distinct, ratio {written / max(uwritten, 1):.2f})"
        + (f"; L2 hits {format_bytes(c['l2_hit_bytes'])}" if c.get("l2_hit_bytes") else "")
    ]
    if min_bytes is not None:
        lines.append(f"GM traffic vs the program's minimum {format_bytes(min_bytes)}: {(read + written) / max(min_bytes, 1):.2f}x")
    mems = []
    for mem, cap in MEMORY_CAPACITY.items():
        used = k.mem_used.get(mem, 0)
        if used or mem == "UB":
            mems.append(f"{mem} {used}/{cap} ({used / cap * 100:.0f}%)")
    lines.append("on-chip memory: " + ", ".join(mems))
    dma = c.get("dma", 0)
    if dma:
        bursts = c.get("dma_bursts", 0)
        lines.append(
            f"DMA: {dma} instructions, {bursts} bursts, {format_bytes((read + written) / dma)} per instruction, "
            f"burst {c.get('dma_min_burst', 0)}..{c.get('dma_max_burst', 0)} B (mean {(read + written) / max(bursts, 1):.0f} B)"
            + (f", {c['dma_misaligned']} bursts not 512-byte aligned in GM" if c.get("dma_misaligned") else "")
        )
    vec = c.get("vec", 0)
    if vec:
        reps = c.get("vec_repeats", 0)
        lines.append(
            f"vector: {vec} instructions, {reps} repeats ({reps / vec:.1f} per instruction, "
            f"{reps / max(uwritten / 256, 1):.2f} per 256 B of output)"
        )
    if c.get("mmad"):
        lines.append(f"cube: {c['mmad']} Mmad ({c['mmad_macs']:,} MACs), {c.get('mte1', 0)} LoadData, {c.get('fixpipe', 0)} Fixpipe")
    lines.append(
        f"sync: {c.get('barriers_v', 0)} PipeBarrier<PIPE_V>, {c.get('barriers_all', 0)} PipeBarrier<PIPE_ALL>, "
        f"{c.get('set_flags', 0)} SetFlag / {c.get('wait_flags', 0)} WaitFlag, "
        f"{c.get('enques', 0)} EnQue / {c.get('deques', 0)} DeQue"
        + (f", {c['scalar_ub']} scalar UB accesses" if c.get("scalar_ub") else "")
        + (f", {c.get('cross_sets', 0)} CrossCoreSetFlag / {c.get('cross_waits', 0)} CrossCoreWaitFlag"
           if c.get("cross_sets") or c.get("cross_waits") else "")
    )
    return lines


def format_report(
    kernels: Mapping[str, KernelProfile], min_bytes: int | None = None, indent: str = "  ",
    static: Mapping[str, list[str]] | None = None,
) -> str:
    """Per kernel: GM traffic against what it touched, memory use, DMA and vector work, sync;
    `static`: each kernel's static counts (`analysis.kernel_metrics`), printed after them."""
    if not kernels:
        return f"{indent}(no kernel was launched)"
    lines = [f"{indent}metrics (dynamic counts of the simulated run, all blocks and launches)"]
    only = len(kernels) == 1
    for k in kernels.values():
        lines.append(f"{indent}kernel {k.kernel}:")
        lines.extend(indent * 2 + s for s in report_lines(k, min_bytes if only else None))
        lines.extend(indent * 2 + s for s in (static or {}).get(k.kernel, []))
    return "\n".join(lines)


_HEADER_BEGIN = "// Cost-model metrics of the simulated run (pypto-compile --report):"


def annotate_kernel_sources(
    out_dir: Path, kernels: Mapping[str, KernelProfile], static: Mapping[str, list[str]] | None = None
) -> list[Path]:
    """Add each launched kernel's metrics (and its static counts, `static`) to the header
    comment of `kernels/<name>.cpp`."""
    changed = []
    for k in kernels.values():
        path = Path(out_dir) / "kernels" / f"{k.kernel}.cpp"
        if not path.exists():
            continue
        lines = path.read_text().splitlines()
        if _HEADER_BEGIN in lines:  # replace an earlier annotation
            start = lines.index(_HEADER_BEGIN)
            end = start + 1
            while end < len(lines) and lines[end].startswith("//   "):
                end += 1
            del lines[start:end]
        at = 0
        while at < len(lines) and lines[at].startswith("//"):
            at += 1
        util = k.utilisation()
        block = [
            _HEADER_BEGIN,
            f"//   {k.cycles:,.0f} cycles estimated, bound by {k.bounding_pipe}; "
            + ", ".join(f"{p} {util[p] * 100:.0f}%" for p in ordered_resources(util)),
            *("//   " + s for s in report_lines(k)),
            *("//   " + s for s in (static or {}).get(k.kernel, [])),
        ]
        lines[at:at] = block
        path.write_text("\n".join(lines) + "\n")
        changed.append(path)
    return changed


# --------------------------------------------------------------------------- hand-written kernels


@dataclass
class KernelRun:
    """A hand-written kernel run in the simulation: its outputs and its profile."""

    outputs: list[Any]
    profile: KernelProfile
    launches: list[dict[str, Any]]


def run_kernel_source(
    source: Path,
    kernel: str,
    block_dim: int,
    args: Sequence[Any],
    *,
    defines: Mapping[str, Any] | None = None,
    cost_params: Mapping[str, float] | None = None,
    work_dir: Path | None = None,
    mix: bool = False,
) -> KernelRun:
    """Compile a hand-written Ascend C kernel file against the simulation, launch it once on
    `block_dim` blocks with `args` (numpy arrays become GM buffers, in order; other values are
    passed as `int64_t`/`float` scalars) and return the arrays after the launch and its profile.

    `defines` become `-DNAME=VALUE` (kernels take their sizes as macros); `cost_params`
    override cost-model parameters (`PYPTO_SIM_COST`); `mix` launches a MIX kernel (an AIC and
    an AIV per block, `pypto_sim::launch_mix`). Scalars reach the kernel through the command
    line, so runs that differ only in scalar values share one build (cached by the sources,
    flags and the simulation headers).
    """
    import numpy as np

    from pypto_xdsl.backend.ascendc import sim

    work = Path(work_dir or tempfile.mkdtemp(prefix="pypto-kernel-"))
    work.mkdir(parents=True, exist_ok=True)
    params, decls, calls, setup, teardown, scalars = [], [], [], [], [], []
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    array_index = {i: j for j, i in enumerate(i for i, a in enumerate(args) if isinstance(a, np.ndarray))}
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            n = a.nbytes
            j = array_index[i]
            decls.append("uint8_t*")
            setup.append(
                f"  void* d{i}; if (aclrtMalloc(&d{i}, {n}, ACL_MEM_MALLOC_HUGE_FIRST)) return 1;\n"
                f"  {{ std::vector<uint8_t> h({n}); FILE* f = std::fopen(argv[1 + {j}], \"rb\");\n"
                f"    if (!f || std::fread(h.data(), 1, {n}, f) != {n}) return 2; std::fclose(f);\n"
                f"    aclrtMemcpy(d{i}, {n}, h.data(), {n}, ACL_MEMCPY_HOST_TO_DEVICE); }}"
            )
            calls.append(f"static_cast<uint8_t*>(d{i})")
            teardown.append(
                f"  {{ std::vector<uint8_t> h({n}); aclrtMemcpy(h.data(), {n}, d{i}, {n}, ACL_MEMCPY_DEVICE_TO_HOST);\n"
                f"    FILE* f = std::fopen(argv[1 + {len(arrays) + j}], \"wb\");\n"
                f"    if (!f) return 3; std::fwrite(h.data(), 1, {n}, f); std::fclose(f); aclrtFree(d{i}); }}"
            )
        elif isinstance(a, float):
            decls.append("float")
            calls.append(f"scalar{i}")
            setup.append(f"  const float scalar{i} = std::strtof(argv[1 + {2 * len(arrays)} + {len(scalars)}], nullptr);")
            scalars.append(repr(float(a)))
        else:
            decls.append("int64_t")
            calls.append(f"scalar{i}")
            setup.append(f"  const int64_t scalar{i} = std::strtoll(argv[1 + {2 * len(arrays)} + {len(scalars)}], nullptr, 10);")
            scalars.append(str(int(a)))
    params = ", ".join(decls)
    driver = (
        "// driver generated by pypto_xdsl.backend.ascendc.sim.profile.run_kernel_source\n"
        "#include <cstdio>\n#include <cstdlib>\n#include <vector>\n#include \"pypto_sim/launch.h\"\n"
        f"extern \"C\" void {kernel}({params});\n"
        "int main(int argc, char** argv) {\n  (void)argc;\n  aclInit(nullptr);\n  aclrtSetDevice(0);\n"
        "  aclrtStream stream; aclrtCreateStream(&stream);\n"
        + "\n".join(setup)
        + f"\n  pypto_sim::{'launch_mix' if mix else 'launch'}(\"{kernel}\", {block_dim}, stream, [&] {{ {kernel}({', '.join(calls)}); }});\n"
        + "\n".join(teardown)
        + "\n  aclrtDestroyStream(stream);\n  aclrtResetDevice(0);\n  aclFinalize();\n  return 0;\n}\n"
    )
    cxx = sim.compiler()
    if cxx is None:
        raise sim.SimulationError("no C++ compiler (g++) found; install g++ to run the simulation")
    flags = [f"-D{k}={v}" for k, v in (defines or {}).items()]
    exe = _cached_build(cxx, flags, Path(source), driver, work)
    ins, outs = [], []
    for j, a in enumerate(arrays):
        p = work / f"in{j}.bin"
        np.ascontiguousarray(a).tofile(p)
        ins.append(str(p))
        outs.append(str(work / f"out{j}.bin"))
    prof = work / "profile.jsonl"
    env = dict(os.environ)
    if cost_params:
        env["PYPTO_SIM_COST"] = ",".join(f"{k}={v}" for k, v in cost_params.items())
    run = sim.run_profiled([str(exe), *ins, *outs, *scalars], prof, env=env, timeout=600)
    if run.returncode != 0:
        raise sim.SimulationError(f"{source.name}: the simulated kernel exited with {run.returncode}:\n{run.stderr}")
    results = [np.fromfile(o, dtype=a.dtype).reshape(a.shape) for o, a in zip(outs, arrays)]
    launches = read_profile(prof)
    return KernelRun(results, by_kernel(launches)[kernel], launches)


def _cached_build(cxx: str, flags: list[str], source: Path, driver: str, work: Path) -> Path:
    """The kernel + driver executable, built once per (sources, flags, simulation headers)."""
    import hashlib
    import shutil

    from pypto_xdsl.backend.ascendc import sim

    digest = hashlib.sha256("\0".join([cxx, *flags, source.read_text(), driver]).encode())
    for header in sorted(Path(sim.SIM_INCLUDE_DIR).rglob("*.h")):
        digest.update(header.read_bytes())
    cache = Path(tempfile.gettempdir()) / f"pypto-kernel-cache-{os.getuid()}" / digest.hexdigest()[:32]
    exe = cache / "kernel_run"
    if not exe.exists():
        (work / "driver.cpp").write_text(driver)
        built = work / "kernel_run"
        cmd = [cxx, "-std=c++17", "-O1", "-Wall", "-Wno-unused-variable", *flags, f"-I{sim.SIM_INCLUDE_DIR}",
               str(source), str(work / "driver.cpp"), "-o", str(built)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise sim.SimulationError(f"g++ failed ({' '.join(cmd)}):\n{proc.stderr}")
        cache.mkdir(parents=True, exist_ok=True)
        staged = cache / f"kernel_run.{os.getpid()}"
        shutil.copy2(built, staged)
        os.replace(staged, exe)  # atomic: parallel test workers may build the same kernel
    return exe
