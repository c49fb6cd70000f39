"""ascendc-insert-sync: record the synchronisation of every planned Ascend C kernel.

Requires `ascendc-plan-buffers` (a tile-level kernel without `ascendc.buffers` is an error).
From the plan, the pass records with builtin attributes (docs/passes/ascendc-insert-sync.md):

- `ascendc.stage` on every tile op: its pipeline stage (vector: MTE2 load, V compute, MTE3
  store; cube: MTE2 load to L1, MTE1 move to L0A/L0B, M matmul, FIX Fixpipe store);
- `ascendc.handoff = {from, queue, to}` on each op whose tile crosses stages through a queue,
  which the printer realises as `EnQue` then `DeQue` on `queue`;
- `ascendc.free = [queues]` on the op after which each queue tile (VECIN, A1/B1/A2/B2) is
  FreeTensor'd: the last use of the tile in the block that defines it;
- `ascendc.store = "direct" | "staged" | "fixpipe"` on every `tile.store`;
- `ascendc.flags = [HardEvent]` where a SetFlag/WaitFlag pair is needed: after a store into a
  tensor this kernel also loads (MTE3_MTE2);
- `ascendc.barrier = "V"` on an op whose vector instructions depend on earlier ones with no
  barrier in between (a `PipeBarrier<PIPE_V>()` goes before them; off with
  `pipe-v-barriers=false`, for toolchains that insert them automatically);
- `ascendc.sync = "vector" | "cube"` on the function.

Re-running the pass replaces the previous decisions, so running it twice equals once.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.planning import insert_sync, is_tile_level
from pypto_xdsl.dialects import program


@dataclass(frozen=True)
class AscendCInsertSyncPass(ModulePass):
    """`ascendc-insert-sync`."""

    name = "ascendc-insert-sync"

    pipe_v_barriers: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in program.func_ops(op):
            if not func.is_incore or not is_tile_level(func):
                continue
            try:
                insert_sync(func, self.pipe_v_barriers)
            except BackendError as e:
                raise PassFailedException(f"{self.name}: {str(e).removeprefix('ascendc: ')}") from e
