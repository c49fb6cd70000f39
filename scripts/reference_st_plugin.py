"""The pytest plugin scripts/run_reference_st.py runs the reference's system tests with.

It stands in for the reference's `tests/st/conftest.py` (whose runner drives PyPTO's device
toolchain and is not loaded: pytest runs with `--noconftest`). It provides what the test
functions ask for:

- `test_runner`: `.run(case)` runs one `PTOTestCase` with pypto-xdsl (see StRunner);
- `test_config`: a `RunConfig` of platform a2a3sim, for the tests that call `@pl.jit`
  kernels themselves; the target is `$PYPTO_XDSL_TARGET`, as RunConfig's default is;

and keeps the tests' variants of the a2a3 family (see pytest_collection_modifyitems: the
a2a3sim variant, as `--platform=a2a3sim` selects in the reference, or the a2a3 one). One JSON line per test goes to `--st-results`: its id, the
outcome, the test cases it ran (name, passed, error) and the first error line; a "start" line
before each test, so a run cut short by the timeout names the test it was in.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

PLATFORM = "a2a3sim"
_CURRENT_CASES: list[list[dict]] = []  # [the case records of the test running now]
BACKEND = "Ascend910B"


def pytest_addoption(parser):
    parser.addoption("--st-results", default=None, help="JSON lines file of the results")


def pytest_configure(config):
    _stand_in_for_test_runner()
    config.addinivalue_line("markers", "platforms(*ids): the platforms a test runs on")
    config._st_cases = {}  # nodeid -> the cases test_runner ran in it
    config.pluginmanager.register(Recorder(config, config.getoption("--st-results")), "reference-st-recorder")


def _stand_in_for_test_runner() -> None:
    """`harness.core.test_runner` (the reference's runner, which `harness/__init__.py`
    imports) is this module's StRunner: the rest of the harness package is the reference's."""
    import sys
    import types

    module = types.ModuleType("harness.core.test_runner", "scripts/reference_st_plugin.py's stand-in runner")
    module.TestRunner = StRunner
    module.TestSuite = None
    sys.modules["harness.core.test_runner"] = module


# ---------------------------------------------------------------------------------------------
# Selecting the a2a3sim variants


def _platform_of(value: Any) -> str | None:
    """The platform a parameter value names (a platform id or a BackendType), else None."""
    name = getattr(value, "name", value)
    if isinstance(name, str) and name in ("a2a3", "a5", "a2a3sim", "a5sim", "Ascend910B", "Ascend950"):
        return name
    return None


def pytest_collection_modifyitems(config, items):
    """Keep the a2a3 family's variants: a test whose `platform` (or `backend_type`) parameter
    or `platforms` mark names a2a3sim, a2a3 or Ascend910B (both targets here simulate the a2a3
    family, so a test the reference runs on a2a3 hardware only is run too); of a test with both
    an a2a3sim and an a2a3 variant, only the a2a3sim one."""
    family = {PLATFORM, PLATFORM.removesuffix("sim"), BACKEND}
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("platforms")
        params = getattr(getattr(item, "callspec", None), "params", {})
        named = {_platform_of(v) for v in params.values()} - {None}
        if (marker is not None and not family & set(marker.args)) or named - family:
            dropped.append(item)
        else:
            kept.append(item)

    def variant(item) -> tuple[str, str]:
        params = getattr(getattr(item, "callspec", None), "params", {})
        rest = sorted((k, repr(v)) for k, v in params.items() if _platform_of(v) is None)
        return item.parent.nodeid if item.parent else "", getattr(item, "originalname", item.name) + repr(rest)

    simulated = {variant(i) for i in kept if PLATFORM in getattr(getattr(i, "callspec", None), "params", {}).values()}
    for item in list(kept):
        params = getattr(getattr(item, "callspec", None), "params", {})
        if PLATFORM.removesuffix("sim") in params.values() and variant(item) in simulated:
            kept.remove(item)
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def test_config():
    from pypto_xdsl.runtime.runner import RunConfig

    return RunConfig(platform=PLATFORM)


@pytest.fixture(scope="session")
def test_runner(test_config):
    """Session-scoped, as the reference's (its tests use it from module-scoped fixtures)."""
    return StRunner(test_config)


