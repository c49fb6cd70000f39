"""Memoised op verification (`pypto_op_definition`) catches everything IRDL's verifier does.

A signature seen once is skipped on later sights only for checks that depend on nothing else;
each test verifies a good op first (so its signature is remembered), then breaks a second op
with the same signature in one way the memo must not hide.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, f16, f32, i64
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.attributes import MemorySpace, TensorType, TileType
from pypto_xdsl.dialects.verification import SignatureMemo, memoisable

T = TensorType([8, 16], f32)


def add_op() -> tensor.AddOp:
    return tensor.AddOp(create_ssa_value(T), create_ssa_value(T))


def test_a_remembered_signature_is_verified_without_irdl_checks(monkeypatch):
    add_op().verify()
    calls = []
    op_def = tensor.AddOp.get_irdl_definition()
    original = type(op_def).verify
    monkeypatch.setattr(type(op_def), "verify", lambda self, op: (calls.append(op), original(self, op)))
    add_op().verify()
    assert calls == []


def test_a_wrong_result_type_with_new_instances_is_reported():
    add_op().verify()
    bad = add_op()
    bad.results[0]._type = TensorType([8, 16], f16)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(VerifyException, match="result #0 has type"):
        bad.verify()


def test_a_result_type_changed_after_verification_is_reported():
    op = add_op()
    op.verify()
    op.results[0]._type = TensorType([8, 8], f32)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(VerifyException, match="result #0 has type"):
        op.verify()


def test_an_operand_of_the_wrong_kind_is_reported_with_irdls_message():
    add_op().verify()
    scalar = create_ssa_value(f32)
    bad = tensor.AddOp.create(operands=[scalar, create_ssa_value(T)], result_types=[T])
    with pytest.raises(VerifyException) as info:
        bad.verify()
    with pytest.raises(VerifyException) as irdl:
        tensor.AddOp.get_irdl_definition().verify(bad)
    assert str(irdl.value) in str(info.value)


def test_traits_are_still_checked_on_a_remembered_signature():
    """`pypto.return` must be inside a pypto.func (HasParent): same signature, wrong parent."""
    value = create_ssa_value(T)
    func = program.FuncOp("f", [T], [T])
    ret = program.ReturnOp(func.args[0])
    func.body.block.add_op(ret)
    func.verify()
    stray = program.ReturnOp(value)
    ModuleOp([stray])
    with pytest.raises(VerifyException, match="expects parent op 'pypto.func'"):
        stray.verify()
    detached = program.ReturnOp(create_ssa_value(T))
    Block([detached])
    detached.verify()  # no parent op: nothing to check it against


def test_call_verification_still_checks_the_callee_on_a_remembered_signature():
    module_text_ok = program.FuncOp("g", [T], [T])
    module_text_ok.body.block.add_op(program.ReturnOp(module_text_ok.args[0]))
    main = program.FuncOp("main", [T], [T])
    good = program.CallOp("g", [main.args[0]], [T])
    missing = program.CallOp("nowhere", [main.args[0]], [T])
    main.body.block.add_ops([good, missing, program.ReturnOp(good.res[0])])
    ModuleOp([module_text_ok, main])
    good.verify()
    with pytest.raises(VerifyException, match="'@nowhere' does not refer to a function"):
        missing.verify()


def test_a_bad_block_dim_attribute_is_reported_on_a_remembered_signature():
    g = program.FuncOp("g", [T], [T])
    g.body.block.add_op(program.ReturnOp(g.args[0]))
    main = program.FuncOp("main", [T], [T])
    ok = program.CallOp("g", [main.args[0]], [T])
    bad = program.CallOp("g", [main.args[0]], [T])
    bad.attributes[program.BLOCK_DIM_ATTR] = IntegerAttr(0, i64)
    main.body.block.add_ops([ok, bad, program.ReturnOp(ok.res[0])])
    ModuleOp([g, main])
    ok.verify()
    with pytest.raises(VerifyException, match="must be a positive integer"):
        bad.verify()


def test_an_unexpected_region_is_reported_on_a_remembered_signature():
    add_op().verify()
    a, b = create_ssa_value(T), create_ssa_value(T)
    bad = tensor.AddOp.create(operands=[a, b], result_types=[T], regions=[Region(Block())])
    with pytest.raises(VerifyException, match="region"):
        bad.verify()


def test_a_property_outside_the_definition_is_reported():
    add_op().verify()
    bad = add_op()
    bad.properties["stray"] = StringAttr("x")
    with pytest.raises(VerifyException, match="property 'stray' is not defined"):
        bad.verify()


def test_tile_space_mismatch_is_reported_after_a_good_tile_op():
    vec = TileType([16, 16], f32, MemorySpace.VEC)
    tile.AddOp(create_ssa_value(vec), create_ssa_value(vec)).verify()
    acc = TileType([16, 16], f32, MemorySpace.ACC)
    bad = tile.AddOp.create(operands=[create_ssa_value(vec), create_ssa_value(acc)], result_types=[vec])
    with pytest.raises(VerifyException, match="different memory spaces"):
        bad.verify()


def test_ops_with_regions_are_not_memoised():
    assert not memoisable(program.FuncOp.get_irdl_definition())
    assert memoisable(tensor.AddOp.get_irdl_definition())
    assert isinstance(SignatureMemo(tensor.AddOp.get_irdl_definition(), None).passed, dict)
