"""Interpreter implementations of `pypto.tensor.*` (numpy arrays, reference semantics)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from pypto_xdsl.dialects import tensor
from pypto_xdsl.dialects.attributes import AtomicKind, TensorType, TileType, format_shape
from pypto_xdsl.interpreter import numerics
from pypto_xdsl.interpreter.functions import check_write, fail, guarded, pimpl, state
from pypto_xdsl.interpreter.partial import PartialTile, valid_block, valid_of, with_valid
from pypto_xdsl.interpreter.values import coerce, numpy_dtype, resolve_shape, to_scalar, zeros


def result_shape(interpreter: Interpreter, op: Operation, t: Attribute) -> tuple[int, ...]:
    """Concrete shape of a result type whose dims are static or bound symbols."""
    assert isinstance(t, TensorType | TileType)
    frame = state(interpreter).frame
    shape = resolve_shape(t.get_shape(), frame.binding)
    if shape is None:
        missing = [d for d in t.get_shape() if not isinstance(d, int) and (d is None or d not in frame.binding)]
        what = f"unbound symbol {missing[0]}" if isinstance(missing[0], str) else "unknown '?' extent"
        raise fail(interpreter, op, f"cannot determine the shape {format_shape(t.get_shape())}: {what}")
    return shape


def window(
    interpreter: Interpreter,
    op: Operation,
    array: np.ndarray,
    offsets: Sequence[int],
    extents: Sequence[int],
    what: str,
) -> tuple[slice, ...]:
    """The index of the window `offsets + extents` of `array`, bounds-checked."""
    if len(offsets) != array.ndim or len(extents) != array.ndim:
        raise fail(
            interpreter, op,
            f"{what}: {len(offsets)} offsets and a rank-{len(extents)} window for a "
            f"rank-{array.ndim} array",
        )
    for o, e, n in zip(offsets, extents, array.shape):
        if o < 0 or o + e > n:
            raise fail(
                interpreter, op,
                f"out of bounds: {what} window at offsets {list(offsets)} with shape "
                f"{list(extents)} does not fit in shape {list(array.shape)}",
            )
    return tuple(slice(o, o + e) for o, e in zip(offsets, extents))


def tensor_window(
    interpreter: Interpreter, op: Operation, src: np.ndarray, offsets: Sequence[int], extents: Sequence[int]
) -> np.ndarray:
    """The view `tensor.slice` gives, with PyPTO's valid region: the source's valid region
    shifted by the offsets and cut to the window (a slice is never valid where its source is
    not). A 1-D window that starts inside and runs past the end of a run-time (`?` or
    symbolic) extent (a fixed-size view of a ragged index table: `pl.slice(block_table, [64],
    [b * n])` near the end) is valid up to the edge; its storage ends there, so it is a
    read-only copy whose cells past the edge are unspecified, and a write through it is an
    error (`check_write`). Any other window past the end is an error, the host code's rule
    (backend/ascendc/host.py `_check_window`): kernels read whole tiles of a 2-D window, and
    a window starting past the end has no element to read."""
    if len(offsets) != src.ndim or len(extents) != src.ndim:
        window(interpreter, op, src, offsets, extents, "slice")  # reports the rank mismatch
    if any(o < 0 for o in offsets):
        window(interpreter, op, src, offsets, extents, "slice")  # reports the negative offset
    source_valid = valid_of(src) or src.shape
    valid = tuple(max(0, min(e, v - o)) for o, e, v in zip(offsets, extents, source_valid))
    if all(o + e <= n for o, e, n in zip(offsets, extents, src.shape)):
        view = src[tuple(slice(o, o + e) for o, e in zip(offsets, extents))]
        return with_valid(view, valid)
    static = op.operands[0].type.get_shape()  # type: ignore[union-attr]
    for axis, (o, e, n, d) in enumerate(zip(offsets, extents, src.shape, static)):
        if o + e > n and (isinstance(d, int) or src.ndim > 1 or o >= n):
            raise fail(
                interpreter, op,
                f"out of bounds: slice window at offsets {list(offsets)} with shape {list(extents)} "
                f"does not fit in shape {list(src.shape)} (dimension {axis} takes {e} at {o} of {n}"
                + ("" if isinstance(d, int) else
                   "; only a 1-D window nothing writes through may run past a run-time extent, from inside")
                + ")",
            )
    inside = tuple(max(0, min(e, n - o)) for o, e, n in zip(offsets, extents, src.shape))
    out = numerics.unspecified(tuple(extents), src.dtype)
    out[valid_block(inside)] = np.asarray(src)[tuple(slice(o, o + i) for o, i in zip(offsets, inside))]
    out.flags.writeable = False
    part = out.view(PartialTile)
    part.valid = valid
    return part


def element_type(op: Operation) -> Attribute:
    t = op.results[0].type
    assert isinstance(t, TensorType | TileType)
    return t.element_type


def valid_product(interpreter: Interpreter, op: Operation, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b` by PyPTO's rule for partial operands: the cube reads the lhs's valid K
    columns (the rhs's valid K rows must cover them), and the product is valid over
    [lhs valid M, rhs valid N], the rest unspecified. Fully valid operands: a plain product."""
    va, vb = valid_of(a), valid_of(b)
    if va is None and vb is None:
        return numerics.matmul(a, b, element_type(op))
    va, vb = va or a.shape, vb or b.shape
    m, k, n = va[0], va[1], vb[1]
    if vb[0] < k:
        raise fail(
            interpreter, op,
            f"the rhs's valid K ({vb[0]} rows of {list(vb)}) does not cover the lhs's valid K ({k} columns of {list(va)})",
        )
    out = numerics.unspecified((a.shape[0], b.shape[1]), numpy_dtype(element_type(op)))
    out[:m, :n] = numerics.matmul(np.asarray(a)[:m, :k], np.asarray(b)[:k, :n], element_type(op))
    return with_valid(out, (m, n))


def batch_product(interpreter: Interpreter, op: Operation, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b` per batch, the batch dims broadcast (numpy's matmul rule, PyPTO's batched
    matmul). A partial tile operand is refused: the valid blocks of batched operands are not
    defined here."""
    for name, v in (("lhs", a), ("rhs", b)):
        valid = valid_of(v)
        if valid is not None and tuple(valid) != tuple(np.shape(v)):
            raise fail(interpreter, op, f"operand '{name}' is partial (valid {list(valid)} of {list(np.shape(v))}); "
                                        "a batched matmul multiplies whole tiles")
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} x {list(b.shape)}")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise fail(interpreter, op, f"batch dims do not broadcast at run time: {list(a.shape)} x {list(b.shape)}") from None
    return numerics.matmul(np.asarray(a), np.asarray(b), element_type(op))


class ComputeFunctions(InterpreterFunctions):
    """Elementwise, row/column and matmul implementations shared by the tensor and tile
    families. Operands after the ones an op computes with (a tile op's `tmp` scratch) are
    not read. A partial tile operand (see `partial.py`) gives a partial result."""

    @staticmethod
    def _binary(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, b = args[0], args[1]
            if a.shape != b.shape:
                raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} vs {list(b.shape)}")
            return (with_valid(numerics.binary(name, a, b, element_type(op)), valid_of(a)),)

        return run

    @staticmethod
    def _scalar(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, s = args[0], args[1]
            return (with_valid(numerics.scalar(name, a, s, element_type(op)), valid_of(a)),)

        return run

    @staticmethod
    def _expands(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            target, s = args[0], args[1]
            dtype = numpy_dtype(element_type(op))
            full = np.full(target.shape, np.asarray(s).astype(dtype), dtype=dtype)
            return (with_valid(coerce(full, element_type(op)), valid_of(target)),)

        return run

    @staticmethod
    def _unary(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a = args[0]
            return (with_valid(numerics.unary(name, a, element_type(op)), valid_of(a)),)

        return run

    @staticmethod
    def _cast(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a = args[0]
            return (with_valid(numerics.cast(a, element_type(op), op.rounding), valid_of(a)),)

        return run

    @staticmethod
    def _matmul(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, b = args
            if a.shape[1] != b.shape[0]:
                raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} x {list(b.shape)}")
            return (valid_product(interpreter, op, a, b),)

        return run

    @staticmethod
    def _row_reduce(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a = args[0]
            valid = valid_of(a)
            data = np.asarray(a)[:, : valid[1]] if valid is not None else a
            if name in ("row_max", "row_min") and data.shape[1] == 0:
                raise fail(interpreter, op, f"{name} of an empty row (shape {list(a.shape)}, valid {valid})")
            result = getattr(numerics, name)(data, element_type(op))
            return (with_valid(result, None if valid is None else (valid[0], 1)),)

        return run

    @staticmethod
    def _col_reduce(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a = args[0]
            valid = valid_of(a)
            data = np.asarray(a)[: valid[0], :] if valid is not None else a
            if name in ("col_max", "col_min") and data.shape[0] == 0:
                raise fail(interpreter, op, f"{name} of an empty column (shape {list(a.shape)}, valid {valid})")
            result = numerics.col_reduce(name, data, element_type(op))
            return (with_valid(result, None if valid is None else (1, valid[1])),)

        return run

    @staticmethod
    def _row_expand(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, r = args[0], args[1]
            if r.shape != (a.shape[0], 1):
                raise fail(
                    interpreter, op,
                    f"shape mismatch at run time: row operand {list(r.shape)} for input {list(a.shape)}",
                )
            return (with_valid(numerics.expand(name, a, r, element_type(op)), valid_of(a)),)

        return run

    @staticmethod
    def _col_expand(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, c = args[0], args[1]
            if c.shape != (1, a.shape[1]):
                raise fail(
                    interpreter, op,
                    f"shape mismatch at run time: column operand {list(c.shape)} for input {list(a.shape)}",
                )
            return (with_valid(numerics.expand(name, a, c, element_type(op)), valid_of(a)),)

        return run

    @staticmethod
    def _concat(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, b = args
            if a.shape[0] != b.shape[0]:
                raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} and {list(b.shape)} rows")
            return (coerce(np.concatenate([np.asarray(a), np.asarray(b)], axis=1), element_type(op)),)

        return run


KINDS = (
    "binary", "scalar", "unary", "row_reduce", "col_reduce", "row_expand", "col_expand", "cast",
    "matmul", "expands", "concat",
)


def install(cls: type, ops: Sequence[tuple[type[Operation], str, str]]) -> None:
    """Add `@impl`s for (op class, kind, numerics name) triples to `cls`."""
    from xdsl.interpreter import impl

    for op_type, kind, name in ops:
        assert kind in KINDS, kind
        maker = getattr(ComputeFunctions, f"_{kind}")
        setattr(cls, f"run_{op_type.name.replace('.', '_')}", impl(op_type)(maker(name)))


def _short(op_type: type[Operation]) -> str:
    return op_type.name.rsplit(".", 1)[1]


class TensorFunctions(ComputeFunctions):
    """`pypto.tensor.*`."""

    @pimpl(tensor.CmpOp)
    def run_cmp(self, interpreter: Interpreter, op: tensor.CmpOp, args: PythonValues):
        from pypto_xdsl.interpreter import masks

        a, b = args
        if a.shape != b.shape:
            raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} vs {list(b.shape)}")
        return (with_valid(masks.relation(a, b, op.cmp.data, np.asarray(a).dtype), valid_of(a)),)

    @pimpl(tensor.CmpsOp)
    def run_cmps(self, interpreter: Interpreter, op: tensor.CmpsOp, args: PythonValues):
        from pypto_xdsl.interpreter import masks

        a, s = args
        dtype = np.asarray(a).dtype
        return (with_valid(masks.relation(a, masks.as_element(s, dtype), op.cmp.data, dtype), valid_of(a)),)

    @pimpl(tensor.CreateOp)
    def run_create(self, interpreter: Interpreter, op: tensor.CreateOp, args: PythonValues):
        t = op.result.type
        frame = state(interpreter).frame
        shape = resolve_shape(t.get_shape(), frame.binding, [int(a) for a in args])
        if shape is None:
            missing = [d for d in t.get_shape() if isinstance(d, str) and d not in frame.binding]
            raise fail(interpreter, op, f"unbound symbol {missing[0]} in {t}")
        if any(n < 0 for n in shape):
            raise fail(interpreter, op, f"negative extent in shape {list(shape)}")
        st = state(interpreter)
        made = zeros(shape, t.element_type)
        if st.cross_core is not None:  # on the AIVs of a split group, one tensor for both
            made = st.cross_core.shared_create(st.core, op, made)
        return (made,)

    @pimpl(tensor.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: tensor.SliceOp, args: PythonValues):
        src, rest = args[0], [int(a) for a in args[1:]]
        offsets, sizes = rest[: len(op.offsets)], rest[len(op.offsets) :]
        t = op.result.type
        extents = resolve_shape(t.get_shape(), state(interpreter).frame.binding, sizes)
        if extents is None:
            extents = result_shape(interpreter, op, t)  # names the unbound symbol
        if any(n < 0 for n in extents):
            raise fail(interpreter, op, f"negative extent in the slice shape {list(extents)}")
        return (tensor_window(interpreter, op, src, offsets, extents),)

    @pimpl(tensor.SetValidShapeOp)
    def run_set_validshape(self, interpreter: Interpreter, op: tensor.SetValidShapeOp, args: PythonValues):
        t, rows, cols = args
        if not (0 <= rows <= t.shape[0] and 0 <= cols <= t.shape[1]):
            raise fail(interpreter, op, f"valid shape [{rows}, {cols}] does not fit the tensor shape {list(t.shape)}")
        # the valid region only narrows (PyPTO: a valid shape never widens what the source has)
        valid = tuple(min(int(v), w) for v, w in zip((rows, cols), valid_of(t) or t.shape))
        return (with_valid(t, valid),)

    @pimpl(tensor.AssembleOp)
    def run_assemble(self, interpreter: Interpreter, op: tensor.AssembleOp, args: PythonValues):
        dst, src, *offsets = args
        check_write(interpreter, op, dst)
        valid = valid_of(src)
        if valid is not None:  # PyPTO moves only the source's valid region
            src = np.asarray(src)[valid_block(valid)]
        where = window(interpreter, op, dst, offsets, src.shape, "assemble")
        if op.atomic is not None and op.atomic.data == AtomicKind.ADD:
            dst[where] = coerce(dst[where] + src, element_type(op))
        else:
            dst[where] = src
        return (dst,)

    @pimpl(tensor.WriteOp)
    def run_write(self, interpreter: Interpreter, op: tensor.WriteOp, args: PythonValues):
        value, dst, *indices = args
        check_write(interpreter, op, dst)
        dst[window(interpreter, op, dst, indices, [1] * dst.ndim, "write")] = to_scalar(value, element_type(op))
        return (dst,)

    @pimpl(tensor.FullOp)
    def run_full(self, interpreter: Interpreter, op: tensor.FullOp, args: PythonValues):
        (value,) = args
        t = op.result.type
        shape = result_shape(interpreter, op, t)
        return (coerce(np.full(shape, value, dtype=numpy_dtype(t.element_type)), t.element_type),)

    @pimpl(tensor.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tensor.ReshapeOp, args: PythonValues):
        (src,) = args
        shape = result_shape(interpreter, op, op.result.type)
        try:  # a view: writes through it reach the source's storage
            return (np.reshape(src, shape, copy=False),)
        except ValueError:
            raise fail(
                interpreter, op,
                f"cannot reshape {list(src.shape)} to {list(shape)} as a view: the source is a "
                f"strided window (reshape the whole tensor, or a window of whole rows)",
            ) from None

    @pimpl(tensor.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: tensor.TransposeOp, args: PythonValues):
        (src,) = args
        return (np.swapaxes(src, op.axis1.value.data, op.axis2.value.data),)  # a view

    @pimpl(tensor.MatmulAccOp)
    def run_matmul_acc(self, interpreter: Interpreter, op: tensor.MatmulAccOp, args: PythonValues):
        acc, a, b = args
        if a.shape[1] != b.shape[0] or acc.shape != (a.shape[0], b.shape[1]):
            raise fail(
                interpreter, op,
                f"shape mismatch at run time: acc {list(acc.shape)} + {list(a.shape)} x {list(b.shape)}",
            )
        return (coerce(acc + numerics.matmul(a, b, element_type(op)), element_type(op)),)

    @pimpl(tensor.BatchMatmulOp)
    def run_batch_matmul(self, interpreter: Interpreter, op: tensor.BatchMatmulOp, args: PythonValues):
        a, b = args
        return (batch_product(interpreter, op, a, b),)

    @pimpl(tensor.BatchMatmulAccOp)
    def run_batch_matmul_acc(self, interpreter: Interpreter, op: tensor.BatchMatmulAccOp, args: PythonValues):
        acc, a, b = args
        product = batch_product(interpreter, op, a, b)
        if acc.shape != product.shape:
            raise fail(interpreter, op,
                       f"shape mismatch at run time: acc {list(acc.shape)} + {list(a.shape)} x {list(b.shape)}")
        return (coerce(acc + product, element_type(op)),)

    @pimpl(tensor.ReinterpretViewOp)
    def run_reinterpret_view(self, interpreter: Interpreter, op: tensor.ReinterpretViewOp, args: PythonValues):
        (src,) = args
        shape = result_shape(interpreter, op, op.result.type)
        if not src.flags.c_contiguous:
            raise fail(interpreter, op, "reinterpret_view of a non-contiguous tensor (a strided slice)")
        view = src.view(numpy_dtype(op.result.type.element_type)).reshape(shape)
        return (view,)

    @pimpl(tensor.DimOp)
    def run_dim(self, interpreter: Interpreter, op: tensor.DimOp, args: PythonValues):
        (src,) = args
        return (int(src.shape[op.axis.value.data]),)

    @pimpl(tensor.ReadOp)
    def run_read(self, interpreter: Interpreter, op: tensor.ReadOp, args: PythonValues):
        src, *indices = args
        idx = window(interpreter, op, src, indices, [1] * src.ndim, "read")
        return (to_scalar(src[idx].reshape(()), op.result.type),)



def compute_ops(family) -> list[tuple[type[Operation], str, str]]:
    """The (op class, kind, numerics name) of the compute ops `family` (the tensor or the
    tile dialect module) shares with the other."""
    f = family
    return [
        *[(c, "binary", _short(c)) for c in (f.AddOp, f.SubOp, f.MulOp, f.DivOp, f.MaximumOp, f.MinimumOp)],
        *[(c, "scalar", _short(c)) for c in (f.AddsOp, f.SubsOp, f.MulsOp, f.DivsOp, f.MaximumsOp, f.MinimumsOp)],
        *[(c, "unary", _short(c)) for c in (f.ExpOp, f.LogOp, f.SqrtOp, f.NegOp, f.AbsOp, f.ReluOp, f.RecipOp,
                                            f.RsqrtOp, f.TanhOp, f.SinOp, f.CosOp)],
        *[(c, "row_reduce", _short(c)) for c in (f.RowMaxOp, f.RowSumOp, f.RowMinOp, f.RowProdOp)],
        *[(c, "col_reduce", _short(c)) for c in (f.ColSumOp, f.ColMaxOp, f.ColMinOp, f.ColProdOp)],
        *[(c, "row_expand", _short(c)) for c in (f.RowExpandSubOp, f.RowExpandMulOp, f.RowExpandDivOp,
                                                 f.RowExpandOp, f.RowExpandAddOp, f.RowExpandMaxOp,
                                                 f.RowExpandMinOp, f.RowExpandExpdifOp)],
        *[(c, "col_expand", _short(c)) for c in (f.ColExpandOp, f.ColExpandMulOp, f.ColExpandDivOp,
                                                 f.ColExpandSubOp, f.ColExpandAddOp, f.ColExpandMaxOp,
                                                 f.ColExpandMinOp, f.ColExpandExpdifOp)],
        (f.ExpandsOp, "expands", "expands"),
        (f.ConcatOp, "concat", "concat"),
        (f.CastOp, "cast", "cast"),
        (f.MatmulOp, "matmul", "matmul"),
    ]


install(TensorFunctions, compute_ops(tensor))
register_impls(TensorFunctions)


def implemented_ops(functions: type[InterpreterFunctions]) -> set[type[Operation]]:
    """The op classes `functions` implements (for coverage tests)."""
    from xdsl.interpreter import _IMPL_OP_TYPE_KEY  # type: ignore[attr-defined]

    found: set[type[Operation]] = set()
    for cls in functions.mro():
        for val in cls.__dict__.values():
            if hasattr(val, _IMPL_OP_TYPE_KEY):
                found.add(getattr(val, _IMPL_OP_TYPE_KEY))
    return found

