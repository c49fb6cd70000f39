"""Benchmark of the inline-functions pass (not a test).

Generates programs with N call sites of a small helper (and programs with deep helper
chains) and prints, per size: parse, verify, pass and print CPU times, the ratio of the pass
time to the previous size's, and the pass time relative to parsing the input module and the
module the pass produces (`parse out`: 3 ops per site instead of 1 call). It also writes the
equivalent `func`-dialect program (func.func private helpers + func.call) and times
`mlir-opt --inline` on it, and times `pypto-opt -p inline-functions` end to end on the
pypto program, both as subprocesses (startup included; CPU seconds of the child process, the
median of `--repeat` runs).

    .venv/bin/python benchmarks/bench_inline_functions.py --sizes 1000,2000,4000 --chains 8,64

`--growing-chains 1000,2000,5000` also runs, each in a fresh process, `main` calling the top
of a chain of D helpers where each helper calls the previous one and adds an op (the
expanded program has D ops): pass CPU time, the process's peak RSS after the pass and the
module's size before it, and the time per helper (a linear pass keeps it flat).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

T = "!pypto.tensor<[64], f32>"
MT = "tensor<64xf32>"


def pypto_program(sites: int, depth: int = 1) -> str:
    """`main` calls `h<depth-1>` `sites` times; `h<i>` calls `h<i-1>`, `h0` does the work."""
    out = [
        "builtin.module {",
        f"  pypto.func inline @h0(%x: {T}, %y: {T}) -> {T} {{",
        f"    %m = pypto.tensor.mul %x, %y : {T}",
        f"    %s = pypto.tensor.add %m, %x : {T}",
        f"    %e = pypto.tensor.exp %s : {T}",
        f"    pypto.return %e : {T}",
        "  }",
    ]
    for i in range(1, depth):
        out += [
            f"  pypto.func inline @h{i}(%x: {T}, %y: {T}) -> {T} {{",
            f"    %r = pypto.call @h{i - 1}(%x, %y) : ({T}, {T}) -> {T}",
            f"    pypto.return %r : {T}",
            "  }",
        ]
    out.append(f"  pypto.func @main(%a: {T}, %b: {T}) -> {T} {{")
    prev = "%a"
    for k in range(sites):
        out.append(f"    %v{k} = pypto.call @h{depth - 1}({prev}, %b) : ({T}, {T}) -> {T}")
        prev = f"%v{k}"
    out += [f"    pypto.return {prev} : {T}", "  }", "}"]
    return "\n".join(out) + "\n"


def growing_chain_program(depth: int) -> str:
    """`main` calls `g<depth-1>`; `g<i>` calls `g<i-1>` and adds its argument; `g0` adds."""
    out = [
        "builtin.module {",
        f"  pypto.func inline @g0(%x: {T}) -> {T} {{",
        f"    %y = pypto.tensor.add %x, %x : {T}",
        f"    pypto.return %y : {T}",
        "  }",
    ]
    for i in range(1, depth):
        out += [
            f"  pypto.func inline @g{i}(%x: {T}) -> {T} {{",
            f"    %r = pypto.call @g{i - 1}(%x) : ({T}) -> {T}",
            f"    %y = pypto.tensor.add %r, %x : {T}",
            f"    pypto.return %y : {T}",
            "  }",
        ]
    out += [
        f"  pypto.func @main(%a: {T}) -> {T} {{",
        f"    %v = pypto.call @g{depth - 1}(%a) : ({T}) -> {T}",
        f"    pypto.return %v : {T}",
        "  }",
        "}",
    ]
    return "\n".join(out) + "\n"


def one_growing_chain(depth: int) -> None:
    """Run in a fresh process: print `depth pass_seconds rss_before_mib rss_after_mib`."""
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.parsing import PyptoParser
    from pypto_xdsl.transforms.inline_functions import inline_functions
    from pypto_xdsl.utils import paused_gc

    text = growing_chain_program(depth)
    with paused_gc():
        module = PyptoParser(make_context(), text).parse_module()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        stats, t_pass = timed(lambda: inline_functions(module))
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert stats.sites == depth
    print(f"{depth} {t_pass:.3f} {before:.0f} {after:.0f}")


def report_growing_chains(depths: list[int], timeout: float) -> None:
    print("\nmain calling the top of a chain of D helpers, each adding an op (fresh process per D)")
    print("      D | pass s | pass µs / helper | peak RSS after the pass (MiB) | RSS before the pass (MiB)")
    for depth in depths:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--one-growing-chain", str(depth)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"{depth:>7} | timeout ({timeout:.0f} s)")
            continue
        if proc.returncode != 0:
            print(f"{depth:>7} | failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}")
            continue
        d, t, before, after = proc.stdout.split()
        print(f"{depth:>7} | {float(t):6.2f} | {1e6 * float(t) / depth:16.1f} | {float(after):29.0f} | {float(before):25.0f}", flush=True)


def func_program(sites: int, depth: int = 1) -> str:
    """The same program in the upstream func/arith/math dialects, for `mlir-opt --inline`."""
    out = [
        "module {",
        f"  func.func private @h0(%x: {MT}, %y: {MT}) -> {MT} {{",
        f"    %m = arith.mulf %x, %y : {MT}",
        f"    %s = arith.addf %m, %x : {MT}",
        f"    %e = math.exp %s : {MT}",
        f"    return %e : {MT}",
        "  }",
    ]
    for i in range(1, depth):
        out += [
            f"  func.func private @h{i}(%x: {MT}, %y: {MT}) -> {MT} {{",
            f"    %r = func.call @h{i - 1}(%x, %y) : ({MT}, {MT}) -> {MT}",
            f"    return %r : {MT}",
            "  }",
        ]
    out.append(f"  func.func @main(%a: {MT}, %b: {MT}) -> {MT} {{")
    prev = "%a"
    for k in range(sites):
        out.append(f"    %v{k} = func.call @h{depth - 1}({prev}, %b) : ({MT}, {MT}) -> {MT}")
        prev = f"%v{k}"
    out += [f"    return {prev} : {MT}", "  }", "}"]
    return "\n".join(out) + "\n"


def timed(fn):
    t0 = time.process_time()
    result = fn()
    return result, time.process_time() - t0


def run_subprocess(cmd: list[str], timeout: float, repeat: int = 1) -> float | None:
    """CPU seconds (user + system) the command used, the median of `repeat` runs: unlike wall
    time, not inflated when other work shares the machine, and the median drops the odd run
    that still is."""
    times = [_run_once(cmd, timeout) for _ in range(repeat)]
    if any(t is None for t in times):
        return None
    return statistics.median(times)  # type: ignore[type-var]


def _run_once(cmd: list[str], timeout: float) -> float | None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode()[:2000])
        return None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def mlir_opt() -> str | None:
    return shutil.which("mlir-opt") or (
        "/usr/lib/llvm-22/bin/mlir-opt" if os.path.exists("/usr/lib/llvm-22/bin/mlir-opt") else None
    )


def measure(
    sites: int, depth: int, tools: bool, timeout: float, tmp: Path, repeat: int = 3
) -> dict[str, float | None]:
    from xdsl.printer import Printer

    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.parsing import PyptoParser
    from pypto_xdsl.transforms.inline_functions import inline_functions
    from pypto_xdsl.utils import paused_gc

    text = pypto_program(sites, depth)
    ctx = make_context()

    def print_module() -> str:
        stream = StringIO()
        Printer(stream=stream).print_op(module)
        return stream.getvalue()

    with paused_gc():  # as pypto-opt runs
        module, t_parse = timed(lambda: PyptoParser(ctx, text).parse_module())
        _, t_verify = timed(module.verify)
        stats, t_pass = timed(lambda: inline_functions(module))
        assert stats.sites == sites * depth, stats.sites
        printed, t_print = timed(print_module)
        # The module the pass produces holds 3 ops per site where the input holds 1 call.
        _, t_parse_out = timed(lambda: PyptoParser(ctx, printed).parse_module())
    row: dict[str, float | None] = {
        "parse": t_parse, "verify": t_verify, "pass": t_pass, "print": t_print, "parse out": t_parse_out,
        "pypto-opt": None, "mlir-opt": None,
    }
    if tools:
        src = tmp / f"p_{sites}_{depth}.mlir"
        src.write_text(text)
        row["pypto-opt"] = run_subprocess(
            [str(ROOT / ".venv/bin/pypto-opt"), str(src), "-p", "inline-functions"], timeout, repeat
        )
        if (mlir := mlir_opt()) is not None:
            fsrc = tmp / f"f_{sites}_{depth}.mlir"
            fsrc.write_text(func_program(sites, depth))
            row["mlir-opt"] = run_subprocess([mlir, str(fsrc), "--inline"], timeout, repeat)
    return row


def fmt(x: float | None) -> str:
    return "   n/a " if x is None else f"{x:7.3f}"


def report(title: str, key: str, rows: list[tuple[int, dict[str, float | None]]]) -> None:
    print(f"\n{title}")
    print(
        f"{key:>7} | parse s | verify s | pass s | print s | pass x prev | pass/parse "
        f"| pass/parse out | pypto-opt s | mlir-opt --inline s"
    )
    prev: float | None = None
    for n, r in rows:
        ratio = "     - " if prev is None else f"{r['pass'] / prev:7.2f}"  # type: ignore[operator]
        prev = r["pass"]
        print(
            f"{n:>7} | {fmt(r['parse'])} | {fmt(r['verify'])}  | {fmt(r['pass'])}| {fmt(r['print'])} "
            f"|     {ratio} |    {r['pass'] / r['parse']:5.2f}   |     "  # type: ignore[operator]
            f"{r['pass'] / r['parse out']:5.2f}      |     {fmt(r['pypto-opt'])} "  # type: ignore[operator]
            f"|     {fmt(r['mlir-opt'])}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000,32000,64000")
    ap.add_argument("--chains", default="4,16,64,256", help="helper chain depths (with --chain-sites call sites)")
    ap.add_argument("--chain-sites", type=int, default=256)
    ap.add_argument("--no-tools", action="store_true", help="skip the pypto-opt/mlir-opt subprocess timings")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each tool per size (the median is printed)")
    ap.add_argument("--growing-chains", default="", help="depths of chains whose helpers each add an op")
    ap.add_argument("--one-growing-chain", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_growing_chain:
        one_growing_chain(args.one_growing_chain)
        return
    tools = not args.no_tools
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = [(n, measure(n, 1, tools, args.timeout, tmp, args.repeat)) for n in map(int, args.sizes.split(",") if args.sizes else [])]
        if rows:
            report("N call sites of a 3-op helper", "sites", rows)
        chains = [
            (depth, measure(args.chain_sites, depth, tools, args.timeout, tmp, args.repeat))
            for depth in map(int, args.chains.split(",") if args.chains else [])
        ]
        if chains:
            report(f"{args.chain_sites} call sites of a helper chain of the given depth", "depth", chains)
        if args.growing_chains:
            report_growing_chains([int(d) for d in args.growing_chains.split(",")], args.timeout)


if __name__ == "__main__":
    main()
