"""Lowering of the `pl` ops that move, reshape, reduce or broadcast data, and of scratch and
partial tiles, with PyPTO's spellings (keyword names, defaults):

* memory: `pl.load(tensor, offsets, shapes, valid_shape=None, target_memory=Vec)`,
  `pl.store(tile, offsets, output_tensor, atomic=...)`, `pl.assemble(target, source, offset,
  atomic=...)`, `pl.slice(input, shape, offset, valid_shape=None)`, `pl.read(src, offset)`,
  `pl.write(dst, offset, value)`, `pl.full(shape, dtype, value)` (a tensor),
  `pl.create_tile(shape, dtype, target_memory)`;
* partial tiles: `pl.tile.set_validshape`, `pl.tile.fillpad(tile, pad_value)`,
  `pl.tile.fillpad_expand`;
* reductions with PyPTO's scratch tiles (`pl.row_max(x, tmp)`), column reductions, row and
  column broadcasts, `pl.expands`;
* layout: `pl.reshape`, `pl.transpose`, `pl.tile.transpose_view`, `pl.concat`;
* matmul keywords (`out_dtype`, `a_trans`, `b_trans`), cast modes, scalar `pl.cast`,
  `pl.min` / `pl.max` on scalars.
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import (
    AtomicKind,
    PadValue,
    TensorType,
    TileType,
    is_float_type,
)
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.frontend.ops import Args, _check_family, _family_of, op_class
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import types as T

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder
    from pypto_xdsl.frontend.ops import Handler


def _flag(a: Args, name: str, default: object, what: str) -> None:
    """Reject a keyword that is given a value other than its default (not supported here)."""
    if name not in a:
        return
    v = a.value(name)
    given = v.value if isinstance(v, Const) else v
    if given is not default and given != default:
        raise a.fb.error(a.node_of(name), f"{a.qual}: {name}={ast.unparse(a.node_of(name))} is not supported ({what})")


def _index_or_list(a: Args, name: str, rank: int) -> list[SSAValue]:
    """Offsets/indices: a list with one entry per dimension, or one index for a rank-1 value
    (PyPTO's flat form)."""
    node = a.node_of(name)
    v = a.value(name)
    if not isinstance(v, list | tuple):
        if rank != 1:
            raise a.fb.error(node, f"'{name}' of {a.qual} needs {rank} entries (a list), got {describe(v)}")
        return [a.fb.index(v, node)]
    return a.offsets(name, rank)


def _index_scalar(a: Args, name: str) -> SSAValue:
    return a.fb.index(a.value(name), a.node_of(name))


def _atomic(a: Args) -> AtomicKind:
    if "atomic" not in a:
        return AtomicKind.NONE
    v = a.value("atomic")
    if not isinstance(v, T.AtomicType):
        raise a.fb.error(a.node_of("atomic"), f"'atomic' of {a.qual} must be a pl.AtomicType member, got {describe(v)}")
    return v.value


def _pad(a: Args, name: str = "pad_value") -> PadValue:
    """`pl.PadValue.zero/max/min`, or PyPTO's literal sugars 0, math.inf, -math.inf."""
    if name not in a:
        return PadValue.ZERO
    v = a.value(name)
    if isinstance(v, T.PadValue):
        return v.value
    if isinstance(v, Const) and not isinstance(v.value, bool):
        if v.value == 0:
            return PadValue.ZERO
        if v.value == math.inf:
            return PadValue.MAX
        if v.value == -math.inf:
            return PadValue.MIN
    raise a.fb.error(
        a.node_of(name),
        f"'{name}' of {a.qual} must be pl.PadValue.zero/max/min (or 0, math.inf, -math.inf), got {describe(v)}",
    )


# --------------------------------------------------------------------------- memory


def _load(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.load(tensor, offsets, shapes, valid_shape=None, target_memory=Vec, clamp=False)`.

    With `valid_shape`, the tile is loaded whole and marked partial (`tile.set_validshape`):
    only the valid block is real data until `pl.tile.fillpad`; when the window runs past the
    tensor's end, only the valid block is read (a partial `tile.load ... valid[...]`). With `clamp=True` the window
    may run off the end of the tensor: the valid block, cut back to the tensor's edge, is
    all that is read (a partial `tile.load ... valid[...]`, see `_clamped_extents`)."""
    params = ["tensor", "offsets", "shapes", "valid_shape", "target_memory", "clamp"]
    # This project's earlier spelling took target_memory as the 4th argument.
    if len(node.args) == 4 and isinstance(node.args[3], ast.Attribute) and isinstance(fb.expr(node.args[3]), T.MemorySpace):
        params = ["tensor", "offsets", "shapes", "target_memory", "valid_shape", "clamp"]
    a = Args(fb, node, qual, params, 3)
    src = a.tensor("tensor")
    offsets = a.offsets("offsets", src.type.rank)  # type: ignore[union-attr]
    shape = a.shape("shapes")
    space = a.memory("target_memory", T.MemorySpace.Vec)
    result = TileType(shape, src.type.element_type, space.value)  # type: ignore[union-attr]
    if _clamp_flag(a):
        extents = _clamped_extents(fb, a, src, offsets, shape)
        if extents is not None:
            return fb.build_op(node, lambda: tile_ops.LoadOp(src, offsets, result, extents))
    if "valid_shape" in a and a.value("valid_shape") is not None and _runs_past_the_end(src, offsets, shape):
        # PyPTO reads only the valid block: a window past the tensor's end (a [64, 64] tile of
        # a [48, 64] tensor, valid [48, 64]) is a partial load of that block, which must fit
        extents = _valid_extents(fb, a, src, offsets, shape)
        return fb.build_op(node, lambda: tile_ops.LoadOp(src, offsets, result, extents))
    loaded = fb.build_op(node, lambda: tile_ops.LoadOp(src, offsets, result))
    if "valid_shape" not in a or a.value("valid_shape") is None:
        return loaded
    return _mark_valid(fb, a, "valid_shape", loaded, shape)


def _runs_past_the_end(src: SSAValue, offsets: list[SSAValue], shape: list) -> bool:
    """Whether the window at static offsets ends past a static extent of the tensor."""
    dims = src.type.get_shape()  # type: ignore[union-attr]
    if len(dims) != len(shape):
        return False
    return any(
        isinstance(d, int) and isinstance(w, int) and isinstance(o := _static_or(off), int) and o + w > d
        for d, w, off in zip(dims, shape, offsets)
    )


def _valid_extents(fb: FunctionBuilder, a: Args, src: SSAValue, offsets: list[SSAValue], shape: list) -> list[SSAValue]:
    """The `valid_shape` of a load as index values; a static one must fit in the tensor."""
    values, vnode = a.value("valid_shape"), a.node_of("valid_shape")
    if not isinstance(values, list | tuple) or len(values) != len(shape):
        raise fb.error(vnode, f"'valid_shape' of {a.qual} needs {len(shape)} entries, got {describe(values)}")
    nodes = vnode.elts if isinstance(vnode, ast.List | ast.Tuple) else [vnode] * len(shape)
    extents = [_as_index(fb, v, n) for v, n in zip(values, nodes)]
    for axis, (e, off, dim, n) in enumerate(zip(extents, offsets, src.type.get_shape(), nodes)):  # type: ignore[union-attr]
        e_c, off_c = _static_or(e), _static_or(off)
        if isinstance(e_c, int) and isinstance(off_c, int) and isinstance(dim, int) and off_c + e_c > dim:
            raise fb.error(n, f"{a.qual}: the valid block ({e_c} at {off_c} on axis {axis}) runs past the end of "
                              f"{src.type} (extent {dim}); pass clamp=True to cut it at the edge")
    return extents


def _clamp_flag(a: Args) -> bool:
    if "clamp" not in a:
        return False
    v = a.value("clamp")
    if isinstance(v, Const) and isinstance(v.value, bool):
        return v.value
    raise a.fb.error(a.node_of("clamp"), f"'clamp' of {a.qual} must be True or False, got {describe(v)}")


def _clamped_extents(
    fb: FunctionBuilder, a: Args, src: SSAValue, offsets: list[SSAValue], shape: list
) -> list[SSAValue] | None:
    """PyPTO's clamped window read: per dimension the valid extent is
    `clamp(dim - offset, 0, requested)`, `requested` the `valid_shape` (else the window).
    Folded when the tensor's extent and the offset are constants; else `arith` ops on
    `tensor.dim`. None when the clamped block is the whole window (a plain load)."""
    node = a.node
    if "valid_shape" in a and a.value("valid_shape") is not None:
        values = a.value("valid_shape")
        vnode = a.node_of("valid_shape")
        if not isinstance(values, list | tuple) or len(values) != len(shape):
            raise fb.error(vnode, f"'valid_shape' of {a.qual} needs {len(shape)} entries, got {describe(values)}")
        nodes = vnode.elts if isinstance(vnode, ast.List | ast.Tuple) else [vnode] * len(shape)
        requested: list[SSAValue | int] = [_static_or(_as_index(fb, v, n)) for v, n in zip(values, nodes)]
    else:
        requested = list(shape)
    if len(shape) != src.type.rank:  # type: ignore[union-attr]
        raise fb.error(node, f"{a.qual}: the window {shape} and {src.type} differ in rank")  # type: ignore[union-attr]
    extents: list[SSAValue | int] = []
    for axis, (req, off, dim) in enumerate(zip(requested, offsets, src.type.get_shape())):  # type: ignore[union-attr]
        off_c = _static_or(off)
        if isinstance(req, int) and isinstance(off_c, int) and isinstance(dim, int):
            extents.append(max(0, min(req, dim - off_c)))
            continue

        def build(axis=axis, req=req, off=off, dim=dim) -> SSAValue:
            size = fb.index(Const(dim), node) if isinstance(dim, int) else fb.build_op(
                node, lambda: tensor_ops.DimOp(src, axis))
            avail = fb.build_op(node, lambda: arith.SubiOp(size, off))
            want = fb.index(Const(req), node) if isinstance(req, int) else req
            cut = fb.build_op(node, lambda: arith.MinSIOp(want, avail))
            zero = fb.index(Const(0), node)
            return fb.build_op(node, lambda: arith.MaxSIOp(cut, zero))

        extents.append(build())
    if all(isinstance(e, int) and e == d for e, d in zip(extents, shape)):
        return None
    return [fb.index(Const(e), node) if isinstance(e, int) else e for e in extents]


def _static_or(value: SSAValue) -> SSAValue | int:
    """The integer of an `arith.constant` index, else the value."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(value.type, IndexType):
        return owner.value.value.data  # type: ignore[union-attr]
    return value


def _mark_valid(fb: FunctionBuilder, a: Args, name: str, tile: SSAValue, shape: list) -> SSAValue:
    node = a.node_of(name)
    if len(shape) != 2:
        raise fb.error(node, f"'{name}' of {a.qual} needs a 2-D tile, got the shape {shape}")
    values = a.value(name)
    nodes = a.node_of(name).elts if isinstance(a.node_of(name), ast.List | ast.Tuple) else [a.node_of(name)] * 2
    if not isinstance(values, list | tuple) or len(values) != 2:
        raise fb.error(a.node_of(name), f"'{name}' of {a.qual} needs 2 entries, got {describe(values)}")
    extents = [_as_index(fb, v, n) for v, n in zip(values, nodes)]
    if all(isinstance(e.owner, arith.ConstantOp) and e.owner.value.value.data == d  # type: ignore[union-attr]
           for e, d in zip(extents, shape)):
        return tile  # the whole tile (or tensor window) is valid
    if isinstance(tile.type, TensorType):
        return fb.build_op(a.node, lambda: tensor_ops.SetValidShapeOp(tile, *extents))
    return fb.build_op(a.node, lambda: tile_ops.SetValidShapeOp(tile, *extents))


def _as_index(fb: FunctionBuilder, value: Any, node: ast.AST) -> SSAValue:
    """An index for a valid extent: integer scalars (a value read from a config tensor) are
    converted, as PyPTO accepts any integer there."""
    if isinstance(value, SSAValue) and isinstance(value.type, IntegerType) and value.type.width.data > 1:
        return fb.build_op(node, lambda: arith.IndexCastOp(value, IndexType()))
    return fb.index(value, node)


def _store(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.store(tile, offsets, output_tensor, shapes=None, *, atomic=pl.AtomicType.None_)`."""
    a = Args(fb, node, qual, ["tile", "offsets", "output_tensor", "shapes", "atomic"], 3)
    tile = a.tile("tile")
    if "shapes" in a and a.value("shapes") is not None:
        # PyPTO's ND partition descriptor: the tile's own shape is the plain store of the tile
        # (what the reference's 2-D kernels spell out); a collapsed ND partition is not modelled
        shapes = a.shape("shapes")
        if shapes != list(tile.type.get_shape()):  # type: ignore[union-attr]
            raise fb.error(
                a.node_of("shapes"),
                f"{qual}: 'shapes' {shapes} differs from the tile's shape "
                f"{list(tile.type.get_shape())}: an ND partition other than the tile itself "  # type: ignore[union-attr]
                f"is not supported; store the whole tile",
            )
    dest = a.tensor("output_tensor")
    offsets = a.offsets("offsets", dest.type.rank)  # type: ignore[union-attr]
    atomic = _atomic(a)
    if atomic != AtomicKind.NONE:
        stored = fb.build_op(node, lambda: tile_ops.AtomicStoreOp(tile, dest, offsets, atomic))
    else:
        stored = fb.build_op(node, lambda: tile_ops.StoreOp(tile, dest, offsets))
    return _window_or(a.value("output_tensor"), stored)


def _window_or(target: Any, written: SSAValue) -> SSAValue:
    """`data = pl.store(t, [0, 0], data)` of a `pld.DistributedTensor` keeps `data` the
    window (its storage is what was written), so it still addresses the other ranks."""
    if isinstance(target, SSAValue) and isinstance(target.type, DistributedTensorType):
        return target
    return written


def _assemble(family: str | None):
    """`pl.assemble(target, source, offset, *, atomic=...)` (tensors or tiles);
    `pl.tile.assemble(target, source, offset)` writes into the target tile in place."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        params = ["target", "source", "offset"] + (["atomic"] if family != "tile" else [])
        a = Args(fb, node, qual, params, 3, aliases={"offsets": "offset"})
        dst = a.shaped("target")
        fam = _check_family(fb, dst, family, node, qual)
        src = a.shaped("source")
        if _family_of(src) != fam:
            raise fb.error(a.node_of("source"), f"'source' of {qual} must be a {fam} like 'target', got {describe(src)}")
        offsets = a.offsets("offset", dst.type.rank)  # type: ignore[union-attr]
        if fam == "tile":
            if _atomic(a) != AtomicKind.NONE:
                raise fb.error(a.node_of("atomic"), f"{qual}: an atomic combine needs a tensor target (global memory)")
            return fb.build_op(node, lambda: tile_ops.AssembleOp(src, dst, offsets))
        atomic = _atomic(a)
        return fb.build_op(node, lambda: tensor_ops.AssembleOp(src, dst, offsets, atomic))

    return handle


def _slice(family: str | None):
    """`pl.slice(input, shape, offset, valid_shape=None, ...)`: a tensor view, or a copy of a
    window of a tile (partial with `valid_shape`)."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = {"tensor": "tensor", "tile": "tile"}.get(family or "", "input")
        params = [first, "shape", "offset", "valid_shape", "drop_dims", "pad_value", "clamp"]
        a = Args(fb, node, qual, params, 3, aliases={"offsets": "offset"})
        src = a.shaped(first)
        fam = _check_family(fb, src, family, node, qual)
        if "drop_dims" in a and a.value("drop_dims") == []:
            pass  # PyPTO's 5-argument form spells "no dims dropped" as []
        else:
            _flag(a, "drop_dims", None, "windows keep their rank")
        _flag(a, "pad_value", None, "fill a partial tile with pl.tile.fillpad")
        _flag(a, "clamp", False, "a window must fit in its source")
        if fam == "tensor":
            shape, sizes = _runtime_shape(a, "shape")
        else:
            shape, sizes = a.shape("shape"), []
        offsets = a.offsets("offset", src.type.rank)  # type: ignore[union-attr]
        if fam == "tensor":
            result = TensorType(shape, src.type.element_type)  # type: ignore[union-attr]
            view = fb.build_op(node, lambda: tensor_ops.SliceOp(src, offsets, result, sizes))
            # `pl.tensor.slice(t, [32], [0], [], [])`: [] is the whole window
            if "valid_shape" in a and a.value("valid_shape") not in (None, []):
                return _mark_valid(fb, a, "valid_shape", view, shape)
            return view
        result = TileType(shape, src.type.element_type, src.type.memory_space)  # type: ignore[union-attr]
        window = fb.build_op(node, lambda: tile_ops.SliceOp(src, offsets, result))
        if "valid_shape" in a and a.value("valid_shape") is not None:
            return _mark_valid(fb, a, "valid_shape", window, shape)
        return window

    return handle


def _runtime_shape(a: Args, name: str) -> tuple[list, list[SSAValue]]:
    """A tensor shape whose entries may be run-time values (an `index` or integer scalar, e.g.
    read from a config tensor): each becomes a `?` dimension and an `index` size operand, in
    order, as for `pl.create_tensor`."""
    fb = a.fb
    node = a.node_of(name)
    value = a.value(name)
    if not isinstance(value, list | tuple):
        raise fb.error(node, f"'{name}' of {a.qual} must be a list, got {describe(value)}")
    nodes = node.elts if isinstance(node, ast.List | ast.Tuple) else [node] * len(value)
    dims: list = []
    sizes: list[SSAValue] = []
    for d, n in zip(value, nodes):
        if isinstance(d, Const) and type(d.value) is int and d.value >= 0:
            dims.append(d.value)
        elif isinstance(d, T.DynVar):
            dims.append(d.name)
        elif isinstance(d, SSAValue) and isinstance(d.type, IndexType | IntegerType) and d.type != IntegerType(1):
            dims.append(None)
            sizes.append(_as_index(fb, d, n))
        else:
            raise fb.error(n, f"a dimension of '{name}' of {a.qual} must be an int, pl.dynamic or an index, got {describe(d)}")
    return dims, sizes


def _read(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first, idx = {"tensor": ("tensor", "indices"), "tile": ("tile", "indices")}.get(family or "", ("src", "offset"))
        a = Args(fb, node, qual, [first, idx], 2, aliases={"indices": idx, "tensor": first} if family is None else None)
        src = a.shaped(first)
        fam = _check_family(fb, src, family, node, qual)
        indices = _index_or_list(a, idx, src.type.rank)  # type: ignore[union-attr]
        cls = tensor_ops.ReadOp if fam == "tensor" else tile_ops.ReadOp
        return fb.build_op(node, lambda: cls(src, indices))

    return handle


def _write(family: str | None):
    """`pl.write(dst, offset, value)`: one element; a tensor write names the tensor's storage,
    a tile write updates the tile in place."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first, idx = {"tensor": ("tensor", "indices"), "tile": ("tile", "indices")}.get(family or "", ("dst", "offset"))
        a = Args(fb, node, qual, [first, idx, "value"], 3)
        dst = a.shaped(first)
        fam = _check_family(fb, dst, family, node, qual)
        indices = _index_or_list(a, idx, dst.type.rank)  # type: ignore[union-attr]
        value = fb.materialize(a.value("value"), dst.type.element_type, a.node_of("value"))  # type: ignore[union-attr]
        cls = tensor_ops.WriteOp if fam == "tensor" else tile_ops.WriteOp
        return _window_or(a.value(first), fb.build_op(node, lambda: cls(value, dst, indices)))

    return handle


def _tensor_full(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.full(shape, dtype, value)` / `pl.tensor.full`: a new tensor filled with `value`."""
    a = Args(fb, node, qual, ["shape", "dtype", "value"], 3)
    shape = a.shape("shape")
    dtype = a.dtype("dtype")
    if dtype == T.INDEX:
        raise fb.error(a.node_of("dtype"), "tensor elements cannot be pl.INDEX")
    v = fb.materialize(a.value("value"), dtype.to_ir(), a.node_of("value"))
    return fb.build_op(node, lambda: tensor_ops.FullOp(v, TensorType(shape, dtype.to_ir())))


def _create_tile(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.create_tile(shape, dtype, target_memory=Vec)`: a tile of unspecified contents."""
    a = Args(fb, node, qual, ["shape", "dtype", "target_memory", "transpose", "flat_layout"], 2)
    _flag(a, "transpose", None, "tiles have one layout here")
    _flag(a, "flat_layout", None, "tiles have one layout here")
    shape = a.shape("shape")
    dtype = a.dtype("dtype")
    if dtype == T.INDEX:
        raise fb.error(a.node_of("dtype"), "tile elements cannot be pl.INDEX")
    space = a.memory("target_memory", T.MemorySpace.Vec)
    return fb.build_op(node, lambda: tile_ops.CreateOp(TileType(shape, dtype.to_ir(), space.value)))


# --------------------------------------------------------------------------- partial tiles


def _set_validshape(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = {"tile": "tile", "tensor": "tensor"}.get(family or "", "input")
        a = Args(fb, node, qual, [first, "valid_rows", "valid_cols"], 3)
        t = a.shaped(first)
        fam = _check_family(fb, t, family, node, qual)
        if t.type.rank != 2:  # type: ignore[union-attr]
            raise fb.error(a.node_of(first), f"{qual} needs a 2-D {fam}, got {describe(t)}")
        rows, cols = _as_index(fb, a.value("valid_rows"), a.node_of("valid_rows")), _as_index(
            fb, a.value("valid_cols"), a.node_of("valid_cols")
        )
        cls = tensor_ops.SetValidShapeOp if fam == "tensor" else tile_ops.SetValidShapeOp
        return fb.build_op(node, lambda: cls(t, rows, cols))

    return handle


def _fillpad(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = "tile" if family == "tile" else "value"
        a = Args(fb, node, qual, [first, "pad_value"], 1)
        t = a.shaped(first)
        if _family_of(t) != "tile":
            raise fb.error(a.node_of(first), f"{qual}: tensors carry no valid shape here, so there is nothing to pad")
        pad = _pad(a)
        return fb.build_op(node, lambda: tile_ops.FillPadOp(t, pad))

    return handle


def _fillpad_expand(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = "tile" if family == "tile" else "value"
        a = Args(fb, node, qual, [first, "shape", "pad_value"], 2)
        t = a.shaped(first)
        if _family_of(t) != "tile":
            raise fb.error(a.node_of(first), f"{qual} is supported on tiles only")
        shape = a.shape("shape")
        pad = _pad(a)
        result = TileType(shape, t.type.element_type, t.type.memory_space)  # type: ignore[union-attr]
        return fb.build_op(node, lambda: tile_ops.FillPadExpandOp(t, result, pad))

    return handle


# --------------------------------------------------------------------------- reductions, broadcasts


def _reduction(name: str, family: str | None):
    """`pl.row_max(input, tmp_tile=None)`: the tile form takes PyPTO's scratch tile (optional
    here); the tensor form takes none (convert-tensor-to-tile sizes its own)."""
    first = "tile" if family == "tile" else "input"

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        params = [first] if family == "tensor" else [first, "tmp_tile"]
        a = Args(fb, node, qual, params, 1, aliases={"input": first} if first != "input" else None)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        tmp = a.value("tmp_tile") if "tmp_tile" in a else None
        if tmp is not None and fam == "tensor":
            raise fb.error(
                a.node_of("tmp_tile"),
                f"{qual} takes no tmp_tile for a tensor: convert-tensor-to-tile allocates the scratch",
            )
        if tmp is not None:
            tmp = a.tile("tmp_tile")
        cls = op_class(fb, fam, name, node)
        if tmp is not None and not cls.OPTIONAL:
            raise fb.error(a.node_of("tmp_tile"), f"{qual} takes no scratch tile")
        return fb.build_op(node, lambda: cls(value, tmp) if tmp is not None else cls(value))

    return handle


_EXPAND_FIRST = {"tile": "tile", "tensor": "tensor"}


def _expand(name: str, family: str | None):
    """`pl.row_expand_mul(lhs, rhs)`, `pl.tile.row_expand_mul(tile, row_vec)`,
    `pl.tensor.col_expand_mul(tensor, col_vec)`; the bare `row_expand` / `col_expand` name
    their first parameter `target`."""
    side = "row" if name.startswith("row") else "col"
    vec = f"{side}_vec"
    if family is None:
        first, second = "lhs", "rhs"
    else:
        first, second = ("target" if name in ("row_expand", "col_expand") else _EXPAND_FIRST[family]), vec
    params = [first, second]
    if name == "row_expand_add" and family != "tensor":
        params.append("tmp")
    aliases = {"input": first, "row": second, "col": second}

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, params, 2, aliases=aliases)
        value, v = a.shaped(first), a.shaped(second)
        fam = _check_family(fb, value, family, node, qual)
        if _family_of(v) != fam:
            raise fb.error(a.node_of(second), f"'{second}' of {qual} must be a {fam} like '{first}', got {describe(v)}")
        cls = op_class(fb, fam, name, node)
        if "tmp" in a and a.value("tmp") is not None:
            if fam != "tile":
                raise fb.error(a.node_of("tmp"), f"{qual} takes no tmp for a tensor")
            tmp = a.tile("tmp")
            return fb.build_op(node, lambda: cls(value, v, tmp))
        return fb.build_op(node, lambda: cls(value, v))

    return handle


def _expands(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["target", "scalar"], 2)
        target = a.shaped("target")
        fam = _check_family(fb, target, family, node, qual)
        s = fb.materialize(a.value("scalar"), target.type.element_type, a.node_of("scalar"))  # type: ignore[union-attr]
        cls = op_class(fb, fam, "expands", node)
        return fb.build_op(node, lambda: cls(target, s))

    return handle


# --------------------------------------------------------------------------- layout


def _first_name(family: str | None) -> str:
    return {"tile": "tile", "tensor": "tensor"}.get(family or "", "input")


def _reshape(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = _first_name(family)
        a = Args(fb, node, qual, [first, "shape"], 2)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        shape = a.shape("shape")
        cls = op_class(fb, fam, "reshape", node)
        return fb.build_op(node, lambda: cls(value, value.type.with_shape(shape)))  # type: ignore[union-attr]

    return handle


def _axis(a: Args, name: str, rank: int) -> int:
    v = a.value(name)
    if not isinstance(v, Const) or type(v.value) is not int:
        raise a.fb.error(a.node_of(name), f"'{name}' of {a.qual} must be an integer constant, got {describe(v)}")
    axis = v.value + rank if v.value < 0 else v.value
    if not 0 <= axis < rank:
        raise a.fb.error(a.node_of(name), f"{name} {v.value} is out of range for a rank-{rank} value")
    return axis


def _transpose(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        first = _first_name(family)
        params = [first, "axis1", "axis2"] + (["tmp_tile"] if family == "tile" else [])
        a = Args(fb, node, qual, params, 3)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        _flag(a, "tmp_tile", None, "the scratch of a tile transpose is the backend's")
        rank = value.type.rank  # type: ignore[union-attr]
        a1, a2 = _axis(a, "axis1", rank), _axis(a, "axis2", rank)
        if a1 == a2:
            raise fb.error(node, f"{qual}: axis1 and axis2 name the same axis {a1}")
        cls = op_class(fb, fam, "transpose", node)
        return fb.build_op(node, lambda: cls(value, a1, a2))

    return handle


def _transpose_view(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tile"], 1)
    t = a.tile("tile")
    return fb.build_op(node, lambda: tile_ops.TransposeViewOp(t))


def _concat(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["src0", "src1"], 2)
        x, y = a.shaped("src0"), a.shaped("src1")
        fam = _check_family(fb, x, family, node, qual)
        if _family_of(y) != fam:
            raise fb.error(a.node_of("src1"), f"'src1' of {qual} must be a {fam} like 'src0', got {describe(y)}")
        cls = op_class(fb, fam, "concat", node)
        return fb.build_op(node, lambda: cls(x, y))

    return handle


# --------------------------------------------------------------------------- matmul, casts, scalars


def cube_operands(fb: FunctionBuilder, node: ast.AST, lhs: SSAValue, rhs: SSAValue) -> tuple[SSAValue, SSAValue]:
    from pypto_xdsl.frontend.ops_cube import cube_operands as moved

    return moved(fb, node, lhs, rhs)


def _matmul(family: str | None):
    """`pl.matmul(lhs, rhs, out_dtype=None, a_trans=False, b_trans=False, c_matrix_nz=False)`.

    On tensors a transposed operand is a `tensor.transpose` view (of its last two axes), an
    operand of rank > 2 makes the product a `tensor.batch_matmul`, and an `out_dtype` other
    than the accumulator's is a `tensor.cast` of the product; on tiles transposition is a type
    property (`pl.tile.transpose_view`) and `out_dtype` must be the accumulator's."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        params = ["lhs", "rhs"] + ([] if family == "tile" else ["out_dtype", "a_trans", "b_trans", "c_matrix_nz"])
        a = Args(fb, node, qual, params, 2)
        lhs = a.shaped("lhs")
        fam = _check_family(fb, lhs, family, node, qual)
        rhs = a.shaped("rhs")
        _flag(a, "c_matrix_nz", False, "products are row-major")
        if fam == "tile":
            for flag in ("a_trans", "b_trans"):
                _flag(a, flag, False, "on tiles transposition is a type property: use pl.tile.transpose_view")
            lhs, rhs = cube_operands(fb, node, lhs, rhs)  # mat operands moved to L0, as PyPTO does
        else:
            lhs = _maybe_transposed(fb, a, "a_trans", lhs)
            rhs = _maybe_transposed(fb, a, "b_trans", rhs)
            lhs, rhs = _promoted(fb, node, lhs, rhs)
        cls = op_class(fb, fam, "matmul", node)
        if fam == "tensor" and _batched(lhs, rhs):
            cls = tensor_ops.BatchMatmulOp  # rank > 2: PyPTO's batched tensor.matmul
        product = fb.build_op(node, lambda: cls(lhs, rhs))
        if "out_dtype" in a and a.value("out_dtype") is not None:
            want = a.dtype("out_dtype").to_ir()
            have = product.type.element_type  # type: ignore[union-attr]
            if want != have:
                if fam == "tile":
                    raise fb.error(a.node_of("out_dtype"), f"{qual}: a tile product is {have} (the accumulator), not {want}")
                return fb.build_op(node, lambda: tensor_ops.CastOp(product, want))
        return product

    return handle


def _batched(*values: SSAValue) -> bool:
    """A tensor matmul with an operand of rank > 2 is batched (`tensor.batch_matmul`)."""
    return any(v.type.rank > 2 for v in values)  # type: ignore[attr-defined]


def _promoted(fb: FunctionBuilder, node: ast.AST, lhs: SSAValue, rhs: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Tensor operands of two float dtypes: PyPTO's tensor matmul promotes them (f16 with f32
    is an f32 product); here the narrower one is cast (`tensor.cast`), f16 with bf16 to f32."""
    a, b = lhs.type.element_type, rhs.type.element_type  # type: ignore[union-attr]
    if a == b or not (is_float_type(a) and is_float_type(b)):
        return lhs, rhs
    wide = a if isinstance(a, Float32Type) else b if isinstance(b, Float32Type) else Float32Type()

    def cast(value: SSAValue) -> SSAValue:
        if value.type.element_type == wide:  # type: ignore[union-attr]
            return value
        return fb.build_op(node, lambda: tensor_ops.CastOp(value, wide))

    return cast(lhs), cast(rhs)


def _maybe_transposed(fb: FunctionBuilder, a: Args, flag: str, value: SSAValue) -> SSAValue:
    if flag not in a:
        return value
    v = a.value(flag)
    if not isinstance(v, Const) or not isinstance(v.value, bool):
        raise fb.error(a.node_of(flag), f"'{flag}' of {a.qual} must be True or False")
    if not v.value:
        return value
    rank = value.type.rank  # type: ignore[union-attr]
    if rank < 2:
        raise fb.error(a.node_of(flag), f"{a.qual}: {flag}=True needs an operand of rank 2 or more")
    return fb.build_op(a.node, lambda: tensor_ops.TransposeOp(value, rank - 2, rank - 1))


def _matmul_acc(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        params = ["acc", "lhs", "rhs"] + ([] if family == "tile" else ["a_trans", "b_trans"]) + ["init_cond"]
        a = Args(fb, node, qual, params, 3)
        _flag(a, "init_cond", None, "write the first step with pl.matmul")
        acc = a.shaped("acc")
        fam = _check_family(fb, acc, family, node, qual)
        lhs, rhs = a.shaped("lhs"), a.shaped("rhs")
        if fam == "tensor":
            lhs = _maybe_transposed(fb, a, "a_trans", lhs)
            rhs = _maybe_transposed(fb, a, "b_trans", rhs)
            cls = tensor_ops.BatchMatmulAccOp if _batched(acc, lhs, rhs) else tensor_ops.MatmulAccOp
            return fb.build_op(node, lambda: cls(acc, lhs, rhs))
        for flag in ("a_trans", "b_trans"):
            _flag(a, flag, False, "on tiles transposition is a type property")
        lhs, rhs = cube_operands(fb, node, lhs, rhs)  # mat operands moved to L0, as PyPTO does
        return fb.build_op(node, lambda: tile_ops.MatmulAccOp(acc, lhs, rhs))

    return handle


_CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def _cast(family: str | None):
    """`pl.cast(input, target_type, mode="round")` of a tensor, a tile, or (unified form) a
    scalar. A `mode` given (a name or its index 0-6, PyPTO's order) becomes the cast's `mode`;
    without one the conversion is the default one (docs/semantics.md). Scalars take the
    default mode only, as in PyPTO."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
        first = "tile" if family == "tile" else "input"
        a = Args(fb, node, qual, [first, "target_type", "mode"], 2, aliases={"input": first} if first != "input" else None)
        mode_name = None
        if "mode" in a:
            mode = a.value("mode")
            named = mode.value if isinstance(mode, Const) else mode
            if isinstance(named, int) and not isinstance(named, bool) and 0 <= named < len(_CAST_MODES):
                named = _CAST_MODES[named]
            if named not in _CAST_MODES:
                raise fb.error(a.node_of("mode"), f"{qual}: mode={ast.unparse(a.node_of('mode'))} is not a cast mode "
                               f"(one of {', '.join(repr(m) for m in _CAST_MODES)})")
            mode_name = named
        value = a.value(first)
        dtype = a.dtype("target_type")
        if family is None and not (isinstance(value, SSAValue) and isinstance(value.type, TensorType | TileType)):
            if mode_name not in (None, "round"):
                raise fb.error(a.node_of("mode"), f"{qual}: scalar inputs take the default mode only, got "
                               f"mode={ast.unparse(a.node_of('mode'))}")
            return _scalar_cast(fb, value, dtype, a.node_of(first), node)
        value = a.shaped(first)
        fam = _check_family(fb, value, family, node, qual)
        cls = op_class(fb, fam, "cast", node)
        return fb.build_op(node, lambda: cls(value, dtype.to_ir(), mode_name))

    return handle


def _scalar_cast(fb: FunctionBuilder, value: Any, dtype: T.DataType, value_node: ast.AST, node: ast.AST) -> SSAValue:
    """A scalar conversion with arith: index_cast, sitofp/fptosi, extf/truncf, extsi/trunci."""
    v = fb.materialize(value, None, value_node)
    converted = convert_scalar(fb, v, dtype.to_ir(), node)
    if converted is None:
        raise fb.error(node, f"pl.cast cannot convert {describe(v)} to {dtype!r}")
    return converted


def convert_scalar(fb: FunctionBuilder, v: SSAValue, want: Attribute, node: ast.AST) -> SSAValue | None:
    """`v` converted to the scalar type `want` as pl.cast converts (index_cast, sitofp /
    fptosi, extf / truncf, extsi / trunci); None when there is no such conversion."""
    have = v.type
    if have == want:
        return v
    ints = (IndexType, IntegerType)
    if isinstance(have, ints) and isinstance(want, ints):
        if isinstance(have, IndexType) or isinstance(want, IndexType):
            return fb.build_op(node, lambda: arith.IndexCastOp(v, want))
        if have.width.data < want.width.data:  # type: ignore[union-attr]
            return fb.build_op(node, lambda: arith.ExtSIOp(v, want))
        return fb.build_op(node, lambda: arith.TruncIOp(v, want))
    if isinstance(have, ints) and is_float_type(want):
        if isinstance(have, IndexType):
            v = fb.build_op(node, lambda: arith.IndexCastOp(v, IntegerType(64)))
        return fb.build_op(node, lambda: arith.SIToFPOp(v, want))
    if is_float_type(have) and isinstance(want, ints):
        target = IntegerType(64) if isinstance(want, IndexType) else want
        r = fb.build_op(node, lambda: arith.FPToSIOp(v, target))
        return fb.build_op(node, lambda: arith.IndexCastOp(r, want)) if isinstance(want, IndexType) else r
    if is_float_type(have) and is_float_type(want):
        wider = _float_width(want) > _float_width(have)
        return fb.build_op(node, lambda: (arith.ExtFOp if wider else arith.TruncFOp)(v, want))
    return None


def _float_width(t) -> int:
    from xdsl.dialects.builtin import Float32Type

    return 32 if isinstance(t, Float32Type) else 16


def _scalar_min_max(which: str):
    """`pl.min(lhs, rhs)` / `pl.max(lhs, rhs)` on scalars (PyPTO's scalar min/max): a
    comparison and a select, as Python's min/max in a function body."""

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
        a = Args(fb, node, qual, ["lhs", "rhs"], 2)
        lhs, rhs = a.value("lhs"), a.value("rhs")
        for name, v in (("lhs", lhs), ("rhs", rhs)):
            if isinstance(v, SSAValue) and isinstance(v.type, TensorType | TileType):
                raise fb.error(
                    a.node_of(name),
                    f"{qual} takes scalars; for {describe(v)} use pl.{which}imum (elementwise) or "
                    f"pl.row_{which} / pl.col_{which} (reductions)",
                )
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            return Const(min(lhs.value, rhs.value) if which == "min" else max(lhs.value, rhs.value))
        x, y = fb._scalar_pair(lhs, rhs, node)
        less = fb.expr_compare_values("lt", x, y, node)
        first, second = (x, y) if which == "min" else (y, x)
        return fb.build_op(node, lambda: arith.SelectOp(less, first, second))

    return handle


# --------------------------------------------------------------------------- registration

_ROW_REDUCTIONS = ("row_max", "row_sum", "row_min", "row_prod")
_COL_REDUCTIONS = ("col_sum", "col_max", "col_min", "col_prod")
_ARG_REDUCTIONS = ("row_argmax", "row_argmin", "col_argmax", "col_argmin")
_EXPANDS = (
    "row_expand_sub", "row_expand_mul", "row_expand_div", "row_expand", "row_expand_add",
    "row_expand_max", "row_expand_min", "row_expand_expdif",
    "col_expand", "col_expand_mul", "col_expand_div", "col_expand_sub", "col_expand_add",
    "col_expand_max", "col_expand_min", "col_expand_expdif",
)


def register(handlers: dict[tuple[str, str], Handler]) -> None:
    """Add (and take over) the handlers of the ops above, for `pl.*`, `pl.tile.*` and `pl.tensor.*`."""
    families: tuple[tuple[str, str | None], ...] = (("", None), ("tile", "tile"), ("tensor", "tensor"))
    for key, fam in families:
        for n in (*_ROW_REDUCTIONS, *_COL_REDUCTIONS):
            handlers[(key, n)] = _reduction(n, fam)
        for n in _EXPANDS:
            handlers[(key, n)] = _expand(n, fam)
        handlers[(key, "expands")] = _expands(fam)
        handlers[(key, "reshape")] = _reshape(fam)
        handlers[(key, "transpose")] = _transpose(fam)
        handlers[(key, "concat")] = _concat(fam)
        handlers[(key, "matmul")] = _matmul(fam)
        handlers[(key, "matmul_acc")] = _matmul_acc(fam)
        handlers[(key, "cast")] = _cast(fam)
        handlers[(key, "read")] = _read(fam)
        handlers[(key, "write")] = _write(fam)
        handlers[(key, "slice")] = _slice(fam)
        handlers[(key, "assemble")] = _assemble(fam)
    for key, fam in (("", None), ("tile", "tile")):
        for n in _ARG_REDUCTIONS:  # tiles only: no tensor form yet
            handlers[(key, n)] = _reduction(n, fam)
        handlers[(key, "set_validshape")] = _set_validshape(fam)
        handlers[(key, "fillpad")] = _fillpad(fam)
        handlers[(key, "fillpad_expand")] = _fillpad_expand(fam)
        handlers[(key, "min")] = _scalar_min_max("min")
        handlers[(key, "max")] = _scalar_min_max("max")
    handlers[("", "load")] = handlers[("tile", "load")] = _load
    handlers[("", "store")] = handlers[("tile", "store")] = _store
    handlers[("", "full")] = handlers[("tensor", "full")] = _tensor_full
    handlers[("", "create_tile")] = handlers[("tile", "create")] = handlers[("tile", "create_tile")] = _create_tile
    handlers[("tile", "transpose_view")] = _transpose_view
    handlers[("tensor", "set_validshape")] = _set_validshape("tensor")
    for query in ("get_block_idx", "get_block_num"):  # PyPTO spells them on pl.tensor too
        handlers[("tensor", query)] = handlers[("tile", query)]
    handlers[("tile", "fillpad_inplace")] = _fillpad("tile")  # in place or not: the same value here
