"""The reference interpreter: program ops, reference semantics, tasks, SPMD, diagnostics,
and the semantic-equivalence helper."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_xdsl.interpreter import (
    PyptoInterpretationError,
    SemanticsMismatch,
    TaskId,
    assert_same_semantics,
    make_interpreter,
    parse_module,
    random_inputs,
    run,
    run_spmd,
)
from pypto_xdsl.interpreter.functions import state

T = "!pypto.tensor<[N, 4], f32>"
V = "!pypto.tile<[2, 4], f32, vec>"


def module(text: str):
    m = parse_module(text)
    m.verify()
    return m


# --------------------------------------------------------------------------- calls & reference semantics

CALLS = f"""
pypto.func inline @scale(%x: !pypto.tensor<[M, 4], f32>) -> !pypto.tensor<[M, 4], f32> {{
  %s = arith.constant 2.0 : f32
  %y = pypto.tensor.muls %x, %s : !pypto.tensor<[M, 4], f32>, f32
  pypto.return %y : !pypto.tensor<[M, 4], f32>
}}
pypto.func incore @fill(%x: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = pypto.tensor.dim %x, 0 : {T}
  %r = scf.for %i = %c0 to %n step %c2 iter_args(%acc = %o) -> ({T}) {{
    %t = pypto.tile.load %x[%i, %c0] : {T} -> {V}
    %u = pypto.tile.exp %t : {V}
    %w = pypto.tile.store %u, %acc[%i, %c0] : {V}, {T}
    scf.yield %w : {T}
  }}
  pypto.return %r : {T}
}}
pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{
  %d = pypto.call @scale(%a) : ({T}) -> {T}
  %o2 = pypto.call @fill(%d, %o) : ({T}, {T}) -> {T}
  pypto.return %d : {T}
}}
"""


def test_call_runs_callees_and_out_arguments_are_written_through():
    m = module(CALLS)
    a = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
    o = np.zeros((4, 4), np.float32)
    (d,) = run(m, "main", [a, o])
    np.testing.assert_allclose(d, 2 * a)
    np.testing.assert_allclose(o, np.exp(2 * a), rtol=1e-6)  # written in place by @fill


def test_random_inputs_are_seeded_and_bound_by_dims():
    m = module(CALLS)
    x0 = random_inputs(m, "main", seed=3, dims={"N": 6})
    x1 = random_inputs(m, "main", seed=3, dims={"N": 6})
    assert x0[0].shape == (6, 4) and x0[0].dtype == np.float32
    np.testing.assert_array_equal(x0[0], x1[0])
    assert not np.array_equal(x0[0], random_inputs(m, "main", seed=4, dims={"N": 6})[0])
    with pytest.raises(PyptoInterpretationError, match="unbound symbol N"):
        random_inputs(m, "main", seed=0)


def test_store_returns_the_destination_storage_and_later_reads_see_the_write():
    m = module(f"""
    pypto.func @main(%a: {T}) -> (f32, f32) {{
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %before = pypto.tensor.read %a[%c0, %c0] : {T}
      %t = pypto.tile.full %one : f32 -> {V}
      %a2 = pypto.tile.store %t, %a[%c0, %c0] : {V}, {T}
      %after = pypto.tensor.read %a2[%c0, %c0] : {T}
      pypto.return %before, %after : f32, f32
    }}""")
    a = np.zeros((2, 4), np.float32)
    before, after = run(m, "main", [a])
    assert (before, after) == (0.0, 1.0)
    np.testing.assert_array_equal(a[:2], np.ones((2, 4)))


def test_load_copies_so_a_tile_does_not_see_later_stores():
    m = module(f"""
    pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %t = pypto.tile.load %a[%c0, %c0] : {T} -> {V}
      %z = pypto.tile.full %zero : f32 -> {V}
      %a2 = pypto.tile.store %z, %a[%c0, %c0] : {V}, {T}
      %o2 = pypto.tile.store %t, %o[%c0, %c0] : {V}, {T}
      pypto.return %o2 : {T}
    }}""")
    a = np.ones((2, 4), np.float32)
    o = np.zeros((2, 4), np.float32)
    run(m, "main", [a, o])
    np.testing.assert_array_equal(o, np.ones((2, 4)))
    np.testing.assert_array_equal(a, np.zeros((2, 4)))


# --------------------------------------------------------------------------- scopes, tasks

TASKS = f"""
pypto.func incore @k(%x: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : {T} -> {V}
  %n = pypto.tile.neg %t : {V}
  %r = pypto.tile.store %n, %o[%c0, %c0] : {V}, {T}
  pypto.return %r : {T}
}}
pypto.func @main(%a: {T}, out %o: {T}) -> ({T}, {T}) {{
  %c0 = arith.constant 0 : index
  %r1, %t1 = pypto.submit @k(%a, %o) : ({T}, {T}) -> {T}
  %r2, %t2 = pypto.submit @k(%r1) deps(%t1) : ({T}) -> {T}
  %s:2, %t3 = pypto.incore_scope name("sc") deps(%t1, %t2) -> ({T}, {T}) task_id {{
    %t = pypto.tile.load %r2[%c0, %c0] : {T} -> {V}
    %e = pypto.tile.abs %t : {V}
    %w = pypto.tile.store %e, %r1[%c0, %c0] : {V}, {T}
    %y = pypto.tensor.neg %r2 : {T}
    pypto.yield %w, %y : {T}, {T}
  }}
  pypto.return %s#0, %s#1 : {T}, {T}
}}
"""


def test_submit_incore_scope_and_task_ids():
    m = module(TASKS)
    interpreter = make_interpreter(m)
    a = np.arange(8, dtype=np.float32).reshape(2, 4) - 4
    o = np.zeros((2, 4), np.float32)
    w, y = interpreter.call_op("main", (a, o))
    assert w is o  # the scope's store into %r1 writes the out argument
    np.testing.assert_array_equal(o, np.abs(a))
    # the second submit omitted its out argument: the runtime allocated a fresh tensor,
    # into which @k wrote -(-a); the scope returns its negation
    np.testing.assert_array_equal(y, -a)  # neg of the second task's output, -(-a)
    tasks = state(interpreter).tasks
    assert [t.name for t in tasks] == ["k", "k", "sc"]
    assert all(isinstance(t, TaskId) and t.done for t in tasks)
    assert tasks[1].deps == (tasks[0],) and tasks[2].deps == (tasks[0], tasks[1])


def test_incore_scope_body_runs_once():
    m = module("""
    pypto.func @main(%a: !pypto.tensor<[4], f32>) -> !pypto.tensor<[4], f32> {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %r:1 = pypto.incore_scope -> (!pypto.tensor<[4], f32>) {
        %t = pypto.tile.load %a[%c0] : !pypto.tensor<[4], f32> -> !pypto.tile<[4], f32, vec>
        %u = pypto.tile.adds %t, %one : !pypto.tile<[4], f32, vec>, f32
        %w = pypto.tile.store %u, %a[%c0] : !pypto.tile<[4], f32, vec>, !pypto.tensor<[4], f32>
        pypto.yield %w : !pypto.tensor<[4], f32>
      }
      pypto.return %r#0 : !pypto.tensor<[4], f32>
    }""")
    a = np.zeros(4, np.float32)
    (r,) = run(m, "main", [a])
    assert r is a
    np.testing.assert_array_equal(a, np.ones(4))  # incremented exactly once


def test_scf_if_and_for_interoperate():
    m = module("""
    pypto.func @main(%a: !pypto.tensor<[4], f32>, %k: index) -> (!pypto.tensor<[4], f32>, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %lt = arith.cmpi slt, %k, %c2 : index
      %r = scf.if %lt -> (!pypto.tensor<[4], f32>) {
        %n = pypto.tensor.neg %a : !pypto.tensor<[4], f32>
        scf.yield %n : !pypto.tensor<[4], f32>
      } else {
        %e = pypto.tensor.exp %a : !pypto.tensor<[4], f32>
        scf.yield %e : !pypto.tensor<[4], f32>
      }
      %s = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %c0) -> (index) {
        %n = arith.addi %acc, %i : index
        scf.yield %n : index
      }
      pypto.return %r, %s : !pypto.tensor<[4], f32>, index
    }""")
    a = np.array([0.0, 1.0, -1.0, 2.0], np.float32)
    r, s = run(m, "main", [a, 1])
    np.testing.assert_array_equal(r, -a)
    assert s == 0
    r, s = run(m, "main", [a, 5])
    np.testing.assert_allclose(r, np.exp(a), rtol=1e-6)
    assert s == 10


def test_spmd_launch_runs_every_block():
    m = module(f"""
    pypto.func incore @main(%a: {T}, out %o: {T}) -> {T} {{
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %b = pypto.tile.get_block_idx : index
      %two = arith.constant 2.0 : f32
      %row = arith.muli %b, %c2 : index
      %t = pypto.tile.load %a[%row, %c0] : {T} -> {V}
      %u = pypto.tile.muls %t, %two : {V}, f32
      %r = pypto.tile.store %u, %o[%row, %c0] : {V}, {T}
      pypto.return %r : {T}
    }}""")
    a = np.arange(24, dtype=np.float32).reshape(6, 4)
    o = np.zeros((6, 4), np.float32)
    results = run_spmd(m, "main", [a, o], num_blocks=3)
    assert len(results) == 3 and all(r[0] is o for r in results)
    np.testing.assert_array_equal(o, 2 * a)
    # a single block (the default launch) writes only its own rows
    o1 = np.zeros((6, 4), np.float32)
    run(m, "main", [a, o1], block_idx=1, block_num=3)
    assert not o1[:2].any() and not o1[4:].any()
    np.testing.assert_array_equal(o1[2:4], 2 * a[2:4])


def test_inline_callee_binds_its_own_symbols_per_call():
    m = module("""
    pypto.func inline @dbl(%x: !pypto.tensor<[M], f32>) -> !pypto.tensor<[M], f32> {
      %y = pypto.tensor.add %x, %x : !pypto.tensor<[M], f32>
      pypto.return %y : !pypto.tensor<[M], f32>
    }
    pypto.func @main(%a: !pypto.tensor<[3], f32>, %b: !pypto.tensor<[5], f32>) -> (!pypto.tensor<[3], f32>, !pypto.tensor<[5], f32>) {
      %x = pypto.call @dbl(%a) : (!pypto.tensor<[3], f32>) -> !pypto.tensor<[3], f32>
      %y = pypto.call @dbl(%b) : (!pypto.tensor<[5], f32>) -> !pypto.tensor<[5], f32>
      pypto.return %x, %y : !pypto.tensor<[3], f32>, !pypto.tensor<[5], f32>
    }""")
    a, b = np.ones(3, np.float32), np.ones(5, np.float32)
    x, y = run(m, "main", [a, b])
    assert x.shape == (3,) and y.shape == (5,) and (x == 2).all() and (y == 2).all()


# --------------------------------------------------------------------------- diagnostics


def _oob(op_line: str, ret: str = "") -> str:
    # %c3 and %c4 are parameters: at constant offsets the verifier rejects the windows already
    return f"""
    pypto.func @main(%a: !pypto.tensor<[4, 4], f32>, %b: !pypto.tensor<[2, 2], f32>, %c3: index, %c4: index) {{
      %c0 = arith.constant 0 : index
      {op_line}
      pypto.return
    }}"""


@pytest.mark.parametrize(
    "line, op_name",
    [
        ("%v = pypto.tensor.slice %a[%c3, %c0] : !pypto.tensor<[4, 4], f32> -> !pypto.tensor<[2, 2], f32>",
         "pypto.tensor.slice"),
        ("%v = pypto.tensor.assemble %b into %a[%c0, %c3] : !pypto.tensor<[2, 2], f32> into !pypto.tensor<[4, 4], f32>",
         "pypto.tensor.assemble"),
        ("%v = pypto.tile.load %a[%c3, %c3] : !pypto.tensor<[4, 4], f32> -> !pypto.tile<[2, 2], f32, vec>",
         "pypto.tile.load"),
        ("%t = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[2, 2], f32> -> !pypto.tile<[2, 2], f32, vec>\n"
         "      %v = pypto.tile.store %t, %a[%c4, %c0] : !pypto.tile<[2, 2], f32, vec>, !pypto.tensor<[4, 4], f32>",
         "pypto.tile.store"),
        ("%v = pypto.tensor.read %a[%c4, %c0] : !pypto.tensor<[4, 4], f32>", "pypto.tensor.read"),
    ],
)
def test_out_of_bounds_windows_are_diagnostics_naming_the_op(line, op_name):
    m = module(_oob(line))
    with pytest.raises(PyptoInterpretationError, match="out of bounds") as info:
        run(m, "main", [np.zeros((4, 4), np.float32), np.zeros((2, 2), np.float32), 3, 4])
    assert str(info.value).startswith(f"{op_name} in @main:")


def test_argument_shape_mismatch_names_the_argument():
    m = module(CALLS)
    with pytest.raises(PyptoInterpretationError, match=r"argument #1 \(%o\) of @main .* needs N = 4, the extent of dimension 0 of argument #0 \(%a\) of @main"):
        run(m, "main", [np.zeros((4, 4), np.float32), np.zeros((6, 4), np.float32)])
    with pytest.raises(PyptoInterpretationError, match=r"argument #0 \(%a\) of @main has shape \[4, 5\]"):
        run(m, "main", [np.zeros((4, 5), np.float32), np.zeros((4, 4), np.float32)])
    with pytest.raises(PyptoInterpretationError, match="dtype float64"):
        run(m, "main", [np.zeros((4, 4)), np.zeros((4, 4), np.float32)])


def test_unbound_symbol_in_create_is_a_diagnostic():
    m = module("""
    pypto.func @main() -> !pypto.tensor<[K], f32> {
      %t = pypto.tensor.create : !pypto.tensor<[K], f32>
      pypto.return %t : !pypto.tensor<[K], f32>
    }""")
    with pytest.raises(PyptoInterpretationError, match=r"pypto.tensor.create in @main: unbound symbol K"):
        run(m, "main", [])


def test_numpy_errors_become_diagnostics_naming_the_op():
    m = module("""
    pypto.func @main(%a: !pypto.tensor<[2], i32>, %b: !pypto.tensor<[2], i32>) -> !pypto.tensor<[2], i32> {
      %q = pypto.tensor.div %a, %b : !pypto.tensor<[2], i32>
      pypto.return %q : !pypto.tensor<[2], i32>
    }""")
    with pytest.raises(PyptoInterpretationError, match=r"pypto.tensor.div in @main: .*division by zero"):
        run(m, "main", [np.ones(2, np.int32), np.zeros(2, np.int32)])


# --------------------------------------------------------------------------- assert_same_semantics

SAME_BEFORE = f"""
pypto.func inline @h(%x: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %v = pypto.tensor.slice %x[%c0, %c0] : {T} -> !pypto.tensor<[2, 4], f32>
  %r = pypto.tensor.assemble %v into %o[%c0, %c0] : !pypto.tensor<[2, 4], f32> into {T}
  pypto.return %r : {T}
}}
pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{
  %e = pypto.tensor.exp %a : {T}
  %r = pypto.call @h(%e, %o) : ({T}, {T}) -> {T}
  pypto.return %e : {T}
}}
"""

SAME_AFTER = f"""
pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %e = pypto.tensor.exp %a : {T}
  %v = pypto.tensor.slice %e[%c0, %c0] : {T} -> !pypto.tensor<[2, 4], f32>
  %r = pypto.tensor.assemble %v into %o[%c0, %c0] : !pypto.tensor<[2, 4], f32> into {T}
  pypto.return %e : {T}
}}
"""


def test_assert_same_semantics_accepts_an_equivalent_program():
    assert_same_semantics(SAME_BEFORE, SAME_AFTER, "main", seeds=(0, 1), dims={"N": 4})


def test_assert_same_semantics_catches_a_different_result():
    after = SAME_AFTER.replace("%e = pypto.tensor.exp %a", "%e = pypto.tensor.abs %a")
    with pytest.raises(SemanticsMismatch, match=r"seed 0: result #0: 16 of 16 elements differ"):
        assert_same_semantics(SAME_BEFORE, after, "main", seeds=(0,), dims={"N": 4})


def test_assert_same_semantics_catches_a_difference_only_in_an_out_argument():
    # same result, but the write into %o lands one row lower
    after = SAME_AFTER.replace(
        "into %o[%c0, %c0]", "into %o[%c1, %c0]"
    ).replace("%c0 = arith.constant 0 : index", "%c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index")
    with pytest.raises(SemanticsMismatch, match=r"argument #1 after the run"):
        assert_same_semantics(SAME_BEFORE, after, "main", seeds=(0,), dims={"N": 4})


def test_assert_same_semantics_compares_in_arguments_unless_written_only():
    # the transformed program also scribbles over its (in) argument %a
    after = SAME_AFTER.replace(
        "pypto.return %e : {T}".replace("{T}", T),
        f"%a2 = pypto.tensor.assemble %v into %a[%c0, %c0] : !pypto.tensor<[2, 4], f32> into {T}\n  pypto.return %e : {T}",
    )
    with pytest.raises(SemanticsMismatch, match=r"argument #0 after the run"):
        assert_same_semantics(SAME_BEFORE, after, "main", seeds=(0,), dims={"N": 4})
    assert_same_semantics(SAME_BEFORE, after, "main", seeds=(0,), dims={"N": 4}, written_only=True)


def test_assert_same_semantics_reports_a_failing_transformed_program():
    after = SAME_AFTER.replace("into %o[%c0, %c0]", "into %o[%c0, %c1]").replace(
        "%c0 = arith.constant 0 : index", "%c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index"
    )
    with pytest.raises(SemanticsMismatch, match="transformed one fails: pypto.tensor.assemble in @main: out of bounds"):
        assert_same_semantics(SAME_BEFORE, after, "main", seeds=(0,), dims={"N": 4})


def test_direction_check_diagnoses_writes_into_in_parameters():
    text = f"""
    pypto.func incore @k(%x: {T}, %y: {T}) -> {T} {{
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %x[%c0, %c0] : {T} -> {V}
      %r = pypto.tile.store %t, %y[%c0, %c0] : {V}, {T}
      pypto.return %r : {T}
    }}
    pypto.func @main(%a: {T}, inout %o: {T}) -> {T} {{
      %r = pypto.call @k(%a, %o) : ({T}, {T}) -> {T}
      pypto.return %r : {T}
    }}"""
    m = module(text)
    a, o = np.ones((2, 4), np.float32), np.zeros((2, 4), np.float32)
    run(m, "main", [a, o])  # off by default
    with pytest.raises(PyptoInterpretationError, match=r"pypto.tile.store in @k: writes into the storage of parameter #1 of @k, which is declared 'in'"):
        run(m, "main", [a, o], check_directions=True)
    fixed = module(text.replace("%y: {T}".replace("{T}", T), f"out %y: {T}"))
    run(fixed, "main", [a, o], check_directions=True)
    # writing through a view of an `in` argument is caught too
    view = module(f"""
    pypto.func @main(%a: {T}) -> {T} {{
      %c0 = arith.constant 0 : index
      %v = pypto.tensor.slice %a[%c0, %c0] : {T} -> !pypto.tensor<[1, 4], f32>
      %z = pypto.tensor.create : !pypto.tensor<[1, 4], f32>
      %w = pypto.tensor.assemble %z into %v[%c0, %c0] : !pypto.tensor<[1, 4], f32> into !pypto.tensor<[1, 4], f32>
      pypto.return %a : {T}
    }}""")
    with pytest.raises(PyptoInterpretationError, match=r"parameter #0 of @main"):
        run(view, "main", [a], check_directions=True)


def test_func_dialect_and_unknown_dims_interoperate():
    m = module("""
    func.func @count(%n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
        %a = arith.addi %acc, %c1 : index
        scf.yield %a : index
      }
      func.return %r : index
    }
    pypto.func @main(%a: !pypto.tensor<[?, 2], f32>) -> (index, !pypto.tensor<[?, 2], f32>) {
      %c0 = arith.constant 0 : index
      %n = pypto.tensor.dim %a, 0 : !pypto.tensor<[?, 2], f32>
      %e = pypto.tensor.exp %a : !pypto.tensor<[?, 2], f32>
      pypto.return %n, %e : index, !pypto.tensor<[?, 2], f32>
    }""")
    assert run(m, "count", [7]) == (7,)
    n, e = run(m, "main", dims={"?": 5})
    assert n == 5 and e.shape == (5, 2)
    with pytest.raises(PyptoInterpretationError, match=r"unknown '\?' dim"):
        run(m, "main")


def test_failures_of_upstream_ops_are_diagnostics_naming_the_op():
    m = module("""
    pypto.func inline @loop(%a: !pypto.tensor<[4], f32>, %step: index) -> !pypto.tensor<[4], f32> {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %r = scf.for %i = %c0 to %c4 step %step iter_args(%acc = %a) -> (!pypto.tensor<[4], f32>) {
        %n = pypto.tensor.neg %acc : !pypto.tensor<[4], f32>
        scf.yield %n : !pypto.tensor<[4], f32>
      }
      pypto.return %r : !pypto.tensor<[4], f32>
    }
    pypto.func @main(%a: !pypto.tensor<[4], f32>, %step: index) -> !pypto.tensor<[4], f32> {
      %r = pypto.call @loop(%a, %step) : (!pypto.tensor<[4], f32>, index) -> !pypto.tensor<[4], f32>
      pypto.return %r : !pypto.tensor<[4], f32>
    }""")
    a = np.ones(4, np.float32)
    (r,) = run(m, "main", [a, 2])
    np.testing.assert_array_equal(r, a)
    with pytest.raises(PyptoInterpretationError, match=r"^scf.for in @loop: ValueError: .*zero"):
        run(m, "main", [a, 0])


def test_call_with_block_dim_runs_the_callee_once_per_block() -> None:
    """`pypto.block_dim = 4` on a call launches the kernel on 4 blocks, each writing its rows."""
    from pypto_xdsl.interpreter import parse_module, run

    module = parse_module(
        """
