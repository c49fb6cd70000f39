"""PyPTO's `pypto.runtime.runner` path: `RunConfig`, `run` and `RunResult` (the record PyPTO's
test harness returns for one test case).

PyPTO's device-runner internals there (`compile_program`, its swimlane options, golden files)
have no counterpart: programs run on the interpreter or the CPU simulation (see
`pypto_xdsl.runtime`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_xdsl.reference_names import reference_only_getattr
from pypto_xdsl.runtime.config import RunConfig
from pypto_xdsl.runtime.program import run

__all__ = ["RunConfig", "RunResult", "run"]


@dataclass
class RunResult:
    """One test case's outcome: `passed`, its name, the error when it did not pass, and the
    wall-clock seconds of compiling, running and checking it."""

    __test__ = False  # not a pytest test class

    passed: bool
    test_name: str | None = None
    error: str | None = None
    execution_time: float | None = None
    profile: dict[str, Any] | None = None

    def __str__(self) -> str:
        head = ("PASS" if self.passed else "FAIL") + (f": {self.test_name}" if self.test_name else "")
        if not self.passed and self.error:
            head += f" - {self.error}"
        return head + (f" ({self.execution_time:.2f}s)" if self.execution_time else "")


__getattr__ = reference_only_getattr(
    __name__,
    "PyPTO's device runner has no counterpart: run with run(program, ...) or the @pl.jit function "
    "on RunConfig(target='interpreter' | 'sim')",
    tuple(__all__),
)
