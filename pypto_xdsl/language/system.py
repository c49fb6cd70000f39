"""`pl.system.*`: runtime constructs of orchestration code and the target's core counts.

`barrier = pl.system.task_dummy(deps=[...])` is a task that runs nothing and ends once every
dependency has (task ids, or arrays of them): later launches depend on it alone.

`available_cluster_count()` / `available_aiv_count()` size a launch (`pl.spmd(pl.system.
available_cluster_count(), sync_start=True)`): compile-time constants of the target the
backend compiles for (`analysis/target_cores.py`), not a query of the device at run time.
"""

from __future__ import annotations

from pypto_xdsl.language.ops import OpStub

task_dummy = OpStub("system", "task_dummy")
available_cluster_count = OpStub("system", "available_cluster_count")
"""Core groups (one AIC and two AIVs each): the blocks of a MIX or cube kernel that run at once."""
available_aiv_count = OpStub("system", "available_aiv_count")
"""Vector cores: the blocks of a vector kernel that run at once."""

__all__ = ["available_aiv_count", "available_cluster_count", "task_dummy"]
