"""Pattern-application helpers shared by the passes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriteWalker

from pypto_xdsl.utils import walk_ops


@dataclass(eq=False, repr=False)
class FlatPatternRewriteWalker(PatternRewriteWalker):
    """`PatternRewriteWalker`, with the worklist filled by an iterative walk.

    xDSL fills the worklist with `Operation.walk`, which nests one generator per region
    level: an op D regions deep costs D resumptions, so a function nesting loops a thousand
    deep costs a million. The same ops, in the same order (the reverse of pre-order, as the
    worklist is a stack), come from `walk_ops` at a constant cost each. Only the default
    order (ops before their regions, forward) is supported.

    `only` restricts the walk to the given ops of the region, in program order: the ops a
    pass's analysis found the pattern can rewrite (the others would only cost the walker's
    per-op bookkeeping).
    """

    only: Sequence[Operation] | None = field(default=None, kw_only=True)

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        assert not self.walk_regions_first and not self.walk_reverse
        push = self._worklist.push
        ops = self.only if self.only is not None else list(walk_ops(op))
        for sub_op in reversed(ops):
            push(sub_op)
