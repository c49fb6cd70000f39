"""split_vector_member (the Ascend C backend's split of a group's aiv member over the two AIVs
of a core group): what it halves, how it moves offsets, and the reason it gives for keeping a
member on one AIV."""

from __future__ import annotations

import pytest

from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter import parse_module
from pypto_xdsl.transforms.split_vector_member import split_vector_member

HEADER = "pypto.func aiv @k_aiv(%x: !pypto.tensor<[64, 64], f32>, %b: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {\n  %c0 = arith.constant 0 : index\n"
T = "!pypto.tile<[64, 64], f32, vec>"
ROW = "!pypto.tile<[1, 64], f32, vec>"


def _member(body: str) -> FuncOp:
    module = parse_module(HEADER + body + "}\n")
    (func,) = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
    return func


EPILOGUE = f"""  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> {T}
  %r = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> {ROW}
  %s = pypto.tile.col_expand_add %t, %r : {T}, {ROW}
  %m = pypto.tile.row_max %s : {T}
  %d = pypto.tile.row_expand_sub %s, %m : {T}, !pypto.tile<[64, 1], f32, vec>
  %y2 = pypto.tile.store %d, %y[%c0, %c0] : {T}, !pypto.tensor<[64, 64], f32>
  pypto.return %y2 : !pypto.tensor<[64, 64], f32>
"""


def test_a_row_split_halves_the_rows_and_keeps_a_bias_row_whole():
    split = split_vector_member(_member(EPILOGUE), 0)
    assert isinstance(split, FuncOp), split
    shapes = {op.result.name_hint: op.result.type.get_shape() for op in split.walk()
              if op.results and isinstance(op.results[0].type, tile.TileType)}
    assert shapes == {"t": (32, 64), "r": (1, 64), "s": (32, 64), "m": (32, 1), "d": (32, 64)}
    text = str(split)
    assert "pypto.tile.get_subblock_idx" in text
    # the row offset of the [64, 64] load and store is GetSubBlockIdx() * 32; the bias row's stays 0
    assert text.count("pypto.tile.load %x[%") == 1 and "pypto.tile.load %b[%c0, %c0]" in text


def test_a_column_split_refuses_a_row_reduction_and_keeps_row_statistics_whole():
    refused = split_vector_member(_member(EPILOGUE), 1)
    assert isinstance(refused, str) and "'pypto.tile.row_max' reduces across the split dimension" in refused
    body = f"""  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> {T}
  %m = pypto.tile.full %c0f : f32 -> !pypto.tile<[64, 1], f32, vec>
  %d = pypto.tile.row_expand_sub %t, %m : {T}, !pypto.tile<[64, 1], f32, vec>
  %y2 = pypto.tile.store %d, %y[%c0, %c0] : {T}, !pypto.tensor<[64, 64], f32>
  pypto.return %y2 : !pypto.tensor<[64, 64], f32>
"""
    split = split_vector_member(_member("  %c0f = arith.constant 0.0 : f32\n" + body), 1)
    assert isinstance(split, FuncOp), split
    shapes = {op.result.name_hint: op.result.type.get_shape() for op in split.walk()
              if op.results and isinstance(op.results[0].type, tile.TileType)}
    assert shapes == {"t": (64, 32), "m": (64, 1), "d": (64, 32)}


@pytest.mark.parametrize("body, reason", [
    (f"""  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> {T}
  %s = pypto.tile.col_sum %t : {T} -> {ROW}
  %y2 = pypto.tile.store %s, %b[%c0, %c0] : {ROW}, !pypto.tensor<[1, 64], f32>
  pypto.return %y : !pypto.tensor<[64, 64], f32>
""", "'pypto.tile.col_sum' reduces across the split dimension"),
    (f"""  %r = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> {ROW}
  %e = pypto.tile.exp %r : {ROW}
  %y2 = pypto.tile.store %e, %b[%c0, %c0] : {ROW}, !pypto.tensor<[1, 64], f32>
  pypto.return %y : !pypto.tensor<[64, 64], f32>
""", "stores a tile of extent 1 along the split dimension"),
    ("""  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[63, 64], f32, vec>
  %y2 = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[63, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
  pypto.return %y2 : !pypto.tensor<[64, 64], f32>
""", "odd extent along the split dimension"),
    (f"""  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> {T}
  %v = pypto.tile.read %t[%c0, %c0] : {T}
  pypto.return %y : !pypto.tensor<[64, 64], f32>
""", "'pypto.tile.read' is not split over the vector cores"),
])
def test_what_keeps_a_member_on_one_vector_core(body, reason):
    func = _member(body)
    before = str(func)
    got = split_vector_member(func, 0)
    assert isinstance(got, str) and reason in got, got
    assert str(func) == before
