"""End-to-end, per tile op the Ascend C backend lowers since the op-surface work (#12): a
kernel applying the op is compiled with `pypto-compile`'s pipeline, built against the CPU
simulation, run, and compared with the interpreter on the same inputs. Every program runs
the op twice, in two kernels: on an aligned f32 tile whose rows span two 256-byte repeats
([16, 80]), and on an f16 tile whose rows are not 32-byte aligned ([10, 20]) (integer ops: i32
and i16). One build per op keeps the suite's time down."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, parse_program, simulate

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

FLOAT_VARIANTS = (("f32", 16, 80), ("f16", 10, 20))
INT_VARIANTS = (("i32", 16, 80), ("i16", 10, 20))
NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16}
TOL = {"f32": (1e-5, 1e-6), "f16": (2e-3, 2e-3), "i32": (0, 0), "i16": (0, 0)}


def _tile(r, c, e):
    return f"!pypto.tile<[{r}, {c}], {e}, vec>"


def _tensor(r, c, e):
    return f"!pypto.tensor<[{r}, {c}], {e}>"


# op -> (body using %t [R, C], %v [1, C], %w [R, 1], %s scalar; defines %r), result shape,
# positive inputs only. `{T}`, `{V}`, `{W}`, `{E}` are the tile types and the element type.
BODIES = {
    "rsqrt": ("%r = pypto.tile.rsqrt %t : {T}", "rc", True),
    "rsqrt_tmp": ("%tmp = pypto.tile.create : {T}\n  %r = pypto.tile.rsqrt %t tmp(%tmp : {T}) : {T}", "rc", True),
    "tanh": ("%r = pypto.tile.tanh %t : {T}", "rc", False),
    "maximums": ("%r = pypto.tile.maximums %t, %s : {T}, {E}", "rc", False),
    "minimums": ("%r = pypto.tile.minimums %t, %s : {T}, {E}", "rc", False),
    "expands": ("%r = pypto.tile.expands %t, %s : {T}, {E}", "rc", False),
    "create": ("%c = pypto.tile.create : {T}\n  %r = pypto.tile.add %t, %t : {T}", "rc", False),
    "row_min": ("%r = pypto.tile.row_min %t : {T} -> {W}", "r1", False),
    "row_sum_tmp": ("%tmp = pypto.tile.create : {T}\n  %r = pypto.tile.row_sum %t tmp(%tmp : {T}) : {T} -> {W}", "r1", False),
    "row_max_tmp": ("%tmp = pypto.tile.create : {T}\n  %r = pypto.tile.row_max %t tmp(%tmp : {T}) : {T} -> {W}", "r1", False),
    # the first operand's rows end on a 32-byte boundary (where the second starts); the second and the result's do not (f16)
    "concat": ("%r = pypto.tile.concat %t2, %t : {T2}, {T}", "concat", False),
    "reshape": ("%rs = pypto.tile.row_sum %t : {T} -> {W}\n  %q = pypto.tile.reshape %rs : {W} -> {WT}\n"
                "  %q2 = pypto.tile.muls %q, %s : {WT}, {E}\n  %r = pypto.tile.reshape %q2 : {WT} -> {W}", "r1", False),
    # windows of tiles: a row window copied out; a [1, C] row written in place into row 2
    "slice": ("%r = pypto.tile.slice %t[%two, %c0] : {T} -> {T3}", "3c", False),
    "assemble": ("%r = pypto.tile.assemble %v into %t[%two, %c0] : {V} into {T}", "rc", False),
    **{f"col_{k}": (f"%r = pypto.tile.col_{k} %t : {{T}} -> {{V}}", "1c", False) for k in ("sum", "max", "min", "prod")},
    **{f"row_expand{k}": (f"%r = pypto.tile.row_expand{k} %t, %w : {{T}}, {{W}}", "rc", k == "_div")
       for k in ("", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif")},
    **{f"col_expand{k}": (f"%r = pypto.tile.col_expand{k} %t, %v : {{T}}, {{V}}", "rc", k == "_div")
       for k in ("", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif")},
}
# Since the second op-surface round: the advanced-API Sin/Cos, row_prod, element access,
# transposes (scalar unit) and atomic stores.
BODIES.update({
    "sin": ("%r = pypto.tile.sin %t : {T}", "rc", False),
    "cos": ("%r = pypto.tile.cos %t : {T}", "rc", False),
    "row_prod": ("%r = pypto.tile.row_prod %t : {T} -> {W}", "r1", True),
    "read_write": ("%e = pypto.tile.read %t[%two, %c0] : {T}\n  %e2 = arith.mulf %e, %s : {E}\n"
                   "  %c = pypto.tile.adds %t, %s : {T}, {E}\n"
                   "  %r = pypto.tile.write %e2 into %c[%c0, %two] : {E} into {T}", "rc", False),
    "transpose": ("%r = pypto.tile.transpose %t, 0, 1 : {T} -> {TT}", "cr", False),
    "transpose_view": ("%r = pypto.tile.transpose_view %t : {T} -> {TT}", "cr", False),
    # windows whose column offset is unaligned or run-time: element by element on the scalar unit
    "slice_unaligned": ("%r = pypto.tile.slice %t[%two, %three] : {T} -> {S}", "38", False),
    "assemble_runtime_col": ("%j = arith.addi %two, %two : index\n  %src = pypto.tile.slice %t[%c0, %c0] : {T} -> {S1}\n"
                             "  %c = pypto.tile.adds %t, %s : {T}, {E}\n"
                             "  %r = pypto.tile.assemble %src into %c[%two, %j] : {S1} into {T}", "rc", False),
    "concat_self": ("%r = pypto.tile.concat %t, %t : {T}, {T}", "concat2", False),
})
INT_BODIES = {
    "abs": ("%r = pypto.tile.abs %t : {T}", "rc", False),
    "relu": ("%r = pypto.tile.relu %t : {T}", "rc", False),
    "subs": ("%r = pypto.tile.subs %t, %s : {T}, {E}", "rc", False),
    "subs_const": ("%c2 = arith.constant 2 : {E}\n  %r = pypto.tile.subs %t, %c2 : {T}, {E}", "rc", False),
    "maximums_int": ("%r = pypto.tile.maximums %t, %s : {T}, {E}", "rc", False),
    "col_expand_add_int": ("%r = pypto.tile.col_expand_add %t, %v : {T}, {V}", "rc", False),
    "row_expand_max_int": ("%r = pypto.tile.row_expand_max %t, %w : {T}, {W}", "rc", False),
    "col_sum_int": ("%r = pypto.tile.col_sum %t : {T} -> {V}", "1c", False),
    "row_prod_int": ("%r = pypto.tile.row_prod %t : {T} -> {W}", "r1", False),
    "transpose_int": ("%r = pypto.tile.transpose %t, 0, 1 : {T} -> {TT}", "cr", False),
    "read_write_int": ("%e = pypto.tile.read %t[%two, %c0] : {T}\n  %e2 = arith.muli %e, %s : {E}\n"
                       "  %c = pypto.tile.muls %t, %s : {T}, {E}\n"
                       "  %r = pypto.tile.write %e2 into %c[%c0, %two] : {E} into {T}", "rc", False),
}


FAMILIES = {
    "elementwise": ["rsqrt", "rsqrt_tmp", "tanh", "maximums", "minimums", "expands", "create"],
    "reductions": ["row_min", "row_sum_tmp", "row_max_tmp", "reshape"],
    "row_expand": [k for k in BODIES if k.startswith("row_expand")],
    "col_expand": [k for k in BODIES if k.startswith("col_expand")],
    "concat": ["concat"],
    "col_reduce": ["col_sum", "col_max", "col_min", "col_prod"],
    "windows": ["slice", "assemble"],  # in this order: assemble writes %t in place
    "math": ["sin", "cos"],
    "row_prod": ["row_prod"],
    "scalar_unit": ["read_write", "transpose", "transpose_view"],
    "windows_scalar": ["slice_unaligned", "assemble_runtime_col", "concat_self"],
}
POSITIVE = {"rsqrt", "rsqrt_tmp", "row_expand_div", "col_expand_div", "col_prod", "row_prod"}


def _local(body: str, op: str) -> str:
    """The body with its values renamed after the op (several ops share one kernel)."""
    return re.sub(r"%(r|tmp|c|rs|q|q2|c2|e|e2|j|src)\b", lambda m: f"%{op}_{m.group(1)}", body)


def _kernel(family: str, ops: list[str], bodies, e: str, r: int, c: int):
    """One kernel applying every op of the family, each stored to its own output, and the call
    of it: (kernel text, call line, params (name, type))."""
    c2 = 16 if e == "f16" else 24  # concat: the first operand's columns
    types = {"T": _tile(r, c, e), "V": _tile(1, c, e), "W": _tile(r, 1, e), "WT": _tile(1, r, e),
             "T2": _tile(r, c2, e), "T3": _tile(3, c, e), "TT": _tile(c, r, e), "S": _tile(3, 8, e),
             "S1": _tile(1, 8, e), "E": e}
    # integer kernels take the scalar as a parameter (the host passes no f16 scalars)
    scalar = [(f"s_{e}", e)] if not e.startswith("f") else []
    params = [(f"x_{e}", _tensor(r, c, e)), (f"v_{e}", _tensor(1, c, e)), (f"w_{e}", _tensor(r, 1, e)),
              (f"x2_{e}", _tensor(r, c2, e)), *scalar]
    lines, outs = [], []
    for op in ops:
        body, shape, _ = bodies[op]
        out_shape = {"rc": (r, c), "r1": (r, 1), "1c": (1, c), "3c": (3, c), "concat": (r, c2 + c), "cr": (c, r),
                     "38": (3, 8), "concat2": (r, 2 * c)}[shape]
        y = f"y_{op}_{e}"
        params.append((y, _tensor(*out_shape, e)))
        lines.append(_local(body.format(**types), op))
        lines.append(f"%o_{op} = pypto.tile.store %{op}_r, %{y}[%c0, %c0] : {_tile(*out_shape, e)}, {_tensor(*out_shape, e)}")
        outs.append((f"%o_{op}", _tensor(*out_shape, e)))
    sig = ", ".join(f"{'out ' if p.startswith('y_') else ''}%{p}: {t}" for p, t in params)
    ret_types = ", ".join(t for _, t in outs)
    s_def = f"%s = arith.addi %s_{e}, %s_{e} : {e}" if scalar else f"%s = arith.constant 1.25 : {e}"
    body = "\n  ".join(lines)
    text = f"""
pypto.func incore @{family}_{e}({sig}) -> ({ret_types}) {{
  %c0 = arith.constant 0 : index
  %two = arith.constant 2 : index
  %three = arith.constant 3 : index
  %t = pypto.tile.load %x_{e}[%c0, %c0] : {_tensor(r, c, e)} -> {types['T']}
  %v = pypto.tile.load %v_{e}[%c0, %c0] : {_tensor(1, c, e)} -> {types['V']}
  %w = pypto.tile.load %w_{e}[%c0, %c0] : {_tensor(r, 1, e)} -> {types['W']}
  %t2 = pypto.tile.load %x2_{e}[%c0, %c0] : {_tensor(r, c2, e)} -> {types['T2']}
  {s_def}
  {body}
  pypto.return {", ".join(n for n, _ in outs)} : {ret_types}
}}"""
    args = ", ".join(f"%{p}" for p, _ in params)
    arg_types = ", ".join(t for _, t in params)
    results = ", ".join(f"%res_{op}_{e}" for op in ops)
    call = f"  {results} = pypto.call @{family}_{e}({args}) : ({arg_types}) -> ({ret_types})"
    if len(ops) > 1:
        call = f"  %res_{family}_{e}:{len(ops)} = pypto.call @{family}_{e}({args}) : ({arg_types}) -> ({ret_types})"
    return text, call, params, [f"%res_{family}_{e}#{k}" if len(ops) > 1 else f"%res_{ops[0]}_{e}" for k in range(len(ops))], [t for _, t in outs]


def program(family: str, ops: list[str], bodies, variants) -> tuple[str, list[tuple[str, str]]]:
    kernels, calls, params, rets, ret_types = [], [], [], [], []
    for e, r, c in variants:
        k, call, p, res, types = _kernel(family, ops, bodies, e, r, c)
        kernels.append(k)
        calls.append(call)
        params += p
        rets += res
        ret_types += types
    sig = ", ".join(f"{'out ' if p.startswith('y_') else ''}%{p}: {t}" for p, t in params)
    main = (f"pypto.func orchestration @main({sig}) -> ({', '.join(ret_types)}) {{\n" + "\n".join(calls)
            + f"\n  pypto.return {', '.join(rets)} : {', '.join(ret_types)}\n}}")
    return "\n".join(kernels) + "\n" + main + "\n", params


def _inputs(params, positive: bool, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for name, t in params:
        e = name.rsplit("_", 1)[1]
        if not t.startswith("!"):
            out.append(1.25 if e.startswith("f") else 3)
            continue
        shape = tuple(int(d) for d in t.split("[")[1].split("]")[0].split(","))
        if name.startswith("y_"):
            out.append(np.zeros(shape, NP[e]))
        elif e.startswith("f"):
            lo = 0.5 if positive else -2.0
            out.append(rng.uniform(lo, 2.0, size=shape).astype(NP[e]))
        else:
            out.append(rng.integers(-50, 50, size=shape).astype(NP[e]))
    return out


def _run(family: str, ops: list[str], bodies, variants, tmp_path: Path, scale: float = 1.0):
    text, params = program(family, ops, bodies, variants)
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    inputs = _inputs(params, any(op in POSITIVE for op in ops), seed=len(family))
    if scale != 1.0:
        inputs = [(i * scale).astype(i.dtype) if isinstance(i, np.ndarray) else i for i in inputs]
    report = simulate(module, tmp_path / family, inputs=inputs, reference_module=reference)
    assert report.reference is not None, report.note
    assert set(report.outputs) == set(report.reference) == {p for p, _ in params if p.startswith("y_")}
    for out, got in report.outputs.items():
        e = out.rsplit("_", 1)[1]
        rtol, atol = TOL[e]
        if e == "f16" and family == "col_reduce":
            atol = 1e-2  # sums of 10 f16 values in another order: a few ulps of the sum
        if family == "row_prod":
            rtol = 2e-2 if e == "f16" else 1e-4  # products of 20 (80) values in another order
        want = report.reference[out]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=out)
    return report


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_float_tile_ops_match_the_interpreter(family, tmp_path):
    _run(family, FAMILIES[family], BODIES, FLOAT_VARIANTS, tmp_path)


def test_integer_tile_ops_match_the_interpreter(tmp_path):
    _run("integer", sorted(INT_BODIES), INT_BODIES, INT_VARIANTS, tmp_path)


def test_tanh_at_its_tails(tmp_path):
    """exp(2x) overflowing (f16 beyond x = 5.6) or underflowing still gives +-1."""
    report = _run("tanh_tails", ["tanh"], BODIES, FLOAT_VARIANTS, tmp_path, scale=20.0)
    for out, got in report.outputs.items():
        assert np.all(np.isfinite(got.astype(np.float32))) and np.abs(got).max() > 0.999, out


def test_every_op_is_in_a_family():
    assert sorted(op for ops in FAMILIES.values() for op in ops) == sorted(BODIES)


ROW_BY_ROW = """
pypto.func incore @asm(%x: !pypto.tensor<[32, 32], f32>, %src: !pypto.tensor<[32, 16], f32>, %b8: !pypto.tensor<[32, 8], f32>, out %y: !pypto.tensor<[32, 32], f32>, out %z: !pypto.tensor<[32, 32], f32>) -> (!pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %f1 = arith.constant 1.5 : f32
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f32> -> !pypto.tile<[32, 32], f32, vec>
  %ts = pypto.tile.load %src[%c0, %c0] : !pypto.tensor<[32, 16], f32> -> !pypto.tile<[32, 16], f32, vec>
  %r = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %tx) -> (!pypto.tile<[32, 32], f32, vec>) {
    %row = pypto.tile.slice %ts[%i, %c0] : !pypto.tile<[32, 16], f32, vec> -> !pypto.tile<[1, 16], f32, vec>
    %n = pypto.tile.assemble %row into %acc[%i, %c8] : !pypto.tile<[1, 16], f32, vec> into !pypto.tile<[32, 32], f32, vec>
    scf.yield %n : !pypto.tile<[32, 32], f32, vec>
  }
  %wy = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[32, 32], f32, vec>, !pypto.tensor<[32, 32], f32>
  %tz = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f32> -> !pypto.tile<[32, 32], f32, vec>
  %tb = pypto.tile.load %b8[%c0, %c0] : !pypto.tensor<[32, 8], f32> -> !pypto.tile<[32, 8], f32, vec>
  %z1 = pypto.tile.assemble %tb into %tz[%c0, %c0] : !pypto.tile<[32, 8], f32, vec> into !pypto.tile<[32, 32], f32, vec>
  %z2 = pypto.tile.assemble %tb into %z1[%c0, %c24] : !pypto.tile<[32, 8], f32, vec> into !pypto.tile<[32, 32], f32, vec>
  %z3 = pypto.tile.adds %z2, %f1 : !pypto.tile<[32, 32], f32, vec>, f32
  %wz = pypto.tile.store %z3, %z[%c0, %c0] : !pypto.tile<[32, 32], f32, vec>, !pypto.tensor<[32, 32], f32>
  pypto.return %wy, %wz : !pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[32, 32], f32>, %src: !pypto.tensor<[32, 16], f32>, %b8: !pypto.tensor<[32, 8], f32>, out %y: !pypto.tensor<[32, 32], f32>, out %z: !pypto.tensor<[32, 32], f32>) -> (!pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>) {
  %r:2 = pypto.call @asm(%x, %src, %b8, %y, %z) : (!pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 16], f32>, !pypto.tensor<[32, 8], f32>, !pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>) -> (!pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>
}
"""


def test_assemble_row_by_row_into_a_carried_tile(tmp_path):
    """The reference's 05_assemble patterns: rows sliced at a run-time offset and assembled
    into a tile carried by a loop (in place, no copy per iteration), and column blocks."""
    reference = parse_program(ROW_BY_ROW)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "asm", seed=3, reference_module=reference)
    x = np.fromfile(tmp_path / "asm" / "sim-run" / "in" / "x.bin", dtype=np.float32).reshape(32, 32)
    src = np.fromfile(tmp_path / "asm" / "sim-run" / "in" / "src.bin", dtype=np.float32).reshape(32, 16)
    b8 = np.fromfile(tmp_path / "asm" / "sim-run" / "in" / "b8.bin", dtype=np.float32).reshape(32, 8)
    want_y = x.copy()
    want_y[:, 8:24] = src
    want_z = x.copy()
    want_z[:, :8] = b8
    want_z[:, 24:] = b8
    np.testing.assert_array_equal(report.outputs["y"], want_y)
    np.testing.assert_allclose(report.outputs["z"], want_z + np.float32(1.5), rtol=1e-6)
    for name in ("y", "z"):
        np.testing.assert_array_equal(report.outputs[name], report.reference[name])


def _atomic_program(e: str, r: int, c: int) -> str:
    t, ten = _tile(r, c, e), _tensor(r, c, e)
    return f"""
