"""ascendc-plan-buffers: decide, per Ascend C kernel, the on-chip buffer of every tile value.

For every `pypto.func incore|aiv|aic` whose body is tile-level (no tensor-level compute left),
the pass records the plan the kernel printer follows, with builtin attributes only (the IR
still prints, parses, verifies and survives `mlir-opt` in generic form):

- `ascendc.buffer = "inQ_a"` on every op producing a tile (an array of names, "" for non-tile
  results, on multi-result ops such as `scf.for`);
- `ascendc.staging = "outQ_c_out"` on a `tile.store` whose tile is not in a VECOUT queue;
- `ascendc.scratch = "buf_m_tmp"` on a two-stage row reduction;
- on the function, `ascendc.buffers` (one `{bytes, depth, name, position, values}` dictionary
  per TQue/TBuf, in declaration order) and `ascendc.memory` (`{UB = {capacity, used}, ...}`).

The rules (VECIN/VECOUT/VECCALC, cube A1/B1/A2/B2/CO1, TBuf sharing, double buffering) are in
pypto_xdsl/backend/ascendc/planning.py; docs/passes/ascendc-plan-buffers.md describes them.
A kernel whose buffers do not fit raises PassFailedException naming the function, the tiles
and their sizes. Re-running the pass replaces the previous plan (and drops sync decisions
made for it), so running it twice equals running it once.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.backend.ascendc.cxx import UB_BYTES, BackendError
from pypto_xdsl.backend.ascendc.planning import Capacities, is_tile_level, plan_buffers
from pypto_xdsl.dialects import program


@dataclass(frozen=True)
class AscendCPlanBuffersPass(ModulePass):
    """`ascendc-plan-buffers{ub-bytes=N double-buffer=false}`."""

    name = "ascendc-plan-buffers"

    ub_bytes: int = UB_BYTES
    """Unified Buffer bytes a kernel may use (default: the 192 KiB of A2/A3)."""

    double_buffer: bool = True
    """Give queues of tiles defined in loops two buffers when the plan still fits."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.ub_bytes <= 0:
            raise PassFailedException(f"{self.name}: ub-bytes must be positive, got {self.ub_bytes}")
        capacities = Capacities(self.ub_bytes, self.double_buffer)
        for func in program.func_ops(op):
            if not func.is_incore or not is_tile_level(func):
                continue
            try:
                plan_buffers(func, capacities)
            except BackendError as e:
                raise PassFailedException(f"{self.name}: {str(e).removeprefix('ascendc: ')}") from e
