"""convert-pypto-to-ascendc: tile-level pypto kernels (with scf/arith) -> `ascendc` kernels.

Every `pypto.func incore|aiv|aic` becomes an `ascendc.kernel` of the same name
(pypto_xdsl/transforms/ascendc_kernel_lowering.py: one op per C++ statement of the kernel,
each queue with depth 1 and each buffer on its own, no synchronisation yet); every
`pypto.call`/`pypto.submit` of such a kernel in host code becomes an `ascendc.launch`
(a RewritePattern per call site). Orchestration functions otherwise stay as they are: the
host printer prints them directly (docs/backend.md says why).

Errors name the op and the function, with the messages the backend has always given
(`cannot lower 'pypto.tile.load' in @k: ...`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis.ascendc_kernel import returned_locals, returned_params
from pypto_xdsl.analysis.cxx_names import BackendError, op_error
from pypto_xdsl.analysis.dim_bounds import parameter_dim
from pypto_xdsl.analysis.dynamic_extents import dynamic_symbols, unsupported_dynamic_shape, value_name
from pypto_xdsl.analysis.symbols import invalidate, lookup_symbol
from pypto_xdsl.analysis.target_cores import TARGET, resident_blocks
from pypto_xdsl.analysis.write_through import escapes_region
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.ascendc_kernel import KernelOp, LaunchOp
from pypto_xdsl.dialects.ascendc_types import KernelKind
from pypto_xdsl.dialects.attributes import FuncKind, TensorType, format_shape
from pypto_xdsl.dialects.launch import SYNC_START_ATTR
from pypto_xdsl.transforms.ascendc_kernel_lowering import lower_kernel


def _host_root(value: SSAValue) -> SSAValue:
    """The device storage a host tensor value is a window of (through slices, assembles,
    call results and loop carries), as far as the host printer follows it."""
    for _ in range(10000):
        if isinstance(value, BlockArgument):
            owner = value.owner.parent_op()
            if isinstance(owner, scf.ForOp) and value.index > 0:
                value = owner.iter_args[value.index - 1]
                continue
            return value
        op = value.owner
        if isinstance(op, tensor.SliceOp):
            value = op.source
        elif isinstance(op, tensor.AssembleOp):
            value = op.dest if hasattr(op, "dest") else op.operands[1]
        elif isinstance(op, scf.ForOp):
            value = op.iter_args[value.index]  # type: ignore[union-attr]
        elif isinstance(op, program.CallOp | program.SubmitOp | LaunchOp):
            callee = lookup_symbol(op, op.callee)
            if isinstance(callee, program.FuncOp):
                idx = returned_params(callee) if callee.is_incore else []
            elif isinstance(callee, KernelOp):
                idx = [r.value.data if r.kind.data == "param" else None for r in callee.result_kinds]
            else:
                return value
            k = value.index  # type: ignore[union-attr]
            if k >= len(idx) or idx[k] is None:
                return value
            value = op.operands[idx[k]]  # type: ignore[index]
        else:
            return value
    return value


def _check_kernel_argument(op: Operation, value: SSAValue) -> None:
    t = value.type
    if not isinstance(t, TensorType) or not isinstance(value.owner, tensor.SliceOp):
        return
    root = _host_root(value)
    shape = t.get_shape()
    root_shape = root.type.get_shape()  # type: ignore[attr-defined]
    contiguous = len(shape) < 2 or shape[0] == 1 or shape[-1] == root_shape[-1]
    if not contiguous and shape[-1] is not None:  # a run-time row length: the host printer compares the extents
        raise op_error(
            op,
            f"kernel argument {t} is a strided window of {root.type}; kernels take "
            "contiguous tensors (pass the whole tensor and offsets, or full-row slices)",
        )


@dataclass
class LaunchKernels(RewritePattern):
    """`pypto.call`/`pypto.submit` of a lowered kernel -> `ascendc.launch` (block count from
    the call's or the callee's `pypto.block_dim`)."""

    kernels: dict[str, program.FuncOp]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, program.CallOp | program.SubmitOp):
            return
        name = op.callee.string_value()
        callee = self.kernels.get(name)
        if callee is None:
            return
        blocks = program.launch_block_dim(op, callee)
        args = list(op.args)
        for symbol in dynamic_symbols(callee):  # the kernel's run-time extents, read from its arguments
            found = parameter_dim(callee, symbol)
            assert found is not None
            param, axis = found
            dim = tensor.DimOp(op.args[param.index], axis)
            dim.result.name_hint = symbol
            rewriter.insert(dim, InsertPoint.before(op))
            args.append(dim.result)
        if isinstance(op, program.SubmitOp):
            launch = LaunchOp(name, blocks, args, [*op.outputs.types, op.results[-1].type],
                              deps=list(op.deps), task=True)
        else:
            launch = LaunchOp(name, blocks, args, list(op.res.types))
        for old, new in zip(op.results, launch.results):
            new.name_hint = old.name_hint
        if (sync_start := op.attributes.get(SYNC_START_ATTR)) is not None:
            launch.attributes[SYNC_START_ATTR] = sync_start  # the host checks the device's cores first
        rewriter.replace(op, launch)


def check_sync_start(op: program.CallOp | program.SubmitOp, callee: program.FuncOp, kind: str) -> None:
    """A `pypto.sync_start` launch starts every block at once, so all of them must be resident
    on the target's cores together (raises BackendError naming the call). A core count known
    only at run time is checked by the host code before the launch."""
    if SYNC_START_ATTR not in op.attributes or program.launch_cores(op) is not None:
        return
    blocks = program.launch_block_dim(op, callee)
    cores = resident_blocks(kind)
    if blocks > cores:
        unit = {"aiv": "vector cores (AIV)", "aic": "cube cores (AIC)", "mix": "core groups (one AIC and its AIVs)"}[kind]
        raise op_error(
            op, f"sync_start launch of @{op.callee.string_value()} on {blocks} blocks, but {TARGET} runs at most "
            f"{cores} blocks of this {kind} kernel at once ({cores} {unit}); every block of a sync_start launch "
            f"must be resident at the same time: launch at most {cores} blocks",
        )


def check_launch(op: program.CallOp | program.SubmitOp, callee: program.FuncOp) -> None:
    """What a launch of a lowered kernel needs (raises BackendError naming the call)."""
    if len(op.args) != len(callee.args):
        raise op_error(op, "omitted output arguments are not supported by the host printer")
    for a in op.args:
        _check_kernel_argument(op, a)
    results = op.outputs if isinstance(op, program.SubmitOp) else op.res
    params = returned_params(callee)
    for k, slot in enumerate(returned_locals(callee)):
        if slot is None or k >= len(results) or (k < len(params) and params[k] is not None):
            continue
        result = results[k]
        what = f"@{callee.sym_name.data} returns the kernel-local tensor %{result.name_hint or '?'} {result.type}"
        dim = program.launch_block_dim(op, callee)
        if dim != 1:
            raise op_error(op, f"{what} but is launched on {dim} blocks, each with its own copy; write it into an out parameter")
        if escapes_region(result):
            raise op_error(
                op, f"{what}, which lives in the launch's workspace; the workspace is reused by every iteration, "
                "so the result cannot be carried out of the loop or branch (write it into an out parameter)",
            )


UNSUPPORTED = "docs/backend.md, \"Dynamic shapes\""


# Host ops that take or make tensors of run-time extents: the host printer follows the extents
# as C++ values (allocations, windows, element reads; docs/backend.md, "Dynamic shapes").
_HOST_DYNAMIC_OPS = (
    program.CallOp, program.SubmitOp, LaunchOp, program.ReturnOp, tensor.DimOp, tensor.CreateOp,
    tensor.SliceOp, tensor.ReadOp, tensor.SetValidShapeOp, tensor.AssembleOp,
)


def _unsupported_extent(func: program.FuncOp) -> tuple[Operation | None, str] | None:
    """The first parameter or op of `func` that depends on a run-time extent in a way the
    backend does not lower, with the reason."""
    if not func.body.blocks:
        return None
    for k, arg in enumerate(func.body.blocks[0].args):
        t = arg.type
        if isinstance(t, TensorType) and not t.is_static() and (why := unsupported_dynamic_shape(t)) is not None:
            name = value_name(arg) if arg.name_hint else f"#{k}"
            return None, f"tensor parameter {name} has the dynamic shape {format_shape(t.get_shape())}: {why}"
    for op in func.body.walk():
        if func.is_incore and isinstance(op, tensor.CreateOp) and not op.result.type.is_static():  # type: ignore[attr-defined]
            return op, (f"{value_name(op.result)} has the dynamic shape {format_shape(op.result.type.get_shape())}; "  # type: ignore[attr-defined]
                        "the workspace is planned from static shapes")
        if func.is_incore or isinstance(op, _HOST_DYNAMIC_OPS):
            continue
        if op.dialect_name() == "scf":  # loops and branches carry a tensor's storage, whatever its shape
            continue
        for operand in op.operands:
            t = operand.type
            if isinstance(t, TensorType) and not t.is_static():
                return op, (f"it takes {value_name(operand)} of the dynamic shape {format_shape(t.get_shape())}; "
                            "orchestration code passes dynamic tensors to kernels whole")
        for result in op.results:
            t = result.type
            if isinstance(t, TensorType) and not t.is_static():
                return op, (f"{value_name(result)} has the dynamic shape {format_shape(t.get_shape())}; "
                            "orchestration code passes dynamic tensors to kernels whole")
    return None


def check_dynamic_extents(module: ModuleOp) -> None:
    """Refuse the first kernel or orchestration function that depends on a run-time extent
    in a way the backend does not lower (a dynamic column count, an unnamed extent, a dynamic
    tensor made in a function, a window of a dynamic tensor on the host), naming the
    parameter or op, before anything is lowered or printed (raises BackendError). A run-time
    row count is lowered: it reaches kernels as a scalar parameter (docs/backend.md)."""
    funcs = list(program.func_ops(module))
    kernels = [f for f in funcs if f.is_incore]
    hosts = [f for f in funcs if f.func_kind in (FuncKind.ORCHESTRATION, FuncKind.GRAPH)]
    for func in (*kernels, *hosts):
        found = _unsupported_extent(func)
        if found is not None:
            op, why = found
            where = f"@{func.sym_name.data}" if op is None else f"'{op.name}' in @{func.sym_name.data}"
            raise BackendError(f"ascendc: cannot lower {where}: {why} ({UNSUPPORTED})")


def lower_module(module: ModuleOp) -> None:
    """Lower every tile-level kernel of `module` to an ascendc.kernel, every group to a MIX
    kernel (its members' rings lowered first: lower-cross-core-rings) and their launches to
    ascendc.launch (raises BackendError)."""
    from pypto_xdsl.transforms.ascendc_mix_lowering import lower_groups
    from pypto_xdsl.transforms.pair_cube_blocks import pair_cube_blocks

    check_dynamic_extents(module)
    groups = lower_groups(module)
    members = {m for g in groups for m in g.members}
    kernels = [f for f in program.func_ops(module) if f.is_incore and f not in members]
    for f in kernels:
        if f.func_kind == FuncKind.AIC:
            pair_cube_blocks(f)  # a no-op once it ran (pypto-ascendc runs it by name)
    lowered = [(f, lower_kernel(f)) for f in kernels]
    for g in groups:
        lowered.append((g.func, g.kernel))
        lowered.extend((None, k) for k in g.member_kernels)
    if kernels or groups:
        by_name = {f.sym_name.data: f for f in kernels}
        by_name |= {g.func.sym_name.data: g.launched for g in groups}
        kinds = {f.sym_name.data: "aic" if k.kernel_kind == KernelKind.CUBE else "aiv" for f, k in lowered if f is not None}
        kinds |= {g.func.sym_name.data: "mix" for g in groups}
        for op in module.walk():
            if isinstance(op, program.CallOp | program.SubmitOp) and op.callee.string_value() in by_name:
                check_launch(op, by_name[op.callee.string_value()])
                check_sync_start(op, by_name[op.callee.string_value()], kinds[op.callee.string_value()])
        PatternRewriteWalker(GreedyRewritePatternApplier([LaunchKernels(by_name)], dce_enabled=False), apply_recursively=False).rewrite_module(module)
    anchor: Operation | None = None
    for func, kernel in lowered:
        if func is None:  # a MIX kernel's member, before the MIX kernel
            assert anchor is not None
            module.body.block.insert_op_before(kernel, anchor)
            continue
        module.body.block.insert_op_before(kernel, func)
        anchor = kernel
        func.detach()
        func.erase(safe_erase=False)
    for f in members:
        f.detach()
        f.erase(safe_erase=False)
    invalidate(module)


def has_pypto_kernels(module: ModuleOp) -> bool:
    return any(f.is_incore or f.func_kind == FuncKind.GROUP for f in program.func_ops(module))


@dataclass(frozen=True)
class ConvertPyptoToAscendCPass(ModulePass):
    """`convert-pypto-to-ascendc`."""

    name = "convert-pypto-to-ascendc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            lower_module(op)
        except BackendError as e:
            raise PassFailedException(f"{self.name}: {str(e).removeprefix('ascendc: ')}") from e


__all__ = ["ConvertPyptoToAscendCPass", "lower_module", "tile"]
