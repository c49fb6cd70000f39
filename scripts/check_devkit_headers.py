#!/usr/bin/env python3
"""Type-check every Ascend C kernel and ACL host file the backend emits against the real headers.

    .venv/bin/python scripts/check_devkit_headers.py --devkit DIR --acl-include DIR [--jobs N]
    make check-headers DEVKIT=... ACL_INCLUDE=...

The corpus is generated here, from the repository's own inputs: the first `-t ascendc` RUN line
of each tests/filecheck/backend/*.mlir (its `-p` pipeline, every `--split-input-file` chunk),
tests/backend_inputs/*, examples/**/*.mlir|py, the benchmark programs of
benchmarks/bench_kernels.py, the MIX workloads of tests/test_mixed_kernels.py (f16 and bf16),
and the hand-written kernels of tests/perf_kernels/ in each variant their `#if`s select. Inputs
the compiler rejects (diagnostics tests) are listed as skipped.

Kernels: `clang++ -fsyntax-only` against the devkit with the defines of its own CPU-debug
dav-c220 build (tests/api/basic_api/CMakeLists.txt: `__NPU_ARCH__=2201 __DAV_C220__
__DAV_C220_VEC__ __DAV_VEC__` for AIV, `__DAV_C220_CUBE__ __DAV_CUBE__` for AIC,
`ASCENDC_CPU_DEBUG=1`) and the include directories of its NPU build
(cmake/asc/legacy_modules/bisheng_intf.cmake). A vector kernel compiles as AIV, a
KERNEL_TYPE_AIC_ONLY kernel as AIC, a MIX kernel as both. What the CANN CPU-debug library
(tikicpulib, not public) adds — keywords, half/bfloat16, the compiler intrinsics — comes from
scripts/devkit_cpu_stub/; kernel_tiling/kernel_tiling.h is generated with the devkit's own
impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py, as its build does.

Host files (host/*.cpp, host/*.h): against the ACL headers, with an aclrtlaunch_<kernel>.h per
kernel written the way CANN's ascendc_library generates it
(cmake/asc/legacy_modules/util/extract_host_stub.py: `#include "acl/acl_base.h"`,
`#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func`, and
`extern "C" uint32_t aclrtlaunch_<k>(uint32_t numBlocks, aclrtStream stream, <params>)` with
every GM_ADDR parameter as `void*` and scalars as declared).

--devkit and --acl-include take a directory or a git directory (the /work/.mirror snapshots);
a git directory's HEAD is extracted once under --work. Prints one line per file, the
compiler's first error for a failing one, and `kernels: N/M OK, host: N/M OK`; exits 1 on any
failure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUB_DIR = Path(__file__).resolve().parent / "devkit_cpu_stub"
ACL_TREE = "910/inc/external"  # where mindspore-ai/graphengine keeps the public ACL headers

# tests/api/basic_api/CMakeLists.txt (ascend910B1_AIV / ascend910B1_AIC) and the CPU half of
# tests/api/basic_api/ascendc_header_checker/CMakeLists.txt.
COMMON_DEFINES = ["-D__NPU_ARCH__=2201", "-D__DAV_C220__", "-DASCENDC_CPU_DEBUG=1"]
CORE_DEFINES = {
    "aiv": ["-D__DAV_C220_VEC__", "-D__DAV_VEC__"],
    "aic": ["-D__DAV_C220_CUBE__", "-D__DAV_CUBE__"],
}
# cmake/asc/legacy_modules/bisheng_intf.cmake (device_intf_pub), `asc/` being the devkit root.
DEVKIT_INCLUDES = [
    "impl/adv_api", "impl/basic_api", "impl/c_api", "impl/basic_api/reg_compute", "impl/simt_api",
    "impl/utils", ".", "include", "include/adv_api", "include/basic_api", "include/aicpu_api",
    "include/c_api", "include/basic_api/reg_compute", "include/simt_api", "include/utils", "impl",
]
KERNEL_SIGNATURE = re.compile(r'extern\s+"C"\s+__global__\s+__aicore__\s+void\s+(\w+)\s*\(([^)]*)\)')


@dataclass
class Program:
    """One input's emitted files (relative path -> text), or why the compiler rejected it."""

    name: str
    files: dict[str, str] = field(default_factory=dict)
    skipped: str = ""


