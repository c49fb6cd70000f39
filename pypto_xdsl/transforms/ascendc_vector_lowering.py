"""The vector-unit half of the kernel lowering (`convert-pypto-to-ascendc`): pypto tile
compute on `vec` tiles -> `ascendc` vector instructions.

Elementwise ops are level-2 instructions over the tile's padded rows (`count`). Ops that
combine rows and columns in other shapes use the level-0 form, one repeat per row: column
broadcasts (`col_expand*`, a [1, C] row applied to every row) read their second source with
repeat stride 0; row broadcasts (`row_expand*`) first `Brcb` the [R, 1] values into one
32-byte block per row; copies of rows into other rows (`concat`, `col_expand`) are `Muls` by
1. Where Ascend C has no instruction for an element type (the devkit's `SupportType` lists,
mirrored by the ascendc ops' `ELEMENTS`), the op is either composed from ones that exist
(integer `abs` as `max(x, -x)`, i16 `relu` as `Maxs(x, 0)`, `tanh` from `Exp`) or refused with
a diagnostic naming the op and the element type.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IntegerType, Signedness
from xdsl.ir import Attribute, Operation, SSAValue

from pypto_xdsl.analysis.ascendc_kernel import BLOCK_BYTES, MAX_REPEAT, REPEAT_BYTES, compare_form, tile_layout
from pypto_xdsl.analysis.cxx_names import op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_scalar as X
from pypto_xdsl.dialects import tile
from pypto_xdsl.dialects.ascendc_types import CmpMode, ReduceOrder, RoundMode, SelMode
from pypto_xdsl.dialects.attributes import MemorySpace, is_float_type
from pypto_xdsl.transforms.ascendc_scalar_lowering import ScalarLowering

BINARY = {
    tile.AddOp: C.AddOp, tile.SubOp: C.SubOp, tile.MulOp: C.MulOp, tile.DivOp: C.DivOp,
    tile.MaximumOp: C.MaxOp, tile.MinimumOp: C.MinOp,
}
UNARY = {
    tile.ExpOp: C.ExpOp, tile.LogOp: C.LnOp, tile.SqrtOp: C.SqrtOp, tile.AbsOp: C.AbsOp, tile.ReluOp: C.ReluOp,
    tile.RecipOp: C.ReciprocalOp, tile.RsqrtOp: C.RsqrtOp,
}
SCALAR = (tile.AddsOp, tile.SubsOp, tile.MulsOp, tile.DivsOp, tile.MaximumsOp, tile.MinimumsOp)
ROW_REDUCE = {tile.RowMaxOp: (C.WholeReduceMaxOp, C.MaxOp), tile.RowMinOp: (C.WholeReduceMinOp, C.MinOp),
              tile.RowSumOp: (C.WholeReduceSumOp, C.AddOp)}
# [R, C] op [R, 1] / [R, C] op [1, C]: the instruction, or None for the broadcast itself;
# `expdif` is exp(a - b).
ROW_EXPAND = {
    tile.RowExpandOp: None, tile.RowExpandSubOp: C.SubOp, tile.RowExpandMulOp: C.MulOp, tile.RowExpandDivOp: C.DivOp,
    tile.RowExpandAddOp: C.AddOp, tile.RowExpandMaxOp: C.MaxOp, tile.RowExpandMinOp: C.MinOp,
    tile.RowExpandExpdifOp: C.SubOp,
}
COL_EXPAND = {
    tile.ColExpandOp: None, tile.ColExpandSubOp: C.SubOp, tile.ColExpandMulOp: C.MulOp, tile.ColExpandDivOp: C.DivOp,
    tile.ColExpandAddOp: C.AddOp, tile.ColExpandMaxOp: C.MaxOp, tile.ColExpandMinOp: C.MinOp,
    tile.ColExpandExpdifOp: C.SubOp,
}
_EXPDIF = (tile.RowExpandExpdifOp, tile.ColExpandExpdifOp)
COL_REDUCE = {tile.ColSumOp: C.AddOp, tile.ColMaxOp: C.MaxOp, tile.ColMinOp: C.MinOp, tile.ColProdOp: C.MulOp}
ADVANCED_MATH = {tile.SinOp: C.SinOp, tile.CosOp: C.CosOp}

# Repeats per Brcb when a row broadcast needs several (over 2040 rows): 254 x 8 rows keeps the
# next call's source offset 32-byte aligned for 2-byte elements too (255 x 8 halves would not).
_BRCB_REPEATS = 254


def _narrow_int(t: Attribute) -> bool:
    return not is_float_type(t) and str(t).lstrip("ui").isdigit() and int(str(t).lstrip("ui")) < 32


class VectorLowering(ScalarLowering):
    """Mixin of KernelLowering (ascendc_kernel_lowering.py): the vector compute ops."""

    def lower_vector(self, op: Operation) -> bool:
        """Emit `op` if it is vector compute (True), else leave it to the caller (False)."""
        kind = type(op)
        if kind in BINARY:
            a, b = self.tile_of(op.operands[0]), self.tile_of(op.operands[1])
            if len({a.layout.ld, b.layout.ld}) != 1:
                raise op_error(op, "operands have different UB layouts")
            d = self.def_tile(op.results[0], op)
            self.vec(op, BINARY[kind](d.value, a.value, b.value, count=d.layout.count))
        elif kind in UNARY:
            self._unary(op, UNARY[kind])
        elif isinstance(op, tile.NegOp):
            a = self.tile_of(op.input)
            d = self.def_tile(op.result, op)
            self.vec(op, C.MulsOp(d.value, a.value, self.literal_as(-1, d.elem), count=d.layout.count))
        elif isinstance(op, tile.TanhOp):
            self._tanh(op)
        elif isinstance(op, SCALAR):
            self._scalar_op(op)
        elif isinstance(op, tile.FullOp | tile.ExpandsOp):
            d = self.def_tile(op.result, op)
            value = op.value if isinstance(op, tile.FullOp) else op.scalar
            self.vec(op, C.DuplicateOp(d.value, self.scalar_as(self.scalar(value), d.elem), d.layout.count))
        elif isinstance(op, tile.CastOp):
            self._cast(op)
        elif kind in ROW_REDUCE:
            self._row_reduce(op)
        elif kind in COL_REDUCE:
            self._col_reduce(op)
        elif kind in ROW_EXPAND:
            self._row_expand(op)
        elif kind in COL_EXPAND:
            self._col_expand(op)
        elif isinstance(op, tile.ConcatOp):
            self._concat(op)
        elif isinstance(op, tile.ReshapeOp):
            self._reshape(op)
        elif isinstance(op, tile.SliceOp) and op.result.type.space == MemorySpace.VEC:  # type: ignore[union-attr]
            self._slice(op)
        elif isinstance(op, tile.AssembleOp) and op.result.type.space == MemorySpace.VEC:  # type: ignore[union-attr]
            self._assemble(op)
        elif isinstance(op, tile.CreateOp):
            if op.result not in self.plan.unused_scratch:
                self.def_tile(op.result, op)  # contents unspecified: a buffer, no instruction
        elif kind in ADVANCED_MATH:
            self._advanced_math(op, ADVANCED_MATH[kind])
        elif isinstance(op, tile.GatherbOp):
            self._gatherb(op)
        elif isinstance(op, tile.RowProdOp):
            self._row_prod(op)
        elif isinstance(op, tile.ReadOp) and op.source.type.space == MemorySpace.VEC:  # type: ignore[union-attr]
            self._read(op)
        elif isinstance(op, tile.WriteOp) and op.dest.type.space == MemorySpace.VEC:  # type: ignore[union-attr]
            self._write(op)
        elif isinstance(op, tile.TransposeOp | tile.TransposeViewOp) and op.result.type.space == MemorySpace.VEC:  # type: ignore[union-attr]
            self._transpose(op)
        elif isinstance(op, tile.TriOp):
            self._tri(op)
        elif isinstance(op, tile.CmpOp | tile.CmpsOp):
            self._compare(op)
        elif isinstance(op, tile.SelOp | tile.SelsOp):
            self._select(op)
        else:
            return False
        return True

    def _tri(self, op: tile.TriOp) -> None:
        """A triangle of a constant diagonal `d`: the tile filled with the value off the
        prefix of each row, then each row's prefix filled with the other value (a level-2
        Duplicate from the row's 32-byte aligned start): the lower triangle's prefix is the
        clamp(i + d + 1, 0, cols) ones of row i over zeros, the upper one's the
        clamp(i + d, 0, cols) zeros over ones."""
        from pypto_xdsl.transforms.ascendc_partial_tiles import const_of

        d = const_of(op.diagonal)
        if d is None:
            raise op_error(op, "its diagonal is known only at run time; the Ascend C backend lowers "
                               "pypto.tile.tri with a constant diagonal only")
        t = self.def_tile(op.result, op)
        lay = t.layout
        base, prefix = (1, 0) if op.is_upper else (0, 1)
        self.vec(op, C.DuplicateOp(t.value, self.literal_as(base, t.elem), lay.count))
        other = None
        for i in range(lay.rows):
            n = max(0, min(lay.cols, i + d + (0 if op.is_upper else 1)))
            if n:
                other = other or self.literal_as(prefix, t.elem)
                self.vec(op, C.DuplicateOp(self.at_const(t.value, i * lay.ld), other, n))

    # ---- predicate masks (dialects/tile_mask.py)

    def _compare(self, op: tile.CmpOp | tile.CmpsOp) -> None:
        """The packed mask of `a op b` with one Compare(s) over whole 256-byte repeats (see
        `compare_form`): straight from the tile when its rows are as wide as a mask row's bits,
        else from padded copies of `chunk` rows, the tail of each copied row holding a pad
        value the comparison is false for, so that the mask's padding bits are 0 as the
        dialect defines them."""
        a = self.tile_of(op.lhs)
        lay = a.layout
        mode = CmpMode(op.cmp.data.value.upper())
        fn = C.CompareOp if isinstance(op, tile.CmpOp) else C.ComparesOp
        why = fn.mode_error(a.elem, mode)
        if why is not None:
            raise op_error(op, f"{why}; {op.name} cmp({op.cmp.data.value}) on {a.elem} tiles is not supported by the "
                               "Ascend C backend")
        b = self.tile_of(op.rhs) if isinstance(op, tile.CmpOp) else None
        if b is not None and b.layout.ld != lay.ld:
            raise op_error(op, "operands have different UB layouts")
        scalar = None if b is not None else self.scalar_as(self.scalar(op.scalar), a.elem)  # type: ignore[union-attr]
        form = compare_form(lay, tile_layout(op.result.type, op).ld)  # type: ignore[arg-type]

        def compare(dst: SSAValue, x: SSAValue, y: SSAValue | None, count: int) -> None:
            rhs = y if y is not None else scalar
            assert rhs is not None
            self._insert(fn(dst, x, rhs, mode, count))

        if form.direct:
            d = self.def_tile(op.result, op)
            compare(d.value, a.value, b.value if b is not None else None, lay.rows * form.width)
            return
        chunk, width = form.chunk, form.width
        pads = self._compare_pads(op, mode, a.elem, scalar)
        # the scratch is taken before the mask, so that the next compare's scratch can share
        # its buffer (ascendc-plan-buffers packs buffers in the order their tensors start)
        scratch = self._scratch_bytes(op, a.elem)
        copies = [self.at_const(scratch, k * chunk * width) for k in range(len(pads))]
        for copy, pad in zip(copies, pads):
            self.vec(op, C.DuplicateOp(copy, pad, chunk * width))
        d = self.def_tile(op.result, op)
        sources = [a] if b is None else [a, b]
        for r0 in range(0, lay.rows, chunk):
            n = min(chunk, lay.rows - r0)
            for copy, src in zip(copies, sources):
                self._copy_rows(op, copy, 0, width, src.value, r0 * lay.ld, lay.ld, n, lay.cols, a.elem, lay.elem_bytes)
            compare(self.at_const(d.value, r0 * d.layout.ld), copies[0], copies[1] if b is not None else None, n * width)

    def _compare_pads(self, op: Operation, mode: CmpMode, elem: Attribute, scalar: SSAValue | None) -> list[SSAValue]:
        """Values of the padded copies' tails (lhs, and rhs of a cmp) for which `mode` is false."""
        if scalar is None:  # two tiles: constants
            lhs, rhs = {CmpMode.EQ: (0, 1), CmpMode.NE: (0, 0), CmpMode.LT: (0, 0), CmpMode.LE: (1, 0),
                        CmpMode.GT: (0, 0), CmpMode.GE: (0, 1)}[mode]
            return [self.literal_as(lhs, elem), self.literal_as(rhs, elem)]
        if mode in (CmpMode.LT, CmpMode.GT, CmpMode.NE):
            return [scalar]  # x < x, x > x, x != x are false
        if is_float_type(elem):
            return [self._insert(arith.ConstantOp(FloatAttr(math.nan, elem))).results[0]]  # NaN compares false
        # an integer EQ (the only integer mode): anything else than the scalar
        return [self._insert(arith.XOrIOp(scalar, self.constant(1, scalar.type))).results[0]]

    def _select(self, op: tile.SelOp | tile.SelsOp) -> None:
        """`a` where the mask bit is set, else `b` (or the scalar), with Select over half or
        float elements (other 2- and 4-byte elements move as half / float bits, through
        ReinterpretCast): one Select over the tile when its rows hold as many elements as the
        mask rows hold bits, else one per row (Select consumes the mask bits contiguously). An
        integer sels selects against a row of the scalar (Duplicate), Select's tensor-scalar
        mode existing for half and float only."""
        sels = isinstance(op, tile.SelsOp)
        a = self.tile_of(op.src if sels else op.lhs)  # type: ignore[union-attr]
        lay = a.layout
        eb = lay.elem_bytes
        native = str(a.elem) in C.SELECT_ELEMENTS
        if not native and eb not in (2, 4):
            raise op_error(op, f"Ascend C Select exists for half and float only (dav-c220), and {a.elem} elements are not "
                               f"2 or 4 bytes wide to be selected as their bits; {op.name} on {a.elem} tiles is not "
                               "supported by the Ascend C backend")
        b = None if sels else self.tile_of(op.rhs)  # type: ignore[union-attr]
        if b is not None and b.layout.ld != lay.ld:
            raise op_error(op, "operands have different UB layouts")
        m = self.tile_of(op.mask)
        mrow = m.layout.ld * m.layout.elem_bytes  # bytes between mask rows
        lanes = REPEAT_BYTES // eb
        if lay.rows > 1 and (mrow % BLOCK_BYTES or -(-lay.cols // lanes) * lanes // 8 > mrow):
            raise op_error(op, f"its mask {op.mask.type} has rows {mrow} bytes apart in UB; Select reads a row's bits from a "
                               f"32-byte boundary, {-(-lay.cols // lanes) * lanes // 8} bytes for {lay.cols} {a.elem} elements")
        d = self.def_tile(op.result, op)
        view = a.elem if native else (Float16Type() if eb == 2 else Float32Type())
        unsigned = IntegerType(m.layout.elem_bytes * 8, Signedness.UNSIGNED)

        def as_view(v: SSAValue, t: Attribute) -> SSAValue:
            return v if v.type.element_type == t else self._insert(M.ReinterpretCastOp(v, t)).results[0]  # type: ignore[attr-defined]

        mask = as_view(m.value, unsigned)
        dst, src = as_view(d.value, view), as_view(a.value, view)
        other: SSAValue | None = None
        if b is not None:
            other = as_view(b.value, view)
        elif not native:
            row = self._scratch_bytes(op, a.elem)
            self.vec(op, C.DuplicateOp(row, self.scalar_as(self.scalar(op.scalar), a.elem), lay.cols))  # type: ignore[union-attr]
            other = as_view(row, view)
        scalar = None if other is not None else self.scalar_as(self.scalar(op.scalar), a.elem)  # type: ignore[union-attr]
        single = lay.rows == 1 or lay.ld == 8 * mrow
        rows = [(0, lay.count)] if single else [(r, lay.cols) for r in range(lay.rows)]
        for r, count in rows:
            at = r * lay.ld
            dr, sr = self.at_const(dst, at), self.at_const(src, at)
            mr = self.at_const(mask, r * mrow // m.layout.elem_bytes)
            if scalar is not None:
                self.vec(op, C.SelectScalarOp(dr, mr, sr, scalar, count))
            else:
                assert other is not None
                orow = other if b is None else self.at_const(other, at)  # the scalar row serves every row
                self.vec(op, C.SelectOp(dr, mr, sr, orow, SelMode.VSEL_TENSOR_TENSOR_MODE, count))

    # ---- helpers

    def vec(self, op: Operation, instruction: C.VectorOp) -> Operation:
        """Insert a vector instruction for `op`, refusing element types the instruction lacks."""
        t = instruction.operands[0].type
        why = instruction.element_error(t.element_type)  # type: ignore[attr-defined]
        if why is not None:
            raise op_error(op, f"{why}; {op.name} on {t.element_type} tiles is not supported by the Ascend C backend")  # type: ignore[attr-defined]
        return self._insert(instruction)

    def require_float(self, op: Operation, what: str) -> None:
        elem = op.results[0].type.element_type  # type: ignore[attr-defined]
        if not is_float_type(elem):
            raise op_error(op, f"{what}; {op.name} on {elem} tiles is not supported by the Ascend C backend")

    def _copy_rows(self, op: Operation, dst: SSAValue, dst_off: int, dst_ld: int, src: SSAValue, src_off: int,
                   src_ld: int, rows: int, cols: int, elem: Attribute, eb: int, src_rep_zero: bool = False,
                   dst_terms: tuple = (), src_terms: tuple = ()) -> None:
        """Copy `rows` x `cols` elements (row-major, `*_ld` apart) with level-0 `Muls` by 1, one
        repeat per row: `src_rep_zero` reads the same source row every repeat (a column broadcast).
        `*_terms` are run-time (value, coefficient) parts of the offsets (whole rows)."""
        lanes = REPEAT_BYTES // eb
        dst_rep = self.rep_stride(op, dst_ld, eb, rows)
        src_rep = 0 if src_rep_zero else self.rep_stride(op, src_ld, eb, rows)
        one = self.literal_as(1, elem)
        for r0 in range(0, rows, MAX_REPEAT):
            repeat = min(MAX_REPEAT, rows - r0)
            for c0 in range(0, cols, lanes):
                mask = min(lanes, cols - c0)
                s_off = src_off + c0 + (0 if src_rep_zero else r0 * src_ld)
                d_off = dst_off + r0 * dst_ld + c0
                d = self.at(dst, [*dst_terms, *([(None, d_off)] if d_off else [])])
                s = self.at(src, [*src_terms, *([(None, s_off)] if s_off else [])])
                self.vec(op, C.MulsOp(d, s, one, mask=mask, repeat=repeat, params=[1, 1, dst_rep, src_rep]))

    def _window_offset(self, op: Operation, offsets, ld: int, eb: int) -> tuple[tuple, int]:
        """A tile window's origin as (run-time row terms, constant elements): the row offset may
        be run-time, the column offset is a constant on a 32-byte boundary."""
        if len(offsets) == 1:
            row, col = None, offsets[0]
        else:
            row, col = offsets
        col_c = self.consts.get(col)
        if col_c is None:
            raise op_error(op, "its column offset is not a constant; the vector unit needs to know it starts on a 32-byte boundary")
        col_c = int(col_c)
        if (col_c * eb) % BLOCK_BYTES:
            raise op_error(op, f"its column offset {col_c} is byte {col_c * eb} of a row, not on a 32-byte boundary")
        if row is None:
            return (), col_c
        row_c = self.consts.get(row)
        if row_c is not None:
            return (), int(row_c) * ld + col_c
        return ((self.scalar(row), ld),), col_c

    @staticmethod
    def rep_stride(op: Operation, ld: int, eb: int, rows: int) -> int:
        """The level-0 repeat stride (32-byte blocks) of rows `ld` elements apart."""
        if rows == 1:
            return REPEAT_BYTES // BLOCK_BYTES
        if (ld * eb) % BLOCK_BYTES:
            raise op_error(op, f"its rows are {ld * eb} bytes apart in UB, not a multiple of 32 bytes (a column tile?)")
        stride = ld * eb // BLOCK_BYTES
        if stride > 255:
            raise op_error(op, f"its rows are {stride} blocks of 32 bytes long; the repeat stride limit is 255")
        return stride

    # ---- elementwise

    def _unary(self, op: Operation, fn: type[C.UnaryOp]) -> None:
        a = self.tile_of(op.operands[0])
        elem = a.elem
        if isinstance(op, tile.AbsOp) and not is_float_type(elem):
            # Abs is half/float only: |x| = max(x, -x) with the integer Muls and Max.
            d = self.def_tile(op.results[0], op)
            n = d.layout.count
            self.vec(op, C.MulsOp(d.value, a.value, self.literal_as(-1, elem), count=n))
            self.vec(op, C.MaxOp(d.value, a.value, d.value, count=n))
            return
        if isinstance(op, tile.ReluOp) and str(elem) == "i16":
            # Relu is half/float/int32 only: max(x, 0) with the int16 Maxs.
            d = self.def_tile(op.results[0], op)
            self.vec(op, C.MaxsOp(d.value, a.value, self.literal_as(0, elem), count=d.layout.count))
            return
        why = fn.element_error(elem)
        if why is not None:
            raise op_error(op, f"{why}; {op.name} on {elem} tiles is not supported by the Ascend C backend")
        d = self.def_tile(op.results[0], op)
        self.vec(op, fn(d.value, a.value, count=d.layout.count))

    def _tanh(self, op: tile.TanhOp) -> None:
        """tanh(x) = 1 - 2 / (exp(2x) + 1), in the result's buffer: exact at both tails (exp
        overflowing to inf gives 1, underflowing to 0 gives -1)."""
        a = self.tile_of(op.input)
        d = self.def_tile(op.result, op)
        n, e = d.layout.count, d.elem
        self.vec(op, C.MulsOp(d.value, a.value, self.literal_as(2, e), count=n))
        self.vec(op, C.ExpOp(d.value, d.value, count=n))
        self.vec(op, C.AddsOp(d.value, d.value, self.literal_as(1, e), count=n))
        self.vec(op, C.ReciprocalOp(d.value, d.value, count=n))
        self.vec(op, C.MulsOp(d.value, d.value, self.literal_as(-2, e), count=n))
        self.vec(op, C.AddsOp(d.value, d.value, self.literal_as(1, e), count=n))

    def _scalar_op(self, op: Operation) -> None:
        a = self.tile_of(op.operands[0])
        d = self.def_tile(op.results[0], op)
        s = self.scalar(op.scalar)  # type: ignore[attr-defined]
        n = d.layout.count
        if isinstance(op, tile.AddsOp):
            self.vec(op, C.AddsOp(d.value, a.value, self.scalar_as(s, d.elem), count=n))
        elif isinstance(op, tile.SubsOp):
            known = self.consts.get(op.scalar)
            if isinstance(known, int) and not is_float_type(d.elem):
                neg = self.literal_as(-known, d.elem)  # static_cast<T>(-c)
            else:
                neg = self._insert(C.UnaryMinusOp(s)).results[0]
                # C++ promotes -x of an 8/16-bit integer to int: the cast goes around the negation
                neg = self._insert(C.ScalarCastOp(neg, d.elem)).results[0] if _narrow_int(d.elem) else self.scalar_as(neg, d.elem)
            self.vec(op, C.AddsOp(d.value, a.value, neg, count=n))
        elif isinstance(op, tile.MulsOp):
            self.vec(op, C.MulsOp(d.value, a.value, self.scalar_as(s, d.elem), count=n))
        elif isinstance(op, tile.MaximumsOp):
            self.vec(op, C.MaxsOp(d.value, a.value, self.scalar_as(s, d.elem), count=n))
        elif isinstance(op, tile.MinimumsOp):
            self.vec(op, C.MinsOp(d.value, a.value, self.scalar_as(s, d.elem), count=n))
        else:
            why = C.DivOp.element_error(d.elem)
            if why is not None:
                raise op_error(op, f"{why}; {op.name} on {d.elem} tiles is not supported by the Ascend C backend")
            # Exact division: broadcast the scalar, then divide elementwise.
            self.vec(op, C.DuplicateOp(d.value, self.scalar_as(s, d.elem), n))
            self.vec(op, C.DivOp(d.value, a.value, d.value, count=n))

    def _cast(self, op: tile.CastOp) -> None:
        a = self.tile_of(op.input)
        d_layout = tile_layout(op.result.type, op)  # type: ignore[arg-type]
        if d_layout.ld != a.layout.ld:
            raise op_error(
                op, f"casting {op.input.type} to {op.result.type} changes the padded UB row length; "
                "use a column count that is a multiple of 32 bytes for both types"
            )
        src_t, dst_t = op.input.type.element_type, op.result.type.element_type  # type: ignore[union-attr]
        if src_t == dst_t:
            d = self.def_tile(op.result, op)
            self._insert(M.DataCopyOp(d.value, a.value, count=d.layout.alloc_elems))  # a same-type cast is a copy
            return
        mode = self._round_mode(op, src_t, dst_t)
        why = C.CastOp.mode_error(src_t, dst_t, mode)
        if why is not None:
            raise op_error(op, f"{why}; this cast is not supported by the Ascend C backend")
        d = self.def_tile(op.result, op)
        self._insert(C.CastOp(d.value, a.value, mode, d.layout.count))

    @staticmethod
    def _round_mode(op: tile.CastOp, src_t: Attribute, dst_t: Attribute) -> RoundMode:
        """The RoundMode of the cast: its `mode` where it has one (PyPTO's modes are Ascend C's,
        in the same order), else the default conversion (float -> int truncates, a narrowing
        float conversion rounds to nearest even)."""
        to_int = is_float_type(src_t) and not is_float_type(dst_t)
        mode = op.rounding
        if mode is None or mode == "none":
            if to_int:
                return RoundMode.CAST_TRUNC
            # a bf16 target takes an explicit rounding (Cast has no CAST_NONE to bf16 on dav-c220)
            return RoundMode.CAST_RINT if str(dst_t) == "bf16" else RoundMode.CAST_NONE
        return RoundMode(f"CAST_{mode.upper()}")

    # ---- layout

    def _reshape(self, op: tile.ReshapeOp) -> None:
        """A view (KernelPlan checked both layouts are unpadded): the source's local tensor."""
        src = self.tile_of(op.input)
        ref = self._tile_ref_view(op.result, op, src)
        self.tiles[op.result] = ref

    def _aligned_column(self, offsets, eb: int) -> bool:
        """Whether a window's column offset is a constant on a 32-byte boundary (the vector path)."""
        col = self.consts.get(offsets[-1])
        return col is not None and (int(col) * eb) % BLOCK_BYTES == 0

    def _slice(self, op: tile.SliceOp) -> None:
        """A copy of the window at the offsets (row offsets may be run-time); a run-time or
        unaligned column offset copies element by element on the scalar unit (a vector
        instruction's operands start on 32-byte boundaries)."""
        src = self.tile_of(op.source)
        d = self.def_tile(op.result, op)
        lay = d.layout
        if not self._aligned_column(op.offsets, lay.elem_bytes):
            return self._scalar_window(op, src, d, self._element_index(op, op.offsets, src.layout.ld), into_window=False)
        terms, off = self._window_offset(op, op.offsets, src.layout.ld, src.layout.elem_bytes)
        self._copy_rows(op, d.value, 0, lay.ld, src.value, off, src.layout.ld, lay.rows, lay.cols, d.elem,
                        lay.elem_bytes, src_terms=terms)

    def _assemble(self, op: tile.AssembleOp) -> None:
        """Writes the source into the window of the destination's local tensor, in place (the
        result names the destination's buffer); a run-time or unaligned column offset on the
        scalar unit, as for slice."""
        src, dst = self.tile_of(op.source), self.tile_of(op.dest)
        lay = src.layout
        if not self._aligned_column(op.offsets, lay.elem_bytes):
            self._scalar_window(op, src, dst, self._element_index(op, op.offsets, dst.layout.ld), into_window=True)
        else:
            terms, off = self._window_offset(op, op.offsets, dst.layout.ld, dst.layout.elem_bytes)
            self._copy_rows(op, dst.value, off, dst.layout.ld, src.value, 0, lay.ld, lay.rows, lay.cols, dst.elem,
                            lay.elem_bytes, dst_terms=terms)
        self.tiles[op.result] = dst

    def _concat(self, op: tile.ConcatOp) -> None:
        """[R, C0] ++ [R, C1] -> [R, C0 + C1]: each source's rows copied into its columns (the
        second on the scalar unit when its first column is not on a 32-byte boundary)."""
        a, b = self.tile_of(op.src0), self.tile_of(op.src1)
        d = self.def_tile(op.result, op)
        lay = d.layout
        eb = lay.elem_bytes
        self._copy_rows(op, d.value, 0, lay.ld, a.value, 0, a.layout.ld, lay.rows, a.layout.cols, d.elem, eb)
        if (a.layout.cols * eb) % BLOCK_BYTES:
            # the second operand starts inside a 32-byte block: the scalar unit writes it
            self._scalar_window(op, b, d, self.index_constant(a.layout.cols), into_window=True)
            return
        self._copy_rows(op, d.value, a.layout.cols, lay.ld, b.value, 0, b.layout.ld, lay.rows, b.layout.cols, d.elem, eb)

    # ---- reductions and broadcasts

    def _row_reduce(self, op: Operation) -> None:
        whole_fn, fold = ROW_REDUCE[type(op)]
        a = self.tile_of(op.operands[0])
        lay = a.layout
        why = whole_fn.element_error(a.elem)
        if why is not None:
            raise op_error(op, f"{why}; {op.name} on {a.elem} tiles is not supported by the Ascend C backend")
        lanes = REPEAT_BYTES // lay.elem_bytes
        d = self.def_tile(op.results[0], op)
        if lay.cols == 1:
            self._insert(M.DataCopyOp(d.value, a.value, count=d.layout.alloc_elems))
            return
        if lay.rows > MAX_REPEAT:
            raise op_error(op, f"{op.operands[0].type} has {lay.rows} rows; row reductions support at most {MAX_REPEAT} rows per tile")
        rep_stride = lay.ld * lay.elem_bytes // BLOCK_BYTES if lay.rows > 1 else 8
        if rep_stride > 255:
            raise op_error(op, f"rows of {op.operands[0].type} are longer than 255 blocks of 32 bytes")

        def whole(src: SSAValue, mask: int, src_rep: int) -> None:
            if whole_fn is C.WholeReduceSumOp:
                self.vec(op, C.WholeReduceSumOp(d.value, src, mask, lay.rows, [1, 1, src_rep]))
            else:
                self.vec(op, whole_fn(d.value, src, mask, lay.rows, [1, 1, src_rep], ReduceOrder.ORDER_ONLY_VALUE))

        if lay.cols <= lanes:
            whole(a.value, lay.cols, rep_stride)
            return
        # Two stages: fold the 256-byte column chunks of every row into a [rows, lanes] scratch
        # tile with level-0 Max/Min/Add (one repeat per row), then reduce the scratch rows.
        tmp = self.plan.scratch[op]
        tname = self.namer.fresh(f"{d.var}_tmp")
        get = self._insert(M.GetBufOp(tname, self.decls[id(tmp)], d.elem))
        get.results[0].name_hint = tname
        scratch = get.results[0]
        chunk_blocks = REPEAT_BYTES // BLOCK_BYTES
        self.vec(op, C.MulsOp(scratch, a.value, self.literal_as(1, d.elem), mask=lanes, repeat=lay.rows,
                              params=[1, 1, chunk_blocks, rep_stride]))
        for start in range(lanes, lay.cols, lanes):
            mask = min(lanes, lay.cols - start)
            self.vec(op, fold(scratch, scratch, self.at_const(a.value, start), mask=mask, repeat=lay.rows,
                              params=[1, 1, 1, chunk_blocks, chunk_blocks, rep_stride]))
        whole(scratch, lanes, chunk_blocks)

    def _col_reduce(self, op: Operation) -> None:
        """[R, C] -> [1, C] by halving: the top half of the rows combined with the bottom half
        into a scratch tile (one level-2 instruction over whole padded rows), then the scratch
        folded onto itself, an odd row out folded into row 0, until one row is left."""
        fn = COL_REDUCE[type(op)]
        a = self.tile_of(op.operands[0])
        lay = a.layout
        d = self.def_tile(op.results[0], op)
        one = self.literal_as(1, d.elem)
        if lay.rows == 1:
            self.vec(op, C.MulsOp(d.value, a.value, one, count=lay.cols))
            return
        tmp = self.plan.scratch[op]
        tname = self.namer.fresh(f"{d.var}_tmp")
        get = self._insert(M.GetBufOp(tname, self.decls[id(tmp)], d.elem))
        get.results[0].name_hint = tname
        scratch = get.results[0]
        n, src, ld = lay.rows, a.value, lay.ld
        while n > 1:
            half = n // 2
            self.vec(op, fn(scratch, src, self.at_const(src, half * ld), count=half * ld))
            if n % 2:
                self.vec(op, fn(scratch, scratch, self.at_const(src, (n - 1) * ld), count=ld))
            n, src = half, scratch
        self.vec(op, C.MulsOp(d.value, scratch, one, count=lay.cols))

    def _gatherb(self, op: tile.GatherbOp) -> None:
        """`tile.gatherb` as Ascend C `Gatherb`: the offsets tile (rows of a multiple of 8 u32
        offsets, so unpadded) is one run of repeats of 8 offsets, each writing 8 consecutive
        32-byte blocks of the result (GatherRepeatParams(1, 8); the result's rows are
        `8 * 32`-byte multiples, unpadded too), in calls of at most 255 repeats. Gatherb exists
        for uint16_t/uint32_t: the tiles are passed as ReinterpretCast views (uint32_t for
        4-byte source elements, else uint16_t), which keep the bytes, as the op does. The
        offsets count bytes from the source's start, which are the tile's row-major bytes only
        when its rows are not padded in the Unified Buffer. A partial offsets tile has its
        invalid part zeroed first (fold_partial_tiles): those offsets name the source's first
        block, a block inside it, where the result is unspecified anyway."""
        s, o = self.tile_of(op.source), self.tile_of(op.offsets)
        src, off = s.layout, o.layout
        if src.rows > 1 and src.ld != src.cols:
            raise op_error(op, f"its source {op.source.type} has rows of {src.cols * src.elem_bytes} bytes, padded to "
                               f"{src.ld * src.elem_bytes} in the Unified Buffer; gatherb's byte offsets count the "
                               "tile's row-major bytes, so the source rows must be whole 32-byte blocks")
        assert off.rows == 1 or off.ld == off.cols, "rows of a multiple of 8 u32 offsets are whole blocks"
        d = self.def_tile(op.result, op)
        as_type = IntegerType(32 if src.elem_bytes == 4 else 16, Signedness.UNSIGNED)
        dst, source = self._viewed_as(d.value, as_type), self._viewed_as(s.value, as_type)
        per_repeat = C.GatherbOp.BLOCKS_PER_REPEAT
        repeats = off.rows * off.cols // per_repeat
        t_bytes = as_type.width.data // 8
        for r0 in range(0, repeats, MAX_REPEAT):
            repeat = min(MAX_REPEAT, repeats - r0)
            into = self.at_const(dst, r0 * REPEAT_BYTES // t_bytes)
            offsets = self.at_const(o.value, r0 * per_repeat)
            self.vec(op, C.GatherbOp(into, source, offsets, repeat, (1, REPEAT_BYTES // BLOCK_BYTES)))

    def _viewed_as(self, tensor: SSAValue, elem: Attribute) -> SSAValue:
        """`tensor` as a LocalTensor of `elem` elements (a ReinterpretCast where it holds others)."""
        if tensor.type.element_type == elem:  # type: ignore[attr-defined]
            return tensor
        return self._insert(M.ReinterpretCastOp(tensor, elem)).results[0]

    def _row_expand(self, op: Operation) -> None:
        """[R, C] op [R, 1] on the vector pipe: Brcb the row values into one 32-byte block per
        row (scratch), then level-0 instructions with one repeat per row whose second source
        re-reads that row's block (src1 block stride 0, repeat stride 1 block)."""
        a, r = self.tile_of(op.operands[0]), self.tile_of(op.operands[1])
        lay = a.layout
        fn = ROW_EXPAND[type(op)]
        if fn is C.DivOp or isinstance(op, tile.RowExpandExpdifOp):
            self.require_float(op, f"Ascend C {'Div' if fn is C.DivOp else 'Exp'} exists for half and float only")
        d = self.def_tile(op.results[0], op)
        if lay.cols == 1:
            if fn is None:
                self.vec(op, C.MulsOp(d.value, r.value, self.literal_as(1, d.elem), count=lay.count))
            else:
                self.vec(op, fn(d.value, a.value, r.value, count=lay.count))
            self._expdif(op, d)
            return
        if lay.elem_bytes not in (2, 4):
            raise op_error(op, f"Brcb broadcasts 2- and 4-byte elements only, not the elements of {op.operands[0].type}")
        per_block = BLOCK_BYTES // lay.elem_bytes
        lanes = REPEAT_BYTES // lay.elem_bytes
        rep_stride = lay.ld * lay.elem_bytes // BLOCK_BYTES if lay.rows > 1 else REPEAT_BYTES // BLOCK_BYTES
        if rep_stride > 255:
            raise op_error(op, f"rows of {op.operands[0].type} are longer than 255 blocks of 32 bytes (the repeat stride limit)")
        scratch = self.plan.scratch[op]
        bc_name = self.namer.fresh(f"{d.var}_brcb")
        get = self._insert(M.GetBufOp(bc_name, self.decls[id(scratch)], d.elem))
        get.results[0].name_hint = bc_name
        bc = get.results[0]
        groups = -(-lay.rows // 8)
        for g0 in range(0, groups, _BRCB_REPEATS):
            n = min(_BRCB_REPEATS, groups - g0)
            src = self.at_const(r.value, g0 * 8)
            dst = self.at_const(bc, g0 * 8 * per_block)
            self.vec(op, C.BrcbOp(dst, src, n, [1, 8]))
        params = [1, 1, 0, rep_stride, rep_stride, 1]
        one = self.literal_as(1, d.elem) if fn is None else None
        for r0 in range(0, lay.rows, MAX_REPEAT):
            rows = min(MAX_REPEAT, lay.rows - r0)
            for c0 in range(0, lay.cols, lanes):
                mask = min(lanes, lay.cols - c0)
                off = r0 * lay.ld + c0
                row_block = self.at_const(bc, r0 * per_block)
                if fn is None:
                    self.vec(op, C.MulsOp(self.at_const(d.value, off), row_block, one, mask=mask, repeat=rows,
                                          params=[1, 0, rep_stride, 1]))
                else:
                    self.vec(op, fn(self.at_const(d.value, off), self.at_const(a.value, off), row_block,
                                    mask=mask, repeat=rows, params=params))
        self._expdif(op, d)

    def _col_expand(self, op: Operation) -> None:
        """[R, C] op [1, C]: level-0 instructions with one repeat per row, the [1, C] row read
        again by every repeat (src1 repeat stride 0)."""
        a, v = self.tile_of(op.operands[0]), self.tile_of(op.operands[1])
        lay = a.layout
        fn = COL_EXPAND[type(op)]
        if fn is C.DivOp or isinstance(op, tile.ColExpandExpdifOp):
            self.require_float(op, f"Ascend C {'Div' if fn is C.DivOp else 'Exp'} exists for half and float only")
        d = self.def_tile(op.results[0], op)
        eb = lay.elem_bytes
        if fn is None:
            self._copy_rows(op, d.value, 0, lay.ld, v.value, 0, 0, lay.rows, lay.cols, d.elem, eb, src_rep_zero=True)
            return
        lanes = REPEAT_BYTES // eb
        rep = self.rep_stride(op, lay.ld, eb, lay.rows)
        for r0 in range(0, lay.rows, MAX_REPEAT):
            rows = min(MAX_REPEAT, lay.rows - r0)
            for c0 in range(0, lay.cols, lanes):
                mask = min(lanes, lay.cols - c0)
                off = r0 * lay.ld + c0
                self.vec(op, fn(self.at_const(d.value, off), self.at_const(a.value, off), self.at_const(v.value, c0),
                                mask=mask, repeat=rows, params=[1, 1, 1, rep, rep, 0]))
        self._expdif(op, d)

    def _expdif(self, op: Operation, d) -> None:
        if isinstance(op, _EXPDIF):
            self.vec(op, C.ExpOp(d.value, d.value, count=d.layout.count))

    # ---- advanced-API math

    def _scratch_bytes(self, op: Operation, elem: Attribute) -> SSAValue:
        """The op's planned VECCALC scratch as a LocalTensor of `elem`."""
        tmp = self.plan.scratch[op]
        name = self.namer.fresh(f"{self.plan.tile_var.get(op.results[0], 'math')}_tmp")
        get = self._insert(M.GetBufOp(name, self.decls[id(tmp)], elem))
        get.results[0].name_hint = name
        return get.results[0]

    def _advanced_math(self, op: Operation, fn: type[C.AdvancedMathOp]) -> None:
        """Sin/Cos: the advanced API with the planned scratch as its sharedTmpBuffer."""
        a = self.tile_of(op.operands[0])
        why = fn.element_error(a.elem)
        if why is not None:
            raise op_error(op, f"{why}; {op.name} on {a.elem} tiles is not supported by the Ascend C backend")
        d = self.def_tile(op.results[0], op)
        tmp = self._scratch_bytes(op, IntegerType(8, Signedness.UNSIGNED))
        self.vec(op, fn(d.value, a.value, tmp, d.layout.count))

    # ---- row product

    def _row_prod(self, op: tile.RowProdOp) -> None:
        """[R, C] -> [R, 1] products. The vector unit has no product reduction (WholeReduce is
        max/min/sum): every row's 256-byte column chunks are multiplied into one chunk of a
        ones-filled scratch (level-0 Mul, one repeat per row), the chunk halved by aligned
        level-0 Muls down to one 32-byte block, and the block's elements multiplied on the
        scalar unit (GetValue/SetValue)."""
        a = self.tile_of(op.input)
        lay = a.layout
        why = C.MulOp.element_error(a.elem)
        if why is not None:
            raise op_error(op, f"{why}; {op.name} on {a.elem} tiles is not supported by the Ascend C backend")
        if lay.rows > MAX_REPEAT:
            raise op_error(op, f"{op.input.type} has {lay.rows} rows; row reductions support at most {MAX_REPEAT} rows per tile")
        eb = lay.elem_bytes
        lanes = REPEAT_BYTES // eb
        per_block = BLOCK_BYTES // eb
        chunk = REPEAT_BYTES // BLOCK_BYTES
        src_rep = self.rep_stride(op, lay.ld, eb, lay.rows)
        d = self.def_tile(op.result, op)
        scratch = self._scratch_bytes(op, a.elem)
        self.vec(op, C.DuplicateOp(scratch, self.literal_as(1, a.elem), lay.rows * lanes))
        for start in range(0, lay.cols, lanes):
            mask = min(lanes, lay.cols - start)
            self.vec(op, C.MulOp(scratch, scratch, self.at_const(a.value, start), mask=mask, repeat=lay.rows,
                                 params=[1, 1, 1, chunk, chunk, src_rep]))
        width = lanes
        while width > per_block:
            width //= 2
            self.vec(op, C.MulOp(scratch, scratch, self.at_const(scratch, width), mask=width, repeat=lay.rows,
                                 params=[1, 1, 1, chunk, chunk, chunk]))
        self.scalar_access_begins()

        def row(r: SSAValue) -> None:
            base = self._affine(r, lanes)
            acc = self._insert(X.GetValueOp(self.namer.fresh("prod"), scratch, base)).results[0]
            for k in range(1, per_block):
                nxt = self._insert(X.GetValueOp(self.namer.fresh("elem"), scratch,
                                                self._insert(arith.AddiOp(base, self.index_constant(k))).results[0])).results[0]
                mul = arith.MulfOp(acc, nxt) if is_float_type(a.elem) else arith.MuliOp(acc, nxt)
                acc = self._insert(mul).results[0]
            self._insert(X.SetValueOp(d.value, self._affine(r, d.layout.ld), acc))

        self._scalar_loop(lay.rows, row)
        self.scalar_access_ends()


# The pypto ops `lower_vector` emits (docs/dialect.md's coverage table is checked against it).
VECTOR_OPS = (
    *BINARY, *UNARY, tile.NegOp, tile.TanhOp, *SCALAR, tile.FullOp, tile.ExpandsOp, tile.CastOp, *ROW_REDUCE,
    *ROW_EXPAND, *COL_EXPAND, *COL_REDUCE, tile.ConcatOp, tile.SliceOp, tile.AssembleOp, tile.ReshapeOp, tile.CreateOp,
    *ADVANCED_MATH, tile.RowProdOp, tile.ReadOp, tile.WriteOp, tile.TransposeOp, tile.TransposeViewOp, tile.TriOp,
    tile.CmpOp, tile.CmpsOp, tile.SelOp, tile.SelsOp, tile.GatherbOp,
)
