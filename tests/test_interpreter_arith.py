"""The arith ops the interpreter adds to xDSL's own arith implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pypto_xdsl.interpreter import parse_module, run

CASES = [
    # (op line producing %r from %a, %b, result type, a, b, expected)
    ("%r = arith.divui %a, %b : i32", "i32", "i32", -8, 3, 1431655762),  # 0xfffffff8 // 3
    ("%r = arith.remui %a, %b : i32", "i32", "i32", 17, 5, 2),
    ("%r = arith.ceildivui %a, %b : index", "index", "index", 17, 5, 4),
    ("%r = arith.ceildivsi %a, %b : i64", "i64", "i64", -7, 2, -3),
    ("%r = arith.maxsi %a, %b : i32", "i32", "i32", -3, 2, 2),
    ("%r = arith.minsi %a, %b : i32", "i32", "i32", -3, 2, -3),
    ("%r = arith.maxui %a, %b : i32", "i32", "i32", -1, 2, -1),  # 0xffffffff is the larger
    ("%r = arith.minui %a, %b : i32", "i32", "i32", -1, 2, 2),
    ("%r = arith.shrui %a, %b : i32", "i32", "i32", -16, 28, 15),
    ("%r = arith.divf %a, %b : f32", "f32", "f32", 1.0, 3.0, float(np.float32(1.0 / 3.0))),
    ("%r = arith.maxnumf %a, %b : f32", "f32", "f32", math.nan, 2.0, 2.0),
    ("%r = arith.minnumf %a, %b : f32", "f32", "f32", 1.0, math.nan, 1.0),
]


def program(line: str, arg_type: str, result_type: str) -> str:
    return f"""
pypto.func @main(%a: {arg_type}, %b: {arg_type}) -> {result_type} {{
  {line}
  pypto.return %r : {result_type}
}}
"""


@pytest.mark.parametrize(("line", "arg_type", "result_type", "a", "b", "expected"), CASES)
def test_binary(line: str, arg_type: str, result_type: str, a, b, expected) -> None:
    (result,) = run(parse_module(program(line, arg_type, result_type)), "main", [a, b])
    assert result == expected


def test_division_by_zero_gives_ieee_results() -> None:
    module = parse_module(program("%r = arith.divf %a, %b : f32", "f32", "f32"))
    assert run(module, "main", [1.0, 0.0])[0] == math.inf
    assert run(module, "main", [-1.0, 0.0])[0] == -math.inf
    assert math.isnan(run(module, "main", [0.0, 0.0])[0])


@pytest.mark.parametrize(
    ("line", "arg_type", "result_type", "value", "expected"),
    [
        ("%r = arith.sitofp %a : i32 to f32", "i32", "f32", -5, -5.0),
        ("%r = arith.uitofp %a : i32 to f32", "i32", "f32", -1, float(np.float32(2.0**32 - 1))),
        ("%r = arith.fptosi %a : f32 to i32", "f32", "i32", -2.75, -2),
        ("%r = arith.fptoui %a : f32 to i32", "f32", "i32", 3.5, 3),
        ("%r = arith.extf %a : f16 to f32", "f16", "f32", 0.5, 0.5),
        ("%r = arith.truncf %a : f32 to f16", "f32", "f16", 1.0 / 3.0, float(np.float16(1.0 / 3.0))),
        ("%r = arith.extsi %a : i8 to i32", "i8", "i32", -3, -3),
        ("%r = arith.extui %a : i8 to i32", "i8", "i32", -3, 253),
        ("%r = arith.trunci %a : i32 to i8", "i32", "i8", 300, 44),
        ("%r = arith.negf %a : f32", "f32", "f32", 2.5, -2.5),
    ],
)
def test_unary(line: str, arg_type: str, result_type: str, value, expected) -> None:
    module = parse_module(
        f"""
pypto.func @main(%a: {arg_type}) -> {result_type} {{
  {line}
  pypto.return %r : {result_type}
}}
"""
    )
    (result,) = run(module, "main", [value])
    assert result == expected
