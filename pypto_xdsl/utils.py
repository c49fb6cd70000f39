"""Small helpers shared across the package."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Block, Operation, Region


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk IR construction or rewrite.

    IR is a large cyclic object graph built or rewritten in one go and nothing becomes
    garbage meanwhile; each automatic collection walks the growing heap, which makes bulk work
    superlinear. Reference counting still frees acyclic garbage.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def walk_ops(root: Operation | Region | Block) -> Iterator[Operation]:
    """The ops nested in `root` in pre-order, `root` first when it is an op (the order of
    `Operation.walk`), with a constant cost per op at any nesting depth: xDSL's walk nests one
    generator per region level, so walking ops D levels deep costs D resumptions each."""
    stack: list[Iterator[Operation]] = []
    if isinstance(root, Operation):
        yield root
        stack.append(_nested_ops(root))
    elif isinstance(root, Region):
        stack.append(_region_ops(root))
    else:
        stack.append(iter(root.ops))
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions:
            stack.append(_nested_ops(op))


def _region_ops(region: Region) -> Iterator[Operation]:
    for block in region.blocks:
        yield from block.ops


def _nested_ops(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops
