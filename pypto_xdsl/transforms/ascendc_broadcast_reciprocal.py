"""ascendc-broadcast-reciprocal: divide rows by a broadcast row value as one `Reciprocal` of
the broadcast values and `Mul`s, instead of a `Div` per chunk.

`convert-pypto-to-ascendc` lowers a row-broadcast division (`row_expand_div`, the last step
of softmax, rmsnorm and layernorm) as `Brcb` of the `[R, 1]` row values into a scratch of
one 32-byte block per row, then one level-0 `Div` per 64-column (f32) chunk, each re-reading
the row's block (src1 block stride 0). A `Div` repeat costs the vector unit twice a `Mul`
repeat in f32 (the devkit's vector throughput appendix: 32 against 64 elements per cycle),
and the divisor is the same for every chunk of a row. For each such site (`ReciprocalOfBroadcast`,
one per `brcb` whose scratch only `div`s read, as their divisor) this pass:

* inserts `Reciprocal(scratch, scratch, n)` after the `Brcb` (n: the elements it wrote, 8
  blocks per repeat), computed in place — the devkit allows a destination 100 % overlapping
  the source;
* replaces every `Div(d, a, scratch, ...)` by `Mul(d, a, scratch, ...)` with the same mask,
  repeats and strides.

Numerics: `a * (1 / b)` rounds twice where `a / b` rounds once. In f32 that is at most
about 2 ulp (2.4e-7 relative) more than a correctly rounded divide; the devkit gives
`Div` itself a maximum error of 1 ulp (`Div.md`, `DivAlgo::INTRINSIC`). Only f32 sites
are rewritten: for f16 the same 2 ulp would be 2e-3 relative, more than the interpreter
comparison tolerates. Run it before `ascendc-plan-buffers` and `ascendc-insert-sync` (the
reciprocal needs a barrier after the `Brcb`, which insert-sync places). Running it again
changes nothing (no `div` is left reading the scratch).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects.ascendc_kernel import KernelOp

_BLOCK_BYTES = 32


def _divisor_uses(scratch: SSAValue, brcb: C.BrcbOp) -> list[C.DivOp] | None:
    """The `div`s reading `scratch` (directly or through windows) as their divisor, when
    that and `brcb` are its only uses."""
    divs: list[C.DivOp] = []
    pending = [scratch]
    while pending:
        value = pending.pop()
        for use in value.uses:
            op = use.operation
            if op is brcb and use.index == 0:
                continue
            if isinstance(op, M.AtOp):
                pending.append(op.result)
            elif isinstance(op, C.DivOp) and use.index == 2 and op.operands[1] is not value:
                divs.append(op)
            else:
                return None
    return divs


class ReciprocalOfBroadcast(RewritePattern):
    """`Brcb(s, r)` + `Div(d, a, s[..])`s -> `Brcb(s, r)`, `Reciprocal(s, s)`, `Mul(d, a, s[..])`s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: C.BrcbOp, rewriter: PatternRewriter) -> None:
        scratch = op.operands[0]
        if not isinstance(scratch.owner, M.GetBufOp) or not isinstance(scratch.type.element_type, Float32Type):  # type: ignore[attr-defined]
            return
        params = [int(a.value.data) for a in op.params.data]  # type: ignore[union-attr]
        writers = [u.operation for u in scratch.uses if isinstance(u.operation, C.BrcbOp)]
        if params != [1, 8] or writers != [op]:
            return  # one Brcb filling the scratch from its start, blocks back to back
        divs = _divisor_uses(scratch, op)
        if not divs or any(d.parent_block() is not op.parent_block() for d in divs):
            return
        block = op.parent_block()
        assert block is not None
        order = {o: k for k, o in enumerate(block.ops)}
        if any(order[d] < order[op] for d in divs):
            return
        per_block = _BLOCK_BYTES // scratch.type.element_bytes  # type: ignore[attr-defined]
        count = int(op.repeat.value.data) * 8 * per_block
        rewriter.insert(C.ReciprocalOp(scratch, scratch, count=count), InsertPoint.after(op))
        for div in divs:
            props = {k: v for k, v in div.properties.items() if k in ("mask", "repeat", "params", "count")}
            mul = C.MulOp(*div.operands[:3],
                          count=_int(props.get("count")), mask=_int(props.get("mask")),
                          repeat=_int(props.get("repeat")),
                          params=[int(a.value.data) for a in props["params"].data] if "params" in props else None)  # type: ignore[union-attr]
            rewriter.replace(div, mul)


def _int(attr) -> int | None:
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else None


def broadcast_reciprocal(kernel: KernelOp) -> None:
    if kernel.memory_plan is not None:
        return  # planned: left as it is, like the other pre-plan passes
    PatternRewriteWalker(GreedyRewritePatternApplier([ReciprocalOfBroadcast()], dce_enabled=False),
                         apply_recursively=False).rewrite_region(kernel.body)


@dataclass(frozen=True)
class AscendCBroadcastReciprocalPass(ModulePass):
    """`ascendc-broadcast-reciprocal`."""

    name = "ascendc-broadcast-reciprocal"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.body.block.ops:
            if isinstance(kernel, KernelOp):
                broadcast_reciprocal(kernel)

