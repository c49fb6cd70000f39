"""scripts/run_reference_st.py and scripts/reference_st_plugin.py, the runner of the
reference's system tests: which variants of a test run (the a2a3 family), what is recorded
per test, and the table made from the records. The reference's tests themselves need torch
and run with `make reference-st`, not here."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


runner = _load("run_reference_st")

TESTS = '''
import pytest

PLATFORMS = [pytest.param(p, id=p) for p in ("a2a3sim", "a5sim", "a2a3", "a5")]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_everywhere(platform):
    pass


@pytest.mark.platforms("a2a3")
@pytest.mark.parametrize("n", [1, 2])
def test_onboard_only(n):
    assert n == 1, "n is not 1"


@pytest.mark.platforms("a5", "a5sim")
def test_a5_only():
    pass


@pytest.mark.parametrize("platform", [pytest.param(p, id=p) for p in ("a2a3", "a5")])
def test_no_sim_variant(platform, test_config):
    assert test_config.platform == "a2a3sim"
'''


def _run_plugin(tmp_path: Path) -> list[dict]:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(TESTS))
    (tmp_path / "pytest.ini").write_text(runner.PYTEST_INI)
    results = tmp_path / "results.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SCRIPTS), str(SCRIPTS.parent)]))
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--noconftest", "-p", "reference_st_plugin", "-c",
         str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "--st-results", str(results),
         str(tmp_path / "test_sample.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )
    return [json.loads(line) for line in results.read_text().splitlines()]


def test_the_plugin_keeps_the_a2a3_family_and_records_each_test(tmp_path):
    records = _run_plugin(tmp_path)
    results = {r["nodeid"].split("::", 1)[1]: r for r in records if r["event"] == "result"}
    assert sorted(results) == [
        "test_everywhere[a2a3sim]",  # not a2a3: the sim variant is kept
        "test_no_sim_variant[a2a3]",  # no a2a3sim variant: the a2a3 one
        "test_onboard_only[1]",
        "test_onboard_only[2]",
    ]
    assert results["test_onboard_only[2]"]["outcome"] == "failed"
    assert "n is not 1" in results["test_onboard_only[2]"]["error"]
    assert results["test_no_sim_variant[a2a3]"]["outcome"] == "passed"
    starts = [r["nodeid"] for r in records if r["event"] == "start"]
    assert len(starts) == 4  # a run cut short names the test it was in


def test_the_table_merges_targets_and_counts(tmp_path):
    tree = tmp_path / "tree"
    rows: dict = {}
    ok = {"event": "result", "nodeid": "tests/st/a/test_x.py::T::test_one", "outcome": "passed", "seconds": 1.0,
          "cases": [{"case": "one", "passed": True, "error": ""}], "error": "", "log": "l"}
    bad = {**ok, "nodeid": "tests/st/a/test_x.py::T::test_two", "outcome": "failed",
           "cases": [{"case": "two", "passed": False, "error": f"ParserError: {tree}/tests/st/a/test_x.py:3:4: error: no\nsource"}],
           "error": f"ParserError: {tree}/tests/st/a/test_x.py:3:4: error: no\nsource"}
    collect = {"event": "collect-error", "nodeid": "tests/st/a/test_y.py", "error": "ImportError: x | y", "log": "l"}
    runner.merge(rows, "a/test_x.py", "interpreter", [ok, bad], tree)
    runner.merge(rows, "a/test_x.py", "sim", [ok, {**bad, "outcome": "passed", "error": ""}], tree)
    runner.merge(rows, "a/test_y.py", "interpreter", [collect], tree)
    runner.merge(rows, "a/test_y.py", "sim", [collect], tree)
    ordered = list(rows.values())
    table = runner.table(ordered, ["interpreter", "sim"])
    assert "| a/test_x.py | T::test_two (two) | fails | passes | ParserError: tests/st/a/test_x.py:3:4: error: no |" in table
    assert "| a/test_y.py | (collection) | fails | fails | ImportError: x \\| y |" in table
    assert runner.counts(ordered, ["interpreter", "sim"]) == (
        "1 of 3 tests pass on interpreter and sim (per target: interpreter 1 of 3, sim 2 of 3; 0 skipped); "
        "0 of 2 files pass entirely"
    )
