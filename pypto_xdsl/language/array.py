"""`pl.array.*`: small arrays in orchestration code; `pl.TASK_ID`, their element type.

`tids = pl.array.create(n, pl.TASK_ID)` (n a static int) makes an array of n task ids, each
"no task"; `tids[i] = tid` sets an element (a new value, as every rebinding);
`deps=[tids]` waits for every task recorded in it. Lowered to `pypto.task_ids.*`.
"""

from __future__ import annotations

from pypto_xdsl.language.ops import OpStub


class TaskIdElement:
    """`pl.TASK_ID`: the element type of an array of task ids."""

    def __repr__(self) -> str:
        return "pl.TASK_ID"


TASK_ID = TaskIdElement()
create = OpStub("array", "create")

__all__ = ["TASK_ID", "create"]
