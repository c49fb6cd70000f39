#!/usr/bin/env python3
"""Run the PyPTO reference's own examples through pypto-xdsl and print docs/language.md's table.

    python scripts/run_reference_examples.py --reference /path/to/pypto[.git]
        [--targets interpreter,sim] [--timeout 600] [--only models/0] [--fresh]

(`make reference-examples REFERENCE=...` does the same in a venv that has torch: the examples
check their results with it.)

The reference's `examples/` is taken from its git repository (`git archive`, so a bare
repository will do) into a scratch directory, `build/reference-examples/uniform/` by default,
and its import statements are rewritten by one rule, the same for every name: `pypto` becomes
`pypto_xdsl` (`import pypto` becomes `import pypto_xdsl as pypto`; see rewrite_source). The
module paths the examples import exist under `pypto_xdsl` (`pypto_xdsl.ir.pass_manager`,
`pypto_xdsl.backend`, ...); a reference name this project does not provide fails with an error
saying so. Nothing else in an example changes. (`--extended`, which once added per-name
rewrites, is accepted and does nothing.)

Every numbered example of beginner/, intermediate/, advanced/ and models/ (and the qwen3_jit
package's entry, run as a module) and every module of utils/ runs its `__main__` once per
target, each in a subprocess of its own whose `$PYPTO_XDSL_TARGET` picks the target: the
examples' `RunConfig()` reads it, and their `platform=` names do not choose a target here.
The numbered distributed/ examples run too (`@pl.jit.host` multi-rank programs, some with
harness rows for their other command-line modes); of runtime/ only runtime/explicit_dispatch.py
runs (`ChipWorker` dispatch): the others need host callbacks and `DistributedWorker`.
"Harness" rows are checks added for examples whose `__main__` compiles nothing: the example is
imported unchanged and one of its functions called (see HARNESSES). A row "runs" when its
process exits 0, the example's own assertions holding; otherwise the table shows the last line
the process printed to stderr. Each run's output is kept under `<work>/uniform/runs/<target>/`,
the results in `<work>/uniform/results.json`.
"""

from __future__ import annotations

import argparse
import ast
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
EXAMPLE_DIRS = ("beginner", "intermediate", "advanced", "models", "distributed")
# Directories whose examples are not numbered: every module of them but `__init__.py`.
# (runtime/ runs through FILE_EXAMPLES.)
TOOL_DIRS = ("utils",)
# A package entry run with `python -m`: its relative imports need the package around it.
MODULE_EXAMPLES = ("models/qwen3_jit/qwen3_decode.py",)
# Single files of directories otherwise not run (runtime/: its other files are library code).
FILE_EXAMPLES = ("runtime/explicit_dispatch.py", "runtime/distributed_callback.py", "runtime/multi_program_kv_cache.py")

# The one rewriting rule, applied to the import statements of every file (see rewrite_source);
# the stamp of an extracted tree names it, so a changed rule extracts the tree anew.
RULE = "uniform: pypto -> pypto_xdsl on import statements (v1)"

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
    **{
        name: (
            f"its `__main__` with `{' '.join(argv)}`",
            f"""
import runpy

sys.argv = [{name!r}, *{argv!r}]
try:
    runpy.run_path(str(ROOT / "examples" / {name!r}), run_name="__main__")
except SystemExit as e:
    sys.exit(e.code)
""",
        )
        for name, argv in (
            ("distributed/04_barrier.py", ["--use-builtin"]),
            ("distributed/05_remote_load_store.py", ["--mode", "store"]),
            ("distributed/06_put_get.py", ["--mode", "get"]),
            ("distributed/07_dynamic_rank_count.py", ["-d", "0,1,2,3", "--mode", "get"]),
        )
    },
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


def extract(reference: str, revision: str, destination: Path, paths: tuple[str, ...] = ("examples",)) -> None:
    """Unpack `paths` (default `examples/`) of `reference` at `revision` into `destination`."""
    archive = _git(reference, "archive", "--format=tar", revision, *paths, text=False)
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        # The "data" filter (no absolute paths, links out of the tree or device files) where
        # this Python has it.
        tar.extractall(destination, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))