pypto.func incore @acc_{e}(%x: {ten}, %b: {ten}, out %y: {ten}) -> {ten} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {ten} -> {t}
  %u = pypto.tile.load %b[%c0, %c0] : {ten} -> {t}
  %y1 = pypto.tile.atomic_store %t, %y[%c0, %c0] atomic(add) : {t}, {ten}
  %y2 = pypto.tile.atomic_store %u, %y1[%c0, %c0] atomic(add) : {t}, {ten}
  pypto.return %y2 : {ten}
}}
pypto.func orchestration @main(%x: {ten}, %b: {ten}, out %y: {ten}) -> {ten} {{
  %r = pypto.call @acc_{e}(%x, %b, %y) : ({ten}, {ten}, {ten}) -> {ten}
  pypto.return %r : {ten}
}}
"""


@pytest.mark.parametrize("e, r, c", [("f32", 16, 80), ("f16", 10, 20), ("i32", 16, 80), ("i16", 10, 20)])
def test_atomic_store_adds_into_global_memory(e, r, c, tmp_path):
    """`pl.store(..., atomic=pl.AtomicType.Add)` twice into one output: SetAtomicAdd<T>()
    around each copy out, so the output holds its initial contents plus both tiles."""
    reference = parse_program(_atomic_program(e, r, c))
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    rng = np.random.default_rng(5)
    make = (lambda: rng.uniform(-2, 2, size=(r, c)).astype(NP[e])) if e.startswith("f") else (
        lambda: rng.integers(-50, 50, size=(r, c)).astype(NP[e]))
    x, b, y0 = make(), make(), make()
    report = simulate(module, tmp_path / e, inputs=[x, b, y0], reference_module=reference)
    assert report.reference is not None, report.note
    rtol, atol = TOL[e]
    want = (y0.astype(np.float64) + x + b)
    np.testing.assert_allclose(report.outputs["y"].astype(np.float64), want, rtol=rtol, atol=max(atol, 4e-3 if e == "f16" else 0))
    np.testing.assert_allclose(report.outputs["y"].astype(np.float64), report.reference["y"].astype(np.float64), rtol=rtol, atol=atol)


CAST_CASES = [(s, d, m) for s in ("f32", "f16") for d in ("i32", "i16") for m in ("rint", "round", "floor", "ceil", "trunc")]
CAST_CASES += [("f32", "f16", "rint"), ("f32", "f16", "none"), ("i32", "f32", "rint"), ("f32", "i32", "none")]


@pytest.mark.parametrize("src", ["f32", "f16", "i32"])
def test_cast_rounding_modes_match_the_interpreter(src, tmp_path):
    """`pl.cast(..., mode=)` -> `Cast(..., RoundMode::CAST_<MODE>, n)`: every mode the devkit
    has for the pair, on values with exact halves (ties) and negatives, sim vs interpreter and
    numpy's rounding."""
    cases = [c for c in CAST_CASES if c[0] == src]
    r, c = 8, 64
    ten = _tensor(r, c, src)
    t = _tile(r, c, src)
    outs = [(f"y{k}", d, m) for k, (_, d, m) in enumerate(cases)]
    sig = ", ".join([f"%x: {ten}"] + [f"out %{n}: {_tensor(r, c, d)}" for n, d, _ in outs])
    rets = ", ".join(_tensor(r, c, d) for _, d, _ in outs)
    lines = []
    for n, d, m in outs:
        lines.append(f"  %{n}_t = pypto.tile.cast %t mode \"{m}\" : {t} -> {_tile(r, c, d)}")
        lines.append(f"  %{n}_w = pypto.tile.store %{n}_t, %{n}[%c0, %c0] : {_tile(r, c, d)}, {_tensor(r, c, d)}")
    body = "\n".join(lines)
    names = ", ".join(f"%{n}" for n, _, _ in outs)
    types = ", ".join([ten] + [_tensor(r, c, d) for _, d, _ in outs])
    text = f"""
pypto.func incore @casts({sig}) -> ({rets}) {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {ten} -> {t}
{body}
  pypto.return {", ".join(f"%{n}_w" for n, _, _ in outs)} : {rets}
}}
pypto.func orchestration @main({sig}) -> ({rets}) {{
  %r:{len(outs)} = pypto.call @casts(%x, {names}) : ({types}) -> ({rets})
  pypto.return {", ".join(f"%r#{k}" for k in range(len(outs)))} : {rets}
}}
"""
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    rng = np.random.default_rng(7)
    halves = rng.integers(-40, 40, size=(r, c)) / 2.0  # exact ties in both dtypes
    noisy = rng.uniform(-20, 20, size=(r, c))
    x = np.where(rng.integers(0, 2, size=(r, c)) == 1, halves, noisy).astype(NP[src])
    inputs = [x] + [np.zeros((r, c), {"i32": np.int32, "i16": np.int16, "f16": np.float16, "f32": np.float32}[d])
                    for _, d, _ in outs]
    report = simulate(module, tmp_path / src, inputs=inputs, reference_module=reference)
    assert report.reference is not None, report.note
    xf = x.astype(np.float64)
    numpy_rounding = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "none": np.trunc,
                      "round": lambda v: np.trunc(v + np.copysign(0.5, v))}
    for n, d, m in outs:
        got, want = report.outputs[n], report.reference[n]
        np.testing.assert_array_equal(got, want, err_msg=f"{src}->{d} {m}")
        if d.startswith("i"):
            np.testing.assert_array_equal(got.astype(np.float64), numpy_rounding[m](xf), err_msg=f"{src}->{d} {m}")


