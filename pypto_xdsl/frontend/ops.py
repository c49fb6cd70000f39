"""Lowering of `pl.*`, `pl.tensor.*` and `pl.tile.*` calls to pypto ops.

Unified ops (`pl.add`, `pl.exp`, ...) pick the tensor or the tile op from the type of their
first operand; a scalar second operand selects the scalar variant (`adds`, `muls`, ...).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import IndexType, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.analysis.target_cores import AIV_CORES, CORE_GROUPS
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TensorType, TileType, is_float_type
from pypto_xdsl.frontend.values import Const, describe
from pypto_xdsl.language import types as T
from pypto_xdsl.language.ops import OpStub

if TYPE_CHECKING:
    from pypto_xdsl.frontend.builder import FunctionBuilder

BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
SCALAR = {"add": "adds", "sub": "subs", "mul": "muls", "div": "divs", "maximum": "maximums", "minimum": "minimums"}
UNARY = ("exp", "neg", "abs", "sqrt", "log", "recip", "relu", "rsqrt", "tanh", "sin", "cos")

def _class_name(op: str) -> str:
    """`row_expand_sub` -> `RowExpandSubOp`: the dialects' class for a `pl` op name."""
    return "".join(part.capitalize() for part in op.split("_")) + "Op"


def _family_of(value: SSAValue) -> str:
    return "tensor" if isinstance(value.type, TensorType) else "tile"


def op_class(fb: FunctionBuilder, family: str, name: str, node: ast.AST) -> Any:
    module = tensor_ops if family == "tensor" else tile_ops
    cls = getattr(module, _class_name(name), None)
    if cls is None:
        raise fb.error(node, f"'{name}' is not available on {family}s")
    return cls


def _check_family(fb: FunctionBuilder, value: SSAValue, family: str | None, node: ast.AST, qual: str) -> str:
    actual = _family_of(value)
    if family is not None and actual != family:
        raise fb.error(node, f"{qual} expects a {family}, got {describe(value)}")
    return actual


# `pl.sub(x, r)` with x [M, N] and r [M, 1] (or [1, N]): PyPTO broadcasts like NumPy; these
# are the two broadcasts the dialect has ops for.
_EXPAND_OP = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min"}
_COMMUTATIVE = ("add", "mul", "maximum", "minimum")


def _broadcast(lhs: Any, rhs: Any) -> str | None:
    """'row' when `rhs` is [M, 1] against an [M, N] `lhs`, 'col' when it is [1, N]."""
    if lhs.rank != 2 or rhs.rank != 2:
        return None
    (m, n), (rm, rn) = lhs.get_shape(), rhs.get_shape()
    if None in (m, n, rm, rn):
        return None
    if rn == 1 and n != 1 and rm == m:
        return "row"
    if rm == 1 and m != 1 and rn == n:
        return "col"
    return None


def binary(fb: FunctionBuilder, name: str, lhs: SSAValue, rhs: Any, node: ast.AST, family: str | None) -> SSAValue:
    qual = f"pl.{family + '.' if family else ''}{name}"
    lhs = fb.shaped(lhs, node, f"the first operand of {qual}")
    fam = _check_family(fb, lhs, family, node, qual)
    if isinstance(rhs, SSAValue) and isinstance(rhs.type, TensorType | TileType):
        if type(lhs.type) is type(rhs.type):
            axis = _broadcast(lhs.type, rhs.type)
            if axis is None and name in _COMMUTATIVE and _broadcast(rhs.type, lhs.type) is not None:
                lhs, rhs = rhs, lhs
                axis = _broadcast(lhs.type, rhs.type)
            if axis is not None:
                expand = op_class(fb, fam, f"{axis}_expand_{_EXPAND_OP[name]}", node)
                return fb.build_op(node, lambda: expand(lhs, rhs))
        cls = op_class(fb, fam, name, node)
        return fb.build_op(node, lambda: cls(lhs, rhs))
    if name not in SCALAR:
        raise fb.error(node, f"{qual} takes two {fam}s, got {describe(rhs)} as second operand")
    return scalar(fb, SCALAR[name], lhs, rhs, node, fam)


