"""outline-incore-scopes: the behaviours PyPTO's own pass tests check (its
tests/ut/ir/transforms/test_outline_incore_scopes.py, 84 tests; task ids and deferred
waiters are in test_reference_outline_tasks.py), on programs written for this DSL.

Each test names the behaviour; docs/passes/outline-incore-scopes.md maps the reference
tests to these and lists the deliberate differences. Programs are compiled by the frontend
(which builds SSA, as the reference tests get from ConvertToSSA), outlined, compared
structurally (up to names) with the program the reference expects where it gives one, and
run by the interpreter before and after the pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_support import (
    IN,
    INOUT,
    OUT,
    after,
    arg_names,
    assert_same_structure,
    funcs,
    kinds,
    launches,
    op_names,
    outlined,
    params,
    same_meaning,
)
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import PassFailedException

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.attributes import SplitMode, SplitModeAttr
from pypto_xdsl.dialects.program import NO_DEP_ATTR, IncoreScopeOp, no_dep_positions
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.interpreter import parse_module
from pypto_xdsl.runtime.passes import apply_passes
from pypto_xdsl.transforms.outline_incore_scopes import outline_incore_scopes
from pypto_xdsl.transforms.verify_split_incore_orch import check_split_incore_orch

V = pl.Tensor[[64], pl.FP32]
B = pl.Tensor[[16, 128], pl.FP32]


def kernel(module: ModuleOp, name: str = "main_incore_0"):
    return funcs(module)[name]


# =========================================================================== inputs and outputs


@pl.program
class OneScope:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.add(x, x)
        return y


@pl.program
class OneScopeOutlined:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: V) -> V:
        y: V = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: V) -> V:
        y: V = self.main_incore_0(x)
        return y


def _ordered(module: ModuleOp, order: list[str]) -> ModuleOp:
    """The functions of `module` in `order` (the outlined function follows its parent)."""
    fs = funcs(module)
    for f in fs.values():
        f.detach()
    for name in order:
        module.body.block.add_op(fs[name])
    return module


def test_a_scope_becomes_an_incore_function_and_its_parent_orchestration():
    before, module = after(OneScope, ["outline-incore-scopes"])
    assert kinds(module) == {"main": "orchestration", "main_incore_0": "incore"}
    assert_same_structure(module, _ordered(OneScopeOutlined.fresh_module(), ["main", "main_incore_0"]))
    same_meaning(before, module)


@pl.program
class TwoScopes:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            z: V = pl.mul(y, y)
        return z


def test_scopes_in_sequence_are_numbered_per_function():
    before, module = after(TwoScopes, ["outline-incore-scopes"])
    assert list(funcs(module)) == ["main", "main_incore_0", "main_incore_1"]
    assert [n for n, _ in params(kernel(module, "main_incore_1"))] == ["y"]
    assert [arg_names(c) for c in launches(funcs(module)["main"])] == [["x"], ["y"]]
    same_meaning(before, module)


@pl.program
class WithPlainHelper:
    @pl.function
    def helper(self, x: V) -> V:
        result: V = pl.add(x, x)
        return result

    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.mul(x, x)
        return y


def test_a_function_without_scopes_is_left_unchanged():
    before, module = after(WithPlainHelper, ["outline-incore-scopes"])
    assert kinds(module) == {"helper": "opaque", "main": "orchestration", "main_incore_0": "incore"}
    assert str(funcs(module)["helper"]) == str(funcs(before)["helper"])


@pl.program
class TwoInputs:
    @pl.function
    def main(self, x: V, y: V) -> V:
        a: V = pl.add(x, y)
        b: V = pl.mul(x, y)
        with pl.at(level=pl.Level.CORE_GROUP):
            result: V = pl.add(a, b)
        return result


def test_inputs_are_the_values_the_scope_reads_in_first_read_order():
    before, module = after(TwoInputs, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("a", IN), ("b", IN)]
    same_meaning(before, module)


@pl.program
class TwoOutputs:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.add(x, x)
            z: V = pl.mul(x, x)
        result: V = pl.add(y, z)
        return result


def test_two_values_used_after_the_scope_are_two_results_of_the_call():
    before, module = after(TwoOutputs, ["outline-incore-scopes"])
    k = kernel(module)
    assert len(k.function_type.outputs) == 2
    ret = k.body.block.last_op
    assert [o.owner.name for o in ret.operands] == ["pypto.tensor.add", "pypto.tensor.mul"]  # (y, z)
    (call,) = launches(funcs(module)["main"])
    add = next(op for op in funcs(module)["main"].body.ops if op.name == "pypto.tensor.add")
    assert list(add.operands) == list(call.results)  # no tuple temporary
    same_meaning(before, module)


def test_nested_scopes_are_rejected_by_the_frontend_and_the_verifier():
    with pytest.raises(ParserError, match="pl.at scopes cannot be nested"):

        @pl.program
        class Nested:
            @pl.function
            def main(self, x: V) -> V:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: V = pl.add(x, x)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        z: V = pl.mul(y, y)
                return z

    module = OneScope.fresh_module()  # nest a scope by hand: IR the parser would refuse
    (scope,) = [op for op in module.walk() if isinstance(op, IncoreScopeOp)]
    inner = IncoreScopeOp([], Region(Block()))
    from pypto_xdsl.dialects.program import YieldOp

    inner.body.block.add_op(YieldOp())
    scope.body.block.insert_op_before(inner, scope.body.block.last_op)
    report = check_split_incore_orch(module)
    assert any(e.startswith("nested InCore scope detected in @main") for e in report.errors)


@pl.program
class InputToOutput:
    @pl.function
    def main(self, x: V) -> V:
        a: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.mul(a, a)
        result: V = pl.add(y, y)
        return result


def test_one_input_defined_before_and_one_output_used_after():
    before, module = after(InputToOutput, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("a", IN)]
    assert len(kernel(module).function_type.outputs) == 1
    same_meaning(before, module)


@pl.program
class TwoParents:
    @pl.function
    def func1(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.add(x, x)
        return y

    @pl.function
    def func2(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.mul(x, x)
        return y


def test_each_parent_numbers_its_own_scopes():
    before, module = after(TwoParents, ["outline-incore-scopes"])
    assert kinds(module) == {
        "func1": "orchestration", "func1_incore_0": "incore", "func2": "orchestration", "func2_incore_0": "incore",
    }
    same_meaning(before, module, "func1")
    same_meaning(before, module, "func2")


@pl.program
class ScopeInBranch:
    @pl.function
    def main(self, x: V, cond: pl.Scalar[pl.BOOL]) -> V:
        if cond:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: V = pl.add(x, x)
        else:
            y: V = pl.mul(x, x)
        return y


def test_a_scope_in_a_branch_becomes_a_call_in_that_branch():
    before, module = after(ScopeInBranch, ["outline-incore-scopes"])
    main = funcs(module)["main"]
    (call,) = launches(main)
    branch = call.parent_op()
    assert branch.name == "scf.if" and call.parent_block() is branch.true_region.block
    assert params(kernel(module)) == [("x", IN)]
    same_meaning(before, module)


@pl.program
class BranchInScope:
    @pl.function
    def main(self, x: V, cond: pl.Scalar[pl.BOOL]) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            if cond:
                z = pl.yield_(pl.add(x, x))
            else:
                z = pl.yield_(pl.mul(x, x))
        return z


def test_a_branch_in_a_scope_reads_its_condition_first():
    before, module = after(BranchInScope, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("cond", IN), ("x", IN)]
    ret = kernel(module).body.block.last_op
    assert ret.operands[0].owner.name == "scf.if"  # returns the branch's result
    same_meaning(before, module)


@pl.program
class Intermediate:
    @pl.function
    def main(self, x: V) -> V:
        a: V = pl.add(x, x)
        b: V = pl.mul(a, a)
        with pl.at(level=pl.Level.CORE_GROUP):
            c: V = pl.add(b, b)
            d: V = pl.mul(c, c)
        e: V = pl.add(d, d)
        return e


def test_only_values_crossing_the_scope_are_inputs_and_outputs():
    before, module = after(Intermediate, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("b", IN)]
    ret = kernel(module).body.block.last_op
    assert [v.name_hint for v in ret.operands] == ["d"]
    same_meaning(before, module)


# =========================================================================== writes and directions


@pl.program
class StoreOnly:
    @pl.function
    def main(self, x: B) -> B:
        buf: B = pl.create_tensor([16, 128], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
            pl.store(tile, [0, 0], buf)
        result: B = pl.add(buf, x)
        return result


def test_a_store_only_scope_returns_the_written_parameter_and_later_reads_see_the_write():
    before, module = after(StoreOnly, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("buf", OUT)]
    assert k.body.block.last_op.operands[0] is k.args[0]  # the parameter, not the store result
    main = funcs(module)["main"]
    (call,) = launches(main)
    add = next(op for op in main.body.ops if op.name == "pypto.tensor.add")
    assert add.operands[0] is call.results[0]  # ordered after the write by data flow
    same_meaning(before, module)


@pl.program
class TwoStoreTargets:
    @pl.function
    def main(self, x: B) -> B:
        buf_a: B = pl.create_tensor([16, 128], dtype=pl.FP32)
        buf_b: pl.Tensor[[16, 1], pl.FP32] = pl.create_tensor([16, 1], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile_a = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
            tile_b = pl.tile.full([16, 1], dtype=pl.FP32, value=0.0)
            pl.store(tile_a, [0, 0], buf_a)
            pl.store(tile_b, [0, 0], buf_b)
        result: B = pl.add(buf_a, x)
        return result


def test_several_store_targets_are_all_returned_in_first_store_order():
    before, module = after(TwoStoreTargets, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("buf_a", OUT), ("buf_b", OUT)]
    assert list(k.body.block.last_op.operands) == list(k.args)  # (buf_a, buf_b): deterministic
    main = funcs(module)["main"]
    (call,) = launches(main)
    add = next(op for op in main.body.ops if op.name == "pypto.tensor.add")
    assert add.operands[0] is call.results[0]
    same_meaning(before, module)


@pl.program
class FourWrites:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            tile0 = pl.load(a, [0, 0], [32, 32])
            pl.store(tile0, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile1 = pl.load(a, [0, 0], [32, 32])
            pl.store(tile1, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile2 = pl.load(a, [0, 0], [32, 32])
            pl.store(tile2, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile3 = pl.load(a, [0, 0], [32, 32])
            pl.store(tile3, [0, 0], out)
        return out


def test_scopes_writing_one_tensor_chain_their_calls_and_the_return_reads_the_last():
    before, module = after(FourWrites, ["outline-incore-scopes"])
    assert len(funcs(module)) == 5
    main = funcs(module)["main"]
    calls = launches(main)
    assert calls[0].args[1] is main.args[1]
    for prev, nxt in zip(calls, calls[1:]):
        assert nxt.args[1] is prev.results[0]
    assert main.body.block.last_op.operands[0] is calls[-1].results[0]
    module.verify()  # every value is used in the function that defines it
    same_meaning(before, module)


@pl.program
class InnerLoopFromOuterCarry:
    @pl.function
    def main(self, x: V, y: V) -> V:
        for i, (acc,) in pl.range(3, init_values=(x,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                for j, (inner,) in pl.range(2, init_values=(acc,)):
                    updated: V = pl.add(inner, y)
                    inner_rv = pl.yield_(updated)
            acc_rv = pl.yield_(inner_rv)
        return acc_rv


def test_an_inner_loop_initialised_from_an_outer_carry_captures_the_carry():
    before, module = after(InnerLoopFromOuterCarry, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("acc", IN), ("y", IN)]
    # The inner loop computes a fresh tensor each iteration: its result is returned as is
    # (the reference traces it to the init parameter, see the pass page).
    ret = kernel(module).body.block.last_op
    assert ret.operands[0].owner.name == "scf.for"
    same_meaning(before, module)


@pl.program
class InPlaceInnerLoop:
    @pl.function
    def main(self, x: pl.Tensor[[8], pl.FP32], y: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        for i, (acc,) in pl.range(3, init_values=(x,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                for j, (inner,) in pl.range(2, init_values=(acc,)):
                    t = pl.load(y, [0], [8])
                    updated = pl.store(t, [0], inner)
                    inner_rv = pl.yield_(updated)
            acc_rv = pl.yield_(inner_rv)
        return acc_rv


def test_an_inner_loop_writing_in_place_returns_the_captured_carry():
    before, module = after(InPlaceInnerLoop, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("acc", OUT), ("y", IN)]
    assert k.body.block.last_op.operands[0] is k.args[0]  # the parameter itself
    same_meaning(before, module)


@pl.program
class CarryNotInit:
    @pl.function
    def main(self, init: V, y: V) -> V:
        for sb, (acc,) in pl.range(4, init_values=(init,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                result: V = pl.add(acc, y)
            acc_rv = pl.yield_(result)
        return acc_rv


@pl.program
class CarryNotInitOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, init: V, y: V) -> V:
        for sb, (acc,) in pl.range(4, init_values=(init,)):
            result: V = self.main_incore_0(acc, y)
            acc_rv = pl.yield_(result)
        return acc_rv

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, acc: V, y: V) -> V:
        result: V = pl.add(acc, y)
        return result


def test_a_scope_in_a_loop_captures_the_iteration_argument_not_the_init():
    before, module = after(CarryNotInit, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("acc", IN), ("y", IN)]
    assert_same_structure(module, CarryNotInitOutlined.fresh_module())
    same_meaning(before, module)


@pl.program
class AssembleWriteOnly:
    @pl.function
    def main(self, dst: V, src: pl.Tensor[[32], pl.FP32]) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            updated: V = pl.assemble(dst, src, [0])
        return updated


@pl.program
class AssembleWriteOnlyOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, dst: V, src: pl.Tensor[[32], pl.FP32]) -> V:
        updated: V = self.main_incore_0(dst, src)
        return updated

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, dst: pl.Out[V], src: pl.Tensor[[32], pl.FP32]) -> V:
        updated: V = pl.assemble(dst, src, [0])  # noqa: F841 (the assemble result is never read)
        return dst


def test_an_assemble_destination_never_read_is_out_and_parameters_follow_the_call_as_written():
    before, module = after(AssembleWriteOnly, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("dst", OUT), ("src", IN)]  # pl.assemble(dst, src, ...): dst first
    assert k.body.block.last_op.operands[0] is k.args[0]
    assert_same_structure(module, AssembleWriteOnlyOutlined.fresh_module())
    same_meaning(before, module)


@pl.program
class AssembleReadToo:
    @pl.function
    def main(self, dst: V, src: pl.Tensor[[32], pl.FP32]) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            head: pl.Tensor[[32], pl.FP32] = pl.tensor.slice(dst, [32], [0], [], [])
            mixed: pl.Tensor[[32], pl.FP32] = pl.add(head, src)
            updated: V = pl.assemble(dst, mixed, [0])
        return updated


def test_an_assemble_destination_also_read_through_a_slice_is_inout():
    before, module = after(AssembleReadToo, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("dst", INOUT), ("src", IN)]
    assert k.body.block.last_op.operands[0] is k.args[0]
    same_meaning(before, module)


@pl.program
class ReadBackThroughAlias:
    @pl.function
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
            out2 = pl.store(t, [0, 0], out)
            back: pl.Tile[[128, 128], pl.FP32] = pl.load(out2, [256, 0], [128, 128])
            out3 = pl.store(back, [384, 0], out2)
        return out3


def test_reading_the_result_of_a_store_reads_the_destination_inout():
    before, module = after(ReadBackThroughAlias, ["outline-incore-scopes"])
    assert dict(params(kernel(module)))["out"] == INOUT
    same_meaning(before, module)


@pl.program
class AtomicStore:
    @pl.function
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
            out = pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
        return out


@pl.program
class AtomicAssemble:
    @pl.function
    def main(self, src: pl.Tensor[[32], pl.FP32], dst: pl.Out[V]) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            dst = pl.assemble(dst, src, [0], atomic=pl.AtomicType.Add)
        return dst


@pytest.mark.parametrize(("program", "name"), [(AtomicStore, "out"), (AtomicAssemble, "dst")], ids=["store", "assemble"])
def test_an_atomic_write_reads_its_destination_inout(program, name):
    before, module = after(program, ["outline-incore-scopes"])
    assert dict(params(kernel(module)))[name] == INOUT
    same_meaning(before, module)


@pl.program
class DumpedStoreTarget:
    @pl.function
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
            out = pl.store(t, [0, 0], out)
        return out


def test_dumping_a_tensor_is_not_reading_it():
    before, module = after(DumpedStoreTarget, ["outline-incore-scopes"])
    assert dict(params(kernel(module)))["out"] == OUT
    (call,) = launches(funcs(module)["main"])
    assert [d.name_hint for d in call.dumps] == ["out"]
    same_meaning(before, module)


@pl.program
class SpmdRows:
    @pl.function(type=pl.FunctionType.Orchestration)
    def outline_out_direction(
        self, src: pl.Tensor[[8, 8], pl.INT32], dst: pl.Out[pl.Tensor[[8, 8], pl.INT32]]
    ) -> pl.Tensor[[8, 8], pl.INT32]:
        for row in pl.spmd(8, name_hint="fill_rows"):
            t: pl.Tensor[[1, 8], pl.INT32] = pl.tensor.slice(src, [1, 8], [row, 0], [], [])
            dst = pl.assemble(dst, t, [row, 0])
        return dst


def test_an_spmd_scope_assembling_rows_keeps_its_out_parameter_out_on_both_sides():
    before, module = after(SpmdRows, ["outline-incore-scopes"])
    assert dict(params(funcs(module)["fill_rows"]))["dst"] == OUT
    assert dict(params(funcs(module)["outline_out_direction"]))["dst"] == OUT
    same_meaning(before, module, "outline_out_direction")


@pl.program
class ChipOrchestrator:
    @pl.function(level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def chip_orch(self, src: pl.Tensor[[8, 128], pl.FP32], dst: pl.Out[pl.Tensor[[8, 128], pl.FP32]]) -> pl.Tensor[[8, 128], pl.FP32]:
        for row in pl.spmd(8, name_hint="fill_rows"):
            t: pl.Tile[[1, 128], pl.FP32] = pl.load(src, [row, 0], [1, 128])
            dst = pl.store(t, [row, 0], dst)
        return dst


def test_the_out_direction_survives_to_the_chip_level_formal_through_tensor_to_tile():
    assert kinds(ChipOrchestrator.module) == {"chip_orch": "orchestration"}
    before, module = after(ChipOrchestrator, ["outline-incore-scopes", "convert-tensor-to-tile"])
    for name in ("chip_orch", "fill_rows"):
        assert dict(params(funcs(module)[name]))["dst"] == OUT, name
    same_meaning(before, module, "chip_orch")


@pl.program
class ScopeInWhile:
    @pl.function
    def main(self, x: V, y: V, n: pl.Scalar[pl.INDEX]) -> V:
        for acc, c in pl.while_(init_values=(x, 0)):
            pl.cond(c < n)
            with pl.at(level=pl.Level.CORE_GROUP):
                updated: V = pl.add(acc, y)
            c_new: pl.Scalar[pl.INDEX] = c + 1
            acc_rv, c_rv = pl.yield_(updated, c_new)
        return acc_rv


@pl.program
class ScopeInWhileOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: V, y: V, n: pl.Scalar[pl.INDEX]) -> V:
        for acc, c in pl.while_(init_values=(x, 0)):
            pl.cond(c < n)
            updated: V = self.main_incore_0(acc, y)
            c_new: pl.Scalar[pl.INDEX] = c + 1
            acc_rv, c_rv = pl.yield_(updated, c_new)
        return acc_rv

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, acc: V, y: V) -> V:
        updated: V = pl.add(acc, y)
        return updated


def test_a_scope_in_a_while_loop_captures_the_carried_value_not_the_init():
    before, module = after(ScopeInWhile, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("acc", IN), ("y", IN)]
    assert_same_structure(module, ScopeInWhileOutlined.fresh_module())
    x, y = np.ones(64, np.float32), np.full(64, 2.0, np.float32)
    np.testing.assert_allclose(ScopeInWhile.run(x, y, 3), x + 3 * y)
    same_meaning(before, module, dims={})


# =========================================================================== SPMD


@pl.program
class SpmdStore:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in pl.spmd(4):
            offset = i * 128
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            out = pl.store(t, [offset, 0], out)
        return out


def test_an_spmd_scope_is_outlined_and_the_call_runs_on_its_core_count():
    before, module = after(SpmdStore, ["outline-incore-scopes"])
    k = kernel(module)
    assert params(k) == [("a", IN), ("out", OUT)]
    assert next(iter(k.body.block.ops)).name == "pypto.tile.get_block_idx"
    (call,) = launches(funcs(module)["main"])
    assert call.attributes["pypto.block_dim"].value.data == 4
    assert funcs(module)["main"].body.block.last_op.operands[0] is call.results[0]
    same_meaning(before, module)


# =========================================================================== SplitIncoreOrch verifier


def test_an_outlined_program_passes_split_incore_orch():
    report = check_split_incore_orch(outlined(OneScope))
    assert report.errors == [] and report.warnings == []


def test_a_scope_left_in_an_opaque_function_fails_split_incore_orch():
    report = check_split_incore_orch(OneScope.fresh_module())
    assert report.errors == [
        "InCore scope (pypto.incore_scope) found in non-InCore function @main (should have been outlined)"
    ]


@pl.program
class ComputeBeforeScope:
    @pl.function
    def main(self, x: V) -> V:
        a: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.mul(a, a)
        return y


def test_compute_left_in_orchestration_is_a_warning_not_an_error():
    report = check_split_incore_orch(outlined(ComputeBeforeScope))
    assert report.errors == []
    assert report.warnings == [
        "compute tensor op 'pypto.tensor.add' found in orchestration function @main (should be inside InCore)"
    ]


@pl.program
class Reinterpret:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 32], pl.INT16]:
        return pl.tensor.reinterpret_view(x, pl.INT16)


def test_reinterpret_view_is_metadata_in_orchestration():
    module = Reinterpret.fresh_module()
    assert op_names(funcs(module)["main"]) == ["pypto.tensor.reinterpret_view", "pypto.return"]
    report = check_split_incore_orch(module)
    assert not any("reinterpret_view" in m for m in [*report.errors, *report.warnings])
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    np.testing.assert_array_equal(Reinterpret.run(x), x.view(np.int16))


def test_outlining_a_clean_program_raises_nothing_and_verifies():
    module = OneScope.fresh_module()
    assert outline_incore_scopes(module) == 1
    module.verify()
    apply_passes(module, ["verify-split-incore-orch"])


@pl.program
class ComputeAround:
    @pl.function
    def main(self, x: V) -> V:
        a: V = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.mul(a, a)
        result: V = pl.add(y, y)
        return result


@pl.program
class ComputeAroundOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: V) -> V:
        a: V = pl.add(x, x)
        y: V = self.main_incore_0(a)
        result: V = pl.add(y, y)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: V) -> V:
        y: V = pl.mul(a, a)
        return y


def test_compute_before_and_after_the_scope_stays_in_orchestration():
    before, module = after(ComputeAround, ["outline-incore-scopes", "verify-split-incore-orch"])
    assert_same_structure(module, ComputeAroundOutlined.fresh_module())
    same_meaning(before, module)


# =========================================================================== names


def _named(*hints: str | None, functions: tuple[str, ...] = ("main",)) -> ModuleOp:
    body = []
    for fn in functions:
        scopes = "\n".join(
            f"""    {'%r' + str(i)} = pypto.incore_scope {f'name("{h}") ' if h else ''}-> (!pypto.tensor<[64], f32>) {{
      %s{i} = pypto.tensor.add %x, %x : !pypto.tensor<[64], f32>
      pypto.yield %s{i} : !pypto.tensor<[64], f32>
    }}"""
            for i, h in enumerate(hints)
        )
        body.append(
            f"""  pypto.func @{fn}(%x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {{
{scopes}
    pypto.return %r{len(hints) - 1} : !pypto.tensor<[64], f32>
  }}"""
        )
    return parse_module("builtin.module {\n" + "\n".join(body) + "\n}")


@pl.program
class Named:
    @pl.function
    def main(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused_add"):
            y: V = pl.add(x, x)
        return y


def test_a_named_scope_gives_its_name_to_the_function():
    assert list(funcs(outlined(Named))) == ["main", "fused_add"]


def test_a_named_scope_still_takes_a_counter_slot():
    module = _named("first_kernel", None)
    outline_incore_scopes(module)
    assert list(funcs(module)) == ["main", "first_kernel", "main_incore_1"]


def test_the_same_name_twice_in_one_function_gets_a_numeric_suffix():
    module = _named("my_kernel", "my_kernel")
    outline_incore_scopes(module)
    assert list(funcs(module)) == ["main", "my_kernel", "my_kernel_0"]


def test_the_same_name_in_two_functions_is_namespaced_under_the_second():
    module = _named("dup", functions=("fn_a", "fn_b"))
    outline_incore_scopes(module)
    assert list(funcs(module)) == ["fn_a", "dup", "fn_b", "fn_b_dup"]


# =========================================================================== no_dep_args


@pl.program
class NoDepInput:
    @pl.function
    def main(self, x: V, w: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[w]):
            y: V = pl.add(x, w)
        return y


def test_no_dep_args_become_argument_positions_on_the_call():
    before, module = after(NoDepInput, ["outline-incore-scopes"])
    (call,) = launches(funcs(module)["main"])
    assert arg_names(call) == ["x", "w"]
    assert no_dep_positions(call) == (1,)  # w, the second capture
    assert str(call.attributes[NO_DEP_ATTR]) == "array<i64: 1>"
    assert "no_dep(" not in str(call)  # the scope's operand group does not survive
    same_meaning(before, module)


def test_only_the_marked_slot_is_no_dep():
    (call,) = launches(funcs(outlined(NoDepInput))["main"])
    assert 0 not in no_dep_positions(call) and 1 in no_dep_positions(call)


@pl.program
class NoDepWritten:
    @pl.function
    def main(self, x: V, k_cache: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[k_cache]):
            k_cache = pl.assemble(k_cache, x, [0])
        return k_cache


def test_a_no_dep_capture_the_scope_writes_stays_out_and_is_marked():
    before, module = after(NoDepWritten, ["outline-incore-scopes"])
    (call,) = launches(funcs(module)["main"])
    k_slot = arg_names(call).index("k_cache")
    assert no_dep_positions(call) == (k_slot,)
    assert params(kernel(module))[k_slot] == ("k_cache", OUT)
    module.verify()
    same_meaning(before, module)


def test_a_no_dep_value_the_scope_does_not_capture_is_an_error():
    module = parse_module("""
builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %w: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %r = pypto.incore_scope no_dep(%w : !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>) {
      %y = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield %y : !pypto.tensor<[8], f32>
    }
    pypto.return %r : !pypto.tensor<[8], f32>
  }
}""")
    with pytest.raises(PassFailedException, match=r"no_dep_args=\[\.\.\.\]\) references tensor 'w', which is not captured"):
        outline_incore_scopes(module)


# =========================================================================== split / split_aiv


R = pl.Tensor[[512, 128], pl.FP32]


@pl.program
class TopLevelRegion:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: R, b: R, out: pl.Out[R]) -> R:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            offset = aiv_id * 128
            tile_a: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            tile_b: pl.Tile[[128, 128], pl.FP32] = pl.load(b, [offset, 0], [128, 128])
            out = pl.store(pl.add(tile_a, tile_b), [offset, 0], out)
        return out


def _attrs(func) -> dict[str, str]:
    return {k: str(v) for k, v in func.attributes.items()}


def test_a_top_level_split_aiv_region_stamps_split_and_split_aiv():
    before, module = after(TopLevelRegion, ["outline-incore-scopes"])
    assert _attrs(kernel(module)) == {"split": "#pypto<split up_down>", "split_aiv": "unit"}
    same_meaning(before, module)


def _split_with_region(mode: pl.SplitMode) -> None:
    @pl.program
    class Mixed:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: R, out: pl.Out[R]) -> R:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(mode)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [aiv_id * 128, 0], [128, 128])
                    out = pl.store(t, [aiv_id * 128, 0], out)
            return out


@pytest.mark.parametrize("mode", [pl.SplitMode.UP_DOWN, pl.SplitMode.NONE], ids=["up_down", "none"])
def test_a_function_level_split_with_a_split_aiv_region_is_rejected_by_the_frontend(mode):
    with pytest.raises(ParserError, match="mutually exclusive"):
        _split_with_region(mode)


def test_a_split_stamped_after_the_frontend_is_rejected_by_the_pass():
    module = TopLevelRegion.fresh_module()
    (scope,) = [op for op in module.walk() if isinstance(op, IncoreScopeOp)]
    scope.split = SplitModeAttr(SplitMode.UP_DOWN)  # bypasses the frontend (and the op verifier)
    text = str(module)
    with pytest.raises(PassFailedException, match="mutually exclusive"):
        outline_incore_scopes(module)
    assert str(module) == text


@pl.program
class SlotsAndRegion:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: R, out: pl.Out[R]) -> R:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                offset = aiv_id * 128
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                out = pl.store(t, [offset, 0], out)
        return out


def test_a_cross_core_slot_count_coexists_with_split_aiv_regions():
    before, module = after(SlotsAndRegion, ["outline-incore-scopes"])
    assert _attrs(funcs(module)["k"]) == {"split": "#pypto<split up_down>", "slot_num": "4 : i64", "split_aiv": "unit"}
    same_meaning(before, module)


@pl.program
class TwoModes:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             out_ud: pl.Out[pl.Tensor[[128, 128], pl.FP32]], out_lr: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                off_ud = aiv_id * 64
                ta: pl.Tile[[64, 128], pl.FP32] = pl.load(a, [off_ud, 0], [64, 128])
                out_ud = pl.store(pl.add(ta, ta), [off_ud, 0], out_ud)
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                off_lr = aiv_id2 * 64
                tb: pl.Tile[[128, 64], pl.FP32] = pl.load(b, [0, off_lr], [128, 64])
                out_lr = pl.store(pl.add(tb, tb), [0, off_lr], out_lr)
        return out_ud


def test_regions_of_different_modes_stamp_split_aiv_but_no_split():
    before, module = after(TwoModes, ["outline-incore-scopes"])
    assert _attrs(funcs(module)["k"]) == {"split_aiv": "unit"}
    same_meaning(before, module)


@pl.program
class TopLevelRegionOutlined:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: R, b: R, out: pl.Out[R]) -> R:
        out2: R = self.main_incore_0(a, b, out)
        return out2

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: R, b: R, out: pl.Out[R]) -> R:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            offset: pl.Scalar[pl.INDEX] = aiv_id * 128
            tile_a: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            tile_b: pl.Tile[[128, 128], pl.FP32] = pl.load(b, [offset, 0], [128, 128])
            out = pl.store(pl.add(tile_a, tile_b), [offset, 0], out)
        return out


def test_the_split_aiv_region_stays_bare_in_the_outlined_body():
    module = outlined(TopLevelRegion)
    k = kernel(module)
    assert [op.name for op in k.body.block.ops][-2:] == ["pypto.split_aiv", "pypto.return"]
    assert params(k) == [("a", IN), ("b", IN), ("out", OUT)]
    expected = TopLevelRegionOutlined.fresh_module()
    kernel(expected).attributes.update(kernel(module).attributes)
    assert_same_structure(module, expected)


def test_the_lane_index_is_defined_in_the_region_not_a_parameter():
    k = kernel(outlined(TopLevelRegion))
    assert not any("aiv_id" in (n or "") for n, _ in params(k))
    region = next(op for op in k.body.block.ops if op.name == "pypto.split_aiv")
    assert region.lane.name_hint == "aiv_id"


@pl.program
class NoneRegion:
    @pl.function
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            base = aiv_id * 64
            c = pl.store(pl.exp(pl.load(a, [base, 0], [64, 128])), [base, 0], c)
        return c


@pl.program
class UpDownRegion:
    @pl.function
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            c = pl.store(pl.exp(pl.load(a, [0, 0], [128, 128])), [0, 0], c)
        return c


def test_a_none_mode_region_stamps_split_aiv_alone():
    assert _attrs(kernel(outlined(NoneRegion))) == {"split_aiv": "unit"}


def test_an_up_down_region_stamps_the_function_level_split():
    assert _attrs(kernel(outlined(UpDownRegion))) == {"split_aiv": "unit", "split": "#pypto<split up_down>"}


# =========================================================================== a rebound out capture


C = pl.Tensor[[128, 128], pl.FP32]


@pl.program
class ReboundOut:
    @pl.function
    def main(self, a: C, c: pl.Out[C]) -> C:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.store(pl.exp(pl.load(a, [0, 0], [128, 128])), [0, 0], c)
        return c


def test_a_rebound_out_capture_is_an_out_parameter_and_passed_by_the_call():
    before, module = after(ReboundOut, ["outline-incore-scopes"])
    assert params(kernel(module)) == [("a", IN), ("c", OUT)]
    (call,) = launches(funcs(module)["main"])
    assert arg_names(call) == ["a", "c"]
    same_meaning(before, module)


def test_the_outlined_program_round_trips_through_text():
    module = outlined(ReboundOut)
    reparsed = parse_module(str(module))
    assert reparsed.is_structurally_equivalent(module)
    assert str(reparsed) == str(module)


def test_a_rebound_out_capture_in_a_split_aiv_region_is_a_parameter_and_reparses():
    module = outlined(NoneRegion)
    assert params(kernel(module)) == [("a", IN), ("c", OUT)]
    assert parse_module(str(module)).is_structurally_equivalent(module)


@pl.program
class ReboundTwice:
    @pl.function
    def main(self, a: C, c: pl.Out[C]) -> C:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.store(pl.exp(pl.load(a, [0, 0], [64, 128])), [0, 0], c)
            c = pl.store(pl.exp(pl.load(a, [64, 0], [64, 128])), [64, 0], c)
        return c


def test_two_stores_bind_two_results_and_never_the_parameter():
    before, module = after(ReboundTwice, ["outline-incore-scopes"])
    k = kernel(module)
    stores = [op for op in k.body.block.ops if op.name == "pypto.tile.store"]
    assert len(stores) == 2 and stores[0].result is not stores[1].result
    assert all(s.result is not k.args[1] for s in stores)
    assert stores[0].dest is k.args[1] and stores[1].dest is stores[0].result
    module.verify()
    same_meaning(before, module)


def test_outlining_the_frontend_output_and_its_reparsed_text_agree():
    direct = outlined(ReboundOut)
    text = parse_module(str(ReboundOut.fresh_module()))
    outline_incore_scopes(text)
    assert params(kernel(direct)) == params(kernel(text)) == [("a", IN), ("c", OUT)]


# =========================================================================== dim reads


M_DYN = pl.dynamic("M_DYN")
DynT = pl.Tensor[[M_DYN, 128], pl.FP32]


@pl.program
class DynOpaque:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: DynT, out: pl.InOut[DynT]) -> DynT:
        m = pl.tensor.dim(a, 0)
        with pl.spmd(m // 16):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
            out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out


@pl.program
class DynOrchestration:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: DynT, out: pl.InOut[DynT]) -> DynT:
        m = pl.tensor.dim(a, 0)
        with pl.spmd(m // 16):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
            out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out


def _dim_reads(module: ModuleOp) -> list:
    return [op for op in funcs(module)["main"].body.ops if op.name == "pypto.tensor.dim"]


def test_an_opaque_parent_outlines_like_the_same_program_declared_orchestration():
    before, module = after(DynOpaque, ["outline-incore-scopes"])
    assert_same_structure(module, outlined(DynOrchestration))
    (call,) = launches(funcs(module)["main"])
    assert call.cores[0].owner.name == "arith.floordivsi"  # m // 16, read at run time
    assert len(_dim_reads(module)) == 1  # the read is the symbol's value (no SSA symbol to fold onto)
    same_meaning(before, module, dims={"M_DYN": 64})


@pl.program
class TransitiveDim:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: DynT, out: pl.InOut[DynT]) -> DynT:
        m = pl.tensor.dim(a, 0)
        tmp: pl.Tensor[[None, 128], pl.FP32] = pl.create_tensor([m, 128], dtype=pl.FP32)
        n = pl.tensor.dim(tmp, 0)
        with pl.spmd(n // 16):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
            out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out


def test_dim_reads_feeding_the_core_count_round_trip_through_text():
    before, module = after(TransitiveDim, ["outline-incore-scopes"])
    assert str(parse_module(str(module))) == str(module)
    same_meaning(before, module, dims={"M_DYN": 32})


@pl.program
class DimUsedInside:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: DynT, out: pl.InOut[DynT]) -> DynT:
        m = pl.tensor.dim(a, 0)
        with pl.spmd(m // 16):
            i = pl.tile.get_block_idx()
            lim = m - 16
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [min(i * 16, lim), 0], [16, 128])
            out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out


def test_a_dim_read_used_inside_the_scope_is_a_scalar_parameter():
    before, module = after(DimUsedInside, ["outline-incore-scopes"])
    k = kernel(module)
    first = k.args[0]
    assert str(first.type) == "index" and first.name_hint == "m"
    (call,) = launches(funcs(module)["main"])
    assert call.args[0] is _dim_reads(module)[0].result
    same_meaning(before, module, dims={"M_DYN": 48})


@pl.program
class StaticDim:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: DynT, out: pl.InOut[DynT]) -> DynT:
        cols = pl.tensor.dim(a, 1)
        with pl.spmd(cols // 64):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, i * 64], [16, 64])
            out = pl.store(pl.add(t, t), [0, i * 64], out)
        return out


def test_a_dim_read_of_a_static_extent_is_kept():
    before, module = after(StaticDim, ["outline-incore-scopes"])
    assert len(_dim_reads(module)) == 1
    same_meaning(before, module, dims={"M_DYN": 16})


@pl.program
class DimNoScope:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: DynT) -> pl.Scalar[pl.INDEX]:
        m = pl.tensor.dim(a, 0)
        return m


def test_an_opaque_function_without_scopes_keeps_its_kind_and_dim_read():
    module = outlined(DimNoScope)
    assert kinds(module) == {"main": "opaque"}
    assert len(_dim_reads(module)) == 1


# =========================================================================== graph functions


@pl.program
class GraphWithScope:
    @pl.function(type=pl.FunctionType.Graph)
    def layer(self, x: V) -> V:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: V = pl.add(x, x)
        return y


@pl.program
class GraphWithoutScope:
    @pl.function(type=pl.FunctionType.Graph)
    def layer(self, x: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        return x


def test_a_graph_function_is_outlined_and_stays_graph():
    before, module = after(GraphWithScope, ["outline-incore-scopes"])
    assert kinds(module) == {"layer": "graph", "layer_incore_0": "incore"}
    same_meaning(before, module, "layer")


def test_a_graph_function_without_scopes_stays_graph():
    assert kinds(outlined(GraphWithoutScope)) == {"layer": "graph"}


def test_an_opaque_function_with_a_scope_still_becomes_orchestration():
    assert kinds(outlined(OneScope))["main"] == "orchestration"
