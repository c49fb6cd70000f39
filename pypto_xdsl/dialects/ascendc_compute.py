"""`ascendc` instructions: the vector unit (level-2 count form and level-0 repeat form),
reductions, Brcb, Cast, Select, Compare(s), Gatherb, the cube (LoadData 2D and 3D v2, LoadDataWithTranspose, Mmad, Fixpipe) and the scalar
expressions (`GetBlockIdx()`, `GetBlockNum()`, unary minus).

Vector instructions write their first operand (destination-passing, as in Ascend C):

    ascendc.add %d, %a, %b count 2048 : !ascendc.local_tensor<f32, VECOUT>, ...
    ascendc.sub %d, %a, %b mask 64 repeat 16 params(1, 1, 0, 16, 16, 1) : ...
    ascendc.muls %d, %a, %s count 2048 : ..., f32

`CXX_NAME` is the Ascend C function each op is.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, Float16Type, Float32Type, IndexType, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.ascendc_format import (
    ENUM,
    INT,
    INTS,
    AscendCFormat,
    check_ints,
    check_positive,
    int_prop,
    ints_prop,
    prop_int,
)
from pypto_xdsl.dialects.ascendc_memory import Expression, ParamsOp, ReinterpretCastOp, UsesReservedUb, _same_element
from pypto_xdsl.dialects.ascendc_types import (
    ENUM_FIELDS,
    CmpMode,
    CmpModeAttr,
    GlobalTensorType,
    LocalTensorType,
    ParamsType,
    ReduceOrder,
    ReduceOrderAttr,
    RoundMode,
    RoundModeAttr,
    SelMode,
    SelModeAttr,
    TPosition,
)

MAX_REPEAT = 255
REPEAT_BYTES = 256
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)

# Element types an instruction exists for on dav-c220 (the devkit's `SupportType<T, ...>`
# checks in impl/basic_api/dav_c220/), in MLIR spelling.
FLOATS = ("f16", "f32")
FLOATS_I32 = ("f16", "f32", "i32")
ARITH = ("f16", "f32", "i16", "i32")
ALL_16_32 = ("f16", "bf16", "f32", "i16", "ui16", "i32", "ui32")
_CXX = {"f16": "half", "bf16": "bfloat16_t", "f32": "float", "i16": "int16_t", "ui16": "uint16_t",
        "i32": "int32_t", "ui32": "uint32_t", "i8": "int8_t", "ui8": "uint8_t", "ui64": "uint64_t"}


def supported_elements_text(elements: tuple[str, ...]) -> str:
    names = [_CXX.get(e, e) for e in elements]
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def _check_ub(op: IRDLOperation, values: list[SSAValue]) -> None:
    for v in values:
        t = v.type
        if not isinstance(t, LocalTensorType) or t.pos not in _UB_POSITIONS:
            raise VerifyException(f"{op.name} operands are Unified Buffer tensors (VECIN/VECOUT/VECCALC), got {t}")


def _check_scalar(op: IRDLOperation, scalar: SSAValue, elem: Attribute) -> None:
    """The scalar of an instruction on T elements is a T (the C++ template deduces T from
    both): a static_cast (ascendc.scalar_cast) converts it otherwise."""
    t = scalar.type
    if isinstance(t, LocalTensorType | GlobalTensorType):
        raise VerifyException(f"the scalar operand of {op.name} is a scalar, got {t}")
    same = t == elem or (isinstance(t, IndexType) and isinstance(elem, IntegerType) and elem.width.data == 64)
    if not same:
        raise VerifyException(
            f"the scalar operand of {op.name} is {t} but the tensors hold {elem} (convert it with ascendc.scalar_cast)"
        )


class VectorOp(AscendCFormat, IRDLOperation):
    """A vector instruction: `count N` (level 2) or `mask M repeat R params(...)` (level 0)."""

    CXX_NAME: ClassVar[str] = ""
    REPEAT_PARAMS: ClassVar[int] = 0  # values of its level-0 repeat-params struct (0: no level-0 form)
    ELEMENTS: ClassVar[tuple[str, ...] | None] = None  # element types it exists for (None: not checked)
    FORMAT_KEYWORDS: ClassVar[tuple] = (
        ("count", "count", INT, None),
        ("mask", "mask", INT, None),
        ("repeat", "repeat", INT, None),
        ("params", "params", INTS, None),
    )

    def _tensor_operands(self) -> list[SSAValue]:
        return [o for o in self.operands if isinstance(o.type, LocalTensorType)]

    @classmethod
    def element_error(cls, elem: Attribute) -> str | None:
        """Why the instruction does not exist for `elem` elements (None: it does)."""
        if cls.ELEMENTS is None or str(elem) in cls.ELEMENTS:
            return None
        return (f"Ascend C {cls.CXX_NAME} exists for {supported_elements_text(cls.ELEMENTS)} elements only "
                f"(dav-c220), not {elem}")

    def _verify_elements(self) -> None:
        t = self.operands[0].type
        if isinstance(t, LocalTensorType):
            why = self.element_error(t.element_type)
            if why is not None:
                raise VerifyException(f"{self.name}: {why}")

    def _verify_form(self) -> None:
        props = self.properties
        level2 = "count" in props
        level0 = any(k in props for k in ("mask", "repeat", "params"))
        if level2 == level0:
            raise VerifyException(f"{self.name} takes either 'count' or 'mask', 'repeat' and 'params'")
        check_positive(self, "count")
        if level0:
            if not all(k in props for k in ("mask", "repeat", "params")) or not self.REPEAT_PARAMS:
                raise VerifyException(f"the level-0 form of {self.name} takes 'mask', 'repeat' and 'params'")
            eb = self.operands[0].type.element_bytes  # type: ignore[attr-defined]
            check_positive(self, "repeat", MAX_REPEAT)
            check_positive(self, "mask", REPEAT_BYTES // eb)
            check_ints(self, "params", self.REPEAT_PARAMS, 255, f"the repeat parameters of {self.name}")

    def verify_(self) -> None:
        tensors = self._tensor_operands()
        _check_ub(self, tensors)
        _same_element(self, tensors)
        self._verify_form()
        self._verify_elements()


def _vector_init(self, operands, count, mask, repeat, params, extra_props=None):
    props: dict[str, Attribute] = dict(extra_props or {})
    if count is not None:
        props["count"] = int_prop(count)
    if mask is not None:
        props["mask"] = int_prop(mask)
        props["repeat"] = int_prop(repeat)
        props["params"] = ints_prop(params)
    IRDLOperation.__init__(self, operands=operands, properties=props)


class BinaryOp(VectorOp):
    dst = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    src1 = operand_def(LocalTensorType)
    count = opt_prop_def(IntegerAttr)
    mask = opt_prop_def(IntegerAttr)
    repeat = opt_prop_def(IntegerAttr)
    params = opt_prop_def()
    REPEAT_PARAMS: ClassVar[int] = 6  # BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride)
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ARITH

    def __init__(self, dst: SSAValue, src0: SSAValue, src1: SSAValue, *, count: int | None = None,
                 mask: int | None = None, repeat: int | None = None, params=None):
        _vector_init(self, [dst, src0, src1], count, mask, repeat, params)


@irdl_op_definition
class AddOp(BinaryOp):
    name = "ascendc.add"
    CXX_NAME: ClassVar[str] = "Add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "ascendc.sub"
    CXX_NAME: ClassVar[str] = "Sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "ascendc.mul"
    CXX_NAME: ClassVar[str] = "Mul"


@irdl_op_definition
class DivOp(BinaryOp):
    name = "ascendc.div"
    CXX_NAME: ClassVar[str] = "Div"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = FLOATS


@irdl_op_definition
class MaxOp(BinaryOp):
    name = "ascendc.max"
    CXX_NAME: ClassVar[str] = "Max"


@irdl_op_definition
class MinOp(BinaryOp):
    name = "ascendc.min"
    CXX_NAME: ClassVar[str] = "Min"


class UnaryOp(VectorOp):
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    count = opt_prop_def(IntegerAttr)
    mask = opt_prop_def(IntegerAttr)
    repeat = opt_prop_def(IntegerAttr)
    params = opt_prop_def()
    REPEAT_PARAMS: ClassVar[int] = 4  # UnaryRepeatParams(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)
    ELEMENTS: ClassVar[tuple[str, ...] | None] = FLOATS

    def __init__(self, dst: SSAValue, src: SSAValue, *, count: int | None = None,
                 mask: int | None = None, repeat: int | None = None, params=None):
        _vector_init(self, [dst, src], count, mask, repeat, params)


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "ascendc.exp"
    CXX_NAME: ClassVar[str] = "Exp"


@irdl_op_definition
class LnOp(UnaryOp):
    name = "ascendc.ln"
    CXX_NAME: ClassVar[str] = "Ln"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "ascendc.sqrt"
    CXX_NAME: ClassVar[str] = "Sqrt"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "ascendc.abs"
    CXX_NAME: ClassVar[str] = "Abs"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "ascendc.relu"
    CXX_NAME: ClassVar[str] = "Relu"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = FLOATS_I32


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "ascendc.reciprocal"
    CXX_NAME: ClassVar[str] = "Reciprocal"


@irdl_op_definition
class RsqrtOp(UnaryOp):
    name = "ascendc.rsqrt"
    CXX_NAME: ClassVar[str] = "Rsqrt"


_SCALAR = IndexType


class ScalarOp(VectorOp):
    """`Adds(dst, src, scalar, ...)`: the scalar is cast to the element type where it differs."""

    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    scalar = operand_def()
    count = opt_prop_def(IntegerAttr)
    mask = opt_prop_def(IntegerAttr)
    repeat = opt_prop_def(IntegerAttr)
    params = opt_prop_def()
    REPEAT_PARAMS: ClassVar[int] = 4  # UnaryRepeatParams
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ARITH

    def __init__(self, dst: SSAValue, src: SSAValue, scalar: SSAValue, *, count: int | None = None,
                 mask: int | None = None, repeat: int | None = None, params=None):
        _vector_init(self, [dst, src, scalar], count, mask, repeat, params)

    def verify_(self) -> None:
        _check_scalar(self, self.scalar, self.dst.type.element_type)  # type: ignore[union-attr]
        super().verify_()


@irdl_op_definition
class AddsOp(ScalarOp):
    name = "ascendc.adds"
    CXX_NAME: ClassVar[str] = "Adds"


@irdl_op_definition
class MulsOp(ScalarOp):
    name = "ascendc.muls"
    CXX_NAME: ClassVar[str] = "Muls"


@irdl_op_definition
class MaxsOp(ScalarOp):
    name = "ascendc.maxs"
    CXX_NAME: ClassVar[str] = "Maxs"


@irdl_op_definition
class MinsOp(ScalarOp):
    name = "ascendc.mins"
    CXX_NAME: ClassVar[str] = "Mins"


@irdl_op_definition
class DuplicateOp(VectorOp):
    """`Duplicate(dst, scalar, count)`, or level 0 with a continuous mask:
    `Duplicate(dst, scalar, mask, repeatTime, dstBlockStride, dstRepeatStride)`
    (`params(dstBlockStride, dstRepeatStride)`).

    Extents known only at run time (the invalid part of a partial tile) are `index` operands
    after the scalar: one is the level-2 count (no `count` property), two are the level-0
    mask and repeat (no `mask`/`repeat` properties)."""

    name = "ascendc.duplicate"
    CXX_NAME: ClassVar[str] = "Duplicate"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ALL_16_32
    REPEAT_PARAMS: ClassVar[int] = 2
    dst = operand_def(LocalTensorType)
    scalar = operand_def()
    extents = var_operand_def(IndexType)
    count = opt_prop_def(IntegerAttr)
    mask = opt_prop_def(IntegerAttr)
    repeat = opt_prop_def(IntegerAttr)
    params = opt_prop_def()
    FORMAT_KEYWORDS: ClassVar[tuple] = (
        ("count", "count", INT, None),
        ("mask", "mask", INT, None),
        ("repeat", "repeat", INT, None),
        ("params", "params", INTS, None),
    )

    def __init__(self, dst: SSAValue, scalar: SSAValue, count: int | SSAValue | None = None, *,
                 mask: SSAValue | None = None, repeat: SSAValue | None = None,
                 params: tuple[int, int] | None = None):
        props: dict[str, Attribute] = {}
        extents: list[SSAValue] = []
        if isinstance(count, int):
            props["count"] = int_prop(count)
        elif count is not None:
            extents.append(count)
        if params is not None:
            assert mask is not None and repeat is not None
            extents += [mask, repeat]
            props["params"] = ints_prop(params)
        IRDLOperation.__init__(self, operands=[dst, scalar, extents], properties=props)

    @property
    def level0(self) -> bool:
        return "params" in self.properties

    def _verify_form(self) -> None:
        props, n = self.properties, len(self.extents)
        if self.level0:
            static = "mask" in props and "repeat" in props
            if "count" in props or not (static and n == 0 or n == 2 and "mask" not in props and "repeat" not in props):
                raise VerifyException(
                    "the level-0 form of ascendc.duplicate takes 'params' and either 'mask' and 'repeat' or "
                    "two run-time operands (mask, repeat)"
                )
            check_ints(self, "params", 2, 255, "the repeat parameters of ascendc.duplicate (dstBlockStride, dstRepeatStride)")
            if static:
                eb = self.dst.type.element_bytes  # type: ignore[attr-defined]
                check_positive(self, "repeat", MAX_REPEAT)
                check_positive(self, "mask", REPEAT_BYTES // eb)
            return
        if ("count" in props) == (n == 1) or n > 1 or any(k in props for k in ("mask", "repeat")):
            raise VerifyException("ascendc.duplicate takes 'count' or one run-time count operand (or the level-0 form)")
        check_positive(self, "count")

    def verify_(self) -> None:
        _check_scalar(self, self.scalar, self.dst.type.element_type)  # type: ignore[union-attr]
        _check_ub(self, [self.dst])
        self._verify_form()
        self._verify_elements()


@irdl_op_definition
class DuplicateBitsOp(VectorOp):
    """Level-0 `Duplicate` with a bit mask built at run time:
    `uint64_t name[2] = {lo, hi}; Duplicate(dst, scalar, name, repeatTime, dstBlockStride, dstRepeatStride);`
    (`params(dstBlockStride, dstRepeatStride)`; lane k of each repeat is written when bit k of
    the 128-bit mask is set). The invalid columns inside a partial tile's last 32-byte block."""

    name = "ascendc.duplicate_bits"
    CXX_NAME: ClassVar[str] = "Duplicate"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ALL_16_32
    FORMAT_NAMED: ClassVar[bool] = True
    FORMAT_KEYWORDS: ClassVar[tuple] = (("params", "params", INTS, None),)
    var = prop_def(StringAttr, prop_name="name")
    dst = operand_def(LocalTensorType)
    scalar = operand_def()
    mask_lo = operand_def(IndexType)
    mask_hi = operand_def(IndexType)
    repeat = operand_def(IndexType)
    params = prop_def(ArrayAttr[IntegerAttr])

    def __init__(self, name: str, dst: SSAValue, scalar: SSAValue, mask_lo: SSAValue, mask_hi: SSAValue,
                 repeat: SSAValue, params: tuple[int, int]):
        IRDLOperation.__init__(self, operands=[dst, scalar, mask_lo, mask_hi, repeat],
                               properties={"name": StringAttr(name), "params": ints_prop(params)})

    def verify_(self) -> None:
        _check_scalar(self, self.scalar, self.dst.type.element_type)  # type: ignore[union-attr]
        _check_ub(self, [self.dst])
        check_ints(self, "params", 2, 255, "the repeat parameters of ascendc.duplicate_bits (dstBlockStride, dstRepeatStride)")
        self._verify_elements()


