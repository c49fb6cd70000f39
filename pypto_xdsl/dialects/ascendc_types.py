"""Types and enum attributes of the `ascendc` dialect: the Ascend C objects a kernel names.

| IR | Ascend C |
|---|---|
| `!ascendc.gm_addr` | `GM_ADDR` (a kernel parameter, a workspace address) |
| `!ascendc.gm_tensor<f32>` | `GlobalTensor<float>` |
| `!ascendc.local_tensor<f32, VECIN>` | `LocalTensor<float>` in a buffer of that `TPosition` |
| `!ascendc.queue<VECIN, 2>` | `TQue<TPosition::VECIN, 2>` |
| `!ascendc.buffer<VECCALC>` | `TBuf<TPosition::VECCALC>` |
| `!ascendc.pipe` | `TPipe` |
| `!ascendc.event<MTE3_MTE2>` | a `TEventID` for `HardEvent::MTE3_MTE2` |
| `!ascendc.struct<Nd2NzParams>` | a parameter struct variable (`Nd2NzParams`, `MmadParams`, ...) |
| `!ascendc.struct<LoadData3DParamsV2, f16>` | `LoadData3DParamsV2<half>`: a struct templated on the element type |

The enums mirror the devkit's (`impl/basic_api/kernel_event.h` for HardEvent, `pipe_t` for
pipes, `TPosition`, `RoundMode`, `ReduceOrder`, `SELMODE`), spelled as in C++.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pypto_xdsl.dialects.attributes import element_byte_width

# --------------------------------------------------------------------------- enums


class TPosition(StrEnum):
    GM = "GM"
    A1 = "A1"
    A2 = "A2"
    B1 = "B1"
    B2 = "B2"
    C1 = "C1"
    C2 = "C2"
    CO1 = "CO1"
    CO2 = "CO2"
    VECIN = "VECIN"
    VECOUT = "VECOUT"
    VECCALC = "VECCALC"


class Memory(StrEnum):
    """The physical memory behind a TPosition on dav-c220 (Atlas A2/A3)."""

    UB = "UB"
    L1 = "L1"
    L0A = "L0A"
    L0B = "L0B"
    L0C = "L0C"
    BT = "BT"  # bias table (C2)


POSITION_MEMORY: dict[TPosition, Memory] = {
    TPosition.VECIN: Memory.UB,
    TPosition.VECOUT: Memory.UB,
    TPosition.VECCALC: Memory.UB,
    TPosition.A1: Memory.L1,
    TPosition.B1: Memory.L1,
    TPosition.C1: Memory.L1,
    TPosition.A2: Memory.L0A,
    TPosition.B2: Memory.L0B,
    TPosition.CO1: Memory.L0C,
    TPosition.C2: Memory.BT,
}

# Bytes per memory on dav-c220, as the devkit's TPipe pools them (ConstDefiner::bufferInitLen,
# impl/basic_api/utils/kernel_utils_mode_cpu.h).
MEMORY_BYTES: dict[Memory, int] = {
    Memory.UB: 192 * 1024,
    Memory.L1: 512 * 1024,
    Memory.L0A: 64 * 1024,
    Memory.L0B: 64 * 1024,
    Memory.L0C: 128 * 1024,
    Memory.BT: 1024,
}

# On dav-c220 a few APIs (those declared with __ASC_USE_RESERVED_UBUF__(2201, ...): Select)
# use hidden scratch at TMP_UB_OFFSET = 184 KiB (impl/basic_api/utils/kernel_utils_constants.h):
# a kernel using one may plan only the UB below it.
TMP_UB_OFFSET = 184 * 1024


class HardEvent(StrEnum):
    """`HardEvent` (src_dst): which pipe sets the flag and which one waits."""

    MTE2_MTE1 = "MTE2_MTE1"
    MTE1_MTE2 = "MTE1_MTE2"
    MTE1_M = "MTE1_M"
    M_MTE1 = "M_MTE1"
    MTE2_V = "MTE2_V"
    V_MTE2 = "V_MTE2"
    MTE3_V = "MTE3_V"
    V_MTE3 = "V_MTE3"
    M_V = "M_V"
    V_M = "V_M"
    V_V = "V_V"
    MTE3_MTE1 = "MTE3_MTE1"
    MTE1_MTE3 = "MTE1_MTE3"
    MTE1_V = "MTE1_V"
    MTE2_M = "MTE2_M"
    M_MTE2 = "M_MTE2"
    V_MTE1 = "V_MTE1"
    M_FIX = "M_FIX"
    FIX_M = "FIX_M"
    MTE3_MTE2 = "MTE3_MTE2"
    MTE2_MTE3 = "MTE2_MTE3"
    S_V = "S_V"
    V_S = "V_S"
    S_MTE2 = "S_MTE2"
    MTE2_S = "MTE2_S"
    S_MTE3 = "S_MTE3"
    MTE3_S = "MTE3_S"
    MTE2_FIX = "MTE2_FIX"
    FIX_MTE2 = "FIX_MTE2"
    FIX_S = "FIX_S"
    M_S = "M_S"
    FIX_MTE3 = "FIX_MTE3"
    MTE1_FIX = "MTE1_FIX"
    FIX_MTE1 = "FIX_MTE1"
    FIX_FIX = "FIX_FIX"

    @property
    def source(self) -> Pipe:
        return Pipe("PIPE_" + self.value.split("_")[0])

    @property
    def target(self) -> Pipe:
        return Pipe("PIPE_" + self.value.split("_")[1])


class Pipe(StrEnum):
    """`pipe_t`: the instruction queues of an AI Core."""

    PIPE_S = "PIPE_S"
    PIPE_V = "PIPE_V"
    PIPE_M = "PIPE_M"
    PIPE_MTE1 = "PIPE_MTE1"
    PIPE_MTE2 = "PIPE_MTE2"
    PIPE_MTE3 = "PIPE_MTE3"
    PIPE_FIX = "PIPE_FIX"
    PIPE_ALL = "PIPE_ALL"


class KernelKind(StrEnum):
    """Which cores run the kernel: `vector` (AIV), `cube` (AIC, KERNEL_TYPE_AIC_ONLY), `mix`."""

    VECTOR = "vector"
    CUBE = "cube"
    MIX = "mix"


class RoundMode(StrEnum):
    CAST_NONE = "CAST_NONE"
    CAST_RINT = "CAST_RINT"
    CAST_FLOOR = "CAST_FLOOR"
    CAST_CEIL = "CAST_CEIL"
    CAST_ROUND = "CAST_ROUND"
    CAST_TRUNC = "CAST_TRUNC"
    CAST_ODD = "CAST_ODD"


class ReduceOrder(StrEnum):
    ORDER_VALUE_INDEX = "ORDER_VALUE_INDEX"
    ORDER_INDEX_VALUE = "ORDER_INDEX_VALUE"
    ORDER_ONLY_VALUE = "ORDER_ONLY_VALUE"
    ORDER_ONLY_INDEX = "ORDER_ONLY_INDEX"


class SelMode(StrEnum):
    VSEL_CMPMASK_SPR = "VSEL_CMPMASK_SPR"
    VSEL_TENSOR_SCALAR_MODE = "VSEL_TENSOR_SCALAR_MODE"
    VSEL_TENSOR_TENSOR_MODE = "VSEL_TENSOR_TENSOR_MODE"


class CmpMode(StrEnum):
    """Ascend C's `CMPMODE` (Compare / Compares): src0 LT / GT / EQ / LE / GE / NE src1."""

    LT = "LT"
    GT = "GT"
    EQ = "EQ"
    LE = "LE"
    GE = "GE"
    NE = "NE"


