"""SPMD incore scopes: `pypto.incore_scope attributes {pypto.block_dim = N}` (and the
frontend's `for i in pl.spmd(N)`) run their body once per core, each core picking its share
of the work with `pypto.tile.get_block_idx`.

The interpreter runs the scope per block; outlining moves the block count onto the launch;
convert-tensor-to-tile does not split the rows of a body that already picks its rows by block
index; and the whole chain gives the interpreter's result in the Ascend C simulation.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.program import BLOCK_DIM_ATTR, CallOp, FuncOp, IncoreScopeOp, SubmitOp
from pypto_xdsl.interpreter.api import random_inputs, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

A = "!pypto.tensor<[64, 32], f32>"
T = pl.Tensor[[64, 32], pl.FP32]
W = "!pypto.tensor<[16, 32], f32>"


def spmd_program(blocks: int = 4, submit: bool = False) -> str:
    """Block b computes exp(a) * k on rows [16 b, 16 b + 16) of the output."""
    results, task = ("%r, %t", " task_id") if submit else ("%r", "")
    return f"""
pypto.func @main(%k: f32, %a: {A}, out %o: {A}) -> {A} {{
  {results} = pypto.incore_scope name("rows") -> ({A}){task} attributes {{pypto.block_dim = {blocks} : i64}} {{
    %i = pypto.tile.get_block_idx : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %row = arith.muli %i, %c16 : index
    %x = pypto.tensor.slice %a[%row, %c0] : {A} -> {W}
    %e = pypto.tensor.exp %x : {W}
    %d = pypto.tensor.muls %e, %k : {W}, f32
    %w = pypto.tensor.assemble %d into %o[%row, %c0] : {W} into {A}
    pypto.yield %w : {A}
  }}
  pypto.return %r : {A}
}}
"""


def expected(inputs) -> np.ndarray:
    k, a, _ = inputs
    return np.exp(a) * np.float32(k)


def test_the_interpreter_runs_an_spmd_scope_once_per_block():
    module = parse_program(spmd_program())
    inputs = random_inputs(module, "main", seed=1)
    run(module, "main", inputs)
    np.testing.assert_allclose(inputs[2], expected(inputs), rtol=1e-6)


def test_fewer_blocks_leave_the_other_rows_untouched():
    module = parse_program(spmd_program(blocks=3))
    inputs = random_inputs(module, "main", seed=2)
    inputs[2][:] = np.nan
    run(module, "main", inputs)
    np.testing.assert_allclose(inputs[2][:48], expected(inputs)[:48], rtol=1e-6)
    assert np.isnan(inputs[2][48:]).all()


def test_block_dim_of_a_scope_is_verified():
    with pytest.raises(VerifyException, match="'pypto.block_dim' must be a positive integer"):
        parse_program(spmd_program(blocks=0))


@pytest.mark.parametrize("launch", ["call", "submit"])
def test_outlining_puts_the_block_count_on_the_launch(launch):
    module = parse_program(spmd_program(submit=launch == "submit"))
    apply_pipeline(module, "outline-incore-scopes")
    (launch_op,) = [o for o in module.walk() if isinstance(o, CallOp | SubmitOp)]
    assert isinstance(launch_op, SubmitOp if launch == "submit" else CallOp)
    assert launch_op.attributes[BLOCK_DIM_ATTR].value.data == 4
    kernel = next(f for f in module.walk() if isinstance(f, FuncOp) and f.sym_name.data == "rows")
    assert BLOCK_DIM_ATTR not in kernel.attributes


def test_the_default_pipeline_keeps_the_meaning_of_an_spmd_scope():
    before = parse_program(spmd_program())
    after = parse_program(spmd_program())
    apply_pipeline(after, "pypto-default")
    kernel = next(f for f in after.walk() if isinstance(f, FuncOp) and f.sym_name.data == "rows")
    # the kernel's rows are picked by the body's own block index, not split again
    assert len([o for o in kernel.walk() if isinstance(o, tile.GetBlockIdxOp)]) == 1
    assert [o for o in kernel.walk() if isinstance(o, tile.GetBlockNumOp)] == []
    assert_same_semantics(before, after, "main", seeds=(0, 1))


@needs_gxx
def test_an_spmd_scope_runs_in_the_simulation(tmp_path):
    from pypto_xdsl.tools.pypto_compile import simulate

    reference = parse_program(spmd_program())
    module = parse_program(spmd_program())
    apply_pipeline(module, "pypto-default")
    report = simulate(module, tmp_path / "spmd", seed=3, reference_module=reference)
    assert report.reference is not None, report.note
    np.testing.assert_allclose(report.outputs["o"], report.reference["o"], rtol=1e-5, atol=1e-6)
    run_in = tmp_path / "spmd" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float32).reshape(64, 32)
    k = np.fromfile(run_in / "k.bin", dtype=np.float32)[0]
    np.testing.assert_allclose(report.outputs["o"], np.exp(a) * k, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- frontend: pl.spmd


def test_for_form_pl_spmd_builds_an_spmd_scope_and_keeps_its_meaning():
    @pl.program
    class Rows:
        @pl.function
        def main(
            self, k: pl.Scalar[pl.FP32], a: T, o: pl.Out[T]
        ) -> T:
            for i in pl.spmd(4, name_hint="rows"):
                x = a[i * 16 : (i + 1) * 16]
                o[i * 16 : (i + 1) * 16] = pl.exp(x) * k
            return o

    (scope,) = [op for op in Rows.module.walk() if isinstance(op, IncoreScopeOp)]
    assert scope.attributes[BLOCK_DIM_ATTR].value.data == 4 and scope.name_hint.data == "rows"
    first = scope.body.block.first_op
    assert isinstance(first, tile.GetBlockIdxOp) and first.result.name_hint == "i"
    inputs = random_inputs(Rows.module, "main", seed=4)
    run(Rows.module, "main", inputs)
    np.testing.assert_allclose(inputs[2], expected(inputs), rtol=1e-6)
    after = parse_program(str(Rows.module))
    apply_pipeline(after, "pypto-default")
    assert_same_semantics(Rows.module, after, "main", seeds=(0,))


def test_with_form_pl_spmd_takes_deps_and_gives_a_task_id():
    @pl.program
    class Two:
        @pl.function
        def main(self, a: T, o: pl.Out[T], p: pl.Out[T]) -> T:
            with pl.spmd(2, name_hint="first") as t0:
                b = pl.get_block_idx()
                o[b * 32 : b * 32 + 32] = pl.exp(a[b * 32 : b * 32 + 32])
            with pl.spmd(4, deps=[t0]):
                c = pl.get_block_idx()
                p[c * 16 : c * 16 + 16] = o[c * 16 : c * 16 + 16] + 1.0
            return p

    first, second = [op for op in Two.module.walk() if isinstance(op, IncoreScopeOp)]
    assert first.task_id is not None and first.task_id.name_hint == "t0"
    assert list(second.deps) == [first.task_id]
    assert [s.attributes[BLOCK_DIM_ATTR].value.data for s in (first, second)] == [2, 4]
    inputs = random_inputs(Two.module, "main", seed=5)
    run(Two.module, "main", inputs)
    np.testing.assert_allclose(inputs[2], np.exp(inputs[0]) + 1.0, rtol=1e-6)
    after = parse_program(str(Two.module))
    apply_pipeline(after, "pypto-default")
    assert [o.attributes[BLOCK_DIM_ATTR].value.data for o in after.walk() if isinstance(o, SubmitOp)] == [2, 4]
    assert_same_semantics(Two.module, after, "main", seeds=(0,))


# --------------------------------------------------------------------------- pl.spmd around a kernel call


@pl.program
class ExpRows:
    """Block b of `scale` writes exp(a) on rows [16 b, 16 b + 16) of `o`."""

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: T, o: pl.Out[T]) -> T:
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i * 16, 0], [16, 32])
        o = pl.store(pl.exp(t), [i * 16, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, o: pl.Out[T]) -> T:
        with pl.spmd(core_num=4, sync_start=True):
            o = self.scale(a, o)
        return o



@pl.program
class ExpPlusOne:
    """`scale` on 4 blocks, then `plus_one` on a core count read at run time, after it."""

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: T, o: pl.Out[T]) -> T:
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i * 16, 0], [16, 32])
        o = pl.store(pl.exp(t), [i * 16, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def plus_one(self, a: T, o: pl.Out[T]) -> T:
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i * 32, 0], [32, 32])
        o = pl.store(pl.add(t, 1.0), [i * 32, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def chained(self, a: T, o: pl.Out[T], p: pl.Out[T]) -> T:
        with pl.spmd(4) as t0:
            o = self.scale(a, o)
        blocks = pl.tensor.dim(a, 0) // 32
        with pl.spmd(blocks, deps=[t0]):
            p = self.plus_one(o, p)
        return p


def test_pl_spmd_around_one_kernel_call_launches_that_kernel():
    main = next(op for op in ExpRows.module.walk() if isinstance(op, FuncOp) and op.sym_name.data == "main")
    assert not [op for op in main.walk() if isinstance(op, IncoreScopeOp)]
    (call,) = [op for op in main.walk() if isinstance(op, CallOp)]
    assert call.callee.string_value() == "scale" and call.attributes[BLOCK_DIM_ATTR].value.data == 4
    inputs = random_inputs(ExpRows.module, "main", seed=6)
    run(ExpRows.module, "main", inputs)
    np.testing.assert_allclose(inputs[1], np.exp(inputs[0]), rtol=1e-6)


def test_a_kernel_call_under_pl_spmd_with_a_task_id_or_deps_is_a_submit():
    chained = next(op for op in ExpPlusOne.module.walk() if isinstance(op, FuncOp) and op.sym_name.data == "chained")
    assert not [op for op in chained.walk() if isinstance(op, IncoreScopeOp)]
    first, second = [op for op in chained.walk() if isinstance(op, SubmitOp)]
    assert first.attributes[BLOCK_DIM_ATTR].value.data == 4 and first.task_id.name_hint == "t0"
    assert list(second.deps) == [first.task_id] and len(second.cores) == 1 and BLOCK_DIM_ATTR not in second.attributes
    inputs = random_inputs(ExpPlusOne.module, "chained", seed=7)
    run(ExpPlusOne.module, "chained", inputs)
    np.testing.assert_allclose(inputs[2], np.exp(inputs[0]) + 1.0, rtol=1e-6)
    after = parse_program(str(ExpPlusOne.module))
    apply_pipeline(after, "pypto-default")
    assert_same_semantics(ExpPlusOne.module, after, "chained", seeds=(0,))


@needs_gxx
def test_a_kernel_launched_by_pl_spmd_runs_on_four_blocks_in_the_simulation(tmp_path):
    from pypto_xdsl.tools.pypto_compile import simulate

    module = parse_program(str(ExpRows.module))
    apply_pipeline(module, "pypto-default")
    report = simulate(module, tmp_path / "spmd_call", seed=8, reference_module=ExpRows.module)
    assert report.reference is not None, report.note
    np.testing.assert_allclose(report.outputs["o"], report.reference["o"], rtol=1e-5, atol=1e-6)
    host = (tmp_path / "spmd_call" / "host" / "main_orch.cpp").read_text()
    assert "ACLRT_LAUNCH_KERNEL(scale)(4, stream" in host