DIRECTED = ("floor", "ceil", "trunc", "round", "odd")


def _directed_inputs(src: str, shape) -> np.ndarray:
    """Values every directed mode rounds differently: f32 -> f16 exact halfway points between
    neighbours (ties), values just off them, f16 subnormals, overflow past 65504, +-0, inf
    and exact values; i32 -> f32 integers past 2^24 (ties and inexact) and small exact ones."""
    rng = np.random.default_rng(11)
    n = int(np.prod(shape))
    if src == "i32":
        big = rng.integers(1 << 24, 1 << 30, size=n) * rng.choice([-1, 1], size=n)
        small = rng.integers(-1000, 1000, size=n)
        return np.where(rng.integers(0, 4, size=n) == 0, small, big).astype(np.int32).reshape(shape)
    near = rng.uniform(-100, 100, size=n).astype(np.float16).astype(np.float32)
    step = np.abs(np.spacing(near.astype(np.float16))).astype(np.float32)
    kinds = rng.integers(0, 8, size=n)
    x = np.select(
        [kinds == 0, kinds == 1, kinds == 2, kinds == 3, kinds == 4, kinds == 5],
        [near + step / 2, near - step / 3, rng.uniform(-1e-5, 1e-5, size=n), rng.uniform(-7e4, 7e4, size=n),
         near, rng.uniform(-3e-8, 3e-8, size=n)],
        rng.uniform(-1000, 1000, size=n)).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, 65520.0, -65519.0]
    return x.reshape(shape)