pypto.func incore @rows(%x: !pypto.tensor<[8, 4], f32>, out %y: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %b = pypto.tile.get_block_idx : index
  %n = pypto.tile.get_block_num : index
  %per_block = arith.divui %c8, %n : index
  %row = arith.muli %b, %per_block : index
  %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[8, 4], f32> -> !pypto.tile<[2, 4], f32, vec>
  %s = pypto.tile.muls %t, %two : !pypto.tile<[2, 4], f32, vec>, f32
  %w = pypto.tile.store %s, %y[%row, %c0] : !pypto.tile<[2, 4], f32, vec>, !pypto.tensor<[8, 4], f32>
  pypto.return %y : !pypto.tensor<[8, 4], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 4], f32>, out %y: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
  %r = pypto.call @rows(%x, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32>
  pypto.return %r : !pypto.tensor<[8, 4], f32>
}
"""
    )
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    y = np.zeros((8, 4), np.float32)
    run(module, "main", [x, y])
    np.testing.assert_array_equal(y, x * 2)  # blocks 0..3 each wrote their 8/4 = 2 rows


def test_split_aiv_runs_its_region_once_per_lane() -> None:
    """Each AIV lane of `pypto.split_aiv` handles its half of the rows."""
    from pypto_xdsl.interpreter import parse_module, run

    module = parse_module(
        """
pypto.func incore @halves(%x: !pypto.tensor<[8, 4], f32>, out %y: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  pypto.split_aiv up_down (%lane : index) {
    %row = arith.muli %lane, %c4 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[8, 4], f32> -> !pypto.tile<[4, 4], f32, vec>
    %s = pypto.tile.muls %t, %two : !pypto.tile<[4, 4], f32, vec>, f32
    %w = pypto.tile.store %s, %y[%row, %c0] : !pypto.tile<[4, 4], f32, vec>, !pypto.tensor<[8, 4], f32>
  }
  pypto.return %y : !pypto.tensor<[8, 4], f32>
}
"""
    )
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    y = np.zeros((8, 4), np.float32)
    run(module, "halves", [x, y])
    np.testing.assert_array_equal(y, x * 2)  # lane 0 wrote rows 0-3, lane 1 rows 4-7
