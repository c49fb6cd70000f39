"""Benchmark: expand-mixed-kernel on long mixed kernels and on many mixed kernels.

    .venv/bin/python benchmarks/bench_expand_mixed_kernel.py [--min 16] [--max 256] [--repeat 3]

"one kernel" is one incore function holding K attention-like stages inside a loop over row
blocks (each stage: a matmul on the cube, its product moved to the vector cores, a row
softmax, the probabilities sent back for a second matmul, the result moved to the vector
cores and stored; plus a workspace round trip), so the pass classifies, lowers K x 3
boundary moves, scans for flags and prunes two copies of a body K stages long. "many kernels"
puts one stage in each of K functions.

Modules are parsed once per size; only the pass is timed (`apply` on a fresh clone), as the
median CPU time of --repeat runs. Prints seconds per size and the ratio to the previous size
(2x more stages: a linear pass gives ~2.0).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects import make_context
from pypto_xdsl.interpreter.api import parse_module
from pypto_xdsl.transforms.expand_mixed_kernel import ExpandMixedKernelPass

T = "!pypto.tensor<[64, 64], f16>"
O = "!pypto.tensor<[64, 64], f32>"


def _tile(dtype: str, space: str, rows: int = 64, cols: int = 64) -> str:
    return f"!pypto.tile<[{rows}, {cols}], {dtype}, {space}>"


def _stage(k: int, o_in: str, o_out: str) -> str:
    acc, vec, row = _tile("f32", "acc"), _tile("f32", "vec"), _tile("f32", "vec", 64, 1)
    return f"""
    %am{k} = pypto.tile.load %a[%c0, %c0] : {T} -> {_tile('f16', 'mat')}
    %al{k} = pypto.tile.move %am{k} : {_tile('f16', 'mat')} -> {_tile('f16', 'left')}
    %bm{k} = pypto.tile.load %b[%c0, %c0] : {T} -> {_tile('f16', 'mat')}
    %br{k} = pypto.tile.move %bm{k} : {_tile('f16', 'mat')} -> {_tile('f16', 'right')}
    %s{k} = pypto.tile.matmul %al{k}, %br{k} : {_tile('f16', 'left')}, {_tile('f16', 'right')}
    %sv{k} = pypto.tile.move %s{k} : {acc} -> {vec}
    %m{k} = pypto.tile.row_max %sv{k} : {vec}
    %p{k} = pypto.tile.row_expand_expdif %sv{k}, %m{k} : {vec}, {row}
    %ph{k} = pypto.tile.cast %p{k} : {vec} -> {_tile('f16', 'vec')}
    %pl{k} = pypto.tile.move %ph{k} : {_tile('f16', 'vec')} -> {_tile('f16', 'left')}
    %pv{k} = pypto.tile.matmul %pl{k}, %br{k} : {_tile('f16', 'left')}, {_tile('f16', 'right')}
    %w{k} = pypto.tile.store %pv{k}, %ws[%c0, %c0] : {acc}, {O}
    %back{k} = pypto.tile.load %w{k}[%c0, %c0] : {O} -> {vec}
    %r{k} = pypto.tile.relu %back{k} : {vec}
    {o_out} = pypto.tile.store %r{k}, {o_in}[%c0, %c0] : {vec}, {O}
"""


def one_kernel(k: int) -> str:
    stages = "".join(_stage(i, "%o_i" if i == 0 else f"%o{i - 1}", f"%o{i}") for i in range(k))
    return f"""pypto.func incore @long(%a: {T}, %b: {T}, out %o: {O}) -> {O} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ws = pypto.tensor.create : {O}
  %o_end = scf.for %i = %c0 to %c4 step %c1 iter_args(%o_i = %o) -> ({O}) {{{stages}
    scf.yield %o{k - 1} : {O}
  }}
  pypto.return %o_end : {O}
}}
"""


def many_kernels(k: int) -> str:
    return "".join(
        f"""pypto.func incore @k{i}(%a: {T}, %b: {T}, out %o: {O}) -> {O} {{
  %c0 = arith.constant 0 : index
  %ws = pypto.tensor.create : {O}
{_stage(0, "%o", "%o_end")}
  pypto.return %o_end : {O}
}}
"""
        for i in range(k)
    )


def measure(module: ModuleOp, repeat: int) -> float:
    ctx = make_context()
    times = []
    for _ in range(repeat):
        work = module.clone()
        gc.collect()
        start = time.process_time()
        ExpandMixedKernelPass().apply(ctx, work)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min", type=int, default=16)
    ap.add_argument("--max", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for label, build in (("one kernel", one_kernel), ("many kernels", many_kernels)):
        print(f"{label}: stages, ops, CPU seconds, ratio to the previous size")
        previous = None
        k = args.min
        while k <= args.max:
            module = parse_module(build(k))
            ops = sum(1 for _ in module.walk())
            seconds = measure(module, args.repeat)
            ratio = f"{seconds / previous:.2f}" if previous else "-"
            print(f"  {k:5d} {ops:7d} {seconds:8.3f}s  {ratio}")
            previous = seconds
            k *= 2


if __name__ == "__main__":
    main()
