"""`pypto.tile.*`: ops on on-chip tiles (values private to one core).

`load` copies a window of a GM tensor into a tile; `store` writes a tile into a window of a
tensor and returns a value naming the tensor's storage (`atomic_store` adds it in). Compute ops are pure on tile values,
except `matmul_acc`, which accumulates into its `acc` operand in place (L0C).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, Float16Type, Float32Type, IndexType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    AtomicKind,
    AtomicKindAttr,
    MemorySpace,
    PadValue,
    PadValueAttr,
    TensorType,
    TileType,
    dims_compatible,
    format_shape,
)
from pypto_xdsl.dialects.common import (
    MatmulOpBase,
    PyptoValueOp,
    accumulator_element_type,
    batch_matmul_shape,
    check_batch_accumulator,
    check_offsets,
    check_window,
    join_shapes,
    matmul_shape,
    print_window,
)
from pypto_xdsl.dialects.families import (
    ReadOpBase,
    WriteOpBase,
    index_operand,
)
from pypto_xdsl.dialects.tile_gather import GATHER_OPS, GatherbOp, MgatherOp, MscatterOp  # noqa: F401
from pypto_xdsl.dialects.tile_mask import (  # noqa: F401  (comparisons, selections, triangles)
    TILE_MASK_OPS,
    CmpOp,
    CmpsOp,
    SelOp,
    SelsOp,
    TriOp,
)
from pypto_xdsl.dialects.tile_vector import (  # noqa: F401  (the tile family's vector ops)
    AbsOp,
    AddOp,
    AddsOp,
    CastOp,
    ColArgmaxOp,
    ColArgminOp,
    ColExpandAddOp,
    ColExpandDivOp,
    ColExpandExpdifOp,
    ColExpandMaxOp,
    ColExpandMinOp,
    ColExpandMulOp,
    ColExpandOp,
    ColExpandSubOp,
    ColExpandTileOp,
    ColMaxOp,
    ColMinOp,
    ColProdOp,
    ColReductionOp,
    ColSumOp,
    ConcatOp,
    CosOp,
    DivOp,
    DivsOp,
    ExpandsOp,
    ExpOp,
    LogOp,
    MaximumOp,
    MaximumsOp,
    MinimumOp,
    MinimumsOp,
    MulOp,
    MulsOp,
    NegOp,
    RecipOp,
    ReluOp,
    ReshapeOp,
    RowArgmaxOp,
    RowArgminOp,
    RowExpandAddOp,
    RowExpandDivOp,
    RowExpandExpdifOp,
    RowExpandMaxOp,
    RowExpandMinOp,
    RowExpandMulOp,
    RowExpandOp,
    RowExpandSubOp,
    RowExpandTileOp,
    RowMaxOp,
    RowMinOp,
    RowProdOp,
    RowReductionOp,
    RowSumOp,
    RsqrtOp,
    SinOp,
    SqrtOp,
    SubOp,
    SubsOp,
    TanhOp,
    TileBinaryOp,
    TileScalarOp,
    TileScratchUnaryOp,
    TileUnaryOp,
    TransposeOp,
    TransposeViewOp,
)
from pypto_xdsl.dialects.traits import ResultAliasesOperand
from pypto_xdsl.dialects.verification import pypto_op_definition

_PURE = traits_def(Pure())


# --------------------------------------------------------------------------- memory


_LOAD_SEGMENTS: dict[tuple[int, int], DenseArrayBase] = {}


@pypto_op_definition
class LoadOp(PyptoValueOp):
    """`%t = pypto.tile.load %src[%i, %j] [valid[%r, %c]] : T -> !pypto.tile<[64, 64], f32, vec>`.

    Copies the window of `%src` at the offsets, shaped like the result tile. With
    `valid[...]` (one `index` extent per dimension, PyPTO's `valid_shape`) only that block at
    the window's origin is read: the tile is partial (see `set_validshape`), and the rest of
    the window may lie beyond the source's end (a tail block of a run-time extent).
    """

    name = "pypto.tile.load"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    valid_shape = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        result_type: TileType,
        valid_shape: Sequence[SSAValue | Operation] = (),
    ):
        # Built like `create`, with one shared segment-sizes attribute per operand count: the
        # IRDL builder range-checks a new DenseArrayBase for every load, which doubled the
        # cost of building one (the loads of a tiled loop are the bulk of what
        # convert-tensor-to-tile builds).
        sizes = (len(offsets), len(valid_shape))
        segments = _LOAD_SEGMENTS.get(sizes)
        if segments is None:
            segments = _LOAD_SEGMENTS[sizes] = DenseArrayBase.from_list(i32, [1, *sizes])
        Operation.__init__(
            self,
            operands=[SSAValue.get(source), *map(SSAValue.get, offsets), *map(SSAValue.get, valid_shape)],
            result_types=[result_type],
            properties={"operandSegmentSizes": segments},
        )

    @property
    def is_partial(self) -> bool:
        """The load reads only its `valid[...]` block."""
        return len(self.valid_shape) > 0

    def infer_result_types(self) -> Sequence[Attribute]:
        src, tile = self.source.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(tile, TileType)
        check_offsets(self.offsets, src.rank, "operand 'source'")
        if tile.element_type != src.element_type:
            raise VerifyException(
                f"result tile element type {tile.element_type} differs from the source's {src.element_type}"
            )
        if self.valid_shape:
            if len(self.valid_shape) != tile.rank:
                raise VerifyException(
                    f"valid shape has {len(self.valid_shape)} extents for the rank-{tile.rank} tile {tile}"
                )
            for i, v in enumerate(self.valid_shape):
                if not isinstance(v.type, IndexType):
                    raise VerifyException(f"valid extent #{i} must be index, got {v.type}")
            if tile.rank != src.rank:
                raise VerifyException(f"load: rank {tile.rank} differs from the rank {src.rank} of {src}")
        else:
            check_window(src, tile.get_shape(), "load")
        return (tile,)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offsets = []
        if parser.parse_optional_punctuation("]") is None:
            offsets = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation("]")
        valid = []
        if parser.parse_optional_keyword("valid") is not None:
            valid = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        index = IndexType()
        op = cls.create(
            operands=[
                parser.resolve_operand(source, source_type),
                *(parser.resolve_operand(o, index) for o in offsets),
                *(parser.resolve_operand(v, index) for v in valid),
            ],
            result_types=[result_type],
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, len(offsets), len(valid)])},
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        print_window(printer, self, self.source, self.offsets, (" valid[", self.valid_shape, "]"))


@pypto_op_definition
class StoreOp(PyptoValueOp):
    """`%r = pypto.tile.store %tile, %dst[%i, %j] : Tile, T`.

    Writes `%tile` into the window of `%dst` at the offsets; `%r` names `%dst`'s storage.
    """

    name = "pypto.tile.store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tile", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    RESULT_LIKE: ClassVar[int] = 1
    tile = operand_def(TileType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(1))

    def __init__(
        self, tile: SSAValue | Operation, dest: SSAValue | Operation, offsets: Sequence[SSAValue | Operation]
    ):
        super().__init__(operands=[tile, dest, offsets], result_types=[SSAValue.get(dest).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        tile, dst = self.tile.type, self.dest.type
        assert isinstance(tile, TileType) and isinstance(dst, TensorType)
        check_offsets(self.offsets, dst.rank, "operand 'dest'")
        if tile.element_type != dst.element_type:
            raise VerifyException(
                f"operand 'tile' has element type {tile.element_type} but 'dest' has {dst.element_type}"
            )
        # the window's extent is checked by the function's walk (`maybe_partial`, which looks
        # at the tile's defining ops; this check is memoised on the operand types)
        return (dst,)


def maybe_partial(value: SSAValue, depth: int = 16) -> bool:
    """Whether `value` can be a partial tile: made so by a partial `tile.load` or a
    `tile.set_validshape`, through ops whose result keeps an operand's valid shape (moves,
    elementwise ops, casts, the cube ops). Such a tile may be larger than the window it is
    stored to: PyPTO's store writes the valid block, which the run time checks."""
    owner = value.owner
    if depth == 0 or not isinstance(owner, Operation):
        return False
    if isinstance(owner, SetValidShapeOp) or (isinstance(owner, LoadOp) and owner.is_partial):
        return True
    if not owner.name.startswith("pypto.tile.") or isinstance(owner, LoadOp):
        return False
    return any(isinstance(o.type, TileType) and maybe_partial(o, depth - 1) for o in owner.operands)


