#!/usr/bin/env python3
"""Run the PyPTO reference's own system tests through pypto-xdsl and print docs/language.md's table.

    python scripts/run_reference_st.py --reference /path/to/pypto[.git]
        [--targets interpreter,sim] [--timeout 900] [--only ops/test_abs] [--fresh]

(`make reference-st REFERENCE=...` does the same in a venv that has torch and pytest.)

The reference's `tests/st/` (and `examples/`, which some tests import) is taken from its git
repository (`git archive`) into `build/reference-st/tree/`, and its import statements are
rewritten by the rule of scripts/run_reference_examples.py, `pypto` becoming `pypto_xdsl`;
nothing else changes, the reference's test harness (`tests/st/harness/core/harness.py`:
PTOTestCase, TensorSpec, DataType) included.

Every `test_*.py` of the directories in ST_DIRS runs under pytest, once per target, each in a
subprocess of its own (with a timeout) whose `$PYPTO_XDSL_TARGET` picks the target. pytest
runs with scripts/reference_st_plugin.py in place of the reference's conftest.py (its runner
drives PyPTO's device toolchain): the test functions are called as the reference calls them,
their `platform` / `backend_type` parameters kept at a2a3sim / Ascend910B, and their
`test_runner.run(case)` compiles and runs the case's `get_program()` on the target with
the inputs its `define_tensors()` describes, and compares the outputs with its
`compute_expected()` at the case's tolerances. A row is one test (a pytest item, with the
test cases it ran); it "passes" when the test does. The table shows each target's outcome
and the first error line. Each run's output is kept under `<work>/runs/<target>/<file>/`,
the results in `<work>/results.json` and the table in `<work>/table.md`. When `--python`
has no pytest, it is installed into `<work>/pytest-site` (`pip install --target`), which the
runs put on their path.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_reference_examples import _git, extract, rewrite_imports  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent
DEFAULT_REFERENCE = "/work/.mirror/hw-native-sys+pypto/repo"
TARGETS = ("interpreter", "sim")
# The directories of tests/st/ run (distributed/ needs several chips, framework_and_models/
# PyPTO's device runtime and profiling, codegen/torch/ PyPTO's torch code generator).
ST_DIRS = (
    "runtime/ops",
    "runtime/control_flow",
    "runtime/cross_core",
    "runtime/scheduling",
    "examples",
    "codegen/dsl",
)
RULE = "uniform: pypto -> pypto_xdsl on import statements (v1); tests/st + examples"
PYTEST_INI = """[pytest]
# scripts/run_reference_st.py: the reference's system tests with scripts/reference_st_plugin.py
python_files = test_*.py
python_classes = Test*
python_functions = test_*
addopts = -p no:cacheprovider
"""
STATUS = {"passed": "passes", "failed": "fails", "skipped": "skipped"}


@dataclass
class Row:
    """One line of the table: a test of one file, or a file that could not be collected."""

    file: str  # path under tests/st/
    test: str  # the pytest id after the file's, or "(collection)" / "(run)"
    cases: list[str] = field(default_factory=list)  # the PTOTestCase names it ran
    results: dict[str, dict] = field(default_factory=dict)  # target -> status, seconds, error, log


# ---------------------------------------------------------------------------------------------
# Preparing


def prepare(args: argparse.Namespace, tree: Path) -> str:
    stamp = tree / "extracted.json"
    commit = _git(args.reference, "rev-parse", "--verify", f"{args.commit}^{{commit}}").strip()
    if not args.fresh and stamp.exists():
        previous = json.loads(stamp.read_text())
        if previous.get("commit") == commit and previous.get("rule") == RULE:
            return commit
    if tree.exists():
        shutil.rmtree(tree)
    extract(args.reference, commit, tree, ("tests/st", "examples"))
    rewritten = rewrite_imports(tree)
    stamp.write_text(json.dumps({"commit": commit, "rule": RULE, "rewritten": rewritten}, indent=1))
    return commit


def pytest_path(args: argparse.Namespace, work: Path) -> Path | None:
    """None when `--python` imports pytest; else a directory pytest is installed into (pip
    --target), put on the runs' PYTHONPATH."""
    if subprocess.run([args.python, "-c", "import pytest"], capture_output=True).returncode == 0:
        return None
    site = work / "pytest-site"
    if not (site / "pytest").exists():
        print(f"{args.python} has no pytest: installing it into {site}", file=sys.stderr, flush=True)
        done = subprocess.run(
            [args.python, "-m", "pip", "install", "--quiet", "--target", str(site), "pytest"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            sys.exit(f"error: cannot install pytest for {args.python}: {done.stderr.strip()}")
    return site


def discover(st: Path) -> list[str]:
    return [
        str(path.relative_to(st))
        for directory in ST_DIRS
        for path in sorted((st / directory).rglob("test_*.py"))
    ]


# ---------------------------------------------------------------------------------------------
# Running


def run_file(name: str, target: str, tree: Path, work: Path, site: Path | None, args) -> list[dict]:
    """Run one file's tests on one target; the plugin's records (plus one for a run that
    ended without them)."""
    cwd = run_dir(work, target, name)
    if cwd.exists():
        shutil.rmtree(cwd)
    cwd.mkdir(parents=True)
    results = cwd / "results.jsonl"
    env = dict(os.environ)
    env["PYPTO_XDSL_TARGET"] = target
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PROJECT_ROOT), str(SCRIPTS), str(tree / "tests" / "st"), str(tree),
         *([str(site)] if site else []), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    if args.cache:
        env["PYPTO_XDSL_CACHE"] = str(args.cache)
    env.setdefault("PYTHONUNBUFFERED", "1")
    command = [
        args.python, "-m", "pytest", "-q", "--noconftest", "-p", "reference_st_plugin",
        "-c", str(work / "pytest.ini"), "--rootdir", str(tree),
        "--st-results", str(results), str(tree / "tests" / "st" / name),
    ]
    start = time.monotonic()
    with (cwd / "stdout.txt").open("wb") as stdout, (cwd / "stderr.txt").open("wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                                   stderr=stderr, start_new_session=True)
        try:
            code = process.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
    seconds = time.monotonic() - start
    records = read_records(cwd)
    finished = {r["nodeid"] for r in records if r["event"] == "result"}
    started = [r for r in records if r["event"] == "start" and r["nodeid"] not in finished]
    extra = None
    if code is None:
        last = started[-1]["nodeid"] if started else "(run)"
        extra = {"event": "result", "nodeid": last, "outcome": "timeout", "seconds": seconds, "cases": [],
                 "error": f"no result within {args.timeout:g} s (the file's later tests not run)"}
    elif not any(r["event"] in ("result", "collect-error") for r in records) and code not in (0, 5):
        reason = _last_line(cwd / "stdout.txt") or _last_line(cwd / "stderr.txt") or f"pytest exit status {code}"
        extra = {"event": "collect-error", "nodeid": "(run)", "error": reason}
    if extra is not None:  # kept with the plugin's records, for --report
        with results.open("a") as f:
            f.write(json.dumps(extra) + "\n")
        records.append({**extra, "log": str(cwd)})
    return records


def run_dir(work: Path, target: str, name: str) -> Path:
    return work / "runs" / target / name.removesuffix(".py").replace("/", "__")


def read_records(cwd: Path) -> list[dict]:
    results = cwd / "results.jsonl"
    records = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    for r in records:
        r["log"] = str(cwd)
    return records


def _last_line(path: Path) -> str:
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    named = [line for line in lines if "Error" in line or "error:" in line]
    return (named or lines or [""])[-1]


def merge(rows: dict[tuple[str, str], Row], name: str, target: str, records: list[dict], tree: Path) -> None:
    for r in records:
        if r["event"] == "start":
            continue
        nodeid = r["nodeid"]
        test = nodeid.split("::", 1)[1] if "::" in nodeid else "(collection)" if r["event"] == "collect-error" else nodeid
        row = rows.setdefault((name, test), Row(name, test))
        for case in r.get("cases", []):
            if case["case"] not in row.cases:
                row.cases.append(case["case"])
        status = "fails" if r["event"] == "collect-error" else STATUS.get(r["outcome"], r["outcome"])
        error = (r.get("error") or "").replace(f"{tree}{os.sep}", "").strip()
        error = error.splitlines()[0] if error else ""
        row.results[target] = {"status": status, "seconds": r.get("seconds", 0.0), "error": error, "log": r["log"]}


# ---------------------------------------------------------------------------------------------
# The table


def _cell(text: str, limit: int = 200) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def table(rows: list[Row], targets: list[str]) -> str:
    lines = ["| file | case | " + " | ".join(targets) + " | first error |",
             "|---|---|" + "---|" * len(targets) + "---|"]
    for row in rows:
        cells = [row.results.get(t, {}).get("status", "") for t in targets]
        errors = []
        for t in targets:
            error = row.results.get(t, {}).get("error", "")
            if error and row.results[t]["status"] != "passes" and error not in [e for _, e in errors]:
                errors.append((t, error))
        note = "; ".join(f"{t}: {e}" if len(errors) > 1 else e for t, e in errors)
        case = row.test + (f" ({', '.join(row.cases)})" if row.cases and row.cases != [row.test] else "")
        lines.append(f"| {row.file} | {_cell(case, 120)} | " + " | ".join(cells) + f" | {_cell(note)} |")
    return "\n".join(lines)


def counts(rows: list[Row], targets: list[str]) -> str:
    """Tests passing on every target (of those run on every target), per target (of those
    run on it), skipped, and files whose every test passes everywhere."""
    ran = [r for r in rows if all(t in r.results for t in targets)]
    passing = [r for r in ran if all(r.results[t]["status"] == "passes" for t in targets)]
    per_target = ", ".join(
        f"{t} {sum(r.results[t]['status'] == 'passes' for r in rows if t in r.results)} of "
        f"{sum(t in r.results for r in rows)}"
        for t in targets
    )
    skipped = sum(any(r.results[t]["status"] == "skipped" for t in targets) for r in ran)
    files = {r.file for r in ran}
    files_passing = files - {r.file for r in ran if r not in passing}
    return (f"{len(passing)} of {len(ran)} tests pass on {' and '.join(targets)} (per target: {per_target}; "
            f"{skipped} skipped); {len(files_passing)} of {len(files)} files pass entirely")


# ---------------------------------------------------------------------------------------------


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default=DEFAULT_REFERENCE,
                        help="the PyPTO git repository (a checkout or a bare repository)")
    parser.add_argument("--commit", default="HEAD", help="the reference's revision (default HEAD)")
    parser.add_argument("--work", type=Path, default=PROJECT_ROOT / "build" / "reference-st",
                        help="scratch directory for the extracted tests and the runs")
    parser.add_argument("--fresh", action="store_true", help="extract the tests again")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: interpreter,sim")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per file and target")
    parser.add_argument("--only", action="append", default=[],
                        help="run only the files whose path under tests/st/ contains this text (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the files and stop")
    parser.add_argument("--report", action="store_true",
                        help="run nothing: make the table from the runs kept under <work>/runs/ (e.g. of "
                             "one invocation per target)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the tests run with")
    parser.add_argument("--cache", type=Path, default=None,
                        help="$PYPTO_XDSL_CACHE of the runs (default: the environment's)")
    args = parser.parse_args(argv)
    args.targets = [t for t in args.targets.split(",") if t]
    if not args.targets or any(t not in TARGETS for t in args.targets):
        parser.error(f"--targets takes {', '.join(TARGETS)}")
    if not Path(args.reference).exists():
        parser.error(f"--reference {args.reference}: no such directory")
    if not args.list and subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode:
        parser.error(f"{args.python} cannot import torch, which the tests compute their expected results "
                     "with; `make reference-st` makes a venv that has it (or pass --python)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    work = args.work.resolve()
    tree = work / "tree"
    work.mkdir(parents=True, exist_ok=True)
    commit = prepare(args, tree)
    st = tree / "tests" / "st"
    files = discover(st)
    if args.only:
        files = [f for f in files if any(text in f for text in args.only)]
    if args.list:
        print("\n".join(files))
        return 0
    rows: dict[tuple[str, str], Row] = {}
    if args.report:
        for name in files:
            for target in args.targets:
                merge(rows, name, target, read_records(run_dir(work, target, name)), tree)
        files = []
    else:
        site = pytest_path(args, work)
        (work / "pytest.ini").write_text(PYTEST_INI)
        print(f"reference {commit[:12]}, {len(files)} files x {', '.join(args.targets)}; runs under {work / 'runs'}",
              file=sys.stderr, flush=True)
    total, done = len(files) * len(args.targets), 0
    for name in files:
        for target in args.targets:
            done += 1
            print(f"[{done}/{total}] {name} on {target} ...", end=" ", file=sys.stderr, flush=True)
            start = time.monotonic()
            records = run_file(name, target, tree, work, site, args)
            merge(rows, name, target, records, tree)
            mine = [r for (f, _), r in rows.items() if f == name and target in r.results]
            passing = sum(r.results[target]["status"] == "passes" for r in mine)
            print(f"{passing}/{len(mine)} pass ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
    ordered = list(rows.values())
    results = {"commit": commit, "targets": args.targets,
               "rows": [{"file": r.file, "test": r.test, "cases": r.cases, "results": r.results} for r in ordered]}
    (work / "results.json").write_text(json.dumps(results, indent=1))
    text = f"Reference system tests at {commit[:12]}:\n\n{table(ordered, args.targets)}\n\n{counts(ordered, args.targets)}"
    (work / "table.md").write_text(text + "\n")
    print("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