@irdl_op_definition
class CastOp(VectorOp):
    """`Cast(dst, src, RoundMode::MODE, count)`."""

    name = "ascendc.cast"
    CXX_NAME: ClassVar[str] = "Cast"
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    round = prop_def(RoundModeAttr)
    count = opt_prop_def(IntegerAttr)
    FORMAT_KEYWORDS: ClassVar[tuple] = (("round", "round", ENUM, RoundModeAttr), ("count", "count", INT, None))

    def __init__(self, dst: SSAValue, src: SSAValue, mode: RoundMode, count: int):
        IRDLOperation.__init__(self, operands=[dst, src], properties={"round": RoundModeAttr(mode), "count": int_prop(count)})

    def verify_(self) -> None:
        _check_ub(self, [self.dst, self.src])
        self._verify_form()
        why = self.mode_error(self.src.type.element_type, self.dst.type.element_type, self.round.data)  # type: ignore[union-attr]
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")

    @staticmethod
    def mode_error(src: Attribute, dst: Attribute, mode: RoundMode) -> str | None:
        """Why `Cast` from `src` to `dst` elements with `mode` does not exist on dav-c220 (None: it does)."""
        pair = (str(src), str(dst))
        modes = CAST_MODES.get(pair)
        names = f"{_CXX.get(pair[0], pair[0])} to {_CXX.get(pair[1], pair[1])}"
        if modes is None:
            return f"Ascend C Cast from {names} does not exist (dav-c220)"
        if mode.value not in modes:
            return (f"Ascend C Cast from {names} takes RoundMode {'/'.join(modes)} (dav-c220), not {mode.value}")
        return None


