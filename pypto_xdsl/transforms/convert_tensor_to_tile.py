"""convert-tensor-to-tile: tensor-level compute inside InCore functions -> tiled tile ops.

In every `pypto.func incore` / `aiv` function, tensor-level elementwise ops over static
shapes (`pypto.tensor.add sub mul div maximum minimum`, `adds subs muls divs maximums
minimums`, `exp log sqrt neg abs relu recip rsqrt tanh sin cos`, `cast`, the fills `full`
and `expands`) and row-wise ops (`row_max row_sum row_min row_prod`, the `row_expand*` and
`col_expand*` broadcasts, `concat`) are grouped into **fusion groups** and each group becomes
one loop over row blocks. Ops over 2-D tensors group by their row count M (every one
computes row i from row i of its operands, and of a [1, N] column vector), so [M, C] values
of any C and the [M, 1] row values fuse: a tensor-level softmax or layernorm is one loop.
Other ranks group by exact shape.

    <a load of each [1, N] column vector the group reads>
    scf.for %row = 0 to <full rows> step R iter_args(<destinations>) {
      pypto.tile.load of each other external tensor input's [R, ...] block
      the tile ops of the group, in program order
      pypto.tile.store (tile.atomic_store for an atomic assemble) of every group value
      that must exist as a tensor
    }
    <the same body once more for the M % R tail rows, if any>

A group value that is only used inside the group never exists as a tensor. A group value
assembled into another tensor (`pypto.tensor.assemble %v into %dst[...]`) is stored straight
into `%dst` (the assemble is *fused*); any other use outside the group gets a
`pypto.tensor.create`d tensor that the loop stores into.

Tile sizing: the tiles of one loop iteration (one per loaded input, one per op, the scratch
tile of a two-stage row reduction, the Brcb scratch of a row broadcast, the temporary buffer
of a math API), laid out as the backend does (rows padded to 32 bytes, [R, 1] tiles
contiguous), in the buffers the backend's plan gives them (loads and stored values in
double-buffered queues, the other tiles in VECCALC buffers shared between disjoint live
ranges), must fit the 192 KiB Unified Buffer (shared equally by the groups of one
function); R is the largest row count that fits (at most 255 with a reduction). A group whose tiles do not fit even for one
row raises PassFailedException naming the function, the tiles and their sizes.

SPMD: when the function (or every call of it) carries `pypto.block_dim = N > 1`, the
function's body is a single group and does not already query its block index, the row
blocks are distributed cyclically over the cores with `pypto.tile.get_block_idx` /
`get_block_num`.

Dynamic shapes: 2-D values may have named dynamic dimensions (parameter dimensions). A
run-time row count is a loop over its full blocks (`tensor.dim` of a parameter bounds it)
and one partial block for the rest (`tile.load ... valid[...]`, `tile.set_validshape` before
the stores), split into balanced contiguous shares under SPMD; dynamic columns take their
bound (`pypto.dim_bounds`, the call sites', or `default-dim-bound`), and a missing one is an
error naming the parameter and the symbol. A matmul may have a dynamic M (split into
balanced shares under SPMD when it is the function's only work).

Cube matmul: in `incore` / `aic` functions, `pypto.tensor.matmul` of static f16, bf16 or f32 operands
(dims multiples of 16; the product is f32, like the cube's accumulator) becomes blocked cube
code (M/N loops, one K loop of `tile.matmul_acc` from a zero acc tile or a single `tile.matmul`, one store
of the acc tile into the assemble destination or a created tensor); an identity
`tensor.cast` of the product, and a `tensor.relu` of it (as `tile.relu` of the acc tile before
its store: Fixpipe's reluEn), are folded into it; see `MatmulRewriter`.

The rewrites are RewritePatterns (`ConvertFusionGroup`, `ConvertCubeMatmul`) applied by a
PatternRewriteWalker once everything is planned; the parts are in `tensor_to_tile/`.
The page `docs/passes/convert-tensor-to-tile.md` describes grouping, ordering and aliasing
rules; this docstring summarises.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
)
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.dim_bounds import DimBounds
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import FuncKind, TensorType
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    CallOp,
    FuncOp,
    ReturnOp,
    SubmitOp,
    launch_cores,
)
from pypto_xdsl.transforms.rewriting import FlatPatternRewriteWalker
from pypto_xdsl.transforms.tensor_to_tile.cube import (
    L0A_BYTES,
    L0B_BYTES,
    L0C_BYTES,
    L1_BYTES,
    MATMUL_KINDS,
    MatmulPlan,
    MatmulRewriter,
    func_of,
    matmul_reason,
    plan_matmul,
    split_matmul_acc,
)
from pypto_xdsl.transforms.tensor_to_tile.grouping import (
    CONVERTED_KINDS,
    FUSED_TYPES,
    UB_BYTES,
    BlockGrouper,
    FusionGroup,
    convertible_key,
    dynamic_reason,
    is_static,
    shape_of,
    sink_storage,
    storage_of,
)
from pypto_xdsl.transforms.tensor_to_tile.loops import (
    GroupRewriter,
)
from pypto_xdsl.transforms.tensor_to_tile.sizing import (
    TilePlan,
    plan_group,
)
from pypto_xdsl.utils import walk_ops

__all__ = [
    "L0A_BYTES", "L0B_BYTES", "L0C_BYTES", "L1_BYTES", "UB_BYTES",
    "ConvertCubeMatmul", "ConvertFusionGroup", "ConvertTensorToTilePass", "VerifyTensorToTilePass",
    "check_tensor_to_tile",
]


# --------------------------------------------------------------------------- patterns


class ConvertFusionGroup(RewritePattern):
    """Rewrites a planned fusion group into its loop over row blocks, at the group's anchor
    (its last member or sink): every member and sink precedes the anchor, so a forward walk
    reaches it after all of them."""

    def __init__(self, groups: dict[Operation, tuple[FuncOp, FusionGroup, TilePlan, bool]]):
        self.groups = groups

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        planned = self.groups.pop(op, None)
        if planned is not None:
            GroupRewriter(*planned, rewriter).rewrite()


class ConvertCubeMatmul(RewritePattern):
    """Rewrites a planned `tensor.matmul` into blocked cube code, at its anchor (the
    assemble its accumulator is stored into, else the matmul)."""

    def __init__(self, plans: dict[Operation, MatmulPlan]):
        self.plans = plans

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        plan = self.plans.pop(op, None)
        if plan is not None:
            MatmulRewriter(plan, rewriter).rewrite()


# --------------------------------------------------------------------------- the pass


def _blocks(op: Operation) -> Iterable[Block]:
    """The blocks nested in `op` in pre-order (each block, then the blocks nested in its
    ops), with a stack instead of recursive generators (which cost their depth per block)."""
    stack: list[Iterator[Block]] = [iter([b for r in op.regions for b in r.blocks])]
    while stack:
        block = next(stack[-1], None)
        if block is None:
            stack.pop()
            continue
        yield block
        stack.append(iter([b for inner in list(block.ops) for r in inner.regions for b in r.blocks]))


class _LaunchBlockDims:
    """N when a function is launched on N cores (`pypto.block_dim` on it, or on every call
    of it), None when on a count known only at run time (`cores(%n)`), else 1. The calls'
    block dims are collected in one walk of the module, on first need."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.by_callee: dict[str, set[int | None]] | None = None

    def of(self, func: FuncOp) -> int | None:
        attr = func.attributes.get(BLOCK_DIM_ATTR)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
        if self.by_callee is None:
            self.by_callee = {}
            for op in walk_ops(self.module):
                if isinstance(op, CallOp | SubmitOp):
                    a = op.attributes.get(BLOCK_DIM_ATTR)
                    dims = self.by_callee.setdefault(op.callee.root_reference.data, set())
                    if launch_cores(op) is not None:
                        dims.add(None)
                    else:
                        dims.add(a.value.data if isinstance(a, IntegerAttr) else 1)
        dims = self.by_callee.get(func.sym_name.data, set())
        return next(iter(dims)) if len(dims) == 1 else 1


