"""What `convert-pypto-to-ascendc` decides about one tile-level kernel before it emits ops.

`KernelPlan(func)` reads a `pypto.func incore|aiv|aic` whose body is tile-level and decides:

* the kernel kind (vector or cube) and the checks on its signature;
* the UB layout of every tile (`tile_layout`: rows padded to 32 bytes except single-row and
  single-column tiles) and the kernel-local GM tensors' workspace slots (`workspace_plan`);
* the buffer each tile lives in, by what its uses need: a loaded tile a VECIN queue; a
  computed tile whose only escape is a store that is its last use a VECOUT queue (a direct
  store); other computed tiles a VECCALC TBuf, stored through a VECOUT staging queue; tiles
  carried by scf.for/scf.while or yielded by scf.if a fixed VECCALC TBuf; two-stage row
  reductions and row broadcasts a VECCALC scratch TBuf; cube tiles A1/B1 (L1), A2/B2
  (L0A/L0B), CO1 (L0C), accumulators updated in place;
* where each queue tile is freed: after its last use in the block that defines it;
* the C++ names of everything the kernel declares, in the order the generated code has
  always used (parameters, GlobalTensors, workspace, buffers in plan order, tile variables).

Sharing TBufs, queue depths and capacities are decided later, on the ascendc declarations,
by `ascendc-plan-buffers`; synchronisation by `ascendc-insert-sync`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pypto_xdsl.analysis.cxx_names import BackendError, Namer, kernel_namer, op_error
from pypto_xdsl.analysis.dynamic_extents import dynamic_symbols, unsupported_dynamic_shape
from pypto_xdsl.dialects import program, tensor, tile
from pypto_xdsl.dialects.ascendc_types import TPosition
from pypto_xdsl.dialects.attributes import (
    MemorySpace,
    ParamDirection,
    TensorType,
    TileType,
    element_byte_width,
    format_shape,
)

BLOCK_BYTES = 32
REPEAT_BYTES = 256
MAX_REPEAT = 255
WORKSPACE_ALIGN = 512  # bytes; every kernel-local tensor starts on a 512-byte boundary of the workspace

_SUPPORTED_ELEMENTS = (Float32Type, Float16Type, BFloat16Type, IntegerType)
CUBE_SPACES = (MemorySpace.MAT, MemorySpace.LEFT, MemorySpace.RIGHT, MemorySpace.ACC, MemorySpace.BIAS)
# Queues whose tile the consumer frees (FreeTensor) after its last use.
FREED_POSITIONS = (TPosition.VECIN, TPosition.A1, TPosition.B1, TPosition.C1, TPosition.A2, TPosition.B2, TPosition.C2)
_PREFIX = {
    TPosition.VECIN: "inQ", TPosition.VECOUT: "outQ", TPosition.VECCALC: "buf", TPosition.A1: "qA1",
    TPosition.B1: "qB1", TPosition.A2: "qA2", TPosition.B2: "qB2", TPosition.CO1: "qCO1",
    TPosition.C1: "qC1", TPosition.C2: "qC2",
}
# The bias table of dav-c220 (C2): 1 KB, so a bias row holds at most 256 f32.
BIAS_TABLE_BYTES = 1024


def _feeds_bias_table(value: SSAValue) -> bool:
    return any(isinstance(u.operation, tile.MoveOp) and u.operation.result.type.space == MemorySpace.BIAS  # type: ignore[union-attr]
               for u in value.uses)


def round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


@dataclass(frozen=True)
class Layout:
    """UB layout of a static 2-D (or 1-D, as one row) tile."""

    rows: int
    cols: int
    ld: int  # elements between row starts
    elem_bytes: int

    @property
    def count(self) -> int:
        """Elements vector ops process (padding included)."""
        return self.rows * self.ld if self.rows > 1 else self.cols

    @property
    def alloc_elems(self) -> int:
        return round_up(self.count, BLOCK_BYTES // self.elem_bytes)

    @property
    def bytes(self) -> int:
        return self.alloc_elems * self.elem_bytes


def byte_width(t: Attribute) -> int:
    return element_byte_width(t)


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
    ld = cols if rows == 1 or cols == 1 else round_up(cols, per_block)
    return Layout(rows, cols, ld, eb)


def cube_layout(t: TileType) -> Layout:
    """Cube tiles are whole fractal matrices: no row padding."""
    rows, cols = t.get_shape()
    return Layout(rows, cols, cols, byte_width(t.element_type))  # type: ignore[arg-type]


def layout_of(t: TileType, op: Operation) -> Layout:
    return cube_layout(t) if t.space in CUBE_SPACES else tile_layout(t, op)


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
    initial value, the `before` argument and the result must all have that tile type."""
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


@dataclass(frozen=True)
class WorkspaceSlot:
    """A kernel-local GM tensor (`pypto.tensor.create` in a kernel) at a fixed byte offset of
    the launch's workspace (per block)."""

    value: SSAValue
    offset: int
    bytes: int


@dataclass(frozen=True)
class WorkspaceLayout:
    """Byte offsets fixed by the caller for a kernel's kernel-local tensors: `offsets[k]` for
    its k-th `pypto.tensor.create` (walk order), `bytes` per block in all. The members of a
    MIX kernel share one block workspace, so they are placed together
    (`analysis.group_workspace`) rather than each from offset 0."""

    offsets: tuple[int, ...]
    bytes: int


def local_tensor_bytes(op: tensor.CreateOp) -> int:
    """The bytes of kernel-local tensor `op` (raises BackendError naming it when it cannot
    live in the workspace)."""
    t = op.result.type
    assert isinstance(t, TensorType)
    if not t.is_static():
        raise op_error(op, f"kernel-local tensor {t} has a dynamic shape; the workspace is planned statically")
    if t.rank > 2:
        raise op_error(op, f"kernel-local tensor {t} has rank {t.rank}; only 1-D and 2-D tensors are supported")
    nbytes = t.num_elements() * byte_width(t.element_type)
    if nbytes == 0:
        raise op_error(op, f"kernel-local tensor {t} is empty")
    return nbytes


