"""Scaling of `pypto-default` in loop depth (not a test): each pass on one deep loop nest.

The program is `pypto_xdsl.fuzz.scale.scope_over_loops(D)`: one `pypto.incore_scope` holding
D - 1 nested `scf.for` loops around a load / exp / store. It is parsed once per depth and the
passes of `pypto-default` run in order on it (on the deep stack the tools use); the table
has the CPU seconds of each pass and of the parse, and each pass's ratio to the previous
depth (2x deeper: a linear pass gives ~2, a quadratic one ~4).

    .venv/bin/python benchmarks/bench_default_depth.py --depths 250,500,1000,2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pypto_xdsl.dialects import make_context  # noqa: E402
from pypto_xdsl.fuzz.scale import scope_over_loops  # noqa: E402
from pypto_xdsl.parsing import PyptoParser  # noqa: E402
from pypto_xdsl.transforms import get_all_passes  # noqa: E402
from pypto_xdsl.transforms.pipelines import DEFAULT_PIPELINE  # noqa: E402
from pypto_xdsl.utils import call_with_deep_stack, paused_gc  # noqa: E402


def measure(depth: int) -> dict[str, float]:
    ctx = make_context()
    passes = get_all_passes()
    row: dict[str, float] = {}
    with paused_gc():
        start = time.process_time()
        module = PyptoParser(ctx, scope_over_loops(depth)).parse_module()
        row["parse"] = time.process_time() - start
        for name in DEFAULT_PIPELINE:
            p = passes[name]()()
            start = time.process_time()
            p.apply(ctx, module)
            row[name] = time.process_time() - start
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", default="250,500,1000,2000")
    args = ap.parse_args()
    columns = ["parse", *DEFAULT_PIPELINE]
    print("| depth | " + " | ".join(f"{c} s (x prev)" for c in columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    prev: dict[str, float] | None = None
    for depth in (int(d) for d in args.depths.split(",")):
        row = call_with_deep_stack(measure, depth)
        cells = []
        for c in columns:
            ratio = f" (x{row[c] / prev[c]:.1f})" if prev and prev[c] > 0.005 else ""
            cells.append(f"{row[c]:.3f}{ratio}")
        print(f"| {depth:,} | " + " | ".join(cells) + " |", flush=True)
        prev = row


if __name__ == "__main__":
    main()
