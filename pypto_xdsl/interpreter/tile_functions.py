"""Interpreter implementations of `pypto.tile.*`.

Tiles are numpy arrays owned by the value that holds them: `load` and `move` copy, compute
ops make new arrays. `store` writes into the tensor's storage and returns the same array;
`matmul_acc`, `assemble` and `write` write into their destination tile's array and return
it (PyPTO's in-place TMATMUL_ACC / TINSERT / scalar writes). Partial tiles (a valid shape
smaller than the tile) are described in `partial.py`.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, PythonValues, register_impls

from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import AtomicKind
from pypto_xdsl.interpreter import masks, numerics
from pypto_xdsl.interpreter.functions import check_write, fail, pimpl, state
from pypto_xdsl.interpreter.partial import (
    filled,
    mark_partial,
    reshaped_valid,
    valid_block,
    valid_of,
    with_valid,
)
from pypto_xdsl.interpreter.tensor_functions import (
    ComputeFunctions,
    batch_product,
    compute_ops,
    element_type,
    install,
    result_shape,
    valid_product,
    window,
)
from pypto_xdsl.interpreter.values import coerce, numpy_dtype, to_scalar


class TileFunctions(ComputeFunctions):
    """`pypto.tile.*`."""

    @pimpl(tile.LoadOp)
    def run_load(self, interpreter: Interpreter, op: tile.LoadOp, args: PythonValues):
        n_offsets = len(op.offsets)
        src, offsets, valid = args[0], args[1 : 1 + n_offsets], args[1 + n_offsets :]
        extents = result_shape(interpreter, op, op.result.type)
        source_valid = valid_of(src)
        if not valid and source_valid is None:
            return (src[window(interpreter, op, src, offsets, extents, "load")].copy(),)
        # A partial load reads its valid block only; the window may run past the source.
        if any(not 0 <= v <= e for v, e in zip(valid, extents)):
            raise fail(interpreter, op, f"valid shape {list(valid)} does not fit the tile shape {list(extents)}")
        if source_valid is not None:
            # PyPTO's window read: the tile is valid where the window meets the source's valid
            # region (a tensor's valid shape: `pl.slice(..., valid_shape=...)`, a slice past the
            # end of a run-time extent, a shorter view), cut by the requested valid shape
            requested = list(valid) if valid else list(extents)
            valid = [max(0, min(r, v - o)) for r, v, o in zip(requested, source_valid, offsets)]
            if list(valid) == list(extents):
                return (src[window(interpreter, op, src, offsets, extents, "load")].copy(),)
        out = numerics.unspecified(tuple(extents), numpy_dtype(op.result.type.element_type))
        out[valid_block(valid)] = src[window(interpreter, op, src, offsets, valid, "load of the valid block")]
        return (with_valid(out, valid),)

    @pimpl(tile.StoreOp)
    def run_store(self, interpreter: Interpreter, op: tile.StoreOp, args: PythonValues):
        return self._store(interpreter, op, args, add=False)

    @pimpl(tile.AtomicStoreOp)
    def run_atomic_store(self, interpreter: Interpreter, op: tile.AtomicStoreOp, args: PythonValues):
        return self._store(interpreter, op, args, add=op.atomic.data == AtomicKind.ADD)

    @staticmethod
    def _store(interpreter: Interpreter, op: tile.StoreOp | tile.AtomicStoreOp, args: PythonValues, add: bool):
        t, dst, *offsets = args
        check_write(interpreter, op, dst)
        valid = valid_of(t)
        extents = valid if valid is not None else t.shape  # a partial tile writes its valid block
        where = window(interpreter, op, dst, offsets, extents, "store")
        data = np.asarray(t)[valid_block(extents)]
        dst[where] = coerce(dst[where] + data, op.tile.type.element_type) if add else data  # type: ignore[union-attr]
        return (dst,)

    @pimpl(tile.CreateOp)
    def run_create(self, interpreter: Interpreter, op: tile.CreateOp, args: PythonValues):
        t = op.result.type
        return (numerics.unspecified(result_shape(interpreter, op, t), numpy_dtype(t.element_type)),)

    @pimpl(tile.SetValidShapeOp)
    def run_set_validshape(self, interpreter: Interpreter, op: tile.SetValidShapeOp, args: PythonValues):
        t, rows, cols = args
        if not (0 <= rows <= t.shape[0] and 0 <= cols <= t.shape[1]):
            raise fail(interpreter, op, f"valid shape [{rows}, {cols}] does not fit the tile shape {list(t.shape)}")
        return (mark_partial(t, (rows, cols)),)

    @pimpl(tile.FillPadOp)
    def run_fillpad(self, interpreter: Interpreter, op: tile.FillPadOp, args: PythonValues):
        (t,) = args
        return (filled(t, numerics.pad_value(op.pad.data.value, t.dtype)),)

    @pimpl(tile.FillPadExpandOp)
    def run_fillpad_expand(self, interpreter: Interpreter, op: tile.FillPadExpandOp, args: PythonValues):
        (t,) = args
        shape = result_shape(interpreter, op, op.result.type)
        return (filled(t, numerics.pad_value(op.pad.data.value, t.dtype), shape),)

    @pimpl(tile.ReadOp)
    def run_read(self, interpreter: Interpreter, op: tile.ReadOp, args: PythonValues):
        src, *indices = args
        idx = window(interpreter, op, src, indices, [1] * src.ndim, "read")
        return (to_scalar(np.asarray(src)[idx].reshape(()), op.result.type),)

    @pimpl(tile.WriteOp)
    def run_write(self, interpreter: Interpreter, op: tile.WriteOp, args: PythonValues):
        value, dst, *indices = args
        dst[window(interpreter, op, dst, indices, [1] * dst.ndim, "write")] = to_scalar(value, element_type(op))
        return (dst,)

    @pimpl(tile.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: tile.SliceOp, args: PythonValues):
        src, *offsets = args
        extents = result_shape(interpreter, op, op.result.type)
        part = np.asarray(src)[window(interpreter, op, src, offsets, extents, "slice")].copy()
        valid = valid_of(src)
        if valid is None:
            return (part,)
        # the window's share of the source's valid block
        inside = tuple(max(0, min(e, v - o)) for e, v, o in zip(extents, valid, offsets))
        return (with_valid(part, inside),)

    @pimpl(tile.AssembleOp)
    def run_assemble(self, interpreter: Interpreter, op: tile.AssembleOp, args: PythonValues):
        src, dst, *offsets = args
        dst[window(interpreter, op, dst, offsets, src.shape, "assemble")] = src
        return (dst,)

    @pimpl(tile.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tile.ReshapeOp, args: PythonValues):
        (t,) = args
        shape = result_shape(interpreter, op, op.result.type)
        out = np.asarray(t).reshape(shape).copy()
        valid = valid_of(t)
        if valid is None:
            return (out,)
        moved = reshaped_valid(valid, t.shape, shape)
        if moved is None:
            raise fail(
                interpreter, op,
                f"the valid block {list(valid)} of a {list(t.shape)} tile is not a block of the "
                f"reshaped {list(shape)} tile (fillpad it first)",
            )
        return (with_valid(out, moved),)

    @pimpl(tile.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: tile.TransposeOp, args: PythonValues):
        (t,) = args
        a, b = op.axis1.value.data, op.axis2.value.data
        out = np.swapaxes(np.asarray(t), a, b).copy()
        valid = valid_of(t)
        if valid is None:
            return (out,)
        swapped = list(valid)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        return (with_valid(out, swapped),)

    @pimpl(tile.TransposeViewOp)
    def run_transpose_view(self, interpreter: Interpreter, op: tile.TransposeViewOp, args: PythonValues):
        (t,) = args
        out = np.swapaxes(np.asarray(t), -1, -2).copy()
        valid = valid_of(t)
        return (with_valid(out, None if valid is None else (*valid[:-2], valid[-1], valid[-2])),)

    @pimpl(tile.FullOp)
    def run_full(self, interpreter: Interpreter, op: tile.FullOp, args: PythonValues):
        (value,) = args
        t = op.result.type
        shape = result_shape(interpreter, op, t)
        return (coerce(np.full(shape, value, dtype=numpy_dtype(t.element_type)), t.element_type),)

    @pimpl(tile.MoveOp)
    def run_move(self, interpreter: Interpreter, op: tile.MoveOp, args: PythonValues):
        (a,) = args
        # the one converting move (f16 mat -> f32 bias) is exact: every half is a float
        moved = np.asarray(a).astype(numpy_dtype(op.result.type.element_type))  # type: ignore[union-attr]
        return (with_valid(moved, valid_of(a)),)


    @pimpl(tile.MatmulAccOp)
    def run_matmul_acc(self, interpreter: Interpreter, op: tile.MatmulAccOp, args: PythonValues):
        acc, a, b = args
        if a.shape[1] != b.shape[0] or acc.shape != (a.shape[0], b.shape[1]):
            raise fail(
                interpreter, op,
                f"shape mismatch at run time: acc {list(acc.shape)} += {list(a.shape)} x {list(b.shape)}",
            )
        product = valid_product(interpreter, op, a, b)
        valid = valid_of(product)
        if valid is None:
            acc[...] = coerce(acc + product, element_type(op))
        else:  # a partial product accumulates into its valid block
            block = valid_block(valid)
            acc[block] = coerce(acc[block] + np.asarray(product)[block], element_type(op))
        return (acc,)

    @pimpl(tile.BatchMatmulOp)
    def run_batch_matmul(self, interpreter: Interpreter, op: tile.BatchMatmulOp, args: PythonValues):
        a, b = args
        return (batch_product(interpreter, op, a, b),)

    @pimpl(tile.BatchMatmulAccOp)
    def run_batch_matmul_acc(self, interpreter: Interpreter, op: tile.BatchMatmulAccOp, args: PythonValues):
        acc, a, b = args
        product = batch_product(interpreter, op, a, b)
        if acc.shape != product.shape or valid_of(acc) is not None:
            raise fail(interpreter, op,
                       f"shape mismatch at run time: acc {list(acc.shape)} += {list(a.shape)} x {list(b.shape)}"
                       + (" (a partial acc)" if valid_of(acc) is not None else ""))
        acc[...] = coerce(acc + product, element_type(op))
        return (acc,)

    @pimpl(tile.MatmulBiasOp)
    def run_matmul_bias(self, interpreter: Interpreter, op: tile.MatmulBiasOp, args: PythonValues):
        a, b, bias = args
        if a.shape[1] != b.shape[0] or bias.shape != (1, b.shape[1]):
            raise fail(
                interpreter, op,
                f"shape mismatch at run time: {list(a.shape)} x {list(b.shape)} + bias {list(bias.shape)}",
            )
        product = valid_product(interpreter, op, a, b)
        valid = valid_of(product)
        if valid is not None and (valid_of(bias) or bias.shape)[1] < valid[1]:
            raise fail(
                interpreter, op,
                f"the bias's valid columns {list(valid_of(bias) or bias.shape)} do not cover the product's valid N {valid[1]}",
            )
        return (with_valid(coerce(np.asarray(product) + bias, element_type(op)), valid),)

    def _arg_reduce(self, interpreter: Interpreter, op, args: PythonValues, axis: int, largest: bool):
        """The index of the first extremum along `axis` of the valid block, as i32; the
        result keeps the valid extent of the other axis."""
        a = args[0]
        valid = valid_of(a) or a.shape
        data = np.asarray(a)[: valid[0], : valid[1]]
        if data.shape[axis] == 0:
            raise fail(interpreter, op, f"{op.name} of an empty {'row' if axis else 'column'} (valid {list(valid)})")
        index = (np.argmax if largest else np.argmin)(data, axis=axis).astype(np.int32)
        shape = (a.shape[0], 1) if axis else (1, a.shape[1])
        out = np.zeros(shape, np.int32)
        if axis:
            out[: valid[0], 0] = index
            return (with_valid(out, None if valid_of(a) is None else (valid[0], 1)),)
        out[0, : valid[1]] = index
        return (with_valid(out, None if valid_of(a) is None else (1, valid[1])),)

    @pimpl(tile.RowArgmaxOp)
    def run_row_argmax(self, interpreter: Interpreter, op: tile.RowArgmaxOp, args: PythonValues):
        return self._arg_reduce(interpreter, op, args, 1, True)

    @pimpl(tile.RowArgminOp)
    def run_row_argmin(self, interpreter: Interpreter, op: tile.RowArgminOp, args: PythonValues):
        return self._arg_reduce(interpreter, op, args, 1, False)

    @pimpl(tile.ColArgmaxOp)
    def run_col_argmax(self, interpreter: Interpreter, op: tile.ColArgmaxOp, args: PythonValues):
        return self._arg_reduce(interpreter, op, args, 0, True)

    @pimpl(tile.ColArgminOp)
    def run_col_argmin(self, interpreter: Interpreter, op: tile.ColArgminOp, args: PythonValues):
        return self._arg_reduce(interpreter, op, args, 0, False)

    @pimpl(tile.CmpOp)
    def run_cmp(self, interpreter: Interpreter, op: tile.CmpOp, args: PythonValues):
        a, b = args
        if a.shape != b.shape:
            raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} vs {list(b.shape)}")
        return (masks.compare(a, b, op.cmp.data, result_shape(interpreter, op, op.result.type)),)

    @pimpl(tile.CmpsOp)
    def run_cmps(self, interpreter: Interpreter, op: tile.CmpsOp, args: PythonValues):
        a, s = args
        scalar = masks.as_element(s, np.asarray(a).dtype)
        return (masks.compare(a, scalar, op.cmp.data, result_shape(interpreter, op, op.result.type)),)

    @pimpl(tile.SelOp)
    def run_sel(self, interpreter: Interpreter, op: tile.SelOp, args: PythonValues):
        mask, a, b, _tmp = args
        if a.shape != b.shape:
            raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} vs {list(b.shape)}")
        return (with_valid(masks.select(mask, a, b, element_type(op)), valid_of(a)),)

    @pimpl(tile.SelsOp)
    def run_sels(self, interpreter: Interpreter, op: tile.SelsOp, args: PythonValues):
        mask, a, _tmp, s = args
        scalar = masks.as_element(s, np.asarray(a).dtype)
        return (with_valid(masks.select(mask, a, scalar, element_type(op)), valid_of(a)),)

    @pimpl(tile.TriOp)
    def run_tri(self, interpreter: Interpreter, op: tile.TriOp, args: PythonValues):
        (diagonal,) = args
        t = op.result.type
        shape = result_shape(interpreter, op, t)
        return (masks.triangle(shape, int(diagonal), op.is_upper, numpy_dtype(t.element_type)),)

    @pimpl(tile.GetBlockIdxOp)
    def run_get_block_idx(self, interpreter: Interpreter, op: tile.GetBlockIdxOp, args: PythonValues):
        return (state(interpreter).block_idx,)

    @pimpl(tile.GetBlockNumOp)
    def run_get_block_num(self, interpreter: Interpreter, op: tile.GetBlockNumOp, args: PythonValues):
        return (state(interpreter).block_num,)

    @pimpl(tile.GetSubBlockIdxOp)
    def run_get_subblock_idx(self, interpreter: Interpreter, op: tile.GetSubBlockIdxOp, args: PythonValues):
        """0, except in the second instance of the aiv member of a group whose task_ratio is 2
        (a function run alone, or a 1:1 group's member, runs on sub-block 0)."""
        return (state(interpreter).sub_block,)


install(TileFunctions, compute_ops(tile))
register_impls(TileFunctions)
