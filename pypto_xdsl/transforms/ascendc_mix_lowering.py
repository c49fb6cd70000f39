"""The group half of `convert-pypto-to-ascendc`: a `group` function becomes one MIX kernel.

A group (expand-mixed-kernel) launches an `aic` and an `aiv` member as one task. On dav-c220
cross-core flags only work inside a MIX kernel (CrossCoreSetFlag's constraint: the FFTS
scheduler is enabled for MIX kernel types only), and two kernels launched on one stream run
one after the other, so a ring between them would deadlock once full: the pair is one
`ascendc.kernel mix` whose body branches to its members (`ascendc.core_call aic|aiv`, printed
`if ASCEND_IS_AIC { k_aic(...); }`), each member an `ascendc.kernel cube|vector` with
`group = "k"` (printed as an `__aicore__ inline` function with its own TPipe and buffer plan).

The group's workspaces (the rings lower-cross-core-rings made, the tensors both cores share)
become kernel-local tensors of both members, created first and in the group's order. Both
members are lowered with one workspace layout (`analysis.group_workspace`): the shared
tensors at the same offsets, each member's own kernel-local tensors (a cube-side staging
tensor, the AIVs' exchanged partial results) at offsets of their own, and one per-block size,
so no tensor of one core overlaps one of the other in the block's part of the workspace.

The aiv member is split between the two AIVs of the core group when it can be
(`split_vector_member`: each AIV computes half of every tile): the kernel is then
KERNEL_TYPE_MIX_AIC_1_2 (`task_ratio = 2`), and the member's block index and workspace part
are `GetBlockIdx() / GetTaskRatio()` (an AIV's GetBlockIdx() counts vector cores). Otherwise
it is KERNEL_TYPE_MIX_AIC_1_1: one AIC and one AIV per block, the same block index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation

from pypto_xdsl.analysis.cxx_names import BackendError
from pypto_xdsl.analysis.group_workspace import group_workspace_layout
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import program, tensor
from pypto_xdsl.dialects.ascendc_compute import GetBlockIdxOp
from pypto_xdsl.dialects.ascendc_kernel import CoreCallOp, KernelOp, ReturnOp
from pypto_xdsl.dialects.ascendc_types import GmAddrType, KernelKind
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.cross_core import TASK_RATIO_ATTR, TRANSFER_TYPES, group_members, group_task_ratio
from pypto_xdsl.transforms.ascendc_kernel_lowering import lower_kernel
from pypto_xdsl.transforms.split_vector_member import split_group_member


@dataclass
class LoweredGroup:
    func: program.FuncOp  # the group
    members: tuple[program.FuncOp, program.FuncOp]  # its aic and aiv functions (erased by the caller)
    kernel: KernelOp  # the MIX kernel, named after the group
    member_kernels: list[KernelOp] = field(default_factory=list)
    launched: program.FuncOp | None = None  # what a launch of the group checks against (the aiv member's view)


def _internalise_workspaces(
    group: program.FuncOp, member: program.FuncOp
) -> tuple[program.FuncOp, dict[tensor.CreateOp, tensor.CreateOp]]:
    """A copy of `member` in which every parameter the group passes a workspace to is a
    kernel-local tensor, created at the top in the group's order; and, for each workspace the
    group creates and passes to it, the copy's tensor.create standing for it."""
    clone = member.clone()
    calls = [op for op in group.body.block.ops if isinstance(op, program.CallOp)]
    call = next(c for c in calls if c.callee.string_value() == member.sym_name.data)
    block = clone.body.block
    first = block.first_op
    assert first is not None
    standing_for: dict[tensor.CreateOp, tensor.CreateOp] = {}
    replaced: list[int] = []
    for made in group.body.block.ops:
        if not isinstance(made, tensor.CreateOp):
            continue
        for k, arg in enumerate(call.args):
            if arg is not made.result:
                continue
            param = block.args[k]
            if made not in standing_for:
                create = tensor.CreateOp(arg.type)  # type: ignore[arg-type]
                create.result.name_hint = param.name_hint
                block.insert_op_before(create, first)
                standing_for[made] = create
            param.replace_all_uses_with(standing_for[made].result)
            replaced.append(k)
    for k in sorted(replaced, reverse=True):
        block.erase_arg(block.args[k])
    inputs = [t for k, t in enumerate(clone.function_type.inputs.data) if k not in replaced]
    clone.function_type = FunctionType.from_lists(inputs, list(clone.function_type.outputs.data))
    clone.set_directions([d for k, d in enumerate(clone.directions) if k not in replaced])
    return clone, standing_for