@dataclass(frozen=True)
class ConvertTensorToTilePass(ModulePass):
    """`convert-tensor-to-tile`: see the module docstring and docs/passes/convert-tensor-to-tile.md.

    Options: `ub-bytes` (Unified Buffer capacity, default 196608), `double-buffer`
    (default true: the backend's queues are counted twice) and `default-dim-bound` (the bound
    of a dynamic dimension that has no declared or derivable one; default 0: none, and a tile
    that needs one is an error).
    """

    name = "convert-tensor-to-tile"

    ub_bytes: int = UB_BYTES
    double_buffer: bool = True
    default_dim_bound: int = 0

    KINDS: ClassVar[frozenset[FuncKind]] = CONVERTED_KINDS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        work: list[tuple[FuncOp, FusionGroup, TilePlan, bool]] = []
        matmuls: list[MatmulPlan] = []
        launch_dims = _LaunchBlockDims(op)
        if self.default_dim_bound < 0:
            raise PassFailedException(
                f"convert-tensor-to-tile: default-dim-bound must be a positive bound (or 0 for none), got {self.default_dim_bound}"
            )
        dim_bounds = DimBounds(op, self.default_dim_bound or None)
        # Analyse and size everything first, so a failure leaves the module unchanged.
        for func in [f for f in walk_ops(op) if isinstance(f, FuncOp)]:
            bound_of = functools.partial(dim_bounds.of, func)
            if func.func_kind in MATMUL_KINDS and func.func_kind in self.KINDS:
                for acc in [mm for mm in walk_ops(func) if isinstance(mm, tensor.MatmulAccOp)]:
                    split_matmul_acc(acc, bound_of)
            if func.func_kind in MATMUL_KINDS:
                planned = [p for mm in walk_ops(func) if isinstance(mm, tensor.MatmulOp)
                           and (p := plan_matmul(mm, bound_of)) is not None]
                if len(planned) == 1 and planned[0].dynamic_m:
                    blocks = launch_dims.of(func)
                    planned[0].spmd = (blocks is None or blocks > 1) and self._single_matmul_body(func, planned[0])
                matmuls.extend(planned)
            if func.func_kind not in self.KINDS:
                continue
            skip = frozenset(o for p in matmuls for o in p.skipped)
            groups: list[FusionGroup] = []
            for block in _blocks(func):
                groups.extend(BlockGrouper(skip).scan(block))
            blocks = launch_dims.of(func)
            spmd = (blocks is None or blocks > 1) and self._single_group_body(func, groups)
            # every group of a kernel declares its own queues: they share the UB equally
            budget = self.ub_bytes // max(1, len(groups))
            for g in groups:
                work.append((func, g, plan_group(func, g, budget, self.ub_bytes, self.double_buffer, bound_of), spmd))
        if not work and not matmuls:
            return
        groups = {g.last: (func, g, plan, spmd) for func, g, plan, spmd in work}
        cube = {(p.sink if p.sink is not None else p.matmul): p for p in matmuls}
        patterns = GreedyRewritePatternApplier(
            [ConvertFusionGroup(groups), ConvertCubeMatmul(cube)], dce_enabled=False
        )
        FlatPatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
        invalidate(op)

    @staticmethod
    def _single_matmul_body(func: FuncOp, plan: MatmulPlan) -> bool:
        """True when the rows of a run-time M can be split across cores without a race: the
        matmul and its store are the function's only work, at its top level, storing into a
        parameter, and the body does not pick its share by block index itself."""
        if plan.sink is None or plan.sink.atomic is not None:
            return False
        if any(isinstance(o, tile.GetBlockIdxOp | tile.GetBlockNumOp) for o in func.walk()):
            return False
        entry = func.body.blocks[0]
        if plan.matmul.parent_block() is not entry:
            return False
        members = {plan.matmul, *plan.skipped}
        for o in entry.ops:
            if o in members or isinstance(o, ReturnOp) or is_side_effect_free(o):
                continue
            return False
        root = storage_of(plan.sink.dest).root
        return isinstance(root, BlockArgument) and root.block is entry

    @staticmethod
    def _single_group_body(func: FuncOp, groups: list[FusionGroup]) -> bool:
        """True when splitting the group's rows across cores cannot race: one group, at the
        function's top level, storing only into parameters, nothing else in the body touches
        memory, and the body does not already pick its share of the work by block index."""
        if len(groups) != 1:
            return False
        if any(isinstance(o, tile.GetBlockIdxOp | tile.GetBlockNumOp) for o in func.walk()):
            return False  # the body distributes its work over the cores itself
        g = groups[0]
        entry = func.body.blocks[0]
        if g.last is None or g.last.parent_block() is not entry or not g.sinks:
            return False
        members = set(g.members) | set(g.sinks)
        for o in entry.ops:
            if o in members or isinstance(o, ReturnOp) or is_side_effect_free(o):
                continue
            return False
        for m in g.members:
            if any(u.operation not in members for u in m.results[0].uses):
                return False
        return True


