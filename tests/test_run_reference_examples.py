"""scripts/run_reference_examples.py, the runner of the reference's examples: the import
rewriting rule, extraction from a git repository, the rows it finds, and how a run's
outcome is read (exit status, the line that says why, the timeout). The examples themselves
need torch and run with `make reference-examples`, not here."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run_reference_examples.py"


def _load_runner():
    spec = importlib.util.spec_from_file_location("run_reference_examples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


runner = _load_runner()

EXAMPLE = """\"\"\"An example.

    import pypto.language as pl   (a docstring: not an import statement)
\"\"\"
import pypto
import pypto.language as pl
import torch
from pypto.backend import BackendType
from pypto.backend import Other
from pypto.ir.pass_manager import OptimizationStrategy
from pypto import ir
from pypto.runtime import (
    RunConfig,
    run,
)
from .helpers import pypto_helper
import pypto_extras
import os, pypto.ir, sys  # noqa: E401


def main():
    from pypto.runtime import TensorSpec  # noqa: PLC0415
    return TensorSpec, "from pypto import ir"
"""  # no newline at the end of the last line, as some files have


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_one_rule_rewrites_every_import_of_pypto_and_nothing_else(tmp_path):
    root = _tree(tmp_path, {"models/04_x.py": EXAMPLE.rstrip("\n"), "beginner/01_y.py": "import torch\n"})
    assert runner.rewrite_imports(root) == {"models/04_x.py": 9}
    text = (root / "models/04_x.py").read_text()
    assert text.splitlines() == [
        '"""An example.',
        "",
        "    import pypto.language as pl   (a docstring: not an import statement)",
        '"""',
        "import pypto_xdsl as pypto",
        "import pypto_xdsl.language as pl",
        "import torch",
        "from pypto_xdsl.backend import BackendType",
        "from pypto_xdsl.backend import Other",  # left to fail with the reference-name error
        "from pypto_xdsl.ir.pass_manager import OptimizationStrategy",
        "from pypto_xdsl import ir",
        "from pypto_xdsl.runtime import (",
        "    RunConfig,",
        "    run,",
        ")",
        "from .helpers import pypto_helper",
        "import pypto_extras",
        "import os, pypto_xdsl as pypto, pypto_xdsl.ir, sys  # noqa: E401",
        "",
        "",
        "def main():",
        "    from pypto_xdsl.runtime import TensorSpec  # noqa: PLC0415",
        '    return TensorSpec, "from pypto import ir"',
    ]
    assert not text.endswith("\n")
    assert (root / "beginner/01_y.py").read_text() == "import torch\n"


def test_the_rule_keeps_what_each_import_binds():
    rewritten, count = runner.rewrite_source(
        "import pypto.ir.pass_manager as pm\nimport pypto as p\nimport pypto.a.b as \\\n    z  # tail\nx = 1\n"
    )
    assert count == 3
    assert rewritten == "import pypto_xdsl.ir.pass_manager as pm\nimport pypto_xdsl as p\nimport pypto_xdsl.a.b as z  # tail\nx = 1\n"


def test_a_file_python_cannot_parse_is_left_as_it_is(tmp_path):
    root = _tree(tmp_path, {"utils/broken.py": "import pypto.language as pl\ndef (\n"})
    assert runner.rewrite_imports(root) == {"utils/broken.py": -1}
    assert (root / "utils/broken.py").read_text() == "import pypto.language as pl\ndef (\n"


def test_extracts_examples_from_a_bare_repository_and_finds_the_rows(tmp_path):
    source = _tree(
        tmp_path / "source",
        {
            "examples/__init__.py": "",
            "examples/beginner/__init__.py": "import importlib\n",
            "examples/beginner/02_b.py": "",
            "examples/beginner/01_a.py": "",
            "examples/beginner/helper.py": "",
            "examples/models/03_flash_attention.py": "",
            "examples/models/qwen3_jit/qwen3_decode.py": "",
            "examples/utils/__init__.py": "",
            "examples/utils/parse_tool.py": "",
            "examples/distributed/01_hello_rank.py": "",
            "examples/runtime/explicit_dispatch.py": "",
            "examples/runtime/distributed_callback.py": "",
            "src/other.py": "",
        },
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C"]
    subprocess.run([*git, str(source), "init", "-q"], check=True)
    subprocess.run([*git, str(source), "add", "."], check=True)
    subprocess.run([*git, str(source), "commit", "-q", "-m", "examples"], check=True)
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)

    runner.extract(str(bare), "HEAD", tmp_path / "out")
    assert (tmp_path / "out/examples/beginner/01_a.py").exists()
    assert not (tmp_path / "out/src").exists()
    labels = [row.label for row in runner.discover(tmp_path / "out/examples")]
    assert labels == [
        "beginner/01_a.py",
        "beginner/02_b.py",
        "models/03_flash_attention.py",
        "models/03_flash_attention.py, harness: `flash_attention.lower(q, k, v)`",
        "distributed/01_hello_rank.py",
        "models/qwen3_jit/qwen3_decode.py",
        "models/qwen3_jit/qwen3_decode.py, harness: without `models/__init__.py`",
        "runtime/explicit_dispatch.py",
        "runtime/distributed_callback.py",
        "utils/parse_tool.py",
    ]


