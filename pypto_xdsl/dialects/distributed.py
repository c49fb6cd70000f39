"""Cross-rank signalling: the `pypto.language.distributed` (`pld`) surface.

A `!pypto.dist_tensor<[R, C], i32>` (PyPTO's `pld.DistributedTensor`) is a tensor bound to a
communication window: other ranks can deposit values into it. Three side-effect ops use
such a signal matrix:

    pypto.system.notify set %sig[%i, %j], %peer, %value : !pypto.dist_tensor<[1, 1], i32>, i32, i32
    pypto.system.wait ge %sig[%i, %j], %expected : !pypto.dist_tensor<[1, 1], i32>, i32
    pypto.system.defer_wait ge %sig[%i, %j], %expected : !pypto.dist_tensor<[1, 1], i32>, i32

* `notify` deposits `%value` into slot `[%i, %j]` of rank `%peer`'s window (`set`, or
  `atomic_add` to add it).
* `wait` blocks the core until the local slot compares `eq` / `ge` to `%expected`.
* `defer_wait` does not block: it registers a completion condition (`ge` only) on the task
  that runs it. The task's body may finish, but its task id completes only once the
  condition holds, so continuation work belongs in a task that depends on it. A task that
  registers conditions is a *deferred waiter*; outline-incore-scopes checks the waiter
  contract (`pypto_xdsl.analysis.deferred_wait`).

The ops live inside `pypto.incore_scope` regions or InCore functions (they run on a core).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntAttr, IntegerType, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    prop_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pypto_xdsl.dialects.attributes import (
    Dim,
    InternedParsedType,
    ShapedTypeMixin,
    ShapeElementSyntax,
    dim_to_attr,
)
from pypto_xdsl.dialects.verification import pypto_op_definition

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class DistributedTensorType(ShapedTypeMixin, ShapeElementSyntax, InternedParsedType, TypeAttribute):
    """`!pypto.dist_tensor<[R, C], i32>`: a tensor bound to a communication window.

    Not a `!pypto.tensor`: tensor ops do not take it, and a captured signal is an `in`
    parameter of the function that signals or waits on it (the ops declare no data write).
    """

    name = "pypto.dist_tensor"
    shape: ArrayAttr[IntAttr | StringAttr]
    element_type: Attribute

    def __init__(self, shape: Iterable[Dim], element_type: Attribute):
        super().__init__(ArrayAttr(dim_to_attr(d) for d in shape), element_type)

    def verify(self) -> None:
        self._verify_shape("distributed tensor")

    def with_shape(self, shape: Iterable[Dim]) -> DistributedTensorType:
        return DistributedTensorType(shape, self.element_type)



class WaitCmp(StrEnum):
    """`pld.WaitCmp`: how a waited-on slot compares to the expected value."""

    EQ = "eq"
    GE = "ge"


class NotifyKind(StrEnum):
    """`pld.NotifyOp`: how a notification combines with the peer's slot."""

    ATOMIC_ADD = "atomic_add"
    SET = "set"


@irdl_attr_definition
class WaitCmpAttr(EnumAttribute[WaitCmp], SpacedOpaqueSyntaxAttribute):
    """`#pypto<wait_cmp ge>`"""

    name = "pypto.wait_cmp"


@irdl_attr_definition
class NotifyKindAttr(EnumAttribute[NotifyKind], SpacedOpaqueSyntaxAttribute):
    """`#pypto<notify set>`"""

    name = "pypto.notify"


# --------------------------------------------------------------------------- ops


def _is_integer_scalar(t: Attribute) -> bool:
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)


def _parse_slot(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    signal = parser.parse_unresolved_operand()
    offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    return signal, offsets


def _print_slot(printer: Printer, signal: SSAValue, offsets: Sequence[SSAValue]) -> None:
    printer.print_operand(signal)
    printer.print_string("[")
    printer.print_list(offsets, printer.print_operand)
    printer.print_string("]")


class _SignalOp(IRDLOperation):
    """Shared checks: a signal matrix, one index offset per dimension, integer scalars.

    Each op declares its operands itself (`signal`, `offsets`, then its scalars): IRDL
    orders a subclass's fields before its base's.
    """

    SCALARS: ClassVar[tuple[str, ...]] = ()

    def verify_(self) -> None:
        verify_on_core(self)
        t = self.signal.type
        assert isinstance(t, DistributedTensorType)
        if len(self.offsets) != t.rank:
            raise VerifyException(
                f"{self.name}: the signal {t} has rank {t.rank} but {len(self.offsets)} offsets were given"
            )
        if not isinstance(t.element_type, IntegerType):
            raise VerifyException(f"{self.name}: a signal matrix holds integers, got {t}")
        for name in self.SCALARS:
            v: SSAValue = getattr(self, name)
            if not _is_integer_scalar(v.type):
                raise VerifyException(f"{self.name}: operand '{name}' must be an integer scalar, got {v.type}")


def verify_on_core(op: Operation) -> None:
    """Signal ops run on a core: inside a `pypto.incore_scope`, an InCore function, or an
    inline helper (spliced into one of those)."""
    from pypto_xdsl.dialects.program import FuncOp, IncoreScopeOp

    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, IncoreScopeOp):
            return
        if isinstance(parent, FuncOp):
            if parent.is_incore or parent.func_kind.value == "inline":
                return
            raise VerifyException(
                f"{op.name} in {parent.func_kind.value} function @{parent.sym_name.data}: "
                f"signals are sent and waited for on a core; put it in a pl.at scope"
            )
        parent = parent.parent_op()