# --------------------------------------------------------------------------- verifier

_KEPT_TENSOR_OPS = (
    tensor.CreateOp, tensor.SliceOp, tensor.DimOp, tensor.ReadOp, tensor.WriteOp, tensor.ReshapeOp,
    tensor.TransposeOp, tensor.SetValidShapeOp,
)
"""Tensor ops that stay: allocation, views and single elements (no compute)."""

_COL_REDUCTIONS = (tensor.ColSumOp, tensor.ColMaxOp, tensor.ColMinOp, tensor.ColProdOp)


def _why_not_converted(op: Operation) -> str:
    func = func_of(op)
    if isinstance(op, tensor.MatmulOp):
        return matmul_reason(op) or "it was not converted"
    if isinstance(op, tensor.BatchMatmulOp | tensor.BatchMatmulAccOp):
        return "batched matmuls (an operand of rank > 2) have no tile-level lowering here"
    if func is not None and func.func_kind not in CONVERTED_KINDS:
        return "tensor-level compute other than matmul is converted in incore/aiv functions only"
    if type(op) in FUSED_TYPES:
        return _shape_reason(op) if convertible_key(op) is None else "it was not converted"
    if isinstance(op, _COL_REDUCTIONS):
        return "column reductions combine the row blocks the pass tiles over: not converted yet"
    if isinstance(op, tensor.MatmulAccOp):
        return ("it is converted as a tensor.matmul plus an add of its accumulator, and the cube path does not "
                "convert that product (see tensor.matmul's conditions)")
    if isinstance(op, tensor.AssembleOp):
        if shape_of(op.source.type) is None or shape_of(op.dest.type) is None:
            return "its shapes have an unknown dimension '?': name it (pl.dynamic) to tile it"
        shape = shape_of(op.source.type) or ()
        if not is_static(shape) and (reason := dynamic_reason(op, shape)) is not None:
            return reason
        if not storage_of(op.source).independent(shape, sink_storage(op), shape):
            return "its source and destination may overlap"
        return "it was not converted"
    return "the op has no tile-level lowering"


