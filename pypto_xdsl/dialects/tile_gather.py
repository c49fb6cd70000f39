"""`pypto.tile.mgather` / `gatherb` / `mscatter`: indexed data movement (PyPTO's MGATHER,
TGATHERB and MSCATTER).

* `mgather` reads a GM table by an i32 index per row (`row`) or per element (`elem`) into a
  new `vec` or `mat` tile, with an out-of-bounds policy;
* `gatherb` copies 32-byte blocks of a `vec` tile, one per u32 *byte* offset, into a new
  `vec` tile whose element type may differ (the bytes are kept);
* `mscatter` writes each element of a tile into a GM tensor, read as a flat array, at the
  position its i32 index names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, Signedness, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    GatherCoalesce,
    GatherCoalesceAttr,
    GatherOob,
    GatherOobAttr,
    MemorySpace,
    TensorType,
    TileType,
    element_byte_width,
    format_shape,
)
from pypto_xdsl.dialects.common import PyptoValueOp
from pypto_xdsl.dialects.traits import ResultAliasesOperand
from pypto_xdsl.dialects.verification import pypto_op_definition

BLOCK_BYTES = 32
"""The unit `gatherb` moves (one DataBlock) and the alignment of `mat` rows (C0)."""

u32 = IntegerType(32, Signedness.UNSIGNED)


def is_gather_element(t: Attribute) -> bool:
    """The element types the gathers move: 8/16/32-bit integers (signed or not), f16, bf16, f32."""
    if isinstance(t, Float16Type | BFloat16Type | Float32Type):
        return True
    return isinstance(t, IntegerType) and t.width.data in (8, 16, 32) and t.signedness.data != Signedness.SIGNED


def _element(t: Attribute, what: str) -> None:
    if not is_gather_element(t):
        raise VerifyException(f"{what} has element type {t}; expected an 8/16/32-bit integer, f16, bf16 or f32")


def _static_2d(t: TileType | TensorType, what: str) -> tuple[int, int]:
    shape = t.get_shape()
    if len(shape) != 2 or not all(isinstance(d, int) for d in shape):
        raise VerifyException(f"{what} must be 2-D with static extents, got {t}")
    return shape[0], shape[1]  # type: ignore[return-value]


@pypto_op_definition
class MgatherOp(PyptoValueOp):
    """`%r = pypto.tile.mgather %mem, %idx [scratch(%s : S)] row oob(clamp) : M, I -> R`.

    Reads the GM table `%mem` at the i32 indices of `%idx` (read as unsigned 32-bit values)
    into a new tile (PyPTO's MGATHER):

    * `row`: `%idx` is one row [1, R] (or one column [R, 1] for a `vec` result) of row
      numbers; result row r is row `idx[r]` of `%mem` (rank >= 2, its rows the last
      dimension), [R, C] with C the table's last extent;
    * `elem`: result element (i, j) is element `idx[i, j]` of `%mem` read as a flat
      row-major array; the result has `%idx`'s shape.

    A `vec` result takes `%idx` as a `vec` tile, and is partial where `%idx` is (a row gather
    keeps all C columns of its valid rows). A `mat` result (NZ layout in L1) takes `%idx` as
    a GM tensor, has rows a multiple of 16 and columns a multiple of 32 bytes; its `elem`
    form stages the gathered elements in the GM workspace `scratch(...)` (the table's element
    type, at least as many elements as the result; its contents afterwards are unspecified).

    An index past the table (the row count, or the element count) is handled as `oob(...)`
    says: `undefined` (the default; the program guarantees none), `clamp` to the last
    entry, `wrap` modulo the entry count, `zero` (the result row or element is 0)."""

    name = "pypto.tile.mgather"
    OPERANDS: ClassVar[tuple[str, ...]] = ("mem", "idx")
    OPTIONAL: ClassVar[tuple[str, ...]] = ("scratch",)
    mem = operand_def(TensorType)
    idx = operand_def(TensorType | TileType)
    scratch = opt_operand_def(TensorType)
    coalesce = prop_def(GatherCoalesceAttr)
    oob = prop_def(GatherOobAttr)
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        mem: SSAValue | Operation,
        idx: SSAValue | Operation,
        result_type: TileType,
        coalesce: GatherCoalesce = GatherCoalesce.ROW,
        oob: GatherOob = GatherOob.UNDEFINED,
        scratch: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[mem, idx, *self.optional_operands(scratch)],
            result_types=[result_type],
            properties={"coalesce": GatherCoalesceAttr(coalesce), "oob": GatherOobAttr(oob)},
        )

    @classmethod
    def result_shape(cls, mem: TensorType, idx: TensorType | TileType, coalesce: GatherCoalesce) -> list:
        """The result's shape for a table and an index operand (checked by the verifier)."""
        ishape = list(idx.get_shape())
        if coalesce == GatherCoalesce.ELEM:
            return ishape
        rows = ishape[1] if ishape[0] == 1 else ishape[0]
        return [rows, mem.get_shape()[-1]]

    def infer_result_types(self) -> Sequence[Attribute]:
        mem, idx, r = self.mem.type, self.idx.type, self.result.type
        assert isinstance(mem, TensorType) and isinstance(r, TileType)
        _element(mem.element_type, "operand 'mem'")
        if r.element_type != mem.element_type:
            raise VerifyException(f"result element type {r.element_type} differs from the table's {mem.element_type}")
        row = self.coalesce.data == GatherCoalesce.ROW
        if r.space == MemorySpace.VEC:
            if not isinstance(idx, TileType) or idx.space != MemorySpace.VEC:
                raise VerifyException(f"a vec result takes operand 'idx' as a vec tile, got {idx}")
        elif r.space == MemorySpace.MAT:
            if not isinstance(idx, TensorType):
                raise VerifyException(f"a mat result takes operand 'idx' as a GM tensor, got {idx}")
        else:
            raise VerifyException(f"the result must be a vec or mat tile, got {r}")
        if idx.element_type != i32:
            raise VerifyException(f"operand 'idx' must hold i32 indices, got {idx}")
        ir, ic = _static_2d(idx, "operand 'idx'")
        if row:
            if mem.rank < 2:
                raise VerifyException(f"a row gather needs a table of rank >= 2 (rows of elements), got {mem}")
            if ir != 1 and (ic != 1 or r.space == MemorySpace.MAT):
                allowed = "[1, R]" if r.space == MemorySpace.MAT else "[1, R] or [R, 1]"
                raise VerifyException(f"a row gather into a {r.space.value} tile takes {allowed} indices, got {idx}")
        if r.space == MemorySpace.MAT:
            self._check_mat(mem, row)
        elif self.scratch is not None:
            raise VerifyException("operand 'scratch' belongs to an elem gather into a mat tile only")
        shape = self.result_shape(mem, idx, self.coalesce.data)
        if list(r.get_shape()) != shape:
            raise VerifyException(f"result shape {format_shape(r.get_shape())} should be {format_shape(shape)}")
        return (r,)

    def _check_mat(self, mem: TensorType, row: bool) -> None:
        r = self.result.type
        assert isinstance(r, TileType)
        rows, cols = _static_2d(r, "a mat result")
        c0 = BLOCK_BYTES // element_byte_width(mem.element_type)
        if rows % 16 or cols % c0:
            raise VerifyException(
                f"a mat result has rows a multiple of 16 and columns a multiple of {c0} (32 bytes), got {r}"
            )
        scratch = self.scratch
        if row:
            if scratch is not None:
                raise VerifyException("operand 'scratch' belongs to an elem gather into a mat tile only")
            return
        if scratch is None:
            raise VerifyException("an elem gather into a mat tile needs a GM 'scratch' tensor")
        st = scratch.type
        assert isinstance(st, TensorType)
        if st.element_type != mem.element_type:
            raise VerifyException(
                f"operand 'scratch' has element type {st.element_type}, expected the table's {mem.element_type}"
            )
        if not st.is_static() or st.num_elements() < rows * cols:
            raise VerifyException(f"operand 'scratch' {st} must be static and hold at least {rows * cols} elements")
        if scratch in (self.mem, self.idx):
            raise VerifyException("operand 'scratch' must be a tensor of its own, not the table or the indices")

    @classmethod
    def parse_properties(cls, parser: Parser) -> dict[str, Attribute]:
        coalesce = parser.parse_str_enum(GatherCoalesce)
        oob = GatherOob.UNDEFINED
        if parser.parse_optional_keyword("oob") is not None:
            parser.parse_punctuation("(")
            oob = parser.parse_str_enum(GatherOob)
            parser.parse_punctuation(")")
        return {"coalesce": GatherCoalesceAttr(coalesce), "oob": GatherOobAttr(oob)}

    def print_properties(self, printer: Printer) -> None:
        printer.print_string(f" {self.coalesce.data.value}")
        if self.oob.data != GatherOob.UNDEFINED:
            printer.print_string(f" oob({self.oob.data.value})")


@pypto_op_definition
class GatherbOp(PyptoValueOp):
    """`%r = pypto.tile.gatherb %src, %offsets : S, O -> R`: 32-byte blocks of `%src` by u32
    byte offsets (PyPTO's TGATHERB, Ascend C's Gatherb).

    `%src` is a 2-D `vec` tile read as its row-major bytes; `%offsets` a 2-D `vec` tile of
    u32 byte offsets into them, its rows a multiple of 8 offsets (32 bytes). Block b of
    result row i is the 32 bytes of `%src` from byte `offsets[i, b]`: the result is
    [rows, cols * 32 / sizeof(R)] of any of the gathers' element types (the bytes are kept,
    not converted), partial where `%offsets` is. An offset is a multiple of 32 (a block starts
    at a block boundary: the interpreter checks it, and Ascend C's Gatherb needs the block's UB
    address 32-byte aligned), and a block lies inside `%src`."""

    name = "pypto.tile.gatherb"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source", "offsets")
    source = operand_def(TileType)
    offsets = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def()

    def __init__(
        self, source: SSAValue | Operation, offsets: SSAValue | Operation, element_type: Attribute | None = None
    ):
        src, off = SSAValue.get(source).type, SSAValue.get(offsets).type
        assert isinstance(src, TileType) and isinstance(off, TileType)
        elem = src.element_type if element_type is None else element_type
        super().__init__(operands=[source, offsets], result_types=[self.result_for(off, elem)])

    @staticmethod
    def result_for(offsets: TileType, element_type: Attribute) -> TileType:
        rows, cols = offsets.get_shape()[:2] if offsets.rank == 2 else (None, None)
        per_block = BLOCK_BYTES // element_byte_width(element_type) if is_gather_element(element_type) else 1
        return TileType([rows, cols * per_block if isinstance(cols, int) else cols], element_type, MemorySpace.VEC)

    def infer_result_types(self) -> Sequence[Attribute]:
        src, off, r = self.source.type, self.offsets.type, self.result.type
        assert isinstance(src, TileType) and isinstance(off, TileType) and isinstance(r, TileType)
        _element(src.element_type, "operand 'source'")
        _element(r.element_type, "the result")
        for what, t in (("operand 'source'", src), ("operand 'offsets'", off), ("the result", r)):
            if t.space != MemorySpace.VEC:
                raise VerifyException(f"{what} must be a vec tile, got {t}")
        _static_2d(src, "operand 'source'")
        if off.element_type != u32:
            raise VerifyException(f"operand 'offsets' must hold u32 byte offsets, got {off}")
        _, cols = _static_2d(off, "operand 'offsets'")
        if cols % 8:
            raise VerifyException(f"operand 'offsets' needs rows of a multiple of 8 offsets (32 bytes), got {off}")
        expected = self.result_for(off, r.element_type)
        if r != expected:
            raise VerifyException(f"result {r} should be {expected}: one 32-byte block per offset")
        return (r,)


@pypto_op_definition
class MscatterOp(PyptoValueOp):
    """`%r = pypto.tile.mscatter %src, %idx into %dst : S, I into D`: element (i, j) of the
    `vec` tile `%src` is written to element `idx[i, j]` of the GM tensor `%dst` read as a
    flat row-major array (PyPTO's MSCATTER); `%r` names `%dst`'s storage. `%idx` is an i32
    `vec` tile of `%src`'s shape; a partial `%src` writes its valid block. Indices lie
    inside `%dst`; of two equal indices, the later element (row-major) is the one written."""

    name = "pypto.tile.mscatter"
    OPERANDS: ClassVar[tuple[str, ...]] = ("source", "idx", "dest")
    KEYWORDS: ClassVar[dict[int, str]] = {2: "into"}
    RESULT_LIKE: ClassVar[int] = 2
    source = operand_def(TileType)
    idx = operand_def(TileType)
    dest = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), ResultAliasesOperand(2))

    ELEMENTS: ClassVar[tuple[str, ...]] = ("f16", "f32", "i16", "i32")

    def __init__(self, source: SSAValue | Operation, idx: SSAValue | Operation, dest: SSAValue | Operation):
        super().__init__(operands=[source, idx, dest], result_types=[SSAValue.get(dest).type])

    def infer_result_types(self) -> Sequence[Attribute]:
        src, idx, dst = self.source.type, self.idx.type, self.dest.type
        assert isinstance(src, TileType) and isinstance(idx, TileType) and isinstance(dst, TensorType)
        if str(src.element_type) not in self.ELEMENTS:
            raise VerifyException(
                f"operand 'source' has element type {src.element_type}; expected f16, f32, i16 or i32"
            )
        for what, t in (("operand 'source'", src), ("operand 'idx'", idx)):
            if t.space != MemorySpace.VEC:
                raise VerifyException(f"{what} must be a vec tile, got {t}")
        if idx.element_type != i32 or idx.get_shape() != src.get_shape():
            raise VerifyException(f"operand 'idx' must be an i32 tile of the shape of 'source' {src}, got {idx}")
        if dst.element_type != src.element_type:
            raise VerifyException(
                f"operand 'dest' has element type {dst.element_type} but 'source' has {src.element_type}"
            )
        if dst.rank == 0:
            raise VerifyException(f"operand 'dest' must have at least one dimension, got {dst}")
        return (dst,)


GATHER_OPS = [MgatherOp, GatherbOp, MscatterOp]
