"""The negative fuzzer (`make fuzz-errors`): mutated valid inputs through the tools.

Every mutant of a valid `.mlir` program, or (a share of them, `--dsl-share`) of a `pl` DSL
program — the checkout's examples and programs of the DSL generator (`pypto_xdsl.fuzz.dsl`) —
run as a `.py` file through the frontend (`pypto_xdsl.fuzz.mutate`), goes through
`pypto-opt` (parse, verify, print). The tool must either

* exit 0 with output that is itself valid: `pypto-opt` reads it back and prints the same, or
* exit 1 with exactly one located diagnostic (`file:line:col: error: ...`) on stderr, nothing
  on stdout, no traceback and no "internal error".

A mutant `pypto-opt` accepts then goes through `pypto-opt -p pypto-default` and `pypto-run`
(with a step limit), under the same rule. Anything else — an escaping exception, a run that
outlives the timeout, an unlocated or repeated diagnostic, another exit status — is a failure,
written to `--save-failures`.

The tools run in-process in worker processes (one per core); a worker that does not answer
within `--timeout` seconds is killed and the mutant counted as a hang.

    python -m pypto_xdsl.fuzz.errors --mutants 5000 [--seed S] [--seeds DIR ...] [--jobs J]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import selectors
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

OUTCOMES = ("valid", "diagnostic", "traceback", "hang", "bad")
"""Per mutant: accepted with valid output / one located diagnostic / an escaping exception /
no answer within the timeout / anything else."""

MAX_STEPS = 200_000
"""Ops `pypto-run` executes before it stops a mutant (fuzzed loops may not terminate)."""

RUN_DIMS = ["--dim", "N=4", "--dim", "M=4", "--dim", "K=4", "--dim", "?=4"]


# --------------------------------------------------------------------------- seeds


def repository_seeds(root: Path) -> list[str]:
    """Valid programs of a source checkout: examples and the FileCheck tests' chunks that
    verify (chunks written to fail are skipped)."""
    paths = sorted((root / "examples").glob("*.mlir")) + sorted((root / "tests" / "filecheck").rglob("*.mlir"))
    return [chunk for path in paths for chunk in path.read_text().split("// -----")]


def repository_dsl_seeds(root: Path) -> list[str]:
    """The Python (`pl` DSL) programs of a source checkout's examples."""
    return [p.read_text() for p in sorted((root / "examples").rglob("*.py"))]


def valid_dsl_seeds(texts: Iterable[str]) -> list[str]:
    """The DSL programs `pypto-opt` accepts as they are."""
    from pypto_xdsl.fuzz.inprocess import run_tool

    out = []
    with tempfile.TemporaryDirectory(prefix="pypto-dsl-seed-") as work:
        for i, text in enumerate(dict.fromkeys(texts)):
            path = os.path.join(work, f"s{i}.py")
            with open(path, "w") as f:
                f.write(text)
            result = run_tool("pypto-opt", [path])
            if result.crash is None and result.code == 0:
                out.append(text)
    return out


def generated_seeds(count: int, seed: int) -> list[str]:
    from pypto_xdsl.fuzz.generator import generate_program

    return [str(generate_program(seed + i).module) for i in range(count)]


def generated_dsl_seeds(count: int, seed: int) -> list[str]:
    """`pl` programs of the DSL generator (`fuzz.dsl`), both profiles."""
    from pypto_xdsl.fuzz.dsl import generate_dsl_program

    return [generate_dsl_program(seed + i, backend=bool(i % 2)).source for i in range(count)]


def valid_seeds(texts: Iterable[str]) -> list[str]:
    """The texts that parse and verify (deduplicated, smallest first, at most 40 KB)."""
    from pypto_xdsl.interpreter.api import parse_module

    seen, out = set(), []
    for text in texts:
        if "expected-error" in text or len(text) > 40_000 or text.strip() == "" or text in seen:
            continue
        seen.add(text)
        try:
            parse_module(text).verify()
        except Exception:  # noqa: BLE001 - only valid inputs are seeds
            continue
        out.append(text)
    return sorted(out, key=len)


# --------------------------------------------------------------------------- judging


@dataclass
class Verdict:
    outcome: str
    detail: str = ""


def judge(result: dict, path: str, accept_output) -> Verdict:
    """One tool run against the rule above. `accept_output(stdout)` checks exit-0 output."""
    if result.get("hang"):
        return Verdict("hang", f"no answer within the timeout: {result['args']}")
    if result["crash"] is not None:
        return Verdict("traceback", result["crash"])
    stderr, stdout, code = result["stderr"], result["stdout"], result["code"]
    if "Traceback (most recent call last)" in stderr:
        return Verdict("traceback", stderr)
    if "internal error" in stderr:
        return Verdict("bad", stderr)
    if code == 0:
        problem = accept_output(stdout)
        return Verdict("valid") if problem is None else Verdict("bad", problem)
    if code != 1:
        return Verdict("bad", f"exit status {code}\n{stderr}")
    errors = _diagnostic_lines(stderr, path)
    located = [line for line in errors if line.startswith(f"{path}:") and _located(line, path)]
    if len(located) == 1 and len(errors) == 1 and stdout == "":
        return Verdict("diagnostic", located[0])
    return Verdict("bad", f"{len(errors)} diagnostics, {len(located)} located, stdout {len(stdout)} chars:\n{stderr}")