def scalar(fb: FunctionBuilder, name: str, lhs: SSAValue, rhs: Any, node: ast.AST, family: str | None) -> SSAValue:
    qual = f"pl.{family + '.' if family else ''}{name}"
    lhs = fb.shaped(lhs, node, f"the first operand of {qual}")
    fam = _check_family(fb, lhs, family, node, qual)
    element = lhs.type.element_type  # type: ignore[union-attr]
    if not isinstance(rhs, SSAValue | Const):
        raise fb.error(node, f"the second operand of {qual} must be a scalar, got {describe(rhs)}")
    if isinstance(rhs, SSAValue) and rhs.type != element and _plain_number(rhs.type) and _plain_number(element):
        # PyPTO converts a scalar of another dtype to the tile's (`subs(f32_tile,
        # pl.const(2, pl.INT32))`: the scalar 2.0), as pl.cast would
        from pypto_xdsl.frontend.ops_shapes import convert_scalar

        rhs = convert_scalar(fb, rhs, element, node) or rhs
    s = fb.materialize(rhs, element, node)
    if s.type != element:
        raise fb.error(node, f"the scalar operand of {qual} must be {element}, got {s.type}")
    cls = op_class(fb, fam, name, node)
    return fb.build_op(node, lambda: cls(lhs, s))


def _plain_number(t: Attribute) -> bool:
    """A float or signless integer type (arith converts between them; not index, not i1)."""
    if isinstance(t, IntegerType):
        return t.signedness.data == Signedness.SIGNLESS and t.width.data > 1
    return is_float_type(t)


def unary(fb: FunctionBuilder, name: str, value: Any, node: ast.AST, family: str | None) -> SSAValue:
    qual = f"pl.{family + '.' if family else ''}{name}"
    value = fb.shaped(value, node, f"the operand of {qual}")
    fam = _check_family(fb, value, family, node, qual)
    cls = op_class(fb, fam, name, node)
    return fb.build_op(node, lambda: cls(value))


# --------------------------------------------------------------------------- argument binding


class Args:
    """Positional and keyword arguments of one call, bound to parameter names."""

    def __init__(
        self,
        fb: FunctionBuilder,
        node: ast.Call,
        qual: str,
        params: list[str],
        required: int,
        aliases: dict[str, str] | None = None,
    ):
        """`aliases` maps a keyword this project accepted before to the reference's name."""
        self.fb, self.node, self.qual = fb, node, qual
        self.values: dict[str, tuple[Any, ast.expr]] = {}
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise fb.error(node, f"{qual} does not take '*' arguments")
        if len(node.args) > len(params):
            raise fb.error(node.args[len(params)], f"{qual} takes at most {len(params)} arguments")
        for p, a in zip(params, node.args):
            self.values[p] = (fb.expr(a), a)
        for kw in node.keywords:
            if aliases and kw.arg in aliases:
                kw = ast.keyword(arg=aliases[kw.arg], value=kw.value, lineno=kw.lineno, col_offset=kw.col_offset)
            if kw.arg is None or kw.arg not in params:
                raise fb.error(kw, f"{qual} has no parameter '{kw.arg}' (parameters: {', '.join(params)})")
            if kw.arg in self.values:
                raise fb.error(kw, f"{qual} got two values for '{kw.arg}'")
            self.values[kw.arg] = (fb.expr(kw.value), kw.value)
        for p in params[:required]:
            if p not in self.values:
                raise fb.error(node, f"{qual} is missing its argument '{p}'")

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def value(self, name: str) -> Any:
        return self.values[name][0]

    def node_of(self, name: str) -> ast.expr:
        return self.values[name][1]

    def shaped(self, name: str) -> SSAValue:
        return self.fb.shaped(self.value(name), self.node_of(name), f"'{name}' of {self.qual}")

    def tensor(self, name: str) -> SSAValue:
        v = self.fb.local_window(self.value(name), self.node_of(name))
        if not isinstance(v, SSAValue) or not isinstance(v.type, TensorType):
            raise self.fb.error(self.node_of(name), f"'{name}' of {self.qual} must be a tensor, got {describe(v)}")
        return v

    def tile(self, name: str) -> SSAValue:
        v = self.value(name)
        if not isinstance(v, SSAValue) or not isinstance(v.type, TileType):
            raise self.fb.error(self.node_of(name), f"'{name}' of {self.qual} must be a tile, got {describe(v)}")
        return v

    def offsets(self, name: str, rank: int) -> list[SSAValue]:
        node = self.node_of(name)
        values = self.fb.index_list(self.value(name), node, f"'{name}' of {self.qual}")
        if len(values) != rank:
            raise self.fb.error(node, f"'{name}' of {self.qual} needs {rank} entries, got {len(values)}")
        return values

    def shape(self, name: str) -> list:
        return self.fb.static_shape(self.value(name), self.node_of(name), f"'{name}' of {self.qual}")

    def dtype(self, name: str) -> T.DataType:
        return self.fb.dtype_arg(self.value(name), self.node_of(name))

    def memory(self, name: str, default: T.MemorySpace) -> T.MemorySpace:
        if name not in self:
            return default
        v = self.value(name)
        if not isinstance(v, T.MemorySpace):
            raise self.fb.error(self.node_of(name), f"'{name}' must be a pl.Mem member, got {describe(v)}")
        return v


