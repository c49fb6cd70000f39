"""Numerics of every pypto tensor/tile op in the reference interpreter, against numpy.

The expected values are written here independently of pypto_xdsl/interpreter/numerics.py
(they follow docs/semantics.md). `test_every_op_has_a_numerics_test` fails when the dialect
gains an op that no test here covers.
"""

from __future__ import annotations

import numpy as np
import pytest

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, run

T48 = "!pypto.tensor<[4, 8], f32>"
V48 = "!pypto.tile<[4, 8], f32, vec>"

COVERED: set[str] = set()


def covers(*names: str):
    """Decorator: the test checks the numerics of these ops (recorded at import time)."""
    COVERED.update(names)
    return lambda fn: fn


def run_text(text: str, inputs, dims=None):
    module = parse_module(text)
    module.verify()
    return run(module, "main", inputs, dims)


def rnd(shape=(4, 8), seed=0, positive=False, dtype=np.float32):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=shape)
    if positive:
        a = np.abs(a) + 0.5
    return a.astype(dtype)


# --------------------------------------------------------------------------- elementwise

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
SCALAR = {
    "adds": lambda a, s: a + s,
    "subs": lambda a, s: a - s,
    "muls": lambda a, s: a * s,
    "divs": lambda a, s: a / s,
    "maximums": np.maximum,
    "minimums": np.minimum,
}
UNARY = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "neg": lambda a: -a,
    "abs": np.abs,
    "relu": lambda a: np.where(a > 0, a, 0).astype(a.dtype),
    "recip": lambda a: 1 / a,
    "rsqrt": lambda a: 1 / np.sqrt(a),
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
}
POSITIVE = {"log", "sqrt", "recip", "rsqrt", "div", "divs"}
for _family in ("tensor", "tile"):
    covers(*(f"pypto.{_family}.{n}" for n in (*BINARY, *SCALAR, *UNARY, "cast")))
covers("pypto.tile.load", "pypto.tile.store")


@pytest.mark.parametrize("name", sorted(BINARY))
def test_tensor_binary(name):
    text = f"""
    pypto.func @main(%a: {T48}, %b: {T48}) -> {T48} {{
      %r = pypto.tensor.{name} %a, %b : {T48}
      pypto.return %r : {T48}
    }}"""
    a, b = rnd(seed=1), rnd(seed=2, positive=name in POSITIVE)
    (r,) = run_text(text, [a, b])
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, BINARY[name](a, b), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_tile_binary(name):
    text = f"""
    pypto.func @main(%a: {T48}, %b: {T48}, out %o: {T48}) -> {T48} {{
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : {T48} -> {V48}
      %y = pypto.tile.load %b[%c0, %c0] : {T48} -> {V48}
      %r = pypto.tile.{name} %x, %y : {V48}
      %o2 = pypto.tile.store %r, %o[%c0, %c0] : {V48}, {T48}
      pypto.return %o2 : {T48}
    }}"""
    a, b = rnd(seed=3), rnd(seed=4, positive=name in POSITIVE)
    o = np.zeros((4, 8), np.float32)
    (r,) = run_text(text, [a, b, o])
    assert r is o
    np.testing.assert_allclose(o, BINARY[name](a, b), rtol=1e-6)


@pytest.mark.parametrize("family", ["tensor", "tile"])
@pytest.mark.parametrize("name", sorted(SCALAR))
def test_scalar_ops(family, name):
    if family == "tensor":
        body = f"%r = pypto.tensor.{name} %a, %s : {T48}, f32\n pypto.return %r : {T48}"
    else:
        body = f"""%c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : {T48} -> {V48}
      %t = pypto.tile.{name} %x, %s : {V48}, f32
      %o = pypto.tensor.create : {T48}
      %r = pypto.tile.store %t, %o[%c0, %c0] : {V48}, {T48}
      pypto.return %r : {T48}"""
    text = f"""
    pypto.func @main(%a: {T48}) -> {T48} {{
      %s = arith.constant 1.5 : f32
      {body}
    }}"""
    a = rnd(seed=5)
    (r,) = run_text(text, [a])
    np.testing.assert_allclose(r, SCALAR[name](a, np.float32(1.5)), rtol=1e-6)


@pytest.mark.parametrize("family", ["tensor", "tile"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops(family, name):
    if family == "tensor":
        body = f"%r = pypto.tensor.{name} %a : {T48}\n pypto.return %r : {T48}"
    else:
        body = f"""%c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : {T48} -> {V48}
      %t = pypto.tile.{name} %x : {V48}
      %r = pypto.tile.store %t, %o[%c0, %c0] : {V48}, {T48}
      pypto.return %r : {T48}"""
    text = f"""
    pypto.func @main(%a: {T48}, out %o: {T48}) -> {T48} {{
      {body}
    }}"""
    a = rnd(seed=6, positive=name in POSITIVE)
    (r,) = run_text(text, [a, np.zeros((4, 8), np.float32)])
    np.testing.assert_allclose(r, UNARY[name](a), rtol=1e-6)


def test_integer_elementwise_and_truncating_div():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4], i32>, %b: !pypto.tensor<[4], i32>) -> (!pypto.tensor<[4], i32>, !pypto.tensor<[4], i32>) {
      %s = pypto.tensor.add %a, %b : !pypto.tensor<[4], i32>
      %q = pypto.tensor.div %a, %b : !pypto.tensor<[4], i32>
      pypto.return %s, %q : !pypto.tensor<[4], i32>, !pypto.tensor<[4], i32>
    }"""
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    s, q = run_text(text, [a, b])
    assert s.dtype == np.int32 and list(s) == [9, -5, 5, -9]
    assert list(q) == [3, -3, -3, 3]  # C semantics: truncation toward zero


# --------------------------------------------------------------------------- tensor structure


@covers("pypto.tensor.create", "pypto.tensor.slice", "pypto.tensor.assemble",
           "pypto.tensor.dim", "pypto.tensor.read")
def test_tensor_create_slice_assemble_dim_read():
    text = """
    pypto.func @main(%a: !pypto.tensor<[N, 8], f32>) -> (!pypto.tensor<[N, 8], f32>, index, f32, !pypto.tensor<[?, 8], f32>) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %z = pypto.tensor.create : !pypto.tensor<[N, 8], f32>
      %d = pypto.tensor.create(%c3) : !pypto.tensor<[?, 8], f32>
      %v = pypto.tensor.slice %a[%c1, %c2] : !pypto.tensor<[N, 8], f32> -> !pypto.tensor<[2, 4], f32>
      %z2 = pypto.tensor.assemble %v into %z[%c2, %c3] : !pypto.tensor<[2, 4], f32> into !pypto.tensor<[N, 8], f32>
      %n = pypto.tensor.dim %z2, 0 : !pypto.tensor<[N, 8], f32>
      %e = pypto.tensor.read %a[%c2, %c3] : !pypto.tensor<[N, 8], f32>
      pypto.return %z2, %n, %e, %d : !pypto.tensor<[N, 8], f32>, index, f32, !pypto.tensor<[?, 8], f32>
    }"""
    a = rnd((5, 8), seed=7)
    z, n, e, d = run_text(text, [a])
    expected = np.zeros((5, 8), np.float32)
    expected[2:4, 3:7] = a[1:3, 2:6]
    np.testing.assert_array_equal(z, expected)
    assert n == 5 and isinstance(n, int)
    assert e == pytest.approx(float(a[2, 3]))
    assert d.shape == (3, 8) and not d.any()


def test_slice_is_a_view_and_assemble_writes_in_place():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 4], f32>, %b: !pypto.tensor<[2, 2], f32>) -> (!pypto.tensor<[2, 4], f32>, !pypto.tensor<[4, 4], f32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %v = pypto.tensor.slice %a[%c2, %c0] : !pypto.tensor<[4, 4], f32> -> !pypto.tensor<[2, 4], f32>
      %a2 = pypto.tensor.assemble %b into %a[%c2, %c2] : !pypto.tensor<[2, 2], f32> into !pypto.tensor<[4, 4], f32>
      pypto.return %v, %a2 : !pypto.tensor<[2, 4], f32>, !pypto.tensor<[4, 4], f32>
    }"""
    a = np.zeros((4, 4), np.float32)
    b = np.ones((2, 2), np.float32)
    v, a2 = run_text(text, [a, b])
    assert a2 is a  # assemble returns the destination's storage
    assert np.shares_memory(v, a)  # the earlier slice sees the write
    np.testing.assert_array_equal(v, [[0, 0, 1, 1], [0, 0, 1, 1]])


