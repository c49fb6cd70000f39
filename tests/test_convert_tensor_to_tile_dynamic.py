"""convert-tensor-to-tile on run-time extents: one converted program means the same as the
tensor program (reference interpreter) at every size, on one core and split over several;
partial tail blocks; dynamic columns sized by their bound; the bound errors."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter.api import random_inputs, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program
from pypto_xdsl.transforms.convert_tensor_to_tile import check_tensor_to_tile
from pypto_xdsl.transforms.tensor_to_tile.grouping import const_index

SIZES = (0, 1, 17, 64, 1000)
"""The issue's sizes; 1000 rows are many blocks, and above one core's share on 4 cores."""

MM_RTOL, MM_ATOL = 1e-5, 5e-5


def T(shape, dtype="f32") -> str:
    return f"!pypto.tensor<[{', '.join(map(str, shape))}], {dtype}>"


def program(params: list[tuple[str, str, str]], body: str, result: tuple[str, str], kind: str = "incore",
            call_attrs: str = "", attrs: str = "") -> str:
    """`@k` (of `kind`) with `body` returning `result`, and an orchestration `@main` calling it."""
    sig = ", ".join(f"{d + ' ' if d != 'in' else ''}%{n}: {t}" for d, n, t in params)
    types = ", ".join(t for _, _, t in params)
    args = ", ".join(f"%{n}" for _, n, _ in params)
    name, rtype = result
    attributes = f" attributes {{{attrs}}}" if attrs else ""
    return f"""
