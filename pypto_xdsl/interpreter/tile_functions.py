"""Interpreter implementations of `pypto.tile.*`.

Tiles are numpy arrays owned by the value that holds them: `load` and `move` copy, compute
ops make new arrays. `store` writes into the tensor's storage and returns the same array;
`matmul_acc` accumulates into its `acc` operand's array and returns it.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, PythonValues, register_impls

from pypto_xdsl.dialects import tile
from pypto_xdsl.interpreter import numerics
from pypto_xdsl.interpreter.functions import check_write, fail, pimpl, state
from pypto_xdsl.interpreter.tensor_functions import (
    ComputeFunctions,
    _short,
    element_type,
    install,
    result_shape,
    window,
)
from pypto_xdsl.interpreter.values import coerce, numpy_dtype


class TileFunctions(ComputeFunctions):
    """`pypto.tile.*`."""

    @pimpl(tile.LoadOp)
    def run_load(self, interpreter: Interpreter, op: tile.LoadOp, args: PythonValues):
        src, *offsets = args
        extents = result_shape(interpreter, op, op.result.type)
        return (src[window(interpreter, op, src, offsets, extents, "load")].copy(),)

    @pimpl(tile.StoreOp)
    def run_store(self, interpreter: Interpreter, op: tile.StoreOp, args: PythonValues):
        t, dst, *offsets = args
        check_write(interpreter, op, dst)
        dst[window(interpreter, op, dst, offsets, t.shape, "store")] = t
        return (dst,)

    @pimpl(tile.FullOp)
    def run_full(self, interpreter: Interpreter, op: tile.FullOp, args: PythonValues):
        (value,) = args
        t = op.result.type
        shape = result_shape(interpreter, op, t)
        return (coerce(np.full(shape, value, dtype=numpy_dtype(t.element_type)), t.element_type),)

    @pimpl(tile.MoveOp)
    def run_move(self, interpreter: Interpreter, op: tile.MoveOp, args: PythonValues):
        (a,) = args
        return (a.copy(),)


    @pimpl(tile.MatmulAccOp)
    def run_matmul_acc(self, interpreter: Interpreter, op: tile.MatmulAccOp, args: PythonValues):
        acc, a, b = args
        if a.shape[1] != b.shape[0] or acc.shape != (a.shape[0], b.shape[1]):
            raise fail(
                interpreter, op,
                f"shape mismatch at run time: acc {list(acc.shape)} += {list(a.shape)} x {list(b.shape)}",
            )
        acc[...] = coerce(acc + numerics.matmul(a, b, element_type(op)), element_type(op))
        return (acc,)

    @pimpl(tile.GetBlockIdxOp)
    def run_get_block_idx(self, interpreter: Interpreter, op: tile.GetBlockIdxOp, args: PythonValues):
        return (state(interpreter).block_idx,)

    @pimpl(tile.GetBlockNumOp)
    def run_get_block_num(self, interpreter: Interpreter, op: tile.GetBlockNumOp, args: PythonValues):
        return (state(interpreter).block_num,)


install(
    TileFunctions,
    [
        *[(c, "binary", _short(c)) for c in (tile.AddOp, tile.SubOp, tile.MulOp, tile.DivOp,
                                             tile.MaximumOp, tile.MinimumOp)],
        *[(c, "scalar", _short(c)) for c in (tile.AddsOp, tile.SubsOp, tile.MulsOp, tile.DivsOp)],
        *[(c, "unary", _short(c)) for c in (tile.ExpOp, tile.LogOp, tile.SqrtOp, tile.NegOp,
                                            tile.AbsOp, tile.ReluOp, tile.RecipOp)],
        *[(c, "row_reduce", _short(c)) for c in (tile.RowMaxOp, tile.RowSumOp)],
        *[(c, "row_expand", _short(c)) for c in (tile.RowExpandSubOp, tile.RowExpandMulOp, tile.RowExpandDivOp)],
        (tile.CastOp, "cast", "cast"),
        (tile.MatmulOp, "matmul", "matmul"),
    ],
)
register_impls(TileFunctions)
