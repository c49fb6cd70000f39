"""convert-tensor-to-tile on the tensor ops of the broadcast/layout set: every op converts
(or is left with a reason), fuses with its row-wise neighbours, and means the same before
and after (reference interpreter), blocks with a tail included."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter import assert_same_semantics
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program


def T(shape, dtype="f32") -> str:
    return f"!pypto.tensor<[{', '.join(map(str, shape))}], {dtype}>"


def program(params: list[tuple[str, str, str]], body: str, result: tuple[str, str], kind: str = "incore") -> str:
    """`@k` (of `kind`) with `body` returning `result`, and an orchestration `@main` calling it."""
    sig = ", ".join(f"{d + ' ' if d != 'in' else ''}%{n}: {t}" for d, n, t in params)
    types = ", ".join(t for _, _, t in params)
    args = ", ".join(f"%{n}" for _, n, _ in params)
    name, rtype = result
    return f"""
pypto.func {kind} @k({sig}) -> {rtype} {{
{body}
  pypto.return %{name} : {rtype}
}}
pypto.func orchestration @main({sig}) -> {rtype} {{
  %r = pypto.call @k({args}) : ({types}) -> {rtype}
  pypto.return %r : {rtype}
}}
"""


def convert(text: str, pipeline: str) -> tuple[ModuleOp, ModuleOp]:
    before, after = parse_program(text), parse_program(text)
    apply_pipeline(after, pipeline)
    after.verify()
    return before, after


def kernel(module: ModuleOp) -> FuncOp:
    return next(f for f in module.walk() if isinstance(f, FuncOp) and f.sym_name.data == "k")


def tensor_compute_left(func: FuncOp) -> list[str]:
    kept = ("pypto.tensor.create", "pypto.tensor.slice", "pypto.tensor.dim", "pypto.tensor.reshape")
    return [o.name for o in func.walk() if o.name.startswith("pypto.tensor.") and o.name not in kept]


ROWS = [21, 64]  # 21 rows: blocks with a tail under a small UB
SMALL_UB = "convert-tensor-to-tile{ub-bytes=8192}"


def single(op: str, operands: str, types: str, extra_params=(), dtype: str = "f32") -> str:
    return program(
        [("in", "a", T(ROWS, dtype)), *extra_params, ("out", "o", T(ROWS, dtype))],
        f"""  %c0 = arith.constant 0 : index
  %x = pypto.tensor.{op} {operands} : {types}
  %w = pypto.tensor.assemble %x into %o[%c0, %c0] : {T(ROWS, dtype)} into {T(ROWS, dtype)}""",
        ("w", T(ROWS, dtype)),
    )


@pytest.mark.parametrize("op", ["rsqrt", "tanh", "sin", "cos"])
def test_new_unary_ops_convert(op):
    before, after = convert(single(op, "%a", T(ROWS)), SMALL_UB)
    k = kernel(after)
    assert tensor_compute_left(k) == []
    assert any(o.name == f"pypto.tile.{op}" for o in k.walk())
    assert any(isinstance(o, scf.ForOp) for o in k.walk())  # several blocks
    assert_same_semantics(before, after, "main", seeds=(0, 1))


@pytest.mark.parametrize("op", ["maximums", "minimums", "expands"])
def test_scalar_forms_convert(op):
    before, after = convert(single(op, "%a, %s", f"{T(ROWS)}, f32", [("in", "s", "f32")]), SMALL_UB)
    k = kernel(after)
    assert tensor_compute_left(k) == []
    if op == "expands":  # only the target's shape counts: nothing loaded, a fill per block
        assert not any(isinstance(o, tile.LoadOp) for o in k.walk())
        assert any(isinstance(o, tile.FullOp) for o in k.walk())
    assert_same_semantics(before, after, "main", seeds=(0, 1))


@pytest.mark.parametrize("op", ["row_min", "row_prod"])
def test_new_row_reductions_fuse_with_a_broadcast(op):
    text = program(
        [("in", "a", T(ROWS)), ("out", "o", T(ROWS))],
        f"""  %c0 = arith.constant 0 : index
  %r = pypto.tensor.{op} %a : {T(ROWS)}
  %x = pypto.tensor.row_expand_sub %a, %r : {T(ROWS)}, {T([ROWS[0], 1])}
  %w = pypto.tensor.assemble %x into %o[%c0, %c0] : {T(ROWS)} into {T(ROWS)}""",
        ("w", T(ROWS)),
    )
    before, after = convert(text, SMALL_UB)
    k = kernel(after)
    assert tensor_compute_left(k) == []
    assert len([o for o in k.walk() if isinstance(o, scf.ForOp)]) == 1  # one fused loop
    assert_same_semantics(before, after, "main", seeds=(0, 1))


@pytest.mark.parametrize("op", ["row_expand", "row_expand_add", "row_expand_max", "row_expand_min", "row_expand_expdif"])
def test_new_row_broadcasts_convert(op):
    text = single(op, "%a, %v", f"{T(ROWS)}, {T([ROWS[0], 1])}", [("in", "v", T([ROWS[0], 1]))])
    before, after = convert(text, SMALL_UB)
    assert tensor_compute_left(kernel(after)) == []
    assert_same_semantics(before, after, "main", seeds=(0, 1))


COL_OPS = ["col_expand", "col_expand_mul", "col_expand_div", "col_expand_sub", "col_expand_add",
           "col_expand_max", "col_expand_min", "col_expand_expdif"]


@pytest.mark.parametrize("op", COL_OPS)
def test_column_broadcasts_load_the_vector_once_before_the_loop(op):
    text = single(op, "%a, %v", f"{T(ROWS)}, {T([1, ROWS[1]])}", [("in", "v", T([1, ROWS[1]]))])
    before, after = convert(text, SMALL_UB)
    k = kernel(after)
    assert tensor_compute_left(k) == []
    loads = [o for o in k.walk() if isinstance(o, tile.LoadOp)]
    (vector_load,) = [o for o in loads if o.source is k.body.block.args[1]]
    assert vector_load.parent_op() is k  # hoisted: not inside the loop or the tail block
    assert vector_load.result.type.get_shape() == (1, ROWS[1])
    assert_same_semantics(before, after, "main", seeds=(0, 1))


def test_concat_fuses_row_wise():
    text = program(
        [("in", "a", T(ROWS)), ("in", "b", T([ROWS[0], 32])), ("out", "o", T([ROWS[0], 96]))],
        f"""  %c0 = arith.constant 0 : index
  %e = pypto.tensor.exp %b : {T([ROWS[0], 32])}
  %c = pypto.tensor.concat %a, %e : {T(ROWS)}, {T([ROWS[0], 32])}
  %n = pypto.tensor.neg %c : {T([ROWS[0], 96])}
  %w = pypto.tensor.assemble %n into %o[%c0, %c0] : {T([ROWS[0], 96])} into {T([ROWS[0], 96])}""",
        ("w", T([ROWS[0], 96])),
    )
    before, after = convert(text, SMALL_UB)
    k = kernel(after)
    assert tensor_compute_left(k) == []
    assert len([o for o in k.walk() if isinstance(o, scf.ForOp)]) == 1
    assert_same_semantics(before, after, "main", seeds=(0, 1))


def test_full_is_a_fill_per_block():
    text = program(
        [("in", "a", T(ROWS)), ("in", "s", "f32"), ("out", "o", T(ROWS))],
        f"""  %c0 = arith.constant 0 : index
  %f = pypto.tensor.full %s : f32 -> {T(ROWS)}
  %x = pypto.tensor.add %a, %f : {T(ROWS)}
  %w = pypto.tensor.assemble %x into %o[%c0, %c0] : {T(ROWS)} into {T(ROWS)}""",
        ("w", T(ROWS)),
    )
    before, after = convert(text, SMALL_UB)
    assert tensor_compute_left(kernel(after)) == []
    assert_same_semantics(before, after, "main", seeds=(0, 1))


# --------------------------------------------------------------------------- the kernels


def layernorm(rows: int, cols: int, dtype: str = "f32") -> str:
    X, R, V = T([rows, cols], dtype), T([rows, 1], dtype), T([1, cols], dtype)
    return program(
        [("in", "x", X), ("in", "gamma", V), ("in", "beta", V), ("out", "y", X)],
        f"""  %c0 = arith.constant 0 : index
  %inv_n = arith.constant {1.0 / cols} : {dtype}
  %eps = arith.constant 1.0e-05 : {dtype}
  %s = pypto.tensor.row_sum %x : {X}
  %mean = pypto.tensor.muls %s, %inv_n : {R}, {dtype}
  %d = pypto.tensor.row_expand_sub %x, %mean : {X}, {R}
  %sq = pypto.tensor.mul %d, %d : {X}
  %vs = pypto.tensor.row_sum %sq : {X}
  %var = pypto.tensor.muls %vs, %inv_n : {R}, {dtype}
  %ve = pypto.tensor.adds %var, %eps : {R}, {dtype}
  %rstd = pypto.tensor.rsqrt %ve : {R}
  %n = pypto.tensor.row_expand_mul %d, %rstd : {X}, {R}
  %g = pypto.tensor.col_expand_mul %n, %gamma : {X}, {V}
  %o = pypto.tensor.col_expand_add %g, %beta : {X}, {V}
  %y2 = pypto.tensor.assemble %o into %y[%c0, %c0] : {X} into {X}""",
        ("y2", X),
    )


@pytest.mark.parametrize("rows,cols,dtype,ub", [(21, 64, "f32", 8192), (13, 200, "f32", 32768), (16, 128, "f16", 8192)])
def test_layernorm_is_one_loop_and_keeps_its_meaning(rows, cols, dtype, ub):
    before, after = convert(layernorm(rows, cols, dtype), f"convert-tensor-to-tile{{ub-bytes={ub}}}")
    k = kernel(after)
    assert tensor_compute_left(k) == []
    assert len([o for o in k.walk() if isinstance(o, scf.ForOp)]) == 1
    assert_same_semantics(before, after, "main", seeds=(0, 1), rtol=2e-2 if dtype == "f16" else 1e-5)


def test_column_vector_read_from_the_destination_is_read_before_any_store():
    """The bias row is row 0 of the tensor the group writes: loaded once before the loop,
    it is the value before the write (as the tensor program reads it), whatever the blocks."""
    X, V = T([24, 64]), T([1, 64])
    text = program(
        [("in", "x", X), ("inout", "o", X)],
        f"""  %c0 = arith.constant 0 : index
  %bias = pypto.tensor.slice %o[%c0, %c0] : {X} -> {V}
  %b = pypto.tensor.col_expand_add %x, %bias : {X}, {V}
  %w = pypto.tensor.assemble %b into %o[%c0, %c0] : {X} into {X}""",
        ("w", X),
    )
    before, after = convert(text, "convert-tensor-to-tile{ub-bytes=4096}")
    assert tensor_compute_left(kernel(after)) == []
    assert_same_semantics(before, after, "main", seeds=(0, 1, 2))


@pytest.mark.parametrize("fused", [True, False])
def test_atomic_assembles_become_atomic_stores(fused):
    X = T(ROWS)
    body = (f"  %e = pypto.tensor.exp %a : {X}\n  %w = pypto.tensor.assemble %e into %o[%c0, %c0] atomic(add) : {X} into {X}"
            if fused else f"  %w = pypto.tensor.assemble %a into %o[%c0, %c0] atomic(add) : {X} into {X}")
    text = program([("in", "a", X), ("inout", "o", X)], "  %c0 = arith.constant 0 : index\n" + body, ("w", X))
    before, after = convert(text, SMALL_UB)
    k = kernel(after)
    assert not [o for o in k.walk() if isinstance(o, tile.StoreOp)]
    assert [o for o in k.walk() if isinstance(o, tile.AtomicStoreOp)]
    assert_same_semantics(before, after, "main", seeds=(0, 1))


def test_rmsnorm_through_the_default_pipeline():
    """pypto-default: a scope with a tensor-level rmsnorm is outlined and converted."""
    X, R, W = T([40, 256]), T([40, 1]), T([1, 256])
    text = f"""
