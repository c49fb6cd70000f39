"""Bounds of dynamic dimensions: `pl.dynamic("N", max=4096)` in a signature (or a
`bind_dynamic` of a bounded symbol) becomes `pypto.dim_bounds = {N = 4096 : i64}` on the
function, which buffer sizing reads (`analysis/dim_bounds.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i64

from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.dialects.program import DIM_BOUNDS_ATTR, FuncOp
from pypto_xdsl.language import types as T

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import ModuleBuilder
    from pypto_xdsl.frontend.declarations import FunctionDecl


def attach_dim_bounds(mb: ModuleBuilder, decl: FunctionDecl, op: FuncOp) -> None:
    """Record the declared bounds of the dynamic dimensions of `op`'s signature."""
    bounds: dict[str, int] = dict(decl.dim_bounds)
    origin: dict[str, object] = {}
    for p in decl.params:
        if p.annotation is None:
            continue
        try:
            spec = T.to_type_spec(mb._annotation(p.annotation, f"parameter '{p.arg}'", decl, p.arg))
        except T.TypeError_:
            continue  # the builder has reported it already
        for name, bound in getattr(spec, "bounds", ()):
            if bounds.get(name, bound) != bound:
                raise mb.srcmap.error(
                    p.annotation,
                    f"the dynamic dimension {name} is bounded by {bounds[name]} "
                    f"{'in ' + repr(origin[name]) if name in origin else 'by bind_dynamic'} and by {bound} "
                    f"in the annotation of '{p.arg}'",
                )
            bounds[name] = bound
            origin.setdefault(name, p.arg)
    symbols: set[str] = set()
    for t in (*op.function_type.inputs.data, *op.function_type.outputs.data):
        if isinstance(t, TensorType | TileType):
            symbols.update(t.symbols())
    kept = {name: IntegerAttr(b, i64) for name, b in bounds.items() if name in symbols}
    if kept:
        op.attributes[DIM_BOUNDS_ATTR] = DictionaryAttr(kept)
