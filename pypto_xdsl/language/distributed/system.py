"""`pld.*` op stubs: cross-rank signalling (`pld.system`), the host's rank group and windows
(`pld.world_size`, `pld.alloc_window_buffer`, `pld.window`), a rank's communication context
(`pld.get_comm_ctx`, `pld.rank`, `pld.nranks`) and data moved between ranks (`pld.tensor`,
`pld.tile`). The frontend compiles them (pypto_xdsl.frontend.distributed)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from pypto_xdsl.language.ops import OpStub


@dataclass(frozen=True, eq=False, repr=False)
class DistributedOpStub(OpStub):
    @property
    def qualname(self) -> str:
        rest = self.family.removeprefix("pld").removeprefix(".")
        return f"pld.{rest + '.' if rest else ''}{self.op}"


FAMILY = "pld.system"
notify = DistributedOpStub(FAMILY, "notify")
wait = DistributedOpStub(FAMILY, "wait")
defer_wait = DistributedOpStub(FAMILY, "defer_wait")

HOST_FAMILY = "pld"
world_size = DistributedOpStub(HOST_FAMILY, "world_size")
alloc_window_buffer = DistributedOpStub(HOST_FAMILY, "alloc_window_buffer")
window = DistributedOpStub(HOST_FAMILY, "window")
get_comm_ctx = DistributedOpStub(HOST_FAMILY, "get_comm_ctx")
rank = DistributedOpStub(HOST_FAMILY, "rank")
nranks = DistributedOpStub(HOST_FAMILY, "nranks")

TENSOR_FAMILY = "pld.tensor"
tensor = SimpleNamespace(
    put=DistributedOpStub(TENSOR_FAMILY, "put"),
    get=DistributedOpStub(TENSOR_FAMILY, "get"),
    barrier=DistributedOpStub(TENSOR_FAMILY, "barrier"),
)

TILE_FAMILY = "pld.tile"
tile = SimpleNamespace(
    remote_load=DistributedOpStub(TILE_FAMILY, "remote_load"),
    remote_store=DistributedOpStub(TILE_FAMILY, "remote_store"),
)

__all__ = ["defer_wait", "notify", "wait"]
