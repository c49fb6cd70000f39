"""Tensors as the host code sees them: their C element types, windows of device storage
(`HostView`), device buffers (`DeviceTensor`), extents and offsets as C++ text, and the
parameter each result of a function or a kernel writes through."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import BlockArgument, SSAValue

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.backend.ascendc.cxx import Expr, byte_width, ctype
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.ascendc_kernel import KernelOp, LaunchOp
from pypto_xdsl.dialects.attributes import TensorType


def host_ctype(t) -> str:
    """Host-side element type: ACL has no `half`; f16 data is `aclFloat16` (16-bit storage)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type

    if isinstance(t, Float16Type):
        return "aclFloat16"
    if isinstance(t, BFloat16Type):
        return "uint16_t"
    return ctype(t)


def result_params_across_calls(func: program.FuncOp) -> list[int | None]:
    """For each result of `func`, the index of the tensor parameter it writes through, else
    None: followed through loops and branches and, as an orchestration function needs, through
    the calls and kernel launches it makes (`analysis.ascendc_kernel.returned_params` follows
    the stores and slices of one kernel instead)."""
    ret = func.body.block.last_op
    if not isinstance(ret, program.ReturnOp):
        return []
    out: list[int | None] = []
    for v in ret.arguments:
        out.append(_param_index(func, v))
    return out


def _param_index(func: program.FuncOp, value: SSAValue) -> int | None:
    for _ in range(10000):
        if isinstance(value, BlockArgument):
            owner = value.owner.parent_op()
            if owner is func:
                return value.index
            if isinstance(owner, scf.ForOp) and value.index > 0:
                value = owner.iter_args[value.index - 1]
                continue
            if isinstance(owner, scf.WhileOp):
                if value.owner is owner.before_region.block:
                    value = owner.arguments[value.index]
                else:
                    value = owner.before_region.block.last_op.args[value.index]  # type: ignore[union-attr]
                continue
            return None
        op = value.owner
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp | tile.MscatterOp):
            value = op.dest
        elif isinstance(op, tensor.AssembleOp):
            value = op.dest if hasattr(op, "dest") else op.operands[1]
        elif isinstance(op, scf.ForOp):
            value = op.iter_args[value.index]  # type: ignore[union-attr]
        elif isinstance(op, scf.WhileOp):
            value = op.before_region.block.last_op.args[value.index]  # type: ignore[union-attr]
        elif isinstance(op, scf.IfOp):
            y = op.true_region.block.last_op
            value = y.operands[value.index]  # type: ignore[union-attr]
        elif isinstance(op, LaunchOp):
            callee = lookup_symbol(op, op.callee)
            if not isinstance(callee, KernelOp):
                return None
            idx = launch_result_params(callee)
            k = value.index  # type: ignore[union-attr]
            if k >= len(idx) or idx[k] is None:
                return None
            value = op.args[idx[k]]
        elif isinstance(op, program.CallOp | program.SubmitOp):
            callee = lookup_symbol(op, op.callee)
            if not isinstance(callee, program.FuncOp):
                return None
            idx = result_params_across_calls(callee)
            k = value.index  # type: ignore[union-attr]
            if k >= len(idx) or idx[k] is None:
                return None
            value = op.args[idx[k]]
        else:
            return None
    return None


def launch_result_params(kernel: KernelOp) -> list[int | None]:
    """For each tensor result of a kernel, the parameter it is written through (else None)."""
    return [r.value.data if r.kind.data == "param" else None for r in kernel.result_kinds]


def launch_result_workspace(kernel: KernelOp) -> list[int | None]:
    """For each tensor result of a kernel, its workspace byte offset when it is kernel-local."""
    return [r.value.data if r.kind.data == "workspace" else None for r in kernel.result_kinds]


@dataclass(frozen=True)
class HostView:
    """A tensor value as a window of device storage (a parameter or a `tensor.create`):
    element (i, j) is element `offset + i * N + j` of the storage (N its row length). Extents
    are C++ texts: a literal (`16`), the variable of a dimension symbol, or the value a `?`
    extent was given by its `tensor.create` / `tensor.slice` (run-time extents)."""

    root: SSAValue
    shape: tuple[str, ...]
    root_shape: tuple[str, ...]
    offset: str = "0"
    const: int | None = 0

    @property
    def whole(self) -> bool:
        return self.const == 0 and self.shape == self.root_shape

    @property
    def contiguous(self) -> bool:
        return len(self.shape) < 2 or self.shape[0] == "1" or self.shape[-1] == self.root_shape[-1]


def extent_product(factors) -> str:
    """`a * b * 16` of C++ extent texts, the literals folded."""
    static, parts = 1, []
    for f in factors:
        if f.isdigit():
            static *= int(f)
        else:
            parts.append(f)
    if static == 0:
        return "0"
    return " * ".join([*parts, str(static)] if static != 1 or not parts else parts)


def linear_offset(shape: tuple[str, ...], offsets: list[Expr]) -> tuple[str, int | None]:
    """The row-major element offset of `offsets` in a tensor of extents `shape` (C++ texts),
    and its value when it is a constant."""
    strides = [extent_product(shape[k + 1:]) for k in range(len(shape))]
    terms, const, known = [], 0, True
    for off, stride in zip(offsets, strides):
        if off.const_value is not None and stride.isdigit():
            const += int(off.const_value) * int(stride)
        elif off.const_value == 0 or stride == "0":
            continue
        else:
            known = False
            terms.append(off.text if stride == "1" else f"({off.text}) * {stride}")
    if const:
        terms.append(str(const))
    return (" + ".join(terms) if terms else "0"), (const if known else None)


@dataclass
class DeviceTensor:
    var: str  # device pointer variable
    type: TensorType
    size: str | None = None  # a C++ byte count for a dynamic shape (a variable holding it)

    @property
    def nbytes(self) -> int | str:
        if self.size is not None:
            return self.size
        return self.type.num_elements() * byte_width(self.type.element_type)


def static_product(extents: tuple[str, ...]) -> int:
    count = 1
    for d in extents:
        count *= int(d)
    return count


def dims_expr(t: TensorType, symbols: dict[str, str]) -> str:
    """The element count of a dynamic tensor as C++ (`N * 128`), its symbols named by `symbols`."""
    return extent_product([f"static_cast<size_t>({symbols[d]})" if isinstance(d, str) else str(d) for d in t.get_shape()])


