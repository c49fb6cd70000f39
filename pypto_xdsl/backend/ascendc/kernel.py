"""Kernel printer: one Ascend C vector kernel per `pypto.func incore|aiv` with a tile-level body.

Buffer planning (per kernel, static):
- every `tile.load` result gets a VECIN `TQue` (CopyIn: AllocTensor, DataCopy, EnQue, DeQue;
  FreeTensor after the tile's last use in its block);
- a compute result whose only escape is a `tile.store` that is its last use gets a VECOUT
  `TQue` (CopyOut: EnQue, DeQue, DataCopy, FreeTensor at the store);
- other compute results get a `TBuf<VECCALC>`; storing such a tile (or a loaded one) goes
  through a VECOUT staging queue (UB->UB DataCopy first);
- queues of tiles defined inside a loop get two buffers (double buffering) when the whole
  plan still fits the 192 KiB Unified Buffer; otherwise one; if one does not fit either, the
  kernel is rejected with the list of buffers and sizes.

Kernel-local tensors (`pypto.tensor.create` in a kernel) live in GM at fixed offsets of a
per-block workspace that the host allocates per launch and passes as a trailing
`GM_ADDR workspace` argument (`workspace_plan`).

UB layout of a tile [R, C]: rows are padded to 32 bytes (row stride `ld`), except single-row
and single-column tiles, which are packed. Vector ops run over `R * ld` elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import Float16Type, Float32Type, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pypto_xdsl.backend.ascendc.cxx import (
    BLOCK_BYTES,
    MAX_REPEAT,
    REPEAT_BYTES,
    UB_BYTES,
    BackendError,
    CxxWriter,
    Expr,
    Namer,
    byte_width,
    cast_to,
    ctype,
    op_error,
)
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    ParamDirection,
    TensorType,
    TileType,
    format_shape,
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
_SUPPORTED_ELEMENTS = (Float32Type, Float16Type, IntegerType)


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


@dataclass(frozen=True)
class Layout:
    """UB layout of a static 2-D (or 1-D, as one row) tile."""

    rows: int
    cols: int
    ld: int  # elements between row starts in UB
    elem_bytes: int

    @property
    def count(self) -> int:
        """Elements vector ops process (padding included)."""
        return self.rows * self.ld if self.rows > 1 else self.cols

    @property
    def alloc_elems(self) -> int:
        return _round_up(self.count, BLOCK_BYTES // self.elem_bytes)

    @property
    def bytes(self) -> int:
        return self.alloc_elems * self.elem_bytes


def tile_layout(t: TileType, op: Operation) -> Layout:
    if not t.is_static():
        raise op_error(op, f"tile {t} has a dynamic shape; tiles must be static")
    shape = t.get_shape()
    if t.rank == 1:
        rows, cols = 1, shape[0]
    elif t.rank == 2:
        rows, cols = shape
    else:
        raise op_error(op, f"tile {t} has rank {t.rank}; only 1-D and 2-D tiles are supported")
    assert isinstance(rows, int) and isinstance(cols, int)
    if rows == 0 or cols == 0:
        raise op_error(op, f"tile {t} is empty")
    eb = byte_width(t.element_type)
    per_block = BLOCK_BYTES // eb
    ld = cols if rows == 1 or cols == 1 else _round_up(cols, per_block)
    return Layout(rows, cols, ld, eb)


# Buffer kind (TPosition) -> on-chip memory and its capacity on A2/A3.
KIND_MEMORY = {
    "VECIN": "UB", "VECOUT": "UB", "VECCALC": "UB", "A1": "L1", "B1": "L1", "A2": "L0A", "B2": "L0B", "CO1": "L0C",
}
MEMORY_BYTES = {"UB": UB_BYTES, "L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024}
CUBE_SPACES = (MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC)


@dataclass(frozen=True)
class View:
    """A tensor value as a window of a kernel parameter: element (i, j) of the view is element
    `offset + i * N + j` of the parameter (row-major, the parameter's row length N)."""

    root: SSAValue
    offset: str = "0"
    const: int | None = 0  # the offset when it is a compile-time constant


@dataclass
class Buffer:
    """A statically planned UB buffer: a TQue (VECIN/VECOUT) or a TBuf (VECCALC)."""

    name: str
    kind: str  # "VECIN", "VECOUT", "VECCALC"
    bytes: int
    in_loop: bool
    what: str  # for messages: the IR value it holds
    depth: int = 1
    shared_with: list[str] = field(default_factory=list)
    shareable: bool = True

    @property
    def comment(self) -> str:
        if not self.shared_with:
            return self.what
        names = [self.what.split(" ")[0]] + self.shared_with
        return ", ".join(names) + " (disjoint live ranges)"


@dataclass
class TileInfo:
    var: str
    layout: Layout
    elem: str
    buffer: Buffer
    loaded: bool


def _in_loop(op: Operation, func: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not func:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _last_use_in_block(value: SSAValue, block: Block) -> Operation | None:
    last: Operation | None = None
    last_index = -1
    order = {o: k for k, o in enumerate(block.ops)}
    for use in value.uses:
        anc = _ancestor_in(use.operation, block)
        if anc is not None and order[anc] > last_index:
            last, last_index = anc, order[anc]
    return last


def kernel_cxx_name(name: str) -> str:
    """The C++ name of a kernel: the function name, unless that is a C++ keyword or `main`."""
    base = Namer.sanitize(name)
    probe = Namer()
    return base if probe.fresh(base) == base else f"{base}_kernel"


WORKSPACE_ALIGN = 512  # bytes; every kernel-local tensor starts on a 512-byte boundary of the workspace


@dataclass(frozen=True)
class WorkspaceSlot:
    """A kernel-local GM tensor (`pypto.tensor.create` in a kernel) at a fixed byte offset of
    the launch's workspace (per block)."""

    value: SSAValue
    offset: int
    bytes: int


def workspace_plan(func: program.FuncOp) -> tuple[list[WorkspaceSlot], int]:
    """Kernel-local tensors of `func` and the workspace bytes one block needs.

    Every `pypto.tensor.create` in the kernel (at any depth) gets its own 512-byte aligned
    slot; one inside a loop reuses its slot in every iteration. Each block of a launch has its
    own part of the workspace, `bytes` apart.
    """
    slots: list[WorkspaceSlot] = []
    offset = 0
    for op in func.walk():
        if not isinstance(op, tensor.CreateOp):
            continue
        t = op.result.type
        assert isinstance(t, TensorType)
        if not t.is_static():
            raise op_error(op, f"kernel-local tensor {t} has a dynamic shape; the workspace is planned statically")
        if t.rank > 2:
            raise op_error(op, f"kernel-local tensor {t} has rank {t.rank}; only 1-D and 2-D tensors are supported")
        nbytes = t.num_elements() * byte_width(t.element_type)
        if nbytes == 0:
            raise op_error(op, f"kernel-local tensor {t} is empty")
        slots.append(WorkspaceSlot(op.result, offset, nbytes))
        offset += _round_up(nbytes, WORKSPACE_ALIGN)
    return slots, offset


def storage_root(func: program.FuncOp, value: SSAValue) -> SSAValue | None:
    """The kernel parameter or kernel-local `tensor.create` a tensor value of `func` names the
    storage of (through stores, slices, loop carries and scf.while), or None if unknown."""
    for _ in range(10000):
        if isinstance(value, BlockArgument):
            owner = value.owner.parent_op()
            if owner is func:
                return value
            if isinstance(owner, scf.ForOp) and value.index > 0:
                value = owner.iter_args[value.index - 1]
                continue
            if isinstance(owner, scf.WhileOp) and value.owner is owner.before_region.block:
                value = owner.arguments[value.index]
                continue
            if isinstance(owner, scf.WhileOp):
                cond = owner.before_region.block.last_op
                assert isinstance(cond, scf.ConditionOp)
                value = cond.args[value.index]
                continue
            return None
        op = value.owner
        if isinstance(op, tensor.CreateOp):
            return value
        if isinstance(op, tile.StoreOp):
            value = op.dest
        elif isinstance(op, tensor.SliceOp):
            value = op.source
        elif isinstance(op, scf.ForOp):
            value = op.iter_args[value.index]  # type: ignore[union-attr]
        elif isinstance(op, scf.WhileOp):
            cond = op.before_region.block.last_op
            assert isinstance(cond, scf.ConditionOp)
            value = cond.args[value.index]  # type: ignore[union-attr]
        else:
            return None
    return None


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
    """Prints one incore function as an Ascend C kernel."""

    NO_STORAGE_MESSAGE = "this tensor value does not name a kernel parameter's storage"

    def __init__(self, func: program.FuncOp):
        super().__init__(Namer(["pipe", "GM_ADDR", "AscendC"]))
        self.func = func
        self.kernel_name = kernel_cxx_name(func.sym_name.data)
        self.namer.used.add(self.kernel_name)
        self.gm: dict[SSAValue, str] = {}  # tensor param -> GlobalTensor name
        self.tiles: dict[SSAValue, TileInfo] = {}
        self.buffers: list[Buffer] = []
        self.direct_store: set[Operation] = set()  # stores whose tile lives in a VECOUT queue
        self.frees: dict[Operation, list[SSAValue]] = {}  # op -> loaded tiles freed after it
        self.store_staging: dict[Operation, Buffer] = {}
        self.scratch: dict[Operation, Buffer] = {}
        self.loaded_params: set[SSAValue] = set()

    # ------------------------------------------------------------------ entry

    def print(self) -> str:
        func = self.func
        if not func.is_incore:
            raise BackendError(f"ascendc: @{func.sym_name.data} is a {func.func_kind.value} function, not a kernel")
        self.cube = self._uses_cube()
        params = self._params()
        self._plan(func.body.block)
        self._share_calc_buffers()
        self.loaded_params = set()
        for o in func.walk():
            if isinstance(o, tile.LoadOp):
                root = self._static_root(o.source)
                if root is not None:
                    self.loaded_params.add(root)
        self._fit_ub()
        body_lines = self._body()
        return self._assemble(params, body_lines)

    def _uses_cube(self) -> bool:
        """Cube kernels hold mat/left/right/acc tiles only; vector kernels vec tiles only."""
        spaces = set()
        for op in self.func.walk():
            for r in op.results:
                if isinstance(r.type, TileType):
                    spaces.add(r.type.space)
        cube = bool(spaces & set(CUBE_SPACES))
        name = self.func.sym_name.data
        if cube and MemorySpace.VEC in spaces:
            raise BackendError(
                f"ascendc: cannot lower @{name}: it mixes vector ('vec') and cube (mat/left/right/acc) tiles; "
                "mixed AIC/AIV kernels are not supported yet (split it into an aiv and an aic kernel)"
            )
        if cube and self.func.func_kind.value == "aiv":
            raise BackendError(f"ascendc: cannot lower @{name}: an aiv kernel cannot use cube tiles")
        if not cube and self.func.func_kind.value == "aic":
            raise BackendError(f"ascendc: cannot lower @{name}: an aic kernel must use cube tiles (mat/left/right/acc)")
        return cube

    # ------------------------------------------------------------------ parameters

    def _params(self) -> list[str]:
        sig: list[str] = []
        for k, (arg, direction) in enumerate(zip(self.func.args, self.func.directions)):
            t = arg.type
            base = arg.name_hint or f"arg{k}"
            if isinstance(t, TensorType):
                if not t.is_static():
                    raise BackendError(
                        f"ascendc: cannot lower @{self.func.sym_name.data}: tensor parameter "
                        f"%{base} has dynamic shape {format_shape(t.get_shape())}; the backend needs static shapes"
                    )
                if t.rank > 2:
                    raise BackendError(
                        f"ascendc: cannot lower @{self.func.sym_name.data}: tensor parameter %{base} has "
                        f"rank {t.rank}; only 1-D and 2-D tensors are supported"
                    )
                self._check_element(t.element_type, f"tensor parameter %{base}")
                name = self.namer.fresh(base)
                self.gm[arg] = self.namer.fresh(f"{name}_gm")
                self.tensor_views[arg] = View(arg)
                self.exprs[arg] = Expr(name, "GM_ADDR")
                sig.append(f"GM_ADDR {name}")
            elif isinstance(t, TileType):
                raise BackendError(
                    f"ascendc: cannot lower @{self.func.sym_name.data}: parameter %{base} is a tile; "
                    "kernel parameters must be tensors or scalars"
                )
            else:
                if direction != ParamDirection.IN:
                    raise BackendError(
                        f"ascendc: cannot lower @{self.func.sym_name.data}: scalar parameter %{base} is "
                        f"'{direction.value}'; kernels cannot return scalars"
                    )
                c = ctype(t)
                name = self.namer.fresh(base)
                self.exprs[arg] = Expr(name, c)
                sig.append(f"{c} {name}")
        self.ws_slots, self.ws_bytes = workspace_plan(self.func)
        self.ws_param = None
        for slot in self.ws_slots:
            t = slot.value.type
            assert isinstance(t, TensorType)
            self._check_element(t.element_type, f"kernel-local tensor %{slot.value.name_hint or '?'}")
        if self.ws_bytes:
            self.ws_param = self.namer.fresh("workspace")
            self.ws_block = self.namer.fresh("block_ws")
            sig.append(f"GM_ADDR {self.ws_param}")
            for slot in self.ws_slots:
                name = self.namer.fresh(f"{slot.value.name_hint or 'local'}_gm")
                self.gm[slot.value] = name
        return sig

    def _check_element(self, t: Attribute, what: str) -> None:
        if not isinstance(t, _SUPPORTED_ELEMENTS) or (isinstance(t, IntegerType) and t.width.data == 1):
            raise BackendError(
                f"ascendc: cannot lower @{self.func.sym_name.data}: {what} has element type {t}; "
                "supported: f32, f16 and integers"
            )

    # ------------------------------------------------------------------ planning

    def _new_buffer(self, base: str, kind: str, nbytes: int, op: Operation, what: str) -> Buffer:
        prefix = {"VECIN": "inQ", "VECOUT": "outQ", "VECCALC": "buf", "A1": "qA1", "B1": "qB1", "A2": "qA2",
                  "B2": "qB2", "CO1": "qCO1"}[kind]
        b = Buffer(self.namer.fresh(f"{prefix}_{base}"), kind, nbytes, _in_loop(op, self.func), what)
        self.buffers.append(b)
        return b

    def _plan(self, block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._plan(inner)
            for res in op.results:
                if isinstance(res.type, TileType):
                    self._plan_tile(op, res)
            if isinstance(op, tile.StoreOp):
                self._plan_store(op)
            if isinstance(op, tile.RowMaxOp | tile.RowSumOp):
                self._plan_reduction_scratch(op)
        # Loaded tiles are freed after their last use in the block that defines them.
        for op in block.ops:
            for res in op.results:
                info = self.tiles.get(res)
                if info is not None and info.loaded:
                    last = _last_use_in_block(res, block) or op
                    self.frees.setdefault(last, []).append(res)

    def _plan_tile(self, op: Operation, res: SSAValue) -> None:
        t = res.type
        assert isinstance(t, TileType)
        if t.space in CUBE_SPACES:
            return self._plan_cube_tile(op, res, t)
        if t.space != MemorySpace.VEC:
            raise op_error(op, f"tile {t} is in memory space '{t.space.value}', which the backend does not support")
        self._check_element(t.element_type, f"tile %{res.name_hint or '?'}")
        layout = tile_layout(t, op)
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.LoadOp):
            buf = self._new_buffer(base, "VECIN", layout.bytes, op, what)
            loaded = True
        elif isinstance(op, scf.ForOp | scf.IfOp):
            # A tile carried through a loop or yielded by a branch: one fixed buffer that the
            # initial value and every yielded value are copied into.
            self.carried_kind(op, t)
            buf = self._new_buffer(base, "VECCALC", layout.bytes, op, what)
            buf.shareable = False
            loaded = False
        else:
            kind = "VECOUT" if self._stores_directly(op, res) else "VECCALC"
            buf = self._new_buffer(base, kind, layout.bytes, op, what)
            loaded = False
        var = self.namer.fresh(base)
        self.tiles[res] = TileInfo(var, layout, ctype(t.element_type), buf, loaded)

    def _plan_cube_tile(self, op: Operation, res: SSAValue, t: TileType) -> None:
        """mat tiles: A1/B1 queues (L1, NZ); left/right: A2/B2 (L0A/L0B); acc: CO1 (L0C)."""
        shape = t.get_shape()
        if len(shape) != 2 or not all(isinstance(d, int) and d > 0 and d % 16 == 0 for d in shape):
            raise op_error(op, f"cube tile {t} must be 2-D with static dims that are multiples of 16")
        rows, cols = shape  # type: ignore[misc]
        eb = byte_width(t.element_type)
        space = t.space
        if space == MemorySpace.ACC:
            if not isinstance(t.element_type, Float32Type):
                raise op_error(op, f"accumulator tile {t} must be f32 (integer matmul is not supported yet)")
        elif not isinstance(t.element_type, Float16Type):
            raise op_error(op, f"cube operand tile {t} must be f16 (bf16, f32 and int8 matmul are not supported yet)")
        layout = Layout(rows, cols, cols, eb)  # type: ignore[arg-type]
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.MatmulAccOp | scf.ForOp | scf.IfOp):
            if isinstance(op, scf.IfOp) or space != MemorySpace.ACC:
                raise op_error(op, f"cube tile {t} cannot be yielded from a region (only an accumulator carried by scf.for)")
            return  # aliases the accumulator it updates (bound while printing)
        if isinstance(op, tile.LoadOp) and space == MemorySpace.MAT:
            targets = {u.operation.result.type.space for u in res.uses if isinstance(u.operation, tile.MoveOp)}
            if len(targets) != 1 or len(list(res.uses)) != sum(1 for u in res.uses if isinstance(u.operation, tile.MoveOp)):
                raise op_error(op, f"mat tile %{res.name_hint or '?'} must only be moved to one of left or right")
            kind = "A1" if targets == {MemorySpace.LEFT} else "B1"
            if targets - {MemorySpace.LEFT, MemorySpace.RIGHT}:
                raise op_error(op, f"mat tile %{res.name_hint or '?'} must be moved to left or right")
        elif isinstance(op, tile.MoveOp) and space in (MemorySpace.LEFT, MemorySpace.RIGHT):
            if op.input.type.space != MemorySpace.MAT:  # type: ignore[union-attr]
                raise op_error(op, "left/right tiles are moved from mat tiles")
            kind = "A2" if space == MemorySpace.LEFT else "B2"
        elif isinstance(op, tile.MatmulOp) and space == MemorySpace.ACC:
            kind = "CO1"
        else:
            raise op_error(op, f"producing a {space.value} tile with {op.name} is not supported by the cube path")
        buf = self._new_buffer(base, kind, rows * cols * eb, op, what)  # type: ignore[operator]
        var = self.namer.fresh(base)
        self.tiles[res] = TileInfo(var, layout, ctype(t.element_type), buf, loaded=kind != "CO1")

    def _stores_directly(self, op: Operation, res: SSAValue) -> bool:
        stores = [u.operation for u in res.uses if isinstance(u.operation, tile.StoreOp) and u.index == 0]
        if len(stores) != 1:
            return False
        store = stores[0]
        block = op.parent_block()
        if store.parent_block() is not block or block is None:
            return False
        if _last_use_in_block(res, block) is not store:
            return False
        if sum(1 for u in res.uses if u.operation is store) != 1:
            return False
        self.direct_store.add(store)
        return True

    def _plan_store(self, op: tile.StoreOp) -> None:
        t = op.tile.type
        assert isinstance(t, TileType)
        if t.space == MemorySpace.ACC:
            if not isinstance(op.dest.type.element_type, Float32Type):  # type: ignore[union-attr]
                raise op_error(op, "an accumulator is stored to an f32 tensor (quantising Fixpipe is not supported yet)")
            if len(list(op.tile.uses)) != 1:
                raise op_error(op, "an accumulator tile is stored once, as its last use (the store frees L0C)")
            return
        if t.space != MemorySpace.VEC:
            raise op_error(op, f"storing a {t.space.value} tile is not supported (only vec and acc tiles are stored)")
        if op not in self.direct_store:
            layout = tile_layout(t, op)
            self.store_staging[op] = self._new_buffer(
                f"{op.tile.name_hint or 't'}_out", "VECOUT", layout.bytes, op, f"%{op.tile.name_hint or '?'}.out (store staging)"
            )

    def _plan_reduction_scratch(self, op: tile.RowMaxOp | tile.RowSumOp) -> None:
        t = op.input.type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        lanes = REPEAT_BYTES // layout.elem_bytes
        if layout.cols > lanes:
            self.scratch[op] = self._new_buffer(
                f"{op.result.name_hint or 'red'}_tmp", "VECCALC", layout.rows * lanes * layout.elem_bytes, op,
                f"%{op.result.name_hint or '?'}.scratch (two-stage reduction)",
            )

    def _live_ranges(self) -> dict[int, tuple[int, int]]:
        """Pre-order position of each op (start) and of the last op nested in it (end)."""
        spans: dict[int, tuple[int, int]] = {}
        counter = 0

        def visit(op: Operation) -> None:
            nonlocal counter
            start = counter
            counter += 1
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.ops:
                        visit(inner)
            spans[id(op)] = (start, counter - 1)

        for op in self.func.body.block.ops:
            visit(op)
        return spans

    def _share_calc_buffers(self) -> None:
        """Let VECCALC tiles whose live ranges do not overlap share one TBuf.

        A tile is live from its defining op to the end of the last op (in its defining block)
        that uses it. Ranges touching at one op never share, so no op reads and writes the
        same buffer.
        """
        spans = self._live_ranges()
        ranges: dict[int, tuple[int, int]] = {}
        for value, info in self.tiles.items():
            if info.buffer.kind != "VECCALC" or not info.buffer.shareable:
                continue
            op = value.owner
            assert isinstance(op, Operation)
            block = op.parent_block()
            assert block is not None
            start = spans[id(op)][0]
            end = start
            for use in value.uses:
                anc = _ancestor_in(use.operation, block)
                if anc is None:
                    continue
                if anc is use.operation and isinstance(anc, scf.ForOp) and use.index >= 3:
                    # the initial value of a carried tile is copied in before the loop starts
                    end = max(end, spans[id(anc)][0])
                else:
                    end = max(end, spans[id(anc)][1])
            ranges[id(info.buffer)] = (start, end)
        for op, buf in self.scratch.items():
            ranges[id(buf)] = spans[id(op)]
        calc = sorted((b for b in self.buffers if id(b) in ranges), key=lambda b: ranges[id(b)][0])
        pools: list[tuple[Buffer, int]] = []  # (pool, end of its last member)
        replace: dict[int, Buffer] = {}
        for b in calc:
            start, end = ranges[id(b)]
            free = [k for k, (_, last) in enumerate(pools) if last < start]
            if free:
                # the smallest pool that is big enough, else the biggest one (grown)
                fits = [k for k in free if pools[k][0].bytes >= b.bytes]
                k = min(fits, key=lambda k: pools[k][0].bytes) if fits else max(free, key=lambda k: pools[k][0].bytes)
                pool = pools[k][0]
                pool.bytes = max(pool.bytes, b.bytes)
                pool.shared_with.append(b.what.split(" ")[0] if b.what.startswith("%") else b.what)
                pool.in_loop = pool.in_loop or b.in_loop
                pools[k] = (pool, end)
                replace[id(b)] = pool
            else:
                pools.append((b, end))
        if not replace:
            return
        for k, (pool, _) in enumerate(pools):
            if pool.shared_with:
                pool.name = self.namer.fresh(f"calcBuf{k}")
        self.buffers = [b for b in self.buffers if id(b) not in replace]
        for info in self.tiles.values():
            info.buffer = replace.get(id(info.buffer), info.buffer)
        for op in list(self.scratch):
            self.scratch[op] = replace.get(id(self.scratch[op]), self.scratch[op])

    def _fit_ub(self) -> None:
        """Per on-chip memory: double-buffer loop queues when everything fits, else one buffer each."""
        self.mem_bytes: dict[str, int] = {}
        for mem, capacity in MEMORY_BYTES.items():
            bufs = [b for b in self.buffers if KIND_MEMORY[b.kind] == mem]
            if not bufs:
                continue
            for b in bufs:
                b.depth = 2 if b.in_loop and b.kind not in ("VECCALC", "CO1") else 1
            total = sum(b.bytes * b.depth for b in bufs)
            if total > capacity:
                for b in bufs:
                    b.depth = 1
                total = sum(b.bytes * b.depth for b in bufs)
            if total > capacity:
                listing = ", ".join(f"{b.what} ({b.kind}, {b.bytes} B)" for b in bufs)
                name = "Unified Buffer" if mem == "UB" else mem
                raise BackendError(
                    f"ascendc: cannot lower @{self.func.sym_name.data}: its tiles need {total} bytes of {name} "
                    f"but a core has {capacity}: {listing}. Use smaller tiles (loop over the tensor)."
                )
            self.mem_bytes[mem] = total
        self.ub_bytes = self.mem_bytes.get("UB", 0)

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
        self.out.add(f"LocalTensor<{info.elem}> {info.var} = {info.buffer.name}.Get<{info.elem}>();")
        if init is not None:
            src = self.tiles[init]
            self.out.add(f"DataCopy({info.var}, {src.var}, {info.layout.alloc_elems});")
        if arg is not None:
            self.tiles[arg] = info

    def assign_carried_tile(self, op: Operation, result: SSAValue, value: SSAValue) -> None:
        info, src = self.tiles[result], self.tiles[value]
        if src is info:
            return
        if result.type.space == MemorySpace.ACC:  # type: ignore[attr-defined]
            raise op_error(op, "a carried accumulator must be updated in place (yield its matmul_acc result)")
        if src.buffer.shareable is False and isinstance(value, BlockArgument):
            raise op_error(op, "yielding one carried tile in place of another (a swap) is not supported")
        self.out.add(f"DataCopy({info.var}, {src.var}, {info.layout.alloc_elems});")

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
        for value in self.frees.get(op, []):
            info = self.tiles[value]
            self.out.add(f"{info.buffer.name}.FreeTensor({info.var});")

    def emit_op(self, op: Operation) -> None:
        super().emit_op(op)
        self._after(op)

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
        b = info.buffer.name
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
        if op.tile.type.space == MemorySpace.ACC:  # type: ignore[union-attr]
            return self._emit_fixpipe(op, view, info)
        if op in self.direct_store:
            var, qname = info.var, info.buffer.name
            self.out.add(f"{qname}.EnQue({var});")
            self.out.add(f"{var} = {qname}.DeQue<{info.elem}>();")
        else:
            staging = self.store_staging[op]
            var, qname = self.namer.fresh(f"{info.var}_out"), staging.name
            self.out.add(f"LocalTensor<{info.elem}> {var} = {qname}.AllocTensor<{info.elem}>();")
            self.out.add(f"DataCopy({var}, {info.var}, {info.layout.alloc_elems});")
            self.out.add(f"{qname}.EnQue({var});")
            self.out.add(f"{var} = {qname}.DeQue<{info.elem}>();")
        gm, _ = self._window(view, [self.expr(o) for o in op.offsets])
        self.out.add(self._copy_line(op, dst, info.layout, info.elem, var, gm, to_gm=True))
        self.out.add(f"{qname}.FreeTensor({var});")
        if view.root in self.loaded_params:
            # The tensor is read back in this kernel: order the MTE3 write before later MTE2 reads.
            self.out.add("SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);")
            self.out.add("WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);")

    def _static_root(self, value: SSAValue) -> SSAValue | None:
        """Root parameter (or kernel-local tensor) of a tensor value, walking aliases."""
        return storage_root(self.func, value)

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
        b = info.buffer.name
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
        b = d.buffer.name
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
        q = info.buffer.name
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
        tmp = self.scratch[op]
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
            self.out.add(
                f"{fold}({tname}, {tname}, {a.var}[{start}], {mask}, {lay.rows}, "
                f"BinaryRepeatParams(1, 1, 1, {chunk_blocks}, {chunk_blocks}, {rep_stride}));"
            )
        self.out.add(f"{whole}({d.var}, {tname}, {lanes}, {lay.rows}, 1, 1, {chunk_blocks}{order});")

    def _emit_row_expand(self, op: tile.RowExpandSubOp | tile.RowExpandMulOp | tile.RowExpandDivOp) -> None:
        a, r = self.tiles[op.input], self.tiles[op.row]
        lay = a.layout
        d = self._def_tile(op.result)
        # Scalar reads of the row values need the producing pipe to finish first.
        event = "MTE2_S" if r.loaded else "V_S"
        self.out.add(f"SetFlag<HardEvent::{event}>(EVENT_ID0);")
        self.out.add(f"WaitFlag<HardEvent::{event}>(EVENT_ID0);")
        row = self.namer.fresh("row")
        s = self.namer.fresh("row_value")
        self.out.add(f"for (int32_t {row} = 0; {row} < {lay.rows}; ++{row}) {{")
        self.out.indent()
        self.out.add(f"const {d.elem} {s} = {r.var}.GetValue({row});")
        at = f"[{row} * {lay.ld}]" if lay.rows > 1 else ""
        if isinstance(op, tile.RowExpandSubOp):
            self.out.add(f"Adds({d.var}{at}, {a.var}{at}, static_cast<{d.elem}>(-{s}), {lay.cols});")
        elif isinstance(op, tile.RowExpandMulOp):
            self.out.add(f"Muls({d.var}{at}, {a.var}{at}, {s}, {lay.cols});")
        else:
            self.out.add(f"Duplicate({d.var}{at}, {s}, {lay.cols});")
            self.out.add(f"Div({d.var}{at}, {a.var}{at}, {d.var}{at}, {lay.cols});")
        self.out.dedent()
        self.out.add("}")

    # ------------------------------------------------------------------ assembly

    def _assemble(self, params: list[str], body: list[str]) -> str:
        f = self.func
        if self.cube:
            plan = ", ".join(f"{m} {self.mem_bytes[m]} of {MEMORY_BYTES[m]}" for m in self.mem_bytes)
            plan_line = f"// Cube (AIC) kernel. Buffer plan (bytes): {plan}."
        else:
            plan_line = f"// Unified Buffer plan: {self.ub_bytes} of {UB_BYTES} bytes."
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
