"""outline-incore-scopes with task ids, deps and deferred waiters: the behaviours of PyPTO's
`TestOutlineSubmitTaskId` tests (its test_outline_incore_scopes.py), on programs written for
this DSL. A scope with `as tid`, `deps=` or `allow_early_resolve=True` becomes a
`pypto.submit`; a scope running `pld.system.defer_wait` is a deferred waiter whose body must
be registration only (pypto_xdsl.analysis.deferred_wait), checked before anything changes.
"""
# ruff: noqa: F841 -- the pl programs below leave names unused on purpose: the frontend must drop them

from __future__ import annotations

import numpy as np
import pytest
from reference_support import IN, after, arg_names, funcs, launches, params, same_meaning
from xdsl.utils.exceptions import PassFailedException

import pypto_xdsl.language as pl
import pypto_xdsl.language.distributed as pld
from pypto_xdsl.analysis import deferred_wait
from pypto_xdsl.dialects.attributes import TaskIdType
from pypto_xdsl.dialects.program import CallOp, SubmitOp
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.interpreter import PyptoInterpretationError, run
from pypto_xdsl.runtime.passes import apply_passes

V = pl.Tensor[[64], pl.FP32]
Sig11 = pld.DistributedTensor[[1, 1], pl.INT32]


def outline_fails(program, match: str) -> None:
    module = program.fresh_module()
    text = str(module)
    with pytest.raises(PassFailedException, match=match):
        apply_passes(module, ["outline-incore-scopes"])
    assert str(module) == text  # checked before anything changes


# =========================================================================== task ids


@pl.program
class WithTaskId:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            y: V = pl.add(x, x)
        return y


@pl.program
class WithTaskIdOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: V) -> V:
        y, tid = pl.submit(self.main_incore_0, x)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: V) -> V:
        y: V = pl.add(x, x)
        return y


def test_a_scope_with_a_task_id_becomes_a_submit():
    from reference_support import assert_same_structure

    before, module = after(WithTaskId, ["outline-incore-scopes"])
    (submit,) = launches(funcs(module)["main"])
    assert isinstance(submit, SubmitOp) and list(submit.deps) == []
    assert_same_structure(module, WithTaskIdOutlined.fresh_module())
    same_meaning(before, module)


@pl.program
class ChainedTasks:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP) as tid0:
            y: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid0]) as tid1:
            z: V = pl.mul(y, y)
        return z


def test_deps_of_a_scope_become_the_deps_of_its_submit():
    before, module = after(ChainedTasks, ["outline-incore-scopes"])
    first, second = launches(funcs(module)["main"])
    assert isinstance(first, SubmitOp) and isinstance(second, SubmitOp)
    assert list(second.deps) == [first.task_id]
    assert second.callee.root_reference.data == "main_incore_1" and arg_names(second) == ["y"]
    same_meaning(before, module)


@pl.program
class DepsOnly:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP) as tid0:
            y: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid0]):
            z: V = pl.mul(y, y)
        return z


def test_a_scope_with_deps_and_no_task_id_is_still_a_submit():
    before, module = after(DepsOnly, ["outline-incore-scopes"])
    submits = [op for op in launches(funcs(module)["main"]) if isinstance(op, SubmitOp)]
    assert len(submits) == 2
    second = submits[1]
    assert len(second.deps) == 1 and second.callee.root_reference.data == "main_incore_1"
    assert isinstance(second.results[-1].type, TaskIdType)
    same_meaning(before, module)


# =========================================================================== deferred waiters


@pl.program
class WaitNotifyConsume:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, signal: Sig11, peer: pl.Scalar[pl.INT32], payload: pl.Tensor[[1], pl.INT32]):
        with pl.manual_scope():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="deferred_wait") as wait_tid:
                pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="notifier"):
                pld.system.notify(signal, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="consumer", deps=[wait_tid]):
                payload_value = pl.read(payload, [0])


def test_a_deferred_waiter_orders_only_its_consumer_not_the_later_notifier():
    before, module = after(WaitNotifyConsume, ["outline-incore-scopes"])
    waiter, notifier, consumer = launches(funcs(module)["main"])
    assert isinstance(waiter, SubmitOp) and params(funcs(module)["deferred_wait"]) == [("signal", IN)]
    assert isinstance(notifier, CallOp) and params(funcs(module)["notifier"]) == [("signal", IN), ("peer", IN)]
    assert "deps" not in str(notifier)
    assert isinstance(consumer, SubmitOp) and list(consumer.deps) == [waiter.task_id]
    assert "deferred_completion_waiter" in funcs(module)["deferred_wait"].attributes
    same_meaning(before, module)
    # The notify runs before the consumer's launch, so the waiter's condition holds by then.
    signal = np.zeros((1, 1), np.int32)
    run(module, "main", [signal, 0, np.zeros(1, np.int32)])
    assert signal[0, 0] == 1


