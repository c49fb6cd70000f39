"""Before/after benchmark of the seed passes (not a test): this tree against a baseline commit.

Times `inline-functions` on N flat call sites of a 3-op helper and `outline-incore-scopes`
on K scopes (in one function, and 4 per function), in this checkout and in a git worktree
of each baseline commit, in the same run. Every measurement runs in a fresh child process
that imports the passes of its own tree; the trees take turns in each round (the order
reversed every other round) so that a change in the machine's load falls on all of them.
It prints, per case, the median over the rounds of each tree's pass CPU time (each child
reports the median of `--reps` runs), the ratio of those medians to the first baseline, and
the median of the per-round ratios.

    .venv/bin/python benchmarks/bench_seed_passes_ab.py                 # against 72b55bb
    .venv/bin/python benchmarks/bench_seed_passes_ab.py --baseline 72b55bb,main --rounds 7

The default baseline, 72b55bb, is the last commit whose passes are the imperative walks the
pattern-based passes replaced. Inputs are those of this checkout's
`bench_inline_functions.py` (parsed text) and `bench_outline_incore_scopes.py` (built with
the op builders, whose signatures the baselines share), the same modules in every tree.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "72b55bb"


# --------------------------------------------------------------------------- child


def child(tree: Path, inline_sizes: list[int], outline_sizes: list[int], reps: int) -> None:
    """Time the passes of `tree`; print {case: median CPU seconds} as JSON. The inputs come
    from this script's neighbours, so every tree gets the same modules."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(tree))
    import pypto_xdsl

    assert Path(pypto_xdsl.__file__).resolve().is_relative_to(tree.resolve()), pypto_xdsl.__file__
    import bench_outline_incore_scopes as outline  # type: ignore[import-not-found]
    from bench_inline_functions import pypto_program  # type: ignore[import-not-found]

    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.parsing import PyptoParser
    from pypto_xdsl.transforms.inline_functions import inline_functions
    from pypto_xdsl.utils import paused_gc

    results: dict[str, float] = {}
    ctx = make_context()
    for n in inline_sizes:
        text = pypto_program(n, 1)
        times = []
        for _ in range(reps):
            with paused_gc():  # as pypto-opt runs
                module = PyptoParser(ctx, text).parse_module()
                start = time.process_time()
                inline_functions(module)
                times.append(time.process_time() - start)
            del module
        results[f"inline, {n:,} sites"] = statistics.median(times)
    for kind, build in (("one function", outline.one_function), ("4 per function", outline.many_functions)):
        for k in outline_sizes:
            times = []
            for _ in range(reps):
                module = build(k)
                times.append(outline.time_pass(module)[0])
                del module
            results[f"outline, {k:,} scopes, {kind}"] = statistics.median(times)
    print(json.dumps(results))


# --------------------------------------------------------------------------- parent


@contextmanager
def worktree(rev: str):
    """A detached git worktree of `rev`, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(path), rev],
            check=True,
        )
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


def run_child(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    cmd = [
        sys.executable, str(Path(__file__).resolve()), "--child", str(tree),
        "--inline-sizes", args.inline_sizes, "--outline-sizes", args.outline_sizes, "--reps", str(args.reps),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child for {tree} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="comma-separated git revisions (the first is the reference)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3, help="pass runs per child (its median is the round's time)")
    ap.add_argument("--inline-sizes", default="2000,8000,32000")
    ap.add_argument("--outline-sizes", default="1024,2048,4096,8192")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    if args.child is not None:
        child(args.child, sizes(args.inline_sizes), sizes(args.outline_sizes), args.reps)
        return
    revs = [r for r in args.baseline.split(",") if r]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # still remove the worktrees
    with ExitStack() as stack:
        trees = {rev: stack.enter_context(worktree(rev)) for rev in revs}
        trees["this tree"] = ROOT
        labels = list(trees)
        rounds: list[dict[str, dict[str, float]]] = []
        for r in range(args.rounds):
            order = labels if r % 2 == 0 else labels[::-1]
            rounds.append({label: run_child(trees[label], args) for label in order})
            if r + 1 < args.rounds:  # the table so far, for long runs on a busy machine
                print(f"\nafter round {r + 1} of {args.rounds}:", file=sys.stderr)
                report(labels, rounds, sys.stderr)
    report(labels, rounds)


def report(labels: list[str], rounds: list[dict[str, dict[str, float]]], out=sys.stdout) -> None:
    ref = labels[0]
    cases = list(rounds[0][ref])
    head = " | ".join(f"{label} s" for label in labels)
    ratios = " | ".join(f"{label} / {ref}" for label in labels[1:])
    print(f"\nCPU seconds of the pass, median of {len(rounds)} alternating rounds; ratios: of the medians (median of the per-round ratios)\n", file=out)
    print(f"| case | {head} | {ratios} |", file=out)
    print("|---|" + "---:|" * (2 * len(labels) - 1), file=out)
    for case in cases:
        medians = {label: statistics.median(r[label][case] for r in rounds) for label in labels}
        cells = [f"{medians[label]:.3f}" for label in labels]
        for label in labels[1:]:
            paired = statistics.median(r[label][case] / r[ref][case] for r in rounds)
            cells.append(f"{medians[label] / medians[ref]:.2f} ({paired:.2f})")
        print(f"| {case} | " + " | ".join(cells) + " |", file=out, flush=True)


if __name__ == "__main__":
    main()