# --------------------------------------------------------------------------- handlers


def _binary(name: str, family: str | None):
    """`pl.add(lhs, rhs)`, ...; `div` also takes PyPTO's `high_precision=` (its tile-tile
    division's precision mode, see `_division_precision`)."""
    params = ["lhs", "rhs", "high_precision"] if name == "div" else ["lhs", "rhs"]

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, params, 2)
        if "high_precision" in a:
            _division_precision(fb, a)
        return binary(fb, name, a.value("lhs"), a.value("rhs"), node, family)

    return handle


def _division_precision(fb: FunctionBuilder, a: Args) -> None:
    """`high_precision=` of a division: a bool literal. PyPTO's high-precision mode asks for
    the correctly rounded quotient, which is what every division here computes (the
    interpreter's IEEE division, the Ascend C `Div`), so either mode is that one division.
    PyPTO has the mode on the tile-tile form only: with a scalar divisor it is an error."""
    hp = a.value("high_precision")
    if not (isinstance(hp, Const) and isinstance(hp.value, bool)):
        raise fb.error(a.node_of("high_precision"), f"'high_precision' of {a.qual} must be True or False, got {describe(hp)}")
    rhs = a.value("rhs")
    if hp.value and not (isinstance(rhs, SSAValue) and isinstance(rhs.type, TensorType | TileType)):
        raise fb.error(
            a.node_of("high_precision"),
            f"{a.qual}: high_precision=True needs a tile or tensor divisor (PyPTO's division by a scalar, divs, has one mode)",
        )


def _scalar(name: str, family: str):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["lhs", "scalar"], 2)
        return scalar(fb, name, a.value("lhs"), a.value("scalar"), node, family)

    return handle


def _unary(name: str, family: str | None):
    """`pl.exp(input)`, `pl.tile.exp(tile)`, `pl.tensor.exp(input)`; `log`, `recip` and (not on
    tiles) `rsqrt` take PyPTO's `high_precision=` (PTOAS's precision mode): a bool literal,
    either value the one implementation here, which computes the f32 function correctly
    rounded (the interpreter; the simulation's `Ln` / `Reciprocal` / `Rsqrt`), as
    `_division_precision` says of `div`; `pl.tile.rsqrt` takes a scratch `tmp=` tile (PyPTO's
    high-precision tile form), which it needs no more than that."""
    first = "tile" if family == "tile" else "input"
    params = [first]
    if name == "rsqrt" and family == "tile":
        params.append("tmp")
    elif name in ("log", "recip", "rsqrt"):
        params.append("high_precision")

    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, params, 1, aliases={"input": first} if first != "input" else None)
        if "high_precision" in a:
            hp = a.value("high_precision")
            if not (isinstance(hp, Const) and isinstance(hp.value, bool)):
                raise fb.error(a.node_of("high_precision"), f"'high_precision' of {qual} must be True or False, got {describe(hp)}")
        if "tmp" in a:
            value = a.shaped(first)
            cls = op_class(fb, "tile", name, node)
            tmp = a.tile("tmp")
            return fb.build_op(node, lambda: cls(value, tmp))
        return unary(fb, name, a.value(first), node, family)

    return handle