@dataclass
class Check:
    """One file to type-check: a kernel on its core types, or a host file."""

    kind: str  # "kernel" or "host"
    label: str
    path: Path
    commands: list[tuple[str, list[str]]]  # (core type or "host", clang arguments)


# ----------------------------------------------------------------------------- header sources


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _extract(git_dir: Path, trees: list[str], work: Path, prefix: str) -> Path:
    """`git archive HEAD <trees>` of a git directory, once per commit, under `work`."""
    commit = subprocess.run(["git", "-C", str(git_dir), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    dest = work / f"{prefix}-{commit[:12]}"
    stamp = dest / ".extracted"
    if not stamp.exists():
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(git_dir), "archive", "HEAD", *trees], check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest, filter="data")
        stamp.write_text(commit + "\n")
    return dest


def resolve_devkit(path: Path, work: Path) -> Path:
    if (path / "include" / "kernel_operator.h").is_file():
        return path
    if _is_git_dir(path):
        return _extract(path, ["include", "impl"], work, "devkit")
    raise SystemExit(f"check_devkit_headers: error: {path} has no include/kernel_operator.h and is not a git directory")


def resolve_acl(path: Path, work: Path) -> Path:
    if (path / "acl" / "acl.h").is_file():
        return path
    if _is_git_dir(path):
        return _extract(path, [ACL_TREE], work, "acl") / ACL_TREE
    raise SystemExit(f"check_devkit_headers: error: {path} has no acl/acl.h and is not a git directory")


def generate_kernel_tiling(devkit: Path, work: Path) -> Path:
    """kernel_tiling/kernel_tiling.h from the devkit's tiling definitions, with its own script."""
    script = devkit / "impl" / "adv_api" / "cmake" / "scripts" / "gen_kernel_tiling_data_def.py"
    key = hashlib.sha256(str(devkit.resolve()).encode()).hexdigest()[:12]
    out_dir = work / f"kernel-tiling-{key}"
    header = out_dir / "kernel_tiling" / "kernel_tiling.h"
    if not header.exists():
        header.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(script), str(devkit / "include" / "adv_api"), str(header)],
                       check=True, capture_output=True, text=True)
    return out_dir


# ----------------------------------------------------------------------------- the corpus


