"""Tensor subscripts: `t[a:b, c:d]` reads a window (`pypto.tensor.slice`), `t[a:b, :] = v`
writes one (`pypto.tensor.assemble`, or `pypto.tile.store` for a tile `v`).

Each subscript item selects a window along one dimension:

* `a:b` -> offset `a`, extent `b - a`; `a` defaults to 0 and `b` to the dimension's extent;
* `:` -> the whole dimension (its extent may be symbolic or `?`);
* `i` -> offset `i`, extent 1 (the rank is kept: pypto windows never drop dimensions);
* missing trailing items mean `:`.

Offsets may be `index` values, but the window's shape is part of the result type, so every
extent must be known when the program is compiled: `b - a` must simplify to a constant.
`extent()` does that on the two expressions as affine forms over the loaded names
(`t[i:i + 16]`, `t[i * 16:(i + 1) * 16]`, `t[r + 1:r + 17]`), without emitting the stop.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.frontend.values import Const, describe

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder

Affine = dict[object, int]  # term key -> coefficient; key 1 holds the constant


class _NotAffine(Exception):
    pass


def _affine(fb: FunctionBuilder, node: ast.expr) -> Affine:
    """`node` as a sum of integer multiples of opaque terms (names bound to SSA values)."""
    if isinstance(node, ast.Constant):
        if type(node.value) is int:
            return {1: node.value}
        raise _NotAffine
    if isinstance(node, ast.Name | ast.Attribute):
        value = fb.expr(node)  # names and attributes emit no ops (errors here are real ones)
        if isinstance(value, Const) and type(value.value) is int:
            return {1: value.value}
        if isinstance(value, SSAValue):
            return {("value", id(value)): 1}
        raise _NotAffine
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):  # SHAPE[0]
        base = fb.expr(node.value)
        value = None if isinstance(base, SSAValue) else fb.expr(node)
        if isinstance(value, Const) and type(value.value) is int:
            return {1: value.value}
        raise _NotAffine
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _affine(fb, node.operand)
        return {k: -c for k, c in inner.items()} if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        lhs, rhs = _affine(fb, node.left), _affine(fb, node.right)
        if isinstance(node.op, ast.Add | ast.Sub):
            sign = 1 if isinstance(node.op, ast.Add) else -1
            out = dict(lhs)
            for k, c in rhs.items():
                out[k] = out.get(k, 0) + sign * c
            return {k: c for k, c in out.items() if c != 0 or k == 1}
        if isinstance(node.op, ast.Mult):
            for const, other in ((lhs, rhs), (rhs, lhs)):
                if set(const) <= {1}:
                    factor = const.get(1, 0)
                    return {k: c * factor for k, c in other.items() if c * factor != 0 or k == 1}
        if isinstance(node.op, ast.FloorDiv | ast.Mod) and set(lhs) <= {1} and set(rhs) <= {1}:
            a, b = lhs.get(1, 0), rhs.get(1, 0)
            if b == 0:
                raise _NotAffine
            return {1: a // b if isinstance(node.op, ast.FloorDiv) else a % b}
    raise _NotAffine


def extent(fb: FunctionBuilder, start: ast.expr, stop: ast.expr) -> int | None:
    """`stop - start` when it is a compile-time constant, else None."""
    try:
        diff = _affine(fb, stop)
        for k, c in _affine(fb, start).items():
            diff[k] = diff.get(k, 0) - c
    except _NotAffine:
        return None
    if any(c != 0 for k, c in diff.items() if k != 1):
        return None
    return diff.get(1, 0)


def window(fb: FunctionBuilder, base: SSAValue, node: ast.Subscript) -> tuple[list[SSAValue], list[A.Dim]]:
    """Offsets (as `index` values) and the static shape of the window `node` selects."""
    t = base.type
    assert isinstance(t, TensorType)
    shape = t.get_shape()
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    for item in items:
        if isinstance(item, ast.Starred):
            raise fb.error(item, "'*' is not supported in a tensor subscript")
        if isinstance(item, ast.Constant) and item.value is Ellipsis:
            raise fb.error(item, "'...' is not supported in a tensor subscript; write ':' for each dimension")
    if len(items) > len(shape):
        raise fb.error(node.slice, f"{len(items)} indices for a tensor of rank {len(shape)} ({t})")
    offsets: list[SSAValue] = []
    dims: list[A.Dim] = []
    for axis, dim in enumerate(shape):
        item = items[axis] if axis < len(items) else None
        if item is None:
            offsets.append(fb.materialize(Const(0), None, node))
            dims.append(dim)
            continue
        if isinstance(item, ast.Slice):
            if item.step is not None:
                step = fb.expr(item.step)
                if not (isinstance(step, Const) and step.value == 1 and type(step.value) is int):
                    raise fb.error(item.step, "slice steps are not supported (windows are contiguous)")
            start_value = Const(0) if item.lower is None else fb.expr(item.lower)
            if item.upper is None:
                if isinstance(start_value, Const) and start_value.value == 0:
                    size: A.Dim = dim
                elif isinstance(start_value, Const) and isinstance(dim, int):
                    size = dim - _int(fb, start_value, item.lower or item)
                else:
                    raise fb.error(
                        item,
                        f"the extent of '{ast.unparse(item)}' along dimension {axis} is not static "
                        f"(the dimension is {'?' if dim is None else dim}); "
                        "give both bounds, e.g. t[i:i + 16]",
                    )
            elif isinstance(start_value, Const):
                stop_value = fb.expr(item.upper)
                if not (isinstance(stop_value, Const) and type(stop_value.value) is int):
                    raise fb.error(
                        item.upper,
                        f"the extent of '{ast.unparse(item)}' must be a compile-time constant, "
                        f"got {describe(stop_value)} as its end",
                    )
                size = stop_value.value - _int(fb, start_value, item.lower or item)
            else:
                n = extent(fb, item.lower, item.upper)
                if n is None:
                    raise fb.error(
                        item,
                        f"the extent of '{ast.unparse(item)}' along dimension {axis} is not a "
                        "compile-time constant: the end must be the start plus a constant "
                        "(e.g. t[i:i + 16] or t[i * 16:(i + 1) * 16]); use pl.slice for other windows",
                    )
                size = n
            start_node: ast.AST = item.lower or item
        else:
            start_value = fb.expr(item)
            if isinstance(start_value, tuple | list):
                raise fb.error(item, "a tensor subscript takes integers, index values or slices")
            size = 1
            start_node = item
        if isinstance(size, int) and size <= 0:
            raise fb.error(item, f"the window '{ast.unparse(item)}' along dimension {axis} is empty")
        if isinstance(start_value, Const):
            lo = _int(fb, start_value, start_node)
            if lo < 0:
                raise fb.error(start_node, f"negative offset {lo} (negative indices are not supported)")
            if isinstance(size, int) and isinstance(dim, int) and lo + size > dim:
                raise fb.error(
                    item, f"the window '{ast.unparse(item)}' exceeds dimension {axis} of {t} (extent {dim})"
                )
        offsets.append(fb.index(start_value, start_node))
        dims.append(size)
    return offsets, dims


def _int(fb: FunctionBuilder, value: Const, node: ast.AST) -> int:
    if type(value.value) is not int:
        raise fb.error(node, f"expected an integer, got {describe(value)}")
    return value.value
