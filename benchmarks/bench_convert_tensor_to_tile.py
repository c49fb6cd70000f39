"""Benchmark: convert-tensor-to-tile on many InCore functions, and on many groups in one.

    .venv/bin/python benchmarks/bench_convert_tensor_to_tile.py [--min 64] [--max 1024] [--repeat 3]

Each InCore function holds a tensor-level softmax over [44, 128] (one fusion group of six
row-wise and elementwise ops, tiled into a loop with a tail block) followed by an
elementwise epilogue over [64, 128] assembled into a second output (a second group): the
pass groups, sizes and rewrites two groups per function. "one function" puts K such bodies
in one function (each on its own windows of the outputs); "many functions" puts one body in
each of K functions.

The modules are parsed once per size; only the pass is timed (`apply` on a fresh clone),
as the median CPU time of --repeat runs. Prints seconds per size and the ratio to the
previous size (2x more groups: a linear pass gives ~2.0).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.interpreter.api import parse_module
from pypto_xdsl.transforms.convert_tensor_to_tile import ConvertTensorToTilePass

X = "!pypto.tensor<[44, 128], f32>"
R = "!pypto.tensor<[44, 1], f32>"
Z = "!pypto.tensor<[64, 128], f32>"


def _body(k: int, y: str, o: str, ybig: str, obig: str) -> str:
    """One softmax group and one epilogue group; windows of the outputs at row 44k / 64k."""
    return f"""
  %yr{k} = arith.constant {44 * k} : index
  %or{k} = arith.constant {64 * k} : index
  %mx{k} = pypto.tensor.row_max %x : {X}
  %sh{k} = pypto.tensor.row_expand_sub %x, %mx{k} : {X}, {R}
  %e{k} = pypto.tensor.exp %sh{k} : {X}
  %s{k} = pypto.tensor.row_sum %e{k} : {X}
  %p{k} = pypto.tensor.row_expand_div %e{k}, %s{k} : {X}, {R}
  %w{k} = pypto.tensor.assemble %p{k} into {y}[%yr{k}, %c0] : {X} into {ybig}
  %a{k} = pypto.tensor.muls %z, %sc : {Z}, f32
  %b{k} = pypto.tensor.add %a{k}, %z : {Z}
  %r{k} = pypto.tensor.relu %b{k} : {Z}
  %v{k} = pypto.tensor.assemble %r{k} into {o}[%or{k}, %c0] : {Z} into {obig}
"""


def one_function(k: int) -> str:
    ybig = f"!pypto.tensor<[{44 * k}, 128], f32>"
    obig = f"!pypto.tensor<[{64 * k}, 128], f32>"
    bodies = "".join(_body(i, "%y", "%o", ybig, obig) for i in range(k))
    return (
        f"pypto.func incore @main(%x: {X}, %z: {Z}, %sc: f32, out %y: {ybig}, out %o: {obig}) {{\n"
        f"  %c0 = arith.constant 0 : index\n{bodies}  pypto.return\n}}\n"
    )


def many_functions(k: int) -> str:
    funcs = []
    for i in range(k):
        funcs.append(
            f"pypto.func incore @f{i}(%x: {X}, %z: {Z}, %sc: f32, out %y: {X}, out %o: {Z}) {{\n"
            f"  %c0 = arith.constant 0 : index\n{_body(0, '%y', '%o', X, Z)}  pypto.return\n}}\n"
        )
    return "".join(funcs)


def time_pass(module: ModuleOp, repeat: int) -> float:
    """Median CPU seconds of `repeat` runs of the pass, each on a fresh clone."""
    times = []
    for _ in range(repeat):
        clone = module.clone()
        gc.collect()
        start = time.process_time()
        ConvertTensorToTilePass().apply(None, clone)  # type: ignore[arg-type]
        times.append(time.process_time() - start)
        del clone
    return statistics.median(times)


def run(kind: str, build, sizes: list[int], repeat: int) -> list[tuple[int, float]]:
    rows = []
    prev = None
    for k in sizes:
        module = parse_module(build(k))
        t = time_pass(module, repeat)
        ratio = f"{t / prev:5.2f}x" if prev else "    -"
        print(f"{kind:>14} K={k:>5}  pass {t:8.3f} s cpu  ratio {ratio}", flush=True)
        prev = t
        rows.append((k, t))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min", type=int, default=64)
    ap.add_argument("--max", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = []
    k = args.min
    while k <= args.max:
        sizes.append(k)
        k *= 2
    run("one function", one_function, sizes, args.repeat)
    run("many functions", many_functions, sizes, args.repeat)


if __name__ == "__main__":
    main()