@pytest.mark.parametrize("family", ["tensor", "tile"])
def test_cast(family):
    if family == "tensor":
        body = """%i = pypto.tensor.cast %a : !pypto.tensor<[6], f32> -> !pypto.tensor<[6], i32>
          %h = pypto.tensor.cast %a : !pypto.tensor<[6], f32> -> !pypto.tensor<[6], f16>
          %bf = pypto.tensor.cast %a : !pypto.tensor<[6], f32> -> !pypto.tensor<[6], bf16>"""
    else:
        body = """%c0 = arith.constant 0 : index
          %t = pypto.tile.load %a[%c0] : !pypto.tensor<[6], f32> -> !pypto.tile<[6], f32, vec>
          %ti = pypto.tile.cast %t : !pypto.tile<[6], f32, vec> -> !pypto.tile<[6], i32, vec>
          %th = pypto.tile.cast %t : !pypto.tile<[6], f32, vec> -> !pypto.tile<[6], f16, vec>
          %tb = pypto.tile.cast %t : !pypto.tile<[6], f32, vec> -> !pypto.tile<[6], bf16, vec>
          %i0 = pypto.tensor.create : !pypto.tensor<[6], i32>
          %h0 = pypto.tensor.create : !pypto.tensor<[6], f16>
          %b0 = pypto.tensor.create : !pypto.tensor<[6], bf16>
          %i = pypto.tile.store %ti, %i0[%c0] : !pypto.tile<[6], i32, vec>, !pypto.tensor<[6], i32>
          %h = pypto.tile.store %th, %h0[%c0] : !pypto.tile<[6], f16, vec>, !pypto.tensor<[6], f16>
          %bf = pypto.tile.store %tb, %b0[%c0] : !pypto.tile<[6], bf16, vec>, !pypto.tensor<[6], bf16>"""
    text = f"""
    pypto.func @main(%a: !pypto.tensor<[6], f32>) -> (!pypto.tensor<[6], i32>, !pypto.tensor<[6], f16>, !pypto.tensor<[6], bf16>) {{
      {body}
      pypto.return %i, %h, %bf : !pypto.tensor<[6], i32>, !pypto.tensor<[6], f16>, !pypto.tensor<[6], bf16>
    }}"""
    a = np.array([1.7, -1.7, 2.5, -0.2, 1.0 + 2**-10, 3.14159265], np.float32)
    i, h, bf = run_text(text, [a])
    np.testing.assert_array_equal(i, np.trunc(a).astype(np.int32))
    np.testing.assert_array_equal(h, a.astype(np.float16))
    # bf16: float32 with the low 16 bits rounded away (round to nearest even)
    assert bf.dtype == np.float32
    np.testing.assert_array_equal(bf, np.array([1.703125, -1.703125, 2.5, -0.2001953125, 1.0, 3.140625], np.float32))


@covers("pypto.tensor.matmul")
def test_tensor_matmul():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 3], f32>, %b: !pypto.tensor<[3, 5], f32>) -> !pypto.tensor<[4, 5], f32> {
      %c = pypto.tensor.matmul %a, %b : !pypto.tensor<[4, 3], f32>, !pypto.tensor<[3, 5], f32> -> !pypto.tensor<[4, 5], f32>
      pypto.return %c : !pypto.tensor<[4, 5], f32>
    }"""
    a, b = rnd((4, 3), 8), rnd((3, 5), 9)
    (c,) = run_text(text, [a, b])
    np.testing.assert_allclose(c, a @ b, rtol=1e-6)


def test_tensor_matmul_of_f16_accumulates_in_f32():
    """Typed like tile.matmul: the f16 product is an f32 tensor, not rounded to f16."""
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 64], f16>, %b: !pypto.tensor<[64, 5], f16>) -> !pypto.tensor<[4, 5], f32> {
      %c = pypto.tensor.matmul %a, %b : !pypto.tensor<[4, 64], f16>, !pypto.tensor<[64, 5], f16> -> !pypto.tensor<[4, 5], f32>
      pypto.return %c : !pypto.tensor<[4, 5], f32>
    }"""
    a, b = rnd((4, 64), 13, dtype=np.float16), rnd((64, 5), 14, dtype=np.float16)
    (c,) = run_text(text, [a, b])
    assert c.dtype == np.float32
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, expected, rtol=1e-6, atol=1e-6)
    # the f16-rounded product is measurably further away: the f32 result is not rounded
    assert np.abs(c - expected).max() < np.abs(expected.astype(np.float16) - expected).max()


# --------------------------------------------------------------------------- tile specials


@covers("pypto.tile.full", "pypto.tile.move")
def test_tile_full_and_move():
    text = f"""
    pypto.func @main(out %o: {T48}) -> {T48} {{
      %c0 = arith.constant 0 : index
      %v = arith.constant 2.5 : f32
      %t = pypto.tile.full %v : f32 -> !pypto.tile<[4, 8], f32, mat>
      %m = pypto.tile.move %t : !pypto.tile<[4, 8], f32, mat> -> {V48}
      %r = pypto.tile.store %m, %o[%c0, %c0] : {V48}, {T48}
      pypto.return %r : {T48}
    }}"""
    (r,) = run_text(text, [np.zeros((4, 8), np.float32)])
    np.testing.assert_array_equal(r, np.full((4, 8), 2.5, np.float32))


@covers("pypto.tile.row_max", "pypto.tile.row_sum", "pypto.tile.row_expand_sub",
           "pypto.tile.row_expand_mul", "pypto.tile.row_expand_div")