def local_tensors(func: program.FuncOp) -> list[tensor.CreateOp]:
    return [op for op in func.walk() if isinstance(op, tensor.CreateOp)]


def workspace_plan(func: program.FuncOp, layout: WorkspaceLayout | None = None) -> tuple[list[WorkspaceSlot], int]:
    """Kernel-local tensors of `func` and the workspace bytes one block needs: every
    `pypto.tensor.create` (at any depth) gets its own 512-byte aligned slot; one inside a loop
    reuses its slot in every iteration. With `layout`, the slots are where it puts them."""
    creates = local_tensors(func)
    if layout is not None and len(layout.offsets) != len(creates):
        raise BackendError(f"ascendc: @{func.sym_name.data} has {len(creates)} kernel-local tensors but its "
                           f"workspace layout places {len(layout.offsets)}")
    slots: list[WorkspaceSlot] = []
    offset = 0
    for k, op in enumerate(creates):
        nbytes = local_tensor_bytes(op)
        at = offset if layout is None else layout.offsets[k]
        slots.append(WorkspaceSlot(op.result, at, nbytes))
        offset = max(offset, at + round_up(nbytes, WORKSPACE_ALIGN))
    return slots, offset if layout is None else max(offset, layout.bytes)


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
        if isinstance(op, tensor.CreateOp) or getattr(op, "name", "") == "pypto.dist.window_at":
            return value
        if isinstance(op, tile.StoreOp | tile.AtomicStoreOp | tile.MscatterOp | tensor.AssembleOp):
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
    returns, else None."""
    ret = func.body.block.last_op
    if not isinstance(ret, program.ReturnOp):
        return []
    slots = {s.value: s for s in workspace_plan(func)[0]}
    out: list[WorkspaceSlot | None] = []
    for v in ret.arguments:
        root = storage_root(func, v) if isinstance(v.type, TensorType) else None
        out.append(slots.get(root) if root is not None and root.type == v.type else None)  # type: ignore[arg-type]
    return out


def returned_params(func: program.FuncOp) -> list[int | None]:
    """For each result of kernel `func`, the index of the tensor parameter it writes through."""
    ret = func.body.block.last_op
    if not isinstance(ret, program.ReturnOp):
        return []
    out: list[int | None] = []
    for v in ret.arguments:
        root = storage_root(func, v) if isinstance(v.type, TensorType) else None
        if isinstance(root, BlockArgument) and root.owner.parent_op() is func:
            out.append(root.index)
        else:
            out.append(None)
    return out


# ---------------------------------------------------------------------------- kernel checks


_WINDOW_USES = "a window of a mat tile is only moved, all to left or all to right (%{} is used otherwise)"


def _window_target(window: tile.SliceOp) -> MemorySpace | None:
    """The L0 side (left or right) every use of a window of a mat tile moves it to; None when
    it has no use, another use, or uses on both sides."""
    spaces = {u.operation.result.type.space if isinstance(u.operation, tile.MoveOp) else None for u in window.result.uses}
    if len(spaces) != 1:
        return None
    (space,) = spaces
    return space if space in (MemorySpace.LEFT, MemorySpace.RIGHT) else None


def const_value(v: SSAValue) -> int | None:
    """The value of an `arith.constant` integer/index operand (None: a run-time value)."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def quantised_accumulator(value: SSAValue) -> bool:
    """Whether `value` is an f32 accumulator converted to f16 on its way out of L0C: a
    `tile.cast` of an f32 acc tile to an f16 acc tile (or a `tile.relu` of one), which the
    Fixpipe that stores it does (quantPre F322F16, reluEn)."""
    op = value.owner
    if isinstance(op, tile.ReluOp):
        return quantised_accumulator(op.input)
    if not isinstance(op, tile.CastOp):
        return False
    src, dst = op.input.type, op.result.type
    return (
        isinstance(src, TileType) and isinstance(dst, TileType) and src.space == MemorySpace.ACC
        and dst.space == MemorySpace.ACC and isinstance(src.element_type, Float32Type)
        and isinstance(dst.element_type, Float16Type) and op.rounding in (None, "none", "rint")
    )


def zero_accumulator_loop(op: tile.FullOp) -> scf.ForOp | None:
    """The scf.for whose K loop starts from the zero accumulator `op` (None: not that form):
    `op` fills an acc tile with the constant 0, its only use is the loop's first-iteration value
    of a carried tile, the loop runs at least once (constant bounds), and the carried block
    argument's only use is a `tile.matmul_acc` of the loop body, as its accumulator. The cube
    path computes it with `cmatrixInitVal = (k == lb)` on that Mmad: no instruction fills L0C."""
    value = op.value.owner
    if not (isinstance(value, arith.ConstantOp) and isinstance(value.value, FloatAttr) and value.value.value.data == 0.0):
        return None
    uses = list(op.result.uses)
    if len(uses) != 1 or not isinstance(loop := uses[0].operation, scf.ForOp) or uses[0].index < 3:
        return None
    lb, ub = const_value(loop.lb), const_value(loop.ub)
    if lb is None or ub is None or lb >= ub:
        return None
    arg = loop.body.block.args[uses[0].index - 2]
    arg_uses = list(arg.uses)
    if (len(arg_uses) != 1 or not isinstance(mm := arg_uses[0].operation, tile.MatmulAccOp) or mm.acc is not arg
            or mm.parent_block() is not loop.body.block):
        return None
    return loop


def check_element(func: program.FuncOp, t: Attribute, what: str) -> None:
    if not isinstance(t, _SUPPORTED_ELEMENTS) or (isinstance(t, IntegerType) and t.width.data == 1):
        raise BackendError(
            f"ascendc: cannot lower @{func.sym_name.data}: {what} has element type {t}; "
            "supported: f32, f16, bf16 and integers"
        )