@pytest.fixture
def fake_tree(tmp_path):
    return _tree(
        tmp_path / "tree",
        {
            "examples/beginner/01_ok.py": (
                "import os\nimport pypto_xdsl.runtime\n"
                "assert os.environ['PYPTO_XDSL_TARGET'] == 'sim'\nprint('ok')\n"
            ),
            "examples/beginner/02_fails.py": "print('working')\nraise ValueError('wrong result')\n",
            "examples/beginner/03_hangs.py": "import time\ntime.sleep(60)\n",
        },
    )


def _arguments(timeout: float) -> argparse.Namespace:
    return argparse.Namespace(timeout=timeout, python=sys.executable, cache=None)


def test_a_run_passes_on_exit_status_zero_with_the_target_in_its_environment(fake_tree, tmp_path):
    outcome = runner.run_row(runner.Row("beginner/01_ok.py"), "sim", fake_tree, tmp_path / "runs", _arguments(60))
    assert (outcome.status, outcome.reason) == ("runs", "")
    assert (Path(outcome.log) / "stdout.txt").read_text() == "ok\n"


def test_a_failed_run_shows_the_exception(fake_tree, tmp_path):
    row = runner.Row("beginner/02_fails.py")
    outcome = runner.run_row(row, "interpreter", fake_tree, tmp_path / "runs", _arguments(60))
    assert (outcome.status, outcome.reason) == ("fails", "ValueError: wrong result")


def test_a_run_past_its_timeout_is_ended(fake_tree, tmp_path):
    row = runner.Row("beginner/03_hangs.py")
    outcome = runner.run_row(row, "interpreter", fake_tree, tmp_path / "runs", _arguments(1))
    assert outcome.status == "timeout"
    assert outcome.seconds < 30


def test_the_reason_of_a_located_diagnostic_is_its_error_line(tmp_path):
    tree = tmp_path / "tree"
    stderr = tmp_path / "stderr.txt"
    stderr.write_text(
        f"{tree}/examples/models/03_flash_attention.py:66:31: error: pypto.tensor.assemble: "
        "operand 'source' has element type f16 but 'dest' has f32\n"
        "                oiUpdate_90 = pl.assemble(oi_update, oiUpdate_87, offset=[0, 0])\n"
        "                              ^^^^^^^^^^^^\n"
    )
    assert runner.failure_reason(stderr, tree) == (
        "examples/models/03_flash_attention.py:66:31: error: pypto.tensor.assemble: "
        "operand 'source' has element type f16 but 'dest' has f32"
    )


def test_the_reason_is_not_the_source_line_under_a_diagnostic(tmp_path):
    stderr = tmp_path / "stderr.txt"
    stderr.write_text(
        "examples/utils/e.py:33:5: error: pypto.backend.pto_backend.PartialCodegenError is a PyPTO name\n"
        "    from pypto_xdsl.backend.pto_backend import PartialCodegenError\n"
        "    ^^^^^^^^^^^^^^^^\n"
    )
    assert runner.failure_reason(stderr, tmp_path) == (
        "examples/utils/e.py:33:5: error: pypto.backend.pto_backend.PartialCodegenError is a PyPTO name"
    )


def test_the_table_and_counts():
    rows = [runner.Row("beginner/01_a.py"), runner.Row("models/03_x.py", "`f.lower()`")]
    rows[0].results = {t: {"status": "runs", "seconds": 1.0, "reason": ""} for t in runner.TARGETS}
    rows[1].results = {
        "interpreter": {"status": "runs", "seconds": 2.0, "reason": ""},
        "sim": {"status": "fails", "seconds": 3.0, "reason": "a | b"},
    }
    assert runner.table(rows, list(runner.TARGETS)).splitlines() == [
        "| example | interpreter | sim | notes |",
        "|---|---|---|---|",
        "| beginner/01_a.py | runs | runs | interpreter 1 s; sim 1 s |",
        "| models/03_x.py, harness: `f.lower()` | runs | fails | interpreter 2 s; sim 3 s: a \\| b |",
    ]
    assert runner.counts(rows, list(runner.TARGETS)) == (
        "1 of 2 rows run on interpreter and sim (per target: interpreter 2, sim 1)"
    )


def test_a_reference_that_is_no_git_repository_is_one_message(tmp_path):
    with pytest.raises(SystemExit) as stop:
        runner._git(str(tmp_path), "rev-parse", "--verify", "HEAD^{commit}")
    assert str(stop.value).startswith(f"error: git rev-parse --verify HEAD^{{commit}} in {tmp_path}: fatal:")