class StRunner:
    """The reference harness's TestRunner, on pypto-xdsl: a case's tensors are made from its
    `define_tensors()` (and scalars from `define_scalars()`), `get_program()` runs on them
    with `run(program, *tensors, *scalars, config=case.config)` (PyPTO's argument order:
    the tensors in the order of their specs, then the scalars), `compute_expected()` runs on
    copies of the same inputs, and every `is_output` tensor is compared with torch.isclose at
    the case's `config.rtol` / `config.atol`, the positions where the expected value is NaN
    not compared (the reference's `validate_golden`)."""

    def __init__(self, config: Any = None) -> None:  # the reference's TestRunner(config)
        self.config = config

    @property
    def cases(self) -> list[dict]:
        """The cases of the test running now (Recorder.pytest_runtest_logstart)."""
        return _CURRENT_CASES[-1] if _CURRENT_CASES else []

    def run(self, case: Any) -> Any:
        from pypto_xdsl.runtime.runner import RunResult

        name = _case_name(case)
        start = time.monotonic()
        try:
            self._run(case)
            result = RunResult(passed=True, test_name=name, execution_time=time.monotonic() - start)
        except Exception as e:  # the test asserts result.passed and shows result.error
            error = f"{type(e).__name__}: {e}"
            result = RunResult(passed=False, test_name=name, error=error, execution_time=time.monotonic() - start)
            self.cases.append({"case": name, "passed": False, "error": error, "traceback": traceback.format_exc()})
            return result
        self.cases.append({"case": name, "passed": True, "error": ""})
        return result

    def _run(self, case: Any) -> None:
        import torch

        from pypto_xdsl.runtime import run
        from pypto_xdsl.runtime.tensor_spec import TensorSpec

        specs = case.tensor_specs
        tensors = {
            s.name: TensorSpec(s.name, s.shape, s.dtype.torch_dtype, s.init_value, s.is_output).create_tensor()
            for s in specs
        }
        expected = {name: t.clone() for name, t in tensors.items()}
        case.compute_expected(expected)
        scalars = [s.value for s in case.scalar_specs]
        program = case.get_program()
        if program is None:
            raise ValueError(f"test case {_case_name(case)}: get_program() returned None")
        run(program, *[tensors[s.name] for s in specs], *scalars, config=case.config)
        rtol, atol = case.config.rtol, case.config.atol
        for s in specs:
            if not s.is_output:
                continue
            actual, golden = tensors[s.name], expected[s.name]
            if actual.shape != golden.shape:
                raise AssertionError(f"output '{s.name}': shape {list(actual.shape)}, expected {list(golden.shape)}")
            if golden.is_floating_point():
                care = ~torch.isnan(golden)
                close = torch.isclose(actual, golden.to(actual.dtype), rtol=rtol, atol=atol) | ~care
            else:
                close = actual == golden
            if not bool(close.all()):
                wrong = (~close).flatten().nonzero().flatten()
                i = int(wrong[0])
                raise AssertionError(
                    f"output '{s.name}': {wrong.numel()} of {close.numel()} elements differ "
                    f"(rtol={rtol}, atol={atol}); first at flat index {i}: "
                    f"{actual.flatten()[i].item()} vs expected {golden.flatten()[i].item()}"
                )


def _case_name(case: Any) -> str:
    try:
        return str(case.get_name())
    except Exception:  # a get_name() that fails is the case's problem, not the row's label
        return type(case).__name__


# ---------------------------------------------------------------------------------------------
# Reporting


class Recorder:
    """Writes the JSON lines of `--st-results` (registered by pytest_configure)."""

    def __init__(self, config, path: str | None) -> None:
        self.config = config
        self.path = Path(path) if path else None

    def write(self, record: dict) -> None:
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps(record) + "\n")

    def pytest_runtest_logstart(self, nodeid, location):
        _CURRENT_CASES[:] = [self.config._st_cases.setdefault(nodeid, [])]
        self.write({"event": "start", "nodeid": nodeid, "time": time.time()})

    def pytest_runtest_logreport(self, report):
        # One record per test: its call, or the setup/teardown phase that did not pass.
        if report.when != "call" and report.outcome == "passed":
            return
        cases = self.config._st_cases.get(report.nodeid, [])
        self.write({
            "event": "result",
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,  # passed, failed, skipped
            "seconds": report.duration,
            "cases": cases,
            "error": _first_error(report, cases),
        })

    def pytest_collectreport(self, report):
        if report.outcome == "failed":
            self.write({"event": "collect-error", "nodeid": report.nodeid, "error": _first_error(report, [])})


def _first_error(report, cases: list[dict]) -> str:
    """Why a test did not pass: its first failing case's error, else the exception pytest
    reports (a collection error's last `E` line, a skip's reason)."""
    if report.outcome == "passed":
        return ""
    for case in cases:
        if not case["passed"]:
            return case["error"]
    if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    text = str(report.longrepr).strip()
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    return lines[-1] if lines else (text.splitlines()[-1] if text else "")