def test_a_consumer_launched_before_the_notify_never_starts():
    @pl.program
    class ConsumeTooEarly:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: Sig11, payload: pl.Tensor[[1], pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:
                pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid]):
                payload_value = pl.read(payload, [0])

    _, module = after(ConsumeTooEarly, ["outline-incore-scopes"])
    with pytest.raises(PyptoInterpretationError, match=r"never completes: its deferred wait %signal\[0, 0\] >= 1"):
        run(module, "main", [np.zeros((1, 1), np.int32), np.zeros(1, np.int32)])


def test_a_deferred_waiter_cannot_allow_early_resolve():
    @pl.program
    class EarlyWaiter:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: Sig11):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="deferred_wait", allow_early_resolve=True) as wait_tid:
                pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)

    outline_fails(EarlyWaiter, r"defer_wait cannot use allow_early_resolve=True")


@pl.program
class TerminalWaiter:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, signal: Sig11):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="terminal_waiter"):
            pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)


def test_a_terminal_waiter_without_a_task_id_is_a_plain_call():
    before, module = after(TerminalWaiter, ["outline-incore-scopes"])
    assert "deferred_completion_waiter" in funcs(module)["terminal_waiter"].attributes
    (call,) = launches(funcs(module)["main"])
    assert isinstance(call, CallOp) and not call.results
    same_meaning(before, module)


def test_a_waiter_nested_in_an_spmd_launch_with_early_resolve_is_rejected():
    with pytest.raises(ParserError, match=r"defer_wait must be in a task-level.*nesting.*unsupported"):

        @pl.program
        class NestedEarly:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, signal: Sig11):
                with pl.spmd(1, allow_early_resolve=True):
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_waiter"):
                        pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)


def test_a_waiter_nested_in_a_predicated_spmd_launch_is_rejected():
    with pytest.raises(ParserError, match=r"defer_wait must be in a task-level.*nesting.*unsupported"):

        @pl.program
        class NestedPredicated:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, signal: Sig11, gate: pl.Tensor[[1], pl.INT32]):
                with pl.spmd(1, predicate=(pl.read(gate, [0]) > 0)):
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_waiter"):
                        pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)


def test_a_predicated_waiter_is_rejected():
    with pytest.raises(ParserError, match="cannot use a dispatch predicate"):

        @pl.program
        class PredicatedWaiter:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, signal: Sig11, gate: pl.Tensor[[1], pl.INT32]):
                with pl.spmd(1, predicate=(pl.read(gate, [0]) > 0)):
                    pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)


@pl.program
class EarlyConsumer:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, signal: Sig11, payload: pl.Tensor[[1], pl.INT32]):
        with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:
            pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid], allow_early_resolve=True):
            payload_value = pl.read(payload, [0])


def test_the_consumer_of_a_waiter_may_allow_early_resolve():
    _, module = after(EarlyConsumer, ["outline-incore-scopes"])
    first, second = launches(funcs(module)["main"])
    assert isinstance(first, SubmitOp) and first.allow_early_resolve is None
    assert isinstance(second, SubmitOp) and second.allow_early_resolve is not None
    assert list(second.deps) == [first.task_id]
    assert " early_resolve " in str(second)


def test_a_waiter_calling_a_helper_is_rejected():
    @pl.program
    class WaiterCallsHelper:
        @pl.function(type=pl.FunctionType.InCore)
        def scalar_helper(self, value: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
            return value

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: Sig11, expected: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="deferred_wait"):
                hidden: pl.Scalar[pl.INT32] = self.scalar_helper(expected)
                pld.system.defer_wait(signal, offsets=[0, 0], expected=hidden, cmp=pld.WaitCmp.Ge)

    outline_fails(WaiterCallsHelper, r"supports only a pre-registration tensor.read call; unexpected operation 'scalar_helper'")


@pl.program
class MoeWaiter:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        signal: pld.DistributedTensor[[8, 1], pl.INT32],
        indices: pl.Tensor[[1, 1], pl.INT32],
        payload: V,
        out: pl.Out[V],
        my_rank: pl.Scalar[pl.INDEX],
        epoch: pl.Scalar[pl.INT32],
    ) -> V:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="dispatch_wait") as wait_tid:
            idx_anchor = pl.read(indices, [0, 0])
            for src in pl.range(8):
                if src != my_rank:
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=epoch, cmp=pld.WaitCmp.Ge)
        with pl.spmd(4, name_hint="dispatch_gather", deps=[wait_tid]) as _gather_tid:
            block = pl.tile.get_block_idx()
            offset = block * 16
            value = pl.load(payload, [offset], [16])
            out = pl.store(value, [offset], out)
        return out


def test_a_bounded_conditional_registration_loop_is_a_waiter_and_its_consumer_uses_plain_deps():
    before, module = after(MoeWaiter, ["outline-incore-scopes"])
    assert "deferred_completion_waiter" in funcs(module)["dispatch_wait"].attributes
    consumer = funcs(module)["dispatch_gather"]
    assert "deferred_completion_waiter" not in consumer.attributes
    assert not any("cache" in op.name for op in consumer.body.walk())
    submits = [op for op in launches(funcs(module)["main"]) if isinstance(op, SubmitOp)]
    assert len(submits) == 2 and len(submits[1].deps) == 1
    assert submits[1].attributes["pypto.block_dim"].value.data == 4
    # Satisfy every condition but the rank's own: the consumer runs.
    signal = np.full((8, 1), 3, np.int32)
    payload = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    run(module, "main", [signal, np.zeros((1, 1), np.int32), payload, out, 2, 3])
    np.testing.assert_array_equal(out, payload)


