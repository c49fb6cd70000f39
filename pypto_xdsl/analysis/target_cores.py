"""The cores of the target the backend compiles for (Ascend910B1, dav-c220): 24 core groups,
each one cube core (AIC) and two vector cores (AIV). The simulation's cost model assumes the
same counts (`sim/include/pypto_sim/cost.h`), and its ACL reports them."""

from __future__ import annotations

TARGET = "Ascend910B1"
AIC_CORES = 24
AIV_CORES = 48
CORE_GROUPS = AIC_CORES
"""A MIX kernel's block is a core group (its AIC and one or both of its AIVs)."""


def resident_blocks(kind: str) -> int:
    """How many blocks of a kernel of `kind` ("aiv", "aic" or "mix") run at once."""
    return AIV_CORES if kind == "aiv" else CORE_GROUPS


__all__ = ["AIC_CORES", "AIV_CORES", "CORE_GROUPS", "TARGET", "resident_blocks"]