pypto.func {kind} @k({sig}) -> {rtype}{attributes} {{
{body}
  pypto.return %{name} : {rtype}
}}
pypto.func orchestration @main({sig}) -> {rtype} {{
  %r = pypto.call @k({args}) {call_attrs}: ({types}) -> {rtype}
  pypto.return %r : {rtype}
}}
"""


def convert(text: str, pipeline: str = "convert-tensor-to-tile") -> tuple[ModuleOp, ModuleOp]:
    before, after = parse_program(text), parse_program(text)
    apply_pipeline(after, pipeline)
    after.verify()
    return before, after


def kernel(module: ModuleOp, name: str = "k") -> FuncOp:
    return next(f for f in module.walk() if isinstance(f, FuncOp) and f.sym_name.data == name)


def ops_of(op, cls) -> list:
    return [o for o in op.walk() if isinstance(o, cls)]


# --------------------------------------------------------------------------- the programs

X = T(["N", 128])
R = T(["N", 1])


def elementwise_chain(call_attrs: str = "") -> str:
    return program(
        [("in", "a", X), ("in", "b", X), ("in", "s", "f32"), ("out", "o", X)],
        f"""  %c0 = arith.constant 0 : index
  %x = pypto.tensor.mul %a, %b : {X}
  %y = pypto.tensor.adds %x, %s : {X}, f32
  %e = pypto.tensor.exp %y : {X}
  %w = pypto.tensor.assemble %e into %o[%c0, %c0] : {X} into {X}""",
        ("w", X), call_attrs=call_attrs,
    )


def softmax(call_attrs: str = "") -> str:
    return program(
        [("in", "x", X), ("out", "y", X)],
        f"""  %c0 = arith.constant 0 : index
  %mx = pypto.tensor.row_max %x : {X}
  %sh = pypto.tensor.row_expand_sub %x, %mx : {X}, {R}
  %e = pypto.tensor.exp %sh : {X}
  %s = pypto.tensor.row_sum %e : {X}
  %p = pypto.tensor.row_expand_div %e, %s : {X}, {R}
  %w = pypto.tensor.assemble %p into %y[%c0, %c0] : {X} into {X}""",
        ("w", X), call_attrs=call_attrs,
    )


XR, RR, W = T(["N", 256]), T(["N", 1]), T([1, 256])


def rmsnorm(call_attrs: str = "") -> str:
    return program(
        [("in", "x", XR), ("in", "g", W), ("out", "y", XR)],
        f"""  %c0 = arith.constant 0 : index
  %inv_n = arith.constant 3.906250e-03 : f32
  %eps = arith.constant 1.0e-06 : f32
  %sq = pypto.tensor.mul %x, %x : {XR}
  %ss = pypto.tensor.row_sum %sq : {XR}
  %ms = pypto.tensor.muls %ss, %inv_n : {RR}, f32
  %me = pypto.tensor.adds %ms, %eps : {RR}, f32
  %rs = pypto.tensor.rsqrt %me : {RR}
  %n = pypto.tensor.row_expand_mul %x, %rs : {XR}, {RR}
  %o = pypto.tensor.col_expand_mul %n, %g : {XR}, {W}
  %w = pypto.tensor.assemble %o into %y[%c0, %c0] : {XR} into {XR}""",
        ("w", XR), call_attrs=call_attrs,
    )


A, B, C = T(["N", 64], "f16"), T([64, 48], "f16"), T(["N", 48])


def matmul(attrs: str = "") -> str:
    return program(
        [("in", "a", A), ("in", "b", B), ("out", "c", C)],
        f"""  %c0 = arith.constant 0 : index
  %q = pypto.tensor.matmul %a, %b : {A}, {B} -> {C}
  %w = pypto.tensor.assemble %q into %c[%c0, %c0] : {C} into {C}""",
        ("w", C), attrs=attrs,
    )


PROGRAMS = {"elementwise": elementwise_chain, "softmax": softmax, "rmsnorm": rmsnorm}


# --------------------------------------------------------------------------- equivalence


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("cores", [1, 4])
def test_one_converted_program_means_the_same_at_every_size(name, cores):
    attrs = f"{{pypto.block_dim = {cores} : i64}} " if cores > 1 else ""
    before, after = convert(PROGRAMS[name](attrs))
    assert check_tensor_to_tile(after) == []
    (loop,) = ops_of(kernel(after), scf.ForOp)
    assert const_index(loop.ub) is None  # a run-time trip count
    for n in SIZES:
        assert_same_semantics(before, after, "main", seeds=(0, 1), dims={"N": n}, written_only=True)


@pytest.mark.parametrize("bound", ["", "pypto.dim_bounds = {N = 100 : i64}", "pypto.dim_bounds = {N = 40 : i64}"])
def test_matmul_with_a_dynamic_m_means_the_same_at_every_size(bound):
    before, after = convert(matmul(bound))
    k = kernel(after)
    assert check_tensor_to_tile(after) == []
    loads = [load for load in ops_of(k, tile.LoadOp) if load.source == k.body.block.args[0]]  # A's
    assert any(load.is_partial for load in loads)
    (marked,) = ops_of(k, tile.SetValidShapeOp)  # the acc tile of the partial block
    if bound.endswith("40 : i64}"):
        # M <= 40: one partial block of 48 rows (the bound rounded up to 16), no M loop
        assert loads[0].result.type.get_shape() == (48, 64)
        assert not any(f.body.block.args[0].name_hint == "m" for f in ops_of(k, scf.ForOp))
    else:
        assert loads[0].result.type.get_shape()[0] == (112 if "100" in bound else 128)
    limit = int(bound.split("= ")[-1].split(" :")[0]) if bound else None
    for n in (*SIZES, 130, 255):
        if limit is not None and n > limit:
            continue
        assert_same_semantics(before, after, "main", seeds=(0, 1), dims={"N": n}, written_only=True,
                              rtol=MM_RTOL, atol=MM_ATOL)


def _rows_written(text: str, n: int) -> np.ndarray:
    """How many times each element of the output is written: the kernel's assemble turned
    into an atomic add of ones into a zero output."""
    module = parse_program(text)
    apply_pipeline(module, "convert-tensor-to-tile")
    inputs = random_inputs(module, "main", 0, {"N": n})
    out = inputs[-1]
    out[...] = 0
    run(module, "main", inputs)
    return out


@pytest.mark.parametrize("cores", [1, 2, 3, 4, 7])
def test_every_row_is_written_exactly_once_on_any_number_of_cores(cores):
    ones = program(
        [("in", "a", X), ("inout", "o", X)],
        f"""  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %f = pypto.tensor.expands %a, %one : {X}, f32
  %w = pypto.tensor.assemble %f into %o[%c0, %c0] atomic(add) : {X} into {X}""",
        ("w", X), call_attrs=f"{{pypto.block_dim = {cores} : i64}} ",
    )
    for n in (*SIZES, 3, 6, 39, 77, 4099):
        written = _rows_written(ones, n)
        assert written.shape == (n, 128)
        np.testing.assert_array_equal(written, np.ones((n, 128), np.float32))


def test_the_per_core_shares_are_balanced():
    """Core b of B writes exactly the rows [b*n/B, (b+1)*n/B): contiguous shares that differ
    by at most one row (each core run alone, on an output of NaN)."""
    _before, after = convert(elementwise_chain("{pypto.block_dim = 4 : i64} "))
    (loop,) = ops_of(kernel(after), scf.ForOp)
    assert loop.lb.name_hint == "first_row" and loop.ub.name_hint == "full_end"
    for n in (3, 5, 17, 1000, 1001, 1003):
        shares = []
        for b in range(4):
            inputs = random_inputs(after, "k", 0, {"N": n})
            inputs[-1][...] = np.nan
            run(after, "k", inputs, block_idx=b, block_num=4)
            written = np.flatnonzero(~np.isnan(inputs[-1]).all(axis=1))
            lo, hi = b * n // 4, (b + 1) * n // 4
            np.testing.assert_array_equal(written, np.arange(lo, hi))
            shares.append(hi - lo)
        assert sum(shares) == n and max(shares) - min(shares) <= 1


@pytest.mark.parametrize("cores", [1, 4])
def test_zero_rows_write_nothing(cores):
    """[N, 128] rows assembled into a static [64, 128] output: the rows past N keep what
    they held, and with N = 0 no row is touched."""
    O = T([64, 128])
    text = program(
        [("in", "x", X), ("inout", "o", O)],
        f"""  %c0 = arith.constant 0 : index
  %e = pypto.tensor.exp %x : {X}
  %w = pypto.tensor.assemble %e into %o[%c0, %c0] : {X} into {O}""",
        ("w", O), call_attrs=f"{{pypto.block_dim = {cores} : i64}} " if cores > 1 else "",
    )
    before, after = convert(text)
    for n in (0, 1, 17, 64):
        inputs = random_inputs(after, "main", 0, {"N": n})
        sentinel = inputs[1].copy()
        run(after, "main", inputs)
        np.testing.assert_allclose(inputs[1][:n], np.exp(inputs[0]), rtol=1e-6)
        np.testing.assert_array_equal(inputs[1][n:], sentinel[n:])


def test_an_extent_above_its_bound_is_reported_at_the_call():
    before, after = convert(matmul("pypto.dim_bounds = {N = 40 : i64}"))
    inputs = random_inputs(after, "main", 0, {"N": 41})
    with pytest.raises(Exception, match=r"the dynamic dimension N is 41 \(dimension 0 of argument #0 \(%a\) of @k\), "
                       r"above its bound 40 \(pypto.dim_bounds of @k"):
        run(after, "main", inputs)


# --------------------------------------------------------------------------- random kernels


def random_dynamic_kernel(seed: int) -> tuple[str, dict[str, int]]:
    """A random row-wise kernel over [N, C] values (C static, or dynamic with a bound) and
    their [N, 1] row values, stored into an out parameter; and the extents to run it at."""
    rng = np.random.default_rng(seed)
    dynamic_cols = rng.random() < 0.4
    cols: object = "C" if dynamic_cols else int(rng.choice([8, 13, 64]))
    t, r = T(["N", cols]), T(["N", 1])
    lines = ["  %c0 = arith.constant 0 : index"]
    values, rows, n = ["%a", "%b"], [], 0

    def fresh() -> str:
        nonlocal n
        n += 1
        return f"%v{n}"

    for _ in range(int(rng.integers(3, 10))):
        kind = rng.choice(["binary", "scalar", "unary", "reduce", "expand"] if rows else ["binary", "scalar", "unary", "reduce"])
        pick = lambda: values[int(rng.integers(len(values)))]
        v = fresh()
        if kind == "binary":
            lines.append(f"  {v} = pypto.tensor.{rng.choice(['add', 'sub', 'mul', 'maximum'])} {pick()}, {pick()} : {t}")
            values.append(v)
        elif kind == "scalar":
            lines.append(f"  {v} = pypto.tensor.{rng.choice(['adds', 'muls'])} {pick()}, %s : {t}, f32")
            values.append(v)
        elif kind == "unary":
            lines.append(f"  {v} = pypto.tensor.{rng.choice(['neg', 'abs', 'relu'])} {pick()} : {t}")
            values.append(v)
        elif kind == "reduce":
            lines.append(f"  {v} = pypto.tensor.{rng.choice(['row_sum', 'row_max'])} {pick()} : {t}")
            rows.append(v)
        else:
            row = rows[int(rng.integers(len(rows)))]
            lines.append(f"  {v} = pypto.tensor.{rng.choice(['row_expand_sub', 'row_expand_mul'])} {pick()}, {row} : {t}, {r}")
            values.append(v)
    w = fresh()
    lines.append(f"  {w} = pypto.tensor.assemble {values[-1]} into %o[%c0, %c0] : {t} into {t}")
    cores = int(rng.choice([1, 1, 3]))
    text = program(
        [("in", "a", t), ("in", "b", t), ("in", "s", "f32"), ("out", "o", t)],
        "\n".join(lines), (w[1:], t),
        call_attrs=f"{{pypto.block_dim = {cores} : i64}} " if cores > 1 else "",
        attrs="pypto.dim_bounds = {C = 40 : i64}" if dynamic_cols else "",
    )
    dims = {"N": int(rng.choice([0, 1, 5, 33, 200]))}
    if dynamic_cols:
        dims["C"] = int(rng.integers(1, 41))
    return text, dims


@pytest.mark.parametrize("seed", range(40))
def test_random_dynamic_kernels_keep_their_meaning(seed):
    text, dims = random_dynamic_kernel(seed)
    # a small UB: blocks of a few rows, so the loop, the tail and the per-core shares all occur
    before, after = convert(text, "convert-tensor-to-tile{ub-bytes=16384}")
    assert check_tensor_to_tile(after) == []
    assert_same_semantics(before, after, "main", seeds=(seed,), dims=dims, written_only=True)