def rewrite_source(text: str) -> tuple[str, int]:
    """`text` with `pypto` changed to `pypto_xdsl` in its import statements; and how many
    statements changed. The statements are found with `ast`, so text that only looks like an
    import (in a string or a comment) stays as it is; relative imports are not touched.

        import pypto                  ->  import pypto_xdsl as pypto
        import pypto.a.b as z         ->  import pypto_xdsl.a.b as z
        import pypto.a.b              ->  import pypto_xdsl as pypto, pypto_xdsl.a.b
        from pypto.a import b         ->  from pypto_xdsl.a import b   (also `from pypto import ir`)

    Only the statement's own text changes: its indentation, a trailing comment and the
    lines of a parenthesised name list stay."""
    tree = ast.parse(text)
    lines = text.split("\n")
    count = 0
    # Bottom-up, so a rewrite never moves the columns of a statement still to come.
    statements = sorted(
        (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))),
        key=lambda node: (node.lineno, node.col_offset),
        reverse=True,
    )
    for node in statements:
        row = node.lineno - 1
        line = lines[row]
        if isinstance(node, ast.ImportFrom):
            if node.level or not _is_reference(node.module):
                continue
            head = re.compile(r"from\s+pypto\b")
            match = head.match(line, _column(line, node.col_offset))
            assert match, f"line {node.lineno}: {line!r}"  # ast found `from pypto...` here
            lines[row] = line[: match.start()] + "from pypto_xdsl" + line[match.end() :]
        else:
            if not any(_is_reference(alias.name) for alias in node.names):
                continue
            # One spanning lines (backslashes) is rebuilt on its first line.
            last = lines[node.end_lineno - 1]
            tail = last[_column(last, node.end_col_offset) :]
            start = _column(line, node.col_offset)
            lines[row] = line[:start] + "import " + ", ".join(map(_rewrite_alias, node.names)) + tail
            del lines[row + 1 : node.end_lineno]
        count += 1
    return "\n".join(lines), count


def _column(line: str, utf8_offset: int) -> int:
    """The index in `line` of ast's column, which counts UTF-8 bytes."""
    return len(line.encode()[:utf8_offset].decode(errors="replace"))


def _is_reference(module: str | None) -> bool:
    return module == "pypto" or (module or "").startswith("pypto.")


def _rewrite_alias(alias: ast.alias) -> str:
    if not _is_reference(alias.name):
        return alias.name + (f" as {alias.asname}" if alias.asname else "")
    ours = "pypto_xdsl" + alias.name.removeprefix("pypto")
    if alias.asname:
        return f"{ours} as {alias.asname}"
    if alias.name == "pypto":
        return "pypto_xdsl as pypto"
    # `import pypto.a` binds `pypto` (with `.a` loaded): bind the same, to this package.
    return f"pypto_xdsl as pypto, {ours}"


def rewrite_imports(root: Path) -> dict[str, int]:
    """Apply rewrite_source to every .py file under `root`; return the rewrites per file
    (a file Python cannot parse stays as it is, with -1)."""
    changed = {}
    for path in sorted(root.rglob("*.py")):
        try:
            text, count = rewrite_source(path.read_text())
        except SyntaxError:
            changed[str(path.relative_to(root))] = -1
            continue
        if count:
            path.write_text(text)
            changed[str(path.relative_to(root))] = count
    return changed


def prepare(args: argparse.Namespace, mode_dir: Path) -> str:
    """The extracted, rewritten tree under `mode_dir` (made anew with --fresh or when the
    reference's commit or the rule changed); returns the commit id."""
    stamp = mode_dir / "extracted.json"
    commit = _git(args.reference, "rev-parse", "--verify", f"{args.commit}^{{commit}}").strip()
    if not args.fresh and stamp.exists():
        previous = json.loads(stamp.read_text())
        if previous.get("commit") == commit and previous.get("rule") == RULE:
            return commit
    if mode_dir.exists():
        shutil.rmtree(mode_dir)
    extract(args.reference, commit, mode_dir)
    rewritten = rewrite_imports(mode_dir / "examples")
    stamp.write_text(json.dumps({"commit": commit, "rule": RULE, "rewritten": rewritten}, indent=1))
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
    """The numbered examples of EXAMPLE_DIRS, MODULE_EXAMPLES and the modules of TOOL_DIRS,
    each followed by its harness."""
    found = []
    for directory in EXAMPLE_DIRS:
        found += sorted(
            f"{directory}/{path.name}"
            for path in (examples / directory).glob("*.py")
            if re.match(r"\d+_", path.name)
        )
    found += [name for name in MODULE_EXAMPLES if (examples / name).exists()]
    found += [name for name in FILE_EXAMPLES if (examples / name).exists()]
    for directory in TOOL_DIRS:
        found += sorted(
            f"{directory}/{path.name}"
            for path in (examples / directory).glob("*.py")
            if not path.name.startswith("_")
        )
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
    # "file:1:2: error: ...", "ValueError: ...", "SimulationMismatch: ...": a word, a colon;
    # not a source line that only names an exception class.
    named = [line for line in lines if re.search(r"\b(error|\w*Error|\w*Exception|\w*Mismatch):", line)]
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
                        help="deprecated, no effect: the one import rule covers what it did")
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
    if args.extended:
        print("note: --extended is deprecated and has no effect: every import of pypto is rewritten "
              "by the one rule", file=sys.stderr)
    mode = "uniform"
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