def test_tile_row_reductions_and_expands():
    R = "!pypto.tile<[4, 1], f32, vec>"
    T41 = "!pypto.tensor<[4, 1], f32>"
    text = f"""
    pypto.func @main(%a: {T48}, out %mx: {T41}, out %sm: {T41}, out %s: {T48}, out %m: {T48}, out %d: {T48}) {{
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : {T48} -> {V48}
      %rmax = pypto.tile.row_max %x : {V48} -> {R}
      %rsum = pypto.tile.row_sum %x : {V48} -> {R}
      %es = pypto.tile.row_expand_sub %x, %rmax : {V48}, {R}
      %em = pypto.tile.row_expand_mul %x, %rsum : {V48}, {R}
      %ed = pypto.tile.row_expand_div %x, %rmax : {V48}, {R}
      %1 = pypto.tile.store %rmax, %mx[%c0, %c0] : {R}, {T41}
      %2 = pypto.tile.store %rsum, %sm[%c0, %c0] : {R}, {T41}
      %3 = pypto.tile.store %es, %s[%c0, %c0] : {V48}, {T48}
      %4 = pypto.tile.store %em, %m[%c0, %c0] : {V48}, {T48}
      %5 = pypto.tile.store %ed, %d[%c0, %c0] : {V48}, {T48}
      pypto.return
    }}"""
    a = rnd(seed=10)
    outs = [np.zeros((4, 1), np.float32), np.zeros((4, 1), np.float32)] + [np.zeros((4, 8), np.float32) for _ in range(3)]
    run_text(text, [a, *outs])
    mx, sm, s, m, d = outs
    np.testing.assert_allclose(mx, a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, a.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(s, a - a.max(axis=1)[:, None], rtol=1e-6)
    np.testing.assert_allclose(m, a * a.sum(axis=1)[:, None], rtol=1e-6)
    np.testing.assert_allclose(d, a / a.max(axis=1)[:, None], rtol=1e-6)


@covers("pypto.tile.row_argmax", "pypto.tile.row_argmin", "pypto.tile.col_argmax", "pypto.tile.col_argmin")
def test_tile_arg_reductions_first_extremum():
    R = "!pypto.tile<[4, 1], i32, vec>"
    C = "!pypto.tile<[1, 8], i32, vec>"
    TR = "!pypto.tensor<[4, 1], i32>"
    TC = "!pypto.tensor<[1, 8], i32>"
    text = f"""
    pypto.func @main(%a: {T48}, out %rmax: {TR}, out %rmin: {TR}, out %cmax: {TC}, out %cmin: {TC}) {{
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : {T48} -> {V48}
      %r1 = pypto.tile.row_argmax %x : {V48} -> {R}
      %r2 = pypto.tile.row_argmin %x : {V48} -> {R}
      %r3 = pypto.tile.col_argmax %x : {V48} -> {C}
      %r4 = pypto.tile.col_argmin %x : {V48} -> {C}
      %1 = pypto.tile.store %r1, %rmax[%c0, %c0] : {R}, {TR}
      %2 = pypto.tile.store %r2, %rmin[%c0, %c0] : {R}, {TR}
      %3 = pypto.tile.store %r3, %cmax[%c0, %c0] : {C}, {TC}
      %4 = pypto.tile.store %r4, %cmin[%c0, %c0] : {C}, {TC}
      pypto.return
    }}"""
    a = np.round(rnd(seed=11) * 2).astype(np.float32)  # small integers: ties, the first index wins
    outs = [np.full((4, 1), -1, np.int32), np.full((4, 1), -1, np.int32),
            np.full((1, 8), -1, np.int32), np.full((1, 8), -1, np.int32)]
    run_text(text, [a, *outs])
    np.testing.assert_array_equal(outs[0][:, 0], a.argmax(axis=1))
    np.testing.assert_array_equal(outs[1][:, 0], a.argmin(axis=1))
    np.testing.assert_array_equal(outs[2][0], a.argmax(axis=0))
    np.testing.assert_array_equal(outs[3][0], a.argmin(axis=0))


@covers("pypto.tensor.row_max", "pypto.tensor.row_sum", "pypto.tensor.row_expand_sub",
        "pypto.tensor.row_expand_mul", "pypto.tensor.row_expand_div")
def test_tensor_row_reductions_and_expands():
    T41 = "!pypto.tensor<[4, 1], f32>"
    text = f"""
    pypto.func @main(%a: {T48}) -> ({T41}, {T41}, {T48}, {T48}, {T48}) {{
      %rmax = pypto.tensor.row_max %a : {T48}
      %rsum = pypto.tensor.row_sum %a : {T48}
      %es = pypto.tensor.row_expand_sub %a, %rmax : {T48}, {T41}
      %em = pypto.tensor.row_expand_mul %a, %rsum : {T48}, {T41}
      %ed = pypto.tensor.row_expand_div %a, %rmax : {T48}, {T41}
      pypto.return %rmax, %rsum, %es, %em, %ed : {T41}, {T41}, {T48}, {T48}, {T48}
    }}"""
    a = rnd(seed=15)
    mx, sm, s, m, d = run_text(text, [a])
    assert mx.shape == sm.shape == (4, 1)
    np.testing.assert_array_equal(mx, a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, a.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(s, a - a.max(axis=1)[:, None], rtol=1e-6)
    np.testing.assert_allclose(m, a * a.sum(axis=1)[:, None], rtol=1e-6)
    np.testing.assert_allclose(d, a / a.max(axis=1)[:, None], rtol=1e-6)


@covers("pypto.tile.matmul", "pypto.tile.matmul_acc")
def test_tile_matmul_and_matmul_acc_with_f16_inputs():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 3], f16>, %b: !pypto.tensor<[3, 5], f16>, out %o: !pypto.tensor<[4, 5], f32>) -> !pypto.tensor<[4, 5], f32> {
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[4, 3], f16> -> !pypto.tile<[4, 3], f16, left>
      %y = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[3, 5], f16> -> !pypto.tile<[3, 5], f16, right>
      %acc = pypto.tile.matmul %x, %y : !pypto.tile<[4, 3], f16, left>, !pypto.tile<[3, 5], f16, right>
      %acc2 = pypto.tile.matmul_acc %acc, %x, %y : !pypto.tile<[4, 5], f32, acc>, !pypto.tile<[4, 3], f16, left>, !pypto.tile<[3, 5], f16, right>
      %r = pypto.tile.store %acc2, %o[%c0, %c0] : !pypto.tile<[4, 5], f32, acc>, !pypto.tensor<[4, 5], f32>
      pypto.return %r : !pypto.tensor<[4, 5], f32>
    }"""
    a, b = rnd((4, 3), 11, dtype=np.float16), rnd((3, 5), 12, dtype=np.float16)
    (r,) = run_text(text, [a, b, np.zeros((4, 5), np.float32)])
    expected = 2 * (a.astype(np.float32) @ b.astype(np.float32))
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, expected, rtol=1e-6)


@covers("pypto.tile.matmul_bias")
def test_tile_matmul_bias_adds_the_row_to_every_product_row_and_a_k_step_continues_it():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 3], f16>, %b: !pypto.tensor<[3, 5], f16>, %c: !pypto.tensor<[1, 5], f32>, out %o: !pypto.tensor<[4, 5], f32>) -> !pypto.tensor<[4, 5], f32> {
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[4, 3], f16> -> !pypto.tile<[4, 3], f16, left>
      %y = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[3, 5], f16> -> !pypto.tile<[3, 5], f16, right>
      %m = pypto.tile.load %c[%c0, %c0] : !pypto.tensor<[1, 5], f32> -> !pypto.tile<[1, 5], f32, mat>
      %bt = pypto.tile.move %m : !pypto.tile<[1, 5], f32, mat> -> !pypto.tile<[1, 5], f32, bias>
      %acc = pypto.tile.matmul_bias %x, %y, %bt : !pypto.tile<[4, 3], f16, left>, !pypto.tile<[3, 5], f16, right>, !pypto.tile<[1, 5], f32, bias>
      %acc2 = pypto.tile.matmul_acc %acc, %x, %y : !pypto.tile<[4, 5], f32, acc>, !pypto.tile<[4, 3], f16, left>, !pypto.tile<[3, 5], f16, right>
      %r = pypto.tile.store %acc2, %o[%c0, %c0] : !pypto.tile<[4, 5], f32, acc>, !pypto.tensor<[4, 5], f32>
      pypto.return %r : !pypto.tensor<[4, 5], f32>
    }"""
    a, b = rnd((4, 3), 11, dtype=np.float16), rnd((3, 5), 12, dtype=np.float16)
    bias = rnd((1, 5), 13)
    (r,) = run_text(text, [a, b, bias, np.zeros((4, 5), np.float32)])
    expected = 2 * (a.astype(np.float32) @ b.astype(np.float32)) + bias
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, expected, rtol=1e-6)


@covers("pypto.tensor.batch_matmul", "pypto.tensor.batch_matmul_acc")
def test_tensor_batch_matmul_broadcasts_the_batch_dims_and_acc_adds_per_batch():
    text = """
    pypto.func @main(%a: !pypto.tensor<[3, 1, 4, 6], f16>, %b: !pypto.tensor<[2, 6, 5], f16>, %acc: !pypto.tensor<[3, 2, 4, 5], f32>) -> (!pypto.tensor<[3, 2, 4, 5], f32>, !pypto.tensor<[3, 2, 4, 5], f32>) {
      %c = pypto.tensor.batch_matmul %a, %b : !pypto.tensor<[3, 1, 4, 6], f16>, !pypto.tensor<[2, 6, 5], f16> -> !pypto.tensor<[3, 2, 4, 5], f32>
      %d = pypto.tensor.batch_matmul_acc %acc, %a, %b : !pypto.tensor<[3, 2, 4, 5], f32>, !pypto.tensor<[3, 1, 4, 6], f16>, !pypto.tensor<[2, 6, 5], f16>
      pypto.return %c, %d : !pypto.tensor<[3, 2, 4, 5], f32>, !pypto.tensor<[3, 2, 4, 5], f32>
    }"""
    a, b = rnd((3, 1, 4, 6), 21, dtype=np.float16), rnd((2, 6, 5), 22, dtype=np.float16)
    acc = rnd((3, 2, 4, 5), 23)
    c, d = run_text(text, [a, b, acc])
    want = np.einsum("xymk,ykn->xymn", np.broadcast_to(a.astype(np.float32), (3, 2, 4, 6)), b.astype(np.float32))
    assert c.dtype == np.float32 and c.shape == (3, 2, 4, 5)
    np.testing.assert_allclose(c, want, rtol=1e-6)
    np.testing.assert_allclose(d, acc + want, rtol=1e-6)