@pytest.mark.parametrize("src, dst, mode", [("f32", "f16", m) for m in DIRECTED] +
                         [("i32", "f32", m) for m in DIRECTED if m != "odd"])  # the devkit has no CAST_ODD for int32 -> float
def test_directed_rounding_of_a_narrowing_cast_matches_the_interpreter(src, dst, mode, tmp_path):
    """`Cast(dst, src, RoundMode::CAST_FLOOR/CEIL/TRUNC/ROUND/ODD, n)` to a float that cannot
    hold every source value: the simulation picks the neighbour the mode names, bit for bit the
    interpreter's (ties, subnormals, overflow to the largest finite value, signed zeros), on a
    tile with an odd row count."""
    r, c = 5, 16
    text = f"""
pypto.func incore @k(%x: {_tensor(r, c, src)}, out %y: {_tensor(r, c, dst)}) -> {_tensor(r, c, dst)} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {_tensor(r, c, src)} -> {_tile(r, c, src)}
  %u = pypto.tile.cast %t mode "{mode}" : {_tile(r, c, src)} -> {_tile(r, c, dst)}
  %w = pypto.tile.store %u, %y[%c0, %c0] : {_tile(r, c, dst)}, {_tensor(r, c, dst)}
  pypto.return %w : {_tensor(r, c, dst)}
}}
pypto.func orchestration @main(%x: {_tensor(r, c, src)}, out %y: {_tensor(r, c, dst)}) -> {_tensor(r, c, dst)} {{
  %r = pypto.call @k(%x, %y) : ({_tensor(r, c, src)}, {_tensor(r, c, dst)}) -> {_tensor(r, c, dst)}
  pypto.return %r : {_tensor(r, c, dst)}
}}"""
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    x = _directed_inputs(src, (r, c))
    report = simulate(module, tmp_path / mode, inputs=[x, np.zeros((r, c), NP[dst])], reference_module=reference)
    assert report.reference is not None, report.note
    got, want = report.outputs["y"], report.reference["y"]
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"), err_msg=mode)
    exact = x.astype(np.float64)
    finite = np.isfinite(exact) & np.isfinite(got.astype(np.float64))
    if mode == "floor":
        assert (got.astype(np.float64)[finite] <= exact[finite]).all()
    elif mode == "ceil":
        assert (got.astype(np.float64)[finite] >= exact[finite]).all()
    elif mode == "trunc":
        assert (np.abs(got.astype(np.float64)[finite]) <= np.abs(exact[finite])).all()
    assert (got.astype(np.float64) != exact).any(), "the inputs exercise no rounding"


