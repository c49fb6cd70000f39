"""Static on-chip buffer planning and synchronisation decisions for Ascend C kernels.

Shared by the passes `ascendc-plan-buffers` and `ascendc-insert-sync`, which record their
decisions in the IR as builtin attributes (see docs/passes/ascendc-plan-buffers.md and
docs/passes/ascendc-insert-sync.md), and by the kernel printer, which only reads them.

Buffer planning (per kernel, static):
- every `tile.load` result gets a VECIN `TQue`;
- a compute result whose only escape is a `tile.store` that is its last use gets a VECOUT
  `TQue` (the store is "direct");
- other compute results get a `TBuf<VECCALC>`; storing such a tile (or a loaded one) goes
  through a VECOUT staging queue (the store is "staged");
- two-stage row reductions and row broadcasts (`row_expand_*`, Brcb) get a VECCALC scratch TBuf;
- VECCALC tiles with disjoint live ranges share one TBuf;
- cube tiles: mat -> A1/B1 (L1), left/right -> A2/B2 (L0A/L0B), acc -> CO1 (L0C);
- queues of tiles defined inside a loop get two buffers (double buffering) when the whole
  plan still fits its memory; otherwise one; if one does not fit either, the kernel is
  rejected with the list of buffers and sizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pypto_xdsl.backend.ascendc.cxx import (
    BLOCK_BYTES,
    REPEAT_BYTES,
    UB_BYTES,
    BackendError,
    Namer,
    byte_width,
    op_error,
)
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    ParamDirection,
    TensorType,
    TileType,
    format_shape,
)

# ---------------------------------------------------------------------------- attribute names

# ascendc-plan-buffers
BUFFER_ATTR = "ascendc.buffer"  # tile-producing op: buffer name (array of names for multi-result ops)
STAGING_ATTR = "ascendc.staging"  # staged tile.store: its VECOUT staging queue
SCRATCH_ATTR = "ascendc.scratch"  # two-stage row reduction / row broadcast: its VECCALC scratch buffer
BUFFERS_ATTR = "ascendc.buffers"  # kernel: [{bytes, depth, name, position, values}]
MEMORY_ATTR = "ascendc.memory"  # kernel: {memory = {capacity, used}}
# ascendc-insert-sync
SYNC_ATTR = "ascendc.sync"  # kernel: marks the synchronisation as decided
STAGE_ATTR = "ascendc.stage"  # op: pipeline stage (MTE2, V, MTE3, MTE1, M, FIX)
HANDOFF_ATTR = "ascendc.handoff"  # op: {from, queue, to}: EnQue/DeQue through `queue`
FREE_ATTR = "ascendc.free"  # op: queues whose tile is FreeTensor'd after this op
STORE_ATTR = "ascendc.store"  # tile.store: "direct", "staged" or "fixpipe"
FLAGS_ATTR = "ascendc.flags"  # tile.store: HardEvent SetFlag/WaitFlag pairs after it
BARRIER_ATTR = "ascendc.barrier"  # op: "V": PipeBarrier<PIPE_V>() before its first vector instruction

PLAN_OP_ATTRS = (BUFFER_ATTR, STAGING_ATTR, SCRATCH_ATTR)
SYNC_OP_ATTRS = (STAGE_ATTR, HANDOFF_ATTR, FREE_ATTR, STORE_ATTR, FLAGS_ATTR, BARRIER_ATTR)
PLAN_FUNC_ATTRS = (BUFFERS_ATTR, MEMORY_ATTR)

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


def cube_layout(t: TileType) -> Layout:
    """Cube tiles are whole fractal matrices: no row padding."""
    rows, cols = t.get_shape()
    return Layout(rows, cols, cols, byte_width(t.element_type))  # type: ignore[arg-type]


# Buffer kind (TPosition) -> on-chip memory and its capacity on A2/A3.
KIND_MEMORY = {
    "VECIN": "UB", "VECOUT": "UB", "VECCALC": "UB", "A1": "L1", "B1": "L1", "A2": "L0A", "B2": "L0B", "CO1": "L0C",
}
MEMORY_BYTES = {"UB": UB_BYTES, "L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024}
CUBE_SPACES = (MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC)
# Queues whose tile the consumer frees (FreeTensor) after its last use.
FREED_KINDS = ("VECIN", "A1", "B1", "A2", "B2")
_PREFIX = {"VECIN": "inQ", "VECOUT": "outQ", "VECCALC": "buf", "A1": "qA1", "B1": "qB1", "A2": "qA2",
           "B2": "qB2", "CO1": "qCO1"}


@dataclass
class Buffer:
    """A statically planned on-chip buffer: a TQue (VECIN/VECOUT/cube) or a TBuf (VECCALC)."""

    name: str
    kind: str  # TPosition: "VECIN", "VECOUT", "VECCALC", "A1", "B1", "A2", "B2", "CO1"
    bytes: int
    in_loop: bool
    what: str  # for messages: the IR value it holds
    depth: int = 1
    shared_with: list[str] = field(default_factory=list)  # short names of the other values
    members: list[str] = field(default_factory=list)  # descriptions of the other values
    shareable: bool = True

    @property
    def comment(self) -> str:
        if not self.shared_with:
            return self.what
        names = [self.what.split(" ")[0]] + self.shared_with
        return ", ".join(names) + " (disjoint live ranges)"

    @property
    def values(self) -> list[str]:
        return [self.what, *self.members]

    def share(self, other: Buffer) -> None:
        self.bytes = max(self.bytes, other.bytes)
        self.shared_with.append(other.what.split(" ")[0] if other.what.startswith("%") else other.what)
        self.members.append(other.what)
        self.in_loop = self.in_loop or other.in_loop

    def to_attr(self) -> DictionaryAttr:
        # keys sorted: MLIR keeps dictionary attributes sorted, so the IR survives mlir-opt unchanged
        return DictionaryAttr({
            "bytes": IntegerAttr(self.bytes, i64),
            "depth": IntegerAttr(self.depth, i64),
            "name": StringAttr(self.name),
            "position": StringAttr(self.kind),
            "values": ArrayAttr([StringAttr(v) for v in self.values]),
        })

    @staticmethod
    def from_attr(attr: Attribute, func: program.FuncOp) -> Buffer:
        def bad(why: str) -> BackendError:
            return BackendError(f"ascendc: @{func.sym_name.data} has an inconsistent {BUFFERS_ATTR} entry {attr}: {why}")

        if not isinstance(attr, DictionaryAttr):
            raise bad("expected a dictionary")
        d = attr.data
        try:
            name, kind = d["name"], d["position"]
            nbytes, depth, values = d["bytes"], d["depth"], d["values"]
        except KeyError as e:
            raise bad(f"missing key {e}") from None
        if not (isinstance(name, StringAttr) and isinstance(kind, StringAttr) and kind.data in KIND_MEMORY):
            raise bad("name and position must be strings, position one of " + ", ".join(KIND_MEMORY))
        if not (isinstance(nbytes, IntegerAttr) and isinstance(depth, IntegerAttr) and depth.value.data in (1, 2)):
            raise bad("bytes and depth must be integers, depth 1 or 2")
        if not (isinstance(values, ArrayAttr) and values.data and all(isinstance(v, StringAttr) for v in values)):
            raise bad("values must be a non-empty array of strings")
        texts = [v.data for v in values]  # type: ignore[union-attr]
        b = Buffer(name.data, kind.data, nbytes.value.data, False, texts[0], depth.value.data)
        for t in texts[1:]:
            b.shared_with.append(t.split(" ")[0] if t.startswith("%") else t)
            b.members.append(t)
        return b


def in_loop(op: Operation, func: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not func:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def last_use_in_block(value: SSAValue, block: Block) -> Operation | None:
    last: Operation | None = None
    last_index = -1
    order = {o: k for k, o in enumerate(block.ops)}
    for use in value.uses:
        anc = ancestor_in(use.operation, block)
        if anc is not None and order[anc] > last_index:
            last, last_index = anc, order[anc]
    return last


def check_while_tiles(op: scf.WhileOp) -> None:
    """A tile carried through `op` keeps one buffer for the whole loop, so at its position the
    initial value, the `before` argument, the forwarded value (the result and the `after`
    argument) and the yielded value must all have that tile type."""
    before = op.before_region.block
    columns = (("initial value", op.arguments), ("'before' block argument", before.args), ("loop result", op.results))
    width = max(len(values) for _, values in columns)
    for index in range(width):
        types = [values[index].type if index < len(values) else None for _, values in columns]
        tile_t = next((t for t in types if isinstance(t, TileType)), None)
        if tile_t is None:
            continue
        for (what, _), t in zip(columns, types):
            if t != tile_t:
                raise op_error(
                    op, f"a tile carried through scf.while keeps its position: the {what} at position {index} "
                    f"is {t if t is not None else 'missing'}, not {tile_t} (the initial values, 'before' "
                    "arguments and results must line up)"
                )


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


# ---------------------------------------------------------------------------- kernel checks


def check_element(func: program.FuncOp, t: Attribute, what: str) -> None:
    if not isinstance(t, _SUPPORTED_ELEMENTS) or (isinstance(t, IntegerType) and t.width.data == 1):
        raise BackendError(
            f"ascendc: cannot lower @{func.sym_name.data}: {what} has element type {t}; "
            "supported: f32, f16 and integers"
        )


def uses_cube(func: program.FuncOp) -> bool:
    """Cube kernels hold mat/left/right/acc tiles only; vector kernels vec tiles only."""
    if not func.is_incore:
        raise BackendError(f"ascendc: @{func.sym_name.data} is a {func.func_kind.value} function, not a kernel")
    spaces = set()
    for op in func.walk():
        for r in op.results:
            if isinstance(r.type, TileType):
                spaces.add(r.type.space)
    cube = bool(spaces & set(CUBE_SPACES))
    name = func.sym_name.data
    if cube and MemorySpace.VEC in spaces:
        raise BackendError(
            f"ascendc: cannot lower @{name}: it mixes vector ('vec') and cube (mat/left/right/acc) tiles; "
            "mixed AIC/AIV kernels are not supported yet (split it into an aiv and an aic kernel)"
        )
    if cube and func.func_kind.value == "aiv":
        raise BackendError(f"ascendc: cannot lower @{name}: an aiv kernel cannot use cube tiles")
    if not cube and func.func_kind.value == "aic":
        raise BackendError(f"ascendc: cannot lower @{name}: an aic kernel must use cube tiles (mat/left/right/acc)")
    return cube


@dataclass
class SignatureNames:
    """C++ names of a kernel's parameters, in the order the printer allocates them."""

    params: dict[SSAValue, str] = field(default_factory=dict)  # parameter -> C++ name
    gm: dict[SSAValue, str] = field(default_factory=dict)  # tensor parameter / local tensor -> GlobalTensor
    slots: list[WorkspaceSlot] = field(default_factory=list)
    ws_bytes: int = 0
    ws_param: str | None = None
    ws_block: str | None = None


