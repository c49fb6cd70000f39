"""`pl.system.*`: runtime constructs of orchestration code.

`barrier = pl.system.task_dummy(deps=[...])` is a task that runs nothing and ends once every
dependency has (task ids, or arrays of them): later launches depend on it alone.
"""

from __future__ import annotations

from pypto_xdsl.language.ops import OpStub

task_dummy = OpStub("system", "task_dummy")

__all__ = ["task_dummy"]