@covers("pypto.tile.batch_matmul", "pypto.tile.batch_matmul_acc")
def test_tile_batch_matmul_per_batch_and_acc_in_place():
    text = """
    pypto.func @main(%a: !pypto.tensor<[2, 4, 6], f32>, %b: !pypto.tensor<[6, 3], f32>, out %o: !pypto.tensor<[2, 4, 3], f32>) -> !pypto.tensor<[2, 4, 3], f32> {
      %c0 = arith.constant 0 : index
      %x = pypto.tile.load %a[%c0, %c0, %c0] : !pypto.tensor<[2, 4, 6], f32> -> !pypto.tile<[2, 4, 6], f32, left>
      %y = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[6, 3], f32> -> !pypto.tile<[6, 3], f32, right>
      %acc = pypto.tile.batch_matmul %x, %y : !pypto.tile<[2, 4, 6], f32, left>, !pypto.tile<[6, 3], f32, right>
      %acc2 = pypto.tile.batch_matmul_acc %acc, %x, %y : !pypto.tile<[2, 4, 3], f32, acc>, !pypto.tile<[2, 4, 6], f32, left>, !pypto.tile<[6, 3], f32, right>
      %r = pypto.tile.store %acc, %o[%c0, %c0, %c0] : !pypto.tile<[2, 4, 3], f32, acc>, !pypto.tensor<[2, 4, 3], f32>
      pypto.return %r : !pypto.tensor<[2, 4, 3], f32>
    }"""
    a, b = rnd((2, 4, 6), 24), rnd((6, 3), 25)
    (r,) = run_text(text, [a, b, np.zeros((2, 4, 3), np.float32)])
    # batch_matmul_acc wrote into %acc's buffer: the store of %acc sees both products
    np.testing.assert_allclose(r, 2 * np.stack([a[0] @ b, a[1] @ b]), rtol=1e-5)


def test_batch_matmul_refuses_a_partial_operand():
    text = """
    pypto.func @main(%a: !pypto.tensor<[2, 4, 6], f32>, %b: !pypto.tensor<[2, 6, 3], f32>, out %o: !pypto.tensor<[2, 4, 3], f32>) -> !pypto.tensor<[2, 4, 3], f32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %x = pypto.tile.load %a[%c0, %c0, %c0] valid[%c2, %c4, %c5] : !pypto.tensor<[2, 4, 6], f32> -> !pypto.tile<[2, 4, 6], f32, left>
      %y = pypto.tile.load %b[%c0, %c0, %c0] : !pypto.tensor<[2, 6, 3], f32> -> !pypto.tile<[2, 6, 3], f32, right>
      %acc = pypto.tile.batch_matmul %x, %y : !pypto.tile<[2, 4, 6], f32, left>, !pypto.tile<[2, 6, 3], f32, right>
      %r = pypto.tile.store %acc, %o[%c0, %c0, %c0] : !pypto.tile<[2, 4, 3], f32, acc>, !pypto.tensor<[2, 4, 3], f32>
      pypto.return %r : !pypto.tensor<[2, 4, 3], f32>
    }"""
    with pytest.raises(PyptoInterpretationError, match=r"operand 'lhs' is partial \(valid \[2, 4, 5\] of \[2, 4, 6\]\)"):
        run_text(text, [rnd((2, 4, 6)), rnd((2, 6, 3)), np.zeros((2, 4, 3), np.float32)])


@covers("pypto.tile.get_block_idx", "pypto.tile.get_block_num", "pypto.tile.get_subblock_idx")
def test_get_block_idx_and_num_default_to_a_single_block():
    """... and the interpreter runs a vector kernel as one vector core: sub-block 0."""
    text = """
    pypto.func @main() -> (index, index, index) {
      %i = pypto.tile.get_block_idx : index
      %n = pypto.tile.get_block_num : index
      %s = pypto.tile.get_subblock_idx : index
      pypto.return %i, %n, %s : index, index, index
    }"""
    assert run_text(text, []) == (0, 1, 0)


# --------------------------------------------------------------------------- reductions, broadcasts

V816 = "!pypto.tile<[8, 16], f32, vec>"
T816 = "!pypto.tensor<[8, 16], f32>"


def _row_col_program(family: str, op: str, operand_shape: str | None, result_shape: str, tmp: bool = False) -> str:
    """`%r = <op> %a[, %v]` on [8, 16] f32 values, as tensors or as tiles loaded and stored."""
    second = ", %v" if operand_shape else ""
    if family == "tensor":
        types = f"{T816}" + (f", !pypto.tensor<{operand_shape}, f32>" if operand_shape else "")
        body = f"%r = pypto.tensor.{op} %a{second} : {types} -> !pypto.tensor<{result_shape}, f32>"
        ret = "%r"
    else:
        vtype = f"!pypto.tile<{operand_shape}, f32, vec>" if operand_shape else ""
        loads = f"%x = pypto.tile.load %a[%c0, %c0] : {T816} -> {V816}"
        if operand_shape:
            loads += f"\n      %y = pypto.tile.load %v[%c0, %c0] : !pypto.tensor<{operand_shape}, f32> -> {vtype}"
        scratch = f" tmp(%s : {V816})" if tmp else ""
        create = f"%s = pypto.tile.create : {V816}" if tmp else ""
        types = V816 + (f", {vtype}" if operand_shape else "")
        body = f"""{loads}
      {create}
      %t = pypto.tile.{op} %x{", %y" if operand_shape else ""}{scratch} : {types} -> !pypto.tile<{result_shape}, f32, vec>
      %o = pypto.tensor.create : !pypto.tensor<{result_shape}, f32>
      %r = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<{result_shape}, f32, vec>, !pypto.tensor<{result_shape}, f32>"""
        ret = "%r"
    extra = f", %v: !pypto.tensor<{operand_shape}, f32>" if operand_shape else ""
    return f"""
    pypto.func @main(%a: {T816}{extra}) -> !pypto.tensor<{result_shape}, f32> {{
      %c0 = arith.constant 0 : index
      {body}
      pypto.return {ret} : !pypto.tensor<{result_shape}, f32>
    }}"""


ROW_REDUCE = {
    "row_max": lambda a: a.max(axis=1, keepdims=True),
    "row_sum": lambda a: a.sum(axis=1, keepdims=True),
    "row_min": lambda a: a.min(axis=1, keepdims=True),
    "row_prod": lambda a: a.prod(axis=1, keepdims=True),
}
COL_REDUCE = {
    "col_sum": lambda a: a.sum(axis=0, keepdims=True),
    "col_max": lambda a: a.max(axis=0, keepdims=True),
    "col_min": lambda a: a.min(axis=0, keepdims=True),
    "col_prod": lambda a: a.prod(axis=0, keepdims=True),
}
EXPAND = {
    "expand": lambda a, v: np.broadcast_to(v, a.shape),
    "expand_sub": lambda a, v: a - v,
    "expand_mul": lambda a, v: a * v,
    "expand_div": lambda a, v: a / v,
    "expand_add": lambda a, v: a + v,
    "expand_max": np.maximum,
    "expand_min": np.minimum,
    "expand_expdif": lambda a, v: np.exp(a - v),
}
for _family in ("tensor", "tile"):
    covers(*(f"pypto.{_family}.{n}" for n in (*ROW_REDUCE, *COL_REDUCE)))
    covers(*(f"pypto.{_family}.{side}_{n}" for side in ("row", "col") for n in EXPAND))


@pytest.mark.parametrize("family", ["tensor", "tile"])
@pytest.mark.parametrize("name", sorted(ROW_REDUCE) + sorted(COL_REDUCE))
def test_row_and_column_reductions(family, name):
    result = "[8, 1]" if name.startswith("row") else "[1, 16]"
    a = rnd((8, 16), seed=40, positive=name.endswith("prod"))
    (r,) = run_text(_row_col_program(family, name, None, result), [a])
    np.testing.assert_allclose(r, (ROW_REDUCE | COL_REDUCE)[name](a), rtol=1e-5)


