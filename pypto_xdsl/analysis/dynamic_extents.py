"""Where a function depends on a run-time extent.

A function is static when every tensor it takes or makes has a static shape and no tile is
partial (`pypto.tile.load ... valid[...]`, `pypto.tile.set_validshape`). A client that can
only compile static functions (the Ascend C backend today) asks for the first place that is
not, to refuse the function with one diagnostic naming the parameter or the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.attributes import TensorType, format_shape
from pypto_xdsl.dialects.program import FuncOp


@dataclass(frozen=True)
class DynamicExtent:
    """The first run-time extent of a function: a parameter (`op` is None) or an op."""

    func: FuncOp
    value: SSAValue
    op: Operation | None
    description: str
    """What depends on a run-time extent, e.g. `tensor parameter %a has the dynamic shape [N, 128]`."""

    def where(self) -> str:
        """`@k` for a parameter, `'pypto.tile.load' in @k` for an op."""
        func = f"@{self.func.sym_name.data}"
        return func if self.op is None else f"'{self.op.name}' in {func}"


def value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "an unnamed value"


def _shape_text(t: TensorType) -> str:
    dims = t.get_shape()
    symbols = sorted({d for d in dims if isinstance(d, str)})
    unknown = any(d is None for d in dims)
    what = []
    if symbols:
        what.append(f"{', '.join(symbols)} {'is a' if len(symbols) == 1 else 'are'} run-time "
                    f"extent{'s' if len(symbols) > 1 else ''}")
    if unknown:
        what.append("'?' is an unknown extent")
    return f"the dynamic shape {format_shape(dims)} ({'; '.join(what)})"


def first_dynamic_extent(func: FuncOp) -> DynamicExtent | None:
    """The first parameter, then the first op in program order, that is not static."""
    if not func.body.blocks:
        return None
    for k, arg in enumerate(func.body.blocks[0].args):
        t = arg.type
        if isinstance(t, TensorType) and not t.is_static():
            name = value_name(arg) if arg.name_hint else f"#{k}"
            return DynamicExtent(func, arg, None, f"tensor parameter {name} has {_shape_text(t)}")
    for op in func.body.walk():
        if isinstance(op, tile.LoadOp) and op.is_partial:
            extents = ", ".join(value_name(v) for v in op.valid_shape)
            return DynamicExtent(
                func, op.result, op,
                f"the partial load of {value_name(op.result)} (valid[{extents}]) reads a run-time block",
            )
        if isinstance(op, tile.SetValidShapeOp):
            return DynamicExtent(
                func, op.results[0], op,
                f"{value_name(op.results[0])} is a partial tile (a run-time valid shape)",
            )
        for result in op.results:
            t = result.type
            if isinstance(t, TensorType) and not t.is_static():
                return DynamicExtent(func, result, op, f"{value_name(result)} has {_shape_text(t)}")
    return None


def unsupported_dynamic_shape(t: TensorType) -> str | None:
    """Why the Ascend C backend cannot lower a tensor of dynamic shape `t`, or None: it
    lowers named dimensions (a run-time row count, a run-time row length), which travel to
    kernels as scalar parameters."""
    dims = t.get_shape()
    if any(d is None for d in dims):
        return "an unknown extent ('?') has no symbol to pass to the kernel (name it: pl.dynamic(\"N\"))"
    return None


def dynamic_symbols(func: FuncOp) -> list[str]:
    """The dimension symbols of `func`'s tensor parameters, in order of first appearance."""
    out: list[str] = []
    if not func.body.blocks:
        return out
    for arg in func.body.blocks[0].args:
        t = arg.type
        if isinstance(t, TensorType):
            for d in t.get_shape():
                if isinstance(d, str) and d not in out:
                    out.append(d)
    return out
