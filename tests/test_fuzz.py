"""The program generator and the pass-pipeline fuzz harness (a bounded run; `make fuzz` runs many)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import FunctionType, IndexType, ModuleOp
from xdsl.passes import ModulePass

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection, TensorType
from pypto_xdsl.dialects.program import CallOp, FuncOp, IncoreScopeOp, SubmitOp
from pypto_xdsl.fuzz.generator import GenConfig, generate_program, programs
from pypto_xdsl.fuzz.runner import (
    auto_pipelines,
    available_passes,
    check_case,
    fuzz_pipeline,
)
from pypto_xdsl.interpreter import (
    SemanticsMismatch,
    assert_same_semantics,
    parse_module,
    run,
)

SEEDS = range(40)


@pytest.fixture(scope="module")
def generated():
    return [generate_program(s) for s in SEEDS]


def test_generation_is_deterministic():
    assert str(generate_program(11).module) == str(generate_program(11).module)
    assert str(generate_program(11).module) != str(generate_program(12).module)


def test_generated_programs_verify_round_trip_and_run(generated):
    for program in generated:
        program.module.verify()
        text = str(program.module)
        reparsed = parse_module(text)
        reparsed.verify()
        assert str(reparsed) == text
        run(program.module, program.entry, dims=program.dims, seed=0)


def _features(program) -> set[str]:
    found: set[str] = set()
    calls: dict[str, int] = {}
    module = program.module
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}
    for op in module.walk():
        if isinstance(op, CallOp | SubmitOp):
            callee = funcs[op.callee.string_value()]
            calls[callee.sym_name.data] = calls.get(callee.sym_name.data, 0) + 1
            caller = op.parent_op()
            while not isinstance(caller, FuncOp):
                caller = caller.parent_op()
            if callee.func_kind == FuncKind.INLINE and caller.func_kind == FuncKind.INLINE:
                found.add("inline chain")
            if isinstance(op, SubmitOp):
                found.add("submit")
                if op.deps:
                    found.add("submit deps")
            if any(isinstance(p, IncoreScopeOp) for p in _ancestors(op)):
                found.add("call inside incore scope")
        elif isinstance(op, scf.ForOp):
            found.add("scf.for")
        elif isinstance(op, scf.IfOp):
            found.add("scf.if")
        elif isinstance(op, IncoreScopeOp):
            found.add("incore_scope")
            if op.task_id is not None:
                found.add("scope task id")
            if any(isinstance(p, scf.ForOp) for p in _ancestors(op)):
                found.add("incore_scope in loop")
        elif isinstance(op, tile.StoreOp | tensor.AssembleOp):
            found.add("write")
        elif isinstance(op, tile.MatmulAccOp):
            found.add("matmul_acc")
        elif isinstance(op, tile.RowMaxOp):
            found.add("row ops")
        elif isinstance(op, tensor.RowMaxOp | tensor.RowSumOp):
            found.add("tensor row ops")
            if any(isinstance(p, IncoreScopeOp) for p in _ancestors(op)):
                found.add("tensor row ops in incore scope")
    if any(n >= 2 and funcs[name].func_kind == FuncKind.INLINE for name, n in calls.items()):
        found.add("several call sites")
    for f in funcs.values():
        if any(isinstance(t, TensorType) and t.symbols() for t in f.function_type.inputs.data):
            found.add("symbolic shapes")
        if ParamDirection.OUT in f.directions:
            found.add("out params")
    return found


def _ancestors(op):
    p = op.parent_op()
    while p is not None:
        yield p
        p = p.parent_op()


def test_generator_covers_the_features_the_passes_need(generated):
    seen: set[str] = set()
    for program in generated:
        seen |= _features(program)
    wanted = {
        "inline chain", "several call sites", "scf.for", "scf.if", "incore_scope", "scope task id",
        "incore_scope in loop", "call inside incore scope", "submit", "submit deps", "write",
        "out params", "symbolic shapes", "matmul_acc", "row ops", "tensor row ops",
        "tensor row ops in incore scope",
    }
    assert wanted <= seen, f"never generated: {sorted(wanted - seen)}"


def test_config_switches_features_off():
    config = GenConfig(incore_scopes=False, tiles=False, submit=False, symbolic=False)
    for seed in range(15):
        program = generate_program(seed, config)
        names = {op.name for op in program.module.walk()}
        assert not any(n.startswith("pypto.tile.") for n in names)
        assert "pypto.incore_scope" not in names and "pypto.submit" not in names
        assert program.dims == {}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_hypothesis_programs_keep_their_meaning_through_a_print_parse_round_trip(program):
    assert_same_semantics(program.module, str(program.module), program.entry, seeds=(0,), dims=program.dims)


def test_fuzz_pipeline_bounded_run_over_every_available_pass():
    report = fuzz_pipeline("auto", cases=30, seed=1000)
    assert report.cases == 30
    assert not report.failures, report.summary()
    assert len(report.per_pipeline) == len(auto_pipelines())


# --------------------------------------------------------------------------- the harness can fail


@dataclass(frozen=True)
class SwapAddSubPass(ModulePass):
    """A deliberately wrong pass: every tensor/tile add becomes a sub."""

    name = "test-swap-add-sub"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            for add, sub in ((tensor.AddOp, tensor.SubOp), (tile.AddOp, tile.SubOp)):
                if isinstance(o, add):
                    new = sub(o.lhs, o.rhs)
                    o.result.replace_all_uses_with(new.result)
                    o.parent_block().insert_op_before(new, o)
                    o.detach()
                    o.erase()


@dataclass(frozen=True)
class DropStoresPass(ModulePass):
    """A deliberately wrong pass: tile.store / tensor.assemble are removed."""

    name = "test-drop-stores"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            if isinstance(o, tile.StoreOp | tensor.AssembleOp):
                o.result.replace_all_uses_with(o.dest)
                o.detach()
                o.erase()


@dataclass(frozen=True)
class ForgetDirectionsPass(ModulePass):
    """A deliberately wrong pass: every parameter of every function but @main becomes `in`."""

    name = "test-forget-directions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, FuncOp) and f.sym_name.data != "main":
                f.set_directions([ParamDirection.IN] * len(f.directions))


@dataclass(frozen=True)
class BreakSignaturePass(ModulePass):
    """A deliberately wrong pass: @main claims one more result than it returns."""

    name = "test-break-signature"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, FuncOp) and f.sym_name.data == "main":
                t = f.function_type
                f.function_type = FunctionType.from_lists(t.inputs.data, [*t.outputs.data, IndexType()])


def _registry():
    registry = dict(available_passes())
    registry["test-swap-add-sub"] = lambda: SwapAddSubPass
    registry["test-drop-stores"] = lambda: DropStoresPass
    registry["test-forget-directions"] = lambda: ForgetDirectionsPass
    registry["test-break-signature"] = lambda: BreakSignaturePass
    return registry


def test_fuzz_reports_a_wrong_pass():
    report = fuzz_pipeline("test-swap-add-sub", cases=15, seed=0, registry=_registry())
    assert report.failures, "a pass that turns add into sub must be caught"
    assert all(f.stage == "semantics" for f in report.failures)
    assert "elements differ" in report.failures[0].message
    report = fuzz_pipeline("test-drop-stores", cases=15, seed=0, registry=_registry())
    assert report.failures and all(f.stage == "semantics" for f in report.failures)
    assert "FAIL seed" in report.summary()


def test_fuzz_direction_check_catches_wrong_parameter_directions():
    report = fuzz_pipeline("test-forget-directions", cases=12, seed=0, registry=_registry())
    assert report.failures and all("declared 'in' (direction check)" in f.message for f in report.failures)
    # the numbers are unchanged: without the direction check the wrong pass goes unnoticed
    report = fuzz_pipeline(
        "test-forget-directions", cases=12, seed=0, registry=_registry(), check_directions=False
    )
    assert not report.failures


def test_unknown_passes_invalid_output_and_the_empty_pipeline():
    with pytest.raises(ValueError, match="Unrecognized passes"):
        fuzz_pipeline("no-such-pass", cases=1)
    failure = check_case("test-break-signature", 3, registry=_registry())
    assert failure is not None and failure.stage == "verify"
    assert "@main is declared to return" in failure.message
    assert failure.program.startswith("builtin.module")  # the original program, to reproduce
    assert check_case("", 3) is None


def test_semantics_mismatch_is_raised_exactly_when_a_mutation_changes_results():
    """Swapping add and sub in generated programs: the check fails when (and only when) an
    independent run of both programs on the same inputs gives different arrays."""
    from pypto_xdsl.interpreter.api import random_inputs, run

    raised = 0
    for seed in range(10):
        program = generate_program(seed)
        mutated = program.module.clone()
        SwapAddSubPass().apply(Context(), mutated)
        if str(mutated) == str(program.module):
            continue
        try:
            assert_same_semantics(program.module, mutated, program.entry, seeds=(0,), dims=program.dims)
        except SemanticsMismatch:
            raised += 1
            continue
        before = random_inputs(program.module, program.entry, 0, program.dims)
        after = [a.copy() if isinstance(a, np.ndarray) else a for a in before]
        results = run(program.module, program.entry, before), run(mutated, program.entry, after)
        for x, y in [*zip(before, after), *zip(*results)]:
            if isinstance(x, np.ndarray):
                np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert raised >= 2


def test_reducer_shrinks_a_failing_program_and_keeps_the_failure():
    from pypto_xdsl.fuzz.reduce import failure_signature, reduce_failure
    from pypto_xdsl.fuzz.runner import check_module

    report = fuzz_pipeline("test-swap-add-sub", cases=10, seed=0, registry=_registry())
    failure = min(report.failures, key=lambda f: len(f.program))
    small = reduce_failure(failure.program, failure.pipeline, "main", failure.dims, registry=_registry())
    assert len(small) < len(failure.program) / 2
    module = parse_module(small)
    module.verify()
    found = check_module(module, failure.pipeline, "main", failure.dims, registry=_registry())
    assert found is not None and failure_signature(*found) == failure_signature(failure.stage, failure.message)
    assert "pypto.tensor.add" in small or "pypto.tile.add" in small
    with pytest.raises(ValueError, match="does not fail"):
        reduce_failure(failure.program, "", "main", failure.dims)


def test_config_shapes():
    config = GenConfig(rows=(64,), cols=(128,), tile_rows=(16, 32), symbolic=False)
    program = generate_program(4, config)
    (main,) = [f for f in program.module.ops if isinstance(f, FuncOp) and f.sym_name.data == "main"]
    assert main.function_type.inputs.data[0] == TensorType([64, 128], main.function_type.inputs.data[0].element_type)
    run(program.module, "main", dims=program.dims)
    with pytest.raises(ValueError, match="must divide"):
        generate_program(0, GenConfig(rows=(6,), tile_rows=(4,)))


def test_generator_produces_spmd_scopes_with_tensor_compute():
    """SPMD scopes (`pl.spmd`) whose blocks compute on their own window: the shape that
    convert-tensor-to-tile must not split across cores a second time."""
    texts = [str(generate_program(seed).module) for seed in range(60)]
    spmd = [t for t in texts if "pypto.block_dim" in t and "pypto.incore_scope" in t]
    assert len(spmd) >= 5
    assert any("pypto.tile.get_block_idx" in t and "pypto.tensor.assemble" in t for t in spmd)


def test_generator_reaches_every_feature_of_the_dialect():
    """Every feature the fuzz report counts appears within 80 programs (large shapes are rare
    by default: a config that always draws them)."""
    from pypto_xdsl.fuzz.runner import FEATURES, program_features

    seen: set[str] = set()
    for seed in range(80):
        seen |= program_features(generate_program(seed).module)
    seen |= program_features(generate_program(0, GenConfig(large=1.0)).module)
    missing = set(FEATURES) - seen
    assert not missing, f"never generated: {sorted(missing)}"


def test_backend_profile_programs_print_as_ascend_c():
    """Most programs of the backend profile pass pypto-default and the backend's passes and
    print; a few simulate against the interpreter in `make fuzz`."""
    from collections import Counter

    from pypto_xdsl.fuzz.generator import backend_config
    from pypto_xdsl.fuzz.runner import check_module

    outcomes: Counter = Counter()
    for seed in range(12):
        program = generate_program(seed, backend_config())
        found = check_module(
            program.module, "pypto-default,ascendc-plan-buffers,ascendc-insert-sync", program.entry,
            program.dims, input_seeds=(0,), backend=outcomes,
        )
        assert found is None, found
    assert outcomes["printed"] >= 8, outcomes


def test_simulated_outputs_compare_at_the_precision_of_the_narrowest_cast():
    """`make fuzz` found a kernel computing `exp` in f32, casting to f16 and back, then
    adding: the simulation's `exp` is an ulp off numpy's, and where a value lay near an f16
    rounding boundary the cast put it one f16 ulp off (298.75 against 299.0, 7428.25
    against 7432.25: 2 of 4,096 elements). An f32 output of a program passing values
    through f16 compares at f16's tolerance."""
    from pypto_xdsl.fuzz.runner import SIM_TOLERANCE, narrowest_float, simulation_tolerance

    text = """
    pypto.func incore @k(%x: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
      %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
      %h = pypto.tile.cast %e : !pypto.tile<[8, 64], f32, vec> -> !pypto.tile<[8, 64], f16, vec>
      %f = pypto.tile.cast %h : !pypto.tile<[8, 64], f16, vec> -> !pypto.tile<[8, 64], f32, vec>
      %r = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
      pypto.return %r : !pypto.tensor<[8, 64], f32>
    }
    """
    module = parse_module(text)
    assert narrowest_float(module) == "f16"
    rtol, atol = simulation_tolerance("float32", narrowest_float(module))
    assert (rtol, atol) == SIM_TOLERANCE["f16"]
    got, want = np.array([299.0, 7432.25], np.float32), np.array([298.75, 7428.25], np.float32)
    assert np.allclose(got, want, rtol=rtol, atol=atol)
    assert not np.allclose(got, want, *SIM_TOLERANCE["f32"])  # what failed before
    f32_only = parse_module(text.replace("f16", "f32"))
    assert simulation_tolerance("float32", narrowest_float(f32_only)) == SIM_TOLERANCE["f32"]
    assert simulation_tolerance("float16", "f32") == SIM_TOLERANCE["f16"]


def test_a_printed_program_without_an_orchestration_function_is_not_simulated(tmp_path):
    """`make fuzz` found: a module whose kernels print but whose @main is opaque (it stays on
    the host, unprinted) has nothing for the simulation to launch; that is counted, not a
    failure (it was `SimulationError: nothing to run`)."""
    from collections import Counter

    from pypto_xdsl.fuzz.runner import _simulation_mismatch

    text = """
    pypto.func incore @k(%x: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
      %r = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
      pypto.return %r : !pypto.tensor<[8, 64], f32>
    }
    """
    module = parse_module(text)
    counts: Counter = Counter()
    assert _simulation_mismatch(module, module, tmp_path / "case", counts) is None
    assert counts == Counter({"not simulated: no orchestration function": 1})
