#!/usr/bin/env python3
"""Run the PyPTO reference's own examples through pypto-xdsl and print docs/language.md's table.

    python scripts/run_reference_examples.py --reference /path/to/pypto[.git] [--extended]
        [--targets interpreter,sim] [--timeout 600] [--only models/0] [--fresh]

(`make reference-examples REFERENCE=... REFERENCE_ARGS=--extended` does the same in a venv that
has torch: the examples check their results with it.)

The reference's `examples/` is taken from its git repository (`git archive`, so a bare
repository will do) into a scratch directory, `build/reference-examples/<mode>/` by default,
and its imports are rewritten to this project's modules: in the standard mode only the two
import lines every example has (`import pypto.language as pl`, `from pypto.runtime import ...`,
also where indented); with `--extended` also the reference-only names the model examples import
(`pypto.backend.BackendType` and `pypto.ir.pass_manager.OptimizationStrategy` from
`pypto_xdsl.runtime`, `from pypto import ir` as `pypto_xdsl.runtime.ir`). Nothing else in an
example changes.

Every numbered example of beginner/, intermediate/, advanced/ and models/ (and the qwen3_jit
package's entry, run as a module) runs its `__main__` once per target, each in a subprocess of
its own whose `$PYPTO_XDSL_TARGET` picks the target: the examples' `RunConfig()` reads it, and
their `platform=` names do not choose a target here. "Harness" rows are checks added for
examples whose `__main__` compiles nothing: the example is imported unchanged and one of its
functions called (see HARNESSES). A row "runs" when its process exits 0, the example's own
assertions holding; otherwise the table shows the last line the process printed to stderr.
Each run's output is kept under `<work>/<mode>/runs/<target>/`, the results in
`<work>/<mode>/results.json`.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = "/work/.mirror/hw-native-sys+pypto/repo"
TARGETS = ("interpreter", "sim")
EXAMPLE_DIRS = ("beginner", "intermediate", "advanced", "models")
# A package entry run with `python -m`: its relative imports need the package around it.
MODULE_EXAMPLES = ("models/qwen3_jit/qwen3_decode.py",)

# (pattern, replacement) per line; group 1 keeps an import's indentation.
STANDARD_IMPORTS = (
    (re.compile(r"^(\s*)import pypto\.language as pl\b"), r"\1import pypto_xdsl.language as pl"),
    (re.compile(r"^(\s*)from pypto\.runtime import\b"), r"\1from pypto_xdsl.runtime import"),
)
EXTENDED_IMPORTS = (
    (re.compile(r"^(\s*)from pypto\.backend import (BackendType)\s*$"), r"\1from pypto_xdsl.runtime import \2"),
    (
        re.compile(r"^(\s*)from pypto\.ir\.pass_manager import (OptimizationStrategy)\s*$"),
        r"\1from pypto_xdsl.runtime import \2",
    ),
    (re.compile(r"^(\s*)from pypto import ir\s*$"), r"\1import pypto_xdsl.runtime.ir as ir"),
)

# Harness drivers: run with the extracted tree's root as ROOT, `load(path)` imports an
# example file unchanged (its module-level code runs, its `__main__` block does not).
HARNESS_PRELUDE = '''
import importlib.util
import sys
from pathlib import Path

ROOT = Path({root!r})


def load(relative):
    path = ROOT / "examples" / relative
    name = "reference_example_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
'''

HARNESSES = {
    "models/03_flash_attention.py": (
        "`flash_attention.lower(q, k, v)`",
        '''
import torch

example = load("models/03_flash_attention.py")
q = torch.randn(64, 128, dtype=torch.float16)
k = torch.randn(1024, 128, dtype=torch.float16)
v = torch.randn(1024, 128, dtype=torch.float16)
lowered = example.flash_attention.lower(q, k, v)
print(f"lowered: {len(lowered.functions)} function(s)")
''',
    ),
    "models/05_paged_attention_batch.py": (
        "its program on 04's golden (batch 2, a ragged context of 200)",
        '''
import torch
from pypto_xdsl.runtime import RunConfig, run

paged = load("models/04_paged_attention.py")
batched = load("models/05_paged_attention_batch.py")
shape = dict(batch=2, num_heads=16, head_dim=16, block_size=16, max_num_blocks_per_req=16)
program = batched.BuildBatchPagedAttentionProgram(**shape)
torch.manual_seed(0)
query, key_cache, value_cache, block_table, context_lens, out, config = paged.build_tensors(
    **shape, context_len=200, scale=1.0
)
# 05's orchestration also takes the byte sizes of its three inputs (it does not read them).
sizes = [torch.tensor([t.numel() * t.element_size()], dtype=torch.int64) for t in (query, key_cache, value_cache)]
run(program, query, key_cache, value_cache, block_table, context_lens, out, config, *sizes, config=RunConfig())
expected = out.clone()
paged.golden(
    {
        "query": query,
        "key_cache": key_cache,
        "value_cache": value_cache,
        "block_table": block_table,
        "context_lens": context_lens,
        "out": expected,
        "config": config,
    }
)
assert torch.allclose(out, expected, rtol=2e-2, atol=2e-2), (
    f"does not match 04's golden: max diff {(out - expected).abs().max().item()}"
)
print("PASSED")
''',
    ),
    "models/08_llama_mini.py": (
        "`build_llama_mini_program().module`",
        '''
example = load("models/08_llama_mini.py")
module = example.build_llama_mini_program().module
print(f"built: {len(list(module.ops))} top-level op(s)")
''',
    ),
    "models/qwen3_jit/qwen3_decode.py": (
        "without `models/__init__.py`",
        '''
import runpy
import types

# examples/models/__init__.py imports every model example; stand in an empty package for it.
import examples

models = types.ModuleType("examples.models")
models.__path__ = [str(ROOT / "examples" / "models")]
sys.modules["examples.models"] = models
examples.models = models
runpy.run_module("examples.models.qwen3_jit.qwen3_decode", run_name="__main__", alter_sys=True)
''',
    ),
}


@dataclass
class Row:
    """One line of the table: an example's `__main__`, or a harness around it."""

    example: str  # path under examples/
    harness: str = ""  # the harness's description; empty for the example itself
    results: dict[str, dict] = field(default_factory=dict)  # target -> Outcome as a dict

    @property
    def label(self) -> str:
        return f"{self.example}, harness: {self.harness}" if self.harness else self.example

    @property
    def slug(self) -> str:
        stem = self.example.removesuffix(".py").replace("/", "__")
        return f"{stem}__harness" if self.harness else stem