def unsplit_mixed_kernel_reason(func: program.FuncOp) -> str:
    """Why an incore function holding cube and vector tiles reached the backend (a kernel runs
    on one core type): what stops expand-mixed-kernel from splitting it, or that it did not run."""
    from pypto_xdsl.analysis.core_affinity import classify

    problem = classify(func).problem
    if problem is not None:
        return f"it mixes cube and vector ops and expand-mixed-kernel cannot split it: {problem.detail}"
    return (
        "it mixes vector ('vec') and cube (mat/left/right/acc) tiles; run expand-mixed-kernel (the last "
        "stage of pypto-default) to split it into an aic and an aiv kernel"
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
        raise BackendError(f"ascendc: cannot lower @{name}: {unsplit_mixed_kernel_reason(func)}")
    if cube and func.func_kind.value == "aiv":
        raise BackendError(f"ascendc: cannot lower @{name}: an aiv kernel cannot use cube tiles")
    tensor_level = any(op.name.startswith("pypto.tensor.") for op in func.walk())
    if not cube and func.func_kind.value == "aic" and not tensor_level:  # else: the op is reported
        raise BackendError(f"ascendc: cannot lower @{name}: an aic kernel must use cube tiles (mat/left/right/acc)")
    return cube


ROW_REDUCTIONS = (tile.RowMaxOp, tile.RowSumOp, tile.RowMinOp)
ADVANCED_MATH = (tile.SinOp, tile.CosOp)
MATH_SCRATCH_BYTES = 16384
GM_STAGING_BYTES = 32768  # per UB staging buffer of a global-to-global assemble


def math_scratch_bytes(count: int) -> int:
    """The sharedTmpBuffer the kernel gives Sin/Cos over `count` elements (padding included):
    4 floats per element, the whole tile in one call, capped at MATH_SCRATCH_BYTES (the API
    then works in chunks). convert-tensor-to-tile sizes tiles with the same figure."""
    return min(16 * round_up(count, 32), MATH_SCRATCH_BYTES)


TRANSPOSE_BLOCK = 16  # Ascend C's Transpose: one 16 x 16 block of 2-byte elements


def transposed_mat_source(value: SSAValue) -> bool:
    """`value` is a `mat` tile read through `tile.transpose_view`: a [K, N] right operand whose
    L1 tile holds the [N, K] block, in its NZ fractals. Those are the L0B ("Zn") fractals of
    the [K, N] operand already, in the same order, so a LoadData 2D copies them as they are
    (not the LoadData 3D v2 every other operand takes, which transposes into L0B)."""
    owner = value.owner
    return isinstance(owner, tile.TransposeViewOp) or (
        isinstance(owner, tile.LoadOp) and any(isinstance(u.operation, tile.TransposeViewOp) for u in value.uses)
    )


def vector_transpose_form(rows: int, cols: int, elem_bytes: int) -> str | None:
    """How the vector unit transposes a [rows, cols] tile: "direct" (one 16 x 16 block of
    2-byte elements, contiguous), "blocks" (16 x 16 blocks gathered into a scratch, transposed
    and scattered: `TRANSPOSE_SCRATCH_BYTES`), or None (the scalar unit: 4-byte elements or
    extents that are not multiples of 16)."""
    if elem_bytes != 2 or rows % TRANSPOSE_BLOCK or cols % TRANSPOSE_BLOCK:
        return None
    return "direct" if rows == cols == TRANSPOSE_BLOCK else "blocks"


TRANSPOSE_SCRATCH_BYTES = 2 * TRANSPOSE_BLOCK * TRANSPOSE_BLOCK * 2  # a gathered block and its transpose


def product_scratch_bytes(rows: int) -> int:
    """row_prod's scratch: one 256-byte repeat of partial products per row, whatever the row
    length (the first fold multiplies every 256-byte column chunk into it)."""
    return rows * REPEAT_BYTES
COL_REDUCTIONS = (tile.ColSumOp, tile.ColMaxOp, tile.ColMinOp, tile.ColProdOp)
ROW_BROADCASTS = (
    tile.RowExpandOp, tile.RowExpandSubOp, tile.RowExpandMulOp, tile.RowExpandDivOp, tile.RowExpandAddOp,
    tile.RowExpandMaxOp, tile.RowExpandMinOp, tile.RowExpandExpdifOp,
)


def is_dense(layout: Layout) -> bool:
    """Row-major with no padding between rows: element (i, j) at i * cols + j."""
    return layout.rows == 1 or layout.ld == layout.cols


def _is_scratch_use(use) -> bool:
    """The use is the op's `tmp` operand (the scratch tile PyPTO passes some ops)."""
    tmp = getattr(use.operation, "tmp", None)
    return isinstance(tmp, SSAValue) and use.operation.operands[use.index] is tmp


COMPARE_SCRATCH_BYTES = 16384
"""The most UB one operand's padded copy takes in a tile.cmp / tile.cmps (rows in chunks)."""


@dataclass(frozen=True)
class CompareForm:
    """How tile.cmp / tile.cmps write their packed mask with Ascend C Compare(s), whose count
    form compares whole 256-byte repeats and writes one bit per element, contiguously: a mask
    row of `mask_row` bytes holds the bits of `width` = 8 * mask_row elements. `direct`: the
    source rows are exactly that wide (N a multiple of 256), one Compare over the tile.
    Otherwise each source row is copied into a scratch row of `width` elements whose tail is a
    pad value the comparison is false for (the mask's padding bits stay 0), `chunk` rows at a
    time, one Compare per chunk."""

    direct: bool
    width: int
    chunk: int


def compare_form(src: Layout, mask_row: int) -> CompareForm:
    width = 8 * mask_row
    if src.cols == width and (src.rows == 1 or src.ld == width):
        return CompareForm(True, width, src.rows)
    chunk = max(1, min(src.rows, COMPARE_SCRATCH_BYTES // (width * src.elem_bytes)))
    return CompareForm(False, width, chunk)


def _last_of(ops: list[Operation | None], block: Block) -> Operation | None:
    order = {o: k for k, o in enumerate(block.ops)}
    found = [o for o in ops if o is not None]
    return max(found, key=lambda o: order[o]) if found else None


# tensor ops the kernel lowering handles itself (GM views and kernel-local tensors)
BATCHED_MATMULS = (tensor.BatchMatmulOp, tensor.BatchMatmulAccOp, tile.BatchMatmulOp, tile.BatchMatmulAccOp)
BATCHED_MATMUL_REASON = ("batched matmuls are not lowered by the Ascend C backend (its tensors and tiles are 1-D and "
                         "2-D): write a loop of 2-D matmuls over the batch")
KERNEL_TENSOR_OPS = (tensor.SliceOp, tensor.DimOp, tensor.CreateOp)


def is_tile_level(func: program.FuncOp) -> bool:
    """No tensor-level compute left: the body is what the kernel lowering handles."""
    return not any(
        o.name.startswith("pypto.tensor.") and not isinstance(o, KERNEL_TENSOR_OPS) for o in func.walk()
    )


@dataclass
class SignatureNames:
    """C++ names of a kernel's parameters and GM tensors, in allocation order."""

    params: dict[SSAValue, str] = field(default_factory=dict)
    gm: dict[SSAValue, str] = field(default_factory=dict)  # tensor parameter / local tensor -> GlobalTensor
    slots: list[WorkspaceSlot] = field(default_factory=list)
    ws_bytes: int = 0
    ws_param: str | None = None
    ws_block: str | None = None
    dims: dict[str, str] = field(default_factory=dict)
    """Dimension symbol -> its kernel scalar parameter (`int64_t N`), in order of first use."""


def signature_names(func: program.FuncOp, namer: Namer, layout: WorkspaceLayout | None = None) -> SignatureNames:
    """Check the kernel's parameters and kernel-local tensors and name them with `namer`
    (the tensors placed by `layout` when given)."""
    names = SignatureNames()
    fname = func.sym_name.data
    for k, (arg, direction) in enumerate(zip(func.args, func.directions)):
        t = arg.type
        base = arg.name_hint or f"arg{k}"
        if isinstance(t, TensorType):
            if not t.is_static() and (reason := unsupported_dynamic_shape(t)) is not None:
                raise BackendError(
                    f"ascendc: cannot lower @{fname}: tensor parameter "
                    f"%{base} has the dynamic shape {format_shape(t.get_shape())}; {reason}"
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
    for symbol in dynamic_symbols(func):
        names.dims[symbol] = namer.fresh(symbol)
    names.slots, names.ws_bytes = workspace_plan(func, layout)
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


# ---------------------------------------------------------------------------- buffers


@dataclass
class PlannedBuffer:
    """One TQue/TBuf the kernel declares (before ascendc-plan-buffers shares or deepens it)."""

    name: str
    position: TPosition
    bytes: int
    what: str  # the IR value it holds, for comments and messages
    fixed: bool = False  # a carried tile's buffer: never shared


def staging_layout(rows: int, cols: int, elem_bytes: int) -> Layout:
    """The UB layout of a [rows, cols] block, as `tile_layout` lays out a tile of that shape."""
    per_block = BLOCK_BYTES // elem_bytes
    return Layout(rows, cols, cols if rows == 1 or cols == 1 else round_up(cols, per_block), elem_bytes)


@dataclass(frozen=True)
class GmStaging:
    """A `tensor.assemble` left inside a kernel (global memory to global memory) goes through
    UB: blocks of `rows` source rows are copied into `inbound` (VECIN), copied or transposed
    into `outbound` (VECOUT) and copied out into the destination window."""

    inbound: PlannedBuffer
    outbound: PlannedBuffer
    rows: int
    transposed: bool
    scratch: PlannedBuffer | None = None  # a vector transpose's blocks (`vector_transpose_form`)


def gm_assemble_source(op: tensor.AssembleOp) -> tuple[SSAValue, bool]:
    """The tensor whose elements a GM-to-GM assemble reads, and whether it reads them through
    a `tensor.transpose` view."""
    owner = op.source.owner
    if isinstance(owner, tensor.TransposeOp):
        return owner.input, True
    return op.source, False


@dataclass
class KernelPlan:
    """The lowering decisions for one tile-level kernel (see the module docstring)."""

    func: program.FuncOp
    cube: bool = False
    namer: Namer = field(default_factory=Namer)
    signature: SignatureNames = field(default_factory=SignatureNames)
    buffers: list[PlannedBuffer] = field(default_factory=list)
    tile_buffer: dict[SSAValue, PlannedBuffer] = field(default_factory=dict)
    aliases: dict[SSAValue, SSAValue] = field(default_factory=dict)  # acc results -> the accumulator they update
    direct_store: set[Operation] = field(default_factory=set)
    store_staging: dict[Operation, PlannedBuffer] = field(default_factory=dict)
    scratch: dict[Operation, PlannedBuffer] = field(default_factory=dict)
    unused_scratch: set[SSAValue] = field(default_factory=set)  # tile.create values only used as `tmp`
    tile_var: dict[SSAValue, str] = field(default_factory=dict)
    frees: dict[Operation, list[SSAValue]] = field(default_factory=dict)
    gm_staging: dict[Operation, GmStaging] = field(default_factory=dict)

    @staticmethod
    def build(func: program.FuncOp, layout: WorkspaceLayout | None = None) -> KernelPlan:
        plan = KernelPlan(func)
        plan.cube = uses_cube(func)
        planner_namer = kernel_namer(func.sym_name.data)
        signature_names(func, planner_namer, layout)
        plan._planner_namer = planner_namer  # type: ignore[attr-defined]
        plan._plan(func.body.block)
        # The names the kernel prints: parameters, then every buffer, then the tile variables.
        plan.namer = kernel_namer(func.sym_name.data)
        plan.signature = signature_names(func, plan.namer, layout)
        for b in plan.buffers:
            plan.namer.used.add(b.name)
        plan._bind_tiles(func.body.block)
        plan._plan_frees(func.body.block)
        return plan

    # ---- buffer kinds (the planner's order: nested regions first, then an op's results)

    def _new_buffer(self, base: str, position: TPosition, nbytes: int, what: str) -> PlannedBuffer:
        namer: Namer = self._planner_namer  # type: ignore[attr-defined]
        b = PlannedBuffer(namer.fresh(f"{_PREFIX[position]}_{base}"), position, nbytes, what)
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
            if isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
                self._plan_store(op)
            if isinstance(op, ROW_REDUCTIONS):
                self._plan_reduction_scratch(op)
            if isinstance(op, ROW_BROADCASTS):
                self._plan_broadcast_scratch(op)
            if isinstance(op, COL_REDUCTIONS):
                self._plan_column_scratch(op)
            if isinstance(op, ADVANCED_MATH):
                self._plan_math_scratch(op)
            if isinstance(op, tile.RowProdOp):
                self._plan_product_scratch(op)
            if isinstance(op, tile.AtomicStoreOp):
                self._plan_store(op)  # type: ignore[arg-type]  # always through a staging queue
            if isinstance(op, tensor.AssembleOp):
                self._plan_gm_assemble(op)
            if isinstance(op, tile.TransposeOp | tile.TransposeViewOp) and op.results[0].type.space == MemorySpace.VEC:  # type: ignore[union-attr]
                self._plan_transpose_scratch(op)
            if isinstance(op, tile.CmpOp | tile.CmpsOp):
                self._plan_compare_scratch(op)
            if isinstance(op, tile.SelsOp):
                self._plan_select_scratch(op)

    def _plan_tile(self, op: Operation, res: SSAValue) -> None:
        t = res.type
        assert isinstance(t, TileType)
        if t.space in CUBE_SPACES:
            return self._plan_cube_tile(op, res, t)
        if t.space != MemorySpace.VEC:
            raise op_error(op, f"tile {t} is in memory space '{t.space.value}', which the backend does not support")
        check_element(self.func, t.element_type, f"tile %{res.name_hint or '?'}")
        layout = tile_layout(t, op)
        if isinstance(op, tile.CreateOp) and res.uses and all(_is_scratch_use(u) for u in res.uses):
            # Only ever a reduction's `tmp`: the lowering plans its own scratch, this tile needs no memory.
            self.unused_scratch.add(res)
            return
        if isinstance(op, tile.ReshapeOp):
            src = op.input.type
            assert isinstance(src, TileType)
            if not (is_dense(tile_layout(src, op)) and is_dense(layout)):
                raise op_error(
                    op, f"reshaping {src} to {t} moves elements between padded UB rows (rows are padded to "
                    "32 bytes); only reshapes between unpadded layouts (one row, one column, or rows of a multiple "
                    "of 32 bytes on both sides) are views"
                )
            self.aliases[res] = op.input  # a view: the same buffer, read with another shape
            return
        if isinstance(op, tile.AssembleOp | tile.WriteOp):
            self.aliases[res] = op.dest  # written in place: the destination's buffer
            return
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.LoadOp):
            buf = self._new_buffer(base, TPosition.VECIN, layout.bytes, what)
        elif isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp):
            # A tile carried through a loop or yielded by a branch: one fixed buffer that the
            # initial value and every yielded value are copied into.
            buf = self._new_buffer(base, TPosition.VECCALC, layout.bytes, what)
            buf.fixed = True
        else:
            kind = TPosition.VECOUT if self._stores_directly(op, res) else TPosition.VECCALC
            buf = self._new_buffer(base, kind, layout.bytes, what)
        self._planner_namer.fresh(base)  # type: ignore[attr-defined]  # the tile's variable: keeps later names identical
        self.tile_buffer[res] = buf

    def _plan_cube_tile(self, op: Operation, res: SSAValue, t: TileType) -> None:
        if t.space == MemorySpace.BIAS or (t.space == MemorySpace.MAT and _feeds_bias_table(res)):
            return self._plan_bias_row(op, res, t)
        shape = t.get_shape()
        if len(shape) != 2 or not all(isinstance(d, int) and d > 0 and d % 16 == 0 for d in shape):
            raise op_error(op, f"cube tile {t} must be 2-D with static dims that are multiples of 16")
        rows, cols = shape  # type: ignore[misc]
        eb = byte_width(t.element_type)
        space = t.space
        if space == MemorySpace.ACC and isinstance(op, tile.CastOp | tile.ReluOp) and quantised_accumulator(res):
            # the accumulator converted by the Fixpipe that stores it (quantPre F322F16, then
            # reluEn): the same f32 L0C tensor
            uses = [u.operation for u in res.uses]
            if len(list(op.input.uses)) != 1 or len(uses) != 1 or type(uses[0]) not in (tile.StoreOp, tile.ReluOp):
                raise op_error(op, f"the conversion of an accumulator to {t} is done by its Fixpipe (quantPre): it "
                                   "must be the accumulator's only use, and a plain tile.store (after a relu) its only use")
            self.aliases[res] = op.input
            return
        if space == MemorySpace.ACC:
            if not isinstance(t.element_type, Float32Type):
                raise op_error(op, f"accumulator tile {t} must be f32 (integer matmul is not supported yet)")
        elif not isinstance(t.element_type, Float16Type | BFloat16Type | Float32Type):
            raise op_error(op, f"cube operand tile {t} must be f16, bf16 or f32 (int8 matmul is not supported yet)")
        base = res.name_hint or "t"
        what = f"%{res.name_hint or '?'} {t}"
        if isinstance(op, tile.MatmulAccOp | scf.ForOp | scf.IfOp | scf.WhileOp):
            if isinstance(op, scf.IfOp | scf.WhileOp) or space != MemorySpace.ACC:
                raise op_error(op, f"cube tile {t} cannot be yielded from a region (only an accumulator carried by scf.for)")
            self.aliases[res] = op.acc if isinstance(op, tile.MatmulAccOp) else op.iter_args[res.index]  # type: ignore[union-attr]
            return
        if isinstance(op, tile.ReluOp) and space == MemorySpace.ACC:
            uses = [u.operation for u in res.uses]
            if len(uses) != 1 or type(uses[0]) is not tile.StoreOp or len(list(op.input.uses)) != 1:
                raise op_error(op, f"relu of an accumulator {t} is folded into its Fixpipe (reluEn): it must be the "
                                   "accumulator's only use, and a plain tile.store its only use")
            self.aliases[res] = op.input  # the same L0C tensor, rectified by the Fixpipe that stores it
            return
        if isinstance(op, tile.SliceOp) and space == MemorySpace.MAT:
            # a window of a resident panel: LoadData reads it in place (NZ column blocks of the
            # panel are rows x C0 apart, so a window of whole rows is a plain offset)
            src = op.source.type
            assert isinstance(src, TileType)
            c0 = 32 // eb
            row_off, col_off = (const_value(v) for v in op.offsets)
            if rows != src.get_shape()[0] or row_off != 0 or (col_off is not None and col_off % c0):
                raise op_error(op, f"a window {t} of the mat tile {src} must take all its rows, at a column "
                                   f"offset that is a multiple of {c0}")
            # (a window of a right operand's L1 tile: pair-cube-blocks' two B tiles of one copy)
            if _window_target(op) is None:
                raise op_error(op, _WINDOW_USES.format(res.name_hint or "?"))
            self.aliases[res] = op.source
            return
        if isinstance(op, tile.TransposeViewOp) and space == MemorySpace.MAT:
            # the L1 tile read transposed: the same NZ fractals, moved to L0B without the
            # LoadData transpose a right operand otherwise takes (see transposed_mat_source)
            src = op.input
            if not isinstance(src.owner, tile.LoadOp) or len(list(src.uses)) != 1:
                raise op_error(op, f"a transposed view of a mat tile views a tile.load whose only use it is "
                                   f"(%{src.name_hint or '?'} is not)")
            if not res.uses or any(not isinstance(u.operation, tile.MoveOp)
                                   or u.operation.result.type.space != MemorySpace.RIGHT for u in res.uses):
                raise op_error(op, f"a transposed mat tile is only moved to right (%{res.name_hint or '?'} is used otherwise)")
            self.aliases[res] = src
            return
        if isinstance(op, tile.LoadOp) and space == MemorySpace.MAT:
            moves = [u.operation for u in res.uses if isinstance(u.operation, tile.MoveOp)]
            windows = [u.operation for u in res.uses if isinstance(u.operation, tile.SliceOp)]
            views = [u.operation for u in res.uses if isinstance(u.operation, tile.TransposeViewOp)]
            window_targets = {w: _window_target(w) for w in windows}
            for w, target in window_targets.items():
                if target is None:
                    raise op_error(w, _WINDOW_USES.format(w.result.name_hint or "?"))
            targets = ({m.result.type.space for m in moves} | set(window_targets.values())
                       | ({MemorySpace.RIGHT} if views else set()))
            if len(targets) != 1 or len(list(res.uses)) != len(moves) + len(windows) + len(views):
                raise op_error(op, f"mat tile %{res.name_hint or '?'} must only be moved to one of left or right")
            kind = TPosition.A1 if targets == {MemorySpace.LEFT} else TPosition.B1
            if targets - {MemorySpace.LEFT, MemorySpace.RIGHT}:
                raise op_error(op, f"mat tile %{res.name_hint or '?'} must be moved to left or right")
        elif isinstance(op, tile.MoveOp) and space in (MemorySpace.LEFT, MemorySpace.RIGHT):
            if op.input.type.space != MemorySpace.MAT:  # type: ignore[union-attr]
                raise op_error(op, "left/right tiles are moved from mat tiles")
            kind = TPosition.A2 if space == MemorySpace.LEFT else TPosition.B2
        elif isinstance(op, tile.MatmulOp | tile.MatmulBiasOp) and space == MemorySpace.ACC:
            kind = TPosition.CO1
        elif isinstance(op, tile.FullOp) and space == MemorySpace.ACC:
            if zero_accumulator_loop(op) is None:
                raise op_error(op, f"an accumulator {t} is filled only with 0, as the initial value of one scf.for "
                                   "(which runs at least once) whose tile.matmul_acc is its only use: the loop's first "
                                   "Mmad starts from zero (cmatrixInitVal) instead")
            kind = TPosition.CO1
        elif isinstance(op, BATCHED_MATMULS):
            raise op_error(op, BATCHED_MATMUL_REASON)
        else:
            raise op_error(op, f"producing a {space.value} tile with {op.name} is not supported by the cube path")
        buf = self._new_buffer(base, kind, rows * cols * eb, what)  # type: ignore[operator]
        self._planner_namer.fresh(base)  # type: ignore[attr-defined]
        self.tile_buffer[res] = buf

    def _plan_bias_row(self, op: Operation, res: SSAValue, t: TileType) -> None:
        """A [1, N] f32 bias row: copied GM -> L1 (`C1`), then L1 -> bias table (`C2`) for the
        5-argument Mmad of a tile.matmul_bias. The L1 row may be f16: the copy to the bias
        table converts it to f32."""
        name = f"%{res.name_hint or '?'}"
        shape = t.get_shape()
        half_row = t.space == MemorySpace.MAT and isinstance(t.element_type, Float16Type)
        block = 32 if half_row else 16  # elements of the source in one 64-byte block
        if (len(shape) != 2 or shape[0] != 1 or not isinstance(shape[1], int) or shape[1] <= 0
                or shape[1] % block or not (half_row or isinstance(t.element_type, Float32Type))):
            raise op_error(op, f"bias row {name} {t} must be [1, N] f32 (or f16 in L1) with a static N that is a multiple "
                               "of 16 (32 for f16; the L1 -> bias table copy moves 64-byte blocks of its source)")
        if shape[1] * 4 > BIAS_TABLE_BYTES:
            raise op_error(op, f"bias row {name} {t} needs {shape[1] * 4} bytes of the bias table, which holds "
                               f"{BIAS_TABLE_BYTES} (at most {BIAS_TABLE_BYTES // 4} f32); split N")
        nbytes = shape[1] * byte_width(t.element_type)
        uses = [u.operation for u in res.uses]
        if t.space == MemorySpace.MAT:
            if not isinstance(op, tile.LoadOp) or any(not isinstance(u, tile.MoveOp) for u in uses):
                raise op_error(op, f"the L1 bias row {name} is a tile.load whose uses are moves to the bias table")
            kind = TPosition.C1
        else:
            if not isinstance(op, tile.MoveOp) or op.input.type.space != MemorySpace.MAT:  # type: ignore[union-attr]
                raise op_error(op, f"bias-table tile {name} is moved from a mat tile (the bias row in L1)")
            if any(not isinstance(u, tile.MatmulBiasOp) or u.bias is not res for u in uses):
                raise op_error(op, f"bias-table tile {name} is only the bias operand of tile.matmul_bias")
            kind = TPosition.C2
        buf = self._new_buffer(res.name_hint or "t", kind, nbytes, f"{name} {t}")
        self._planner_namer.fresh(res.name_hint or "t")  # type: ignore[attr-defined]
        self.tile_buffer[res] = buf

    def alias_closure(self, value: SSAValue) -> list[SSAValue]:
        """`value` and the views of its buffer (reshapes, transitively)."""
        out, todo = [], [value]
        while todo:
            v = todo.pop()
            out.append(v)
            todo += [u.operation.results[0] for u in v.uses
                     if u.operation.results and self.aliases.get(u.operation.results[0]) is v]
        return out

    def buffer_of(self, value: SSAValue) -> PlannedBuffer | None:
        while True:
            if value in self.aliases:
                value = self.aliases[value]
            elif isinstance(value, BlockArgument) and value.index > 0 and isinstance(loop := value.owner.parent_op(), scf.ForOp):
                value = loop.iter_args[value.index - 1]  # a carried accumulator: its initial value's buffer
            else:
                break
        return self.tile_buffer.get(value)

    def _stores_directly(self, op: Operation, res: SSAValue) -> bool:
        stores = [u.operation for u in res.uses if isinstance(u.operation, tile.StoreOp) and u.index == 0]
        if len(stores) != 1 or any(isinstance(u.operation, tile.ReshapeOp | tile.AssembleOp) for u in res.uses):
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

    def _plan_store(self, op: tile.StoreOp | tile.AtomicStoreOp) -> None:
        t = op.tile.type
        assert isinstance(t, TileType)
        if t.space == MemorySpace.ACC:
            want = t.element_type if quantised_accumulator(op.tile) and isinstance(op, tile.StoreOp) else Float32Type()
            if op.dest.type.element_type != want:  # type: ignore[union-attr]
                raise op_error(op, f"an accumulator is stored to an f32 tensor, or converted to f16 by its Fixpipe "
                                   f"(tile.cast of the accumulator) and stored to an f16 tensor; got a {t} stored to "
                                   f"{op.dest.type}")
            if len(list(op.tile.uses)) != 1:
                raise op_error(op, "an accumulator tile is stored once, as its last use (the store frees L0C)")
            return
        if t.space != MemorySpace.VEC:
            raise op_error(op, f"storing a {t.space.value} tile is not supported (only vec and acc tiles are stored)")
        if op not in self.direct_store:
            layout = tile_layout(t, op)
            self.store_staging[op] = self._new_buffer(
                f"{op.tile.name_hint or 't'}_out", TPosition.VECOUT, layout.bytes,
                f"%{op.tile.name_hint or '?'}.out (store staging)",
            )

    def _plan_reduction_scratch(self, op: Operation) -> None:
        t = op.input.type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        lanes = REPEAT_BYTES // layout.elem_bytes
        if layout.cols > lanes:
            self.scratch[op] = self._new_buffer(
                f"{op.result.name_hint or 'red'}_tmp", TPosition.VECCALC, layout.rows * lanes * layout.elem_bytes,
                f"%{op.result.name_hint or '?'}.scratch (two-stage reduction)",
            )

    def _plan_column_scratch(self, op: Operation) -> None:
        t = op.operands[0].type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        if layout.rows > 1:
            self.scratch[op] = self._new_buffer(
                f"{op.results[0].name_hint or 'red'}_tmp", TPosition.VECCALC,
                round_up(layout.rows // 2 * layout.ld * layout.elem_bytes, BLOCK_BYTES),
                f"%{op.results[0].name_hint or '?'}.scratch (column reduction)",
            )

    def _plan_math_scratch(self, op: Operation) -> None:
        """Sin/Cos take their intermediates in caller-provided scratch: 4 floats per element
        for a whole tile in one pass, capped at MATH_SCRATCH_BYTES (the API then works in chunks)."""
        t = op.results[0].type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        nbytes = math_scratch_bytes(layout.count)
        self.scratch[op] = self._new_buffer(
            f"{op.results[0].name_hint or 'math'}_tmp", TPosition.VECCALC, nbytes,
            f"%{op.results[0].name_hint or '?'}.scratch ({op.name.split('.')[-1]} sharedTmpBuffer)",
        )

    def _plan_product_scratch(self, op: Operation) -> None:
        """row_prod folds each row into one 256-byte repeat of products (no WholeReduce for *)."""
        t = op.operands[0].type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        self.scratch[op] = self._new_buffer(
            f"{op.results[0].name_hint or 'prod'}_tmp", TPosition.VECCALC, product_scratch_bytes(layout.rows),
            f"%{op.results[0].name_hint or '?'}.scratch (row product)",
        )

    def _plan_transpose_scratch(self, op: Operation) -> None:
        t = op.operands[0].type
        assert isinstance(t, TileType)
        if t.rank != 2:
            return  # refused where lowered
        layout = tile_layout(t, op)
        if vector_transpose_form(layout.rows, layout.cols, layout.elem_bytes) == "blocks":
            self.scratch[op] = self._new_buffer(
                f"{op.results[0].name_hint or 'tr'}_tmp", TPosition.VECCALC, TRANSPOSE_SCRATCH_BYTES,
                f"%{op.results[0].name_hint or '?'}.scratch (16 x 16 blocks of a transpose)",
            )

    def _plan_compare_scratch(self, op: tile.CmpOp | tile.CmpsOp) -> None:
        """The padded copies of a cmp's operands (`compare_form`), one after the other."""
        t, m = op.lhs.type, op.result.type
        assert isinstance(t, TileType) and isinstance(m, TileType)
        if t.rank not in (1, 2) or not t.is_static():
            return  # refused where lowered
        layout, mask = tile_layout(t, op), tile_layout(m, op)
        form = compare_form(layout, mask.ld)
        if form.direct:
            return
        operands = 2 if isinstance(op, tile.CmpOp) else 1
        self.scratch[op] = self._new_buffer(
            f"{op.result.name_hint or 'cmp'}_pad", TPosition.VECCALC, operands * form.chunk * form.width * layout.elem_bytes,
            f"%{op.result.name_hint or '?'}.scratch (padded rows of a compare)",
        )

    def _plan_select_scratch(self, op: tile.SelsOp) -> None:
        """A sels of other than half or float elements selects between the source and a row of
        the scalar, as half or float bits (Select exists for half and float only)."""
        t = op.src.type
        assert isinstance(t, TileType)
        if str(t.element_type) in ("f16", "f32") or t.rank not in (1, 2) or not t.is_static():
            return
        layout = tile_layout(t, op)
        self.scratch[op] = self._new_buffer(
            f"{op.result.name_hint or 'sel'}_row", TPosition.VECCALC, round_up(layout.cols * layout.elem_bytes, BLOCK_BYTES),
            f"%{op.result.name_hint or '?'}.scratch (a row of the selected scalar)",
        )

    def _plan_gm_assemble(self, op: tensor.AssembleOp) -> None:
        """The UB staging of a GM-to-GM assemble: the whole source when both staging buffers fit
        GM_STAGING_BYTES, else blocks of rows (a transposed block: a multiple of 32 bytes of
        destination columns). Blocks read and write in turn, so a source sharing storage with
        the destination must fit in one block."""
        src, transposed = gm_assemble_source(op)
        t = src.type
        assert isinstance(t, TensorType)
        if not t.is_static() or not isinstance(op.dest.type, TensorType) or not op.dest.type.is_static():
            raise op_error(op, "a tensor.assemble left inside a kernel (global to global memory) needs static shapes")
        if t.rank > 2:
            raise op_error(op, f"a tensor.assemble of {t} inside a kernel: only 1-D and 2-D tensors are copied")
        shape = t.get_shape()
        rows, cols = (1, shape[0]) if t.rank == 1 else shape
        assert isinstance(rows, int) and isinstance(cols, int)
        if rows == 0 or cols == 0:
            raise op_error(op, f"a tensor.assemble of the empty tensor {t}")
        check_element(self.func, t.element_type, f"the assembled tensor {t}")
        eb = byte_width(t.element_type)

        def fits(h: int) -> bool:
            out = staging_layout(cols, h, eb) if transposed else staging_layout(h, cols, eb)
            return max(staging_layout(h, cols, eb).bytes, out.bytes) <= GM_STAGING_BYTES

        step = BLOCK_BYTES // eb if transposed else 1
        block = rows if fits(rows) else max((h for h in range(step, rows, step) if fits(h)), default=0)
        name = f"%{op.result.name_hint or '?'}"
        what = f"{name} (a global-to-global assemble of {t})"
        if block == 0:
            raise op_error(op, f"{what}: one block of {step} rows does not fit a {GM_STAGING_BYTES}-byte UB staging buffer")
        if block < rows:
            roots = storage_root(self.func, src), storage_root(self.func, op.dest)
            if roots[0] is None or roots[0] is roots[1]:
                raise op_error(op, f"{what}: its source may share storage with its destination and does not fit "
                                   f"one {GM_STAGING_BYTES}-byte UB staging buffer (it is copied in blocks of {block} rows)")
        out_rows, out_cols = (cols, block) if transposed else (block, cols)
        base = op.result.name_hint or "asm"
        inbound = self._new_buffer(f"{base}_in", TPosition.VECIN, staging_layout(block, cols, eb).bytes,
                                   f"{name}.in (UB staging of a global-to-global assemble of {t})")
        outbound = self._new_buffer(f"{base}_out", TPosition.VECOUT, staging_layout(out_rows, out_cols, eb).bytes,
                                    f"{name}.out (UB staging of a global-to-global assemble of {t})")
        scratch = None
        if transposed and any(vector_transpose_form(h, cols, eb) == "blocks" for h in {block, rows % block or block}):
            scratch = self._new_buffer(f"{base}_tr", TPosition.VECCALC, TRANSPOSE_SCRATCH_BYTES,
                                       f"{name}.scratch (16 x 16 blocks of a transpose)")
        self.gm_staging[op] = GmStaging(inbound, outbound, block, transposed, scratch)

    def _plan_broadcast_scratch(self, op: Operation) -> None:
        t = op.input.type
        assert isinstance(t, TileType)
        layout = tile_layout(t, op)
        if layout.cols == 1:
            return  # [R, 1] with [R, 1]: an elementwise op, nothing to broadcast
        self.scratch[op] = self._new_buffer(
            f"{op.result.name_hint or 'bc'}_brcb", TPosition.VECCALC, round_up(layout.rows, 8) * BLOCK_BYTES,
            f"%{op.result.name_hint or '?'}.scratch (row broadcast)",
        )

    # ---- tile variables and frees

    def _bind_tiles(self, block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._bind_tiles(inner)
            for res in op.results:
                t = res.type
                if not isinstance(t, TileType):
                    continue
                if t.space == MemorySpace.ACC and isinstance(op, tile.MatmulAccOp | scf.ForOp | tile.ReluOp | tile.CastOp):
                    continue  # aliases the accumulator it updates (or rectifies in its Fixpipe)
                if res in self.unused_scratch:
                    continue
                if res in self.aliases and t.space in (MemorySpace.VEC, MemorySpace.MAT):
                    continue  # a view: the variable of the tile it views
                self.tile_var[res] = self.namer.fresh(res.name_hint or "t")

    def _plan_frees(self, block: Block) -> None:
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self._plan_frees(inner)
        for op in block.ops:
            for res in op.results:
                buf = self.tile_buffer.get(res)
                if buf is not None and buf.position in FREED_POSITIONS and not isinstance(op, scf.ForOp | scf.IfOp):
                    last = _last_of([last_use_in_block(v, block) for v in self.alias_closure(res)], block) or op
                    self.frees.setdefault(last, []).append(res)
