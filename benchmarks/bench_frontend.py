"""Frontend throughput: parse a generated @pl.program of N statements into pypto IR.

    .venv/bin/python benchmarks/bench_frontend.py            # 10k, 20k and 40k statements
    .venv/bin/python benchmarks/bench_frontend.py 40000      # one size

The generated program has functions of 200 statements each: an orchestration-style function
with tensor arithmetic, scalar arithmetic, a `pl.range` loop carrying variables and an
`if`/`else`, plus an InCore function with tile loads, compute and stores; every function
calls the previous one. The reference number from the issue: PyPTO's own DSL parser takes
18 s for 40k statements on this machine. Reported time covers reading the source, the AST
walk, building and verifying the module (what `@pl.program` does).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

STATEMENTS_PER_FUNCTION = 200


def _orchestration_body(k: int, lines: list[str]) -> int:
    """Roughly STATEMENTS_PER_FUNCTION statements; returns the count."""
    count = 0
    lines.append("    @pl.function")
    lines.append(f"    def f{k}(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:")
    lines.append("        y = x + 1.0")
    lines.append("        m = n * 2")
    count += 2
    if k > 0:
        lines.append(f"        y = self.f{k - 1}(y, n)")
        count += 1
    while count < STATEMENTS_PER_FUNCTION - 20:
        lines.append("        y = pl.mul(y, x)")
        lines.append("        y = y - 0.5")
        lines.append("        m = m + 3")
        lines.append("        z = pl.maximum(y, x)")
        lines.append("        for i in pl.range(m):")
        lines.append("            y = pl.add(y, z)")
        lines.append("            m = m + i")
        lines.append("        if m > 100:")
        lines.append("            y = pl.exp(y)")
        lines.append("        else:")
        lines.append("            y = y * 2.0")
        count += 10  # 11 lines, `else:` is not a statement
    lines.append("        return y")
    return count + 1


def _incore_body(k: int, lines: list[str]) -> int:
    count = 0
    lines.append("    @pl.function(type=pl.FunctionType.InCore)")
    lines.append(f"    def k{k}(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:")
    while count < STATEMENTS_PER_FUNCTION - 10:
        lines.append("        t = pl.load(a, [0, 0], [64, 64])")
        lines.append("        u = pl.mul(t, t)")
        lines.append("        u = u + 1.0")
        lines.append("        mx = pl.row_max(u)")
        lines.append("        u = pl.row_expand_sub(u, mx)")
        lines.append("        out = pl.store(u, [64, 0], out)")
        count += 6
    lines.append("        return out")
    return count + 1


def generate(statements: int) -> tuple[str, int]:
    lines = ["import pypto_xdsl.language as pl", "", "", "@pl.program", "class Big:"]
    total = 0
    k = 0
    while total < statements:
        total += _orchestration_body(k, lines)
        if total < statements:
            total += _incore_body(k, lines)
        k += 1
    return "\n".join(lines) + "\n", total


def measure(statements: int) -> tuple[int, float, float, int]:
    import pypto_xdsl.language  # noqa: F401  (imports are not part of the measurement)
    from pypto_xdsl.frontend.program import load_programs

    source, count = generate(statements)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"big_{statements}.py"
        path.write_text(source)
        start, cpu_start = time.perf_counter(), time.process_time()
        (program,) = load_programs(path.read_text(), str(path))
        module = program.module
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
    ops = sum(1 for _ in module.walk())
    return count, elapsed, cpu, ops


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10_000, 20_000, 40_000]
    print(f"{'statements':>10} {'ops':>8} {'wall s':>8} {'cpu s':>8} {'cpu us/stmt':>12}")
    for n in sizes:
        count, elapsed, cpu, ops = measure(n)
        print(f"{count:>10} {ops:>8} {elapsed:>8.2f} {cpu:>8.2f} {cpu / count * 1e6:>12.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