@irdl_attr_definition
class TPositionAttr(EnumAttribute[TPosition], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<position VECIN>`"""

    name = "ascendc.position"


@irdl_attr_definition
class HardEventAttr(EnumAttribute[HardEvent], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<hard_event MTE3_MTE2>`"""

    name = "ascendc.hard_event"


@irdl_attr_definition
class PipeAttr(EnumAttribute[Pipe], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<pipe_kind PIPE_V>`"""

    name = "ascendc.pipe_kind"


@irdl_attr_definition
class KernelKindAttr(EnumAttribute[KernelKind], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<kind vector>`"""

    name = "ascendc.kind"


@irdl_attr_definition
class RoundModeAttr(EnumAttribute[RoundMode], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<round CAST_NONE>`"""

    name = "ascendc.round"


@irdl_attr_definition
class ReduceOrderAttr(EnumAttribute[ReduceOrder], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<order ORDER_ONLY_VALUE>`"""

    name = "ascendc.order"


@irdl_attr_definition
class SelModeAttr(EnumAttribute[SelMode], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<selmode VSEL_TENSOR_TENSOR_MODE>`"""

    name = "ascendc.selmode"


@irdl_attr_definition
class CmpModeAttr(EnumAttribute[CmpMode], SpacedOpaqueSyntaxAttribute):
    """`#ascendc<cmpmode LT>`"""

    name = "ascendc.cmpmode"


# --------------------------------------------------------------------------- types

ELEMENT_TYPES: tuple[Attribute, ...] = (
    Float32Type(),
    Float16Type(),
    BFloat16Type(),
    IntegerType(8),
    IntegerType(16),
    IntegerType(32),
    IntegerType(64),
)


def _check_element(t: Attribute, what: str) -> None:
    if t not in ELEMENT_TYPES and not (isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64)):
        raise VerifyException(f"{what} has element type {t}; expected f32, f16, bf16 or an 8/16/32/64-bit integer")


def _parse_enum_keyword(parser: AttrParser, enum: type[StrEnum], what: str) -> StrEnum:
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in enum.__members__.values():
        parser.raise_error(f"expected {what} ({', '.join(enum.__members__.values())})", pos, parser.pos)
    return enum(word)


@irdl_attr_definition
class GmAddrType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.gm_addr`: `GM_ADDR`, a byte address in global memory."""

    name = "ascendc.gm_addr"


@irdl_attr_definition
class PipeType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.pipe`: the kernel's `TPipe`."""

    name = "ascendc.pipe"


@irdl_attr_definition
class GlobalTensorType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.gm_tensor<f32>`: `GlobalTensor<float>`."""

    name = "ascendc.gm_tensor"
    element_type: Attribute

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)

    def verify(self) -> None:
        _check_element(self.element_type, "!ascendc.gm_tensor")

    @property
    def element_bytes(self) -> int:
        return element_byte_width(self.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class LocalTensorType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.local_tensor<f32, VECIN>`: `LocalTensor<float>` in a buffer of that position."""

    name = "ascendc.local_tensor"
    element_type: Attribute
    position: TPositionAttr

    def __init__(self, element_type: Attribute, position: TPosition | TPositionAttr):
        if isinstance(position, TPosition):
            position = TPositionAttr(position)
        super().__init__(element_type, position)

    def verify(self) -> None:
        _check_element(self.element_type, "!ascendc.local_tensor")

    @property
    def pos(self) -> TPosition:
        return self.position.data

    @property
    def element_bytes(self) -> int:
        return element_byte_width(self.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            element = parser.parse_type()
            parser.parse_punctuation(",")
            pos = _parse_enum_keyword(parser, TPosition, "a TPosition")
        return (element, TPositionAttr(pos))  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(f", {self.pos.value}")


@irdl_attr_definition
class QueueType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.queue<VECIN, 2>`: `TQue<TPosition::VECIN, 2>`."""

    name = "ascendc.queue"
    position: TPositionAttr
    depth: IntAttr

    def __init__(self, position: TPosition | TPositionAttr, depth: int | IntAttr):
        if isinstance(position, TPosition):
            position = TPositionAttr(position)
        if isinstance(depth, int):
            depth = IntAttr(depth)
        super().__init__(position, depth)

    @property
    def pos(self) -> TPosition:
        return self.position.data

    def verify(self) -> None:
        if self.depth.data < 1:
            raise VerifyException(f"a TQue has depth at least 1, got {self.depth.data}")
        if self.pos in (TPosition.GM, TPosition.CO2):
            raise VerifyException(f"a TQue cannot be at position {self.pos.value} (global memory)")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = _parse_enum_keyword(parser, TPosition, "a TPosition")
            parser.parse_punctuation(",")
            depth = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (TPositionAttr(pos), IntAttr(depth))  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pos.value}, {self.depth.data}>")


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.buffer<VECCALC>`: `TBuf<TPosition::VECCALC>`."""

    name = "ascendc.buffer"
    position: TPositionAttr

    def __init__(self, position: TPosition | TPositionAttr):
        if isinstance(position, TPosition):
            position = TPositionAttr(position)
        super().__init__(position)

    @property
    def pos(self) -> TPosition:
        return self.position.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = _parse_enum_keyword(parser, TPosition, "a TPosition")
        return (TPositionAttr(pos),)  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pos.value}>")


@irdl_attr_definition
class EventType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.event<MTE3_MTE2>`: a `TEventID` taken for one HardEvent."""

    name = "ascendc.event"
    event: HardEventAttr

    def __init__(self, event: HardEvent | HardEventAttr):
        if isinstance(event, HardEvent):
            event = HardEventAttr(event)
        super().__init__(event)

    @property
    def hard_event(self) -> HardEvent:
        return self.event.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            event = _parse_enum_keyword(parser, HardEvent, "a HardEvent")
        return (HardEventAttr(event),)  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.hard_event.value}>")


# Parameter structs declared as variables, with their fields in the order they are assigned.
PARAM_STRUCTS: dict[str, tuple[str, ...]] = {
    "Nd2NzParams": (
        "ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcDValue", "dstNzC0Stride", "dstNzNStride",
        "dstNzMatrixStride",
    ),
    "LoadData2DParams": ("startIndex", "repeatTimes", "srcStride", "sid", "dstGap", "ifTranspose", "addrMode"),
    "LoadData2dTransposeParams": ("startIndex", "repeatTimes", "srcStride", "dstGap", "dstFracGap", "addrMode"),
    # `padList` (an array) and `padValue` (of the element type) are left at their defaults
    "LoadData3DParamsV2": (
        "l1H", "l1W", "channelSize", "kExtension", "mExtension", "kStartPt", "mStartPt", "strideW", "strideH",
        "filterW", "filterH", "dilationFilterW", "dilationFilterH", "enTranspose", "enSmallK", "filterSizeW",
        "filterSizeH", "fMatrixCtrl",
    ),
    "MmadParams": ("m", "n", "k", "unitFlag", "cmatrixSource", "cmatrixInitVal"),
    "FixpipeParamsV220": (
        "nSize", "mSize", "srcStride", "dstStride", "quantPre", "reluEn", "ndNum", "srcNdStride", "dstNdStride",
    ),
}
BOOL_FIELDS = frozenset({
    "ifTranspose", "cmatrixSource", "cmatrixInitVal", "reluEn", "enTranspose", "enSmallK", "filterSizeW",
    "filterSizeH", "fMatrixCtrl",
})
TEMPLATED_STRUCTS = frozenset({"LoadData3DParamsV2"})
"""Structs whose C++ type takes the element type of the tensors it describes (`LoadData3DParamsV2<half>`)."""
ENUM_FIELDS: dict[str, tuple[str, tuple[str, ...]]] = {
    # the leading members of the real enum (Fixpipe page: NoQuant, F322F16, F322BF16, ...), in
    # its order; a field holds the member's index and prints as `QuantMode_t::F322F16`
    "quantPre": ("QuantMode_t", ("NoQuant", "F322F16")),
}
"""Fields of an enum type: their static value is the member's index."""


@irdl_attr_definition
class ParamsType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.struct<MmadParams>`: a parameter struct variable; `!ascendc.struct<
    LoadData3DParamsV2, f16>` one whose C++ type is templated on the element type
    (`TEMPLATED_STRUCTS`: `LoadData3DParamsV2<half>`)."""

    name = "ascendc.struct"
    struct: StringAttr
    element: Attribute  # NoneAttr for a struct that is not a template

    def __init__(self, struct: str | StringAttr, element: Attribute | None = None):
        if isinstance(struct, str):
            struct = StringAttr(struct)
        super().__init__(struct, NoneAttr() if element is None else element)

    @property
    def element_type(self) -> Attribute | None:
        return None if isinstance(self.element, NoneAttr) else self.element

    def verify(self) -> None:
        name = self.struct.data
        if name not in PARAM_STRUCTS:
            raise VerifyException(
                f"unknown parameter struct '{name}'; expected one of {', '.join(PARAM_STRUCTS)}"
            )
        if name in TEMPLATED_STRUCTS and self.element_type is None:
            raise VerifyException(f"{name} is a template on the element type: !ascendc.struct<{name}, f16>")
        if name not in TEMPLATED_STRUCTS and self.element_type is not None:
            raise VerifyException(f"{name} is not a template: !ascendc.struct<{name}> takes no element type")
        if self.element_type is not None:
            _check_element(self.element_type, "!ascendc.struct")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            name = parser.parse_identifier()
            element = parser.parse_type() if parser.parse_optional_punctuation(",") else NoneAttr()
        return (StringAttr(name), element)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.struct.data}")
        if self.element_type is not None:
            printer.print_string(", ")
            printer.print_attribute(self.element_type)
        printer.print_string(">")


TYPES = [GmAddrType, PipeType, GlobalTensorType, LocalTensorType, QueueType, BufferType, EventType, ParamsType]
ENUM_ATTRIBUTES = [
    TPositionAttr, HardEventAttr, PipeAttr, KernelKindAttr, RoundModeAttr, ReduceOrderAttr, SelModeAttr,
    CmpModeAttr,
]
