"""Free values of a region: values defined outside it and used inside it.

`collect_free_values(region)` walks the region once, in pre-order, and returns the values
it uses that it does not define, in **first-use order** (the order in which their uses
appear in the walk; nested regions included). Every use site `(op, operand index)` is
recorded, so a caller can rewire the uses without scanning the value's whole use list.

A loop's block argument used by a region nested in the loop is a free value of that
region (the loop's init value is not), because the region's operands name the block
argument.

The walk can rewrite operands on the way (`remap`), and calls `on_op(op)` after the
operands of `op` are classified, so a caller can run a per-op analysis in the same walk.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field

from xdsl.ir import Operation, Region, SSAValue

from pypto_xdsl.utils import walk_ops


@dataclass
class FreeValues:
    """The free values of a region and where they are used."""

    values: list[SSAValue]
    """Free values in first-use order."""
    uses: dict[SSAValue, list[tuple[Operation, int]]]
    """For each free value, its uses inside the region as `(op, operand index)`."""
    defined: set[SSAValue] = field(repr=False)
    """Values defined inside the region (op results and block arguments)."""

    def __contains__(self, value: SSAValue) -> bool:
        return value in self.uses


def collect_free_values(
    region: Region,
    *,
    remap: Callable[[SSAValue], SSAValue] | None = None,
    remapped: Container[SSAValue] | None = None,
    on_op: Callable[[Operation, set[SSAValue]], None] | None = None,
    defined: set[SSAValue] | None = None,
) -> FreeValues:
    """Free values of `region` in first-use order (one pre-order walk).

    `remap(v)` may return a replacement for an operand (the operand is rewritten before
    it is classified); with `remapped`, only operands in it are passed to `remap` (the
    others are kept: a membership test is cheaper than a call per operand). `on_op(op, defined)` is called for every op after its operands are
    classified; `defined` is the set of values defined inside the region so far (pass an
    empty set as `defined` to share it with an analysis running during the walk).
    """
    if defined is None:
        defined = set()
    uses: dict[SSAValue, list[tuple[Operation, int]]] = {}
    for block in region.blocks:
        defined.update(block.args)
    for op in walk_ops(region):
        operands = op.operands
        for i, v in enumerate(operands):
            if remap is not None and (remapped is None or v in remapped):
                nv = remap(v)
                if nv is not v:
                    operands[i] = nv
                    v = nv
            if v not in defined:
                sites = uses.get(v)
                if sites is None:
                    uses[v] = [(op, i)]
                else:
                    sites.append((op, i))
        defined.update(op.results)
        for r in op.regions:
            for b in r.blocks:
                defined.update(b.args)
        if on_op is not None:
            on_op(op, defined)
    # Unstructured (multi-block) regions may use a value before the walk reaches its
    # definition; those are not free.
    late = [v for v in uses if v in defined]
    for v in late:
        del uses[v]
    return FreeValues(list(uses), uses, defined)
