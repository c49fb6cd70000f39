"""`pld.system.*`: cross-rank signalling (op stubs; the frontend compiles them)."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_xdsl.language.ops import OpStub


@dataclass(frozen=True, eq=False, repr=False)
class DistributedOpStub(OpStub):
    @property
    def qualname(self) -> str:
        return f"pld.{self.family.removeprefix('pld.')}.{self.op}"


FAMILY = "pld.system"
notify = DistributedOpStub(FAMILY, "notify")
wait = DistributedOpStub(FAMILY, "wait")
defer_wait = DistributedOpStub(FAMILY, "defer_wait")

__all__ = ["defer_wait", "notify", "wait"]