pypto.func @main(%x: {X}, %w: {W}, out %y: {X}) -> {X} {{
  %r = pypto.incore_scope -> ({X}) {{
    %c0 = arith.constant 0 : index
    %inv_n = arith.constant 3.906250e-03 : f32
    %eps = arith.constant 1.0e-06 : f32
    %sq = pypto.tensor.mul %x, %x : {X}
    %ss = pypto.tensor.row_sum %sq : {X}
    %ms = pypto.tensor.muls %ss, %inv_n : {R}, f32
    %me = pypto.tensor.adds %ms, %eps : {R}, f32
    %rs = pypto.tensor.rsqrt %me : {R}
    %n = pypto.tensor.row_expand_mul %x, %rs : {X}, {R}
    %o = pypto.tensor.col_expand_mul %n, %w : {X}, {W}
    %y2 = pypto.tensor.assemble %o into %y[%c0, %c0] : {X} into {X}
    pypto.yield %y2 : {X}
  }}
  pypto.return %r : {X}
}}
"""
    before, after = convert(text, "pypto-default")
    for f in after.walk():
        if isinstance(f, FuncOp) and f.is_incore:
            assert tensor_compute_left(f) == []
    assert_same_semantics(before, after, "main", seeds=(0, 1))


# ---------------------------------------------------------------- UB sizing of op scratch

SCRATCH_SIZED = {
    # Sin/Cos: the backend's sharedTmpBuffer covers the block (16 bytes an element, up to 16 KiB)
    "sin": ((24, 1000), "%y = pypto.tensor.sin %x : {X}", (24, 1000)),
    "cos_f16": ((46, 1000), "%y = pypto.tensor.cos %x : {X}", (46, 1000)),
    # row_prod: 256 bytes of partial products per row even when a row is one 256-byte repeat
    "row_prod": ((510, 64), "%y = pypto.tensor.row_prod %x : {X} -> {Y}", (510, 1)),
}


def _scratch_program(name: str) -> str:
    xs, body, ys = SCRATCH_SIZED[name]
    e = "f16" if name.endswith("_f16") else "f32"
    x, y = T(xs, e), T(ys, e)
    c0 = "  %c0 = arith.constant 0 : index\n"
    assemble = f"  %r = pypto.tensor.assemble %y into %o[%c0, %c0] : {y} into {y}"
    return program([("in", "x", x), ("out", "o", y)], c0 + "  " + body.format(X=x, Y=y) + "\n" + assemble, ("r", y))


@pytest.mark.parametrize("name", sorted(SCRATCH_SIZED))
def test_op_scratch_is_counted_in_the_tile_size(name):
    """convert-tensor-to-tile counts the scratch the backend plans for sin/cos and row_prod:
    the blocks it picks keep the backend's queues double-buffered (without the scratch, the
    block filled the UB, and ascendc-plan-buffers fell back to single-buffered queues), and
    sized for single-buffered queues they still fit the UB (without it: an overflow)."""
    from pypto_xdsl.runtime.passes import emit_ascendc
    from pypto_xdsl.transforms.pipelines import DEFAULT_PIPELINE

    module = parse_program(_scratch_program(name))
    apply_pipeline(module, "pypto-default")
    cpp = emit_ascendc(module).files["kernels/k.cpp"]
    assert "InitBuffer(inQ_x_tile, 2," in cpp and "InitBuffer(outQ_y_tile, 2," in cpp, cpp
    assert "for (int64_t row = 0;" in cpp, "the test needs a loop over blocks to double-buffer"

    single = parse_program(_scratch_program(name))
    stages = ",".join("convert-tensor-to-tile{double-buffer=false}" if s == "convert-tensor-to-tile" else s
                      for s in DEFAULT_PIPELINE)
    apply_pipeline(single, stages)
    emit_ascendc(single)  # no "its tiles need ... bytes of Unified Buffer" error