@dataclass
class Outcome:
    status: str  # "runs", "fails" or "timeout"
    seconds: float
    reason: str  # the last stderr line of a run that did not pass
    log: str  # where its stdout and stderr are


# ---------------------------------------------------------------------------------------------
# Extracting and rewriting


def extract(reference: str, revision: str, destination: Path) -> None:
    """Unpack `examples/` of `reference` at `revision` into `destination`."""
    archive = _git(reference, "archive", "--format=tar", revision, "examples", text=False)
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        # The "data" filter (no absolute paths, links out of the tree or device files) where
        # this Python has it.
        tar.extractall(destination, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))


def rewrite_imports(root: Path, extended: bool) -> dict[str, int]:
    """Rewrite the import lines of every .py file under `root`; return rewrites per file."""
    rules = STANDARD_IMPORTS + (EXTENDED_IMPORTS if extended else ())
    changed = {}
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text().split("\n")
        count = 0
        for i, line in enumerate(lines):
            for pattern, replacement in rules:
                new = pattern.sub(replacement, line)
                if new != line:
                    lines[i], count = new, count + 1
                    break
        if count:
            path.write_text("\n".join(lines))
            changed[str(path.relative_to(root))] = count
    return changed


def prepare(args: argparse.Namespace, mode_dir: Path) -> str:
    """The extracted, rewritten tree under `mode_dir` (made anew with --fresh or when the
    reference's commit changed); returns the commit id."""
    stamp = mode_dir / "extracted.json"
    commit = _git(args.reference, "rev-parse", "--verify", f"{args.commit}^{{commit}}").strip()
    rules = [pattern.pattern for pattern, _ in STANDARD_IMPORTS + (EXTENDED_IMPORTS if args.extended else ())]
    if not args.fresh and stamp.exists():
        previous = json.loads(stamp.read_text())
        if previous.get("commit") == commit and previous.get("rules") == rules:
            return commit
    if mode_dir.exists():
        shutil.rmtree(mode_dir)
    extract(args.reference, commit, mode_dir)
    rewritten = rewrite_imports(mode_dir / "examples", args.extended)
    stamp.write_text(json.dumps({"commit": commit, "rules": rules, "rewritten": rewritten}, indent=1))
    return commit