def _waiter_ok(program) -> None:
    before, module = after(program, ["outline-incore-scopes"])
    assert "deferred_completion_waiter" in funcs(module)["waiter"].attributes
    same_meaning(before, module)


def test_pure_scalar_arithmetic_in_the_registration_loop_is_allowed():
    @pl.program
    class ScalarTemp:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[4, 1], pl.INT32], epoch: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter"):
                for src in pl.range(4):
                    wanted = epoch * 4
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)

    _waiter_ok(ScalarTemp)


def test_a_tensor_read_in_the_registration_loop_is_rejected():
    @pl.program
    class ReadInLoop:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[2, 1], pl.INT32], expected_values: pl.Tensor[[2], pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for src in pl.range(2):
                    wanted = pl.read(expected_values, [src])
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)

    outline_fails(ReadInLoop, r"loop may execute tensor reads.*after registering")


def test_a_threshold_chosen_by_a_branch_is_allowed():
    @pl.program
    class PhiThreshold:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[4, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32],
                 low: pl.Scalar[pl.INT32], high: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter"):
                if my_rank == 0:
                    wanted = low
                else:
                    wanted = high
                pld.system.defer_wait(signal, offsets=[0, 0], expected=wanted, cmp=pld.WaitCmp.Ge)

    _waiter_ok(PhiThreshold)


def test_a_threshold_carried_across_iterations_is_allowed():
    @pl.program
    class CarriedThreshold:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[4, 1], pl.INT32], epoch: pl.Scalar[pl.INT32],
                 step: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter"):
                wanted = epoch
                for src in pl.range(4):
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
                    wanted = wanted + step

    _waiter_ok(CarriedThreshold)


def test_a_scalar_loop_registering_nothing_needs_no_static_trip_count():
    @pl.program
    class ScalarLoop:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[8, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32],
                 epoch: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter"):
                coord = my_rank
                for _ in pl.range(3):
                    coord = coord + my_rank
                pld.system.defer_wait(signal, offsets=[coord, 0], expected=epoch, cmp=pld.WaitCmp.Ge)

    before, module = after(ScalarLoop, ["outline-incore-scopes"])
    assert "deferred_completion_waiter" in funcs(module)["waiter"].attributes
    run(module, "main", [np.zeros((8, 1), np.int32), 1, 0])  # coord = 4, inside the matrix


def test_a_tensor_carried_through_the_registration_loop_is_rejected():
    @pl.program
    class TensorCarry:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[4, 1], pl.INT32], payload: pl.Tensor[[4], pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP):
                carried = payload
                for src in pl.range(4):
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
                    carried = carried  # rebinding makes it a loop carry
                _ = carried

    outline_fails(TensorCarry, "cannot create or update payload tensors")


def _registrations(n: int, conditional: bool):
    @pl.program
    class Registrations:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[65, 1], pl.INT32], my_rank: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter") as wait_tid:
                for src in pl.range(n):
                    if conditional:
                        if src != my_rank:
                            pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
                    else:
                        pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)

    return Registrations


def test_exactly_64_static_conditions_are_allowed():
    _waiter_ok(_registrations(64, conditional=False))


def test_more_than_64_static_conditions_are_rejected():
    outline_fails(_registrations(65, conditional=True), "at most 64 conditions, but may statically register 65")


def test_a_registration_loop_with_a_run_time_trip_count_is_rejected():
    @pl.program
    class DynamicLoop:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[64, 1], pl.INT32], limit: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for src in pl.range(limit):
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)

    outline_fails(DynamicLoop, "statically known positive trip count")


def test_a_registration_loop_that_never_runs_is_rejected():
    @pl.program
    class ZeroTrips:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: Sig11):
            with pl.at(level=pl.Level.CORE_GROUP):
                for src in pl.range(0):
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)

    outline_fails(ZeroTrips, "statically known positive trip count")


def test_a_tensor_read_after_registration_in_a_branch_is_rejected():
    @pl.program
    class ReadAfter:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: Sig11, expected_values: pl.Tensor[[1], pl.INT32], my_rank: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:
                pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
                if my_rank >= 0:
                    next_expected = pl.read(expected_values, [0])
            with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid]):
                pl.read(expected_values, [0])

    outline_fails(ReadAfter, r"cannot execute tensor reads.*after.*registration")


def test_the_messages_are_the_references_words():
    assert deferred_wait.too_many(65) == "deferred waiter supports at most 64 conditions, but may statically register 65"
    assert deferred_wait.NESTED_LAUNCH.startswith("pld.system.defer_wait must be in a task-level pl.at(CORE_GROUP) scope")
