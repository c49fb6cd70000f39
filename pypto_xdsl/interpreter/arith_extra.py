"""`arith` ops that xDSL 0.74's own arith interpreter does not implement.

PyPTO programs use unsigned index arithmetic (block partitioning), float division and
int <-> float conversions in scalar code; without these the interpreter stops with "Could
not find interpretation function". Values follow xDSL's conventions: Python ints
(two's-complement wrapped to the result width) and Python floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, builtin
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions, to_signed
from xdsl.ir import Attribute, Operation


def _width(interpreter: Interpreter, t: Attribute) -> int:
    return interpreter.index_bitwidth if isinstance(t, builtin.IndexType) else t.width.data  # type: ignore[attr-defined]


def _unsigned(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def _round_float(value: float, t: Attribute) -> float:
    """Round to the precision of the float type (Python floats are f64)."""
    if isinstance(t, builtin.Float32Type):
        return float(np.float32(value))
    if isinstance(t, builtin.Float16Type):
        return float(np.float16(value))
    return value


def _unsigned_binary(fn: Callable[[int, int], int]):
    def run(self, interpreter: Interpreter, op: arith.SignlessIntegerBinaryOperation, args: PythonValues):
        w = _width(interpreter, op.result.type)
        lhs, rhs = _unsigned(args[0], w), _unsigned(args[1], w)
        return (to_signed(fn(lhs, rhs), w),)

    return run


def _signed_binary(fn: Callable[[int, int], int]):
    def run(self, interpreter: Interpreter, op: arith.SignlessIntegerBinaryOperation, args: PythonValues):
        w = _width(interpreter, op.result.type)
        return (to_signed(fn(to_signed(args[0], w), to_signed(args[1], w)), w),)

    return run


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


@register_impls
class ArithExtraFunctions(InterpreterFunctions):
    run_divui = impl(arith.DivUIOp)(_unsigned_binary(lambda a, b: a // b))
    run_remui = impl(arith.RemUIOp)(_unsigned_binary(lambda a, b: a % b))
    run_ceildivui = impl(arith.CeilDivUIOp)(_unsigned_binary(_ceil_div))
    run_maxui = impl(arith.MaxUIOp)(_unsigned_binary(max))
    run_minui = impl(arith.MinUIOp)(_unsigned_binary(min))
    run_ceildivsi = impl(arith.CeilDivSIOp)(_signed_binary(_ceil_div))
    run_maxsi = impl(arith.MaxSIOp)(_signed_binary(max))
    run_minsi = impl(arith.MinSIOp)(_signed_binary(min))

    @impl(arith.ShRUIOp)
    def run_shrui(self, interpreter: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        w = _width(interpreter, op.result.type)
        return (to_signed(_unsigned(args[0], w) >> _unsigned(args[1], w), w),)

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues):
        lhs, rhs = args
        if rhs == 0:
            quotient = math.nan if lhs == 0 or math.isnan(lhs) else math.copysign(math.inf, lhs) * math.copysign(1, rhs)
        else:
            quotient = lhs / rhs
        return (_round_float(quotient, op.result.type),)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: PythonValues):
        return (-args[0],)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interpreter: Interpreter, op: arith.MaxnumfOp, args: PythonValues):
        return (float(np.fmax(args[0], args[1])),)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interpreter: Interpreter, op: arith.MinnumfOp, args: PythonValues):
        return (float(np.fmin(args[0], args[1])),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp, args: PythonValues):
        w = _width(interpreter, op.input.type)
        return (_round_float(float(to_signed(args[0], w)), op.result.type),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interpreter: Interpreter, op: arith.UIToFPOp, args: PythonValues):
        w = _width(interpreter, op.input.type)
        return (_round_float(float(_unsigned(args[0], w)), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter: Interpreter, op: arith.FPToSIOp, args: PythonValues):
        return (to_signed(math.trunc(args[0]), _width(interpreter, op.result.type)),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interpreter: Interpreter, op: arith.FPToUIOp, args: PythonValues):
        return (_unsigned(math.trunc(args[0]), _width(interpreter, op.result.type)),)

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp, args: PythonValues):
        return (args[0],)

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp, args: PythonValues):
        return (_round_float(args[0], op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp, args: PythonValues):
        return (to_signed(args[0], _width(interpreter, op.input.type)),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues):
        return (_unsigned(args[0], _width(interpreter, op.input.type)),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp, args: PythonValues):
        return (to_signed(args[0], _width(interpreter, op.result.type)),)


def _checked(run: Callable, operation: str, valid: Callable[[int], bool]):
    """xDSL's implementation of an integer op, preceded by a check of its right operand
    (xDSL asserts it, which would stop the run with a bare AssertionError)."""

    def checked(self, interpreter: Interpreter, op: Operation, args: PythonValues):
        rhs = to_signed(args[1], _width(interpreter, op.results[0].type))
        if not valid(rhs):
            from pypto_xdsl.interpreter.functions import fail

            raise fail(interpreter, op, f"{operation} {rhs}: undefined behaviour (the result is poison in MLIR)")
        return run(self, interpreter, op, args).values  # `run` is registered already: an OpImpl

    return checked


def _nonzero(rhs: int) -> bool:
    return rhs != 0


def _shift_amount(rhs: int) -> bool:
    return rhs >= 0


@register_impls
class ArithUndefinedBehaviourChecks(InterpreterFunctions):
    """Integer division by zero and shifts by a negative amount, reported as run-time errors
    of the program. Registered with `override=True` over xDSL's and `ArithExtraFunctions`'
    implementations, which it calls for the defined cases."""

    run_divsi = impl(arith.DivSIOp)(_checked(ArithFunctions.run_divsi, "division by", _nonzero))
    run_remsi = impl(arith.RemSIOp)(_checked(ArithFunctions.run_remsi, "remainder by", _nonzero))
    run_floordivsi = impl(arith.FloorDivSIOp)(_checked(ArithFunctions.run_floordivsi, "division by", _nonzero))
    run_ceildivsi = impl(arith.CeilDivSIOp)(_checked(ArithExtraFunctions.run_ceildivsi, "division by", _nonzero))
    run_divui = impl(arith.DivUIOp)(_checked(ArithExtraFunctions.run_divui, "division by", _nonzero))
    run_remui = impl(arith.RemUIOp)(_checked(ArithExtraFunctions.run_remui, "remainder by", _nonzero))
    run_ceildivui = impl(arith.CeilDivUIOp)(_checked(ArithExtraFunctions.run_ceildivui, "division by", _nonzero))
    run_shli = impl(arith.ShLIOp)(_checked(ArithFunctions.run_shlsi, "shift by", _shift_amount))
    run_shrsi = impl(arith.ShRSIOp)(_checked(ArithFunctions.run_shrsi, "shift by", _shift_amount))
