"""`pypto.cross_core.*`: how the cube core (AIC) and the vector cores (AIV) of a core group
talk to each other, and the `group` functions that launch the two as one task.

A mixed kernel is an `aic` function and an `aiv` function that run at the same time and
exchange tiles through two bounded **slot rings**, one per direction (*pipe*):

* `c2v`: the AIC pushes (`pypto.cross_core.push %acc to aiv`), the AIV pops
  (`pypto.cross_core.pop from aic`) — a matmul result reaching the vector epilogue;
* `v2c`: the AIV pushes, the AIC pops into L1 (`mat`) — a vector result feeding the cube.

Each ring holds `slots` tiles (PyPTO's `slot_num`, `pl.cross_core_slot`; default 2): a push
waits while the ring is full, a pop while it is empty, and tiles come out in the order they
went in. A slot holds the largest tile pushed through the pipe (`ring_slot_bytes`).
Data that crosses through global memory instead (a tensor one side stores and the other
loads) is ordered by **flags**: `pypto.cross_core.set_flag to aiv` after the cube's write,
`pypto.cross_core.wait_flag from aic` before the vector's read (Ascend C's
`CrossCoreSetFlag` / `CrossCoreWaitFlag`, a counting event per direction).

A `pypto.func group @k(...)` holds the launch: the workspaces both members share
(`pypto.tensor.create`), one `pypto.call` of its `aic` member and one of its `aiv` member with
the same arguments, and the `pypto.return` of the group's results. The calls of a group do
not run one after the other: they start together, as the two halves of one mixed task.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    TileType,
    element_byte_width,
    format_shape,
)
from pypto_xdsl.dialects.verification import pypto_op_definition

if TYPE_CHECKING:
    from pypto_xdsl.dialects.program import FuncOp

DEFAULT_SLOTS = 2
"""Ring depth when the scope does not set one (PyPTO's default `slot_num`)."""

CUBE_SPACES = frozenset(
    {MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC, MemorySpace.BIAS}
)
"""Buffers of the cube core; `vec` (UB) is the vector cores'."""


class Pipe(StrEnum):
    C2V = "c2v"
    V2C = "v2c"
    V2V = "v2v"
    """Flags among the AIVs of one core group (CrossCoreSetFlag's mode 1), no ring."""

    @property
    def producer(self) -> FuncKind:
        return FuncKind.AIC if self is Pipe.C2V else FuncKind.AIV

    @property
    def consumer(self) -> FuncKind:
        return FuncKind.AIC if self is Pipe.V2C else FuncKind.AIV


RING_PIPES = (Pipe.C2V, Pipe.V2C)
"""The directions a slot ring can have (a `v2v` flag has no ring)."""


@irdl_attr_definition
class PipeAttr(EnumAttribute[Pipe], SpacedOpaqueSyntaxAttribute):
    """`#pypto<pipe c2v>`: the direction of a cross-core ring or flag."""

    name = "pypto.pipe"


_PEER = {FuncKind.AIC: "aic", FuncKind.AIV: "aiv"}


def _pipe_to(peer: str) -> Pipe:
    """`to aiv` / `from aic` name the pipe from one end."""
    return Pipe.C2V if peer == "aiv" else Pipe.V2C


def _pipe_from(peer: str) -> Pipe:
    return Pipe.C2V if peer == "aic" else Pipe.V2C


def _flag_direction(pipe: Pipe, ring_end: str) -> str:
    """`to aiv` / `from aic` (as `ring_end` is "to" or "from"), or `among aiv` for a flag
    among the AIVs."""
    if pipe is Pipe.V2V:
        return "among aiv"
    return f"to {_PEER[pipe.consumer]}" if ring_end == "to" else f"from {_PEER[pipe.producer]}"


def _parse_flag_direction(parser: Parser, ring_end: str) -> Pipe:
    if parser.parse_optional_keyword("among") is not None:
        parser.parse_keyword("aiv")
        return Pipe.V2V
    peer = _parse_peer(parser, ring_end)
    return _pipe_to(peer) if ring_end == "to" else _pipe_from(peer)


def enclosing_func(op: Operation) -> FuncOp | None:
    from pypto_xdsl.dialects.program import FuncOp

    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _check_placement(op: Operation, side: FuncKind, what: str) -> None:
    """`op` runs on core `side`: it may sit in a function of that kind, or in an `incore`
    function not split yet (expand-mixed-kernel moves it to the right member)."""
    func = enclosing_func(op)
    if func is None:
        raise VerifyException(f"{what} must be inside a pypto.func")
    kind = func.func_kind
    if kind not in (side, FuncKind.INCORE):
        raise VerifyException(
            f"{what} runs on the {'cube' if side is FuncKind.AIC else 'vector'} core ({side.value}), "
            f"so it cannot be in {kind.value} function @{func.sym_name.data}"
        )


def _check_slots(slots: IntegerAttr, pipe: Pipe) -> None:
    if pipe not in RING_PIPES:
        raise VerifyException(f"a ring runs between the cube and a vector core (c2v or v2c), not {pipe.value}")
    if slots.value.data < 1:
        raise VerifyException(f"a ring needs at least one slot, got slots({slots.value.data})")


def _check_transfer_tile(t: TileType, pipe: Pipe, role: str) -> None:
    if not t.is_static():
        raise VerifyException(
            f"{role} tile {t} has dynamic shape {format_shape(t.get_shape())}: a slot of the "
            "ring has a fixed size, so tiles crossing cores need static shapes"
        )
    if role == "pushed":
        ok = t.space in (MemorySpace.ACC, MemorySpace.MAT) if pipe is Pipe.C2V else t.space == MemorySpace.VEC
        want = "an 'acc' or 'mat' tile of the cube core" if pipe is Pipe.C2V else "a 'vec' tile of the vector core"
    else:
        ok = t.space == (MemorySpace.VEC if pipe is Pipe.C2V else MemorySpace.MAT)
        want = (
            "a 'vec' tile (the vector core's UB)" if pipe is Pipe.C2V
            else "a 'mat' tile (the cube core's L1; move it to left/right afterwards)"
        )
    if not ok:
        raise VerifyException(f"the {role} tile of the {pipe.value} pipe must be {want}, got {t}")


def _parse_peer(parser: Parser, keyword: str) -> str:
    parser.parse_keyword(keyword)
    peer = parser.parse_optional_keyword_in(("aic", "aiv"))
    if peer is None:
        parser.raise_error("expected 'aic' or 'aiv'")
    return peer


def _parse_slots(parser: Parser) -> IntegerAttr:
    parser.parse_keyword("slots")
    with parser.in_parens():
        n = parser.parse_integer(allow_boolean=False, allow_negative=False)
    return IntegerAttr(n, 64)


class TransferOp(IRDLOperation):
    """Shared parts of `push` and `pop`: the pipe and the ring's slot count."""

    pipe = prop_def(PipeAttr)
    slots = prop_def(IntegerAttr[I64])

    @property
    def pipe_kind(self) -> Pipe:
        return self.pipe.data

    @property
    def slot_count(self) -> int:
        return self.slots.value.data


@pypto_op_definition
class PushOp(TransferOp):
    """`pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>`.

    Puts a copy of `%t` into the next slot of the ring towards the peer core, waiting while
    all `slots` slots hold tiles the peer has not popped yet.
    """

    name = "pypto.cross_core.push"
    tile = operand_def(TileType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, tile: SSAValue | Operation, pipe: Pipe, slots: int = DEFAULT_SLOTS):
        super().__init__(
            operands=[tile],
            properties={"pipe": PipeAttr(pipe), "slots": IntegerAttr(slots, 64)},
        )

    def verify_(self) -> None:
        _check_slots(self.slots, self.pipe_kind)
        t = self.tile.type
        assert isinstance(t, TileType)
        _check_transfer_tile(t, self.pipe_kind, "pushed")
        _check_placement(self, self.pipe_kind.producer, f"push to {_PEER[self.pipe_kind.consumer]}")

    @classmethod
    def parse(cls, parser: Parser) -> PushOp:
        unresolved = parser.parse_unresolved_operand()
        pipe = _pipe_to(_parse_peer(parser, "to"))
        slots = _parse_slots(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(unresolved, t), pipe, slots.value.data)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tile)
        printer.print_string(f" to {_PEER[self.pipe_kind.consumer]} slots({self.slot_count})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)


@pypto_op_definition
class PopOp(TransferOp):
    """`%v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>`.

    Takes the oldest tile out of the ring from the peer core, waiting while it is empty.
    The tile lands in the consumer's buffer (`vec` on the AIV, `mat` on the AIC); its shape
    and element type are those the matching push sent.
    """

    name = "pypto.cross_core.pop"
    result = result_def(TileType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, result_type: TileType, pipe: Pipe, slots: int = DEFAULT_SLOTS):
        super().__init__(
            result_types=[result_type],
            properties={"pipe": PipeAttr(pipe), "slots": IntegerAttr(slots, 64)},
        )

    def verify_(self) -> None:
        _check_slots(self.slots, self.pipe_kind)
        t = self.result.type
        assert isinstance(t, TileType)
        _check_transfer_tile(t, self.pipe_kind, "popped")
        _check_placement(self, self.pipe_kind.consumer, f"pop from {_PEER[self.pipe_kind.producer]}")

    @classmethod
    def parse(cls, parser: Parser) -> PopOp:
        pipe = _pipe_from(_parse_peer(parser, "from"))
        slots = _parse_slots(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, TileType):
            parser.raise_error(f"pypto.cross_core.pop produces a tile, got {t}")
        op = cls(t, pipe, slots.value.data)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" from {_PEER[self.pipe_kind.producer]} slots({self.slot_count})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


MAX_FLAG_ID = 15
"""A core has 16 cross-core flag ids (CrossCoreSetFlag's `flagId`, 0-15)."""


class FlagOp(IRDLOperation):
    """Shared parts of `set_flag` and `wait_flag`: the direction and the flag id. Each
    (direction, id) is its own counter; without `id(N)` the flag is id 0.

    `among aiv` (pipe `v2v`) is a flag among the AIVs of one core group, CrossCoreSetFlag's
    mode 1: every AIV sets it and every AIV waits for it, and a wait returns once every AIV
    of the core group has set the flag once more (a barrier of the vector cores; a split
    vector member exchanges partial results through it)."""

    pipe = prop_def(PipeAttr)
    flag_id = opt_prop_def(IntegerAttr[I64], prop_name="id")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pipe: Pipe, flag_id: int | None = None):
        properties: dict[str, Attribute] = {"pipe": PipeAttr(pipe)}
        if flag_id is not None:
            properties["id"] = IntegerAttr(flag_id, 64)
        super().__init__(properties=properties)

    @property
    def pipe_kind(self) -> Pipe:
        return self.pipe.data

    @property
    def id_value(self) -> int:
        return 0 if self.flag_id is None else self.flag_id.value.data

    def _verify_id(self) -> None:
        if not 0 <= self.id_value <= MAX_FLAG_ID:
            raise VerifyException(f"flag id {self.id_value} is out of range: a core has flag ids 0-{MAX_FLAG_ID}")

    def _id_suffix(self) -> str:
        return "" if self.flag_id is None else f" id({self.id_value})"

    @staticmethod
    def _parse_id(parser: Parser) -> int | None:
        if parser.parse_optional_keyword("id") is None:
            return None
        with parser.in_parens():
            return parser.parse_integer(allow_boolean=False, allow_negative=False)