# A diagnostic line: `file:line:col: error: ...`, `tool: error: ...` or `error: ...` from the
# line's start. The context under a located header (its location, the quoted source line, the
# caret) is not one, even when the quoted line contains "error:" (a CHECK line naming one).
_DIAGNOSTIC = re.compile(r"^(\S+:\d+:\d+|[\w./-]+): error: |^error: ")


def _diagnostic_lines(stderr: str, path: str) -> list[str]:
    return [line for line in stderr.splitlines() if _DIAGNOSTIC.match(line)]


def _located(line: str, path: str) -> bool:
    if not line.startswith(f"{path}:"):
        return False
    rest = line[len(path) + 1 :].split(":", 2)
    return len(rest) == 3 and rest[0].isdigit() and rest[1].isdigit() and rest[2].startswith(" error: ")


# --------------------------------------------------------------------------- workers


class Worker:
    """A process running tools in-process on request (`--worker` mode)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pypto_xdsl.fuzz.errors", "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]

    def call(self, tool: str, args: list[str], timeout: float, stdin: str = "") -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"tool": tool, "args": args, "stdin": stdin}) + "\n")
        self.proc.stdin.flush()
        if not self.selector.select(timeout):
            self.close()
            return {"hang": True, "args": [tool, *args]}
        line = self.proc.stdout.readline()
        if not line:  # the worker died (a crash of the interpreter itself)
            self.close()
            return {"crash": "the worker process died", "stdout": "", "stderr": "", "code": -1}
        return json.loads(line)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def worker_main() -> None:
    """Answer requests from stdin, one JSON line each; the tools' own output is captured."""
    from pypto_xdsl.fuzz.inprocess import run_tool

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # anything printed past the capture (a child process) goes nowhere
    for line in sys.stdin:
        request = json.loads(line)
        result = run_tool(request["tool"], request["args"], request.get("stdin", "").encode())
        protocol.write(json.dumps(result.__dict__) + "\n")


# --------------------------------------------------------------------------- the campaign


@dataclass
class Report:
    mutants: int = 0
    seconds: float = 0.0
    by_kind: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    by_source: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    """Outcomes of `pypto-opt` per input language ("mlir", "dsl")."""
    stages: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    failures: list[tuple[str, str, bytes, str]] = field(default_factory=list)
    """(kind, stage, mutant, detail)."""

    def table(self) -> str:
        rows = [f"{'mutation':16} {'mutants':>8} " + " ".join(f"{o:>10}" for o in OUTCOMES)]
        total: Counter = Counter()
        for kind in sorted(self.by_kind):
            c = self.by_kind[kind]
            total.update(c)
            rows.append(f"{kind:16} {sum(c.values()):8d} " + " ".join(f"{c[o]:10d}" for o in OUTCOMES))
        rows.append(f"{'total':16} {sum(total.values()):8d} " + " ".join(f"{total[o]:10d}" for o in OUTCOMES))
        rows.append("")
        for source in sorted(self.by_source):
            c = self.by_source[source]
            rows.append(f"{source + ' mutants':16} {sum(c.values()):8d} " + " ".join(f"{c[o]:10d}" for o in OUTCOMES))
        rows.append("")
        rows.append("tools run on the mutants pypto-opt accepts:")
        for stage in sorted(self.stages):
            c = self.stages[stage]
            rows.append(f"{stage:16} {sum(c.values()):8d} " + " ".join(f"{c[o]:10d}" for o in OUTCOMES))
        rate = self.mutants / self.seconds if self.seconds else 0.0
        rows.append(f"\n{self.mutants} mutants in {self.seconds:.0f} s ({rate:.1f} mutants/s), "
                    f"{len(self.failures)} failures")
        return "\n".join(rows)


