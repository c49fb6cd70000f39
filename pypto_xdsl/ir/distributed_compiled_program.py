"""PyPTO's `pypto.ir.distributed_compiled_program` path: `DistributedConfig`, the group of
ranks a `@pl.jit.host` program runs on.

    compiled = host_fn.compile(x, y, config=RunConfig(
        distributed_config=DistributedConfig(device_ids=[0, 1], num_sub_workers=0)))
    compiled(x, y)                     # runs on the group it was compiled for

pypto-xdsl models the ranks in one process (see docs/language.md, "Multi-rank programs"):
`device_ids` gives the number of ranks (`pld.world_size()`); rank r is the r-th entry.
Other names of the reference's module are reference names pypto-xdsl does not provide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_xdsl.frontend.locate import located
from pypto_xdsl.reference_names import reference_only_getattr


class DistributedConfigError(ValueError):
    """A DistributedConfig that names no usable group of ranks."""


@dataclass
class DistributedConfig:
    """The devices of a rank group (`device_ids`, one rank each, in rank order) and the
    number of host sub-workers (`num_sub_workers`: host callbacks, not modelled: must be 0)."""

    device_ids: list[int] = field(default_factory=lambda: [0])
    num_sub_workers: int = 0

    def __post_init__(self) -> None:
        ids = list(self.device_ids) if isinstance(self.device_ids, list | tuple) else None
        if not ids or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in ids):
            raise located(
                f"DistributedConfig(device_ids=...) is a non-empty list of device numbers, got {self.device_ids!r}",
                DistributedConfigError,
            )
        if len(set(ids)) != len(ids):
            raise located(f"DistributedConfig(device_ids={ids}) names a device twice", DistributedConfigError)
        if not isinstance(self.num_sub_workers, int) or self.num_sub_workers < 0:
            raise located(
                f"DistributedConfig(num_sub_workers=...) is a count, got {self.num_sub_workers!r}", DistributedConfigError
            )
        self.device_ids = ids

    @property
    def world_size(self) -> int:
        return len(self.device_ids)


__all__ = ["DistributedConfig"]

__getattr__ = reference_only_getattr(
    __name__,
    "the host's sub-workers, callbacks and distributed runtime are not modelled; a @pl.jit.host "
    "program runs its ranks in one process (DistributedConfig selects them)",
    ("DistributedConfig",),
)