@pypto_op_definition
class AtomicStoreOp(PyptoValueOp):
    """`%r = pypto.tile.atomic_store %tile, %dst[%i, %j] atomic(add) : Tile, T`.

    Adds `%tile` into the window of `%dst` (PyPTO's `pl.store(..., atomic=pl.AtomicType.Add)`,
    split-K accumulation); `%r` names `%dst`'s storage. A read-modify-write of global memory
    is its own op, as `memref.atomic_rmw` is in MLIR: nothing that knows only `tile.store`
    can take it for an overwrite."""

    name = "pypto.tile.atomic_store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tile", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    RESULT_LIKE: ClassVar[int] = 1
    tile = operand_def(TileType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    atomic = prop_def(AtomicKindAttr)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), ResultAliasesOperand(1))

    def __init__(
        self,
        tile: SSAValue | Operation,
        dest: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        atomic: AtomicKind = AtomicKind.ADD,
    ):
        super().__init__(
            operands=[tile, dest, offsets],
            result_types=[SSAValue.get(dest).type],
            properties={"atomic": AtomicKindAttr(atomic)},
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        if self.atomic.data == AtomicKind.NONE:
            raise VerifyException("an atomic_store needs a combining kind (add); a plain write is pypto.tile.store")
        return StoreOp.infer_result_types(self)  # type: ignore[arg-type]

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_keyword("atomic") is None:
            parser.raise_error("expected 'atomic(add)' after the offsets of pypto.tile.atomic_store")
        parser.parse_punctuation("(")
        kind = parser.parse_str_enum(AtomicKind)
        parser.parse_punctuation(")")
        return {"atomic": AtomicKindAttr(kind)}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(f" atomic({self.atomic.data.value})")


@pypto_op_definition
class FullOp(PyptoValueOp):
    """`%t = pypto.tile.full %v : f32 -> Tile`: a tile with every element `%v`."""

    name = "pypto.tile.full"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    value = operand_def()
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, value: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[value], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.result.type
        assert isinstance(t, TileType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"operand 'value' has type {self.value.type}, expected the element type {t.element_type}"
            )
        return (t,)


@pypto_op_definition
class MoveOp(PyptoValueOp):
    """`%b = pypto.tile.move %a : A -> B`: copy a tile to another on-chip memory space.

    The element type is kept, except for the one converting move the hardware has: an f16
    `mat` row into an f32 `bias` tile (L1 -> bias table converts half to float; exact)."""

    name = "pypto.tile.move"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation, memory_space: MemorySpace, element_type: Attribute | None = None):
        t = SSAValue.get(input).type
        assert isinstance(t, TileType)
        elem = t.element_type if element_type is None else element_type
        super().__init__(operands=[input], result_types=[TileType(t.get_shape(), elem, memory_space)])

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.result.type
        assert isinstance(t, TileType) and isinstance(r, TileType)
        elem = t.element_type
        if r.element_type != elem and r.space == MemorySpace.BIAS:
            if not (t.space == MemorySpace.MAT and isinstance(elem, Float16Type) and isinstance(r.element_type, Float32Type)):
                raise VerifyException(f"a move to the bias table converts only an f16 'mat' tile to f32, not {t} to {r}")
            elem = r.element_type
        return (TileType(t.get_shape(), elem, r.memory_space),)