def _git(reference: str, *command: str, text: bool = True):
    """The output of `git -C reference command...`; a failure ends the script with git's message."""
    done = subprocess.run(["git", "-C", reference, *command], capture_output=True, text=text)
    if done.returncode != 0:
        message = done.stderr if text else done.stderr.decode(errors="replace")
        sys.exit(f"error: git {' '.join(command)} in {reference}: {message.strip()}")
    return done.stdout


# ---------------------------------------------------------------------------------------------
# Rows and running


def discover(examples: Path) -> list[Row]:
    """The numbered examples of EXAMPLE_DIRS and MODULE_EXAMPLES, each followed by its harness."""
    found = []
    for directory in EXAMPLE_DIRS:
        found += sorted(
            f"{directory}/{path.name}"
            for path in (examples / directory).glob("*.py")
            if re.match(r"\d+_", path.name)
        )
    found += [name for name in MODULE_EXAMPLES if (examples / name).exists()]
    rows = []
    for name in found:
        rows.append(Row(name))
        if name in HARNESSES:
            rows.append(Row(name, HARNESSES[name][0]))
    return rows


def command_for(row: Row, tree: Path) -> list[str]:
    if row.harness:
        driver = HARNESS_PRELUDE.format(root=str(tree)) + textwrap.dedent(HARNESSES[row.example][1])
        return ["-c", driver]
    if row.example in MODULE_EXAMPLES:
        return ["-m", "examples." + row.example.removesuffix(".py").replace("/", ".")]
    return [str(tree / "examples" / row.example)]


