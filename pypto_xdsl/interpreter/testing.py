"""Semantic-equivalence checking: run two versions of a program on the same inputs."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.interpreter.api import entry_function, parse_module, random_inputs, run
from pypto_xdsl.interpreter.tolerance import ATOL, RTOL, MatmulPrecision, program_precision, tolerance_for
from pypto_xdsl.interpreter.values import TaskId

__all__ = ["ATOL", "RTOL", "SemanticsMismatch", "assert_same_semantics", "compare_values"]


class SemanticsMismatch(AssertionError):
    """Two programs that should mean the same computed different results."""


def _as_module(m: ModuleOp | str) -> ModuleOp:
    return parse_module(m) if isinstance(m, str) else m


def _copy_inputs(inputs: Sequence[Any]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else copy.copy(a) for a in inputs]


def compare_values(
    what: str,
    expected: Any,
    actual: Any,
    rtol: float = RTOL,
    atol: float = ATOL,
    precision: MatmulPrecision | None = None,
) -> str | None:
    """None when equal (floats within tolerance, NaN == NaN), else a description of the difference.

    With `precision` (the program's matmuls, `tolerance.program_precision`), float arrays are
    compared with the tolerance derived from K and the dtype (at least `rtol`/`atol`)."""
    if isinstance(expected, TaskId) or isinstance(actual, TaskId):
        if isinstance(expected, TaskId) and isinstance(actual, TaskId):
            return None
        return f"{what}: task id vs {type(actual).__name__}"
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        if not (isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray)):
            return f"{what}: {type(expected).__name__} vs {type(actual).__name__}"
        if expected.shape != actual.shape:
            return f"{what}: shape {list(expected.shape)} vs {list(actual.shape)}"
        if expected.dtype != actual.dtype:
            return f"{what}: dtype {expected.dtype} vs {actual.dtype}"
        if np.issubdtype(expected.dtype, np.floating):
            close = tolerance_for(expected, precision, rtol, atol).close(expected, actual)
        else:
            close = expected == actual
        if close.all():
            return None
        bad = np.argwhere(~close)
        first = tuple(int(i) for i in bad[0])
        return (
            f"{what}: {len(bad)} of {expected.size} elements differ, first at {list(first)}: "
            f"expected {expected[first]!r}, got {actual[first]!r}"
        )
    if isinstance(expected, float) or isinstance(actual, float):
        if isinstance(expected, int | float) and isinstance(actual, int | float):
            if np.isclose(expected, actual, rtol=rtol, atol=atol, equal_nan=True):
                return None
        return f"{what}: expected {expected!r}, got {actual!r}"
    if expected != actual:
        return f"{what}: expected {expected!r}, got {actual!r}"
    return None


def assert_same_semantics(
    before: ModuleOp | str,
    after: ModuleOp | str,
    entry: str = "main",
    seeds: Sequence[int] = (0, 1, 2),
    dims: Mapping[str, int] | None = None,
    *,
    written_only: bool = False,
    check_directions: bool = False,
    rtol: float = RTOL,
    atol: float = ATOL,
    matmul_tolerance: bool = True,
    max_steps: int | None = None,
) -> None:
    """Run `@entry` of both modules on the same seeded random inputs and compare.

    `max_steps` bounds each run (ops executed): a program that may not terminate fails.

    Compares every result and every argument after the run (tensors are written through
    their arguments: out/inout, and anything else a program writes). With
    `written_only=True` only out/inout arguments (as declared in `before`) are compared.
    `check_directions=True` also fails when either program writes into an `in` parameter.
    Float arrays of a program with matmuls compare with the tolerance their K and dtype imply
    (`interpreter.tolerance`, at least `rtol`/`atol`) unless `matmul_tolerance=False`.
    Raises `SemanticsMismatch` naming the seed and the first difference.
    """
    before_m, after_m = _as_module(before), _as_module(after)
    func = entry_function(before_m, entry)
    directions = getattr(func, "directions", None)
    precision = program_precision(before_m) if matmul_tolerance else None
    for seed in seeds:
        inputs = random_inputs(before_m, entry, seed, dims)
        inputs_after = _copy_inputs(inputs)
        expected = run(before_m, entry, inputs, check_directions=check_directions, max_steps=max_steps)
        try:
            actual = run(after_m, entry, inputs_after, check_directions=check_directions, max_steps=max_steps)
        except Exception as e:
            raise SemanticsMismatch(
                f"seed {seed}: the original program runs but the transformed one fails: {e}"
            ) from e
        problems: list[str] = []
        if len(expected) != len(actual):
            problems.append(f"{len(expected)} results vs {len(actual)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            if (msg := compare_values(f"result #{i}", e, a, rtol, atol, precision)) is not None:
                problems.append(msg)
        for i, (e, a) in enumerate(zip(inputs, inputs_after)):
            if written_only and directions is not None and directions[i].value == "in":
                continue
            if (msg := compare_values(f"argument #{i} after the run", e, a, rtol, atol, precision)) is not None:
                problems.append(msg)
        if problems:
            raise SemanticsMismatch(f"@{entry}, seed {seed}: " + "; ".join(problems))