def test_cast_modes_the_backend_refuses():
    """A pair Cast lacks is refused naming the pair."""
    from pypto_xdsl.analysis.cxx_names import BackendError

    for mode, pair, message in [("rint", ("i32", "f16"), "Ascend C Cast from int32_t to half does not exist")]:
        s, d = pair
        text = f"""
pypto.func incore @k(%x: {_tensor(8, 64, s)}, out %y: {_tensor(8, 64, d)}) -> {_tensor(8, 64, d)} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {_tensor(8, 64, s)} -> {_tile(8, 64, s)}
  %u = pypto.tile.cast %t mode "{mode}" : {_tile(8, 64, s)} -> {_tile(8, 64, d)}
  %w = pypto.tile.store %u, %y[%c0, %c0] : {_tile(8, 64, d)}, {_tensor(8, 64, d)}
  pypto.return %w : {_tensor(8, 64, d)}
}}"""
        from pypto_xdsl.transforms.ascendc_kernel_lowering import lower_kernel

        func = next(op for op in parse_program(text).body.block.ops)
        with pytest.raises(BackendError, match=message):
            lower_kernel(func)  # type: ignore[arg-type]


GM_ELEMENTS = """
pypto.func incore @k(%cfg: !pypto.tensor<[4], i32>, %x: !pypto.tensor<[R, C], ELT>, out %y: !pypto.tensor<[R, C], ELT>, out %st: !pypto.tensor<[2], ELT>) -> (!pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = pypto.tensor.read %cfg[%c2] : !pypto.tensor<[4], i32>
  %nf = arith.sitofp %n : i32 to ELT
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[R, C], ELT> -> !pypto.tile<[R, C], ELT, vec>
  %s = pypto.tile.muls %t, %nf : !pypto.tile<[R, C], ELT, vec>, ELT
  %o = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[R, C], ELT, vec>, !pypto.tensor<[R, C], ELT>
  %back = pypto.tensor.read %o[%c1, %c2] : !pypto.tensor<[R, C], ELT>
  %w = pypto.tensor.write %back into %st[%c1] : ELT into !pypto.tensor<[2], ELT>
  %w2 = pypto.tensor.write %nf into %w[%c0] : ELT into !pypto.tensor<[2], ELT>
  pypto.return %o, %w2 : !pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>
}
pypto.func orchestration @main(%cfg: !pypto.tensor<[4], i32>, %x: !pypto.tensor<[R, C], ELT>, out %y: !pypto.tensor<[R, C], ELT>, out %st: !pypto.tensor<[2], ELT>) -> (!pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>) {
  %r:2 = pypto.call @k(%cfg, %x, %y, %st) : (!pypto.tensor<[4], i32>, !pypto.tensor<[R, C], ELT>, !pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>) -> (!pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[R, C], ELT>, !pypto.tensor<[2], ELT>
}
"""