def run_row(row: Row, target: str, tree: Path, runs: Path, args: argparse.Namespace) -> Outcome:
    """Run one row on one target in its own process (and process group, so a timeout ends
    every process it started)."""
    cwd = runs / target / row.slug  # build_output/ and other files the example writes
    if cwd.exists():
        shutil.rmtree(cwd)
    cwd.mkdir(parents=True)
    env = dict(os.environ)
    env["PYPTO_XDSL_TARGET"] = target
    # This project's tree first, so the run measures the code next to this script; the
    # extracted tree for the `examples` package of module runs.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PROJECT_ROOT), str(tree), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    if args.cache:
        env["PYPTO_XDSL_CACHE"] = str(args.cache)
    env.setdefault("PYTHONUNBUFFERED", "1")
    stdout_path, stderr_path = cwd / "stdout.txt", cwd / "stderr.txt"
    start = time.monotonic()
    with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [args.python, *command_for(row, tree)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
    seconds = time.monotonic() - start
    if code is None:
        return Outcome("timeout", seconds, f"no result within {args.timeout:g} s", str(cwd))
    if code == 0:
        return Outcome("runs", seconds, "", str(cwd))
    return Outcome("fails", seconds, failure_reason(stderr_path, tree) or f"exit status {code}", str(cwd))


def failure_reason(path: Path, tree: Path, limit: int = 300) -> str:
    """The line of a failed run's stderr that says why: the last one naming an error (a
    located diagnostic is followed by its source line and caret; a traceback ends with its
    exception), else the last line; paths shown relative to the extracted tree."""
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    if not lines:
        return ""
    named = [line for line in lines if re.search(r"error|exception|mismatch", line, re.IGNORECASE)]
    line = (named or lines)[-1].replace(f"{tree}{os.sep}", "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# The table


def table(rows: list[Row], targets: list[str]) -> str:
    """The markdown table: one column per target, the reasons of failures and the times."""
    head = "| example | " + " | ".join(targets) + " | notes |"
    lines = [head, "|---|" + "---|" * len(targets) + "---|"]
    for row in rows:
        cells, notes = [], []
        for target in targets:
            outcome = row.results.get(target)
            if outcome is None:
                cells.append("")
                continue
            cells.append(outcome["status"])
            note = f"{target} {outcome['seconds']:.0f} s"
            if outcome["reason"]:
                note += ": " + outcome["reason"].replace("|", "\\|")
            notes.append(note)
        lines.append(f"| {row.label} | " + " | ".join(cells) + " | " + "; ".join(notes) + " |")
    return "\n".join(lines)


def counts(rows: list[Row], targets: list[str]) -> str:
    ran = [r for r in rows if all(t in r.results for t in targets)]
    everywhere = sum(all(r.results[t]["status"] == "runs" for t in targets) for r in ran)
    per_target = ", ".join(
        f"{t} {sum(r.results[t]['status'] == 'runs' for r in ran)}" for t in targets
    )
    return f"{everywhere} of {len(ran)} rows run on {' and '.join(targets)} (per target: {per_target})"


# ---------------------------------------------------------------------------------------------


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default=DEFAULT_REFERENCE,
                        help="the PyPTO git repository (a checkout or a bare repository)")
    parser.add_argument("--commit", default="HEAD", help="the reference's revision (default HEAD)")
    parser.add_argument("--work", type=Path, default=PROJECT_ROOT / "build" / "reference-examples",
                        help="scratch directory for the extracted examples and the runs")
    parser.add_argument("--fresh", action="store_true", help="extract the examples again")
    parser.add_argument("--extended", action="store_true",
                        help="also rewrite the reference-only imports of the model examples")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: interpreter,sim")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per example and target")
    parser.add_argument("--only", action="append", default=[],
                        help="run only the rows whose label contains this text (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the rows and stop")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the examples run with")
    parser.add_argument("--cache", type=Path, default=None,
                        help="$PYPTO_XDSL_CACHE of the runs (default: the environment's)")
    args = parser.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown or not targets:
        parser.error(f"--targets takes {', '.join(TARGETS)}; got {args.targets!r}")
    args.targets = targets
    if not Path(args.reference).exists():
        parser.error(f"--reference {args.reference}: no such directory")
    has_torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    if not has_torch and not args.list:
        parser.error(f"{args.python} cannot import torch, which the examples check their results with; "
                     "`make reference-examples` makes a venv that has it (or pass --python)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    mode = "extended" if args.extended else "standard"
    mode_dir = args.work.resolve() / mode
    tree = mode_dir  # the extracted tree's root: it holds examples/
    commit = prepare(args, mode_dir)
    rows = discover(tree / "examples")
    if args.only:
        rows = [r for r in rows if any(text in r.label for text in args.only)]
    if args.list:
        print("\n".join(r.label for r in rows))
        return 0
    print(f"reference {commit[:12]}, {mode} imports, {len(rows)} rows x {', '.join(args.targets)}; "
          f"runs under {mode_dir / 'runs'}", file=sys.stderr, flush=True)
    total = len(rows) * len(args.targets)
    done = 0
    for row in rows:
        for target in args.targets:
            done += 1
            print(f"[{done}/{total}] {row.label} on {target} ...", end=" ", file=sys.stderr, flush=True)
            outcome = run_row(row, target, tree, mode_dir / "runs", args)
            row.results[target] = asdict(outcome)
            reason = f": {outcome.reason}" if outcome.reason else ""
            print(f"{outcome.status} ({outcome.seconds:.1f} s){reason}", file=sys.stderr, flush=True)
    results = {"commit": commit, "mode": mode, "targets": args.targets,
               "rows": [{"label": r.label, **asdict(r)} for r in rows]}
    (mode_dir / "results.json").write_text(json.dumps(results, indent=1))
    print(f"\nReference examples at {commit[:12]}, {mode} imports:\n")
    print(table(rows, args.targets))
    print(f"\n{counts(rows, args.targets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
