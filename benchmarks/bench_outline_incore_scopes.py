"""Benchmark: outline-incore-scopes on K scopes in one function, and on many functions.

    .venv/bin/python benchmarks/bench_outline_incore_scopes.py [--max 32768] [--min 1024]

Builds the modules with the Python op builders (no parsing), then times only the pass
(`OutlineIncoreScopesPass().apply`). Each scope loads a row of a captured input, computes
on it, and stores into a captured output that it does not yield, so every scope exercises
free-value capture, constant cloning, write-through outputs, direction inference and the
rewiring of later uses (the next scope reads the previous call's result).

Prints pass time (CPU, and wall) per size and the ratio to the previous size (2x more scopes: a linear
pass gives ~2.0).
"""

from __future__ import annotations

import argparse
import gc
import time

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp, f32
from xdsl.ir import Block, Region

from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, TensorType, TileType
from pypto_xdsl.dialects.program import FuncOp, IncoreScopeOp, ReturnOp, YieldOp
from pypto_xdsl.dialects.tile import AddOp, LoadOp, StoreOp
from pypto_xdsl.transforms.outline_incore_scopes import OutlineIncoreScopesPass

ROWS = 64
T = TensorType([ROWS, 128], f32)
TILE = TileType([1, 128], f32, MemorySpace.VEC)


def _scope(x, out, row_consts, zero, k: int) -> IncoreScopeOp:
    block = Block()
    row = row_consts[k % ROWS]
    t = LoadOp(x, [row, zero], TILE)
    u = AddOp(t.result, t.result)
    s = StoreOp(u.result, out, [row, zero])
    block.add_ops([t, u, s, YieldOp()])
    return IncoreScopeOp([], Region(block))


def _function(name: str, n_scopes: int) -> FuncOp:
    func = FuncOp(name, [T, T], [T], FuncKind.OPAQUE)
    body = func.body.block
    x, out = body.args
    zero = arith.ConstantOp.from_int_and_width(0, IndexType())
    body.add_op(zero)
    row_consts = []
    for r in range(ROWS):
        c = arith.ConstantOp.from_int_and_width(r, IndexType())
        body.add_op(c)
        row_consts.append(c.result)
    for k in range(n_scopes):
        body.add_op(_scope(x, out, row_consts, zero.result, k))
    body.add_op(ReturnOp(out))
    return func


def one_function(k: int) -> ModuleOp:
    return ModuleOp([_function("main", k)])


def many_functions(k: int, per_function: int = 4) -> ModuleOp:
    return ModuleOp([_function(f"f{i}", per_function) for i in range(k // per_function)])


def time_pass(module: ModuleOp) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one pass run. CPU time is the stable number on a
    shared machine; wall time is printed too."""
    gc.collect()  # the pass itself pauses the cyclic collector while it runs
    start, start_wall = time.process_time(), time.perf_counter()
    OutlineIncoreScopesPass().apply(None, module)  # type: ignore[arg-type]
    return time.process_time() - start, time.perf_counter() - start_wall


def run(kind: str, build, sizes: list[int]) -> list[tuple[int, float]]:
    rows = []
    prev = None
    for k in sizes:
        module = build(k)
        t, wall = time_pass(module)
        ratio = f"{t / prev:5.2f}x" if prev else "    -"
        print(
            f"{kind:>14} K={k:>6}  pass {t:8.3f} s cpu ({wall:7.3f} s wall)  ratio {ratio}",
            flush=True,
        )
        prev = t
        rows.append((k, t))
        del module
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min", type=int, default=1024)
    ap.add_argument("--max", type=int, default=32768)
    ap.add_argument("--verify", action="store_true", help="verify the outlined module (small K)")
    args = ap.parse_args()
    sizes = []
    k = args.min
    while k <= args.max:
        sizes.append(k)
        k *= 2
    if args.verify:
        m = one_function(args.min)
        OutlineIncoreScopesPass().apply(None, m)  # type: ignore[arg-type]
        m.verify()
        print(f"verified: {args.min} scopes outlined")
    run("one function", one_function, sizes)
    run("many functions", many_functions, sizes)


if __name__ == "__main__":
    main()