def _load(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tensor", "offsets", "shapes", "target_memory"], 3)
    src = a.tensor("tensor")
    offsets = a.offsets("offsets", src.type.rank)  # type: ignore[union-attr]
    shape = a.shape("shapes")
    space = a.memory("target_memory", T.MemorySpace.Vec)
    result = TileType(shape, src.type.element_type, space.value)  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tile_ops.LoadOp(src, offsets, result))


def _store(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tile", "offsets", "output_tensor"], 3)
    tile = a.tile("tile")
    dest = a.tensor("output_tensor")
    offsets = a.offsets("offsets", dest.type.rank)  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tile_ops.StoreOp(tile, dest, offsets))


def _create_tensor(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["shape", "dtype"], 2)
    shape_node = a.node_of("shape")
    dims_value = a.value("shape")
    if not isinstance(dims_value, list | tuple):
        raise fb.error(shape_node, f"'shape' of {qual} must be a list, got {describe(dims_value)}")
    dims: list = []
    sizes: list[SSAValue] = []
    for d in dims_value:
        if isinstance(d, Const) and type(d.value) is int and d.value >= 0:
            dims.append(d.value)
        elif isinstance(d, T.DynVar):
            dims.append(d.name)
        elif isinstance(d, SSAValue) and isinstance(d.type, IndexType | IntegerType) and d.type != IntegerType(1):
            dims.append(None)
            sizes.append(fb.index(d, shape_node))  # PyPTO converts INT32/INT64 sizes to INDEX
        else:
            raise fb.error(shape_node, f"a dimension of {qual} must be an int, pl.dynamic or an index, got {describe(d)}")
    dtype = a.dtype("dtype")
    if dtype == T.INDEX:
        raise fb.error(a.node_of("dtype"), "tensor elements cannot be pl.INDEX")
    result = TensorType(dims, dtype.to_ir())
    return fb.build_op(node, lambda: tensor_ops.CreateOp(result, sizes))


def _slice(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tensor", "shape", "offsets"], 3)
    src = a.tensor("tensor")
    shape = a.shape("shape")
    offsets = a.offsets("offsets", src.type.rank)  # type: ignore[union-attr]
    result = TensorType(shape, src.type.element_type)  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tensor_ops.SliceOp(src, offsets, result))


def _assemble(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["target", "source", "offsets"], 3)
    dst = a.tensor("target")
    src = a.tensor("source")
    offsets = a.offsets("offsets", dst.type.rank)  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tensor_ops.AssembleOp(src, dst, offsets))