def signature_names(func: program.FuncOp, namer: Namer) -> SignatureNames:
    """Check the kernel's parameters and kernel-local tensors and name them with `namer`.

    The planner and the printer both call this first, so buffer names chosen by the planner
    are the names the printer's namer would choose."""
    names = SignatureNames()
    fname = func.sym_name.data
    for k, (arg, direction) in enumerate(zip(func.args, func.directions)):
        t = arg.type
        base = arg.name_hint or f"arg{k}"
        if isinstance(t, TensorType):
            if not t.is_static():
                raise BackendError(
                    f"ascendc: cannot lower @{fname}: tensor parameter "
                    f"%{base} has dynamic shape {format_shape(t.get_shape())}; the backend needs static shapes"
                )
            if t.rank > 2:
                raise BackendError(
                    f"ascendc: cannot lower @{fname}: tensor parameter %{base} has "
                    f"rank {t.rank}; only 1-D and 2-D tensors are supported"
                )
            check_element(func, t.element_type, f"tensor parameter %{base}")
            name = namer.fresh(base)
            names.params[arg] = name
            names.gm[arg] = namer.fresh(f"{name}_gm")
        elif isinstance(t, TileType):
            raise BackendError(
                f"ascendc: cannot lower @{fname}: parameter %{base} is a tile; "
                "kernel parameters must be tensors or scalars"
            )
        else:
            if direction != ParamDirection.IN:
                raise BackendError(
                    f"ascendc: cannot lower @{fname}: scalar parameter %{base} is "
                    f"'{direction.value}'; kernels cannot return scalars"
                )
            names.params[arg] = namer.fresh(base)
    names.slots, names.ws_bytes = workspace_plan(func)
    for slot in names.slots:
        t = slot.value.type
        assert isinstance(t, TensorType)
        check_element(func, t.element_type, f"kernel-local tensor %{slot.value.name_hint or '?'}")
    if names.ws_bytes:
        names.ws_param = namer.fresh("workspace")
        names.ws_block = namer.fresh("block_ws")
        for slot in names.slots:
            names.gm[slot.value] = namer.fresh(f"{slot.value.name_hint or 'local'}_gm")
    return names