@pytest.mark.parametrize("e, r, c", [("f32", 16, 64), ("f16", 10, 20)])
def test_tensor_read_and_write_inside_a_kernel(e, r, c, tmp_path):
    """`tensor.read` of a config tensor and of an element the kernel stored, `tensor.write` of
    two scalars: GlobalTensor GetValue/SetValue (with the cache line written back)."""
    text = GM_ELEMENTS.replace("[R, C]", f"[{r}, {c}]").replace("ELT", e)
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    rng = np.random.default_rng(2)
    cfg = np.array([7, 1, 3, 9], np.int32)
    x = rng.uniform(-2, 2, size=(r, c)).astype(NP[e])
    report = simulate(module, tmp_path / e, inputs=[cfg, x, np.zeros((r, c), NP[e]), np.zeros(2, NP[e])],
                      reference_module=reference)
    assert report.reference is not None, report.note
    for name in ("y", "st"):
        np.testing.assert_array_equal(report.outputs[name], report.reference[name], err_msg=name)
    np.testing.assert_allclose(report.outputs["st"].astype(np.float64), [3.0, 3 * x[1, 2].astype(np.float64)], rtol=1e-3)


RESHAPES = (Path(__file__).parent / "filecheck" / "backend" / "tensor_reshape.mlir").read_text()


