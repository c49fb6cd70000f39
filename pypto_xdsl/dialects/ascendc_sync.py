"""`ascendc` synchronisation inside a core: event ids, flags and barriers.

    %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe    // TEventID e = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
    %e = ascendc.alloc_event_id "e" MTE3_MTE2 %pipe    // TEventID e = pipe.AllocEventID<HardEvent::MTE3_MTE2>();
    ascendc.set_flag MTE3_MTE2 %e                      // SetFlag<HardEvent::MTE3_MTE2>(e);
    ascendc.wait_flag MTE3_MTE2 %e                     // WaitFlag<HardEvent::MTE3_MTE2>(e);
    ascendc.release_event_id MTE3_MTE2 %pipe, %e       // pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(e);
    ascendc.pipe_barrier PIPE_V                        // PipeBarrier<PIPE_V>();
    ascendc.cross_core_set_flag PIPE_FIX mode 2 id 0   // CrossCoreSetFlag<2, PIPE_FIX>(0);
    ascendc.cross_core_wait_flag PIPE_S mode 2 id 0    // CrossCoreWaitFlag<2, PIPE_S>(0);

Cross-core flags (include/basic_api/kernel_operator_block_sync_intf.h) order work between
the cube and vector cores of a MIX kernel: mode 2 pairs the AIC with the AIV(s) of its core
group; each core has 16 flag ids, each a counter 0-15. A set is issued on the pipe of the
work it publishes (the pipe's earlier instructions complete first), never on PIPE_S.

Event ids come from the TPipe, as the devkit's SetFlag/WaitFlag documentation asks: the
queues take theirs from the same pool, so a hard-coded EVENT_ID0 can collide with one in use.
`FetchEventID` lends an id without reserving it (for a SetFlag immediately waited on);
`AllocEventID` reserves one until `ReleaseEventID` (for a pair with other work in between).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.ascendc_format import INT, AscendCFormat, int_prop
from pypto_xdsl.dialects.ascendc_types import (
    EventType,
    HardEvent,
    HardEventAttr,
    Pipe,
    PipeAttr,
    PipeType,
)


def _check_event(op: Operation, event: HardEventAttr, value: SSAValue) -> None:
    t = value.type
    if not isinstance(t, EventType) or t.hard_event != event.data:
        raise VerifyException(
            f"{op.name} {event.data.value} takes an event id of !ascendc.event<{event.data.value}>, got {t}"
        )


class _EventIdOp(AscendCFormat, IRDLOperation):
    FORMAT_NAMED: ClassVar[bool] = True
    FORMAT_ENUMS: ClassVar[tuple] = (("event", HardEventAttr),)

    @classmethod
    def result_type(cls, operand_types, props):
        event = props.get("event")
        return EventType(event) if isinstance(event, HardEventAttr) else None  # type: ignore[arg-type]

    def __init__(self, name: str, event: HardEvent, pipe: SSAValue):
        IRDLOperation.__init__(self, operands=[pipe], properties={"name": StringAttr(name), "event": HardEventAttr(event)},
                               result_types=[EventType(event)])

    def verify_(self) -> None:
        if self.result.type.hard_event != self.event.data:  # type: ignore[attr-defined]
            raise VerifyException(
                f"{self.name}: the event id's type names the op's HardEvent {self.event.data.value}, got {self.result.type}"
            )


@irdl_op_definition
class FetchEventIdOp(_EventIdOp):
    """`TEventID name = pipe.FetchEventID<HardEvent::E>();`: an id free now, not reserved."""

    name = "ascendc.fetch_event_id"
    var = prop_def(StringAttr, prop_name="name")
    event = prop_def(HardEventAttr)
    pipe = operand_def(PipeType)
    result = result_def(EventType)


@irdl_op_definition
class AllocEventIdOp(_EventIdOp):
    """`TEventID name = pipe.AllocEventID<HardEvent::E>();`: reserved until released."""

    name = "ascendc.alloc_event_id"
    var = prop_def(StringAttr, prop_name="name")
    event = prop_def(HardEventAttr)
    pipe = operand_def(PipeType)
    result = result_def(EventType)

    def verify_(self) -> None:
        super().verify_()
        block = self.parent_block()
        if block is None:
            return
        if not any(isinstance(u.operation, ReleaseEventIdOp) for u in self.result.uses):
            raise VerifyException("an event id from AllocEventID is released (ReleaseEventID) once its flags are done")


@irdl_op_definition
class ReleaseEventIdOp(AscendCFormat, IRDLOperation):
    """`pipe.ReleaseEventID<HardEvent::E>(id);`"""

    name = "ascendc.release_event_id"
    event = prop_def(HardEventAttr)
    pipe = operand_def(PipeType)
    id = operand_def(EventType)
    FORMAT_ENUMS: ClassVar[tuple] = (("event", HardEventAttr),)

    def __init__(self, event: HardEvent, pipe: SSAValue, id: SSAValue):
        super().__init__(operands=[pipe, id], properties={"event": HardEventAttr(event)})

    def verify_(self) -> None:
        _check_event(self, self.event, self.id)
        if not isinstance(self.id.owner, AllocEventIdOp):
            raise VerifyException(f"{self.name}: ReleaseEventID releases an id taken with AllocEventID")


class _FlagOp(AscendCFormat, IRDLOperation):
    FORMAT_ENUMS: ClassVar[tuple] = (("event", HardEventAttr),)

    def __init__(self, event: HardEvent, id: SSAValue):
        IRDLOperation.__init__(self, operands=[id], properties={"event": HardEventAttr(event)})

    @property
    def hard_event(self) -> HardEvent:
        return self.event.data  # type: ignore[attr-defined]


def _later_in_block(op: Operation, cls: type, id: SSAValue) -> bool:
    block: Block | None = op.parent_block()
    if block is None:
        return True
    seen = False
    for other in block.ops:
        if other is op:
            seen = True
        elif seen and isinstance(other, cls) and other.operands[0] is id:
            return True
    return False


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """`SetFlag<HardEvent::E>(id);`: the source pipe sets the flag once its earlier work is done."""

    name = "ascendc.set_flag"
    event = prop_def(HardEventAttr)
    id = operand_def(EventType)

    def verify_(self) -> None:
        _check_event(self, self.event, self.id)
        if not _later_in_block(self, WaitFlagOp, self.id):
            raise VerifyException(
                f"SetFlag<{self.event.data.value}> needs a WaitFlag on the same event id later in its block"
            )


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """`WaitFlag<HardEvent::E>(id);`: the target pipe waits for the flag."""

    name = "ascendc.wait_flag"
    event = prop_def(HardEventAttr)
    id = operand_def(EventType)

    def verify_(self) -> None:
        _check_event(self, self.event, self.id)


@irdl_op_definition
class PipeBarrierOp(AscendCFormat, IRDLOperation):
    """`PipeBarrier<PIPE_X>();`: later instructions of pipe X wait for its earlier ones."""

    name = "ascendc.pipe_barrier"
    pipe = prop_def(PipeAttr)
    FORMAT_ENUMS: ClassVar[tuple] = (("pipe", PipeAttr),)

    def __init__(self, pipe: Pipe = Pipe.PIPE_V):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    @property
    def pipe_kind(self) -> Pipe:
        return self.pipe.data


CROSS_CORE_MODES = (0, 1, 2)
"""CrossCoreSetFlag's modeId: 0 all cores of the launch, 1 the AIVs of a group, 2 the AIC and
the AIV(s) of one core group."""
MAX_CROSS_CORE_FLAG_ID = 15


class _CrossCoreFlagOp(AscendCFormat, IRDLOperation):
    pipe = prop_def(PipeAttr)
    mode = prop_def(IntegerAttr)
    flag_id = prop_def(IntegerAttr, prop_name="id")
    FORMAT_ENUMS: ClassVar[tuple] = (("pipe", PipeAttr),)
    FORMAT_KEYWORDS: ClassVar[tuple] = (("mode", "mode", INT, None), ("id", "id", INT, None))

    def __init__(self, pipe: Pipe, flag_id: int, mode: int = 2):
        IRDLOperation.__init__(self, properties={"pipe": PipeAttr(pipe), "mode": int_prop(mode), "id": int_prop(flag_id)})

    @property
    def pipe_kind(self) -> Pipe:
        return self.pipe.data

    @property
    def id_value(self) -> int:
        return self.flag_id.value.data

    @property
    def mode_value(self) -> int:
        return self.mode.value.data

    def verify_(self) -> None:
        if self.mode_value not in CROSS_CORE_MODES:
            raise VerifyException(f"{self.name}: modeId is 0, 1 or 2, got {self.mode_value}")
        if not 0 <= self.id_value <= MAX_CROSS_CORE_FLAG_ID:
            raise VerifyException(f"{self.name}: flag id {self.id_value} is out of range 0-{MAX_CROSS_CORE_FLAG_ID}")


@irdl_op_definition
class CrossCoreSetFlagOp(_CrossCoreFlagOp):
    """`CrossCoreSetFlag<mode, PIPE_X>(id);`: once pipe X's earlier work is done, add one to
    flag `id` of the peer core(s) the mode names."""

    name = "ascendc.cross_core_set_flag"

    def verify_(self) -> None:
        super().verify_()
        if self.pipe_kind is Pipe.PIPE_S:
            raise VerifyException(
                "CrossCoreSetFlag is issued on the pipe of the work it publishes (PIPE_FIX, PIPE_MTE2, "
                "PIPE_MTE3, ...), not PIPE_S"
            )


@irdl_op_definition
class CrossCoreWaitFlagOp(_CrossCoreFlagOp):
    """`CrossCoreWaitFlag<mode, PIPE_X>(id);`: block until flag `id` is non-zero, take one."""

    name = "ascendc.cross_core_wait_flag"


SYNC_OPS = [FetchEventIdOp, AllocEventIdOp, ReleaseEventIdOp, SetFlagOp, WaitFlagOp, PipeBarrierOp,
            CrossCoreSetFlagOp, CrossCoreWaitFlagOp]
