"""The numpy expression of every elementwise, reduction and matmul op (tensor and tile alike).

docs/semantics.md lists the same expressions; tests/test_interpreter_ops.py checks each op
against them. Every result is converted back to the carrier dtype of the op's element type
(`values.coerce`, which also rounds bf16).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import Attribute

from pypto_xdsl.interpreter.values import coerce, numpy_dtype


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(np.result_type(a, b), np.integer):
        if np.any(np.asarray(b) == 0):
            raise ZeroDivisionError("integer division by zero")
        # C semantics: truncate toward zero
        q = np.abs(a) // np.abs(b)
        return np.where((np.asarray(a) < 0) != (np.asarray(b) < 0), -q, q)
    return np.divide(a, b)


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": _div,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
"""`add sub mul div maximum minimum` and the scalar forms `adds subs muls divs`."""

SCALAR: dict[str, str] = {
    "adds": "add", "subs": "sub", "muls": "mul", "divs": "div", "maximums": "maximum", "minimums": "minimum",
}


def _recip(a: np.ndarray) -> np.ndarray:
    return _div(np.ones_like(a), a)


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "neg": np.negative,
    "abs": np.abs,
    "relu": lambda a: np.maximum(a, np.zeros((), dtype=a.dtype)),
    "recip": _recip,
    "rsqrt": lambda a: _recip(np.sqrt(a)),
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
}


def binary(name: str, a: np.ndarray, b: np.ndarray, element_type: Attribute) -> np.ndarray:
    return coerce(np.asarray(BINARY[name](a, b)), element_type)


def scalar(name: str, a: np.ndarray, s: object, element_type: Attribute) -> np.ndarray:
    s_arr = np.asarray(s).astype(numpy_dtype(element_type))
    return coerce(np.asarray(BINARY[SCALAR[name]](a, s_arr)), element_type)


def unary(name: str, a: np.ndarray, element_type: Attribute) -> np.ndarray:
    return coerce(np.asarray(UNARY[name](a)), element_type)


def matmul(a: np.ndarray, b: np.ndarray, element_type: Attribute) -> np.ndarray:
    """`a @ b`; floats accumulate in float32 (f16/bf16 inputs are widened first)."""
    if np.issubdtype(a.dtype, np.floating):
        return coerce(np.matmul(a.astype(np.float32), b.astype(np.float32)), element_type)
    return coerce(np.matmul(a.astype(np.int64), b.astype(np.int64)), element_type)


CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def cast(a: np.ndarray, element_type: Attribute, mode: str | None = None) -> np.ndarray:
    """`a.astype(dtype)`: float -> int truncates toward zero, int -> bool is `!= 0`.

    With a rounding `mode` (PyPTO's `pl.cast(..., mode=)`, Ascend C's RoundMode): to an
    integer, `rint` rounds half to even, `round` half away from zero, `floor`, `ceil`,
    `trunc` as named (`none`: the default truncation); to a narrower float, the value is the
    representable neighbour the mode picks (`none`/`rint`: nearest, ties to even; `round`:
    nearest, ties away from zero; `odd`: the neighbour with an odd last bit when inexact)."""
    if mode is None or a.dtype == np.bool_:
        return coerce(a, element_type)
    target = numpy_dtype(element_type)
    if np.issubdtype(target, np.integer):
        if not np.issubdtype(a.dtype, np.floating) or mode == "none":
            return coerce(a, element_type)
        x = a.astype(np.float64)
        rounded = {
            "rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
            "round": lambda v: np.trunc(v + np.copysign(0.5, v)),
        }.get(mode)
        if rounded is None:
            raise ValueError(f"cast mode '{mode}' does not apply to a conversion to {element_type}")
        return coerce(rounded(x), element_type)
    return _round_to_float(a.astype(np.float64), element_type, mode)


def _float_bits(element_type: Attribute) -> tuple[np.dtype, np.dtype, int]:
    """(carrier float dtype, unsigned view dtype, bits dropped from the carrier) of a float type."""
    name = str(element_type)
    if name == "bf16":
        return np.dtype(np.float32), np.dtype(np.uint32), 16
    carrier = numpy_dtype(element_type)
    return carrier, np.dtype(f"uint{carrier.itemsize * 8}"), 0


def _step(y: np.ndarray, element_type: Attribute, up: bool) -> np.ndarray:
    """The next representable value of `element_type` above (`up`) or below `y` (`y` exact in it)."""
    carrier, view, drop = _float_bits(element_type)
    bits = np.ascontiguousarray(y.astype(carrier)).view(view).astype(np.int64)
    sign_bit = np.int64(1) << (carrier.itemsize * 8 - 1)
    negative = (bits & sign_bit) != 0
    one = np.int64(1) << drop
    magnitude = bits & ~sign_bit
    grow = negative != up  # moving away from zero
    zero = magnitude == 0
    out = np.where(grow | zero, magnitude + one, magnitude - one)
    out_sign = np.where(zero, np.int64(0) if up else sign_bit, bits & sign_bit)
    out = (out | out_sign).astype(view)
    return out.view(carrier).astype(np.float64)


def _round_to_float(x: np.ndarray, element_type: Attribute, mode: str) -> np.ndarray:
    nearest = coerce(x, element_type)
    if mode in ("none", "rint"):
        return nearest
    y = nearest.astype(np.float64)
    exact = (y == x) | ~np.isfinite(x)
    lo = np.where(y > x, _step(y, element_type, up=False), y)
    hi = np.where(y < x, _step(y, element_type, up=True), y)
    if mode == "floor":
        pick = lo
    elif mode == "ceil":
        pick = hi
    elif mode == "trunc":
        pick = np.where(x > 0, lo, hi)
    elif mode == "round":
        tie = (x - lo) == (hi - x)
        pick = np.where(tie, np.where(x > 0, hi, lo), y)
    elif mode == "odd":
        carrier, view, drop = _float_bits(element_type)
        lo_bits = np.ascontiguousarray(lo.astype(carrier)).view(view).astype(np.int64)
        pick = np.where(((lo_bits >> drop) & 1) == 1, lo, hi)
    else:
        raise ValueError(f"unknown cast mode '{mode}'")
    return coerce(np.where(exact, y, pick), element_type)


def row_max(a: np.ndarray, element_type: Attribute) -> np.ndarray:
    return coerce(np.max(a, axis=-1, keepdims=True), element_type)


def row_sum(a: np.ndarray, element_type: Attribute) -> np.ndarray:
    if np.issubdtype(a.dtype, np.floating):
        return coerce(np.sum(a.astype(np.float32), axis=-1, keepdims=True), element_type)
    return coerce(np.sum(a, axis=-1, keepdims=True), element_type)


def row_min(a: np.ndarray, element_type: Attribute) -> np.ndarray:
    return coerce(np.min(a, axis=-1, keepdims=True), element_type)


def row_prod(a: np.ndarray, element_type: Attribute) -> np.ndarray:
    if np.issubdtype(a.dtype, np.floating):
        return coerce(np.prod(a.astype(np.float32), axis=-1, keepdims=True), element_type)
    return coerce(np.prod(a, axis=-1, keepdims=True), element_type)


def col_reduce(name: str, a: np.ndarray, element_type: Attribute) -> np.ndarray:
    """`col_sum col_max col_min col_prod`: reduce axis 0 of [M, N] to [1, N] (float sums and
    products accumulate in f32, as the row forms)."""
    wide = a.astype(np.float32) if np.issubdtype(a.dtype, np.floating) and name in ("col_sum", "col_prod") else a
    fn = {"col_sum": np.sum, "col_max": np.max, "col_min": np.min, "col_prod": np.prod}[name]
    return coerce(np.asarray(fn(wide, axis=0, keepdims=True)), element_type)


_BROADCAST: dict[str, str] = {"sub": "sub", "mul": "mul", "div": "div", "add": "add", "max": "maximum", "min": "minimum"}


def expand(name: str, a: np.ndarray, v: np.ndarray, element_type: Attribute) -> np.ndarray:
    """`row_expand_<op>` / `col_expand_<op>`: `a <op> v` with v ([M, 1] or [1, N]) broadcast
    along the rows or columns of a; `<op>` is `sub mul div add max min`, `expdif` is
    `exp(a - v)`, and the bare `row_expand` / `col_expand` is v broadcast to a's shape."""
    op = name.split("_expand", 1)[1].lstrip("_")
    if not op:
        return coerce(np.broadcast_to(v, a.shape).copy(), element_type)
    if op == "expdif":
        return coerce(np.asarray(np.exp(np.subtract(a, v))), element_type)
    return coerce(np.asarray(BINARY[_BROADCAST[op]](a, v)), element_type)


ROW_EXPAND: dict[str, str] = {"row_expand_sub": "sub", "row_expand_mul": "mul", "row_expand_div": "div"}


def row_expand(name: str, a: np.ndarray, r: np.ndarray, element_type: Attribute) -> np.ndarray:
    """`a <op> r` with r of shape [M, 1] broadcast along each row."""
    return expand(name, a, r, element_type)


def pad_value(pad: str, dtype: np.dtype) -> object:
    """The value `fillpad` writes: 0, or the largest / smallest value of the dtype (+inf /
    -inf for floats)."""
    if pad == "zero":
        return dtype.type(0)
    if np.issubdtype(dtype, np.floating):
        return dtype.type(np.inf if pad == "max" else -np.inf)
    if dtype == np.bool_:
        return pad == "max"
    info = np.iinfo(dtype)
    return dtype.type(info.max if pad == "max" else info.min)


def unspecified(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Contents the program must not rely on (a `tile.create`d buffer, the invalid part of a
    partial tile): NaN for floats, so that reading them shows up in the results, the
    largest value for integers."""
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype=dtype)
    if dtype == np.bool_:
        return np.ones(shape, dtype=dtype)
    return np.full(shape, np.iinfo(dtype).max, dtype=dtype)
