"""Whether a value can be used at a point of the IR (structured regions, one block each)."""

from __future__ import annotations

from xdsl.ir import BlockArgument, Operation, SSAValue


def available_before(value: SSAValue, point: Operation) -> bool:
    """`value` can be used right before `point`: a block argument of a block enclosing it, or
    the result of an op that comes before `point` (or before the ancestor of `point`) in its
    block."""
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()  # type: ignore[union-attr]
    if block is None:
        return False
    anchor: Operation | None = point
    while anchor is not None and anchor.parent_block() is not block:
        anchor = anchor.parent_op()
    if anchor is None:
        return False
    if isinstance(value, BlockArgument):
        return True
    owner = value.owner
    assert isinstance(owner, Operation)
    return block.get_operation_index(owner) < block.get_operation_index(anchor)
