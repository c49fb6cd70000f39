"""Kernel printer: one Ascend C vector or cube kernel per `pypto.func incore|aiv|aic` with a
tile-level body.

The printer only prints: the buffer of every tile value, the staging and scratch buffers, the
queue depths (double buffering) and the memory totals come from `ascendc-plan-buffers`; where
each queue tile is freed, direct vs staged stores, the EnQue/DeQue hand-offs between pipeline
stages, the SetFlag/WaitFlag pairs and the PipeBarrier<PIPE_V> between dependent ops come from
`ascendc-insert-sync` (see planning.py and docs/passes/). Barriers between the vector
instructions the printer emits for one op (two-stage reductions, Brcb then Sub, Duplicate then
Div, several carried-tile copies) are the printer's own. A kernel that carries no annotations is planned on a clone first, so printing
never changes its input.

Kernel-local tensors (`pypto.tensor.create` in a kernel) live in GM at fixed offsets of a
per-block workspace that the host allocates per launch and passes as a trailing
`GM_ADDR workspace` argument (`workspace_plan`).

UB layout of a tile [R, C]: rows are padded to 32 bytes (row stride `ld`), except single-row
and single-column tiles, which are packed. Vector ops run over `R * ld` elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pypto_xdsl.backend.ascendc.cxx import (
    BLOCK_BYTES,
    MAX_REPEAT,
    REPEAT_BYTES,
    UB_BYTES,
    BackendError,
    CxxWriter,
    Expr,
    cast_to,
    ctype,
    op_error,
)
from pypto_xdsl.backend.ascendc.planning import (  # noqa: F401  (re-exported for host.py and tests)
    BARRIER_ATTR,
    CUBE_SPACES,
    FLAGS_ATTR,
    FREE_ATTR,
    FREED_KINDS,
    HANDOFF_ATTR,
    KIND_MEMORY,
    MEMORY_BYTES,
    SCRATCH_ATTR,
    STAGING_ATTR,
    STORE_ATTR,
    Buffer,
    Layout,
    WorkspaceSlot,
    cube_layout,
    kernel_cxx_name,
    new_kernel_namer,
    prepare_kernel,
    read_buffers,
    read_memory,
    require_buffer,
    result_buffers,
    signature_names,
    storage_root,
    string_attr,
    tile_layout,
    uses_cube,
    workspace_plan,
)
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    TensorType,
    TileType,
    is_float_type,
)

_BINARY = {
    tile.AddOp: "Add",
    tile.SubOp: "Sub",
    tile.MulOp: "Mul",
    tile.DivOp: "Div",
    tile.MaximumOp: "Max",
    tile.MinimumOp: "Min",
}
_UNARY = {
    tile.ExpOp: "Exp",
    tile.LogOp: "Ln",
    tile.SqrtOp: "Sqrt",
    tile.AbsOp: "Abs",
    tile.ReluOp: "Relu",
    tile.RecipOp: "Reciprocal",
}


# Repeats per Brcb when a row broadcast needs several (over 2040 rows): 254 x 8 rows keeps the
# next call's source offset 32-byte aligned for 2-byte elements too (255 x 8 halves would not).
_BRCB_REPEATS = 254


@dataclass(frozen=True)
class View:
    """A tensor value as a window of a kernel parameter: element (i, j) of the view is element
    `offset + i * N + j` of the parameter (row-major, the parameter's row length N)."""

    root: SSAValue
    offset: str = "0"
    const: int | None = 0  # the offset when it is a compile-time constant




@dataclass
class TileInfo:
    var: str
    layout: Layout
    elem: str
    buffer: Buffer
    loaded: bool



def returned_locals(func: program.FuncOp) -> list[WorkspaceSlot | None]:
    """For each result of kernel `func`, the workspace slot of the whole kernel-local tensor it
    returns (the host reads it from the launch's workspace), else None."""
    ret = func.body.block.last_op
    if not isinstance(ret, program.ReturnOp):
        return []
    slots = {s.value: s for s in workspace_plan(func)[0]}
    out: list[WorkspaceSlot | None] = []
    for v in ret.arguments:
        root = storage_root(func, v) if isinstance(v.type, TensorType) else None
        out.append(slots.get(root) if root is not None and root.type == v.type else None)  # type: ignore[arg-type]
    return out


def workspace_bytes(func: program.FuncOp) -> int:
    """Workspace bytes per block that a launch of kernel `func` must provide (0: none)."""
    return workspace_plan(func)[1]



class KernelPrinter(CxxWriter):
    """Prints one incore function, planned and synchronised, as an Ascend C kernel."""

    NO_STORAGE_MESSAGE = "this tensor value does not name a kernel parameter's storage"

    def __init__(self, func: program.FuncOp):
        namer, self.kernel_name = new_kernel_namer(func)
        super().__init__(namer)
        self.func = func
        self.gm: dict[SSAValue, str] = {}  # tensor param -> GlobalTensor name
        self.tiles: dict[SSAValue, TileInfo] = {}
        self.buffers: list[Buffer] = []
        self.queue_tiles: dict[str, TileInfo] = {}  # queue name -> the tile it holds
        self.carried_declared: set[str] = set()  # C++ variables of carried tiles already declared
        # buffers read / written by the carried-tile copies printed since the last barrier of
        # the current group (the copies of one loop entry or one terminator)
        self.copy_group: tuple[set[str], set[str]] = (set(), set())

    # ------------------------------------------------------------------ entry

    def print(self) -> str:
        self.func = prepare_kernel(self.func)
        self.cube = uses_cube(self.func)
        # `ascendc-insert-sync{pipe-v-barriers=false}`: the toolchain inserts PIPE_V barriers
        auto = string_attr(self.func, BARRIER_ATTR)
        if auto not in (None, "auto"):
            raise BackendError(
                f"ascendc: @{self.func.sym_name.data}: the kernel's '{BARRIER_ATTR}' must be \"auto\" "
                f"(PIPE_V barriers left to the toolchain), got \"{auto}\""
            )
        self.auto_barriers = auto == "auto"
        params = self._params()
        self._read_plan()
        body_lines = self._body()
        return self._assemble(params, body_lines)

    # ------------------------------------------------------------------ parameters

    def _params(self) -> list[str]:
        names = signature_names(self.func, self.namer)
        sig: list[str] = []
        for arg in self.func.args:
            name = names.params[arg]
            if isinstance(arg.type, TensorType):
                self.gm[arg] = names.gm[arg]
                self.tensor_views[arg] = View(arg)
                self.exprs[arg] = Expr(name, "GM_ADDR")
                sig.append(f"GM_ADDR {name}")
            else:
                c = ctype(arg.type)
                self.exprs[arg] = Expr(name, c)
                sig.append(f"{c} {name}")
        self.ws_slots, self.ws_bytes = names.slots, names.ws_bytes
        self.ws_param, self.ws_block = names.ws_param, names.ws_block
        if self.ws_bytes:
            sig.append(f"GM_ADDR {self.ws_param}")
            for slot in self.ws_slots:
                self.gm[slot.value] = names.gm[slot.value]
        return sig

    # ------------------------------------------------------------------ the recorded plan

    def _read_plan(self) -> None:
        func = self.func
        by_name = read_buffers(func)
        self.buffer_map = by_name
        self.buffers = list(by_name.values())
        memory = read_memory(func)
        self.mem_bytes = {m: used for m, (used, _) in memory.items()}
        self.mem_capacity = {m: cap for m, (_, cap) in memory.items()}
        self.ub_bytes = self.mem_bytes.get("UB", 0)
        for mem in {KIND_MEMORY[b.kind] for b in self.buffers}:
            if mem not in memory:
                raise BackendError(f"ascendc: @{func.sym_name.data}: the buffer plan has {mem} buffers but no {mem} total")
        for b in self.buffers:
            if b.name in self.namer.used or self.namer.sanitize(b.name) != b.name:
                raise BackendError(
                    f"ascendc: @{func.sym_name.data}: planned buffer name '{b.name}' is not a fresh C++ identifier"
                )
            self.namer.used.add(b.name)
        self._bind_tiles(func.body.block)

    def _bind_tiles(self, block: Block) -> None:
        """Give every planned tile value its C++ variable (same order as the planner)."""
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._bind_tiles(inner)
            for res, name in zip(op.results, result_buffers(op)):
                t = res.type
                if not isinstance(t, TileType):
                    continue
                if not name:
                    raise op_error(op, f"its tile result %{res.name_hint or '?'} has no planned buffer (ascendc.buffer)")
                buf = require_buffer(op, self.buffer_map, name, "ascendc.buffer")
                if (KIND_MEMORY[buf.kind] == "UB") != (t.space == MemorySpace.VEC):
                    raise op_error(op, f"a {t.space.value} tile cannot live in {buf.kind} buffer '{name}'")
                if t.space == MemorySpace.ACC and isinstance(op, tile.MatmulAccOp | scf.ForOp):
                    continue  # aliases the accumulator it updates (bound while printing)
                layout = cube_layout(t) if t.space in CUBE_SPACES else tile_layout(t, op)
                info = TileInfo(self.namer.fresh(res.name_hint or "t"), layout, ctype(t.element_type), buf,
                                loaded=buf.kind in FREED_KINDS)
                self.tiles[res] = info
                if isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp):
                    buf.shareable = False  # a carried tile's fixed buffer
                if buf.kind != "VECCALC":
                    self.queue_tiles[buf.name] = info

    def _handoff(self, op: Operation, queue: str) -> str:
        """The queue `ascendc-insert-sync` recorded for the EnQue/DeQue of `op`; it must be `queue`."""
        a = op.attributes.get(HANDOFF_ATTR)
        q = a.data.get("queue") if isinstance(a, DictionaryAttr) else None
        if not isinstance(q, StringAttr):
            raise op_error(op, f"it has no '{HANDOFF_ATTR}' {{from, queue, to}} (run ascendc-insert-sync)")
        if q.data != queue:
            raise op_error(op, f"'{HANDOFF_ATTR}' names queue '{q.data}' but the tile's buffer plan gives '{queue}'")
        return queue

    def _flags(self, op: Operation) -> list[str]:
        a = op.attributes.get(FLAGS_ATTR)
        if a is None:
            return []
        if not isinstance(a, ArrayAttr) or not all(isinstance(x, StringAttr) for x in a.data):
            raise op_error(op, f"'{FLAGS_ATTR}' must be an array of strings, got {a}")
        return [x.data for x in a.data]  # type: ignore[union-attr]

    def _planned(self, op: Operation, key: str) -> Buffer:
        name = string_attr(op, key)
        if name is None:
            raise op_error(op, f"it has no '{key}' buffer (run ascendc-plan-buffers)")
        return require_buffer(op, self.buffer_map, name, key)

    # ------------------------------------------------------------------ carried tiles

    def carried_kind(self, op: Operation, t: Attribute) -> str:
        if isinstance(t, TileType):
            if t.space not in (MemorySpace.VEC, MemorySpace.ACC):
                raise op_error(op, f"tile {t} cannot be carried: only 'vec' and 'acc' tiles are supported")
            return "tile"
        return super().carried_kind(op, t)

    def bind_carried_tile(self, op: Operation, result: SSAValue, arg: SSAValue | None, init: SSAValue | None) -> None:
        if result.type.space == MemorySpace.ACC:  # type: ignore[attr-defined]
            # The accumulator stays in its CO1 buffer: the loop updates it in place (matmul_acc).
            if init is None or arg is None:
                raise op_error(op, "accumulator tiles cannot be yielded from scf.if")
            if any(u.operation is not op for u in init.uses):
                raise op_error(op, "an accumulator carried by scf.for cannot be used after the loop starts")
            self.tiles[result] = self.tiles[arg] = self.tiles[init]
            return
        info = self.tiles[result]
        if arg is not None:
            self.tiles[arg] = info
        if info.var in self.carried_declared:
            return  # scf.while: its results and 'after' arguments name the tile its 'before' arguments carry
        self.carried_declared.add(info.var)
        self.out.add(f"LocalTensor<{info.elem}> {info.var} = {info.buffer.name}.Get<{info.elem}>();")
        if init is not None:
            self._copy_tile(info, self.tiles[init])

    def assign_carried_tile(self, op: Operation, result: SSAValue, value: SSAValue) -> None:
        info, src = self.tiles[result], self.tiles[value]
        if src is info:
            return
        if result.type.space == MemorySpace.ACC:  # type: ignore[attr-defined]
            raise op_error(op, "a carried accumulator must be updated in place (yield its matmul_acc result)")
        if src.buffer.shareable is False and isinstance(value, BlockArgument):
            raise op_error(op, "yielding one carried tile in place of another (a swap) is not supported")
        self._copy_tile(info, src)

    # ------------------------------------------------------------------ tensors

    def _gm_offset(self, tensor_type: TensorType, offsets: list[Expr]) -> tuple[str, int | None]:
        """Linear element offset (text, constant value if known) of a window origin."""
        shape = tensor_type.get_shape()
        strides = [1] * len(shape)
        for k in range(len(shape) - 2, -1, -1):
            strides[k] = strides[k + 1] * int(shape[k + 1])  # type: ignore[arg-type]
        terms: list[str] = []
        const = 0
        all_const = True
        for off, stride in zip(offsets, strides):
            if off.const_value is not None:
                const += int(off.const_value) * stride
                continue
            all_const = False
            terms.append(off.text if stride == 1 else f"{off.text} * {stride}")
        if const:
            terms.append(str(const))
        return (" + ".join(terms) if terms else "0"), (const if all_const else None)

    def _window(self, view: View, offsets: list[Expr]) -> tuple[str, View]:
        """GlobalTensor expression at a window origin of `view`, and that origin as a view."""
        root_type = view.root.type
        assert isinstance(root_type, TensorType)
        text, const = self._gm_offset(root_type, offsets)
        if view.const is not None and const is not None:
            total = view.const + const
            origin = View(view.root, str(total), total)
        else:
            parts = [p for p in (view.offset, text) if p != "0"]
            origin = View(view.root, " + ".join(parts) if parts else "0", None)
        gm = self.gm[view.root] + (f"[{origin.offset}]" if origin.offset != "0" else "")
        return gm, origin

    # ------------------------------------------------------------------ body

    def _body(self) -> list[str]:
        self.out.depth = 1
        block = self.func.body.block
        for op in block.ops:
            self.emit_op(op)
        return self.out.lines

    def _after(self, op: Operation) -> None:
        freed = op.attributes.get(FREE_ATTR)
        if freed is None:
            return
        if not isinstance(freed, ArrayAttr) or not all(isinstance(x, StringAttr) for x in freed.data):
            raise op_error(op, f"'{FREE_ATTR}' must be an array of queue names, got {freed}")
        for name in freed.data:
            info = self.queue_tiles.get(name.data)  # type: ignore[union-attr]
            if info is None or info.buffer.kind not in FREED_KINDS:
                raise op_error(op, f"'{FREE_ATTR}' frees '{name.data}', which is not a planned input queue")  # type: ignore[union-attr]
            self.out.add(f"{info.buffer.name}.FreeTensor({info.var});")

    def emit_op(self, op: Operation) -> None:
        self._recorded_barrier(op)
        super().emit_op(op)
        self._after(op)

    def before_terminator(self, term: Operation) -> None:
        self._recorded_barrier(term)

    def _recorded_barrier(self, op: Operation) -> None:
        """The barrier `ascendc-insert-sync` recorded before `op`'s vector instructions."""
        self.copy_group = (set(), set())
        kind = string_attr(op, BARRIER_ATTR)
        if kind is None:
            return
        if kind != "V":
            raise op_error(op, f"'{BARRIER_ATTR}' must be \"V\" (a PipeBarrier<PIPE_V> before the op), got \"{kind}\"")
        self.out.add("PipeBarrier<PIPE_V>();")

    def _barrier(self) -> None:
        """A barrier between two dependent vector instructions of one op."""
        if not self.auto_barriers:
            self.out.add("PipeBarrier<PIPE_V>();")

    def _copy_tile(self, dst: TileInfo, src: TileInfo) -> None:
        """A carried-tile copy; a barrier first if it depends on an earlier copy of its group."""
        reads, writes = self.copy_group
        if src.buffer.name in writes or dst.buffer.name in writes | reads:
            self._barrier()
            reads.clear()
            writes.clear()
        reads.add(src.buffer.name)
        writes.add(dst.buffer.name)
        self.out.add(f"DataCopy({dst.var}, {src.var}, {dst.layout.alloc_elems});")

    def after_terminator(self, term: Operation) -> None:
        # a queue tile yielded or forwarded as its last use is freed once it is copied
        self._after(term)

    def emit_other(self, op: Operation) -> None:
        if isinstance(op, program.ReturnOp):
            for v in op.arguments:
                if not isinstance(v.type, TensorType):
                    raise op_error(op, f"kernels can only return tensors written through parameters, got {v.type}")
                view = self.tensor_root(v)
                root = view.root
                if isinstance(root, BlockArgument) and root.owner.parent_op() is self.func:
                    continue
                if view.const != 0 or root.type != v.type:
                    raise op_error(
                        op,
                        f"the kernel returns a window of the kernel-local tensor %{root.name_hint or '?'} {root.type}; "
                        "only a whole kernel-local tensor can be returned (the host reads it from the workspace)",
                    )
            return
        if isinstance(op, tile.LoadOp):
            return self._emit_load(op)
        if isinstance(op, tile.StoreOp):
            return self._emit_store(op)
        if isinstance(op, tensor.SliceOp):
            _, origin = self._window(self.tensor_root(op.source), [self.expr(o) for o in op.offsets])
            self.tensor_views[op.result] = origin
            return
        if isinstance(op, tensor.DimOp):
            return self._emit_dim(op)
        if isinstance(op, tensor.CreateOp):
            # storage planned in the workspace; the GlobalTensor is set up at kernel entry
            self.tensor_views[op.result] = View(op.result)
            return
        if isinstance(op, tile.GetBlockIdxOp):
            self.exprs[op.result] = Expr("AscendC::GetBlockIdx()", "int64_t")
            return
        if isinstance(op, tile.GetBlockNumOp):
            self.exprs[op.result] = Expr("AscendC::GetBlockNum()", "int64_t")
            return
        if type(op) in _BINARY:
            a, b = self.tiles[op.operands[0]], self.tiles[op.operands[1]]
            self._check_same_layout(op, a, b)
            d = self._def_tile(op.results[0])
            self.out.add(f"{_BINARY[type(op)]}({d.var}, {a.var}, {b.var}, {d.layout.count});")
            return
        if type(op) in _UNARY:
            a = self.tiles[op.operands[0]]
            d = self._def_tile(op.results[0])
            self.out.add(f"{_UNARY[type(op)]}({d.var}, {a.var}, {d.layout.count});")
            return
        if isinstance(op, tile.NegOp):
            a = self.tiles[op.input]
            d = self._def_tile(op.result)
            self.out.add(f"Muls({d.var}, {a.var}, static_cast<{d.elem}>(-1), {d.layout.count});")
            return
        if isinstance(op, tile.AddsOp | tile.SubsOp | tile.MulsOp | tile.DivsOp):
            return self._emit_scalar_op(op)
        if isinstance(op, tile.FullOp):
            d = self._def_tile(op.result)
            s = cast_to(self.expr(op.value), d.elem)
            self.out.add(f"Duplicate({d.var}, {s}, {d.layout.count});")
            return
        if isinstance(op, tile.CastOp):
            return self._emit_cast(op)
        if isinstance(op, tile.MoveOp) and op.result.type.space in (MemorySpace.LEFT, MemorySpace.RIGHT):  # type: ignore[union-attr]
            return self._emit_split(op)
        if isinstance(op, tile.MatmulOp | tile.MatmulAccOp):
            return self._emit_mmad(op)
        if isinstance(op, tile.MoveOp):
            a = self.tiles[op.input]
            d = self._def_tile(op.result)
            self.out.add(f"DataCopy({d.var}, {a.var}, {d.layout.alloc_elems});")
            return
        if isinstance(op, tile.RowMaxOp | tile.RowSumOp):
            return self._emit_row_reduce(op)
        if isinstance(op, tile.RowExpandSubOp | tile.RowExpandMulOp | tile.RowExpandDivOp):
            return self._emit_row_expand(op)
        if op.name.startswith("pypto.tensor."):
            raise op_error(
                op, "tensor-level compute must be converted to tile ops first (convert-tensor-to-tile)"
            )
        if isinstance(op, program.CallOp | program.SubmitOp):
            raise op_error(op, "kernels cannot call functions (inline them first)")
        super().emit_other(op)

    # ---- tiles

    def _def_tile(self, value: SSAValue) -> TileInfo:
        info = self.tiles[value]
        b = info.buffer
        if b.kind == "VECCALC":
            self.out.add(f"LocalTensor<{info.elem}> {info.var} = {b.name}.Get<{info.elem}>();")
        else:
            self.out.add(f"LocalTensor<{info.elem}> {info.var} = {b.name}.AllocTensor<{info.elem}>();")
        return info

    def _check_same_layout(self, op: Operation, *infos: TileInfo) -> None:
        if len({i.layout.ld for i in infos}) != 1:
            raise op_error(op, "operands have different UB layouts")

    def _copy_line(
        self, op: Operation, tensor: TensorType, lay, elem: str, local: str, gm: str, *, to_gm: bool
    ) -> str:
        """The MTE copy of one tile window between GM and UB (`to_gm`: UB -> GM)."""
        form, count = self._copy_params(op, tensor, lay)
        dst, src = (gm, local) if to_gm else (local, gm)
        n = int(tensor.get_shape()[-1])  # type: ignore[arg-type]
        if form == "count":
            return f"DataCopy({dst}, {src}, {count});"
        if form == "params":
            blk = lay.cols * lay.elem_bytes // BLOCK_BYTES
            stride = (n - lay.cols) * lay.elem_bytes // BLOCK_BYTES
            self._check_u16(op, lay.rows, blk, stride)
            src_stride, dst_stride = (0, stride) if to_gm else (stride, 0)
            return f"DataCopy({dst}, {src}, DataCopyParams({lay.rows}, {blk}, {src_stride}, {dst_stride}));"
        if form == "pad_flat":
            rows, length, gap = 1, count * lay.elem_bytes, 0
        else:
            rows, length, gap = lay.rows, lay.cols * lay.elem_bytes, (n - lay.cols) * lay.elem_bytes
        if to_gm:
            return f"DataCopyPad({dst}, {src}, DataCopyExtParams({rows}, {length}, 0, {gap}, 0));"
        return (
            f"DataCopyPad({dst}, {src}, DataCopyExtParams({rows}, {length}, {gap}, 0, 0), "
            f"DataCopyPadExtParams<{elem}>(false, 0, 0, 0));"
        )

    def _copy_params(self, op: Operation, tensor_type: TensorType, layout: Layout) -> tuple[str, int]:
        """How to move a [R, C] window between GM (row-major tensor) and UB.

        Returns (form, count) where form is 'count', 'params' or 'pad'.
        """
        shape = [int(d) for d in tensor_type.get_shape()]  # type: ignore[arg-type]
        n = shape[-1]
        rows, cols, eb = layout.rows, layout.cols, layout.elem_bytes
        if len(shape) == 1:
            rows_gm = 1
        else:
            rows_gm = rows
        if cols == 1 and rows > 1 and n != 1:
            raise op_error(op, f"a [{rows}, 1] column window of {tensor_type} is strided; column loads are not supported")
        contiguous = rows_gm == 1 or cols == n
        if contiguous and (layout.ld == cols or rows == 1):
            total = rows * cols
            return ("count" if (total * eb) % BLOCK_BYTES == 0 else "pad_flat"), total
        if (cols * eb) % BLOCK_BYTES == 0 and ((n - cols) * eb) % BLOCK_BYTES == 0:
            return "params", rows * cols
        return "pad", rows * cols

    def _emit_load(self, op: tile.LoadOp) -> None:
        if op.result.type.space == MemorySpace.MAT:  # type: ignore[union-attr]
            return self._emit_load_nz(op)
        view = self.tensor_root(op.source)
        src = view.root.type
        assert isinstance(src, TensorType)
        info = self._def_tile(op.result)
        gm, _ = self._window(view, [self.expr(o) for o in op.offsets])
        self.out.add(self._copy_line(op, src, info.layout, info.elem, info.var, gm, to_gm=False))
        b = self._handoff(op, info.buffer.name)
        self.out.add(f"{b}.EnQue({info.var});")
        self.out.add(f"{info.var} = {b}.DeQue<{info.elem}>();")

    def _check_u16(self, op: Operation, *values: int) -> None:
        if any(v > 65535 for v in values):
            raise op_error(op, "the copy is too large for one DataCopy (16-bit block counts)")

    def _emit_store(self, op: tile.StoreOp) -> None:
        view = self.tensor_root(op.dest)
        dst = view.root.type
        assert isinstance(dst, TensorType)
        self.tensor_views[op.result] = view
        info = self.tiles[op.tile]
        kind = string_attr(op, STORE_ATTR)
        if kind == "fixpipe" and info.buffer.kind == "CO1":
            return self._emit_fixpipe(op, view, info)
        if kind == "direct" and info.buffer.kind == "VECOUT":
            var, qname = info.var, self._handoff(op, info.buffer.name)
            self.out.add(f"{qname}.EnQue({var});")
            self.out.add(f"{var} = {qname}.DeQue<{info.elem}>();")
        elif kind == "staged" and info.buffer.kind != "CO1":
            staging = self._planned(op, STAGING_ATTR)
            var, qname = self.namer.fresh(f"{info.var}_out"), self._handoff(op, staging.name)
            self.out.add(f"LocalTensor<{info.elem}> {var} = {qname}.AllocTensor<{info.elem}>();")
            self.out.add(f"DataCopy({var}, {info.var}, {info.layout.alloc_elems});")
            self.out.add(f"{qname}.EnQue({var});")
            self.out.add(f"{var} = {qname}.DeQue<{info.elem}>();")
        else:
            raise op_error(
                op, f"'{STORE_ATTR}' is {kind!r} but the stored tile lives in {info.buffer.kind} buffer "
                f"'{info.buffer.name}' (run ascendc-insert-sync after ascendc-plan-buffers)"
            )
        gm, _ = self._window(view, [self.expr(o) for o in op.offsets])
        self.out.add(self._copy_line(op, dst, info.layout, info.elem, var, gm, to_gm=True))
        self.out.add(f"{qname}.FreeTensor({var});")
        for event in self._flags(op):
            self.out.add(f"SetFlag<HardEvent::{event}>(EVENT_ID0);")
            self.out.add(f"WaitFlag<HardEvent::{event}>(EVENT_ID0);")

    # ---- cube

    def _emit_load_nz(self, op: tile.LoadOp) -> None:
        """GM (ND) -> L1 (NZ fractals of 16 x 16 halves) with an Nd2Nz DataCopy."""
        view = self.tensor_root(op.source)
        src = view.root.type
        assert isinstance(src, TensorType)
        info = self._def_tile(op.result)
        gm, _ = self._window(view, [self.expr(o) for o in op.offsets])
        lay = info.layout
        p = self.namer.fresh(f"{info.var}_nd2nz")
        self.out.add(f"Nd2NzParams {p};")
        for field_, value in (("ndNum", 1), ("nValue", lay.rows), ("dValue", lay.cols), ("srcNdMatrixStride", 0),
                              ("srcDValue", int(src.get_shape()[-1])), ("dstNzC0Stride", lay.rows),  # type: ignore[arg-type]
                              ("dstNzNStride", 1), ("dstNzMatrixStride", 0)):
            self.out.add(f"{p}.{field_} = {value};")
        self.out.add(f"DataCopy({info.var}, {gm}, {p});")
        b = self._handoff(op, info.buffer.name)
        self.out.add(f"{b}.EnQue({info.var});")
        self.out.add(f"{info.var} = {b}.DeQue<{info.elem}>();")

    def _emit_split(self, op: tile.MoveOp) -> None:
        """L1 -> L0A (row blocks of fractals) or L0B (transposed fractals) with LoadData."""
        src, d = self.tiles[op.input], self._def_tile(op.result)
        rows, cols = d.layout.rows, d.layout.cols
        left = op.result.type.space == MemorySpace.LEFT  # type: ignore[union-attr]
        # A [M, K]: for each 16-row block mb, the K/16 fractals at mb, mb + M/16, ... (NZ) go to mb*K/16 ...
        # B [K, N]: for each 16-row block kb, the N/16 fractals at kb, kb + K/16, ... transposed.
        outer, inner = rows // 16, cols // 16
        if inner > 255:
            raise op_error(op, f"{op.result.type} needs more than 255 LoadData repeats per row block")
        p = self.namer.fresh(f"{d.var}_load")
        self.out.add(f"LoadData2DParams {p};")
        self.out.add(f"{p}.repeatTimes = {inner};")
        self.out.add(f"{p}.srcStride = {outer};")
        self.out.add(f"{p}.ifTranspose = {'false' if left else 'true'};")
        blk = self.namer.fresh("blk")
        frac = 512 // d.layout.elem_bytes
        self.out.add(f"for (int32_t {blk} = 0; {blk} < {outer}; ++{blk}) {{")
        self.out.add(f"  LoadData({d.var}[{blk} * {inner * frac}], {src.var}[{blk} * {frac}], {p});")
        self.out.add("}")
        b = self._handoff(op, d.buffer.name)
        self.out.add(f"{b}.EnQue({d.var});")
        self.out.add(f"{d.var} = {b}.DeQue<{d.elem}>();")

    def _emit_mmad(self, op: tile.MatmulOp | tile.MatmulAccOp) -> None:
        a, b = self.tiles[op.lhs], self.tiles[op.rhs]
        if op.lhs.type.space != MemorySpace.LEFT or op.rhs.type.space != MemorySpace.RIGHT:  # type: ignore[union-attr]
            raise op_error(op, "matmul takes a 'left' and a 'right' tile (move them from 'mat' first)")
        if isinstance(op, tile.MatmulAccOp):
            c = self.tiles[op.acc]
            self.tiles[op.result] = c
        else:
            c = self._def_tile(op.result)
        m, k, n = a.layout.rows, a.layout.cols, b.layout.cols
        p = self.namer.fresh(f"{c.var}_mmad")
        self.out.add(f"MmadParams {p};")
        self.out.add(f"{p}.m = {m};")
        self.out.add(f"{p}.n = {n};")
        self.out.add(f"{p}.k = {k};")
        self.out.add(f"{p}.cmatrixInitVal = {'false' if isinstance(op, tile.MatmulAccOp) else 'true'};")
        self.out.add(f"Mmad({c.var}, {a.var}, {b.var}, {p});")

    def _emit_fixpipe(self, op: tile.StoreOp, view: View, info: TileInfo) -> None:
        """L0C (NZ) -> GM (ND) with Fixpipe, after the M -> FIX hand-over (EnQue/DeQue)."""
        dst = view.root.type
        assert isinstance(dst, TensorType)
        q = self._handoff(op, info.buffer.name)
        self.out.add(f"{q}.EnQue({info.var});")
        self.out.add(f"{info.var} = {q}.DeQue<{info.elem}>();")
        gm, _ = self._window(view, [self.expr(o) for o in op.offsets])
        p = self.namer.fresh(f"{info.var}_fixpipe")
        self.out.add(f"FixpipeParamsV220 {p};")
        self.out.add(f"{p}.nSize = {info.layout.cols};")
        self.out.add(f"{p}.mSize = {info.layout.rows};")
        self.out.add(f"{p}.srcStride = {info.layout.rows};")
        self.out.add(f"{p}.dstStride = {int(dst.get_shape()[-1])};")  # type: ignore[arg-type]
        self.out.add(f"{p}.ndNum = 1;")
        self.out.add(f"Fixpipe({gm}, {info.var}, {p});")
        self.out.add(f"{q}.FreeTensor({info.var});")

    def _emit_dim(self, op: Operation) -> None:
        assert isinstance(op, tensor.DimOp)
        t = op.source.type
        assert isinstance(t, TensorType)
        dim = t.get_shape()[op.axis.value.data]
        self.exprs[op.results[0]] = Expr(str(dim), "int64_t", literal=True, const_value=dim)

    def _emit_scalar_op(self, op: tile.AddsOp | tile.SubsOp | tile.MulsOp | tile.DivsOp) -> None:
        a = self.tiles[op.lhs]
        d = self._def_tile(op.result)
        s = self.expr(op.scalar)
        n = d.layout.count
        if isinstance(op, tile.AddsOp):
            self.out.add(f"Adds({d.var}, {a.var}, {cast_to(s, d.elem)}, {n});")
        elif isinstance(op, tile.SubsOp):
            neg = Expr(f"-{s.text}" if s.literal or s.text.isidentifier() else f"-({s.text})", s.ctype)
            if s.literal and s.text.startswith("-"):
                neg = Expr(s.text[1:], s.ctype)
            self.out.add(f"Adds({d.var}, {a.var}, {cast_to(neg, d.elem)}, {n});")
        elif isinstance(op, tile.MulsOp):
            self.out.add(f"Muls({d.var}, {a.var}, {cast_to(s, d.elem)}, {n});")
        else:
            # Exact division: broadcast the scalar, then divide elementwise.
            self.out.add(f"Duplicate({d.var}, {cast_to(s, d.elem)}, {n});")
            self._barrier()
            self.out.add(f"Div({d.var}, {a.var}, {d.var}, {n});")

    def _emit_cast(self, op: tile.CastOp) -> None:
        a = self.tiles[op.input]
        d_layout = tile_layout(op.result.type, op)  # type: ignore[arg-type]
        if d_layout.ld != a.layout.ld:
            raise op_error(
                op, f"casting {op.input.type} to {op.result.type} changes the padded UB row length; "
                "use a column count that is a multiple of 32 bytes for both types"
            )
        d = self._def_tile(op.result)
        src_t, dst_t = op.input.type.element_type, op.result.type.element_type  # type: ignore[union-attr]
        mode = "CAST_TRUNC" if is_float_type(src_t) and not is_float_type(dst_t) else "CAST_NONE"
        self.out.add(f"Cast({d.var}, {a.var}, RoundMode::{mode}, {d.layout.count});")

    def _emit_row_reduce(self, op: tile.RowMaxOp | tile.RowSumOp) -> None:
        a = self.tiles[op.input]
        lay = a.layout
        is_max = isinstance(op, tile.RowMaxOp)
        lanes = REPEAT_BYTES // lay.elem_bytes
        d = self._def_tile(op.result)
        if lay.cols == 1:
            self.out.add(f"DataCopy({d.var}, {a.var}, {d.layout.alloc_elems});")
            return
        if lay.rows > MAX_REPEAT:
            raise op_error(op, f"{op.input.type} has {lay.rows} rows; row reductions support at most {MAX_REPEAT} rows per tile")
        rep_stride = lay.ld * lay.elem_bytes // BLOCK_BYTES if lay.rows > 1 else 8
        if rep_stride > 255:
            raise op_error(op, f"rows of {op.input.type} are longer than 255 blocks of 32 bytes")
        whole = "WholeReduceMax" if is_max else "WholeReduceSum"
        order = ", ReduceOrder::ORDER_ONLY_VALUE" if is_max else ""
        if lay.cols <= lanes:
            self.out.add(f"{whole}({d.var}, {a.var}, {lay.cols}, {lay.rows}, 1, 1, {rep_stride}{order});")
            return
        # Two stages: fold the 256-byte column chunks of every row into a [rows, lanes] scratch
        # tile with level-0 Max/Add (one repeat per row), then reduce the scratch rows.
        tmp = self._planned(op, SCRATCH_ATTR)
        tname = self.namer.fresh(f"{d.var}_tmp")
        self.out.add(f"LocalTensor<{d.elem}> {tname} = {tmp.name}.Get<{d.elem}>();")
        chunk_blocks = REPEAT_BYTES // BLOCK_BYTES
        self.out.add(
            f"Muls({tname}, {a.var}, static_cast<{d.elem}>(1), {lanes}, {lay.rows}, "
            f"UnaryRepeatParams(1, 1, {chunk_blocks}, {rep_stride}));"
        )
        fold = "Max" if is_max else "Add"
        for start in range(lanes, lay.cols, lanes):
            mask = min(lanes, lay.cols - start)
            self._barrier()  # each fold reads and writes the scratch rows
            self.out.add(
                f"{fold}({tname}, {tname}, {a.var}[{start}], {mask}, {lay.rows}, "
                f"BinaryRepeatParams(1, 1, 1, {chunk_blocks}, {chunk_blocks}, {rep_stride}));"
            )
        self._barrier()
        self.out.add(f"{whole}({d.var}, {tname}, {lanes}, {lay.rows}, 1, 1, {chunk_blocks}{order});")

    def _emit_row_expand(self, op: tile.RowExpandSubOp | tile.RowExpandMulOp | tile.RowExpandDivOp) -> None:
        """[R, C] op [R, 1] on the vector pipe: Brcb the row values into one 32-byte block per row
        (scratch buffer), then level-0 Sub/Mul/Div with one repeat per row whose second source
        re-reads that row's block (src1 block stride 0, repeat stride 1 block). Rows wider than
        one 256-byte repeat take one instruction per column chunk; more than 255 rows, one per
        255-row group."""
        a, r = self.tiles[op.input], self.tiles[op.row]
        lay = a.layout
        fn = {tile.RowExpandSubOp: "Sub", tile.RowExpandMulOp: "Mul", tile.RowExpandDivOp: "Div"}[type(op)]
        if fn == "Div" and not is_float_type(op.input.type.element_type):  # type: ignore[union-attr]
            raise op_error(op, f"the vector unit has no integer Div ({op.input.type})")
        if lay.cols == 1:
            # [R, 1] with [R, 1]: both packed columns, so an elementwise op
            d = self._def_tile(op.result)
            self.out.add(f"{fn}({d.var}, {a.var}, {r.var}, {lay.count});")
            return
        if lay.elem_bytes not in (2, 4):
            raise op_error(op, f"Brcb broadcasts 2- and 4-byte elements only, not the elements of {op.input.type}")
        per_block = BLOCK_BYTES // lay.elem_bytes
        lanes = REPEAT_BYTES // lay.elem_bytes
        rep_stride = lay.ld * lay.elem_bytes // BLOCK_BYTES if lay.rows > 1 else REPEAT_BYTES // BLOCK_BYTES
        if rep_stride > 255:
            raise op_error(op, f"rows of {op.input.type} are longer than 255 blocks of 32 bytes (the repeat stride limit)")
        scratch = self._planned(op, SCRATCH_ATTR)
        d = self._def_tile(op.result)
        bc = self.namer.fresh(f"{d.var}_brcb")
        self.out.add(f"LocalTensor<{d.elem}> {bc} = {scratch.name}.Get<{d.elem}>();")
        groups = -(-lay.rows // 8)
        for g0 in range(0, groups, _BRCB_REPEATS):
            n = min(_BRCB_REPEATS, groups - g0)
            src = f"{r.var}[{g0 * 8}]" if g0 else r.var
            dst = f"{bc}[{g0 * 8 * per_block}]" if g0 else bc
            self.out.add(f"Brcb({dst}, {src}, {n}, BrcbRepeatParams(1, 8));")
        self._barrier()  # the Brcb calls write disjoint blocks; the Sub/Mul/Div chunks read them all
        params = f"BinaryRepeatParams(1, 1, 0, {rep_stride}, {rep_stride}, 1)"
        for r0 in range(0, lay.rows, MAX_REPEAT):
            rows = min(MAX_REPEAT, lay.rows - r0)
            b_at = f"[{r0 * per_block}]" if r0 else ""
            for c0 in range(0, lay.cols, lanes):
                mask = min(lanes, lay.cols - c0)
                off = r0 * lay.ld + c0
                at = f"[{off}]" if off else ""
                self.out.add(f"{fn}({d.var}{at}, {a.var}{at}, {bc}{b_at}, {mask}, {rows}, {params});")

    # ------------------------------------------------------------------ assembly

    def _assemble(self, params: list[str], body: list[str]) -> str:
        f = self.func
        if self.cube:
            plan = ", ".join(f"{m} {self.mem_bytes[m]} of {self.mem_capacity[m]}" for m in self.mem_bytes)
            plan_line = f"// Cube (AIC) kernel. Buffer plan (bytes): {plan}."
        else:
            plan_line = f"// Unified Buffer plan: {self.ub_bytes} of {self.mem_capacity.get('UB', UB_BYTES)} bytes."
        lines = [
            f"// Ascend C kernel for @{f.sym_name.data}, generated by pypto-xdsl. Do not edit.",
            plan_line,
            '#include "kernel_operator.h"',
            "",
            "using namespace AscendC;",
            "",
            f'extern "C" __global__ __aicore__ void {self.kernel_name}({", ".join(params)}) {{',
        ]
        if self.cube:
            lines.append("  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);")
        for arg, gm in self.gm.items():
            if arg not in self.exprs:
                continue  # a kernel-local tensor: below
            t = arg.type
            assert isinstance(t, TensorType)
            c = ctype(t.element_type)
            lines.append(f"  GlobalTensor<{c}> {gm};")
            lines.append(f"  {gm}.SetGlobalBuffer((__gm__ {c}*){self.exprs[arg].text}, {t.num_elements()});")
        if self.ws_bytes:
            lines.append(
                f"  // Kernel-local GM tensors: {self.ws_bytes} bytes of workspace per block, this block's part."
            )
            lines.append(f"  GM_ADDR {self.ws_block} = {self.ws_param} + AscendC::GetBlockIdx() * {self.ws_bytes};")
            for slot in self.ws_slots:
                t = slot.value.type
                assert isinstance(t, TensorType)
                c = ctype(t.element_type)
                gm = self.gm[slot.value]
                where = f"{self.ws_block} + {slot.offset}" if slot.offset else self.ws_block
                lines.append(
                    f"  GlobalTensor<{c}> {gm};  // %{slot.value.name_hint or '?'} {t}, "
                    f"workspace bytes [{slot.offset}, {slot.offset + slot.bytes})"
                )
                lines.append(f"  {gm}.SetGlobalBuffer((__gm__ {c}*)({where}), {t.num_elements()});")
        if self.buffers:
            lines.append("  TPipe pipe;")
            for b in self.buffers:
                if b.kind == "VECCALC":
                    lines.append(f"  TBuf<TPosition::VECCALC> {b.name};  // {b.comment}")
                else:
                    lines.append(f"  TQue<TPosition::{b.kind}, {b.depth}> {b.name};  // {b.comment}")
            for b in self.buffers:
                if b.kind == "VECCALC":
                    lines.append(f"  pipe.InitBuffer({b.name}, {b.bytes});")
                else:
                    lines.append(f"  pipe.InitBuffer({b.name}, {b.depth}, {b.bytes});")
        lines.append("")
        lines.extend(body)
        lines.append("}")
        return "\n".join(lines) + "\n"


def print_kernel(func: program.FuncOp) -> str:
    """The Ascend C source of one incore function."""
    return KernelPrinter(func).print()