def _first_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _compile(name: str, load, pipeline: str, entry: str | None = None) -> Program:
    """Run one input through `pipeline` and the backend; a rejection is a skipped program."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException, VerifyException

    from pypto_xdsl.frontend.errors import ParserError
    from pypto_xdsl.runtime.passes import emit_ascendc
    from pypto_xdsl.tools.pypto_compile import apply_pipeline

    rejected = (DiagnosticException, ParseError, PassFailedException, VerifyException, ParserError)
    try:
        module = load()
        apply_pipeline(module, pipeline)
        emitted = emit_ascendc(module, entry=entry, with_sim=False)
    except rejected as exc:
        return Program(name, skipped=_first_error(exc))
    files = {p: t for p, t in emitted.files.items() if p.startswith(("kernels/", "host/"))}
    return Program(name, files=files)


def _run_line(text: str) -> str | None:
    """The first RUN line that prints Ascend C (`-t ascendc`)."""
    for line in text.splitlines():
        if "RUN:" in line and re.search(r"-t\s+'?ascendc", line):
            return line
    return None


def _option(line: str, flag: str) -> str | None:
    m = re.search(rf"{flag}\s+('([^']*)'|\"([^\"]*)\"|(\S+))", line)
    return None if m is None else next(g for g in m.groups()[1:] if g is not None)


def filecheck_programs() -> list[Program]:
    from pypto_xdsl.tools.pypto_compile import parse_program

    out = []
    for path in sorted((ROOT / "tests" / "filecheck" / "backend").glob("*.mlir")):
        text = path.read_text()
        line = _run_line(text)
        if line is None:
            continue
        pipeline = _option(line, "-p") or ""
        target = _option(line, "-t") or "ascendc"
        entry = m.group(1) if (m := re.search(r"entry=(\w+)", target)) else None
        chunks = re.split(r"^// -----\s*$", text, flags=re.MULTILINE) if "--split-input-file" in line else [text]
        for k, chunk in enumerate(chunks):
            name = f"filecheck-backend/{path.stem}" + (f"#{k}" if len(chunks) > 1 else "")
            out.append(_compile(name, lambda c=chunk: parse_program(c, name=str(path)), pipeline, entry))
    return out


def file_programs() -> list[Program]:
    """tests/backend_inputs (pypto-default, as the pass tests run them) and the examples
    (pypto-compile's pipeline)."""
    from pypto_xdsl.tools.pypto_compile import default_pipeline, load_program

    inputs = sorted((ROOT / "tests" / "backend_inputs").glob("*.mlir")) + sorted((ROOT / "tests" / "backend_inputs").glob("*.py"))
    examples = sorted((ROOT / "examples").rglob("*.mlir")) + sorted((ROOT / "examples").rglob("*.py"))
    out = [_compile(str(p.relative_to(ROOT)), lambda p=p: load_program(p), "pypto-default") for p in inputs]
    out += [_compile(str(p.relative_to(ROOT)), lambda p=p: load_program(p), default_pipeline()) for p in examples]
    return out


def benchmark_programs() -> list[Program]:
    """The generated side of benchmarks/bench_kernels.py."""
    from pypto_xdsl.frontend.program import parse_python_file
    from pypto_xdsl.tools.pypto_compile import default_pipeline

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_kernels

    return [_compile(f"benchmarks/bench_kernels:{name}", lambda t=text, n=name: parse_python_file(t, f"<bench {n}>"),
                     default_pipeline()) for name, text in bench_kernels.PROGRAMS.items()]


def mixed_workload_programs() -> list[Program]:
    """The MIX workloads of tests/test_mixed_kernels.py, every shape and dtype it runs."""
    from pypto_xdsl.tools.pypto_compile import default_pipeline

    sys.path.insert(0, str(ROOT))
    from tests.test_mixed_kernels import CASES, _case

    out = []
    for workload, shape, dtype in CASES:
        program = _case(workload, shape, dtype)[0]
        name = f"tests/test_mixed_kernels:{workload}-{'x'.join(map(str, shape))}-{dtype}"
        out.append(_compile(name, program.fresh_module, default_pipeline()))
    return out


def hand_written_variants(path: Path) -> list[dict[str, str]]:
    """The define sets that select each branch of a hand-written kernel: its defaults, every
    value an `#if NAME == v` chain tests (one past the last when the chain has an `#else`), and
    1 for a flag that defaults to 0."""
    text = path.read_text()
    defaults = dict(re.findall(r"#ifndef (\w+)\s*\n#define \1 (\S+)", text))
    values: dict[str, set[str]] = {}
    chain: str | None = None
    for line in text.splitlines():
        line = line.strip()
        if m := re.match(r"#(?:el)?if\s+(\w+)\s*==\s*(\d+)", line):
            chain = m.group(1)
            values.setdefault(chain, set()).add(m.group(2))
        elif line.startswith("#else") and chain is not None:
            values[chain].add(str(max(int(v) for v in values[chain]) + 1))
        elif line.startswith("#endif"):
            chain = None
    for name, default in defaults.items():
        if default == "0" and re.search(rf"#if\s+{name}\b\s*$|\bif\s*(constexpr\s*)?\(\s*{name}\s*\)", text, re.MULTILINE):
            values.setdefault(name, set()).add("1")
    variants: list[dict[str, str]] = [{}]
    for name in sorted(values):
        for value in sorted(values[name] - {defaults.get(name)}, key=int):
            variants.append({name: value})
    return variants


# ----------------------------------------------------------------------------- the checks


def core_types(kernel_source: str) -> list[str]:
    """The core types a kernel is compiled for: AIV, AIC, or both for a MIX kernel."""
    m = re.search(r"KERNEL_TASK_TYPE_DEFAULT\((\w+)\)", kernel_source)
    if m is None or m.group(1) == "KERNEL_TYPE_AIV_ONLY":
        return ["aiv"]
    if m.group(1) == "KERNEL_TYPE_AIC_ONLY":
        return ["aic"]
    return ["aic", "aiv"]


def launch_header(kernel: str, params: str) -> str:
    """The aclrtlaunch_<kernel>.h CANN generates for a kernel signature."""
    out = []
    names = set()
    for param in (p.strip() for p in params.split(",") if p.strip()):
        ctype, pname = param.rsplit(None, 1)
        names.add(pname)
        out.append(f"void* {pname}" if ctype == "GM_ADDR" or "__gm__" in ctype else f"{ctype} {pname}")
    lead = ["uint32_t " + ("_numBlocks" if "numBlocks" in names else "numBlocks"),
            "aclrtStream " + ("_stream" if "stream" in names else "stream")]
    guard = f"HEADER_ACLRTLAUNCH_{kernel.upper()}_H"
    return (f"#ifndef {guard}\n#define {guard}\n#include \"acl/acl_base.h\"\n\n"
            "#ifndef ACLRT_LAUNCH_KERNEL\n#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n#endif\n\n"
            f"extern \"C\" uint32_t aclrtlaunch_{kernel}({', '.join(lead + out)});\n#endif\n")


def kernel_flags(devkit: Path, tiling: Path) -> list[str]:
    """System include directories, as the devkit's own .clangd passes them: a warning clang
    makes an error by default (a narrowing in the CPU-debug checks, which the devkit builds
    with g++) stays quiet inside the devkit and is still an error in our kernels."""
    dirs = [STUB_DIR] + [(devkit / d).resolve() for d in DEVKIT_INCLUDES] + [tiling]
    return ["-x", "c++", "-std=c++17", "-fsyntax-only", *(f for d in dirs for f in ("-isystem", str(d))), *COMMON_DEFINES]


def build_pchs(clang: str, devkit: Path, tiling: Path, work: Path) -> dict[str, Path]:
    """kernel_operator.h precompiled once per core type: most of a kernel's parse time."""
    header = devkit / "include" / "kernel_operator.h"
    base = kernel_flags(devkit, tiling)
    pchs = {}
    for core, defines in CORE_DEFINES.items():
        flags = [a for a in base if a != "-fsyntax-only"] + defines
        stubs = [f.read_text() for f in sorted(STUB_DIR.glob("*.h"))]
        key = hashlib.sha256("\0".join([clang, *flags, header.read_text(), *stubs]).encode()).hexdigest()[:16]
        pch = work / "pch" / f"kernel_operator-{core}-{key}.pch"
        if not pch.exists():
            pch.parent.mkdir(parents=True, exist_ok=True)
            tmp = pch.with_suffix(f".{os.getpid()}.tmp")
            header_flags = ["c++-header" if a == "c++" else a for a in flags]
            proc = subprocess.run([clang, *header_flags, str(header), "-o", str(tmp)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"check_devkit_headers: error: kernel_operator.h does not compile for {core}:\n{proc.stderr}")
            tmp.replace(pch)
        pchs[core] = pch
    return pchs


def _kernel_command(base: list[str], core: str, pchs: dict[str, Path], source: Path, text: str, extra=()) -> list[str]:
    """A kernel whose first include is kernel_operator.h uses its precompiled form."""
    first = re.search(r'^\s*#\s*include\s*[<"]([^">]+)[">]', text, re.MULTILINE)
    pch = ["-include-pch", str(pchs[core])] if first and first.group(1) == "kernel_operator.h" else []
    return base + CORE_DEFINES[core] + list(extra) + pch + [str(source)]


def write_corpus(programs: list[Program], corpus: Path, devkit: Path, tiling: Path, acl: Path,
                 pchs: dict[str, Path]) -> list[Check]:
    shutil.rmtree(corpus, ignore_errors=True)
    base = kernel_flags(devkit, tiling)
    checks: list[Check] = []
    for program in programs:
        if program.skipped:
            continue
        pdir = corpus / re.sub(r"[^\w.#-]+", "_", program.name)
        for rel, text in sorted(program.files.items()):
            target = pdir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            if rel.startswith("kernels/") and rel.endswith(".cpp"):
                checks.append(Check("kernel", f"{program.name}: {rel}", target,
                                    [(core, _kernel_command(base, core, pchs, target, text)) for core in core_types(text)]))
                for kernel, params in KERNEL_SIGNATURE.findall(text):
                    launch = pdir / "launch" / f"aclrtlaunch_{kernel}.h"
                    launch.parent.mkdir(parents=True, exist_ok=True)
                    launch.write_text(launch_header(kernel, params))
        for rel in sorted(program.files):
            if rel.startswith("host/") and rel.endswith((".cpp", ".h")):
                host = pdir / rel
                args = ["-x", "c++", "-std=c++17", "-fsyntax-only", f"-I{acl}", f"-I{pdir / 'launch'}",
                        f"-I{host.parent}", str(host)]
                checks.append(Check("host", f"{program.name}: {rel}", host, [("host", args)]))
    for path in sorted((ROOT / "tests" / "perf_kernels").glob("*.cpp")):
        text = path.read_text()
        for defines in hand_written_variants(path):
            flags = [f"-D{k}={v}" for k, v in defines.items()]
            tag = ",".join(f"{k}={v}" for k, v in defines.items())
            checks.append(Check("kernel", f"{path.relative_to(ROOT)}" + (f" [{tag}]" if tag else ""), path,
                                [(core, _kernel_command(base, core, pchs, path, text, flags)) for core in core_types(text)]))
    return checks


def run_check(clang: str, check: Check) -> tuple[Check, list[str], str]:
    """(check, core types that passed, the first error of the first failing compile)."""
    passed = []
    for core, args in check.commands:
        proc = subprocess.run([clang, *args], capture_output=True, text=True)
        if proc.returncode != 0:
            lines = proc.stderr.splitlines()
            first = next((ln for ln in lines if " error: " in ln or ln.startswith("error:")), lines[0] if lines else "")
            return check, passed, f"[{core}] {first}"
        passed.append(core)
    return check, passed, ""


def find_clang(requested: str | None) -> str:
    for candidate in ([requested] if requested else ["clang++-19", "clang++"]):
        if shutil.which(candidate):
            return candidate
    raise SystemExit("check_devkit_headers: error: no clang++ found (make check-headers installs clang-19)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devkit", type=Path, required=True, help="asc-devkit checkout or git directory")
    parser.add_argument("--acl-include", type=Path, required=True,
                        help=f"directory holding acl/acl.h, or a graphengine git directory ({ACL_TREE})")
    parser.add_argument("--clang", help="clang++ to use (default clang++-19, else clang++)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "header-check")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the skipped inputs")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    clang = find_clang(args.clang)
    args.work.mkdir(parents=True, exist_ok=True)
    devkit = resolve_devkit(args.devkit, args.work)
    acl = resolve_acl(args.acl_include, args.work)
    tiling = generate_kernel_tiling(devkit, args.work)

    programs = filecheck_programs() + file_programs() + benchmark_programs() + mixed_workload_programs()
    skipped = [p for p in programs if p.skipped]
    checks = write_corpus(programs, args.work / "corpus", devkit, tiling, acl, build_pchs(clang, devkit, tiling, args.work))
    print(f"{len(programs)} inputs ({len(skipped)} rejected by the compiler), {clang}, devkit {devkit}, ACL {acl}")
    if args.verbose:
        for p in skipped:
            print(f"SKIP {p.name}: {p.skipped}")

    ok = {"kernel": 0, "host": 0}
    total = {"kernel": 0, "host": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for check, passed, error in pool.map(lambda c: run_check(clang, c), checks):
            total[check.kind] += 1
            if error:
                print(f"FAIL {check.kind} {check.label}: {error}")
            else:
                ok[check.kind] += 1
                print(f"OK   {check.kind} {check.label} [{','.join(passed)}]")
    print(f"kernels: {ok['kernel']}/{total['kernel']} OK, host: {ok['host']}/{total['host']} OK")
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