# The (source, destination) element types Cast converts on dav-c220 and the RoundModes each
# takes (the devkit's Cast page, Atlas A2 table; int32 -> half needs SetDeqScale and is left out).
_ROUNDING = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
CAST_MODES: dict[tuple[str, str], tuple[str, ...]] = {
    ("i8", "f16"): ("CAST_NONE",), ("ui8", "f16"): ("CAST_NONE",),
    ("i16", "f16"): (*_ROUNDING, "CAST_NONE"), ("i16", "f32"): ("CAST_NONE",),
    ("f16", "i8"): (*_ROUNDING, "CAST_NONE"), ("f16", "ui8"): (*_ROUNDING, "CAST_NONE"),
    ("f16", "i16"): _ROUNDING, ("f16", "i32"): _ROUNDING, ("f16", "f32"): ("CAST_NONE",),
    ("bf16", "i32"): _ROUNDING, ("bf16", "f32"): ("CAST_NONE",),
    ("i32", "i16"): ("CAST_NONE",), ("i32", "f32"): (*_ROUNDING, "CAST_NONE"), ("i32", "i64"): ("CAST_NONE",),
    ("f32", "i16"): _ROUNDING, ("f32", "f16"): (*_ROUNDING, "CAST_ODD", "CAST_NONE"), ("f32", "bf16"): _ROUNDING,
    ("f32", "i32"): _ROUNDING, ("f32", "f32"): _ROUNDING, ("f32", "i64"): _ROUNDING,
    ("i64", "i32"): ("CAST_NONE",), ("i64", "f32"): _ROUNDING,
}