def _check_signal_type(parser: Parser, t: Attribute) -> None:
    if not isinstance(t, DistributedTensorType):
        parser.raise_error(
            f"expected a signal matrix !pypto.dist_tensor<...> (pld.DistributedTensor), got {t}: "
            f"a plain tensor has no communication window"
        )


@pypto_op_definition
class NotifyOp(_SignalOp):
    """`pld.system.notify(signal, peer, offsets, value, op=...)`."""

    name = "pypto.system.notify"
    signal = operand_def(DistributedTensorType)
    offsets = var_operand_def(IndexType)
    peer = operand_def()
    value = operand_def()
    kind = prop_def(NotifyKindAttr)
    SCALARS: ClassVar[tuple[str, ...]] = ("peer", "value")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        signal: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        peer: SSAValue | Operation,
        value: SSAValue | Operation,
        kind: NotifyKind,
    ):
        super().__init__(
            operands=[signal, offsets, peer, value], properties={"kind": NotifyKindAttr(kind)}
        )

    @classmethod
    def parse(cls, parser: Parser) -> NotifyOp:
        kind = parser.parse_str_enum(NotifyKind)
        signal, offsets = _parse_slot(parser)
        parser.parse_punctuation(",")
        peer = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t_sig = parser.parse_type()
        _check_signal_type(parser, t_sig)
        parser.parse_punctuation(",")
        t_peer = parser.parse_type()
        parser.parse_punctuation(",")
        t_value = parser.parse_type()
        op = cls(
            parser.resolve_operand(signal, t_sig),
            [parser.resolve_operand(o, IndexType()) for o in offsets],
            parser.resolve_operand(peer, t_peer),
            parser.resolve_operand(value, t_value),
            kind,
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data.value} ")
        _print_slot(printer, self.signal, self.offsets)
        printer.print_string(", ")
        printer.print_operand(self.peer)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.signal.type, self.peer.type, self.value.type], printer.print_attribute)


class _WaitLikeOp(_SignalOp):
    SCALARS: ClassVar[tuple[str, ...]] = ("expected",)

    def __init__(
        self,
        signal: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        expected: SSAValue | Operation,
        cmp: WaitCmp,
    ):
        super().__init__(operands=[signal, offsets, expected], properties={"cmp": WaitCmpAttr(cmp)})

    @classmethod
    def parse(cls, parser: Parser):
        cmp = parser.parse_str_enum(WaitCmp)
        signal, offsets = _parse_slot(parser)
        parser.parse_punctuation(",")
        expected = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t_sig = parser.parse_type()
        _check_signal_type(parser, t_sig)
        parser.parse_punctuation(",")
        t_expected = parser.parse_type()
        op = cls(
            parser.resolve_operand(signal, t_sig),
            [parser.resolve_operand(o, IndexType()) for o in offsets],
            parser.resolve_operand(expected, t_expected),
            cmp,
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.cmp.data.value} ")
        _print_slot(printer, self.signal, self.offsets)
        printer.print_string(", ")
        printer.print_operand(self.expected)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.signal.type, self.expected.type], printer.print_attribute)


@pypto_op_definition
class WaitOp(_WaitLikeOp):
    """`pld.system.wait(signal, offsets, expected, cmp=...)`: block until the slot compares."""

    name = "pypto.system.wait"
    signal = operand_def(DistributedTensorType)
    offsets = var_operand_def(IndexType)
    expected = operand_def()
    cmp = prop_def(WaitCmpAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@pypto_op_definition
class DeferWaitOp(_WaitLikeOp):
    """`pld.system.defer_wait(signal, offsets, expected, cmp=pld.WaitCmp.Ge)`: register a
    completion condition on the running task (see the module docstring)."""

    name = "pypto.system.defer_wait"
    signal = operand_def(DistributedTensorType)
    offsets = var_operand_def(IndexType)
    expected = operand_def()
    cmp = prop_def(WaitCmpAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def verify_(self) -> None:
        super().verify_()
        if self.cmp.data != WaitCmp.GE:
            raise VerifyException(
                f"pypto.system.defer_wait registers 'signal >= expected' conditions only "
                f"(pld.WaitCmp.Ge), got {self.cmp.data.value}"
            )
        t = self.signal.type
        assert isinstance(t, DistributedTensorType)
        if t.element_type != IntegerType(32):
            raise VerifyException(f"pypto.system.defer_wait waits on an i32 signal matrix, got {t}")


SIGNAL_OPS = [NotifyOp, WaitOp, DeferWaitOp]
DISTRIBUTED_ATTRIBUTES = [DistributedTensorType, WaitCmpAttr, NotifyKindAttr]
