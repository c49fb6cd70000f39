"""The kernel half of `convert-pypto-to-ascendc`: one tile-level `pypto.func incore|aiv|aic`
becomes one `ascendc.kernel`.

The lowering walks the kernel body in program order, as the generated C++ reads, and emits
for every op the ascendc ops of its C++ statements. It is one ordered walk rather than
independent rewrites because what flows between ops is not SSA-local: a GM tensor value is a
window of a parameter (a view, materialised as `ascendc.at` where a copy uses it), a tile
carried through a loop lives in one fixed buffer that every iteration copies into, and the
names of C++ variables follow program order. The decisions (buffer of every tile, frees,
names) come from `KernelPlan` (pypto_xdsl/analysis/ascendc_kernel.py); this module only
realises them. Queue depths, TBuf sharing and capacities are left to ascendc-plan-buffers
(every queue is declared with depth 1, every buffer on its own); EnQue/DeQue, flags and
barriers to ascendc-insert-sync.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.ascendc_kernel import (
    BATCHED_MATMUL_REASON,
    BATCHED_MATMULS,
    BLOCK_BYTES,
    KernelPlan,
    Layout,
    PlannedBuffer,
    WorkspaceLayout,
    layout_of,
)
from pypto_xdsl.analysis.cxx_names import BackendError, ctype, kernel_namer, name_original_op, op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_hccl as H
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects import cross_core, program, tensor, tile
from pypto_xdsl.dialects.ascendc_kernel import KernelOp, KernelResultAttr, ReturnOp
from pypto_xdsl.dialects.ascendc_types import (
    GmAddrType,
    KernelKind,
    Pipe,
    TPosition,
)
from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    TensorType,
    TileType,
)
from pypto_xdsl.dialects.distributed_device import DEVICE_OPS, DeviceNranksOp, DeviceRankOp, WindowAtOp
from pypto_xdsl.transforms.ascendc_control_flow_lowering import ControlFlowLowering
from pypto_xdsl.transforms.ascendc_cube_lowering import CubeLowering
from pypto_xdsl.transforms.ascendc_gm_copy_lowering import GmCopyLowering
from pypto_xdsl.transforms.ascendc_partial_tiles import PartialTileLowering, PartialTiles, fold_partial_tiles
from pypto_xdsl.transforms.ascendc_vector_lowering import VECTOR_OPS, VectorLowering

NO_STORAGE_MESSAGE = "this tensor value does not name a kernel parameter's storage"

Term = tuple[SSAValue | None, int]


@dataclass(frozen=True)
class View:
    """A tensor value as a window of a kernel parameter (or kernel-local tensor): element
    (i, j) is element `offset + i * N + j` of the root (row-major, the root's row length N).
    `terms` is the offset as printed (empty: 0); `const` its value when it is constant."""

    root: SSAValue
    terms: tuple[Term, ...] = ()
    const: int | None = 0


class TileRef:
    """A tile value's local tensor: its current SSA handle, layout and buffer."""

    def __init__(self, value: SSAValue, var: str, layout: Layout, elem: Attribute, buffer: PlannedBuffer, decl: SSAValue):
        self.value = value
        self.var = var
        self.layout = layout
        self.elem = elem
        self.buffer = buffer
        self.decl = decl

    @property
    def position(self) -> TPosition:
        return self.buffer.position


class KernelLowering(ControlFlowLowering, CubeLowering, GmCopyLowering, VectorLowering, PartialTileLowering):
    def __init__(self, func: program.FuncOp, plan: KernelPlan):
        self.func = func
        self.plan = plan
        self.namer = plan.namer
        self.values: dict[SSAValue, SSAValue] = {}
        self.consts: dict[SSAValue, int | float] = {}
        self.zero_started: dict[SSAValue, scf.ForOp] = {}
        """Carried accumulators of K loops that start from zero (the first Mmad initialises)."""
        self.panel_chunks: dict[tile.SliceOp, tuple[tile.LoadOp, View, scf.ForOp]] = {}
        """Windows of resident panels copied chunk by chunk (`chunked_panel_loop`)."""
        self.mat_offsets: dict[SSAValue, list] = {}
        """Windows of resident mat tiles (tile.slice): their element offset terms in the panel."""
        self.tiles: dict[SSAValue, TileRef] = {}
        self.views: dict[SSAValue, View] = {}
        self.gm: dict[SSAValue, SSAValue] = {}  # root -> its GlobalTensor
        self.decls: dict[int, SSAValue] = {}  # id(PlannedBuffer) -> its tque/tbuf value
        self.builder: Builder = Builder(InsertPoint.at_end(Block()))
        self.constant_cache: dict[tuple, SSAValue] = {}
        self.dim_args: dict[str, SSAValue] = {}  # dimension symbol -> its kernel scalar parameter
        self.partial = PartialTiles()  # the copies and fills of valid blocks (fold_partial_tiles)
        self.storage_of: dict[SSAValue, SSAValue] = {}  # a reshape's root -> the parameter/local it views

    # ------------------------------------------------------------------ entry

    def lower(self) -> KernelOp:
        func, plan = self.func, self.plan
        sig = plan.signature
        arg_types: list[Attribute] = []
        arg_names: list[str] = []
        for arg in func.args:
            arg_types.append(GmAddrType() if isinstance(arg.type, TensorType) else arg.type)
            arg_names.append(sig.params[arg])
        for cxx_name in sig.dims.values():  # run-time extents, after the kernel's own parameters
            arg_types.append(IndexType())
            arg_names.append(cxx_name)
        if sig.ws_bytes:
            arg_types.append(GmAddrType())
            arg_names.append(sig.ws_param)  # type: ignore[arg-type]
        kernel = KernelOp(func.sym_name.data, KernelKind.CUBE if plan.cube else KernelKind.VECTOR, arg_types)
        kernel.arg_names = ArrayAttr([StringAttr(n) for n in arg_names])
        block = kernel.body.block
        for old, new in zip(func.args, block.args):
            new.name_hint = old.name_hint
            if not isinstance(old.type, TensorType):
                self.values[old] = new
        for k, symbol in enumerate(sig.dims):
            dim_arg = block.args[len(func.args) + k]
            dim_arg.name_hint = symbol
            self.dim_args[symbol] = dim_arg
        if sig.ws_bytes:
            block.args[-1].name_hint = "workspace"
        self.builder = Builder(InsertPoint.at_end(block))
        self._prologue(block)
        for op in func.body.block.ops:
            self.lower_op(op)
        self.builder.insert(ReturnOp())
        results: list[KernelResultAttr] = []
        ret = func.body.block.last_op
        if isinstance(ret, program.ReturnOp):
            slots = {slot.value: slot for slot in sig.slots}
            for v in ret.arguments:
                root = self.tensor_root(v).root
                root = self.storage_of.get(root, root)
                if isinstance(root, BlockArgument) and root.owner.parent_op() is func:
                    results.append(KernelResultAttr("param", root.index))
                elif root in slots:
                    results.append(KernelResultAttr("workspace", slots[root].offset))
        if results:
            kernel.results_ = ArrayAttr(results)
        if sig.ws_bytes:
            kernel.workspace = IntegerAttr(sig.ws_bytes, i64)
        return kernel

    def _prologue(self, block: Block) -> None:
        func, plan, sig = self.func, self.plan, self.plan.signature
        for old, new in zip(func.args, block.args):
            t = old.type
            if isinstance(t, TensorType):
                shape = t.get_shape()
                if not t.is_static():  # run-time dimensions: `N * C` elements, `N * 128`, ...
                    static = 1
                    for d in shape:
                        static *= 1 if isinstance(d, str) else int(d)  # type: ignore[arg-type]
                    extents = [self.dim_args[d] for d in shape if isinstance(d, str)]
                    gt = self.builder.insert(M.GlobalTensorOp(sig.gm[old], new, t.element_type, static,
                                                              extent=extents))
                else:
                    gt = self.builder.insert(M.GlobalTensorOp(sig.gm[old], new, t.element_type, t.num_elements()))
                gt.result.name_hint = sig.gm[old]
                self.gm[old] = gt.result
                self.views[old] = View(old)
        if sig.ws_bytes:
            bw = self.builder.insert(M.BlockWorkspaceOp(sig.ws_block, block.args[-1], sig.ws_bytes))  # type: ignore[arg-type]
            bw.result.name_hint = sig.ws_block
            for slot in sig.slots:
                t = slot.value.type
                assert isinstance(t, TensorType)
                comment = (f"%{slot.value.name_hint or '?'} {t}, workspace bytes "
                           f"[{slot.offset}, {slot.offset + slot.bytes})")
                gt = self.builder.insert(M.GlobalTensorOp(sig.gm[slot.value], bw.result, t.element_type,
                                                          t.num_elements(), slot.offset, comment))
                gt.result.name_hint = sig.gm[slot.value]
                self.gm[slot.value] = gt.result
        self._declare_reshapes()
        if any(isinstance(o, tuple(DEVICE_OPS)) for o in func.walk()):
            # the client of the launch's communication domain: the rank, the group, the windows
            h = self.builder.insert(H.HcclOp(self.namer.fresh("hccl")))
            h.result.name_hint = h.var.data
            self.hccl = h.result
        if not plan.buffers:
            return
        pipe = self.builder.insert(M.PipeOp("pipe"))
        pipe.result.name_hint = "pipe"
        self.pipe = pipe.result
        decls = []
        for b in plan.buffers:
            if b.position == TPosition.VECCALC:
                d = self.builder.insert(M.TBufOp(b.name, b.position, [b.what], fixed=b.fixed))
            else:
                d = self.builder.insert(M.TQueOp(b.name, b.position, 1, [b.what]))
            d.results[0].name_hint = b.name
            self.decls[id(b)] = d.results[0]
            decls.append((b, d.results[0]))
        for b, d in decls:
            num = None if b.position == TPosition.VECCALC else 1
            self.builder.insert(M.InitBufferOp(self.pipe, d, b.bytes, num))

    def _declare_reshapes(self) -> None:
        """A `tensor.reshape` of a whole parameter or kernel-local tensor (or of such a reshape)
        is another GlobalTensor over the same storage, declared with the others: its windows
        then address rows of the new shape. Reshapes of windows are refused where lowered."""
        for op in self.func.walk():
            if not isinstance(op, tensor.ReshapeOp) or op.input not in self.gm:
                continue
            src = self.gm[op.input].owner
            assert isinstance(src, M.GlobalTensorOp)
            t = op.result.type
            assert isinstance(t, TensorType)
            name = self.namer.fresh(f"{op.result.name_hint or 'reshaped'}_gm")
            off = src.offset.value.data if src.offset is not None else None
            gt = self.builder.insert(M.GlobalTensorOp(name, src.addr, t.element_type, t.num_elements(), off,
                                                      f"%{op.result.name_hint or '?'} {t}, a reshape of {op.input.type}"))
            gt.result.name_hint = name
            self.gm[op.result] = gt.result
            self.storage_of[op.result] = self.storage_of.get(op.input, op.input)

    # ------------------------------------------------------------------ cross-core flags

    def _cross_core_flag(self, op: cross_core.SetFlagOp | cross_core.WaitFlagOp) -> None:
        """A flag of a MIX kernel's member (lower-cross-core-rings numbered it): mode 2, or mode 1
        for a flag among the AIVs (split-vector-member's exchange of partial results). A set is issued
        on the pipe of the global-memory access it publishes (the last one before it on this
        core: Fixpipe, MTE3 copy out or MTE2 copy in), so that access completes first; a wait
        stalls issue on PIPE_S (CrossCoreWaitFlag's default), before whatever follows."""
        mode = 1 if op.pipe_kind is cross_core.Pipe.V2V else 2  # among the AIVs; the AIC and its AIV(s)
        if isinstance(op, cross_core.WaitFlagOp):
            self._insert(S.CrossCoreWaitFlagOp(Pipe.PIPE_S, op.id_value, mode))
            return
        self._insert(S.CrossCoreSetFlagOp(self._publishing_pipe(op), op.id_value, mode))

    def _publishing_pipe(self, op: Operation) -> Pipe:
        cursor: Operation | None = op
        while cursor is not None:
            prev = cursor.prev_op
            while prev is not None:
                accesses = [o for o in prev.walk() if isinstance(o, tile.LoadOp | tile.StoreOp | tile.AtomicStoreOp)]
                if accesses:
                    last = accesses[-1]
                    if isinstance(last, tile.LoadOp):
                        return Pipe.PIPE_MTE2
                    space = last.tile.type.space  # type: ignore[union-attr]
                    return Pipe.PIPE_FIX if space == MemorySpace.ACC else Pipe.PIPE_MTE3
                prev = prev.prev_op
            parent = cursor.parent_op()
            cursor = parent if parent is not None and parent is not self.func else None
        return Pipe.PIPE_MTE2  # nothing accessed yet (a ring's initial credits)

    # ------------------------------------------------------------------ helpers

    def _insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    def scalar(self, value: SSAValue) -> SSAValue:
        v = self.values.get(value)
        if v is None:
            owner = value.owner
            op = owner if isinstance(owner, Operation) else owner.parent_op()
            raise op_error(op, f"value of type {value.type} has no C++ equivalent here")  # type: ignore[arg-type]
        return v

    def constant(self, value: int, t: Attribute) -> SSAValue:
        op = self._insert(arith.ConstantOp(IntegerAttr(value, t)))
        return op.results[0]

    def scalar_as(self, value: SSAValue, elem: Attribute) -> SSAValue:
        """The scalar as an operand of an instruction on `elem` elements (a static_cast where
        the C++ types differ)."""
        if ctype(value.type) == ctype(elem):
            return value
        return self._insert(C.ScalarCastOp(value, elem)).results[0]

    def literal_as(self, value: int, elem: Attribute) -> SSAValue:
        """`static_cast<T>(value)` for an integer literal."""
        return self._insert(C.ScalarCastOp(self.constant(value, i64), elem)).results[0]

    def at(self, base: SSAValue, terms: list[Term] | tuple[Term, ...]) -> SSAValue:
        if not terms:
            return base
        return self._insert(M.AtOp(base, list(terms))).results[0]

    def at_const(self, base: SSAValue, offset: int) -> SSAValue:
        return self.at(base, [(None, offset)] if offset else [])

    def tensor_root(self, value: SSAValue) -> View:
        view = self.views.get(value)
        if view is None:
            owner = value.owner
            op = owner if isinstance(owner, Operation) else owner.parent_op()
            raise op_error(op, NO_STORAGE_MESSAGE)  # type: ignore[arg-type]
        return view

    def _tile_ref(self, value: SSAValue, op: Operation) -> TileRef:
        t = value.type
        assert isinstance(t, TileType)
        buf = self.plan.buffer_of(value)
        if buf is None:
            raise op_error(op, f"its tile result %{value.name_hint or '?'} has no planned buffer")
        var = self.plan.tile_var[value]
        return TileRef(value, var, layout_of(t, op), t.element_type, buf, self.decls[id(buf)])

    def _tile_ref_view(self, value: SSAValue, op: Operation, of: TileRef) -> TileRef:
        """The TileRef of a view of `of`'s local tensor with `value`'s shape."""
        t = value.type
        assert isinstance(t, TileType)
        return TileRef(of.value, of.var, layout_of(t, op), of.elem, of.buffer, of.decl)

    def def_tile(self, value: SSAValue, op: Operation) -> TileRef:
        """The tile's local tensor: `AllocTensor` from its queue or `Get` from its TBuf."""
        ref = self._tile_ref(value, op)
        if ref.position == TPosition.VECCALC:
            new = self._insert(M.GetBufOp(ref.var, ref.decl, ref.elem))
        else:
            new = self._insert(M.AllocTensorOp(ref.var, ref.decl, ref.elem))
        new.results[0].name_hint = ref.var
        ref.value = new.results[0]
        self.tiles[value] = ref
        return ref

    def tile_of(self, value: SSAValue) -> TileRef:
        return self.tiles[value]

    def copy_tile(self, dst: TileRef, src: TileRef) -> None:
        self._insert(M.DataCopyOp(dst.value, src.value, count=dst.layout.alloc_elems))

    def free_after(self, op: Operation) -> None:
        for value in self.plan.frees.get(op, ()):
            ref = self.tiles.get(value)
            if ref is None:
                raise op_error(op, f"the tile %{value.name_hint or '?'} it frees has no local tensor")
            self._insert(M.FreeTensorOp(ref.decl, ref.value))

    # ------------------------------------------------------------------ ops

    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        self.fills_at(op, self.partial.before)
        if isinstance(op, arith.ConstantOp):
            new = self._insert(op.clone())
            self.values[op.result] = new.results[0]
            value = op.value
            if isinstance(value, IntegerAttr | FloatAttr):
                self.consts[op.result] = value.value.data
        elif op.dialect_name() == "arith":
            new = op.clone(value_mapper={k: v for k, v in self.values.items()})
            for o in op.operands:
                self.scalar(o)
            self._insert(new)
            for a, b in zip(op.results, new.results):
                self.values[a] = b
        elif isinstance(op, scf.ForOp):
            self.lower_for(op)
        elif isinstance(op, scf.IfOp):
            self.lower_if(op)
        elif isinstance(op, scf.WhileOp):
            self.lower_while(op)
        elif isinstance(op, scf.YieldOp | scf.ConditionOp):
            raise op_error(op, "unexpected scf.yield")
        else:
            self.lower_other(op)
        self.fills_at(op, self.partial.after)
        self.free_after(op)

    def lower_other(self, op: Operation) -> None:
        if isinstance(op, program.ReturnOp):
            return self._check_return(op)
        if isinstance(op, cross_core.SetFlagOp | cross_core.WaitFlagOp):
            return self._cross_core_flag(op)
        if isinstance(op, tile.LoadOp):
            return self._load(op)
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
            return self._store(op)
        if isinstance(op, tensor.SliceOp):
            _, origin = self._window(self.tensor_root(op.source), op.offsets)
            self.views[op.result] = origin
            return
        if isinstance(op, tensor.DimOp):
            t = op.source.type
            assert isinstance(t, TensorType)
            dim = t.get_shape()[op.axis.value.data]
            if isinstance(dim, str):  # a run-time extent: the kernel's scalar parameter
                self.values[op.result] = self.dim_args[dim]
                return
            new = self._insert(arith.ConstantOp(IntegerAttr(dim, IndexType())))
            new.results[0].name_hint = op.result.name_hint
            self.values[op.result] = new.results[0]
            self.consts[op.result] = dim  # type: ignore[assignment]
            return
        if isinstance(op, tensor.SetValidShapeOp):  # the same storage; its loads read their share (fold_partial_tiles)
            self.views[op.result] = self.tensor_root(op.input)
            return
        if isinstance(op, tensor.CreateOp):
            self.views[op.result] = View(op.result)
            return
        if isinstance(op, tensor.ReshapeOp):
            if op.result not in self.gm:
                raise op_error(op, "it reshapes a window of a tensor; only whole parameters and kernel-local tensors "
                                   "are reshaped inside a kernel (a view of whole rows)")
            self.views[op.result] = View(op.result)
            return
        if isinstance(op, tile.GetBlockIdxOp | tile.GetBlockNumOp | tile.GetSubBlockIdxOp):
            query = {tile.GetBlockIdxOp: C.GetBlockIdxOp, tile.GetBlockNumOp: C.GetBlockNumOp,
                     tile.GetSubBlockIdxOp: C.GetSubBlockIdxOp}[type(op)]
            new = self._insert(query())
            new.results[0].name_hint = op.result.name_hint
            self.values[op.result] = new.results[0]
            return
        if isinstance(op, tile.ReluOp | tile.CastOp) and op.result.type.space == MemorySpace.ACC:  # type: ignore[union-attr]
            return self._fixpipe_epilogue(op)
        if isinstance(op, tile.SliceOp) and op.result.type.space == MemorySpace.MAT:  # type: ignore[union-attr]
            return self._mat_window(op)
        if isinstance(op, tile.TransposeViewOp) and op.result.type.space == MemorySpace.MAT:  # type: ignore[union-attr]
            self.tiles[op.result] = self.tile_of(op.input)  # the same L1 tensor, moved without a transpose
            return
        if isinstance(op, tile.FullOp) and op.result.type.space == MemorySpace.ACC:  # type: ignore[union-attr]
            return self._zero_accumulator(op)
        if self.lower_vector(op):
            return
        if isinstance(op, tile.MoveOp) and op.result.type.space in (MemorySpace.LEFT, MemorySpace.RIGHT):  # type: ignore[union-attr]
            return self._split(op)
        if isinstance(op, tile.MatmulOp | tile.MatmulAccOp | tile.MatmulBiasOp):
            return self._mmad(op)
        if isinstance(op, tile.MoveOp):
            a = self.tile_of(op.input)
            d = self.def_tile(op.result, op)
            if a.layout.elem_bytes != d.layout.elem_bytes:
                # the converting L1 -> bias table copy (half -> float): DataCopy<float, half>
                # with DataCopyParams whose blockLen counts 64-byte blocks of the half source
                blocks = a.layout.alloc_elems * a.layout.elem_bytes // 64
                self._insert(M.DataCopyOp(d.value, a.value, params=[1, blocks, 0, 0]))
                return
            self._insert(M.DataCopyOp(d.value, a.value, count=d.layout.alloc_elems))
            return
        if isinstance(op, tensor.ReadOp | tensor.WriteOp):
            return self.lower_gm_element(op)
        if isinstance(op, WindowAtOp | DeviceRankOp | DeviceNranksOp):
            return self._window_op(op)
        if isinstance(op, tensor.TransposeOp):
            return self.lower_gm_transpose(op)
        if isinstance(op, tensor.AssembleOp):
            return self.lower_gm_assemble(op)
        if isinstance(op, BATCHED_MATMULS):
            raise op_error(op, BATCHED_MATMUL_REASON)
        if op.name.startswith("pypto.tensor."):
            raise op_error(op, "tensor-level compute must be converted to tile ops first (convert-tensor-to-tile)")
        if isinstance(op, program.CallOp | program.SubmitOp):
            raise op_error(op, "kernels cannot call functions (inline them first)")
        raise op_error(op, "this op is not supported by the Ascend C backend")

    def _window_op(self, op: WindowAtOp | DeviceRankOp | DeviceNranksOp) -> None:
        """A rank's window (its own or a peer's) as a GlobalTensor at its byte offset of that
        rank's windows-in region; the rank queries as the HCCL client's."""
        if isinstance(op, DeviceRankOp | DeviceNranksOp):
            query = H.HcclRankIdOp if isinstance(op, DeviceRankOp) else H.HcclRankDimOp
            self.values[op.result] = self._insert(query(self.hccl)).results[0]
            return
        t = op.result.type
        assert isinstance(t, TensorType)
        rank = self.scalar(op.peer) if op.peer is not None else self._insert(H.HcclRankIdOp(self.hccl)).results[0]
        name = self.namer.fresh(f"{op.result.name_hint or 'window'}_gm")
        gt = self._insert(H.HcclWindowOp(name, self.hccl, self.scalar(op.offset), rank, t.element_type, t.num_elements()))
        gt.result.name_hint = name
        self.gm[op.result] = gt.result
        self.views[op.result] = View(op.result)

    def _check_return(self, op: program.ReturnOp) -> None:
        for v in op.arguments:
            if not isinstance(v.type, TensorType):
                raise op_error(op, f"kernels can only return tensors written through parameters, got {v.type}")
            view = self.tensor_root(v)
            root = self.storage_of.get(view.root, view.root)
            if isinstance(root, BlockArgument) and root.owner.parent_op() is self.func:
                continue
            if view.const != 0 or root.type != v.type:
                raise op_error(
                    op,
                    f"the kernel returns a window of the kernel-local tensor %{root.name_hint or '?'} {root.type}; "
                    "only a whole kernel-local tensor can be returned (the host reads it from the workspace)",
                )

    # ---- GM windows

    def _gm_offset(self, tensor_type: TensorType, offsets) -> tuple[list[Term], int | None]:
        shape = tensor_type.get_shape()
        if any(isinstance(d, str) for d in shape[1:]):
            return self._gm_offset_runtime(tensor_type, offsets)
        strides = [1] * len(shape)
        for k in range(len(shape) - 2, -1, -1):
            strides[k] = strides[k + 1] * int(shape[k + 1])  # type: ignore[arg-type]
        terms: list[Term] = []
        const = 0
        all_const = True
        for off, stride in zip(offsets, strides):
            known = self.consts.get(off)
            if known is not None:
                const += int(known) * stride
                continue
            all_const = False
            terms.append((self.scalar(off), stride))
        if const:
            terms.append((None, const))
        return terms, (const if all_const else None)

    def _gm_offset_runtime(self, tensor_type: TensorType, offsets) -> tuple[list[Term], int | None]:
        """The offset of a window of a 2-D tensor with a run-time row length C: `i * C + j`."""
        shape = tensor_type.get_shape()
        assert len(shape) == 2 and isinstance(shape[1], str)
        row_len = self.dim_args[shape[1]]
        i, j = offsets
        terms: list[Term] = []
        known_i, known_j = self.consts.get(i), self.consts.get(j)
        if known_i is None:
            product = self._insert(arith.MuliOp(self.scalar(i), row_len)).results[0]
            product.name_hint = "row_offset"
            terms.append((product, 1))
        elif known_i:
            terms.append((row_len, int(known_i)))
        if known_j is None:
            terms.append((self.scalar(j), 1))
        elif known_j:
            terms.append((None, int(known_j)))
        return terms, (0 if not terms else None)

    def _window(self, view: View, offsets) -> tuple[SSAValue | None, View]:
        """The origin of a window of `view` at `offsets` (and its GlobalTensor, when the root
        has one)."""
        root_type = view.root.type
        assert isinstance(root_type, TensorType)
        terms, const = self._gm_offset(root_type, offsets)
        if view.const is not None and const is not None:
            total = view.const + const
            origin = View(view.root, ((None, total),) if total else (), total)
        else:
            origin = View(view.root, tuple(view.terms) + tuple(terms), None)
        return None, origin

    def _gm_at(self, view: View, offsets) -> SSAValue:
        _, origin = self._window(view, offsets)
        return self.at(self.gm[view.root], origin.terms)

    # ---- copies between GM and local tensors

    @staticmethod
    def _copy_form(op: Operation, tensor_type: TensorType, layout: Layout) -> tuple[str, int]:
        shape = tensor_type.get_shape()
        if isinstance(shape[-1], str):
            raise op_error(op, f"a whole [{layout.rows}, {layout.cols}] tile of {tensor_type}, whose rows have the "
                               f"run-time length {shape[-1]}: only a partial tile (valid[...]) is copied to or from it")
        n = int(shape[-1])  # type: ignore[arg-type]
        rows, cols, eb = layout.rows, layout.cols, layout.elem_bytes
        rows_gm = 1 if len(shape) == 1 else rows
        if cols == 1 and rows > 1 and n != 1:
            raise op_error(op, f"a [{rows}, 1] column window of {tensor_type} is strided; column loads are not supported")
        contiguous = rows_gm == 1 or cols == n
        if contiguous and (layout.ld == cols or rows == 1):
            total = rows * cols
            return ("count" if (total * eb) % BLOCK_BYTES == 0 else "pad_flat"), total
        if (cols * eb) % BLOCK_BYTES == 0 and ((n - cols) * eb) % BLOCK_BYTES == 0:
            return "params", rows * cols
        return "pad", rows * cols

    def _copy(self, op: Operation, tensor_type: TensorType, lay: Layout, local: SSAValue, gm: SSAValue, *, to_gm: bool) -> None:
        shape = tensor_type.get_shape()
        if len(shape) == 2 and isinstance(shape[-1], str) and lay.cols > 1:
            # rows of a run-time length: the whole tile is copied as a valid block, with a run-time GM gap
            return self._partial_copy(op, tensor_type, lay, local, gm, (lay.rows, lay.cols), to_gm=to_gm)
        form, count = self._copy_form(op, tensor_type, lay)
        dst, src = (gm, local) if to_gm else (local, gm)
        n = int(tensor_type.get_shape()[-1])  # type: ignore[arg-type]
        if form == "count":
            self._insert(M.DataCopyOp(dst, src, count=count))
            return
        if form == "params":
            blk = lay.cols * lay.elem_bytes // BLOCK_BYTES
            stride = (n - lay.cols) * lay.elem_bytes // BLOCK_BYTES
            if any(v > 65535 for v in (lay.rows, blk, stride)):
                raise op_error(op, "the copy is too large for one DataCopy (16-bit block counts)")
            src_stride, dst_stride = (0, stride) if to_gm else (stride, 0)
            self._insert(M.DataCopyOp(dst, src, params=[lay.rows, blk, src_stride, dst_stride]))
            return
        if form == "pad_flat":
            rows, length, gap = 1, count * lay.elem_bytes, 0
        else:
            rows, length, gap = lay.rows, lay.cols * lay.elem_bytes, (n - lay.cols) * lay.elem_bytes
        if to_gm:
            self._insert(M.DataCopyPadOp(dst, src, [rows, length, 0, gap, 0]))
        else:
            self._insert(M.DataCopyPadOp(dst, src, [rows, length, gap, 0, 0], [False, 0, 0, 0]))

    def _load(self, op: tile.LoadOp) -> None:
        if op.result.type.space == MemorySpace.MAT:  # type: ignore[union-attr]
            return self._load_nz(op)
        view = self.tensor_root(op.source)
        src = view.root.type
        assert isinstance(src, TensorType)
        d = self.def_tile(op.result, op)
        gm = self._gm_at(view, op.offsets)
        valid = self.partial.loads.get(op)
        if op.is_partial and valid is None:
            raise op_error(op, "a partial load of a 1-D tile is not supported")
        if valid is not None:
            fill = self.partial.fills.get(op.result)
            return self._partial_copy(op, src, d.layout, d.value, gm, valid, to_gm=False,
                                      pad=fill.pad if fill is not None else None)
        self._copy(op, src, d.layout, d.value, gm, to_gm=False)

    def _store(self, op: tile.StoreOp | tile.AtomicStoreOp) -> None:
        view = self.tensor_root(op.dest)
        dst = view.root.type
        assert isinstance(dst, TensorType)
        self.views[op.result] = view
        ref = self.tile_of(op.tile)
        if isinstance(op, tile.AtomicStoreOp):
            # the add is a mode of the copy into GM: on for this store only
            if str(ref.elem) not in M.ATOMIC_ADD_ELEMENTS:
                raise op_error(op, f"an atomic add of {ref.elem} elements into global memory does not exist on dav-c220 "
                                   f"(SetAtomicAdd takes {', '.join(M.ATOMIC_ADD_ELEMENTS)})")
            self._insert(M.SetAtomicAddOp(ref.elem))
            self._store_plain(op, view, dst, ref)
            self._insert(M.SetAtomicNoneOp())
            return
        self._store_plain(op, view, dst, ref)

    def _store_plain(self, op: tile.StoreOp | tile.AtomicStoreOp, view: View, dst: TensorType, ref: TileRef) -> None:
        if ref.position == TPosition.CO1:
            return self._fixpipe(op, view, ref)
        if op in self.plan.direct_store and ref.position == TPosition.VECOUT:
            local, queue = ref.value, ref.decl
        else:
            staging = self.plan.store_staging.get(op)
            if staging is None:
                raise op_error(op, f"the stored tile lives in {ref.position.value} buffer '{ref.buffer.name}' and has no staging queue")
            var = self.namer.fresh(f"{ref.var}_out")
            queue = self.decls[id(staging)]
            alloc = self._insert(M.AllocTensorOp(var, queue, ref.elem))
            alloc.results[0].name_hint = var
            local = alloc.results[0]
            self._insert(M.DataCopyOp(local, ref.value, count=ref.layout.alloc_elems))
        gm = self._gm_at(view, op.offsets)
        valid = self.partial.stores.get(op)
        if valid is not None:
            self._partial_copy(op, dst, ref.layout, local, gm, valid, to_gm=True)
        else:
            self._copy(op, dst, ref.layout, local, gm, to_gm=True)
        self._insert(M.FreeTensorOp(queue, local))

# Every tile op the kernel lowering emits Ascend C for.
LOWERED_TILE_OPS = frozenset((
    *VECTOR_OPS, tile.LoadOp, tile.StoreOp, tile.AtomicStoreOp, tile.MoveOp, tile.MatmulOp, tile.MatmulAccOp, tile.GetBlockIdxOp,
    tile.MatmulBiasOp, tile.GetBlockNumOp, tile.GetSubBlockIdxOp, tile.SetValidShapeOp, tile.FillPadOp,  # the last two by fold_partial_tiles
))


def lower_kernel(func: program.FuncOp, workspace: WorkspaceLayout | None = None) -> KernelOp:
    """The ascendc.kernel of one tile-level incore function (raises BackendError); its
    kernel-local tensors where `workspace` places them, when given (a MIX kernel's member)."""
    refuse_gathers(func)
    partial = PartialTiles()
    if not any(isinstance(op, tile.SetValidShapeOp | tile.FillPadOp | tensor.SetValidShapeOp)
               or isinstance(op, tile.LoadOp) and op.is_partial
               for op in func.walk()):
        return _lower(func, partial, workspace)
    copy = func.clone()
    originals = dict(zip(copy.walk(), func.walk()))
    try:
        return _lower(copy, fold_partial_tiles(copy), workspace)
    except BackendError as e:
        name_original_op(e, originals)  # located in the input, not in the copy
        raise


_GATHER_REFUSALS = {
    tile.MgatherOp: "an indexed copy from global memory has no Ascend C lowering here (DataCopy moves "
                    "contiguous or strided blocks; Gather and Gatherb read the Unified Buffer)",
    tile.MscatterOp: "an indexed copy into global memory has no Ascend C lowering here (PyPTO's MSCATTER "
                     "is an Ascend 950 instruction)",
}


def refuse_gathers(func: program.FuncOp) -> None:
    """Refuse the first indexed gather or scatter of `func` (pypto_xdsl/dialects/tile_gather.py),
    naming it, before the kernel is planned."""
    for op in func.walk():
        why = _GATHER_REFUSALS.get(type(op))
        if why is not None:
            raise op_error(op, why)


def _lower(func: program.FuncOp, partial: PartialTiles, workspace: WorkspaceLayout | None) -> KernelOp:
    plan = KernelPlan.build(func, workspace)
    lowering = KernelLowering(func, plan)
    lowering.partial = partial
    return lowering.lower()


__all__ = ["LOWERED_TILE_OPS", "lower_kernel", "KernelLowering", "View", "kernel_namer", "IntegerType"]