@pytest.mark.parametrize("name", ["row_max", "row_sum", "col_sum"])
def test_tile_reductions_with_a_scratch_tile(name):
    result = "[8, 1]" if name.startswith("row") else "[1, 16]"
    a = rnd((8, 16), seed=41)
    (r,) = run_text(_row_col_program("tile", name, None, result, tmp=True), [a])
    np.testing.assert_allclose(r, (ROW_REDUCE | COL_REDUCE)[name](a), rtol=1e-5)


@pytest.mark.parametrize("family", ["tensor", "tile"])
@pytest.mark.parametrize("side", ["row", "col"])
@pytest.mark.parametrize("name", sorted(EXPAND))
def test_row_and_column_broadcasts(family, side, name):
    shape = "[8, 1]" if side == "row" else "[1, 16]"
    a = rnd((8, 16), seed=42)
    v = rnd((8, 1) if side == "row" else (1, 16), seed=43, positive=name == "expand_div")
    (r,) = run_text(_row_col_program(family, f"{side}_{name}", shape, "[8, 16]"), [a, v])
    np.testing.assert_allclose(r, EXPAND[name](a, v), rtol=1e-6)


def test_tile_row_expand_add_with_a_scratch_tile():
    text = f"""
    pypto.func @main(%a: !pypto.tile<[8, 16], f32, vec>, %r: !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec> {{
      %s = pypto.tile.create : {V816}
      %e = pypto.tile.row_expand_add %a, %r tmp(%s : {V816}) : {V816}, !pypto.tile<[8, 1], f32, vec>
      pypto.return %e : {V816}
    }}"""
    a, r = rnd((8, 16), seed=44), rnd((8, 1), seed=45)
    (e,) = run_text(text, [a, r])
    np.testing.assert_allclose(e, a + r, rtol=1e-6)


@covers("pypto.tensor.expands", "pypto.tile.expands")
@pytest.mark.parametrize("family", ["tensor", "tile"])
def test_expands_broadcasts_a_scalar(family):
    t = T816 if family == "tensor" else V816
    text = f"""
    pypto.func @main(%a: {t}) -> {t} {{
      %s = arith.constant 2.5 : f32
      %r = pypto.{family}.expands %a, %s : {t}, f32
      pypto.return %r : {t}
    }}"""
    (r,) = run_text(text, [rnd((8, 16), seed=46)])
    np.testing.assert_array_equal(r, np.full((8, 16), 2.5, np.float32))


# --------------------------------------------------------------------------- layout


@covers("pypto.tensor.concat", "pypto.tile.concat")
@pytest.mark.parametrize("family", ["tensor", "tile"])
def test_concat_joins_columns(family):
    def t(n):
        return f"!pypto.tensor<[4, {n}], f32>" if family == "tensor" else f"!pypto.tile<[4, {n}], f32, vec>"

    text = f"""
    pypto.func @main(%a: {t(3)}, %b: {t(5)}) -> {t(8)} {{
      %r = pypto.{family}.concat %a, %b : {t(3)}, {t(5)}
      pypto.return %r : {t(8)}
    }}"""
    a, b = rnd((4, 3), seed=47), rnd((4, 5), seed=48)
    (r,) = run_text(text, [a, b])
    np.testing.assert_array_equal(r, np.concatenate([a, b], axis=1))