def run_campaign(
    seeds: Sequence[str], mutants: int, seed: int = 0, *, jobs: int = 2, timeout: float = 60.0,
    time_limit: float | None = None, progress: bool = False,
    dsl_seeds: Sequence[str] = (), dsl_share: float = 0.0,
) -> Report:
    """`mutants` mutants of `seeds` (`.mlir` texts) and, a `dsl_share` of them, of `dsl_seeds`
    (`pl` DSL programs, run as `.py` files through the frontend)."""
    rng = random.Random(seed)
    from pypto_xdsl.fuzz.mutate import mutate

    work = tempfile.mkdtemp(prefix="pypto-fuzz-errors-")
    cases = []
    for i in range(mutants):
        dsl = bool(dsl_seeds) and rng.random() < dsl_share
        kind, data = mutate(rng.choice(dsl_seeds if dsl else seeds), rng)
        path = os.path.join(work, f"m{i}.py" if dsl else f"m{i}.mlir")
        with open(path, "wb") as f:
            f.write(data)
        cases.append((kind, path, data))
    report = Report()
    start = time.perf_counter()
    workers = [Worker() for _ in range(max(1, jobs))]
    try:
        import concurrent.futures as cf

        # one thread per worker, each taking every jobs-th mutant
        def lane(k: int):
            results = []
            for index in range(k, len(cases), len(workers)):
                if time_limit is not None and time.perf_counter() - start > time_limit:
                    break
                results.append((index, _check_mutant(workers[k], cases[index][1], timeout)))
                if workers[k].proc.poll() is not None:  # killed after a hang: a fresh one
                    workers[k] = Worker()
            return results

        with cf.ThreadPoolExecutor(len(workers)) as pool:
            for results in pool.map(lane, range(len(workers))):
                for index, verdicts in results:
                    kind, path, data = cases[index]
                    report.mutants += 1
                    first = verdicts[0][1]
                    report.by_kind[kind][first.outcome] += 1
                    report.by_source["dsl" if path.endswith(".py") else "mlir"][first.outcome] += 1
                    for stage, verdict in verdicts:
                        if stage != "pypto-opt":
                            report.stages[stage][verdict.outcome] += 1
                        if verdict.outcome in ("traceback", "hang", "bad"):
                            where = f"{stage} (dsl)" if path.endswith(".py") else stage
                            report.failures.append((kind, where, data, verdict.detail))
    finally:
        for w in workers:
            w.close()
    report.seconds = time.perf_counter() - start
    return report


def _check_mutant(worker: Worker, path: str, timeout: float) -> list[tuple[str, Verdict]]:
    def reparses(stdout: str) -> str | None:
        again = worker.call("pypto-opt", [], timeout, stdin=stdout)
        if again.get("hang") or again.get("crash") or again["code"] != 0:
            return f"the output does not read back:\n{again.get('stderr', '')}{again.get('crash') or ''}"
        if again["stdout"] != stdout:
            return "the output prints differently when read back"
        return None

    verdicts = [("pypto-opt", judge(worker.call("pypto-opt", [path], timeout), path, reparses))]
    if verdicts[0][1].outcome != "valid" or worker.proc.poll() is not None:
        return verdicts
    verdicts.append(("pypto-default", judge(
        worker.call("pypto-opt", [path, "-p", "pypto-default"], timeout), path, reparses
    )))
    if worker.proc.poll() is None:
        verdicts.append(("pypto-run", judge(
            worker.call("pypto-run", [path, *RUN_DIMS, "--max-steps", str(MAX_STEPS)], timeout), path,
            lambda out: None,
        )))
    return verdicts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pypto-fuzz-errors", description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mutants", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=Path, action="append", default=[],
                        help="a source checkout (examples/, tests/filecheck/) or a directory of .mlir files")
    parser.add_argument("--generated", type=int, default=40, help="generated programs among the seeds")
    parser.add_argument("--generated-dsl", type=int, default=20,
                        help="generated pl DSL programs among the DSL seeds (with --dsl-share)")
    parser.add_argument("--dsl-share", type=float, default=0.15,
                        help="share of the mutants made from the checkout's DSL examples (.py)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per tool run before a hang")
    parser.add_argument("--time-limit", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--save-failures", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    texts: list[str] = []
    dsl_texts: list[str] = []
    for source in args.seeds:
        if (source / "examples").is_dir() or (source / "tests").is_dir():
            texts += repository_seeds(source)
            dsl_texts += repository_dsl_seeds(source)
        else:
            texts += [p.read_text() for p in sorted(source.rglob("*.mlir"))]
            dsl_texts += [p.read_text() for p in sorted(source.rglob("*.py"))]
    texts += generated_seeds(args.generated, args.seed)
    seeds = valid_seeds(texts)
    if args.dsl_share > 0:
        dsl_texts += generated_dsl_seeds(args.generated_dsl, args.seed)
    dsl_seeds = valid_dsl_seeds(dsl_texts) if args.dsl_share > 0 else []
    print(f"{len(seeds)} valid .mlir seed programs, {len(dsl_seeds)} DSL seed programs", flush=True)
    report = run_campaign(seeds, args.mutants, args.seed, jobs=args.jobs, timeout=args.timeout,
                          time_limit=args.time_limit, dsl_seeds=dsl_seeds, dsl_share=args.dsl_share)
    print(report.table())
    if report.failures and args.save_failures is not None:
        args.save_failures.mkdir(parents=True, exist_ok=True)
        for i, (kind, stage, data, detail) in enumerate(report.failures):
            suffix = "py" if stage.endswith("(dsl)") else "mlir"
            (args.save_failures / f"f{i}-{kind}.{suffix}").write_bytes(data)
            (args.save_failures / f"f{i}-{kind}.txt").write_text(f"{stage}\n{detail}\n")
        print(f"failing mutants written to {args.save_failures}/")
    for kind, stage, _, detail in report.failures[:10]:
        print(f"FAIL [{kind}] {stage}: {detail.strip().splitlines()[-1][:300] if detail.strip() else ''}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