def _count_blocks_by_core_group(kernel: KernelOp) -> None:
    """On the AIV of a 1:2 MIX kernel GetBlockIdx() counts vector cores (block * 2 + sub-block):
    the member's block index and its part of the workspace are the core group's."""
    for op in kernel.walk():
        if isinstance(op, GetBlockIdxOp | M.BlockWorkspaceOp):
            op.properties["task_ratio"] = IntegerAttr(2, i64)


def lower_group(group: program.FuncOp) -> LoweredGroup:
    aic, aiv = group_members(group)
    name = group.sym_name.data
    if aic is None or aiv is None:
        raise BackendError(f"ascendc: cannot lower group @{name}: it does not call an aic and an aiv member")
    for member in (aic, aiv):
        for op in member.walk():
            if isinstance(op, TRANSFER_TYPES):
                raise BackendError(
                    f"ascendc: cannot lower '{op.name}' in @{member.sym_name.data}: rings are lowered to global "
                    "memory by lower-cross-core-rings first"
                )
    ratio = group_task_ratio(group)
    if isinstance(ratio, str):
        raise BackendError(f"ascendc: cannot lower group @{name}: {ratio}")
    vector_member = aiv
    if TASK_RATIO_ATTR not in group.attributes:  # split-vector-member did not run: split here
        split = split_group_member(group, aiv)
        if split is not None:
            vector_member = split
        ratio = 1 if split is None else 2
    internalised = [_internalise_workspaces(group, m) for m in (aic, vector_member)]
    clones = [c for c, _ in internalised]
    made = [op for op in group.body.block.ops if isinstance(op, tensor.CreateOp)]
    shared = [[mine[c] for _, mine in internalised] for c in made if all(c in mine for _, mine in internalised)]
    layouts = group_workspace_layout(clones, shared)
    kernels = [lower_kernel(c, layout) for c, layout in zip(clones, layouts)]
    aic_kernel, aiv_kernel = kernels
    if ratio == 2:
        _count_blocks_by_core_group(aiv_kernel)
    ws = max(k.workspace_bytes for k in kernels)
    for k in kernels:
        k.group = StringAttr(name)
    params = [list(k.launch_params) for k in kernels]
    if [a.type for a in params[0]] != [a.type for a in params[1]]:
        raise BackendError(f"ascendc: cannot lower group @{name}: its members' kernels take different parameters")
    arg_types = [a.type for a in params[1]] + ([GmAddrType()] if ws else [])
    mix = KernelOp(name, KernelKind.MIX, arg_types)
    block = mix.body.block
    names = [n.data for n in aiv_kernel.arg_names.data] if aiv_kernel.arg_names is not None else []
    for k, arg in enumerate(block.args):
        arg.name_hint = params[1][k].name_hint if k < len(params[1]) else "workspace"
    if names:
        mix.arg_names = aiv_kernel.arg_names if len(names) == len(block.args) else None
        if mix.arg_names is None:
            from xdsl.dialects.builtin import ArrayAttr

            mix.arg_names = ArrayAttr([StringAttr(n) for n in names[: len(params[1])]] + [StringAttr("workspace")])
    for core, k in (("aic", aic_kernel), ("aiv", aiv_kernel)):
        args = list(block.args[: len(params[1])]) + ([block.args[-1]] if k.workspace_bytes else [])
        block.add_op(CoreCallOp(core, k.sym_name.data, args))
    block.add_op(ReturnOp())
    if aiv_kernel.results_ is not None:
        mix.results_ = aiv_kernel.results_
    if ws:
        mix.workspace = IntegerAttr(ws, i64)
    if ratio == 2:
        mix.task_ratio = IntegerAttr(2, i64)
    mix.sync = StringAttr("explicit")
    launched = clones[1]
    launched.attributes |= dict(group.attributes)
    return LoweredGroup(group, (aic, aiv), mix, [aic_kernel, aiv_kernel], launched)


def lower_groups(module: ModuleOp) -> list[LoweredGroup]:
    """Every group of `module` as a MIX kernel (its rings lowered first); nothing is replaced yet."""
    from pypto_xdsl.transforms.hoist_cube_loads import hoist_cube_loads
    from pypto_xdsl.transforms.lower_cross_core_rings import lower_rings
    from pypto_xdsl.transforms.pipeline_cross_core_loops import pipeline_cross_core_loops

    groups = [f for f in program.func_ops(module) if f.func_kind == FuncKind.GROUP]
    if not groups:
        return []
    hoist_cube_loads(module)  # before the pops become waits (a no-op once the rings are lowered)
    pipeline_cross_core_loops(module)  # likewise
    errors = lower_rings(module)
    if errors:
        raise BackendError(f"ascendc: cannot lower {errors[0]}")
    return [lower_group(g) for g in groups]


def is_member(kernel: Operation) -> bool:
    return isinstance(kernel, KernelOp) and kernel.group is not None


__all__ = ["LoweredGroup", "is_member", "lower_group", "lower_groups"]
