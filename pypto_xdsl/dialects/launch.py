"""How the program ops launch work on cores, shared by `pypto.call`, `pypto.submit` and
`pypto.incore_scope`: the core count (the `pypto.block_dim` attribute or a `cores(%n)` operand),
the arguments left out of dependency tracking (`pypto.no_dep`), and the textual clauses
`cores(...)`, `deps(...)`, `dumps(... : T)` and `no_dep(... : T)`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, UnitAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import TaskIdType

if TYPE_CHECKING:
    from pypto_xdsl.dialects.functions import FuncOp


BLOCK_DIM_ATTR = "pypto.block_dim"
"""Discardable attribute of a call/submit (or of the incore function it launches): run the
kernel on N cores (SPMD); `pypto.tile.get_block_idx` tells the instances apart."""


def verify_block_dim(op: Operation) -> None:
    attr = op.attributes.get(BLOCK_DIM_ATTR)
    if attr is not None and (not isinstance(attr, IntegerAttr) or attr.value.data < 1):
        raise VerifyException(f"'{BLOCK_DIM_ATTR}' must be a positive integer, got {attr}")


SYNC_START_ATTR = "pypto.sync_start"
"""Discardable unit attribute of a call/submit/incore scope launched on a core count (PyPTO's
`pl.spmd(..., sync_start=True)`, kept on the dispatch as PyPTO does): every block starts at
once. A launch's blocks run concurrently on the device when they fit on the chip's cores; the
interpreter runs them one after the other, one legal schedule of blocks that do not wait on
each other."""


NO_DEP_ATTR = "pypto.no_dep"
"""Discardable attribute of a call/submit: the argument positions (sorted, distinct) that take
no part in task-dependency tracking (PyPTO's `pl.at(no_dep_args=[...])`, outlined)."""


def launch_cores(op: Operation) -> SSAValue | None:
    """The core count a call/submit/incore scope reads at run time (`cores(%n)`), if any."""
    cores = getattr(op, "cores", None)
    if cores is None or len(cores) == 0:
        return None
    return cores[0]


def launch_block_dim(call: Operation, callee: FuncOp | None) -> int:
    """How many cores a call/submit (or an incore scope, with no callee) launches its callee
    on: the launching op's attribute first, then the callee's.

    Raises ValueError for a launch whose core count is a run-time value (`launch_cores`).
    """
    if (cores := launch_cores(call)) is not None:
        raise ValueError(
            f"{call.name} launches on a core count known only at run time "
            f"(cores(%{cores.name_hint or '?'}))"
        )
    for holder in (call, callee):
        if holder is None:
            continue
        attr = holder.attributes.get(BLOCK_DIM_ATTR)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return 1


def verify_launch(op: Operation, n_args: int | None) -> None:
    """Block dim (static attribute or `cores(%n)` operand, not both) and the no-dep slots."""
    verify_block_dim(op)
    if launch_cores(op) is not None and BLOCK_DIM_ATTR in op.attributes:
        raise VerifyException(
            f"{op.name}: the core count is given twice: '{BLOCK_DIM_ATTR}' and a cores(...) operand"
        )
    if (sync := op.attributes.get(SYNC_START_ATTR)) is not None:
        if not isinstance(sync, UnitAttr):
            raise VerifyException(f"{op.name}: '{SYNC_START_ATTR}' is a unit attribute, got {sync}")
        if launch_cores(op) is None and BLOCK_DIM_ATTR not in op.attributes:
            raise VerifyException(
                f"{op.name}: '{SYNC_START_ATTR}' needs the launch's core count ('{BLOCK_DIM_ATTR}' or cores(...))"
            )
    no_dep = op.attributes.get(NO_DEP_ATTR)
    if no_dep is None:
        return
    values = _dense_i64(no_dep)
    if values is None:
        raise VerifyException(f"{op.name}: '{NO_DEP_ATTR}' must be an array<i64: ...> of argument positions, got {no_dep}")
    if list(values) != sorted(set(values)) or (values and values[0] < 0):
        raise VerifyException(f"{op.name}: '{NO_DEP_ATTR}' must list distinct argument positions in ascending order, got {list(values)}")
    if n_args is not None and values and values[-1] >= n_args:
        raise VerifyException(
            f"{op.name}: '{NO_DEP_ATTR}' names argument #{values[-1]}, but there are {n_args} arguments"
        )


def _dense_i64(attr: Attribute) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase) and attr.elt_type == i64:
        return tuple(attr.get_values())  # type: ignore[arg-type]
    return None


def no_dep_positions(op: Operation) -> tuple[int, ...]:
    """The argument positions of a call/submit marked no-dep (`NO_DEP_ATTR`)."""
    attr = op.attributes.get(NO_DEP_ATTR)
    return (_dense_i64(attr) or ()) if attr is not None else ()



def parse_task_ids(parser: Parser, keyword: str) -> list[SSAValue]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    return [parser.resolve_operand(u, TaskIdType()) for u in unresolved]


def parse_cores(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_keyword("cores") is None:
        return []
    with parser.in_parens():
        value = parser.parse_unresolved_operand()
    return [parser.resolve_operand(value, IndexType())]


def print_cores(printer: Printer, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(" cores(")
        printer.print_operand(values[0])
        printer.print_string(")")


def parse_keyword_values(parser: Parser, keyword: str) -> list[SSAValue]:
    """`keyword(%a, %b : A, B)` (dumps, no_dep): values with their types."""
    if parser.parse_optional_keyword(keyword) is None:
        return []
    parser.parse_punctuation("(")
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(types) != len(unresolved):
        parser.raise_error(f"{keyword} lists {len(unresolved)} values but {len(types)} types")
    return [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]


def print_keyword_values(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(f" {keyword}(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(")")


def parse_dumps(parser: Parser) -> list[SSAValue]:
    return parse_keyword_values(parser, "dumps")


def print_task_ids(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(f" {keyword}(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(")")


def print_dumps(printer: Printer, values: Sequence[SSAValue]) -> None:
    print_keyword_values(printer, "dumps", values)
