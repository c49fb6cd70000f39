"""The distributed DSL surface: `import pypto_xdsl.language.distributed as pld`.

Mirrors PyPTO's `pypto.language.distributed`, the part the compiler models:

* `pld.DistributedTensor[[R, C], pl.INT32]`: a tensor bound to a communication window (a
  signal matrix), `!pypto.dist_tensor<[R, C], i32>`;
* `pld.system.notify(signal, peer, offsets, value, op=pld.NotifyOp.Set)`,
  `pld.system.wait(signal, offsets, expected, cmp=pld.WaitCmp.Ge)` and
  `pld.system.defer_wait(signal, offsets, expected, cmp=pld.WaitCmp.Ge)` (see
  `pypto_xdsl.dialects.distributed`);
* the enums `pld.WaitCmp`, `pld.NotifyOp`, and `pld.AtomicType` (= `pl.AtomicType`);
* multi-rank programs (see `pypto_xdsl.dialects.distributed_host` / `distributed_comm`): in a
  `@pl.jit.host` function `pld.world_size()`, `pld.alloc_window_buffer(shape, dtype=)`,
  `pld.window(buffer, shape, dtype=)`; in the functions it dispatches, `pld.get_comm_ctx(w)`,
  `pld.rank(ctx)`, `pld.nranks(ctx)`, `pld.tile.remote_load / remote_store`,
  `pld.tensor.put / get / barrier`.
"""

from __future__ import annotations

from enum import Enum

from pypto_xdsl.dialects import distributed as D
from pypto_xdsl.language.distributed import system
from pypto_xdsl.language.distributed.system import (
    alloc_window_buffer,
    get_comm_ctx,
    nranks,
    rank,
    tensor,
    tile,
    window,
    world_size,
)
from pypto_xdsl.language.types import AtomicType, TypeError_, TypeSpec, _dims, _dtype


class WaitCmp(Enum):
    """How a waited-on slot compares to the expected value."""

    Eq = D.WaitCmp.EQ
    Ge = D.WaitCmp.GE


class NotifyOp(Enum):
    """How a notification combines with the peer's slot."""

    AtomicAdd = D.NotifyKind.ATOMIC_ADD
    Set = D.NotifyKind.SET


class DistributedTensor:
    """`pld.DistributedTensor[[1, 1], pl.INT32]`: a tensor bound to a communication window
    (a signal matrix, or a rank's slice of a window buffer)."""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError_("pld.DistributedTensor takes [shape, dtype], e.g. pld.DistributedTensor[[1, 1], pl.INT32]")
        dtype = _dtype(item[1])
        if dtype.name == "INDEX":
            raise TypeError_("distributed tensor elements cannot be pl.INDEX")
        return TypeSpec(D.DistributedTensorType(_dims(item[0]), dtype.to_ir()))


__all__ = [
    "AtomicType",
    "DistributedTensor",
    "NotifyOp",
    "WaitCmp",
    "alloc_window_buffer",
    "get_comm_ctx",
    "nranks",
    "rank",
    "system",
    "tensor",
    "tile",
    "window",
    "world_size",
]