def _reinterpret_view(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.tensor.reinterpret_view(t, dtype[, shape=...])`: without a shape, the last
    (contiguous) dimension is scaled by the ratio of the element sizes."""
    from pypto_xdsl.dialects.attributes import element_byte_width

    a = Args(fb, node, qual, ["data", "dtype", "shape"], 2)
    src = a.tensor("data")
    dtype = a.dtype("dtype").to_ir()
    if "shape" in a:
        shape = a.shape("shape")
    else:
        dims = list(src.type.get_shape())  # type: ignore[union-attr]
        last = dims[-1] if dims else None
        src_bytes, dst_bytes = element_byte_width(src.type.element_type), element_byte_width(dtype)  # type: ignore[union-attr]
        if not isinstance(last, int) or (last * src_bytes) % dst_bytes:
            raise fb.error(
                node,
                f"{qual}: cannot scale the last dimension of {src.type} to {dtype}; give shape=[...]",
            )
        dims[-1] = last * src_bytes // dst_bytes
        shape = dims
    result = TensorType(shape, dtype)
    return fb.build_op(node, lambda: tensor_ops.ReinterpretViewOp(src, result))


def _read(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tensor", "indices"], 2)
    src = a.tensor("tensor")
    indices = a.offsets("indices", src.type.rank)  # type: ignore[union-attr]
    return fb.build_op(node, lambda: tensor_ops.ReadOp(src, indices))


def _dim(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["tensor", "axis"], 2)
    src = a.tensor("tensor")
    axis = a.value("axis")
    if not isinstance(axis, Const) or type(axis.value) is not int:
        raise fb.error(a.node_of("axis"), f"'axis' of {qual} must be an integer literal")
    rank = src.type.rank  # type: ignore[union-attr]
    ax = axis.value + rank if axis.value < 0 else axis.value
    if not 0 <= ax < rank:
        raise fb.error(a.node_of("axis"), f"axis {axis.value} is out of range for {src.type}")
    return fb.build_op(node, lambda: tensor_ops.DimOp(src, ax))


def _matmul(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["lhs", "rhs"], 2)
        lhs = a.shaped("lhs")
        fam = _check_family(fb, lhs, family, node, qual)
        rhs = a.shaped("rhs")
        cls = op_class(fb, fam, "matmul", node)
        return fb.build_op(node, lambda: cls(lhs, rhs))

    return handle


def _matmul_acc(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["acc", "lhs", "rhs"], 3)
    acc, lhs, rhs = a.tile("acc"), a.tile("lhs"), a.tile("rhs")
    return fb.build_op(node, lambda: tile_ops.MatmulAccOp(acc, lhs, rhs))


def _matmul_bias(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["lhs", "rhs", "bias"], 3)
    lhs, rhs, bias = a.tile("lhs"), a.tile("rhs"), a.tile("bias")
    from pypto_xdsl.frontend.ops_cube import cube_bias, cube_operands

    lhs, rhs = cube_operands(fb, node, lhs, rhs)  # PyPTO moves mat operands to L0 / the bias table
    bias = cube_bias(fb, node, bias)
    return fb.build_op(node, lambda: tile_ops.MatmulBiasOp(lhs, rhs, bias))


def _cast(family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["input", "target_type"], 2)
        value = a.shaped("input")
        fam = _check_family(fb, value, family, node, qual)
        dtype = a.dtype("target_type")
        cls = op_class(fb, fam, "cast", node)
        return fb.build_op(node, lambda: cls(value, dtype.to_ir()))

    return handle


def _move(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["input", "target_memory"], 2)
    value = a.tile("input")
    space = a.memory("target_memory", T.MemorySpace.Vec)
    return fb.build_op(node, lambda: tile_ops.MoveOp(value, space.value))


def _full(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    a = Args(fb, node, qual, ["shape", "dtype", "value", "target_memory"], 3)
    shape = a.shape("shape")
    dtype = a.dtype("dtype")
    space = a.memory("target_memory", T.MemorySpace.Vec)
    result = TileType(shape, dtype.to_ir(), space.value)
    v = fb.materialize(a.value("value"), dtype.to_ir(), a.node_of("value"))
    return fb.build_op(node, lambda: tile_ops.FullOp(v, result))


def _row(name: str, family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["input"], 1)
        value = a.shaped("input")
        fam = _check_family(fb, value, family, node, qual)
        cls = op_class(fb, fam, name, node)
        return fb.build_op(node, lambda: cls(value))

    return handle


def _row_expand(name: str, family: str | None):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        a = Args(fb, node, qual, ["input", "row"], 2)
        value, row = a.shaped("input"), a.shaped("row")
        fam = _check_family(fb, value, family, node, qual)
        if _family_of(row) != fam:
            raise fb.error(
                a.node_of("row"), f"'row' of {qual} must be a {fam} like 'input', got {describe(row)}"
            )
        cls = op_class(fb, fam, name, node)
        return fb.build_op(node, lambda: cls(value, row))

    return handle


def _block_query(cls_name: str):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
        Args(fb, node, qual, [], 0)
        cls = getattr(tile_ops, cls_name)
        return fb.build_op(node, lambda: cls())

    return handle


def _submit(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
    return fb.submit(node)


def _misplaced(what: str):
    def handle(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
        raise fb.error(node, f"{qual} {what}")

    return handle


Handler = Callable[["FunctionBuilder", ast.Call, str], Any]

HANDLERS: dict[tuple[str, str], Handler] = {}
for _n in BINARY:
    HANDLERS[("", _n)] = _binary(_n, None)
    HANDLERS[("tensor", _n)] = _binary(_n, "tensor")
    HANDLERS[("tile", _n)] = _binary(_n, "tile")
for _n in SCALAR.values():
    HANDLERS[("tensor", _n)] = _scalar(_n, "tensor")
    HANDLERS[("tile", _n)] = _scalar(_n, "tile")
for _n in UNARY:
    HANDLERS[("", _n)] = _unary(_n, None)
    HANDLERS[("tensor", _n)] = _unary(_n, "tensor")
    HANDLERS[("tile", _n)] = _unary(_n, "tile")
for _fam in ("", "tile"):
    HANDLERS[(_fam, "load")] = _load
    HANDLERS[(_fam, "store")] = _store
    HANDLERS[(_fam, "full")] = _full
    HANDLERS[(_fam, "move")] = _move
    HANDLERS[(_fam, "matmul_acc")] = _matmul_acc
    HANDLERS[(_fam, "matmul_bias")] = _matmul_bias
    HANDLERS[(_fam, "get_block_idx")] = _block_query("GetBlockIdxOp")
    HANDLERS[(_fam, "get_block_num")] = _block_query("GetBlockNumOp")
for _fam in ("", "tensor"):
    HANDLERS[(_fam, "slice")] = _slice
    HANDLERS[(_fam, "assemble")] = _assemble
    HANDLERS[(_fam, "read")] = _read
HANDLERS[("", "create_tensor")] = _create_tensor
HANDLERS[("tensor", "create")] = _create_tensor
HANDLERS[("tensor", "create_tensor")] = _create_tensor
HANDLERS[("tensor", "dim")] = _dim
HANDLERS[("tensor", "reinterpret_view")] = _reinterpret_view
for _fam in ("", "tile", "tensor"):
    for _n in ("row_max", "row_sum"):
        HANDLERS[(_fam, _n)] = _row(_n, _fam or None)
    for _n in ("row_expand_sub", "row_expand_mul", "row_expand_div"):
        HANDLERS[(_fam, _n)] = _row_expand(_n, _fam or None)
HANDLERS[("", "matmul")] = _matmul(None)
HANDLERS[("tensor", "matmul")] = _matmul("tensor")
HANDLERS[("tile", "matmul")] = _matmul("tile")
HANDLERS[("", "cast")] = _cast(None)


def _const(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    """`pl.const(value, dtype)`: a scalar constant of an explicit dtype (PyPTO's typed
    ConstInt / ConstFloat): `value` an int or float literal."""
    a = Args(fb, node, qual, ["value", "dtype"], 2)
    value = a.value("value")
    if not (isinstance(value, Const) and type(value.value) in (int, float)):
        raise fb.error(a.node_of("value"), f"the value of {qual} must be an int or float literal, got {describe(value)}")
    return fb.materialize(value, a.dtype("dtype").to_ir(), a.node_of("value"))


HANDLERS[("", "const")] = _const
HANDLERS[("tensor", "cast")] = _cast("tensor")
HANDLERS[("tile", "cast")] = _cast("tile")
HANDLERS[("", "submit")] = _submit
for _n in ("range", "parallel", "pipeline", "unroll"):
    HANDLERS[("", _n)] = _misplaced("is only allowed as the iterable of a 'for' loop")
HANDLERS[("", "at")] = _misplaced("is only allowed in a 'with' statement")
HANDLERS[("", "manual_scope")] = _misplaced("is only allowed in a 'with' statement")
HANDLERS[("", "while_")] = _misplaced("is only allowed as the iterable of a 'for' loop")
HANDLERS[("", "cond")] = _misplaced("is only allowed as the first statement of a pl.while_ loop body")
HANDLERS[("", "split_aiv")] = _misplaced("is only allowed as the iterable of a 'for' loop")
def _yield(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
    """`x = pl.yield_(v)` in a branch: the same as `x = v` (the branch result is `x`).

    The explicit loop form is handled by the `for` statement; elsewhere `pl.yield_` just
    passes its values through, since rebinding already carries values out of branches.
    """
    if node.keywords:
        raise fb.error(node.keywords[0], f"{qual} takes positional values only")
    values = [v for v, _ in fb.call_args(node.args)]
    if not values:
        raise fb.error(node, f"{qual} needs at least one value")
    return values[0] if len(values) == 1 else tuple(values)


HANDLERS[("", "yield_")] = _yield


def _slot_num(a: Args, qual: str) -> int | None:
    if "slot_num" not in a:
        return None
    v = a.value("slot_num")
    if not isinstance(v, Const) or type(v.value) is not int or v.value < 1:
        raise a.fb.error(a.node_of("slot_num"), f"'slot_num' of {qual} must be a positive integer constant, got {describe(v)}")
    return v.value


def _split(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
    """`pl.split(mode[, slot_num=N])`: an item of `pl.at(..., optimizations=[...])`."""
    from pypto_xdsl.frontend.values import ScopeOption

    a = Args(fb, node, qual, ["mode", "slot_num"], 1)
    mode = a.value("mode")
    if not isinstance(mode, T.SplitMode):
        raise fb.error(a.node_of("mode"), f"'mode' of {qual} must be a pl.SplitMode member, got {describe(mode)}")
    return ScopeOption(ast.unparse(node), mode, _slot_num(a, qual))


def _cross_core_slot(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
    """`pl.cross_core_slot(slot_num=N)`: an item of `pl.at(..., optimizations=[...])`."""
    from pypto_xdsl.frontend.values import ScopeOption

    a = Args(fb, node, qual, ["slot_num"], 1)
    return ScopeOption(ast.unparse(node), None, _slot_num(a, qual))


def _array_create(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.dialects.task_arrays import TaskIdsCreateOp
    from pypto_xdsl.language.array import TaskIdElement

    a = Args(fb, node, qual, ["extent", "dtype"], 2)
    extent = a.value("extent")
    if not isinstance(extent, Const) or type(extent.value) is not int or extent.value < 1:
        raise fb.error(a.node_of("extent"), f"'extent' of {qual} must be a positive integer constant, got {describe(extent)}")
    if not isinstance(a.value("dtype"), TaskIdElement):
        raise fb.error(
            a.node_of("dtype"), f"{qual}: only arrays of task ids (pl.TASK_ID) are supported, got {describe(a.value('dtype'))}"
        )
    return fb.build_op(node, lambda: TaskIdsCreateOp(extent.value))


def _task_dummy(fb: FunctionBuilder, node: ast.Call, qual: str) -> SSAValue:
    from pypto_xdsl.dialects.task_arrays import TaskDummyOp

    if node.args:
        raise fb.error(node.args[0], f"{qual} takes deps= only, e.g. {qual}(deps=[tid])")
    a = Args(fb, node, qual, ["deps"], 1)
    deps = fb.task_ids(a.value("deps"), a.node_of("deps"))
    return fb.build_op(node, lambda: TaskDummyOp(deps))


HANDLERS[("array", "create")] = _array_create
HANDLERS[("system", "task_dummy")] = _task_dummy


def _core_count(count: int):
    def handler(fb: FunctionBuilder, node: ast.Call, qual: str) -> Any:
        """`pl.system.available_cluster_count()` / `available_aiv_count()`: the target's count."""
        Args(fb, node, qual, [], 0)
        return Const(count)

    return handler


HANDLERS[("", "split")] = _split
HANDLERS[("system", "available_cluster_count")] = _core_count(CORE_GROUPS)
HANDLERS[("system", "available_aiv_count")] = _core_count(AIV_CORES)
HANDLERS[("", "cross_core_slot")] = _cross_core_slot


from pypto_xdsl.frontend import ops_shapes  # noqa: E402  (uses the helpers above)

ops_shapes.register(HANDLERS)

from pypto_xdsl.frontend import ops_composite  # noqa: E402

ops_composite.register(HANDLERS)

from pypto_xdsl.frontend import ops_cube  # noqa: E402

ops_cube.register(HANDLERS)

from pypto_xdsl.frontend import ops_mask  # noqa: E402

ops_mask.register(HANDLERS)
from pypto_xdsl.frontend import ops_gather  # noqa: E402

ops_gather.register(HANDLERS)


def dispatch(fb: FunctionBuilder, stub: OpStub, node: ast.Call) -> Any:
    handler = HANDLERS.get((stub.family, stub.op))
    if handler is None:
        raise fb.error(node.func, f"{stub.qualname} is not supported by this compiler")
    return handler(fb, node, stub.qualname)


# The `pld` (pypto.language.distributed) handlers register themselves in HANDLERS.
from pypto_xdsl.frontend import distributed as _distributed  # noqa: E402, F401