def _shape_reason(op: Operation) -> str:
    """Why the shapes of a fusable op keep it from being tiled."""
    for v in (*op.results, *op.operands):
        if not isinstance(v.type, TensorType):
            continue
        shape = shape_of(v.type)
        if shape is None:
            return f"its shape {v.type} has an unknown dimension '?': name it (pl.dynamic) to tile it"
        if 0 in shape:
            return f"the shape {v.type} is empty"
        if not is_static(shape) and (reason := dynamic_reason(op, shape)) is not None:
            return reason
    if isinstance(op, tensor.ConcatOp):
        return "a concat of dynamic column counts is not converted (a partial tile's columns would leave a gap)"
    return "its operand shapes differ from its result's"


def check_tensor_to_tile(
    module: ModuleOp,
    kinds: Iterable[FuncKind] = CONVERTED_KINDS,
    matmul_kinds: Iterable[FuncKind] = MATMUL_KINDS,
) -> list[str]:
    """Tensor-level compute left in InCore functions, one message per op: any tensor compute
    in `kinds` (`incore`/`aiv`), and `tensor.matmul` in `matmul_kinds` (`incore`/`aic`)."""
    kinds, matmul_kinds = frozenset(kinds), frozenset(matmul_kinds)
    problems: list[str] = []
    for func in module.walk():
        if not isinstance(func, FuncOp) or func.func_kind not in kinds | matmul_kinds:
            continue
        for op in func.walk():
            if not op.name.startswith("pypto.tensor.") or isinstance(op, _KEPT_TENSOR_OPS):
                continue
            if func.func_kind not in kinds and not isinstance(op, tensor.MatmulOp):
                continue
            what = f"%{op.results[0].name_hint}" if op.results and op.results[0].name_hint else "a result"
            problems.append(f"@{func.sym_name.data}: '{op.name}' ({what}) is left: {_why_not_converted(op)}")
    return problems


@dataclass(frozen=True)
class VerifyTensorToTilePass(ModulePass):
    """`verify-convert-tensor-to-tile`: no tensor-level compute left in incore/aiv functions
    and no `tensor.matmul` left in aic functions
    (what `convert-tensor-to-tile` establishes for everything it supports)."""

    name = "verify-convert-tensor-to-tile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        problems = check_tensor_to_tile(op)
        if problems:
            raise PassFailedException(
                "verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:\n  "
                + "\n  ".join(problems)
            )