@pypto_op_definition
class SetFlagOp(FlagOp):
    """`pypto.cross_core.set_flag to aiv`: tell the peer core that every global-memory access
    this core made before the flag is done (`CrossCoreSetFlag`)."""

    name = "pypto.cross_core.set_flag"

    def verify_(self) -> None:
        self._verify_id()
        _check_placement(self, self.pipe_kind.producer, f"set_flag {_flag_direction(self.pipe_kind, 'to')}")

    @classmethod
    def parse(cls, parser: Parser) -> SetFlagOp:
        pipe = _parse_flag_direction(parser, "to")
        op = cls(pipe, cls._parse_id(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {_flag_direction(self.pipe_kind, 'to')}{self._id_suffix()}")
        printer.print_op_attributes(self.attributes)


@pypto_op_definition
class WaitFlagOp(FlagOp):
    """`pypto.cross_core.wait_flag from aic`: wait until the peer has set the flag once more
    than this core has waited for it (`CrossCoreWaitFlag`), consuming that setting."""

    name = "pypto.cross_core.wait_flag"

    def verify_(self) -> None:
        self._verify_id()
        _check_placement(self, self.pipe_kind.consumer, f"wait_flag {_flag_direction(self.pipe_kind, 'from')}")

    @classmethod
    def parse(cls, parser: Parser) -> WaitFlagOp:
        pipe = _parse_flag_direction(parser, "from")
        op = cls(pipe, cls._parse_id(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {_flag_direction(self.pipe_kind, 'from')}{self._id_suffix()}")
        printer.print_op_attributes(self.attributes)


CROSS_CORE_OPS = [PushOp, PopOp, SetFlagOp, WaitFlagOp]
CROSS_CORE_ATTRIBUTES = [PipeAttr]

TRANSFER_TYPES = (PushOp, PopOp)
CROSS_CORE_TYPES = (PushOp, PopOp, SetFlagOp, WaitFlagOp)


def cross_core_ops(func: Operation) -> Iterator[Operation]:
    for op in func.walk():
        if isinstance(op, CROSS_CORE_TYPES):
            yield op


def tile_bytes(t: TileType) -> int:
    n = 1
    for d in t.get_shape():
        assert isinstance(d, int)
        n *= d
    return n * element_byte_width(t.element_type)


def transfer_type(op: PushOp | PopOp) -> TileType:
    t = op.tile.type if isinstance(op, PushOp) else op.result.type
    assert isinstance(t, TileType)
    return t


# --------------------------------------------------------------------------- groups


TASK_RATIO_ATTR = "task_ratio"
"""Attribute of a `group` function: the vector cores its `aiv` member runs on, 1 (the
default: one AIV, the member computes whole tiles) or 2 (the member is split over both AIVs
of the core group, each telling itself apart by `pypto.tile.get_subblock_idx`;
KERNEL_TYPE_MIX_AIC_1_2). The AIC member runs once either way."""


def group_task_ratio(group: FuncOp) -> int | str:
    """The group's task ratio (TASK_RATIO_ATTR), or what is wrong with the attribute."""
    attr = group.attributes.get(TASK_RATIO_ATTR)
    if attr is None:
        return 1
    if not isinstance(attr, IntegerAttr) or attr.value.data not in (1, 2):
        return f"'{TASK_RATIO_ATTR}' is the AIVs per AIC of a group, 1 or 2; got {attr}"
    return attr.value.data


def group_members(group: FuncOp) -> tuple[FuncOp | None, FuncOp | None]:
    """The `aic` and `aiv` functions a group launches (None where a call is missing)."""
    from pypto_xdsl.analysis.symbols import lookup_symbol
    from pypto_xdsl.dialects.program import CallOp, FuncOp

    aic = aiv = None
    for op in group.body.block.ops:
        if isinstance(op, CallOp):
            callee = lookup_symbol(op, op.callee.string_value())
            if isinstance(callee, FuncOp):
                if callee.func_kind == FuncKind.AIC and aic is None:
                    aic = callee
                elif callee.func_kind == FuncKind.AIV and aiv is None:
                    aiv = callee
    return aic, aiv


def ring_slot_bytes(group: FuncOp) -> dict[Pipe, int]:
    """Bytes of one slot of each pipe the group uses: its largest pushed tile."""
    sizes: dict[Pipe, int] = {}
    for member in group_members(group):
        if member is None:
            continue
        for op in member.walk():
            if isinstance(op, PushOp):
                t = transfer_type(op)
                sizes[op.pipe_kind] = max(sizes.get(op.pipe_kind, 0), tile_bytes(t))
    return sizes


def verify_group(group: FuncOp) -> None:
    """The body of a `group` function: workspaces, the two member calls, the return."""
    from pypto_xdsl.analysis.symbols import lookup_symbol
    from pypto_xdsl.dialects import tensor
    from pypto_xdsl.dialects.program import BLOCK_DIM_ATTR, CallOp, FuncOp, ReturnOp

    name = group.sym_name.data
    ratio = group_task_ratio(group)
    if isinstance(ratio, str):
        raise VerifyException(f"group @{name}: {ratio}")
    calls: list[CallOp] = []
    for op in group.body.block.ops:
        if isinstance(op, CallOp):
            calls.append(op)
        elif not isinstance(op, tensor.CreateOp | ReturnOp):
            raise VerifyException(
                f"group @{name} may only create workspaces (pypto.tensor.create), call its aic "
                f"and aiv members and return, but it holds '{op.name}'"
            )
    kinds = []
    for call in calls:
        callee = lookup_symbol(call, call.callee.string_value())
        kinds.append(callee.func_kind if isinstance(callee, FuncOp) else None)
        if BLOCK_DIM_ATTR in call.attributes:
            raise VerifyException(
                f"the member calls of group @{name} cannot carry '{BLOCK_DIM_ATTR}': the group "
                "is launched as one task (put the block count on the group or its launch)"
            )
    if kinds != [FuncKind.AIC, FuncKind.AIV]:
        got = ", ".join(k.value if k else "?" for k in kinds) or "none"
        raise VerifyException(
            f"group @{name} must call one aic function and then one aiv function, its members; "
            f"it calls: {got}"
        )
    aic_call, aiv_call = calls
    if tuple(aic_call.args) != tuple(aiv_call.args):
        raise VerifyException(
            f"the members of group @{name} must take the same arguments (one argument list "
            f"for the mixed task), but @{aic_call.callee.string_value()} and "
            f"@{aiv_call.callee.string_value()} are called with different ones"
        )
    if aic_call.res:
        raise VerifyException(
            f"the aic member @{aic_call.callee.string_value()} of group @{name} returns values; "
            "a group's results come from its aiv member (tensors are written through)"
        )
    slots: dict[Pipe, tuple[int, str]] = {}
    for call in calls:
        member = lookup_symbol(call, call.callee.string_value())
        assert isinstance(member, FuncOp)
        for op in member.walk():
            if isinstance(op, TRANSFER_TYPES):
                seen = slots.setdefault(op.pipe_kind, (op.slot_count, member.sym_name.data))
                if seen[0] != op.slot_count:
                    raise VerifyException(
                        f"the {op.pipe_kind.value} ring of group @{name} has slots({seen[0]}) in "
                        f"@{seen[1]} but slots({op.slot_count}) in @{member.sym_name.data}"
                    )


__all__ = [
    "CROSS_CORE_ATTRIBUTES",
    "CROSS_CORE_OPS",
    "CUBE_SPACES",
    "DEFAULT_SLOTS",
    "MAX_FLAG_ID",
    "FlagOp",
    "Pipe",
    "PipeAttr",
    "PopOp",
    "PushOp",
    "RING_PIPES",
    "SetFlagOp",
    "TransferOp",
    "WaitFlagOp",
    "group_members",
    "ring_slot_bytes",
    "verify_group",
]