class WholeReduceOp(VectorOp):
    """`WholeReduceMax/Min/Sum(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride[, order])`:
    one result per repeat."""

    ELEMENTS: ClassVar[tuple[str, ...] | None] = FLOATS

    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    mask = prop_def(IntegerAttr)
    repeat = prop_def(IntegerAttr)
    strides = prop_def()
    FORMAT_KEYWORDS: ClassVar[tuple] = (
        ("mask", "mask", INT, None),
        ("repeat", "repeat", INT, None),
        ("strides", "strides", INTS, None),
    )

    def verify_(self) -> None:
        _check_ub(self, [self.dst, self.src])
        _same_element(self, [self.dst, self.src])
        eb = self.src.type.element_bytes  # type: ignore[union-attr]
        check_positive(self, "repeat", MAX_REPEAT)
        check_positive(self, "mask", REPEAT_BYTES // eb)
        check_ints(self, "strides", 3, 65535, f"the strides (dstRepStride, srcBlkStride, srcRepStride) of {self.name}")
        self._verify_elements()


@irdl_op_definition
class WholeReduceMaxOp(WholeReduceOp):
    name = "ascendc.whole_reduce_max"
    CXX_NAME: ClassVar[str] = "WholeReduceMax"
    order = prop_def(ReduceOrderAttr)
    FORMAT_KEYWORDS: ClassVar[tuple] = WholeReduceOp.FORMAT_KEYWORDS + (("order", "order", ENUM, ReduceOrderAttr),)

    def __init__(self, dst: SSAValue, src: SSAValue, mask: int, repeat: int, strides, order: ReduceOrder):
        IRDLOperation.__init__(self, operands=[dst, src], properties={
            "mask": int_prop(mask), "repeat": int_prop(repeat), "strides": ints_prop(strides),
            "order": ReduceOrderAttr(order),
        })


@irdl_op_definition
class WholeReduceMinOp(WholeReduceOp):
    name = "ascendc.whole_reduce_min"
    CXX_NAME: ClassVar[str] = "WholeReduceMin"
    order = prop_def(ReduceOrderAttr)
    FORMAT_KEYWORDS: ClassVar[tuple] = WholeReduceOp.FORMAT_KEYWORDS + (("order", "order", ENUM, ReduceOrderAttr),)

    def __init__(self, dst: SSAValue, src: SSAValue, mask: int, repeat: int, strides, order: ReduceOrder):
        IRDLOperation.__init__(self, operands=[dst, src], properties={
            "mask": int_prop(mask), "repeat": int_prop(repeat), "strides": ints_prop(strides),
            "order": ReduceOrderAttr(order),
        })


@irdl_op_definition
class WholeReduceSumOp(WholeReduceOp):
    name = "ascendc.whole_reduce_sum"
    CXX_NAME: ClassVar[str] = "WholeReduceSum"

    def __init__(self, dst: SSAValue, src: SSAValue, mask: int, repeat: int, strides):
        IRDLOperation.__init__(self, operands=[dst, src], properties={
            "mask": int_prop(mask), "repeat": int_prop(repeat), "strides": ints_prop(strides),
        })


@irdl_op_definition
class BrcbOp(VectorOp):
    """`Brcb(dst, src, repeatTime, BrcbRepeatParams(dstBlkStride, dstRepStride))`: each of 8
    source elements per repeat fills one 32-byte block of dst."""

    name = "ascendc.brcb"
    CXX_NAME: ClassVar[str] = "Brcb"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ALL_16_32
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    repeat = prop_def(IntegerAttr)
    params = prop_def()
    FORMAT_KEYWORDS: ClassVar[tuple] = (("repeat", "repeat", INT, None), ("params", "params", INTS, None))

    def __init__(self, dst: SSAValue, src: SSAValue, repeat: int, params):
        IRDLOperation.__init__(self, operands=[dst, src], properties={"repeat": int_prop(repeat), "params": ints_prop(params)})

    def verify_(self) -> None:
        _check_ub(self, [self.dst, self.src])
        _same_element(self, [self.dst, self.src])
        if self.src.type.element_bytes not in (2, 4):  # type: ignore[union-attr]
            raise VerifyException("Brcb broadcasts 2- and 4-byte elements")
        check_positive(self, "repeat", MAX_REPEAT)
        check_ints(self, "params", 2, 65535, "BrcbRepeatParams(dstBlkStride, dstRepStride)")
        self._verify_elements()


# Element types of Select, Compare and Compares on dav-c220 (the devkit's pages and the
# `SupportType` / `CheckVcmpv*Dtype` checks of impl/basic_api/dav_c220/kernel_operator_vec_cmp*_impl.h).
SELECT_ELEMENTS = FLOATS
SELECT_MASKS = ("ui8", "ui16", "ui32", "ui64")
COMPARE_ELEMENTS = ("f16", "f32", "i32")  # int32_t with CMPMODE::EQ only
COMPARE_EQ_ONLY = ("i32",)


class _SelectBase(VectorOp):
    """`Select(dst, selMask, src0, src1, SELMODE::MODE, count)`: dst[k] is src0[k] where bit
    `k` of selMask is set, else src1 (a tensor, or the scalar of VSEL_TENSOR_SCALAR_MODE).
    VSEL_TENSOR_TENSOR_MODE and VSEL_TENSOR_SCALAR_MODE read the mask bits in order (bit k
    for element k); VSEL_CMPMASK_SPR reads the first 256 / sizeof(T) bits again for every
    256-byte repeat. Half and float elements, a uint8/16/32/64 mask (dav-c220). On dav-c220
    the modes with a mask tensor use hidden UB scratch above TMP_UB_OFFSET, so a kernel
    using it may plan only 184 KiB of UB."""

    CXX_NAME: ClassVar[str] = "Select"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = SELECT_ELEMENTS
    traits = traits_def(UsesReservedUb())
    FORMAT_KEYWORDS: ClassVar[tuple] = (("mode", "mode", ENUM, SelModeAttr), ("count", "count", INT, None))

    def _tensor_operands(self) -> list[SSAValue]:
        return [v for v in self.operands if isinstance(v.type, LocalTensorType) and v is not self.sel_mask]  # type: ignore[attr-defined]

    def verify_(self) -> None:
        _check_ub(self, [v for v in self.operands if isinstance(v.type, LocalTensorType)])
        _same_element(self, self._tensor_operands())
        check_positive(self, "count")
        mask = self.sel_mask.type.element_type  # type: ignore[attr-defined]
        if str(mask) not in SELECT_MASKS:
            raise VerifyException(f"the selMask of {self.name} is a LocalTensor of {supported_elements_text(SELECT_MASKS)} "
                                  f"elements (dav-c220), not {mask}")
        self._verify_elements()


@irdl_op_definition
class SelectOp(_SelectBase):
    """`Select(dst, selMask, src0, src1, SELMODE::MODE, count)` of two tensors (modes
    VSEL_CMPMASK_SPR and VSEL_TENSOR_TENSOR_MODE); see `_SelectBase`."""

    name = "ascendc.select"
    dst = operand_def(LocalTensorType)
    sel_mask = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    src1 = operand_def(LocalTensorType)
    mode = prop_def(SelModeAttr)
    count = prop_def(IntegerAttr)

    def __init__(self, dst: SSAValue, sel_mask: SSAValue, src0: SSAValue, src1: SSAValue, mode: SelMode, count: int):
        IRDLOperation.__init__(self, operands=[dst, sel_mask, src0, src1],
                               properties={"mode": SelModeAttr(mode), "count": int_prop(count)})

    def verify_(self) -> None:
        if self.mode.data == SelMode.VSEL_TENSOR_SCALAR_MODE:
            raise VerifyException(f"{self.name} selects between two tensors; VSEL_TENSOR_SCALAR_MODE takes a scalar "
                                  "src1 (ascendc.select_scalar)")
        super().verify_()


@irdl_op_definition
class SelectScalarOp(_SelectBase):
    """`Select(dst, selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, count)`: src0
    where the mask bit is set, else the scalar; see `_SelectBase`."""

    name = "ascendc.select_scalar"
    dst = operand_def(LocalTensorType)
    sel_mask = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    scalar = operand_def()
    mode = prop_def(SelModeAttr)
    count = prop_def(IntegerAttr)

    def __init__(self, dst: SSAValue, sel_mask: SSAValue, src0: SSAValue, scalar: SSAValue, count: int):
        IRDLOperation.__init__(self, operands=[dst, sel_mask, src0, scalar], properties={
            "mode": SelModeAttr(SelMode.VSEL_TENSOR_SCALAR_MODE), "count": int_prop(count)})

    def verify_(self) -> None:
        if self.mode.data != SelMode.VSEL_TENSOR_SCALAR_MODE:
            raise VerifyException(f"{self.name} selects between a tensor and a scalar: its mode is "
                                  f"VSEL_TENSOR_SCALAR_MODE, got {self.mode.data.value}")
        _check_scalar(self, self.scalar, self.dst.type.element_type)  # type: ignore[union-attr]
        super().verify_()


class _CompareBase(VectorOp):
    """`Compare(dst, src0, src1, CMPMODE::MODE, count)` / `Compares(dst, src0, scalar, ...)`:
    bit k of the uint8 dst (bit k % 8 of byte k / 8, least significant first) is `src0[k]
    MODE src1[k]` (or the scalar) for the `count` elements; `count` elements span whole
    256-byte repeats (the devkit: the rest of a repeat is not computed), so dst receives
    count / 8 bytes. Half and float elements in every mode, int32 in EQ only (dav-c220).
    The level-0 forms are not modelled: on dav-c220 their mask is a reserved parameter."""

    ELEMENTS: ClassVar[tuple[str, ...] | None] = COMPARE_ELEMENTS
    MASK_ELEMENTS: ClassVar[tuple[str, ...]] = ("ui8", "i8")
    FORMAT_KEYWORDS: ClassVar[tuple] = (("mode", "mode", ENUM, CmpModeAttr), ("count", "count", INT, None))

    def _tensor_operands(self) -> list[SSAValue]:
        return [v for v in self.operands[1:] if isinstance(v.type, LocalTensorType)]

    @classmethod
    def mode_error(cls, elem: Attribute, mode: CmpMode) -> str | None:
        """Why Compare(s) on `elem` elements in `mode` does not exist on dav-c220 (None: it does)."""
        why = cls.element_error(elem)
        if why is not None:
            return why
        if str(elem) in COMPARE_EQ_ONLY and mode != CmpMode.EQ:
            return f"Ascend C {cls.CXX_NAME} compares {_CXX[str(elem)]} elements with CMPMODE::EQ only (dav-c220), not {mode.value}"
        return None

    def verify_(self) -> None:
        tensors = self._tensor_operands()
        _check_ub(self, [self.operands[0], *tensors])
        _same_element(self, tensors)
        check_positive(self, "count")
        dst = self.operands[0].type.element_type  # type: ignore[attr-defined]
        if str(dst) not in self.MASK_ELEMENTS:
            raise VerifyException(f"the dst of {self.name} is a LocalTensor of {supported_elements_text(self.MASK_ELEMENTS)} "
                                  f"(the result bits), not {dst}")
        src = tensors[0].type
        why = self.mode_error(src.element_type, self.mode.data)  # type: ignore[attr-defined]
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")
        count = prop_int(self, "count")
        if count is not None and (count * src.element_bytes) % REPEAT_BYTES:  # type: ignore[attr-defined]
            raise VerifyException(f"{self.name}: count {count} of {src.element_type} elements is "  # type: ignore[attr-defined]
                                  f"{count * src.element_bytes} bytes, not whole 256-byte repeats")  # type: ignore[attr-defined]


@irdl_op_definition
class CompareOp(_CompareBase):
    """`Compare(dst, src0, src1, CMPMODE::MODE, count)`; see `_CompareBase`."""

    name = "ascendc.compare"
    CXX_NAME: ClassVar[str] = "Compare"
    dst = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    src1 = operand_def(LocalTensorType)
    mode = prop_def(CmpModeAttr)
    count = prop_def(IntegerAttr)

    def __init__(self, dst: SSAValue, src0: SSAValue, src1: SSAValue, mode: CmpMode, count: int):
        IRDLOperation.__init__(self, operands=[dst, src0, src1],
                               properties={"mode": CmpModeAttr(mode), "count": int_prop(count)})


@irdl_op_definition
class ComparesOp(_CompareBase):
    """`Compares(dst, src0, scalar, CMPMODE::MODE, count)` (the devkit's CompareScalar); the
    dst is uint8 only; see `_CompareBase`."""

    name = "ascendc.compares"
    CXX_NAME: ClassVar[str] = "Compares"
    MASK_ELEMENTS: ClassVar[tuple[str, ...]] = ("ui8",)
    dst = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    scalar = operand_def()
    mode = prop_def(CmpModeAttr)
    count = prop_def(IntegerAttr)

    def __init__(self, dst: SSAValue, src0: SSAValue, scalar: SSAValue, mode: CmpMode, count: int):
        IRDLOperation.__init__(self, operands=[dst, src0, scalar],
                               properties={"mode": CmpModeAttr(mode), "count": int_prop(count)})

    def verify_(self) -> None:
        _check_scalar(self, self.scalar, self.src0.type.element_type)  # type: ignore[union-attr]
        super().verify_()


class AdvancedMathOp(VectorOp):
    """An advanced-API math function with caller-provided scratch:
    `Sin(dst, src, sharedTmpBuffer, calCount)` (lib `math/sin.h`, `math/cos.h`). The function
    runs several vector instructions over chunks as large as `sharedTmpBuffer` allows, so it
    writes the whole scratch; on dav-c220 it exists for half and float, and neither dst nor the
    scratch may overlap src."""

    ELEMENTS: ClassVar[tuple[str, ...] | None] = FLOATS
    HEADER: ClassVar[str] = ""
    # The devkit's *_CALC_PROCEDURE for half (the larger): 4 float-sized intermediates per element.
    TMP_FLOATS_PER_ELEMENT: ClassVar[int] = 4
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    tmp = operand_def(LocalTensorType)
    count = prop_def(IntegerAttr)
    FORMAT_KEYWORDS: ClassVar[tuple] = (("count", "count", INT, None),)

    def __init__(self, dst: SSAValue, src: SSAValue, tmp: SSAValue, count: int):
        IRDLOperation.__init__(self, operands=[dst, src, tmp], properties={"count": int_prop(count)})

    def _tensor_operands(self) -> list[SSAValue]:
        return [self.dst, self.src]

    @classmethod
    def min_tmp_bytes(cls) -> int:
        """The smallest scratch the function accepts: one 32-element chunk per intermediate."""
        return cls.TMP_FLOATS_PER_ELEMENT * 32 * 4

    def verify_(self) -> None:
        super().verify_()
        _check_ub(self, [self.tmp])
        if str(self.tmp.type.element_type) != "ui8":  # type: ignore[union-attr]
            raise VerifyException(f"the scratch of {self.name} is a LocalTensor<uint8_t>, got {self.tmp.type}")
        if self.dst == self.src or self.tmp in (self.dst, self.src):
            raise VerifyException(f"{self.name}: the devkit's {self.CXX_NAME} does not allow its operands to overlap")


@irdl_op_definition
class SinOp(AdvancedMathOp):
    name = "ascendc.sin"
    CXX_NAME: ClassVar[str] = "Sin"
    HEADER: ClassVar[str] = "math/sin.h"


@irdl_op_definition
class CosOp(AdvancedMathOp):
    name = "ascendc.cos"
    CXX_NAME: ClassVar[str] = "Cos"
    HEADER: ClassVar[str] = "math/cos.h"


@irdl_op_definition
class TransposeOp(VectorOp):
    """`Transpose(dst, src)` (basic API, `kernel_operator_vec_transpose_intf.h`): the 16 x 16
    block of 2-byte elements at `src` (256 contiguous elements, 512 bytes) transposed into the
    one at `dst`; int16/uint16/half on dav-c220."""

    name = "ascendc.transpose"
    CXX_NAME: ClassVar[str] = "Transpose"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ("f16", "i16", "ui16")
    BLOCK: ClassVar[int] = 16  # rows and columns of the block
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    FORMAT_KEYWORDS: ClassVar[tuple] = ()

    def __init__(self, dst: SSAValue, src: SSAValue):
        IRDLOperation.__init__(self, operands=[dst, src])

    def verify_(self) -> None:
        _check_ub(self, [self.dst, self.src])
        _same_element(self, [self.dst, self.src])
        self._verify_elements()
        if self.dst == self.src:
            raise VerifyException(f"{self.name}: dst and src are two different 16 x 16 blocks (an out-of-place transpose)")


@irdl_op_definition
class GatherbOp(VectorOp):
    """`Gatherb(dst, src, offset, repeatTime, GatherRepeatParams(dstBlkStride, dstRepStride))`
    (basic API, `kernel_operator_vec_gather_intf.h`): 32-byte blocks (DataBlocks) of `src` by
    byte offset. Repeat r reads the 8 uint32 offsets `offset[8 r .. 8 r + 7]`; block j of it is
    the 32 bytes of `src` from byte `offset[8 r + j]` (counted from `src`'s start), written at
    block `r * dstRepStride + j * dstBlkStride` of `dst` (a dstBlkStride of 0 counts as 1).
    Every offset is a multiple of 32 bytes (the block's UB address stays 32-byte aligned) and
    the block lies in the Unified Buffer; `dst` and `src` are different memory. On dav-c220 it
    exists for uint16_t and uint32_t (`T` of dst and src); data of other types is passed as
    `ascendc.reinterpret_cast` views (the same bytes)."""

    name = "ascendc.gatherb"
    CXX_NAME: ClassVar[str] = "Gatherb"
    ELEMENTS: ClassVar[tuple[str, ...] | None] = ("ui16", "ui32")
    BLOCKS_PER_REPEAT: ClassVar[int] = 8
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    offset = operand_def(LocalTensorType)
    repeat = prop_def(IntegerAttr)
    params = prop_def()
    FORMAT_KEYWORDS: ClassVar[tuple] = (("repeat", "repeat", INT, None), ("params", "params", INTS, None))

    def __init__(self, dst: SSAValue, src: SSAValue, offset: SSAValue, repeat: int, params: tuple[int, int] = (1, 8)):
        IRDLOperation.__init__(self, operands=[dst, src, offset],
                               properties={"repeat": int_prop(repeat), "params": ints_prop(params)})

    def verify_(self) -> None:
        _check_ub(self, [self.dst, self.src, self.offset])
        _same_element(self, [self.dst, self.src])
        if str(self.offset.type.element_type) != "ui32":  # type: ignore[union-attr]
            raise VerifyException(
                f"the offset operand of {self.name} is a LocalTensor<uint32_t> of byte offsets, got {self.offset.type}"
            )
        check_positive(self, "repeat", MAX_REPEAT)
        check_ints(self, "params", 2, 255, "GatherRepeatParams(dstBlkStride, dstRepStride)")
        self._verify_elements()
        if _viewed(self.dst) is _viewed(self.src):
            raise VerifyException(f"{self.name}: dst and src are different memory (Gatherb does not work in place)")


def _viewed(value: SSAValue) -> SSAValue:
    """The tensor `value` is a reinterpret_cast view of (itself if none)."""
    while isinstance(value.owner, ReinterpretCastOp):
        value = value.owner.source
    return value


VECTOR_OPS = [
    AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, ExpOp, LnOp, SqrtOp, AbsOp, ReluOp, ReciprocalOp, RsqrtOp,
    AddsOp, MulsOp, MaxsOp, MinsOp, DuplicateOp, DuplicateBitsOp, CastOp, WholeReduceMaxOp, WholeReduceMinOp, WholeReduceSumOp,
    BrcbOp, SelectOp, SelectScalarOp, CompareOp, ComparesOp, SinOp, CosOp, TransposeOp, GatherbOp,
]


# --------------------------------------------------------------------------- cube


def _check_struct(op: IRDLOperation, value: SSAValue, struct: str) -> None:
    t = value.type
    if not isinstance(t, ParamsType) or t.struct.data != struct:
        raise VerifyException(f"{op.name} takes {struct}, got {t}")


def _check_position(op: IRDLOperation, value: SSAValue, positions: tuple[TPosition, ...], what: str) -> None:
    t = value.type
    if not isinstance(t, LocalTensorType) or t.pos not in positions:
        raise VerifyException(f"the {what} of {op.name} is a {'/'.join(p.value for p in positions)} tensor, got {t}")


def _param_field(value: SSAValue, key: str) -> int | bool | None:
    """A field of the parameter struct `value`, where its `ascendc.params` is visible."""
    from pypto_xdsl.dialects.ascendc_memory import ParamsOp

    owner = value.owner
    if isinstance(owner, ParamsOp):
        return dict(owner.field_items()).get(key)
    return None


class L1ToL0LoadOp(AscendCFormat, IRDLOperation):
    """An MTE1 load from L1 (A1/B1) into L0A/L0B (A2/B2), fractal by fractal."""

    CXX_NAME: ClassVar[str]
    PARAMS: ClassVar[str]
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    params = operand_def(ParamsType)

    def __init__(self, dst: SSAValue, src: SSAValue, params: SSAValue):
        super().__init__(operands=[dst, src, params])

    def verify_(self) -> None:
        _check_position(self, self.dst, (TPosition.A2, TPosition.B2), "destination")
        _check_position(self, self.src, (TPosition.A1, TPosition.B1), "source")
        _check_struct(self, self.params, self.PARAMS)
        _same_element(self, [self.dst, self.src])


@irdl_op_definition
class LoadDataOp(L1ToL0LoadOp):
    """`LoadData(dst, src, LoadData2DParams)`: L1 (A1/B1) -> L0A/L0B (A2/B2), one 512-byte
    fractal per repeat; `ifTranspose` transposes 16 x 16 fractals of 2-byte types."""

    name = "ascendc.load_data"
    CXX_NAME: ClassVar[str] = "LoadData"
    PARAMS: ClassVar[str] = "LoadData2DParams"

    def verify_(self) -> None:
        super().verify_()
        if _param_field(self.params, "ifTranspose") and self.src.type.element_bytes != 2:  # type: ignore[union-attr]
            raise VerifyException(
                f"LoadData with ifTranspose transposes 16 x 16 fractals of 2-byte types, not "
                f"{self.src.type.element_type} (use ascendc.load_data_with_transpose)"  # type: ignore[union-attr]
            )


@irdl_op_definition
class LoadDataWithTransposeOp(L1ToL0LoadOp):
    """`LoadDataWithTranspose(dst, src, LoadData2dTransposeParams)`: L1 -> L0A/L0B, transposing;
    for 4-byte types each repeat merges two consecutive 16 x 8 fractals into a 16 x 16 square
    and splits its transpose into two 16 x 8 fractals `dstFracGap` x 512 bytes apart."""

    name = "ascendc.load_data_with_transpose"
    CXX_NAME: ClassVar[str] = "LoadDataWithTranspose"
    PARAMS: ClassVar[str] = "LoadData2dTransposeParams"
    ELEMENTS: ClassVar[tuple[str, ...]] = ("f32", "i32", "ui32", "f16", "bf16", "i8", "ui8")

    def verify_(self) -> None:
        super().verify_()
        elem = self.src.type.element_type  # type: ignore[union-attr]
        if str(elem) not in self.ELEMENTS:
            raise VerifyException(
                f"Ascend C LoadDataWithTranspose exists for {supported_elements_text(self.ELEMENTS)} "
                f"elements only (dav-c220), not {elem}"
            )


@irdl_op_definition
class LoadData3DV2Op(L1ToL0LoadOp):
    """`LoadData(dst, src, LoadData3DParamsV2<T>)`: L1 -> L0A/L0B in one instruction, the
    img2col load ("LoadData（卷积数据搬运）" v2). The L1 source is a feature map in NC1HWC0
    (`channelSize` channels in blocks of C0 = 32 bytes, `l1H` x `l1W` positions); the
    instruction moves the `mExtension` positions from `mStartPt` by the `kExtension` channels
    from `kStartPt` of its image-to-column matrix. With a 1 x 1 filter, unit strides and
    `l1H = 1`, an NZ tile of L1 (rows x columns: `l1W` = rows, `channelSize` = columns) is
    such a feature map: the load writes the L0A fractals of a [mExtension, kExtension] window
    (row blocks of 16 x C0 fractals), or, into L0B, whose load always transposes, the L0B
    fractals of the [K, N] operand whose rows are the positions (the devkit's LoadData_3D
    page, "使用LoadData（卷积数据搬运）完成矩阵计算所需2D格式数据的搬运")."""

    name = "ascendc.load_data_3d_v2"
    CXX_NAME: ClassVar[str] = "LoadData"
    PARAMS: ClassVar[str] = "LoadData3DParamsV2"
    # dav-c220 (LoadData_3D page, 数据类型; int4b_t is not a dialect element type)
    ELEMENTS_L0A: ClassVar[tuple[str, ...]] = ("f16", "bf16", "f32", "i32", "ui32", "i8", "ui8")
    ELEMENTS_L0B: ClassVar[tuple[str, ...]] = ("f16", "bf16", "f32", "i32", "ui32")
    MAX_L1_EXTENT: ClassVar[int] = 32767

    def verify_(self) -> None:
        super().verify_()
        elem = self.src.type.element_type  # type: ignore[union-attr]
        to_l0b = self.dst.type.pos == TPosition.B2  # type: ignore[union-attr]
        allowed = self.ELEMENTS_L0B if to_l0b else self.ELEMENTS_L0A
        if str(elem) not in allowed:
            raise VerifyException(
                f"Ascend C LoadData with LoadData3DParamsV2 into {'L0B' if to_l0b else 'L0A'} exists for "
                f"{supported_elements_text(allowed)} elements only (dav-c220), not {elem}"
            )
        template = self.params.type.element_type  # type: ignore[union-attr]
        if template != elem:
            raise VerifyException(f"{self.name} moves {elem} elements: its parameters are "
                                  f"LoadData3DParamsV2<{elem}>, got LoadData3DParamsV2<{template}>")
        c0 = 32 // self.src.type.element_bytes  # type: ignore[union-attr]
        for key, unit in (("kExtension", c0), ("kStartPt", c0), ("mExtension", 16 if c0 >= 16 else 1)):
            value = _param_field(self.params, key)
            if isinstance(value, int) and value % unit:
                raise VerifyException(f"{self.name}: {key} of {elem} elements is a multiple of {unit}, got {value}")
        for key in ("l1H", "l1W", "mStartPt"):
            value = _param_field(self.params, key)
            if isinstance(value, int) and value > self.MAX_L1_EXTENT:
                raise VerifyException(f"{self.name}: {key} is at most {self.MAX_L1_EXTENT}, got {value}")
        if _param_field(self.params, "enTranspose") and not to_l0b and self.src.type.element_bytes == 1:  # type: ignore[union-attr]
            raise VerifyException(f"{self.name}: enTranspose into L0A exists for 2- and 4-byte elements, not {elem}")


# dav-c220 Mmad: (left/right element, L0C element)
MMAD_TYPES: tuple[tuple[str, str], ...] = (("f16", "f32"), ("bf16", "f32"), ("f32", "f32"), ("i8", "i32"))


@irdl_op_definition
class MmadOp(AscendCFormat, IRDLOperation):
    """`Mmad(dst, fm, filter, MmadParams)`: L0A x L0B -> L0C; `Mmad(dst, fm, filter, bias,
    MmadParams)` with a bias-table (`C2`) row: the product starts from the row broadcast over
    M (the 5-argument form sets `cmatrixSource` from the bias tensor's position)."""

    name = "ascendc.mmad"
    CXX_NAME: ClassVar[str] = "Mmad"
    dst = operand_def(LocalTensorType)
    fm = operand_def(LocalTensorType)
    filter = operand_def(LocalTensorType)
    bias = opt_operand_def(LocalTensorType)
    params = operand_def(ParamsType)

    def __init__(self, dst: SSAValue, fm: SSAValue, filter: SSAValue, params: SSAValue, bias: SSAValue | None = None):
        super().__init__(operands=[dst, fm, filter, [bias] if bias is not None else [], params])

    def verify_(self) -> None:
        _check_position(self, self.dst, (TPosition.CO1,), "destination")
        _check_position(self, self.fm, (TPosition.A2,), "left operand")
        _check_position(self, self.filter, (TPosition.B2,), "right operand")
        if self.bias is not None:
            _check_position(self, self.bias, (TPosition.C2,), "bias")
            if str(self.bias.type.element_type) != str(self.dst.type.element_type):  # type: ignore[union-attr]
                raise VerifyException(
                    f"the bias row of Mmad has the destination's element type {self.dst.type.element_type}, "  # type: ignore[union-attr]
                    f"got {self.bias.type}"
                )
        _check_struct(self, self.params, "MmadParams")
        a, b, c = (str(v.type.element_type) for v in (self.fm, self.filter, self.dst))  # type: ignore[union-attr]
        if a != b or (a, c) not in MMAD_TYPES:
            allowed = ", ".join(f"{x} x {x} -> {y}" for x, y in MMAD_TYPES)
            raise VerifyException(f"Ascend C Mmad on dav-c220 takes {allowed}, not {a} x {b} -> {c}")


@irdl_op_definition
class FixpipeOp(AscendCFormat, IRDLOperation):
    """`Fixpipe(dst, src, FixpipeParamsV220)`: L0C -> GM."""

    name = "ascendc.fixpipe"
    CXX_NAME: ClassVar[str] = "Fixpipe"
    dst = operand_def(GlobalTensorType)
    src = operand_def(LocalTensorType)
    params = operand_def(ParamsType)

    def __init__(self, dst: SSAValue, src: SSAValue, params: SSAValue):
        super().__init__(operands=[dst, src, params])

    def verify_(self) -> None:
        _check_position(self, self.src, (TPosition.CO1,), "source")
        _check_struct(self, self.params, "FixpipeParamsV220")
        if not isinstance(struct := self.params.owner, ParamsOp):
            return
        quant = ENUM_FIELDS["quantPre"][1][int(dict(struct.field_items()).get("quantPre", 0))]
        src, dst = self.src.type.element_type, self.dst.type.element_type  # type: ignore[attr-defined]
        want = (src, src) if quant == "NoQuant" else (Float32Type(), Float16Type())
        if (src, dst) != want:
            raise VerifyException(f"{self.name}: quantPre {quant} moves {want[0]} from L0C to {want[1]} in GM, "
                                  f"got {src} to {dst}")


CUBE_OPS = [LoadDataOp, LoadDataWithTransposeOp, LoadData3DV2Op, MmadOp, FixpipeOp]


# --------------------------------------------------------------------------- scalar expressions


@irdl_op_definition
class GetBlockIdxOp(AscendCFormat, IRDLOperation):
    """`AscendC::GetBlockIdx()`; with `task_ratio 2` (the AIV member of a
    KERNEL_TYPE_MIX_AIC_1_2 kernel, where GetBlockIdx() counts vector cores, two per block)
    the block: `AscendC::GetBlockIdx() / AscendC::GetTaskRatio()`."""

    name = "ascendc.get_block_idx"
    task_ratio = opt_prop_def(IntegerAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure(), Expression())
    FORMAT_KEYWORDS: ClassVar[tuple] = (("task_ratio", "task_ratio", INT, None),)

    @classmethod
    def result_type(cls, operand_types, props):
        return IndexType()

    def __init__(self, task_ratio: int | None = None):
        props = {"task_ratio": int_prop(task_ratio)} if task_ratio is not None else {}
        super().__init__(result_types=[IndexType()], properties=props)

    def verify_(self) -> None:
        check_task_ratio(self)


def check_task_ratio(op: Operation) -> None:
    """`task_ratio`, where set, is 1 or 2 (the vector cores per cube core of a MIX kernel)."""
    ratio = prop_int(op, "task_ratio")
    if ratio is not None and ratio not in (1, 2):
        raise VerifyException(f"'task_ratio' is the AIVs per AIC of a MIX kernel, 1 or 2; got {ratio}")


@irdl_op_definition
class GetSubBlockIdxOp(AscendCFormat, IRDLOperation):
    """`AscendC::GetSubBlockIdx()`: which vector core of its core group runs (0 or 1 in a
    KERNEL_TYPE_MIX_AIC_1_2 kernel's AIV member)."""

    name = "ascendc.get_sub_block_idx"
    result = result_def(IndexType)
    traits = traits_def(Pure(), Expression())

    @classmethod
    def result_type(cls, operand_types, props):
        return IndexType()

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class GetBlockNumOp(AscendCFormat, IRDLOperation):
    """`AscendC::GetBlockNum()`"""

    name = "ascendc.get_block_num"
    result = result_def(IndexType)
    traits = traits_def(Pure(), Expression())

    @classmethod
    def result_type(cls, operand_types, props):
        return IndexType()

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class UnaryMinusOp(AscendCFormat, IRDLOperation):
    """`-x`: a C++ negation, printed where it is used (a negated scalar operand)."""

    name = "ascendc.unary_minus"
    input = operand_def()
    result = result_def()
    traits = traits_def(Pure(), Expression())

    @classmethod
    def result_type(cls, operand_types, props):
        return operand_types[0] if operand_types else None

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[value.type])

    def verify_(self) -> None:
        if self.result.type != self.input.type:
            raise VerifyException(f"{self.name} keeps its operand's type {self.input.type}, got {self.result.type}")


@irdl_op_definition
class ScalarCastOp(AscendCFormat, IRDLOperation):
    """`static_cast<T>(x)`: a scalar converted to another C++ type, printed where it is used."""

    name = "ascendc.scalar_cast"
    input = operand_def()
    result = result_def()
    traits = traits_def(Pure(), Expression())

    def __init__(self, value: SSAValue, to: Attribute):
        super().__init__(operands=[value], result_types=[to])

    def verify_(self) -> None:
        for t in (self.input.type, self.result.type):
            if isinstance(t, LocalTensorType | GlobalTensorType):
                raise VerifyException(f"{self.name} converts scalars, not {t}")


EXPRESSION_OPS = [GetBlockIdxOp, GetBlockNumOp, GetSubBlockIdxOp, UnaryMinusOp, ScalarCastOp]

__all__ = ["prop_int"]
