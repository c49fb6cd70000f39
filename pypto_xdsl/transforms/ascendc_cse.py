"""ascendc-cse: common subexpression elimination inside every `ascendc.kernel`, with xDSL's
own CSE (`xdsl.transforms.common_subexpression_elimination.cse`).

The conversion emits the index arithmetic of each tile access where it is needed, so a
kernel that loads and stores through the same block offset computes it twice
(`v = GetBlockIdx() * 32; v_1 = GetBlockIdx() * 32;`), and subtensor windows
(`ascendc.at %t[64]`) repeat per instruction. Upstream CSE merges operations that are free of
side effects (`Pure`: `arith` ops, `ascendc.at`, the scalar casts) and equal in name,
operands and properties, and erases those nothing uses. Every other `ascendc` op declares no
memory effect, which xDSL reads as "unknown": it is never merged, moved or erased, so copies,
instructions, queue hand-offs and flags stay as they are. Only kernels are simplified (host
code is left to the host printer). Running it again changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse

from pypto_xdsl.dialects.ascendc_kernel import KernelOp


def kernel_cse(kernel: KernelOp) -> None:
    cse(kernel)


@dataclass(frozen=True)
class AscendCCsePass(ModulePass):
    """`ascendc-cse`."""

    name = "ascendc-cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            if isinstance(kernel, KernelOp):
                kernel_cse(kernel)
