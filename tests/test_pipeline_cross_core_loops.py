"""pipeline-cross-core-loops keeps the meaning of a group: the twelve mixed programs of
test_mixed_kernels.py compute bit for bit what they computed before the rotation (by one
iteration and by the default depth), after lower-cross-core-rings (and flash attention with
its rings too); flash attention's and the FFN's loops are the ones rotated, with the values
and ring depths the rotation needs (one iteration ahead, and three: prologue and epilogue
loops, α in a shift register); a loop is rotated by at most its trip count - 1; a plan that
would pair a pop with another push is refused. (The rotated MIX kernels run on the simulation against the
interpreter in tests/test_mix_kernels_sim.py: the backend's group lowering runs this pass.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf

from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.cross_core import TRANSFER_TYPES, Pipe, group_members
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import parse_module, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.transforms.lower_cross_core_rings import lower_rings
from pypto_xdsl.transforms.pipeline_cross_core_loops import (
    DEFAULT_DEPTH,
    Rotation,
    check_plan,
    pipeline_cross_core_loops,
)
from tests.test_mixed_kernels import CASES, _apply, _case

ROTATED = {"linear_gelu": [], "attention": ["attention"], "ffn_silu": ["ffn"], "ffn_gelu": ["ffn"]}


def _split(workload, shape, dtype):
    program, *_ = _case(workload, shape, dtype)
    return _apply(program.fresh_module(), "pypto-default", "hoist-cube-loads")


@pytest.mark.parametrize("depth", sorted({1, DEFAULT_DEPTH}))
@pytest.mark.parametrize("workload, shape, dtype", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_rotated_groups_compute_what_they_computed(workload, shape, dtype, depth):
    split = _split(workload, shape, dtype)
    rotated = split.clone()
    assert pipeline_cross_core_loops(rotated, depth) == ROTATED[workload]
    rotated.verify()
    if not ROTATED[workload]:  # matmul + bias + gelu has no loop
        assert str(rotated) == str(split)
        return
    if workload == "attention" and dtype == "f16":  # the rotated rings themselves, once per shape
        assert_same_semantics(split, rotated, "main", seeds=(0,), rtol=0, atol=0, matmul_tolerance=False)
    assert lower_rings(rotated) == []  # the rotated rings, with their new depths, in GM
    rotated.verify()
    assert_same_semantics(split, rotated, "main", seeds=(0,), rtol=0, atol=0, matmul_tolerance=False)


def _members(module):
    group = next(f for f in func_ops(module) if f.func_kind == FuncKind.GROUP)
    return group, *group_members(group)


def _loops(func):
    return [op for op in func.walk() if isinstance(op, scf.ForOp) and any(isinstance(o, TRANSFER_TYPES) for o in op.walk())]


def _slots(module):
    return {op.pipe_kind: op.slot_count for op in module.walk() if isinstance(op, TRANSFER_TYPES)}


def test_flash_attention_rotates_both_loops_and_carries_alpha():
    module = _split("attention", (256, 64), "f16")  # 4 query blocks, 4 key blocks
    pipeline_cross_core_loops(module, depth=1)
    _, aic, aiv = _members(module)
    (aic_loop,) = [lp for lp in _loops(aic) if lp.parent_op() is not aic]  # the key loop inside the query loop
    (aiv_loop,) = [lp for lp in _loops(aiv) if lp.parent_op() is not aiv]
    for loop in (aic_loop, aiv_loop):
        assert [loop.lb.owner.value.value.data, loop.ub.owner.value.value.data] == [0, 3]  # 4 blocks: 3 in the loop
    assert len(aic_loop.iter_args) == 0
    assert [a.name_hint for a in aiv_loop.body.block.args[1:4]] == ["l_i", "o_i", "m_i"]  # and alpha_j, piped
    assert len(aiv_loop.iter_args) == 4
    # the AIV pushes P_{j+1} before it pops P_j V_j; the AIC pushes S_{j+1} before it pops P_j
    aiv_order = [type(o).__name__ for o in aiv_loop.body.block.ops if isinstance(o, TRANSFER_TYPES)]
    aic_order = [type(o).__name__ for o in aic_loop.body.block.ops if isinstance(o, TRANSFER_TYPES)]
    assert aiv_order == ["PopOp", "PushOp", "PopOp"] and aic_order == ["PushOp", "PopOp", "PushOp"]
    assert _slots(module) == {Pipe.C2V: 4, Pipe.V2C: 2}  # S_j and P_j V_j share the c2v ring


def test_an_ffn_rotates_the_cube_loop_only():
    module = _split("ffn_silu", (128, 64, 256), "f16")
    before = _members(module)[2].clone()
    pipeline_cross_core_loops(module, depth=1)
    _, aic, aiv = _members(module)
    (aic_loop,) = [lp for lp in _loops(aic) if lp.parent_op() is not aic]
    assert len(aic_loop.iter_args) == 1  # the acc accumulator of the second matmul
    assert str(aiv) == str(before)  # the vector member is unchanged
    assert _slots(module) == {Pipe.C2V: 2, Pipe.V2C: 2}


def test_a_plan_that_would_pair_a_pop_with_another_push_is_refused():
    module = _split("attention", (128, 128), "f16")
    group, aic, aiv = _members(module)
    (aiv_loop,) = [lp for lp in _loops(aiv) if lp.parent_op() is not aiv]
    pops = [i for i, o in enumerate(aiv_loop.body.block.ops) if isinstance(o, TRANSFER_TYPES)]
    only_the_aiv = {aiv_loop: Rotation(pops[-1])}  # the AIV would pop S_{j+1} where the AIC still pushes P_j V_j
    assert check_plan(group, only_the_aiv, {Pipe.C2V: 4, Pipe.V2C: 4}) == "a pop would receive another push than before"
    assert check_plan(group, {}, {Pipe.C2V: 2, Pipe.V2C: 2}) is None


def test_flash_attention_three_blocks_ahead_shifts_alpha_through_the_loop():
    module = _split("attention", (256, 64), "f16")  # 4 key blocks: the AIC pushes S_{j+3} before it pops P_j
    pipeline_cross_core_loops(module, depth=3)
    _, aic, aiv = _members(module)
    for member in (aic, aiv):
        query_loop = next(op for op in member.body.block.ops if isinstance(op, scf.ForOp))
        prologue, main, epilogue = [op for op in query_loop.body.block.ops if isinstance(op, scf.ForOp)]
        bounds = [[lp.lb.owner.value.value.data, lp.ub.owner.value.value.data] for lp in (prologue, main, epilogue)]
        assert bounds == [[0, 3], [0, 1], [1, 4]]  # stage 1 of 0..2; stage 1 of j + 3 with stage 2 of j; stage 2 of 1..3
        aiv_main = main if member is aiv else None
    assert aiv_main is not None
    # l_i, o_i, m_i, then alpha_j, alpha_{j+1}, alpha_{j+2}: the oldest is used, the newest yielded last
    assert len(aiv_main.iter_args) == 6
    alphas = list(aiv_main.body.block.args[4:7])
    (scaled,) = [o for o in aiv_main.body.block.ops if o.name == "pypto.tile.row_expand_mul"]
    assert scaled.operands[1] is alphas[0]
    assert list(aiv_main.body.block.last_op.operands[3:5]) == alphas[1:]
    assert _slots(module) == {Pipe.C2V: 8, Pipe.V2C: 4}  # (3 + 1) x the transfers of one iteration


def test_a_loop_rotates_by_at_most_its_trip_count_minus_one():
    module = _split("attention", (128, 128), "f16")  # 2 key blocks
    pipeline_cross_core_loops(module, depth=3)
    _, aic, aiv = _members(module)
    for member in (aic, aiv):
        (loop,) = [lp for lp in _loops(member) if lp.parent_op() is not member]
        assert [loop.lb.owner.value.value.data, loop.ub.owner.value.value.data] == [0, 1]  # rotated by one
    assert _slots(module) == {Pipe.C2V: 4, Pipe.V2C: 2}


RUNTIME_BOUNDS = Path(__file__).resolve().parent / "filecheck" / "transforms" / "pipeline-cross-core-loops" / "runtime_bounds.mlir"


def _runtime_inputs(n):
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (64, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    return [a, b, rng.uniform(-1, 1, (64, 16)).astype(np.float32), n]


def test_a_loop_with_run_time_bounds_rotates_by_one_whatever_its_trip_count():
    """The same program for n = 0 … 4 (0: no iteration, the guard), bit for bit, rotated, then
    with its rings in GM; the prologue, loop and epilogue bounds come from %n at run time."""
    module = parse_module(RUNTIME_BOUNDS.read_text())
    rotated = module.clone()
    assert pipeline_cross_core_loops(rotated) == ["rt"]
    rotated.verify()
    lowered = rotated.clone()
    assert lower_rings(lowered) == []
    lowered.verify()
    for n in range(5):
        before = run(module, "main", _runtime_inputs(n))[0]
        for after in (rotated, lowered):
            np.testing.assert_array_equal(run(after, "main", _runtime_inputs(n))[0], before, err_msg=f"n = {n}")
    _, aic, aiv = _members(rotated)
    for member in (aic, aiv):
        assert len([op for op in member.body.block.ops if isinstance(op, scf.ForOp)]) == 3  # prologue, loop, epilogue
    assert _slots(rotated) == {Pipe.C2V: 4, Pipe.V2C: 2}


def test_run_time_bounds_that_are_not_parameters_are_left_alone():
    text = RUNTIME_BOUNDS.read_text().replace(
        "scf.for %i = %c0 to %n step %c1 {", "%m = arith.addi %n, %c0 : index\n    scf.for %i = %c0 to %m step %c1 {"
    )
    module = parse_module(text)
    assert pipeline_cross_core_loops(module) == []


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("n", [0, 3])
def test_a_rotated_loop_with_run_time_bounds_on_the_simulation(tmp_path, n):
    from pypto_xdsl.tools.pypto_compile import simulate

    module = parse_module(RUNTIME_BOUNDS.read_text())
    report = simulate(module, tmp_path / "rt", inputs=_runtime_inputs(n))  # the backend rotates it
    assert report.reference is not None, report.note
    np.testing.assert_allclose(report.outputs["o"], report.reference["o"], rtol=1e-3, atol=1e-3)
    text = next((tmp_path / "rt" / "kernels").glob("*.cpp")).read_text()
    assert text.count("for (int64_t") >= 6  # both members: prologue, loop and epilogue
