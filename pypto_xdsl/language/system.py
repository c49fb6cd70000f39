"""`pl.system.*`: the target's core counts, for sizing a launch (`pl.spmd(pl.system.
available_cluster_count(), sync_start=True)`). Compile-time constants of the target the
backend compiles for (`analysis/target_cores.py`), not a query of the device at run time."""

from pypto_xdsl.language.ops import OpStub

available_cluster_count = OpStub("system", "available_cluster_count")
"""Core groups (one AIC and two AIVs each): the blocks of a MIX or cube kernel that run at once."""
available_aiv_count = OpStub("system", "available_aiv_count")
"""Vector cores: the blocks of a vector kernel that run at once."""

__all__ = ["available_aiv_count", "available_cluster_count"]
