"""Numerics of every pypto tensor/tile op in the reference interpreter, against numpy.

The expected values are written here independently of pypto_xdsl/interpreter/numerics.py
(they follow docs/semantics.md). `test_every_op_has_a_numerics_test` fails when the dialect
gains an op that no test here covers.
"""

from __future__ import annotations

import numpy as np
import pytest

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.interpreter import parse_module, run

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
}
UNARY = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "neg": lambda a: -a,
    "abs": np.abs,
    "relu": lambda a: np.where(a > 0, a, 0).astype(a.dtype),
    "recip": lambda a: 1 / a,
}
POSITIVE = {"log", "sqrt", "recip", "div", "divs"}
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


@covers("pypto.tile.get_block_idx", "pypto.tile.get_block_num")
def test_get_block_idx_and_num_default_to_a_single_block():
    text = """
    pypto.func @main() -> (index, index) {
      %i = pypto.tile.get_block_idx : index
      %n = pypto.tile.get_block_num : index
      pypto.return %i, %n : index, index
    }"""
    assert run_text(text, []) == (0, 1)


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