def _check_cube_operands(lhs: TileType, rhs: TileType) -> None:
    """The cube unit reads its left operand from L0A and its right operand from L0B."""
    if lhs.space != MemorySpace.LEFT:
        raise VerifyException(f"operand 'lhs' must be a 'left' tile, got {lhs}; move it there first")
    if rhs.space != MemorySpace.RIGHT:
        raise VerifyException(f"operand 'rhs' must be a 'right' tile, got {rhs}; move it there first")


def _accumulator_type(lhs: TileType, rhs: TileType) -> TileType:
    return TileType(matmul_shape(lhs, rhs), accumulator_element_type(lhs.element_type), MemorySpace.ACC)


@pypto_op_definition
class MatmulOp(MatmulOpBase):
    """`%c = pypto.tile.matmul %a, %b : A, B -> C`: cube matmul into an `acc` tile.

    [M, K] (`left`) x [K, N] (`right`) -> [M, N] (`acc`); the accumulator is f32 for float
    inputs, i32 for integers.
    """

    name = "pypto.tile.matmul"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[self.implied_result_type([lhs.type, rhs.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        lhs, rhs = operand_types
        if isinstance(lhs, TileType) and isinstance(rhs, TileType):
            try:
                return _accumulator_type(lhs, rhs)
            except VerifyException:
                pass
        return lhs

    def infer_result_types(self) -> Sequence[Attribute]:
        lhs, rhs = self.lhs.type, self.rhs.type
        assert isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        return (_accumulator_type(lhs, rhs),)


@pypto_op_definition
class MatmulAccOp(PyptoValueOp):
    """`%c = pypto.tile.matmul_acc %acc, %a, %b : C, A, B`: `acc += a @ b`, in place."""

    name = "pypto.tile.matmul_acc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("acc", "lhs", "rhs")
    acc = operand_def(TileType)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(0))

    def __init__(self, acc: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        acc, lhs, rhs = self.acc.type, self.lhs.type, self.rhs.type
        assert isinstance(acc, TileType) and isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        if acc.space != MemorySpace.ACC:
            raise VerifyException(f"operand 'acc' must be an 'acc' tile, got {acc}")
        expected = _accumulator_type(lhs, rhs)
        if acc.element_type != expected.element_type:
            raise VerifyException(
                f"operand 'acc' has element type {acc.element_type}, expected {expected.element_type}"
            )
        join_shapes(acc.get_shape(), expected.get_shape(), "operand 'acc' and the product of 'lhs' and 'rhs'")
        return (acc,)


def _batch_accumulator_type(lhs: TileType, rhs: TileType) -> TileType:
    return TileType(batch_matmul_shape(lhs, rhs), accumulator_element_type(lhs.element_type), MemorySpace.ACC)


@pypto_op_definition
class BatchMatmulOp(MatmulOpBase):
    """`%c = pypto.tile.batch_matmul %a, %b : A, B -> C`: one cube matmul per batch into an
    `acc` tile, [*Ba, M, K] (`left`) x [*Bb, K, N] (`right`) -> [*B, M, N], where B broadcasts
    Ba and Bb (aligned at their ends, a size-1 or missing dim repeated: PyPTO's
    `tile.batch_matmul`); the accumulator is f32 for float inputs, i32 for integers.
    """

    name = "pypto.tile.batch_matmul"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
        super().__init__(operands=[lhs, rhs], result_types=[self.implied_result_type([lhs.type, rhs.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        lhs, rhs = operand_types
        if isinstance(lhs, TileType) and isinstance(rhs, TileType):
            try:
                return _batch_accumulator_type(lhs, rhs)
            except VerifyException:
                pass
        return lhs

    def infer_result_types(self) -> Sequence[Attribute]:
        lhs, rhs = self.lhs.type, self.rhs.type
        assert isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        return (_batch_accumulator_type(lhs, rhs),)


@pypto_op_definition
class BatchMatmulAccOp(PyptoValueOp):
    """`%c = pypto.tile.batch_matmul_acc %acc, %a, %b : C, A, B`: `acc += a @ b` per batch,
    in place; the batch dims of `a` and `b` broadcast (as `pypto.tile.batch_matmul`) to those
    of `%acc`, which is not broadcast."""

    name = "pypto.tile.batch_matmul_acc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("acc", "lhs", "rhs")
    acc = operand_def(TileType)
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(0))

    def __init__(self, acc: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[acc, lhs, rhs], result_types=[SSAValue.get(acc).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        acc, lhs, rhs = self.acc.type, self.lhs.type, self.rhs.type
        assert isinstance(acc, TileType) and isinstance(lhs, TileType) and isinstance(rhs, TileType)
        _check_cube_operands(lhs, rhs)
        if acc.space != MemorySpace.ACC:
            raise VerifyException(f"operand 'acc' must be an 'acc' tile, got {acc}")
        expected = _batch_accumulator_type(lhs, rhs)
        if acc.element_type != expected.element_type:
            raise VerifyException(
                f"operand 'acc' has element type {acc.element_type}, expected {expected.element_type}"
            )
        check_batch_accumulator(acc, expected.get_shape())
        return (acc,)


@pypto_op_definition
class MatmulBiasOp(PyptoValueOp):
    """`%c = pypto.tile.matmul_bias %a, %b, %bias : A, B, Bias`: `a @ b + bias` into a new
    `acc` tile; `%bias` is a [1, N] row in the bias table (`bias`) of the accumulator's element
    type, added to every row (the cube unit starts its accumulation from it)."""

    name = "pypto.tile.matmul_bias"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs", "bias")
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    bias = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, bias: SSAValue | Operation):
        lhs, rhs, bias = SSAValue.get(lhs), SSAValue.get(rhs), SSAValue.get(bias)
        super().__init__(operands=[lhs, rhs, bias], result_types=[self.implied_result_type([lhs.type, rhs.type])])

    @classmethod
    def implied_result_type(cls, operand_types: Sequence[Attribute]) -> Attribute:
        return MatmulOp.implied_result_type(operand_types[:2])

    def infer_result_types(self) -> Sequence[Attribute]:
        lhs, rhs, bias = self.lhs.type, self.rhs.type, self.bias.type
        assert isinstance(lhs, TileType) and isinstance(rhs, TileType) and isinstance(bias, TileType)
        _check_cube_operands(lhs, rhs)
        product = _accumulator_type(lhs, rhs)
        if bias.space != MemorySpace.BIAS:
            raise VerifyException(f"operand 'bias' must be a 'bias' tile (the bias table), got {bias}; move it there first")
        if bias.element_type != product.element_type:
            raise VerifyException(
                f"operand 'bias' has element type {bias.element_type}, expected the accumulator's {product.element_type}"
            )
        if bias.rank != 2 or not dims_compatible(bias.get_shape()[0], 1):
            raise VerifyException(f"operand 'bias' must be one row [1, N], got {bias}")
        join_shapes(bias.get_shape()[1:], product.get_shape()[1:], "operand 'bias' and the product's columns")
        return (product,)


class BlockQueryOp(PyptoValueOp):
    """`%i = op : index`."""

    result = result_def(IndexType)
    traits = _PURE

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def infer_result_types(self) -> Sequence[Attribute]:
        return (IndexType(),)


@pypto_op_definition
class GetBlockIdxOp(BlockQueryOp):
    """The index of the core (block) running this kernel instance, in [0, block_num)."""

    name = "pypto.tile.get_block_idx"


@pypto_op_definition
class GetBlockNumOp(BlockQueryOp):
    """The number of cores (blocks) the kernel was launched on."""

    name = "pypto.tile.get_block_num"


@pypto_op_definition
class GetSubBlockIdxOp(BlockQueryOp):
    """The vector core of the core group running this instance (`GetSubBlockIdx()`): 0 or 1
    in the AIV member of a group launched with two AIVs per AIC (the Ascend C backend's row
    or column split of that member), 0 elsewhere."""

    name = "pypto.tile.get_subblock_idx"


# --------------------------------------------------------------------------- new tiles, partial tiles


@pypto_op_definition
class CreateOp(PyptoValueOp):
    """`%t = pypto.tile.create : !pypto.tile<[32, 64], f32, vec>`: a tile whose contents are
    unspecified (scratch, or a buffer filled by `assemble`/`write`); PyPTO's `pl.create_tile`."""

    name = "pypto.tile.create"
    result = result_def(TileType)
    traits = traits_def(MemoryAllocEffect())

    def __init__(self, result_type: TileType):
        super().__init__(result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        return (self.result.type,)


@pypto_op_definition
class SetValidShapeOp(PyptoValueOp):
    """`%p = pypto.tile.set_validshape %t, %rows, %cols : T, index, index`: the same data, of
    which only the [rows, cols] block at the origin is *valid* (real data); the rest is
    unspecified until `fillpad` fills it. A 2-D tile; rows and cols at most its extents."""

    name = "pypto.tile.set_validshape"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input", "valid_rows", "valid_cols")
    input = operand_def(TileType)
    valid_rows = operand_def(IndexType)
    valid_cols = operand_def(IndexType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation, valid_rows: SSAValue | Operation, valid_cols: SSAValue | Operation):
        super().__init__(operands=[input, valid_rows, valid_cols], result_types=[SSAValue.get(input).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        t = self.input.type
        assert isinstance(t, TileType)
        if t.rank != 2:
            raise VerifyException(f"operand 'input' must be a 2-D tile, got {t}")
        index_operand(self.valid_rows, "valid_rows")
        index_operand(self.valid_cols, "valid_cols")
        return (t,)


class PadOp(PyptoValueOp):
    """Base of the ops with a `pad(zero|max|min)` property, printed after the operands."""

    pad = prop_def(PadValueAttr)

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_keyword("pad")
        parser.parse_punctuation("(")
        value = parser.parse_str_enum(PadValue)
        parser.parse_punctuation(")")
        return {"pad": PadValueAttr(value)}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(f" pad({self.pad.data.value})")


@pypto_op_definition
class FillPadOp(PadOp):
    """`%f = pypto.tile.fillpad %t pad(min) : T`: `%t` with every element outside its valid
    region set to the pad value (0, or the element type's largest / smallest value: +inf /
    -inf for floats); the result is fully valid."""

    name = "pypto.tile.fillpad"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation, pad: PadValue = PadValue.ZERO):
        super().__init__(
            operands=[input], result_types=[SSAValue.get(input).type], properties={"pad": PadValueAttr(pad)}
        )

    def infer_result_types(self) -> Sequence[Attribute]:
        return (self.input.type,)


@pypto_op_definition
class FillPadExpandOp(PadOp):
    """`%f = pypto.tile.fillpad_expand %t pad(zero) : T -> R`: a larger tile `R` holding the
    valid region of `%t` at its origin and the pad value everywhere else."""

    name = "pypto.tile.fillpad_expand"
    OPERANDS: ClassVar[tuple[str, ...]] = ("input",)
    input = operand_def(TileType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, input: SSAValue | Operation, result_type: TileType, pad: PadValue = PadValue.ZERO):
        super().__init__(operands=[input], result_types=[result_type], properties={"pad": PadValueAttr(pad)})

    def infer_result_types(self) -> Sequence[Attribute]:
        t, r = self.input.type, self.result.type
        assert isinstance(t, TileType) and isinstance(r, TileType)
        if r.element_type != t.element_type or r.space != t.space:
            raise VerifyException(f"result {r} must have the element type and memory space of operand 'input' {t}")
        if r.rank != t.rank or any(
            isinstance(a, int) and isinstance(b, int) and b < a for a, b in zip(t.get_shape(), r.get_shape())
        ):
            raise VerifyException(
                f"result shape {format_shape(r.get_shape())} must have the rank of 'input' "
                f"{format_shape(t.get_shape())} and be at least as large in every dimension"
            )
        return (r,)


# --------------------------------------------------------------------------- elements, windows


@pypto_op_definition
class ReadOp(ReadOpBase):
    """`%x = pypto.tile.read %t[%i, %j] : T`: one element of a tile, as a scalar."""

    name = "pypto.tile.read"
    source = operand_def(TileType)
    offsets = var_operand_def(IndexType)
    traits = traits_def(MemoryReadEffect())


@pypto_op_definition
class WriteOp(WriteOpBase):
    """`%r = pypto.tile.write %v into %t[%i, %j] : E into T`: sets one element of `%t`, in
    place; `%r` names `%t`'s buffer (like `matmul_acc`)."""

    name = "pypto.tile.write"
    value = operand_def()
    dest = operand_def(TileType)
    offsets = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(1))


@pypto_op_definition
class SliceOp(PyptoValueOp):
    """`%w = pypto.tile.slice %t[%i, %j] : T -> W`: a copy of the window of `%t` at the
    offsets, shaped like the result (same memory space)."""

    name = "pypto.tile.slice"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source",)
    OFFSETS_AFTER: ClassVar[int | None] = 0
    source = operand_def(TileType)
    offsets = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = _PURE

    def __init__(self, source: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], result_type: TileType):
        super().__init__(operands=[source, offsets], result_types=[result_type])

    def infer_result_types(self) -> Sequence[Attribute]:
        src, r = self.source.type, self.result.type
        assert isinstance(src, TileType) and isinstance(r, TileType)
        check_offsets(self.offsets, src.rank, "operand 'source'")
        if r.element_type != src.element_type:
            raise VerifyException(
                f"result element type {r.element_type} differs from the source's {src.element_type}"
            )
        check_window(src, r.get_shape(), "slice")
        return (TileType(r.get_shape(), r.element_type, src.memory_space),)


@pypto_op_definition
class AssembleOp(PyptoValueOp):
    """`%r = pypto.tile.assemble %src into %dst[%i, %j] : S into D`: writes `%src` into the
    window of tile `%dst` at the offsets, in place (PyPTO's TINSERT); `%r` names `%dst`'s
    buffer. Same memory space, or an `acc` tile into a `mat` tile."""

    name = "pypto.tile.assemble"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source", "dest")
    OFFSETS_AFTER: ClassVar[int | None] = 1
    KEYWORDS: ClassVar[dict[int, str]] = {1: "into"}
    RESULT_LIKE: ClassVar[int] = 1
    source = operand_def(TileType)
    dest = operand_def(TileType)
    offsets = var_operand_def(IndexType)
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), ResultAliasesOperand(1))

    def __init__(self, source: SSAValue | Operation, dest: SSAValue | Operation, offsets: Sequence[SSAValue | Operation]):
        super().__init__(operands=[source, dest, offsets], result_types=[SSAValue.get(dest).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        src, dst = self.source.type, self.dest.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        check_offsets(self.offsets, dst.rank, "operand 'dest'")
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"operand 'source' has element type {src.element_type} but 'dest' has {dst.element_type}"
            )
        if src.space != dst.space and (src.space, dst.space) != (MemorySpace.ACC, MemorySpace.MAT):
            raise VerifyException(
                f"operand 'source' is a {src.space.value} tile and 'dest' a {dst.space.value} tile: "
                f"assemble within one memory space, or an acc tile into a mat tile"
            )
        check_window(dst, src.get_shape(), "assemble")
        return (dst,)


TILE_OPS = [
    LoadOp,
    StoreOp,
    AtomicStoreOp,
    FullOp,
    MoveOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    AddsOp,
    SubsOp,
    MulsOp,
    DivsOp,
    ExpOp,
    LogOp,
    SqrtOp,
    NegOp,
    AbsOp,
    ReluOp,
    RecipOp,
    CastOp,
    RowMaxOp,
    RowSumOp,
    RowExpandSubOp,
    RowExpandMulOp,
    RowExpandDivOp,
    MatmulOp,
    MatmulAccOp,
    MatmulBiasOp,
    BatchMatmulOp,
    BatchMatmulAccOp,
    GetBlockIdxOp,
    GetBlockNumOp,
    GetSubBlockIdxOp,
    CreateOp,
    SetValidShapeOp,
    FillPadOp,
    FillPadExpandOp,
    ReadOp,
    WriteOp,
    SliceOp,
    AssembleOp,
    RsqrtOp,
    TanhOp,
    SinOp,
    CosOp,
    MaximumsOp,
    MinimumsOp,
    ExpandsOp,
    RowMinOp,
    RowProdOp,
    ColSumOp,
    ColMaxOp,
    ColMinOp,
    RowArgmaxOp,
    RowArgminOp,
    ColArgmaxOp,
    ColArgminOp,
    ColProdOp,
    RowExpandOp,
    RowExpandAddOp,
    RowExpandMaxOp,
    RowExpandMinOp,
    RowExpandExpdifOp,
    ColExpandOp,
    ColExpandMulOp,
    ColExpandDivOp,
    ColExpandSubOp,
    ColExpandAddOp,
    ColExpandMaxOp,
    ColExpandMinOp,
    ColExpandExpdifOp,
    ReshapeOp,
    TransposeOp,
    TransposeViewOp,
    ConcatOp,
    *TILE_MASK_OPS,
    *GATHER_OPS,
]