@pytest.mark.parametrize("e", ["f32", "f16", "i32"])
def test_tensor_reshape_inside_a_kernel(e, tmp_path):
    """Windows of a reshaped parameter (loaded) and a reshaped output (stored), in every
    element type the copies take."""
    text = RESHAPES.replace("f32", e)
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / e, seed=4, reference_module=reference)
    assert report.reference is not None, report.note
    np.testing.assert_array_equal(report.outputs["y"], report.reference["y"])


@pytest.mark.parametrize("e, r, c, op", [("f16", 32, 48, "transpose"), ("f16", 16, 16, "transpose_view"),
                                         ("i16", 16, 64, "transpose"), ("f16", 48, 16, "transpose_view")])
def test_vector_transpose_of_16_by_16_blocks(e, r, c, op, tmp_path):
    """2-byte tiles whose extents are multiples of 16 transpose on the vector unit: Ascend C's
    Transpose per 16 x 16 block (a [16, 16] tile directly; otherwise each block gathered into a
    scratch and scattered back with level-0 Muls by 1), not element by element."""
    t, tt = _tile(r, c, e), _tile(c, r, e)
    body = (f"%r = pypto.tile.transpose %t, 0, 1 : {t} -> {tt}" if op == "transpose"
            else f"%r = pypto.tile.transpose_view %t : {t} -> {tt}")
    text = f"""
pypto.func incore @k(%x: {_tensor(r, c, e)}, out %y: {_tensor(c, r, e)}) -> {_tensor(c, r, e)} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {_tensor(r, c, e)} -> {t}
  {body}
  %w = pypto.tile.store %r, %y[%c0, %c0] : {tt}, {_tensor(c, r, e)}
  pypto.return %w : {_tensor(c, r, e)}
}}
pypto.func orchestration @main(%x: {_tensor(r, c, e)}, out %y: {_tensor(c, r, e)}) -> {_tensor(c, r, e)} {{
  %o = pypto.call @k(%x, %y) : ({_tensor(r, c, e)}, {_tensor(c, r, e)}) -> {_tensor(c, r, e)}
  pypto.return %o : {_tensor(c, r, e)}
}}"""
    from pypto_xdsl.runtime.passes import emit_ascendc

    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    cpp = emit_ascendc(module.clone()).files["kernels/k.cpp"]
    assert cpp.count("Transpose(") == (r // 16) * (c // 16), cpp
    assert "GetValue" not in cpp and "SetValue" not in cpp
    report = simulate(module, tmp_path / f"{e}{r}x{c}", seed=9, reference_module=reference)
    assert report.reference is not None, report.note
    np.testing.assert_array_equal(report.outputs["y"], report.reference["y"])
