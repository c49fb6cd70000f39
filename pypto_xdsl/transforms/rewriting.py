"""Pattern-application helpers shared by the passes."""

from __future__ import annotations

from dataclasses import dataclass

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
    """

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        assert not self.walk_regions_first and not self.walk_reverse
        push = self._worklist.push
        for sub_op in reversed(list(walk_ops(op))):
            push(sub_op)
