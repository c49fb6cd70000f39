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
from pypto_xdsl.dialects.attributes import TensorType, TileType, format_shape
from pypto_xdsl.interpreter import numerics
from pypto_xdsl.interpreter.functions import check_write, fail, guarded, pimpl, state
from pypto_xdsl.interpreter.values import numpy_dtype, resolve_shape, to_scalar


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


def element_type(op: Operation) -> Attribute:
    t = op.results[0].type
    assert isinstance(t, TensorType | TileType)
    return t.element_type


class ComputeFunctions(InterpreterFunctions):
    """Elementwise, row and matmul implementations shared by the tensor and tile families."""

    @staticmethod
    def _binary(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, b = args
            if a.shape != b.shape:
                raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} vs {list(b.shape)}")
            return (numerics.binary(name, a, b, element_type(op)),)

        return run

    @staticmethod
    def _scalar(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, s = args
            return (numerics.scalar(name, a, s, element_type(op)),)

        return run

    @staticmethod
    def _unary(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            (a,) = args
            return (numerics.unary(name, a, element_type(op)),)

        return run

    @staticmethod
    def _cast(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            (a,) = args
            return (numerics.cast(a, element_type(op)),)

        return run

    @staticmethod
    def _matmul(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, b = args
            if a.shape[1] != b.shape[0]:
                raise fail(interpreter, op, f"shape mismatch at run time: {list(a.shape)} x {list(b.shape)}")
            return (numerics.matmul(a, b, element_type(op)),)

        return run

    @staticmethod
    def _row_reduce(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            (a,) = args
            if name == "row_max" and a.shape[1] == 0:
                raise fail(interpreter, op, f"row_max of an empty row (shape {list(a.shape)})")
            return (getattr(numerics, name)(a, element_type(op)),)

        return run

    @staticmethod
    def _row_expand(name: str):
        @guarded
        def run(self, interpreter: Interpreter, op: Operation, args: PythonValues):
            a, r = args
            if r.shape != (a.shape[0], 1):
                raise fail(
                    interpreter, op,
                    f"shape mismatch at run time: row operand {list(r.shape)} for input {list(a.shape)}",
                )
            return (numerics.row_expand(name, a, r, element_type(op)),)

        return run


def install(cls: type, ops: Sequence[tuple[type[Operation], str, str]]) -> None:
    """Add `@impl`s for (op class, kind, numerics name) triples to `cls`."""
    from xdsl.interpreter import impl

    for op_type, kind, name in ops:
        maker = {"binary": ComputeFunctions._binary, "scalar": ComputeFunctions._scalar,
                 "unary": ComputeFunctions._unary, "row_reduce": ComputeFunctions._row_reduce,
                 "row_expand": ComputeFunctions._row_expand, "cast": ComputeFunctions._cast,
                 "matmul": ComputeFunctions._matmul}[kind]
        setattr(cls, f"run_{op_type.name.replace('.', '_')}", impl(op_type)(maker(name)))


def _short(op_type: type[Operation]) -> str:
    return op_type.name.rsplit(".", 1)[1]


class TensorFunctions(ComputeFunctions):
    """`pypto.tensor.*`."""

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
        return (np.zeros(shape, dtype=numpy_dtype(t.element_type)),)

    @pimpl(tensor.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: tensor.SliceOp, args: PythonValues):
        src, *offsets = args
        extents = result_shape(interpreter, op, op.result.type)
        return (src[window(interpreter, op, src, offsets, extents, "slice")],)

    @pimpl(tensor.AssembleOp)
    def run_assemble(self, interpreter: Interpreter, op: tensor.AssembleOp, args: PythonValues):
        src, dst, *offsets = args
        check_write(interpreter, op, dst)
        dst[window(interpreter, op, dst, offsets, src.shape, "assemble")] = src
        return (dst,)

    @pimpl(tensor.DimOp)
    def run_dim(self, interpreter: Interpreter, op: tensor.DimOp, args: PythonValues):
        (src,) = args
        return (int(src.shape[op.axis.value.data]),)

    @pimpl(tensor.ReadOp)
    def run_read(self, interpreter: Interpreter, op: tensor.ReadOp, args: PythonValues):
        src, *indices = args
        idx = window(interpreter, op, src, indices, [1] * src.ndim, "read")
        return (to_scalar(src[idx].reshape(()), op.result.type),)



install(
    TensorFunctions,
    [
        *[(c, "binary", _short(c)) for c in (tensor.AddOp, tensor.SubOp, tensor.MulOp, tensor.DivOp,
                                             tensor.MaximumOp, tensor.MinimumOp)],
        *[(c, "scalar", _short(c)) for c in (tensor.AddsOp, tensor.SubsOp, tensor.MulsOp, tensor.DivsOp)],
        *[(c, "unary", _short(c)) for c in (tensor.ExpOp, tensor.LogOp, tensor.SqrtOp, tensor.NegOp,
                                            tensor.AbsOp, tensor.ReluOp, tensor.RecipOp)],
        *[(c, "row_reduce", _short(c)) for c in (tensor.RowMaxOp, tensor.RowSumOp)],
        *[(c, "row_expand", _short(c)) for c in (tensor.RowExpandSubOp, tensor.RowExpandMulOp,
                                                 tensor.RowExpandDivOp)],
        (tensor.CastOp, "cast", "cast"),
        (tensor.MatmulOp, "matmul", "matmul"),
    ],
)
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

