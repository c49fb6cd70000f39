"""The global-to-global part of the kernel lowering (`convert-pypto-to-ascendc`): a
`tensor.assemble` left inside a kernel, whose source is a tensor in global memory (a window
of a parameter, or a `tensor.transpose` view of one), not a tile.

Global memory is not copied into global memory directly: the source goes through UB in the
blocks `KernelPlan` sized (`GmStaging`), each one `DataCopy`/`DataCopyPad` GM -> UB into a
VECIN tensor, then into a VECOUT tensor — `DataCopy` UB -> UB for a plain copy, a transpose for
a transposed view — and `DataCopy`/`DataCopyPad` UB -> GM into the destination window (under
`SetAtomicAdd<T>()` for `atomic(add)`). The queue hand-offs between MTE2, the vector or scalar
unit and MTE3 are ascendc-insert-sync's; the transpose's scalar-unit flags are the scalar
lowering's. A `tensor.transpose` emits nothing: it names the source its assemble reads.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from pypto_xdsl.analysis.ascendc_kernel import byte_width, gm_assemble_source, staging_layout
from pypto_xdsl.analysis.cxx_names import op_error
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import tensor
from pypto_xdsl.dialects.attributes import AtomicKind, TensorType


class GmCopyLowering:
    """Mixin of KernelLowering: `tensor.assemble` / `tensor.transpose` between GM tensors."""

    def lower_gm_transpose(self, op: tensor.TransposeOp) -> None:
        """A view that only a GM-to-GM assemble may read (it transposes while staging)."""
        for use in op.result.uses:
            if not (isinstance(use.operation, tensor.AssembleOp) and use.operation.source is op.result):
                raise op_error(use.operation, "it uses a tensor.transpose view inside a kernel; the Ascend C backend "
                                              "lowers a transposed tensor only as the source of a tensor.assemble "
                                              "(transpose a tile instead: pl.tile.transpose)")
        if op.input.type.rank != 2:  # type: ignore[attr-defined]
            raise op_error(op, "only 2-D tensors are transposed by the Ascend C backend")

    def _gm_block(self, origin, extra: int) -> SSAValue:
        """The GlobalTensor at the window origin `origin` (a View), plus `extra` elements."""
        if origin.const is not None:
            total = origin.const + extra
            terms = [(None, total)] if total else []
        else:
            terms = [*origin.terms, *([(None, extra)] if extra else [])]
        return self.at(self.gm[origin.root], terms)  # type: ignore[attr-defined]

    def lower_gm_assemble(self, op: tensor.AssembleOp) -> None:
        staging = self.plan.gm_staging[op]  # type: ignore[attr-defined]
        source, transposed = gm_assemble_source(op)
        src_view = self.tensor_root(source)  # type: ignore[attr-defined]
        dst_view = self.tensor_root(op.dest)  # type: ignore[attr-defined]
        self.views[op.result] = dst_view  # type: ignore[attr-defined]
        src_type, dst_type = source.type, op.dest.type
        assert isinstance(src_type, TensorType) and isinstance(dst_type, TensorType)
        src_root, dst_root = src_view.root.type, dst_view.root.type
        shape = src_type.get_shape()
        rows, cols = (1, int(shape[0])) if src_type.rank == 1 else (int(shape[0]), int(shape[1]))  # type: ignore[arg-type]
        elem = src_type.element_type
        eb = byte_width(elem)
        _, dst_origin = self._window(dst_view, op.offsets)  # type: ignore[attr-defined]
        n_src = int(src_root.get_shape()[-1])  # type: ignore[arg-type]
        n_dst = int(dst_root.get_shape()[-1])  # type: ignore[arg-type]
        in_decl, out_decl = self.decls[id(staging.inbound)], self.decls[id(staging.outbound)]  # type: ignore[attr-defined]
        atomic = op.atomic is not None and op.atomic.data == AtomicKind.ADD
        for r0 in range(0, rows, staging.rows):
            h = min(staging.rows, rows - r0)
            in_lay = staging_layout(h, cols, eb)
            inbound = self._alloc(op, in_decl, elem, "in")
            src_at = self._gm_block(src_view, r0 * n_src if src_type.rank == 2 else 0)
            self._copy(op, src_root, in_lay, inbound, src_at, to_gm=False)  # type: ignore[attr-defined]
            outbound = self._alloc(op, out_decl, elem, "out")
            if transposed:
                out_lay = staging_layout(cols, h, eb)
                self.transpose_local(op, inbound, in_lay, outbound, out_lay, staging.scratch)  # type: ignore[attr-defined]
                dst_extra = r0  # source rows become destination columns
            else:
                out_lay = in_lay
                self._insert(M.DataCopyOp(outbound, inbound, count=in_lay.alloc_elems))  # type: ignore[attr-defined]
                dst_extra = r0 * n_dst if dst_type.rank == 2 else 0
            self._insert(M.FreeTensorOp(in_decl, inbound))  # type: ignore[attr-defined]
            dst_at = self._gm_block(dst_origin, dst_extra)
            if atomic:
                if str(elem) not in M.ATOMIC_ADD_ELEMENTS:
                    raise op_error(op, f"an atomic add of {elem} elements into global memory does not exist on dav-c220 "
                                       f"(SetAtomicAdd takes {', '.join(M.ATOMIC_ADD_ELEMENTS)})")
                self._insert(M.SetAtomicAddOp(elem))  # type: ignore[attr-defined]
            self._copy(op, dst_root, out_lay, outbound, dst_at, to_gm=True)  # type: ignore[attr-defined]
            if atomic:
                self._insert(M.SetAtomicNoneOp())  # type: ignore[attr-defined]
            self._insert(M.FreeTensorOp(out_decl, outbound))  # type: ignore[attr-defined]

    def _alloc(self, op: Operation, decl: SSAValue, elem, role: str) -> SSAValue:
        name = self.namer.fresh(f"{op.result.name_hint or 'asm'}_{role}")  # type: ignore[attr-defined]
        alloc = self._insert(M.AllocTensorOp(name, decl, elem))  # type: ignore[attr-defined]
        alloc.results[0].name_hint = name
        return alloc.results[0]
