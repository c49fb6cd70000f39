"""Scale benchmark (not a test): deep nesting, long call chains and large functions.

For every nesting kind of `pypto_xdsl.fuzz.scale` and depth, the tools run as users run them
(subprocesses; CPU seconds and peak resident memory of the child): `pypto-opt` (parse, verify,
print), `pypto-opt -p pypto-default` and `pypto-run`. Then `pypto-opt -p inline-functions`
on inline helper chains, and parse + print of one function of N ops against `mlir-opt` on the
same program in generic form (`--allow-unregistered-dialect`).

    .venv/bin/python benchmarks/bench_scale.py --depths 1000,3000,10000 --chains 1000,2000 --ops 50000,200000
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = ROOT / ".venv" / "bin"


def measure(cmd: list[str], timeout: float) -> tuple[float | None, float | None, int | None]:
    """(CPU seconds, peak RSS in MB, exit status) of one run of `cmd`, from GNU time (the
    rusage that wait4 reports for a child inherits the parent's high-water mark)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        timer = ["/usr/bin/time", "-q", "-f", "%U %S %M", "-o", stats.name] if os.path.exists("/usr/bin/time") else []
        try:
            proc = subprocess.run([*timer, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, None
        if proc.returncode != 0:
            sys.stderr.write(f"{' '.join(cmd[:3])}...: exit {proc.returncode}: {proc.stderr.decode()[-300:]}\n")
        fields = stats.read().split()
        if not timer or len(fields) < 3:
            return None, None, proc.returncode
        user, system, peak_kb = float(fields[-3]), float(fields[-2]), int(fields[-1])
        return user + system, peak_kb / 1024, proc.returncode


def fmt(t: float | None, mb: float | None, code: int | None) -> str:
    if t is None:
        return "   timeout    "
    mark = "" if code == 0 else f" (exit {code})"
    return f"{t:7.2f}s {mb:6.0f}MB{mark}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", default="1000,3000,10000")
    ap.add_argument("--chains", default="1000,2000")
    ap.add_argument("--ops", default="50000,200000")
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()

    from pypto_xdsl.fuzz import scale

    tmp = Path(tempfile.mkdtemp(prefix="pypto-scale-"))
    opt, run = str(BIN / "pypto-opt"), str(BIN / "pypto-run")
    print(f"{'nesting':24} {'depth':>6} | {'pypto-opt':^16} | {'-p pypto-default':^16} | {'pypto-run':^16}")
    for kind, build in scale.NESTING.items() if args.depths else ():
        for depth in map(int, args.depths.split(",")):
            path = tmp / f"{kind.replace('/', '_').replace(' ', '_')}_{depth}.mlir"
            path.write_text(build(depth))
            cells = [measure([opt, str(path), "-o", os.devnull], args.timeout)]
            cells.append(measure([opt, str(path), "-p", "pypto-default", "-o", os.devnull], args.timeout))
            cells.append(measure([run, str(path), "--dim", "N=4"], args.timeout) if kind in scale.EXPECTED
                         or kind.startswith("incore") else (None, None, None))
            print(f"{kind:24} {depth:6d} | " + " | ".join(fmt(*c) for c in cells), flush=True)

    print(f"\n{'inline chain':24} {'length':>6} | {'-p inline-functions':^16}")
    for length in map(int, args.chains.split(",")) if args.chains else []:
        path = tmp / f"chain_{length}.mlir"
        path.write_text(scale.inline_chain(length))
        print(f"{'helpers h<i> -> h<i-1>':24} {length:6d} | "
              + fmt(*measure([opt, str(path), "-p", "inline-functions", "-o", os.devnull], args.timeout)), flush=True)

    mlir = shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"
    print(f"\n{'one function':24} {'ops':>6} | {'pypto-opt':^16} | {'mlir-opt (generic)':^16}")
    for ops in map(int, args.ops.split(",")) if args.ops else []:
        path = tmp / f"ops_{ops}.mlir"
        path.write_text(scale.straight_line(ops))
        generic = tmp / f"ops_{ops}.generic.mlir"
        subprocess.run([opt, str(path), "--print-op-generic", "-o", str(generic)], check=True)
        ours = measure([opt, str(path), "-o", os.devnull], args.timeout)
        theirs = (
            measure([mlir, str(generic), "--allow-unregistered-dialect", "-o", os.devnull], args.timeout)
            if os.path.exists(mlir) else (None, None, None)
        )
        print(f"{'straight-line tensor ops':24} {ops:6d} | {fmt(*ours)} | {fmt(*theirs)}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
