"""@pl.jit call latency: the first call (specialise + compile [+ build]) and a cached call.

    .venv/bin/python benchmarks/bench_jit.py                      # both targets, every program
    .venv/bin/python benchmarks/bench_jit.py --targets interpreter --repeat 50

Five programs written as PyPTO's examples write them (bare `pl.Tensor` parameters, `pl.Out`,
`@pl.jit.incore` dependencies, a scalar specialisation constant, module constants):
an elementwise add, a 64x64 row softmax, a GELU-style activation chain, a chunked add
over a tensor taller than one tile (a `pl.range` loop of scopes) and a vector DAG of three
incore kernels called five times.

Each first call is measured in a fresh process after its imports (so it pays what a user's
first call pays: reading the source, building the IR, the pipeline, the interpreter's or
g++'s start-up), with an empty disk cache; "first call, warm disk" is a new process whose
sim build comes from the disk cache. The cached-call overhead is, per cached call, its time minus the
time of the run inside it (the interpreter called on the module, or the built simulation
executable run on the arrays, files included), timed in the same call; the table gives medians.
Targets from the issue: first call on the interpreter <= 1.0 s for the 64x64 softmax,
cached-call overhead <= 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

PROGRAMS = textwrap.dedent('''
    import numpy as np
    import pypto_xdsl.language as pl

    ROWS, COLS, TILE_ROWS = 512, 128, 128

    @pl.jit
    def add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], c)
        return c

    @pl.jit
    def softmax(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [64, 64])
            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))
            pl.store(pl.row_expand_div(e, pl.row_sum(e)), [0, 0], out)
        return out

    @pl.jit
    def gelu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 128])
            s = pl.recip(pl.add(pl.exp(pl.mul(t, -1.702)), 1.0))
            pl.store(pl.mul(t, s), [0, 0], out)
        return out

    @pl.jit
    def chunked_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(ROWS // TILE_ROWS):
                ta = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
                tb = pl.load(b, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
                pl.store(pl.add(ta, tb), [i * TILE_ROWS, 0], c)
        return c

    @pl.jit.incore
    def k_add(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(b, [0, 0], [16, 16])), [0, 0], out)
        return out

    @pl.jit.incore
    def k_adds(a: pl.Tensor, s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
        pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), s), [0, 0], out)
        return out

    @pl.jit.incore
    def k_mul(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), pl.load(b, [0, 0], [16, 16])), [0, 0], out)
        return out

    @pl.jit
    def vector_dag(a: pl.Tensor, b: pl.Tensor, f: pl.Out[pl.Tensor]):
        c = pl.create_tensor([16, 16], dtype=pl.FP32)
        c = k_add(a, b, c)
        d = pl.create_tensor([16, 16], dtype=pl.FP32)
        d = k_adds(c, 1.0, d)
        e = pl.create_tensor([16, 16], dtype=pl.FP32)
        e = k_adds(c, 2.0, e)
        g = pl.create_tensor([16, 16], dtype=pl.FP32)
        g = k_mul(d, e, g)
        f = k_add(g, c, f)
        return f

    def inputs(name):
        rng = np.random.default_rng(0)
        r = lambda *s: rng.standard_normal(s).astype(np.float32)
        return {
            "add": lambda: (r(64, 64), r(64, 64), np.zeros((64, 64), np.float32)),
            "softmax": lambda: (r(64, 64), np.zeros((64, 64), np.float32)),
            "gelu": lambda: (r(32, 128), np.zeros((32, 128), np.float32)),
            "chunked_add": lambda: (r(ROWS, COLS), r(ROWS, COLS), np.zeros((ROWS, COLS), np.float32)),
            "vector_dag": lambda: (r(16, 16), r(16, 16), np.zeros((16, 16), np.float32)),
        }[name]()
''')

NAMES = ("add", "softmax", "gelu", "chunked_add", "vector_dag")


def worker(name: str, target: str, repeat: int, path: str) -> dict:
    """In a fresh process: import, then time the first call, cached calls and direct runs."""
    t0 = time.perf_counter()
    import importlib.util

    import numpy as np  # noqa: F401

    from pypto_xdsl.runtime import RunConfig

    spec = importlib.util.spec_from_file_location("bench_programs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # the module's @pl.jit decorators (no compilation yet)
    imports = time.perf_counter() - t0
    fn = getattr(mod, name)
    args = mod.inputs(name)
    config = RunConfig(target=target)
    t = time.perf_counter()
    fn(*args, config=config)
    first = time.perf_counter() - t
    # The run itself, timed inside each cached call: the interpreter on the module, or the
    # simulation executable on the arrays (writing and reading its files included).
    import pypto_xdsl.interpreter as interpreter
    import pypto_xdsl.runtime.simulate as simulate

    inner: list[float] = []

    def timed(run):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return run(*a, **k)
            finally:
                inner.append(time.perf_counter() - t)

        return wrapper

    if target == "interpreter":
        interpreter.run = timed(interpreter.run)
    else:
        simulate.run_build = timed(simulate.run_build)
    calls, overheads = [], []
    for _ in range(repeat):
        inner.clear()
        t = time.perf_counter()
        fn(*args, config=config)
        total = time.perf_counter() - t
        calls.append(total)
        overheads.append(total - sum(inner))
    info = fn.runtime().stats
    return {
        "imports": imports, "first": first, "call": statistics.median(calls),
        "overhead": statistics.median(overheads), "compile": info.last_compile_seconds,
        "built": info.sim_builds, "disk_hits": info.sim_disk_hits,
    }


def measure(name: str, target: str, repeat: int, path: str, cache: str) -> dict:
    env = dict(os.environ, PYPTO_XDSL_CACHE=cache)
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", name, target, str(repeat), path],
        capture_output=True, text=True, env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{name} on {target} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="interpreter,sim")
    ap.add_argument("--repeat", type=int, default=0, help="cached calls per program (default 200 interpreter, 10 sim)")
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        name, target, repeat, path = args.worker
        print(json.dumps(worker(name, target, int(repeat), path)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench_programs.py")
        with open(path, "w") as f:
            f.write(PROGRAMS)
        rows = []
        for target in args.targets.split(","):
            repeat = args.repeat or (200 if target == "interpreter" else 10)
            for name in NAMES:
                cache = os.path.join(tmp, f"cache-{target}-{name}")
                cold = measure(name, target, repeat, path, cache)
                warm = measure(name, target, repeat, path, cache) if target == "sim" else None
                rows.append((name, target, cold, warm))
                print(f"  measured {name} on {target}", file=sys.stderr)
    print("| program | target | first call (s) | first call, warm disk (s) | cached call (ms) "
          "| of which the run (ms) | jit overhead (ms) | overhead / call |")
    print("|---|---|---|---|---|---|---|---|")
    for name, target, cold, warm in rows:
        overhead = cold["overhead"] * 1e3
        warm_text = f"{warm['first']:.2f}" if warm is not None else "—"
        call = cold["call"] * 1e3
        print(
            f"| {name} | {target} | {cold['first']:.3f} | {warm_text} | {call:.2f} "
            f"| {call - overhead:.2f} | {overhead:.3f} | {overhead / call:.1%} |"
        )
    softmax = next(c for n, t, c, _ in rows if n == "softmax" and t == "interpreter") if "interpreter" in args.targets else None
    if softmax is not None:
        print(f"\nsoftmax 64x64, interpreter: first call {softmax['first']:.3f} s (target <= 1.0 s); "
              f"imports {softmax['imports']:.2f} s before it")
    worst = max(c["overhead"] * 1e3 for _, _, c, _ in rows)
    print(f"largest cached-call overhead: {worst:.3f} ms (target <= 1 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