@covers("pypto.tensor.reshape", "pypto.tensor.transpose")
def test_tensor_reshape_and_transpose_are_views():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 1], f32>, %b: !pypto.tensor<[2, 3], f32>) -> (!pypto.tensor<[1, 4], f32>, !pypto.tensor<[3, 2], f32>, !pypto.tensor<[4, 1], f32>) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %v = arith.constant 9.0 : f32
      %flat = pypto.tensor.reshape %a : !pypto.tensor<[4, 1], f32> -> !pypto.tensor<[1, 4], f32>
      %t = pypto.tensor.transpose %b, 0, 1 : !pypto.tensor<[2, 3], f32> -> !pypto.tensor<[3, 2], f32>
      %w = pypto.tensor.write %v into %flat[%c0, %c2] : f32 into !pypto.tensor<[1, 4], f32>
      pypto.return %w, %t, %a : !pypto.tensor<[1, 4], f32>, !pypto.tensor<[3, 2], f32>, !pypto.tensor<[4, 1], f32>
    }"""
    a, b = rnd((4, 1), seed=49), rnd((2, 3), seed=50)
    original = a.copy()
    flat, t, a_after = run_text(text, [a, b])
    np.testing.assert_array_equal(t, b.T)
    expected = original.copy()
    expected[2, 0] = 9.0
    np.testing.assert_array_equal(a_after, expected)  # the write went through the view
    np.testing.assert_array_equal(flat, expected.reshape(1, 4))


def test_tensor_reshape_of_a_strided_window_is_an_error():
    text = """
    pypto.func @main(%a: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[8], f32> {
      %c0 = arith.constant 0 : index
      %w = pypto.tensor.slice %a[%c0, %c0] : !pypto.tensor<[4, 4], f32> -> !pypto.tensor<[4, 2], f32>
      %r = pypto.tensor.reshape %w : !pypto.tensor<[4, 2], f32> -> !pypto.tensor<[8], f32>
      pypto.return %r : !pypto.tensor<[8], f32>
    }"""
    from pypto_xdsl.interpreter import PyptoInterpretationError

    with pytest.raises(PyptoInterpretationError, match="pypto.tensor.reshape in @main: cannot reshape"):
        run_text(text, [rnd((4, 4), seed=51)])


@covers("pypto.tile.reshape", "pypto.tile.transpose", "pypto.tile.transpose_view")
def test_tile_reshape_transpose_and_transpose_view():
    text = """
    pypto.func @main(%a: !pypto.tile<[8, 1], f32, vec>, %b: !pypto.tile<[2, 3], f32, vec>, %m: !pypto.tile<[4, 2], f16, mat>) -> (!pypto.tile<[1, 8], f32, vec>, !pypto.tile<[3, 2], f32, vec>, !pypto.tile<[2, 4], f16, mat>) {
      %r = pypto.tile.reshape %a : !pypto.tile<[8, 1], f32, vec> -> !pypto.tile<[1, 8], f32, vec>
      %t = pypto.tile.transpose %b, 0, 1 : !pypto.tile<[2, 3], f32, vec> -> !pypto.tile<[3, 2], f32, vec>
      %v = pypto.tile.transpose_view %m : !pypto.tile<[4, 2], f16, mat>
      pypto.return %r, %t, %v : !pypto.tile<[1, 8], f32, vec>, !pypto.tile<[3, 2], f32, vec>, !pypto.tile<[2, 4], f16, mat>
    }"""
    a, b, m = rnd((8, 1), seed=52), rnd((2, 3), seed=53), rnd((4, 2), seed=54, dtype=np.float16)
    r, t, v = run_text(text, [a, b, m])
    np.testing.assert_array_equal(r, a.reshape(1, 8))
    np.testing.assert_array_equal(t, b.T)
    assert v.dtype == np.float16
    np.testing.assert_array_equal(v, m.T)


# --------------------------------------------------------------------------- tensors: full, writes, matmul_acc


@covers("pypto.tensor.full", "pypto.tensor.write", "pypto.tensor.matmul_acc")
def test_tensor_full_write_and_matmul_acc():
    text = """
    pypto.func @main(%acc: !pypto.tensor<[4, 5], f32>, %a: !pypto.tensor<[4, 3], f16>, %b: !pypto.tensor<[3, 5], f16>) -> (!pypto.tensor<[2, 3], i32>, !pypto.tensor<[4, 5], f32>) {
      %c1 = arith.constant 1 : index
      %seven = arith.constant 7 : i32
      %nine = arith.constant 9 : i32
      %f = pypto.tensor.full %seven : i32 -> !pypto.tensor<[2, 3], i32>
      %w = pypto.tensor.write %nine into %f[%c1, %c1] : i32 into !pypto.tensor<[2, 3], i32>
      %d = pypto.tensor.matmul_acc %acc, %a, %b : !pypto.tensor<[4, 5], f32>, !pypto.tensor<[4, 3], f16>, !pypto.tensor<[3, 5], f16>
      pypto.return %w, %d : !pypto.tensor<[2, 3], i32>, !pypto.tensor<[4, 5], f32>
    }"""
    acc = rnd((4, 5), seed=55)
    a, b = rnd((4, 3), seed=56, dtype=np.float16), rnd((3, 5), seed=57, dtype=np.float16)
    acc_before = acc.copy()
    w, d = run_text(text, [acc, a, b])
    assert w.dtype == np.int32 and w.tolist() == [[7, 7, 7], [7, 9, 7]]
    np.testing.assert_allclose(d, acc_before + a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(acc, acc_before)  # a new tensor: acc is only read


@covers("pypto.tile.atomic_store")
def test_atomic_assemble_and_store_add_into_the_destination():
    text = """
    pypto.func @main(%x: !pypto.tensor<[2, 4], f32>, inout %o: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %o2 = pypto.tensor.assemble %x into %o[%c0, %c0] atomic(add) : !pypto.tensor<[2, 4], f32> into !pypto.tensor<[4, 4], f32>
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2, 4], f32> -> !pypto.tile<[2, 4], f32, vec>
      %o3 = pypto.tile.atomic_store %t, %o2[%c1, %c0] atomic(add) : !pypto.tile<[2, 4], f32, vec>, !pypto.tensor<[4, 4], f32>
      pypto.return %o3 : !pypto.tensor<[4, 4], f32>
    }"""
    x, o = rnd((2, 4), seed=58), rnd((4, 4), seed=59)
    expected = o.copy()
    expected[0:2] += x
    expected[1:3] += x
    (r,) = run_text(text, [x, o])
    assert r is o
    np.testing.assert_allclose(o, expected, rtol=1e-6)


# --------------------------------------------------------------------------- tiles: buffers, elements, windows


@covers("pypto.tile.create", "pypto.tile.read", "pypto.tile.write", "pypto.tile.slice", "pypto.tile.assemble")
def test_tile_create_read_write_slice_assemble():
    text = """
    pypto.func @main(%a: !pypto.tile<[4, 8], f32, vec>) -> (!pypto.tile<[4, 8], f32, vec>, f32, !pypto.tile<[4, 8], f32, vec>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %v = arith.constant 5.0 : f32
      %buf = pypto.tile.create : !pypto.tile<[4, 8], f32, vec>
      %row = pypto.tile.slice %a[%c2, %c0] : !pypto.tile<[4, 8], f32, vec> -> !pypto.tile<[1, 8], f32, vec>
      %b1 = pypto.tile.assemble %row into %buf[%c0, %c0] : !pypto.tile<[1, 8], f32, vec> into !pypto.tile<[4, 8], f32, vec>
      %b2 = pypto.tile.write %v into %b1[%c1, %c2] : f32 into !pypto.tile<[4, 8], f32, vec>
      %e = pypto.tile.read %b2[%c0, %c1] : !pypto.tile<[4, 8], f32, vec>
      pypto.return %b2, %e, %buf : !pypto.tile<[4, 8], f32, vec>, f32, !pypto.tile<[4, 8], f32, vec>
    }"""
    a = rnd((4, 8), seed=60)
    b2, e, buf = run_text(text, [a])
    assert b2 is buf  # assemble and write update the created tile in place
    np.testing.assert_array_equal(b2[0], a[2])
    assert b2[1, 2] == 5.0
    assert np.isnan(b2[1, 0]) and np.isnan(b2[3]).all()  # never written: unspecified (NaN)
    assert e == pytest.approx(float(a[2, 1]))


def test_tile_assemble_of_an_accumulator_into_a_mat_tile():
    text = """
    pypto.func @main(%m: !pypto.tile<[4, 8], f32, mat>, %acc: !pypto.tile<[4, 4], f32, acc>) -> !pypto.tile<[4, 8], f32, mat> {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %r = pypto.tile.assemble %acc into %m[%c0, %c4] : !pypto.tile<[4, 4], f32, acc> into !pypto.tile<[4, 8], f32, mat>
      pypto.return %r : !pypto.tile<[4, 8], f32, mat>
    }"""
    m, acc = rnd((4, 8), seed=61), rnd((4, 4), seed=62)
    expected = np.concatenate([m[:, :4], acc], axis=1)
    (r,) = run_text(text, [m, acc])
    np.testing.assert_array_equal(r, expected)


# --------------------------------------------------------------------------- partial tiles

PARTIAL = """
    pypto.func @main(%x: !pypto.tensor<[4, 8], f32>, %n: index, out %o: !pypto.tensor<[4, 8], f32>, out %s: !pypto.tensor<[4, 1], f32>) -> (!pypto.tensor<[4, 8], f32>, !pypto.tensor<[4, 1], f32>) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[4, 8], f32, vec>
      %p = pypto.tile.set_validshape %t, %c4, %n : !pypto.tile<[4, 8], f32, vec>, index, index
      %f = pypto.tile.fillpad %p pad(PAD) : !pypto.tile<[4, 8], f32, vec>
      %sum = pypto.tile.row_sum %p : !pypto.tile<[4, 8], f32, vec>
      %o2 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[4, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      %s2 = pypto.tile.store %sum, %s[%c0, %c0] : !pypto.tile<[4, 1], f32, vec>, !pypto.tensor<[4, 1], f32>
      pypto.return %o2, %s2 : !pypto.tensor<[4, 8], f32>, !pypto.tensor<[4, 1], f32>
    }"""


@covers("pypto.tile.set_validshape", "pypto.tile.fillpad")
@pytest.mark.parametrize("pad,value", [("zero", 0.0), ("max", np.inf), ("min", -np.inf)])
def test_fillpad_fills_outside_the_valid_shape(pad, value):
    x = rnd((4, 8), seed=63)
    o, s = np.zeros((4, 8), np.float32), np.zeros((4, 1), np.float32)
    run_text(PARTIAL.replace("PAD", pad), [x, 5, o, s])
    expected = x.copy()
    expected[:, 5:] = value
    np.testing.assert_array_equal(o, expected)
    np.testing.assert_allclose(s, x[:, :5].sum(axis=1, keepdims=True), rtol=1e-6)  # valid columns only


def test_partial_tiles_store_only_their_valid_block_and_poison_the_rest():
    text = """
    pypto.func @main(%x: !pypto.tensor<[4, 8], f32>, %n: index, inout %o: !pypto.tensor<[4, 8], f32>) -> !pypto.tensor<[4, 8], f32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[4, 8], f32, vec>
      %p = pypto.tile.set_validshape %t, %c2, %n : !pypto.tile<[4, 8], f32, vec>, index, index
      %e = pypto.tile.exp %p : !pypto.tile<[4, 8], f32, vec>
      %o2 = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[4, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.return %o2 : !pypto.tensor<[4, 8], f32>
    }"""
    x, o = rnd((4, 8), seed=64), np.full((4, 8), -1.0, np.float32)
    run_text(text, [x, 3, o])
    expected = np.full((4, 8), -1.0, np.float32)
    expected[:2, :3] = np.exp(x[:2, :3])  # the exp keeps the valid shape [2, 3] of its operand
    np.testing.assert_allclose(o, expected, rtol=1e-6)


def test_partial_tile_elements_are_unspecified_until_filled():
    text = """
    pypto.func @main(%x: !pypto.tensor<[2, 4], f32>, %n: index) -> !pypto.tile<[2, 4], f32, vec> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2, 4], f32> -> !pypto.tile<[2, 4], f32, vec>
      %p = pypto.tile.set_validshape %t, %c2, %n : !pypto.tile<[2, 4], f32, vec>, index, index
      %m = pypto.tile.move %p : !pypto.tile<[2, 4], f32, vec> -> !pypto.tile<[2, 4], f32, vec>
      pypto.return %m : !pypto.tile<[2, 4], f32, vec>
    }"""
    (m,) = run_text(text, [rnd((2, 4), seed=65), 1])
    assert np.isnan(m[:, 1:]).all() and not np.isnan(m[:, :1]).any()


@covers("pypto.tile.fillpad_expand")
def test_fillpad_expand_copies_the_valid_block_into_a_larger_tile():
    text = """
    pypto.func @main(%a: !pypto.tile<[2, 3], i32, vec>) -> !pypto.tile<[4, 4], i32, vec> {
      %r = pypto.tile.fillpad_expand %a pad(min) : !pypto.tile<[2, 3], i32, vec> -> !pypto.tile<[4, 4], i32, vec>
      pypto.return %r : !pypto.tile<[4, 4], i32, vec>
    }"""
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    (r,) = run_text(text, [a])
    expected = np.full((4, 4), np.iinfo(np.int32).min, np.int32)
    expected[:2, :3] = a
    np.testing.assert_array_equal(r, expected)


def test_set_validshape_beyond_the_tile_is_an_error():
    from pypto_xdsl.interpreter import PyptoInterpretationError

    with pytest.raises(PyptoInterpretationError, match=r"valid shape \[4, 9\] does not fit the tile shape \[4, 8\]"):
        run_text(PARTIAL.replace("PAD", "zero"), [rnd((4, 8), seed=66), 9, np.zeros((4, 8), np.float32), np.zeros((4, 1), np.float32)])
@covers("pypto.tensor.reinterpret_view")
def test_reinterpret_view_sees_the_same_bytes_and_shares_storage():
    text = """
    pypto.func @main(%x: !pypto.tensor<[2, 4], f32>) -> !pypto.tensor<[2, 8], i16> {
      %v = pypto.tensor.reinterpret_view %x : !pypto.tensor<[2, 4], f32> -> !pypto.tensor<[2, 8], i16>
      pypto.return %v : !pypto.tensor<[2, 8], i16>
    }"""
    x = rnd((2, 4), 3)
    (v,) = run_text(text, [x])
    assert v.dtype == np.int16 and v.shape == (2, 8)
    np.testing.assert_array_equal(v, x.view(np.int16))
    assert np.shares_memory(v, x)


def test_atomic_store_and_assemble_add_into_the_destination():
    text = """
    pypto.func @main(%t: !pypto.tensor<[4], f32>, %s: !pypto.tensor<[2], f32>, inout %o: !pypto.tensor<[4], f32>) -> !pypto.tensor<[4], f32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %tile = pypto.tile.load %t[%c0] : !pypto.tensor<[4], f32> -> !pypto.tile<[4], f32, vec>
      %o1 = pypto.tile.atomic_store %tile, %o[%c0] atomic(add) : !pypto.tile<[4], f32, vec>, !pypto.tensor<[4], f32>
      %o2 = pypto.tensor.assemble %s into %o1[%c2] atomic(add) : !pypto.tensor<[2], f32> into !pypto.tensor<[4], f32>
      %o3 = pypto.tensor.assemble %s into %o2[%c0] : !pypto.tensor<[2], f32> into !pypto.tensor<[4], f32>
      pypto.return %o3 : !pypto.tensor<[4], f32>
    }"""
    t, s_, o = rnd((4,), 1), rnd((2,), 2), rnd((4,), 3)
    expected = o + t
    expected[2:] += s_
    expected[:2] = s_
    (r,) = run_text(text, [t, s_, o.copy()])
    np.testing.assert_allclose(r, expected, rtol=1e-6)


@covers("pypto.tensor.set_validshape", "pypto.tensor.slice")
@pytest.mark.parametrize("cols, rows", [(8, 4), (5, 4), (3, 2), (0, 4)])
def test_tensor_valid_region_makes_loads_partial(cols, rows):
    # tensor.set_validshape narrows a view's valid region; a load from it is partial where
    # its window leaves the region (requested valid shape cut by the tensor's, shifted)
    text = """
    pypto.func @main(%x: !pypto.tensor<[4, 8], f32>, %r: index, %c: index, out %o: !pypto.tensor<[4, 8], f32>) -> !pypto.tensor<[4, 8], f32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = pypto.tensor.set_validshape %x, %r, %c : !pypto.tensor<[4, 8], f32>, index, index
      %w = pypto.tensor.slice %v[%c0, %c1] : !pypto.tensor<[4, 8], f32> -> !pypto.tensor<[4, 7], f32>
      %t = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[4, 7], f32> -> !pypto.tile<[4, 7], f32, vec>
      %f = pypto.tile.fillpad %t pad(zero) : !pypto.tile<[4, 7], f32, vec>
      %o1 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[4, 7], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.return %o1 : !pypto.tensor<[4, 8], f32>
    }"""
    x = rnd((4, 8), 11)
    (r,) = run_text(text, [x, rows, cols, np.zeros((4, 8), np.float32)])
    want = np.zeros((4, 8), np.float32)
    valid_cols = max(0, cols - 1)  # the window starts one column in
    want[:rows, :valid_cols] = x[:rows, 1 : 1 + valid_cols]
    np.testing.assert_array_equal(r, want)


@pytest.mark.parametrize("at", [0, 3, 6, 8, 9])
def test_slice_with_runtime_size_past_a_runtime_extent(at):
    text = """
    pypto.func @main(%x: !pypto.tensor<[N], f32>, %at: index, %n: index, out %o: !pypto.tensor<[4], f32>) -> !pypto.tensor<[4], f32> {
      %c0 = arith.constant 0 : index
      %w = pypto.tensor.slice %x[%at] sizes(%n) : !pypto.tensor<[N], f32> -> !pypto.tensor<[?], f32>
      %t = pypto.tile.load %w[%c0] : !pypto.tensor<[?], f32> -> !pypto.tile<[4], f32, vec>
      %f = pypto.tile.fillpad %t pad(max) : !pypto.tile<[4], f32, vec>
      %o1 = pypto.tile.store %f, %o[%c0] : !pypto.tile<[4], f32, vec>, !pypto.tensor<[4], f32>
      pypto.return %o1 : !pypto.tensor<[4], f32>
    }"""
    x = rnd((10,), 12)
    (r,) = run_text(text, [x, at, 4, np.zeros(4, np.float32)])
    inside = max(0, min(4, 10 - at))
    want = np.full(4, np.inf, np.float32)  # pad(max) of a float tile
    want[:inside] = x[at : at + inside]
    np.testing.assert_array_equal(r, want)


@pytest.mark.parametrize(
    "source, window, offsets, message",
    [
        # a 1-D window must start inside (the host's `off >= T` check)
        ("[N]", "[4]", "%at", "dimension 0 takes 4 at 10 of 10; only a 1-D window"),
        # a 2-D window must fit, along a run-time extent too (the host's `row + 4 > N` check)
        ("[N, 8]", "[4, 8]", "%at, %c0", "dimension 0 takes 4 at 8 of 10; only a 1-D window"),
        ("[8, N]", "[8, 4]", "%c0, %at", "dimension 1 takes 4 at 8 of 10; only a 1-D window"),
        # past a static extent (the verifier's check when the offset is a constant)
        ("[10, 8]", "[4, 8]", "%at, %c0", "dimension 0 takes 4 at 8 of 10)"),
    ],
)
def test_a_slice_past_the_end_is_out_of_bounds_as_on_the_host(source, window, offsets, message):
    text = f"""
    pypto.func @main(%x: !pypto.tensor<{source}, f32>, %at: index) -> !pypto.tensor<{window}, f32> {{
      %c0 = arith.constant 0 : index
      %w = pypto.tensor.slice %x[{offsets}] : !pypto.tensor<{source}, f32> -> !pypto.tensor<{window}, f32>
      pypto.return %w : !pypto.tensor<{window}, f32>
    }}"""
    shape = [10 if d == "N" else int(d) for d in source.strip("[]").split(", ")]
    at = 10 if window == "[4]" else 8
    with pytest.raises(PyptoInterpretationError, match="out of bounds: slice window") as info:
        run_text(text, [rnd(tuple(shape), 14), at])
    assert message in str(info.value)


def test_assemble_of_a_tensor_with_a_valid_region_writes_that_region():
    text = """
    pypto.func @main(%x: !pypto.tensor<[2, 4], f32>, %c: index, inout %o: !pypto.tensor<[2, 4], f32>) -> !pypto.tensor<[2, 4], f32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %v = pypto.tensor.set_validshape %x, %c2, %c : !pypto.tensor<[2, 4], f32>, index, index
      %e = pypto.tensor.exp %v : !pypto.tensor<[2, 4], f32>
      %o1 = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[2, 4], f32> into !pypto.tensor<[2, 4], f32>
      pypto.return %o1 : !pypto.tensor<[2, 4], f32>
    }"""
    x, o = rnd((2, 4), 13), np.full((2, 4), 5.0, np.float32)
    (r,) = run_text(text, [x, 3, o])
    want = np.full((2, 4), 5.0, np.float32)
    want[:, :3] = np.exp(x[:, :3])
    np.testing.assert_allclose(r, want, rtol=1e-6)


@covers("pypto.tile.cmp", "pypto.tile.cmps", "pypto.tile.sel", "pypto.tile.sels", "pypto.tile.tri",
        "pypto.tensor.cmp", "pypto.tensor.cmps")
def test_masks_selections_and_triangles():
    V = "!pypto.tile<[2, 12], f32, vec>"
    T = "!pypto.tensor<[2, 12], f32>"
    MV = "!pypto.tile<[2, 32], ui8, vec>"
    MT = "!pypto.tensor<[2, 32], ui8>"
    S = "!pypto.tile<[1, 32], ui8, vec>"
    text = f"""
    pypto.func @main(%a: {T}, %b: {T}, %d: i32, out %m: {MT}, out %sel: {T}, out %sels: {T}, out %tri: {T}) -> ({T}, {T}) {{
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %k = arith.constant -7.0 : f32
      %x = pypto.tile.load %a[%c0, %c0] : {T} -> {V}
      %y = pypto.tile.load %b[%c0, %c0] : {T} -> {V}
      %tmp = pypto.tile.create : {S}
      %lt = pypto.tile.cmp %x, %y cmp(lt) : {V}, {V}
      %ge = pypto.tile.cmps %x, %z cmp(ge) : {V}, f32
      %r1 = pypto.tile.sel %lt, %x, %y, %tmp : {MV}, {V}, {V}, {S}
      %r2 = pypto.tile.sels %ge, %x, %tmp, %k : {MV}, {V}, {S}, f32
      %r3 = pypto.tile.tri %d upper : i32 -> {V}
      %1 = pypto.tile.store %lt, %m[%c0, %c0] : {MV}, {MT}
      %2 = pypto.tile.store %r1, %sel[%c0, %c0] : {V}, {T}
      %3 = pypto.tile.store %r2, %sels[%c0, %c0] : {V}, {T}
      %4 = pypto.tile.store %r3, %tri[%c0, %c0] : {V}, {T}
      %e = pypto.tensor.cmp %a, %b cmp(ne) : {T}
      %g = pypto.tensor.cmps %a, %z cmp(le) : {T}, f32
      pypto.return %e, %g : {T}, {T}
    }}"""
    a, b = np.round(rnd((2, 12), 21) * 2), np.round(rnd((2, 12), 22) * 2)
    m = np.full((2, 32), 9, np.uint8)
    sel, sels, tri = (np.zeros((2, 12), np.float32) for _ in range(3))
    e, g = run_text(text, [a, b, -1, m, sel, sels, tri])
    want = np.zeros((2, 32), np.uint8)
    want[:, :2] = np.packbits(a < b, axis=1, bitorder="little")
    np.testing.assert_array_equal(m, want)
    np.testing.assert_array_equal(sel, np.where(a < b, a, b))
    np.testing.assert_array_equal(sels, np.where(a >= 0, a, np.float32(-7.0)))
    np.testing.assert_array_equal(tri, np.triu(np.ones((2, 12), np.float32), -1))
    np.testing.assert_array_equal(e, (a != b).astype(np.float32))
    np.testing.assert_array_equal(g, (a <= 0).astype(np.float32))
@covers("pypto.tile.mgather", "pypto.tile.gatherb", "pypto.tile.mscatter")
def test_tile_indexed_gathers_and_scatter():
    """mgather by row (clamped) and by element, gatherb of 32-byte blocks as another element
    type, mscatter into a flat tensor (tests/test_gather_ops.py has the pl forms)."""
    text = """
    pypto.func @main(%m: !pypto.tensor<[8, 8], f32>, %i: !pypto.tensor<[1, 4], i32>, %o: !pypto.tensor<[2, 8], ui32>, %d: !pypto.tensor<[64], f32>) -> (!pypto.tile<[4, 8], f32, vec>, !pypto.tile<[1, 4], f32, vec>, !pypto.tile<[2, 256], i8, vec>, !pypto.tensor<[64], f32>) {
      %c0 = arith.constant 0 : index
      %it = pypto.tile.load %i[%c0, %c0] : !pypto.tensor<[1, 4], i32> -> !pypto.tile<[1, 4], i32, vec>
      %rows = pypto.tile.mgather %m, %it row oob(clamp) : !pypto.tensor<[8, 8], f32>, !pypto.tile<[1, 4], i32, vec> -> !pypto.tile<[4, 8], f32, vec>
      %elems = pypto.tile.mgather %m, %it elem : !pypto.tensor<[8, 8], f32>, !pypto.tile<[1, 4], i32, vec> -> !pypto.tile<[1, 4], f32, vec>
      %src = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[8, 8], f32> -> !pypto.tile<[8, 8], f32, vec>
      %ot = pypto.tile.load %o[%c0, %c0] : !pypto.tensor<[2, 8], ui32> -> !pypto.tile<[2, 8], ui32, vec>
      %blocks = pypto.tile.gatherb %src, %ot : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[2, 8], ui32, vec> -> !pypto.tile<[2, 256], i8, vec>
      %s = pypto.tile.mscatter %src, %sidx into %d : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 8], i32, vec> into !pypto.tensor<[64], f32>
      pypto.return %rows, %elems, %blocks, %s : !pypto.tile<[4, 8], f32, vec>, !pypto.tile<[1, 4], f32, vec>, !pypto.tile<[2, 256], i8, vec>, !pypto.tensor<[64], f32>
    }"""
    text = text.replace(
        "      %s = pypto.tile.mscatter",
        "      %sidx = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 8], i32> -> !pypto.tile<[8, 8], i32, vec>\n"
        "      %s = pypto.tile.mscatter",
    ).replace("%d: !pypto.tensor<[64], f32>)", "%d: !pypto.tensor<[64], f32>, %r: !pypto.tensor<[8, 8], i32>)")
    m = rnd((8, 8), 21)
    i = np.array([[5, 9, 0, 63]], np.int32)
    o = (np.arange(16, dtype=np.uint32)[::-1] * 32 % 256).reshape(2, 8)
    d = np.zeros(64, np.float32)
    r = np.arange(64, dtype=np.int32)[::-1].reshape(8, 8).copy()
    rows, elems, blocks, s = run_text(text, [m, i, o, d, r])
    np.testing.assert_array_equal(rows, m[[5, 7, 0, 7]])
    np.testing.assert_array_equal(elems, m.reshape(-1)[[5, 9, 0, 63]].reshape(1, 4))
    raw = m.view(np.uint8).reshape(-1)
    want = np.stack([np.concatenate([raw[k : k + 32] for k in row]) for row in o]).view(np.int8)
    np.testing.assert_array_equal(blocks, want)
    np.testing.assert_array_equal(d, m.reshape(-1)[::-1])
    assert s is d or np.shares_memory(s, d)


def test_every_op_has_a_numerics_test():
    # Runs last in this module (pytest keeps definition order), after every `covers` call.
    every = {op.name for op in (*tensor.TENSOR_OPS, *tile.TILE_OPS)}
    missing = every - COVERED
    assert not missing, f"ops without a numerics test: {sorted(missing)}"


def test_every_op_of_the_dialect_has_an_interpreter_implementation():
    from xdsl.dialects.builtin import ModuleOp

    from pypto_xdsl.dialects.pypto import Pypto
    from pypto_xdsl.interpreter.api import make_interpreter

    # xDSL keeps the registry private; this reads it rather than running one program per op.
    impls = make_interpreter(ModuleOp([]))._impls  # pyright: ignore[reportPrivateUsage]
    implemented = {t.name for t in (*impls._impl_dict, *impls._callable_impl_dict)}  # pyright: ignore
    missing = {op.name for op in Pypto.operations} - implemented
    assert not missing, f"ops the interpreter cannot run: {sorted(missing)}"
