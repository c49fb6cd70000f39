"""`pl.tile.mgather`, `pl.tile.gatherb` and `pl.tile.mscatter` (also spelled `pl.mgather`,
`pl.gatherb`, `pl.mscatter`): pypto_xdsl/dialects/tile_gather.py.

* `mgather(mem, idx, coalesce="row", *, gather_oob="undefined", target_memory=Vec,
  scratch=None, valid_shape=None)`: `coalesce` is "row"/"elem" (or 0/1), `gather_oob`
  "undefined"/"clamp"/"wrap"/"zero" (or 0..3); a `mat` result with `valid_shape` is marked
  partial (`tile.set_validshape`), as `pl.load` does;
* `gatherb(src, offset, *, output_dtype=None)`: the result's element type defaults to the
  source's;
* `mscatter(src, idx, output_tensor)`: returns the written tensor.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from xdsl.ir import SSAValue

from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects import tile_gather as G
from pypto_xdsl.dialects.attributes import GatherCoalesce, GatherOob, TensorType, TileType
from pypto_xdsl.frontend.ops import Args
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import types as T

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder
    from pypto_xdsl.frontend.ops import Handler


def _enum(a: Args, name: str, enum: Any, default: Any) -> Any:
    """A string enum keyword, by name or by its position (the reference's printed integers)."""
    if name not in a:
        return default
    v = a.value(name)
    members = list(enum)
    if isinstance(v, str) and v in {m.value for m in members}:
        return enum(v)
    if isinstance(v, Const) and type(v.value) is int and 0 <= v.value < len(members):
        return members[v.value]
    spelled = ", ".join(f'"{m.value}"' for m in members)
    raise a.fb.error(
        a.node_of(name), f"'{name}' of {a.qual} must be one of {spelled} (or 0..{len(members) - 1}), got {describe(v)}"
    )


def _mgather(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.frontend.ops_shapes import _mark_valid

    a = Args(fb, node, qual, ["mem", "idx", "coalesce", "gather_oob", "target_memory", "scratch", "valid_shape"], 2)
    mem = a.tensor("mem")
    coalesce = _enum(a, "coalesce", GatherCoalesce, GatherCoalesce.ROW)
    oob = _enum(a, "gather_oob", GatherOob, GatherOob.UNDEFINED)
    space = a.memory("target_memory", T.MemorySpace.Vec)
    mat = space == T.MemorySpace.Mat
    if space not in (T.MemorySpace.Vec, T.MemorySpace.Mat):
        raise fb.error(a.node_of("target_memory"), f"{qual} gathers into a Vec or a Mat tile, not {space.name}")
    idx = a.tensor("idx") if mat else a.tile("idx")
    scratch = a.tensor("scratch") if "scratch" in a and a.value("scratch") is not None else None
    valid = "valid_shape" in a and a.value("valid_shape") is not None
    if valid and not mat:
        raise fb.error(
            a.node_of("valid_shape"), f"{qual}: valid_shape is for a Mat result; a Vec result is valid where 'idx' is"
        )
    mem_t, idx_t = mem.type, idx.type
    assert isinstance(mem_t, TensorType) and isinstance(idx_t, TensorType | TileType)
    if idx_t.rank != 2:
        raise fb.error(a.node_of("idx"), f"'idx' of {qual} must be 2-D, got {describe(idx)}")
    shape = G.MgatherOp.result_shape(mem_t, idx_t, coalesce)
    result = TileType(shape, mem_t.element_type, space.value)
    gathered = fb.build_op(node, lambda: G.MgatherOp(mem, idx, result, coalesce, oob, scratch))
    if not valid:
        return gathered
    return _mark_valid(fb, a, "valid_shape", gathered, shape)


def _gatherb(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["src", "offset", "output_dtype"], 2)
    src, offset = a.tile("src"), a.tile("offset")
    elem = None
    if "output_dtype" in a and a.value("output_dtype") is not None:
        elem = a.dtype("output_dtype").to_ir()
    return fb.build_op(node, lambda: tile_ops.GatherbOp(src, offset, elem))


def _mscatter(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["src", "idx", "output_tensor"], 3)
    src, idx = a.tile("src"), a.tile("idx")
    dest = a.tensor("output_tensor")
    return fb.build_op(node, lambda: tile_ops.MscatterOp(src, idx, dest))


def register(handlers: dict[tuple[str, str], Handler]) -> None:
    for key in ("", "tile"):
        handlers[(key, "mgather")] = _mgather
        handlers[(key, "gatherb")] = _gatherb
        handlers[(key, "mscatter")] = _mscatter