def new_kernel_namer(func: program.FuncOp) -> tuple[Namer, str]:
    namer = Namer(["pipe", "GM_ADDR", "AscendC"])
    kernel_name = kernel_cxx_name(func.sym_name.data)
    namer.used.add(kernel_name)
    return namer, kernel_name


# ---------------------------------------------------------------------------- buffer planning


@dataclass
class PlannedTile:
    buffer: Buffer


@dataclass
class Capacities:
    """Options of the plan: memory sizes (bytes) and whether loop queues may be double-buffered."""

    ub_bytes: int = UB_BYTES
    double_buffer: bool = True

    def of(self, memory: str) -> int:
        return self.ub_bytes if memory == "UB" else MEMORY_BYTES[memory]


class BufferPlanner:
    """Plans the buffers of one kernel (the decisions `ascendc-plan-buffers` records)."""

    def __init__(self, func: program.FuncOp, capacities: Capacities | None = None):
        self.func = func
        self.capacities = capacities or Capacities()
        self.namer, _ = new_kernel_namer(func)
        self.tiles: dict[SSAValue, PlannedTile] = {}
        self.aliases: dict[SSAValue, SSAValue] = {}  # cube acc results -> the accumulator they update
        self.buffers: list[Buffer] = []
        self.direct_store: set[Operation] = set()
        self.store_staging: dict[Operation, Buffer] = {}
        self.scratch: dict[Operation, Buffer] = {}
        self.mem_bytes: dict[str, int] = {}

    def run(self) -> BufferPlanner:
        self.cube = uses_cube(self.func)
        signature_names(self.func, self.namer)
        self._plan(self.func.body.block)
        self._share_calc_buffers()
        self._fit()
        return self

    def _new_buffer(self, base: str, kind: str, nbytes: int, op: Operation, what: str) -> Buffer:
        b = Buffer(self.namer.fresh(f"{_PREFIX[kind]}_{base}"), kind, nbytes, in_loop(op, self.func), what)
        self.buffers.append(b)
        return b

    def _plan(self, block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._plan(inner)
            if isinstance(op, scf.WhileOp):
                check_while_tiles(op)
            for res in op.results:
                if isinstance(res.type, TileType):
                    self._plan_tile(op, res)
            if isinstance(op, tile.StoreOp):
                self._plan_store(op)
            if isinstance(op, tile.RowMaxOp | tile.RowSumOp):
                self._plan_reduction_scratch(op)
            if isinstance(op, tile.RowExpandSubOp | tile.RowExpandMulOp | tile.RowExpandDivOp):
                self._plan_broadcast_scratch(op)

    def _plan_tile(self, op: Operation, res: SSAValue) -> None:
        t = res.type
        assert isinstance(t, TileType)
        if t.space in CUBE_SPACES:
            return self._plan_cube_tile(op, res, t)
        if t.space != MemorySpace.VEC:
            raise op_error(op, f"tile {t} is in memory space '{t.space.value}', which the backend does not support")
        check_element(self.func, t.element_type, f"tile %{res.name_hint or '?'}")
        layout = tile_layout(t, op)
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.LoadOp):
            buf = self._new_buffer(base, "VECIN", layout.bytes, op, what)
        elif isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp):
            # A tile carried through a loop or yielded by a branch: one fixed buffer that the
            # initial value and every yielded value are copied into.
            buf = self._new_buffer(base, "VECCALC", layout.bytes, op, what)
            buf.shareable = False
        else:
            kind = "VECOUT" if self._stores_directly(op, res) else "VECCALC"
            buf = self._new_buffer(base, kind, layout.bytes, op, what)
        self.namer.fresh(base)  # the printer's C++ variable of the tile: keeps later names identical
        self.tiles[res] = PlannedTile(buf)

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
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.MatmulAccOp | scf.ForOp | scf.IfOp | scf.WhileOp):
            if isinstance(op, scf.IfOp | scf.WhileOp) or space != MemorySpace.ACC:
                raise op_error(op, f"cube tile {t} cannot be yielded from a region (only an accumulator carried by scf.for)")
            # aliases the accumulator it updates
            self.aliases[res] = op.acc if isinstance(op, tile.MatmulAccOp) else op.iter_args[res.index]  # type: ignore[union-attr]
            return
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
        self.namer.fresh(base)
        self.tiles[res] = PlannedTile(buf)

    def buffer_of(self, value: SSAValue) -> Buffer | None:
        while True:
            if value in self.aliases:
                value = self.aliases[value]
            elif isinstance(value, BlockArgument) and value.index > 0 and isinstance(loop := value.owner.parent_op(), scf.ForOp):
                value = loop.iter_args[value.index - 1]  # a carried accumulator: its initial value's buffer
            else:
                break
        planned = self.tiles.get(value)
        return planned.buffer if planned is not None else None

    def _stores_directly(self, op: Operation, res: SSAValue) -> bool:
        stores = [u.operation for u in res.uses if isinstance(u.operation, tile.StoreOp) and u.index == 0]
        if len(stores) != 1:
            return False
        store = stores[0]
        block = op.parent_block()
        if store.parent_block() is not block or block is None:
            return False
        if last_use_in_block(res, block) is not store:
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

    def _plan_broadcast_scratch(self, op: tile.RowExpandSubOp | tile.RowExpandMulOp | tile.RowExpandDivOp) -> None:
        t = op.input.type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        if layout.cols == 1:
            return  # [R, 1] with [R, 1]: an elementwise op, nothing to broadcast
        # Brcb fills one 32-byte block per row, 8 rows per repeat.
        self.scratch[op] = self._new_buffer(
            f"{op.result.name_hint or 'bc'}_brcb", "VECCALC", _round_up(layout.rows, 8) * BLOCK_BYTES, op,
            f"%{op.result.name_hint or '?'}.scratch (row broadcast)",
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
                anc = ancestor_in(use.operation, block)
                if anc is None:
                    continue
                if anc is use.operation and (
                    (isinstance(anc, scf.ForOp) and use.index >= 3) or isinstance(anc, scf.WhileOp)
                ):
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
                pool.share(b)
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

    def _fit(self) -> None:
        """Per on-chip memory: double-buffer loop queues when everything fits, else one buffer each."""
        for mem in MEMORY_BYTES:
            capacity = self.capacities.of(mem)
            bufs = [b for b in self.buffers if KIND_MEMORY[b.kind] == mem]
            if not bufs:
                continue
            for b in bufs:
                double = self.capacities.double_buffer and b.in_loop and b.kind not in ("VECCALC", "CO1")
                b.depth = 2 if double else 1
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

    # ------------------------------------------------------------------ recording

    def annotate(self) -> None:
        """Record the plan on the kernel (replacing any earlier plan and sync decisions)."""
        clear_annotations(self.func)
        for op in self.func.walk():
            if op is self.func:
                continue
            names: list[str] = []
            for res in op.results:
                buf = self.buffer_of(res) if isinstance(res.type, TileType) else None
                names.append(buf.name if buf is not None else "")
            if any(names):
                op.attributes[BUFFER_ATTR] = (
                    StringAttr(names[0]) if len(names) == 1 else ArrayAttr([StringAttr(n) for n in names])
                )
            if op in self.store_staging:
                op.attributes[STAGING_ATTR] = StringAttr(self.store_staging[op].name)
            if op in self.scratch:
                op.attributes[SCRATCH_ATTR] = StringAttr(self.scratch[op].name)
        self.func.attributes[BUFFERS_ATTR] = ArrayAttr([b.to_attr() for b in self.buffers])
        self.func.attributes[MEMORY_ATTR] = DictionaryAttr({
            mem: DictionaryAttr({
                "capacity": IntegerAttr(self.capacities.of(mem), i64),
                "used": IntegerAttr(self.mem_bytes[mem], i64),
            })
            for mem in sorted(self.mem_bytes)
        })


def clear_annotations(func: program.FuncOp, plan: bool = True) -> None:
    """Remove the sync decisions (and, with `plan`, the buffer plan) recorded on `func`."""
    op_attrs = SYNC_OP_ATTRS + (PLAN_OP_ATTRS if plan else ())
    for op in func.walk():
        for key in op_attrs:
            op.attributes.pop(key, None)
    func.attributes.pop(SYNC_ATTR, None)
    if plan:
        for key in PLAN_FUNC_ATTRS:
            func.attributes.pop(key, None)


# tensor ops the kernel printer handles itself (GM views and kernel-local tensors)
_KERNEL_TENSOR_OPS = (tensor.SliceOp, tensor.DimOp, tensor.CreateOp)


def is_tile_level(func: program.FuncOp) -> bool:
    """No tensor-level compute left: the body is what the kernel printer prints."""
    return not any(
        o.name.startswith("pypto.tensor.") and not isinstance(o, _KERNEL_TENSOR_OPS) for o in func.walk()
    )


def is_planned(func: program.FuncOp) -> bool:
    return BUFFERS_ATTR in func.attributes


def is_synced(func: program.FuncOp) -> bool:
    return SYNC_ATTR in func.attributes


def plan_buffers(func: program.FuncOp, capacities: Capacities | None = None) -> None:
    """Plan and record the buffers of kernel `func` (raises BackendError)."""
    BufferPlanner(func, capacities).run().annotate()


# ---------------------------------------------------------------------------- reading a plan


def string_attr(op: Operation, key: str) -> str | None:
    a = op.attributes.get(key)
    if a is None:
        return None
    if not isinstance(a, StringAttr):
        raise op_error(op, f"'{key}' must be a string attribute, got {a}")
    return a.data


def result_buffers(op: Operation) -> list[str]:
    """The buffer name recorded for each result of `op` ('' for none)."""
    a = op.attributes.get(BUFFER_ATTR)
    n = len(op.results)
    if a is None:
        return [""] * n
    if isinstance(a, StringAttr) and n == 1:
        return [a.data]
    if isinstance(a, ArrayAttr) and len(a.data) == n and all(isinstance(x, StringAttr) for x in a.data):
        return [x.data for x in a.data]  # type: ignore[union-attr]
    raise op_error(op, f"'{BUFFER_ATTR}' must be a string (one result) or an array of {n} strings, got {a}")


def read_buffers(func: program.FuncOp) -> dict[str, Buffer]:
    """The buffers recorded by `ascendc-plan-buffers`, by name, in declaration order."""
    attr = func.attributes.get(BUFFERS_ATTR)
    if not isinstance(attr, ArrayAttr):
        raise BackendError(
            f"ascendc: @{func.sym_name.data} has no buffer plan ('{BUFFERS_ATTR}'); run ascendc-plan-buffers first"
        )
    out: dict[str, Buffer] = {}
    for entry in attr.data:
        b = Buffer.from_attr(entry, func)
        if b.name in out:
            raise BackendError(f"ascendc: @{func.sym_name.data} declares buffer '{b.name}' twice in {BUFFERS_ATTR}")
        out[b.name] = b
    return out


def read_memory(func: program.FuncOp) -> dict[str, tuple[int, int]]:
    """memory -> (used, capacity) bytes, in MEMORY_BYTES order."""
    attr = func.attributes.get(MEMORY_ATTR)
    if not isinstance(attr, DictionaryAttr):
        raise BackendError(f"ascendc: @{func.sym_name.data} has no '{MEMORY_ATTR}' totals; run ascendc-plan-buffers first")
    out: dict[str, tuple[int, int]] = {}
    for mem in MEMORY_BYTES:
        entry = attr.data.get(mem)
        if entry is None:
            continue
        used = entry.data.get("used") if isinstance(entry, DictionaryAttr) else None
        cap = entry.data.get("capacity") if isinstance(entry, DictionaryAttr) else None
        if not isinstance(used, IntegerAttr) or not isinstance(cap, IntegerAttr):
            raise BackendError(f"ascendc: @{func.sym_name.data}: '{MEMORY_ATTR}' entry {mem} needs integer 'used' and 'capacity'")
        out[mem] = (used.value.data, cap.value.data)
    return out


def require_buffer(op: Operation, buffers: dict[str, Buffer], name: str, key: str) -> Buffer:
    b = buffers.get(name)
    if b is None:
        raise op_error(op, f"'{key}' names buffer '{name}', which the kernel's '{BUFFERS_ATTR}' does not declare")
    return b


# ---------------------------------------------------------------------------- synchronisation

_VECTOR_STAGE = "V"


def _handoff(queue: str, src: str, dst: str) -> DictionaryAttr:
    return DictionaryAttr({"from": StringAttr(src), "queue": StringAttr(queue), "to": StringAttr(dst)})


def insert_sync(func: program.FuncOp, pipe_v_barriers: bool = True) -> None:
    """Record the synchronisation of kernel `func` from its buffer plan (raises BackendError).

    With `pipe_v_barriers` off, no `ascendc.barrier` is recorded (for toolchains that insert
    PIPE_V barriers themselves)."""
    if not is_planned(func):
        raise BackendError(
            f"ascendc: @{func.sym_name.data} has no buffer plan ('{BUFFERS_ATTR}'); "
            "run ascendc-plan-buffers before ascendc-insert-sync"
        )
    clear_annotations(func, plan=False)
    buffers = read_buffers(func)
    # value -> its buffer, following the plan
    buffer_of: dict[SSAValue, Buffer] = {}
    for op in func.walk():
        if op is func:
            continue
        for res, name in zip(op.results, result_buffers(op)):
            if name:
                buffer_of[res] = require_buffer(op, buffers, name, BUFFER_ATTR)
        if isinstance(op, scf.ForOp):
            for arg, res in zip(op.body.block.args[1:], op.results):
                if res in buffer_of:
                    buffer_of[arg] = buffer_of[res]
        if isinstance(op, scf.WhileOp):
            # a carried tile: both regions' arguments at its position name the result's buffer
            check_while_tiles(op)
            for res in op.results:
                if res in buffer_of:
                    buffer_of[op.before_region.block.args[res.index]] = buffer_of[res]
                    buffer_of[op.after_region.block.args[res.index]] = buffer_of[res]
    loaded_roots = {storage_root(func, o.source) for o in func.walk() if isinstance(o, tile.LoadOp)} - {None}
    frees: dict[Operation, list[str]] = {}

    def visit(block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    visit(inner)
        # queue tiles are freed after their last use in the block that defines them
        for op in block.ops:
            for res in op.results:
                buf = buffer_of.get(res)
                if buf is not None and buf.kind in FREED_KINDS and not isinstance(op, scf.ForOp | scf.IfOp):
                    last = last_use_in_block(res, block) or op
                    frees.setdefault(last, []).append(buf.name)

    visit(func.body.block)
    for op in func.walk():
        if op is func:
            continue
        stage: str | None = None
        if isinstance(op, tile.LoadOp):
            buf = buffer_of.get(op.result)
            if buf is None:
                raise op_error(op, f"the loaded tile has no '{BUFFER_ATTR}'")
            cube = buf.kind in ("A1", "B1")
            stage = "MTE2"
            op.attributes[HANDOFF_ATTR] = _handoff(buf.name, "MTE2", "MTE1" if cube else _VECTOR_STAGE)
        elif isinstance(op, tile.StoreOp):
            buf = buffer_of.get(op.tile)
            if buf is None:
                raise op_error(op, f"the stored tile has no '{BUFFER_ATTR}'")
            if buf.kind == "CO1":
                stage, kind = "FIX", "fixpipe"
                op.attributes[HANDOFF_ATTR] = _handoff(buf.name, "M", "FIX")
            else:
                stage = "MTE3"
                staging = string_attr(op, STAGING_ATTR)
                if staging is not None:
                    require_buffer(op, buffers, staging, STAGING_ATTR)
                    kind, queue = "staged", staging
                elif buf.kind == "VECOUT":
                    kind, queue = "direct", buf.name
                else:
                    raise op_error(
                        op, f"the stored tile lives in {buf.kind} buffer '{buf.name}' and the store has no '{STAGING_ATTR}'"
                    )
                op.attributes[HANDOFF_ATTR] = _handoff(queue, _VECTOR_STAGE, "MTE3")
                root = storage_root(func, op.dest)
                if root is not None and root in loaded_roots:
                    # the tensor is read back in this kernel: order the MTE3 write before later MTE2 reads
                    op.attributes[FLAGS_ATTR] = ArrayAttr([StringAttr("MTE3_MTE2")])
            op.attributes[STORE_ATTR] = StringAttr(kind)
        elif isinstance(op, tile.MoveOp) and op.result.type.space in (MemorySpace.LEFT, MemorySpace.RIGHT):  # type: ignore[union-attr]
            buf = buffer_of.get(op.result)
            if buf is None:
                raise op_error(op, f"the moved tile has no '{BUFFER_ATTR}'")
            stage = "MTE1"
            op.attributes[HANDOFF_ATTR] = _handoff(buf.name, "MTE1", "M")
        elif isinstance(op, tile.MatmulOp | tile.MatmulAccOp):
            stage = "M"
        elif op.name.startswith("pypto.tile.") and any(isinstance(v.type, TileType) for v in (*op.operands, *op.results)):
            stage = _VECTOR_STAGE
        if stage is not None:
            op.attributes[STAGE_ATTR] = StringAttr(stage)
        if op in frees:
            op.attributes[FREE_ATTR] = ArrayAttr([StringAttr(n) for n in frees[op]])
    if pipe_v_barriers:
        for op in _VectorBarriers(buffer_of, buffers).run(func):
            op.attributes[BARRIER_ATTR] = StringAttr(_VECTOR_STAGE)
    else:
        func.attributes[BARRIER_ATTR] = StringAttr("auto")  # the toolchain inserts them
    cube = any(KIND_MEMORY[b.kind] != "UB" for b in buffers.values())
    func.attributes[SYNC_ATTR] = StringAttr("cube" if cube else "vector")


# Pending vector-pipe accesses since the last PipeBarrier<PIPE_V>: (buffers read, buffers written).
_Pending = tuple[frozenset[str], frozenset[str]]
_NONE: _Pending = (frozenset(), frozenset())


def _join(a: _Pending, b: _Pending) -> _Pending:
    return (a[0] | b[0], a[1] | b[1])


def _forget(state: _Pending, names: set[str], reads_only: bool = False) -> _Pending:
    return (state[0] - names, state[1] if reads_only else state[1] - names)


class _VectorBarriers:
    """Where a PipeBarrier<PIPE_V>() must precede an op: its vector instructions read or write
    a UB buffer that an earlier vector instruction wrote (RAW, WAW), or write one an earlier
    one read (WAR), with no barrier in between. Buffers are compared by planned name (tiles
    sharing a TBuf conflict). An op's vector instructions are its V-stage compute (operands,
    result, scratch), the UB -> UB copy of a staged store and the copies of carried tiles
    (into the carried buffer: before a loop for its initial values, at `scf.yield` /
    `scf.condition` for the yielded ones). A queue round trip orders the vector pipe against
    another pipe and back, so it clears what concerns its buffer: a load (AllocTensor), the
    EnQue of a store and the FreeTensor of an input queue. Loops: the body is analysed from
    the state before the loop joined with the state at the end of the body until nothing
    changes, so a dependence across iterations gets its barrier; the state after a loop is the
    join of both (zero iterations included); for `scf.while`, the state after its condition. Dependences between the instructions of one op
    (two-stage reductions, Brcb then Sub, Duplicate then Div, several carried copies) are the
    printer's: it puts barriers between them."""

    def __init__(self, buffer_of: dict[SSAValue, Buffer], buffers: dict[str, Buffer]):
        self.buffer_of = buffer_of
        self.buffers = buffers
        self.decision: dict[Operation, bool] = {}

    def run(self, func: program.FuncOp) -> list[Operation]:
        self._block(func.body.block, _NONE)
        return [op for op in func.walk() if self.decision.get(op)]

    def _names(self, values) -> frozenset[str]:
        return frozenset(b.name for v in values if (b := self.buffer_of.get(v)) is not None and KIND_MEMORY[b.kind] == "UB")

    def _access(self, op: Operation, state: _Pending, reads: frozenset[str], writes: frozenset[str]) -> _Pending:
        if not reads and not writes:
            return state
        r, w = state
        conflict = bool(reads & w or writes & w or writes & r)
        self.decision[op] = conflict
        if conflict:
            r, w = _NONE
        return (r | reads, w | writes)

    def _copies(self, pairs: list[tuple[SSAValue, SSAValue]], skip: list[set[SSAValue]]) -> tuple[frozenset[str], frozenset[str]]:
        """(reads, writes) of the carried-tile copies `src -> dst` the printer emits."""
        reads: set[str] = set()
        writes: set[str] = set()
        for (src, dst), same in zip(pairs, skip):
            if not isinstance(dst.type, TileType) or src in same:
                continue
            reads |= self._names([src])
            writes |= self._names([dst])
        return frozenset(reads), frozenset(writes)

    def _free(self, op: Operation, state: _Pending) -> _Pending:
        a = op.attributes.get(FREE_ATTR)
        if isinstance(a, ArrayAttr):
            state = _forget(state, {x.data for x in a.data if isinstance(x, StringAttr)}, reads_only=True)
        return state

    def _terminator(self, term: Operation, state: _Pending, targets: list[SSAValue], same: list[set[SSAValue]]) -> _Pending:
        reads, writes = self._copies(list(zip(term.operands if not isinstance(term, scf.ConditionOp) else term.args, targets)), same)
        self.decision.pop(term, None)
        return self._free(term, self._access(term, state, reads, writes))

    def _loop(self, entry: _Pending, body) -> tuple[_Pending, _Pending]:
        """Fixed point of a loop body: (state at the loop exit, state at the end of the body)."""
        state = entry
        while True:
            exit_, end = body(state)
            # grow monotonically: a barrier that an earlier pass over the body did not need
            # could otherwise shrink the end state and make the iteration oscillate
            nxt = _join(state, end)
            if nxt == state:
                return exit_, end
            state = nxt

    def _block(self, block: Block, state: _Pending) -> _Pending:
        for op in block.ops:
            state = self._op(op, state)
        return state

    def _op(self, op: Operation, state: _Pending) -> _Pending:
        self.decision.pop(op, None)
        if isinstance(op, tile.LoadOp):
            return _forget(state, set(self._names([op.result])))
        if isinstance(op, tile.StoreOp):
            staging = string_attr(op, STAGING_ATTR)
            if staging is not None:
                state = self._access(op, state, self._names([op.tile]), frozenset({staging}))
                state = _forget(state, {staging})
            else:
                state = _forget(state, set(self._names([op.tile])))
            return self._free(op, state)
        if isinstance(op, scf.ForOp):
            body = op.body.block
            args = list(body.args[1:])
            reads, writes = self._copies(list(zip(op.iter_args, op.res)), [set()] * len(args))
            state = self._access(op, state, reads, writes)
            yield_ = body.last_op
            same = [{a, r} for a, r in zip(args, op.res)]

            def run_for(s: _Pending) -> tuple[_Pending, _Pending]:
                for inner in body.ops:
                    if inner is yield_:
                        s = self._terminator(inner, s, list(op.res), same)
                    else:
                        s = self._op(inner, s)
                return s, s

            _, end = self._loop(state, run_for)
            return self._free(op, _join(state, end))
        if isinstance(op, scf.IfOp):
            out = state
            for region in (op.true_region, op.false_region):
                if not region.blocks:
                    continue
                s = state
                for inner in region.block.ops:
                    if isinstance(inner, scf.YieldOp):
                        s = self._terminator(inner, s, list(op.output), [set()] * len(op.output))
                    else:
                        s = self._op(inner, s)
                out = _join(out, s)
            return self._free(op, out)
        if isinstance(op, scf.WhileOp):
            before, after = op.before_region.block, op.after_region.block
            reads, writes = self._copies(list(zip(op.arguments, op.res)), [set()] * len(op.arguments))
            state = self._access(op, state, reads, writes)
            same = [
                {v for v in (before.args[k] if k < len(before.args) else None, r,
                             after.args[k] if k < len(after.args) else None) if v is not None}
                for k, r in enumerate(op.res)
            ]

            def run_while(s: _Pending) -> tuple[_Pending, _Pending]:
                for inner in before.ops:
                    if isinstance(inner, scf.ConditionOp):
                        s = self._terminator(inner, s, list(op.res), same)
                    else:
                        s = self._op(inner, s)
                exit_ = s
                for inner in after.ops:
                    if isinstance(inner, scf.YieldOp):
                        s = self._terminator(inner, s, list(op.res), same)
                    else:
                        s = self._op(inner, s)
                return exit_, s

            exit_, _ = self._loop(state, run_while)
            return self._free(op, exit_)
        if string_attr(op, STAGE_ATTR) == _VECTOR_STAGE:
            extra = frozenset(n for n in (string_attr(op, SCRATCH_ATTR),) if n is not None)
            tiles = [v for v in op.operands if isinstance(v.type, TileType)]
            state = self._access(op, state, self._names(tiles) | extra, self._names(op.results) | extra)
        return self._free(op, state)


def prepare_kernel(func: program.FuncOp) -> program.FuncOp:
    """`func` if it carries a plan and sync decisions, else an annotated clone of it."""
    if is_planned(func) and is_synced(func):
        return func
    clone = func.clone()
    if not is_planned(clone):
        plan_buffers(clone)
    insert_sync(clone)
    return clone
