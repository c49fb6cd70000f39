"""The cube path of convert-tensor-to-tile: a `tensor.matmul` of static f16, bf16 or f32 operands as
blocked `tile.matmul` / `tile.matmul_acc` code (M/N loops, a K loop); a `tensor.matmul_acc` as
that product plus an add of its accumulator (`split_matmul_acc`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, FloatAttr, IndexType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from pypto_xdsl.analysis.dim_bounds import parameter_dim
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    TileType,
    format_shape,
)
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.transforms.tensor_to_tile.grouping import (
    const_index,
    is_static,
    may_write,
    parameter_symbols,
    shape_of,
    sink_storage,
    storage_of,
)
from pypto_xdsl.transforms.tensor_to_tile.loops import (
    IndexConstants,
)

# --------------------------------------------------------------------------- cube matmul

L1_BYTES = 512 * 1024
L0A_BYTES = 64 * 1024
L0B_BYTES = 64 * 1024
L0C_BYTES = 128 * 1024
"""On-chip cube buffers of one AI core (A2/A3): L1 (`mat`), L0A (`left`), L0B (`right`),
L0C (`acc`)."""

MATMUL_KINDS = frozenset({FuncKind.INCORE, FuncKind.AIC})
CUBE_BLOCK_MAX = 128
CUBE_COPIES = 2  # the K loop's tiles, double-buffered (one K loop: no peeled first step with queues of its own)


def func_of(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def split_matmul_acc(op: tensor.MatmulAccOp, bound_of: Callable[[str], int | None] = lambda _: None) -> bool:
    """`acc + a @ b` as the cube path's product and an elementwise add of `acc`, which the
    vector path converts (the product's f32 add to `acc` is the one the interpreter does, so
    the numbers are the same): L0C cannot be loaded from GM, so the accumulator joins the
    product after its Fixpipe. Only where the product is planned; else `op` stays as it was."""
    rewriter = Rewriter()
    product = tensor.MatmulOp(op.lhs, op.rhs)
    total = tensor.AddOp(op.acc, product.result)
    if op.result.name_hint:
        product.result.name_hint = f"{op.result.name_hint}_product"
    rewriter.replace_op(op, [product, total])
    if plan_matmul(product, bound_of) is not None:
        return True
    back = tensor.MatmulAccOp(total.lhs, product.lhs, product.rhs)
    back.result.name_hint = total.result.name_hint
    rewriter.replace_op(total, back)
    rewriter.erase_op(product)
    return False


def matmul_reason(op: tensor.MatmulOp) -> str | None:
    """Why the cube path cannot compute `op` (None: it can)."""
    func = func_of(op)
    if func is None or func.func_kind not in MATMUL_KINDS:
        return "matmul runs on the cube unit: it is converted in incore/aic functions only"
    a, b = shape_of(op.lhs.type), shape_of(op.rhs.type)
    if a is None or b is None:
        return "its shapes are not static"
    if not is_static((a[1], *b)):
        return f"only M may be dynamic on the cube path (static K and N), got {format_shape(a)} @ {format_shape(b)}"
    if isinstance(a[0], str) and a[0] not in parameter_symbols(func):
        return f"the dynamic dimension {a[0]} is no dimension of a tensor parameter, so the kernel cannot read its extent"
    dtype = op.lhs.type.element_type  # type: ignore[attr-defined]
    if not isinstance(dtype, Float16Type | BFloat16Type | Float32Type):
        return f"the cube path multiplies f16, bf16 or f32 operands, not {dtype}"
    if any(isinstance(d, int) and d % 16 for d in (*a, *b)):
        return f"every dim must be a multiple of 16 for the cube path, got {a[0]}x{a[1]} @ {b[0]}x{b[1]}"
    return None


def cube_block(dim: int, cap: int) -> int:
    """The largest multiple of 16 that divides `dim` and is at most `cap` (>= 16)."""
    best = 16
    for d in range(16, min(dim, cap) + 1, 16):
        if dim % d == 0:
            best = d
    return best


QUANTISED_OUTPUTS = (Float16Type,)
"""Element types a Fixpipe converts an f32 accumulator to on its way out (quantPre F322F16)."""


def product_cast(op: tensor.MatmulOp) -> tensor.CastOp | None:
    """The `tensor.cast` that is the product's only use, in its block: the cube code stores
    straight into what the cast names, and the cast goes away. Either a same-type cast (what
    `pl.cast(pl.matmul(a, b), pl.FP32)` gives now that the product is already f32) or a cast
    of the f32 product to f16 with the default or `rint` rounding (`pl.matmul(a, b,
    out_dtype=pl.FP16)`), which the Fixpipe does: `QuantMode_t::F322F16` rounds to nearest,
    ties to even (CAST_RINT)."""
    uses = list(op.result.uses)
    if len(uses) != 1:
        return None
    cast = uses[0].operation
    if not isinstance(cast, tensor.CastOp) or cast.parent_block() is not op.parent_block():
        return None
    if cast.result.type == op.result.type:
        return cast
    if (
        isinstance(op.result.type.element_type, Float32Type)  # type: ignore[attr-defined]
        and isinstance(cast.result.type.element_type, QUANTISED_OUTPUTS)  # type: ignore[attr-defined]
        and cast.rounding in (None, "none", "rint")
    ):
        return cast
    return None


def folded_relu(value: SSAValue) -> tensor.ReluOp | None:
    """The `tensor.relu` that is `value`'s only use, in its block: the cube code rectifies the
    accumulator on its way out (`tile.relu` of the acc tile, Fixpipe's `reluEn`)."""
    uses = list(value.uses)
    if len(uses) != 1:
        return None
    relu = uses[0].operation
    if isinstance(relu, tensor.ReluOp) and relu.parent_block() is value.owner.parent_block():  # type: ignore[union-attr]
        return relu
    return None


@dataclass
class MatmulPlan:
    """One `tensor.matmul` (f16 or f32 -> f32), optionally through a cast (identity, or to f16
    in the Fixpipe), optionally assembled into `sink`."""

    matmul: tensor.MatmulOp
    cast: tensor.CastOp | None
    sink: tensor.AssembleOp | None
    blocks: tuple[int, int, int]  # M, N, K block sizes
    m_bound: int | None = None
    """For a dynamic M: its bound (None: unbounded)."""
    relu: tensor.ReluOp | None = None
    """A relu of the product folded into the accumulator's store."""
    a_panel: bool = False
    """Load each M block's whole A panel [Mb, K] into L1 once and take every N block's K
    steps from it (`tile.slice` of the mat tile), instead of reloading A per N block."""
    panel_loop: scf.ForOp | None = None
    """A single M block whose A rows do not change in this enclosing user loop: the panel is
    loaded once before the loop (its address arithmetic moved there with it) and serves
    every iteration's matmul."""

    spmd: bool = False
    """A run-time M split over the launch's cores: core b computes rows [b*M/B, (b+1)*M/B)."""

    ragged_n: bool = False
    """N blocks of 128 columns whose last one is ragged (N has no good block divisor): its
    share of the columns, max(0, min(Nb, N - n)), is loaded, computed and stored."""

    @property
    def quantised(self) -> Attribute | None:
        """The element type the Fixpipe converts the accumulator to (None: it stays f32)."""
        if self.cast is None or self.cast.result.type == self.matmul.result.type:
            return None
        return self.cast.result.type.element_type  # type: ignore[attr-defined]

    @property
    def dynamic_m(self) -> bool:
        return isinstance(shape_of(self.matmul.lhs.type)[0], str)  # type: ignore[index]

    @property
    def result(self) -> SSAValue:
        """The tensor value the cube code computes (the relu's or the cast's, when there is one)."""
        if self.relu is not None:
            return self.relu.result
        return self.cast.result if self.cast is not None else self.matmul.result

    @property
    def skipped(self) -> tuple[Operation, ...]:
        return tuple(o for o in (self.cast, self.relu, self.sink) if o is not None)


def plan_matmul(op: tensor.MatmulOp, bound_of: Callable[[str], int | None] = lambda _: None) -> MatmulPlan | None:
    if matmul_reason(op) is not None:
        return None
    cast = product_cast(op)
    (m, k), (_, n) = shape_of(op.lhs.type), shape_of(op.rhs.type)  # type: ignore[misc]
    if cast is not None and cast.result.type != op.result.type and isinstance(m, str):
        cast = None  # a run-time M's partial block stores through set_validshape: not folded (the cast stays)
    m_bound = None
    if isinstance(m, str):
        # a run-time M: blocks of at most 128 rows (fewer when the bound is smaller), the
        # last one partial
        m_bound = bound_of(m)
        mb = CUBE_BLOCK_MAX if m_bound is None else min(CUBE_BLOCK_MAX, -(-m_bound // 16) * 16)
    else:
        mb = cube_block(m, CUBE_BLOCK_MAX)
    nb = cube_block(n, CUBE_BLOCK_MAX)
    eb = 4 if isinstance(op.lhs.type.element_type, Float32Type) else 2  # type: ignore[attr-defined]
    if eb == 4:
        # f32 operands take twice the bytes: halve N first so a 16-deep K block still fits L0B
        while CUBE_COPIES * 16 * nb * eb > L0B_BYTES and nb > 16:
            nb = cube_block(n, nb // 2)
    ragged_n = False
    if isinstance(n, int) and n > CUBE_BLOCK_MAX and n % 16 == 0 and nb < CUBE_BLOCK_MAX // 2 and eb == 2:
        # no good divisor (352 = 11 x 32): whole 128-column blocks and a ragged last one
        # (its valid columns loaded, computed and stored, as for a B of run-time valid width)
        nb, ragged_n = CUBE_BLOCK_MAX, True
    kb = 16
    for d in range(16, k + 1, 16):
        if (
            k % d == 0
            and CUBE_COPIES * mb * d * eb <= L0A_BYTES
            and CUBE_COPIES * d * nb * eb <= L0B_BYTES
            and CUBE_COPIES * (mb * d + d * nb) * eb <= L1_BYTES
        ):
            kb = d
    assert mb * nb * 4 <= L0C_BYTES
    result = cast.result if cast is not None else op.result
    relu = folded_relu(result)
    if relu is not None:
        relu_sink = matmul_sink(op, relu.result)
        if relu_sink is not None and relu_sink.atomic is not None:
            relu = None  # the atomic path stores through tile.atomic_store, which has no relu
        else:
            result = relu.result
    sink = matmul_sink(op, result)
    if sink is not None and sink.atomic is not None and cast is not None and cast.result.type != op.result.type:
        # an atomic add of f16 partials is not folded: the cast stays tensor code
        cast, relu, result, sink = None, None, op.result, None
    if sink is not None and isinstance(m, str):
        dst_rows = shape_of(sink.dest.type)[0]  # type: ignore[index]
        if isinstance(dst_rows, int) and dst_rows < mb:
            # an M block's acc tile must fit the static destination it is stored into
            if dst_rows < 16:
                sink = None
            else:
                mb = dst_rows // 16 * 16
                m_bound = dst_rows if m_bound is None else min(m_bound, dst_rows)
    # the A panel stays in L1 (double-buffered by the M loop) next to B's K-step tiles when
    # there are several N blocks to share it (a static M: a partial M block loads per step)
    # (one M block: a single panel, nothing to double-buffer)
    panels = 1 if m == mb else 2
    a_panel = isinstance(m, int) and n > nb and panels * mb * k * eb + CUBE_COPIES * kb * nb * eb <= L1_BYTES
    panel_loop = None
    if isinstance(m, int) and m == mb and mb * k * eb + CUBE_COPIES * kb * nb * eb <= L1_BYTES:
        panel_loop = invariant_loop(op.lhs, op)
        a_panel = a_panel or panel_loop is not None
    return MatmulPlan(op, cast, sink, (mb, nb, kb), m_bound, relu, a_panel, panel_loop, ragged_n=ragged_n)


_PURE_INDEX_OPS = (
    arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.FloorDivSIOp, arith.DivUIOp,
    arith.DivSIOp, arith.RemSIOp, arith.RemUIOp, arith.MinSIOp, arith.MaxSIOp,
)


def _index_range(v: SSAValue, depth: int = 0) -> tuple[int, int | None] | None:
    """A range [lo, hi] (hi None: unbounded above) every value of the index `v` lies in, from
    constants, block ids and the arithmetic on them; None when nothing is known."""
    c = const_index(v)
    if c is not None:
        return c, c
    if depth > 16 or not isinstance(v, OpResult):
        return None
    op = v.op
    if isinstance(op, tile.GetBlockIdxOp):
        return 0, None
    if not isinstance(op, _PURE_INDEX_OPS) or len(op.operands) != 2:
        return None
    x, y = (_index_range(o, depth + 1) for o in op.operands)
    if x is None or y is None or x[0] < 0 or y[0] < 0:
        return None
    (xl, xh), (yl, yh) = x, y
    if isinstance(op, arith.AddiOp):
        return xl + yl, None if xh is None or yh is None else xh + yh
    if isinstance(op, arith.MuliOp):
        return xl * yl, None if xh is None or yh is None else xh * yh
    if isinstance(op, arith.FloorDivSIOp | arith.DivUIOp | arith.DivSIOp) and yl > 0:
        return (0 if yh is None else xl // yh), None if xh is None else xh // yl
    if isinstance(op, arith.RemSIOp | arith.RemUIOp) and yl > 0:
        return 0, (yh - 1) if yh is not None else xh
    if isinstance(op, arith.MinSIOp):
        return min(xl, yl), yh if xh is None else (xh if yh is None else min(xh, yh))
    return None


def _loop_invariant_ops(value: SSAValue, loop: scf.ForOp, found: list[Operation]) -> bool:
    """Whether `value` is computed, inside `loop`, only by pure index arithmetic and tensor
    views of values defined outside it (the ops to move before the loop go into `found`,
    operands first)."""
    if isinstance(value, BlockArgument):
        return not loop.is_ancestor(value.block.parent_op())  # type: ignore[arg-type]
    op = value.op  # type: ignore[attr-defined]
    if not loop.is_ancestor(op):
        return True
    if not isinstance(op, (*_PURE_INDEX_OPS, tensor.SliceOp)) or op.regions:
        return False
    if isinstance(op, tensor.SliceOp) and op.sizes:
        return False
    if not all(_loop_invariant_ops(o, loop, found) for o in op.operands):
        return False
    if op not in found:
        found.append(op)
    return True


def _writes_only_elsewhere(loop: scf.ForOp, storage) -> bool:
    """Whether every write inside `loop` goes to storage other than `storage`."""
    for op in loop.body.walk():
        if not may_write(op) or isinstance(op, scf.YieldOp | scf.ForOp | scf.IfOp):
            continue
        if isinstance(op, tensor.AssembleOp):
            if not storage.distinct_from(sink_storage(op)):
                return False
        elif isinstance(op, tile.StoreOp | tile.AtomicStoreOp):
            if not storage.distinct_from(storage_of(op.dest)):
                return False
        elif not isinstance(op, tensor.MatmulOp):
            return False
    return True


def invariant_loop(lhs: SSAValue, op: tensor.MatmulOp) -> scf.ForOp | None:
    """The outermost enclosing `scf.for` (inside the kernel) that neither changes which rows
    `lhs` names nor writes them, when the rows are in bounds whatever the loop's trip count
    (the hoisted load also runs when the loop runs no iteration)."""
    if not isinstance(lhs, OpResult) or not isinstance(lhs.op, tensor.SliceOp):
        return None
    view = lhs.op
    src = shape_of(view.source.type)
    rows = shape_of(lhs.type)
    if src is None or rows is None or not is_static((*src, *rows)):
        return None
    for o, extent, total in zip(view.offsets, rows, src):
        r = _index_range(o)
        if r is None or r[1] is None or r[1] + extent > total:  # type: ignore[operator]
            return None
    storage = storage_of(view.source)
    if storage.root is None:
        return None
    best = None
    parent = op.parent_op()
    while isinstance(parent, scf.ForOp):
        if not _loop_invariant_ops(lhs, parent, []) or not _writes_only_elsewhere(parent, storage):
            break
        best = parent
        parent = parent.parent_op()
    return best


def matmul_sink(op: tensor.MatmulOp, result: SSAValue) -> tensor.AssembleOp | None:
    """The assemble the accumulator can be stored into directly: the product's (or its
    identity cast's) only use, in the same block, with nothing that may write memory between
    the matmul and it, into storage that the operands are known not to share."""
    uses = list(result.uses)
    if len(uses) != 1:
        return None
    sink = uses[0].operation
    if not isinstance(sink, tensor.AssembleOp) or sink.source is not result or sink.parent_block() is not op.parent_block():
        return None
    dst_shape = shape_of(sink.dest.type)
    if dst_shape is None or len(dst_shape) != 2:
        return None
    block = op.parent_block()
    assert block is not None
    start, end = block.get_operation_index(op), block.get_operation_index(sink)
    for between in list(block.ops)[start + 1 : end]:
        if may_write(between):
            return None
    dst = sink_storage(sink)
    if not all(storage_of(v).distinct_from(dst) for v in (op.lhs, op.rhs)):
        return None
    return sink


class MatmulRewriter:
    """Emits the blocked cube code of one planned matmul:

        for m (M blocks), for n (N blocks) carrying the destination:
          load A[m, 0], B[0, n] into mat; move to left/right; acc = matmul
          scf.for k (the other K blocks) carrying acc: load, move, acc = matmul_acc
          store acc into the destination window
    """

    def __init__(self, plan: MatmulPlan, rewriter: PatternRewriter):
        self.plan = plan
        self.rewriter = rewriter
        anchor = plan.sink if plan.sink is not None else plan.matmul
        self.at = InsertPoint.before(anchor)
        self.consts = IndexConstants(anchor, rewriter)
        self.zero: SSAValue | None = None
        self.b_cols: SSAValue | None = None
        self.b_name: str | None = None
        """B's valid columns, when B is a view with a run-time valid width (`pl.slice(...,
        valid_shape=[K, w])`): its tiles are loaded `valid[Kb, share]` from the view's
        source and each acc tile is stored through `tile.set_validshape` to its share of the
        columns, the product's valid region (PyPTO: the right operand's valid N)."""

    def _index(self, value: int) -> SSAValue:
        return self.consts.get(value)

    def _zero_f32(self) -> SSAValue:
        """The accumulators' 0.0, once, before the M/N loops."""
        if self.zero is None:
            zero = arith.ConstantOp(FloatAttr(0.0, Float32Type()))
            self.rewriter.insert(zero, self.at)
            self.zero = zero.result
        return self.zero

    def rewrite(self) -> None:
        p = self.plan
        a, b = p.matmul.lhs, p.matmul.rhs
        (m, k), (_, n) = shape_of(a.type), shape_of(b.type)  # type: ignore[misc]
        mb, nb, kb = p.blocks
        result_name = p.result.name_hint
        if p.sink is not None:
            dest, offsets = p.sink.dest, list(p.sink.offsets)
        else:
            create = tensor.CreateOp(p.result.type)  # type: ignore[arg-type]
            create.result.name_hint = result_name
            self.rewriter.insert(create, self.at)
            dest, offsets = create.result, [self._index(0), self._index(0)]

        hoisted = self._hoisted_panel(a, (mb, k)) if p.panel_loop is not None else None
        view = b.owner
        viewed = False
        if (isinstance(view, tensor.SetValidShapeOp) and const_index(view.valid_rows) == k
                and const_index(view.valid_cols) != n):
            self.b_name = b.name_hint
            b, self.b_cols, viewed = view.input, view.valid_cols, True
        elif p.ragged_n:
            self.b_cols = self._index(n)
        # B in one tile is the same for every M block: one copy into L1 before the M loop
        b_tile = None
        m_loops = m > mb if isinstance(m, int) else p.m_bound is None or p.m_bound > mb
        if n == nb and k == kb and m_loops:
            b_valid = [self._index(kb), self.b_cols] if self.b_cols is not None else []
            b_tile = tile.LoadOp(b, [self._index(0), self._index(0)], TileType([kb, nb], b.type.element_type, MemorySpace.MAT), b_valid)  # type: ignore[attr-defined]
            b_tile.result.name_hint = f"{b.name_hint or 'rhs'}_mat"
            self.rewriter.insert(b_tile, self.at)
            b_tile = b_tile.result

        def tile_n(at: InsertPoint, carried: SSAValue, row: SSAValue, valid_rows: SSAValue | None = None) -> SSAValue:
            panel = hoisted
            if panel is None and p.a_panel and valid_rows is None:
                panel = self._panel(at, a, row, (mb, k))
            return self._loop(at, n, nb, carried, "n",
                              lambda at2, c2, col: self._block(at2, a, b, c2, offsets, row, col, k, (mb, nb, kb),
                                                               valid_rows, panel, b_tile))

        if isinstance(m, str):
            final = self._runtime_m(m, mb, dest, tile_n)
        else:
            final = self._loop(self.at, m, mb, dest, "m", tile_n)
        if p.sink is not None:
            self.rewriter.replace_all_uses_with(p.sink.result, final)
            self.rewriter.erase(p.sink)
        else:
            if viewed:
                # the product tensor keeps its valid region for the code that reads it
                rows = self._index(m) if isinstance(m, int) else tensor.DimOp(final, 0)
                if isinstance(rows, tensor.DimOp):
                    self.rewriter.insert(rows, self.at)
                    rows = rows.result
                marked = tensor.SetValidShapeOp(final, rows, self.b_cols)
                marked.result.name_hint = result_name
                self.rewriter.insert(marked, self.at)
                final = marked.result
            self.rewriter.replace_all_uses_with(p.result, final)
        if p.relu is not None:
            self.rewriter.erase(p.relu)
        if p.cast is not None:
            self.rewriter.erase(p.cast)
        self.rewriter.erase(p.matmul)

    def _loop(self, at: InsertPoint, extent: int, step: int, carried: SSAValue, name: str, body) -> SSAValue:
        """`body(at, carried, iv)` once per block; a scf.for when there are several."""
        if extent == step:
            return body(at, carried, self._index(0))
        block = Block(arg_types=[IndexType(), carried.type])
        block.args[0].name_hint = name
        block.args[1].name_hint = carried.name_hint
        inner = InsertPoint.at_end(block)
        out = body(inner, block.args[1], block.args[0])
        self.rewriter.insert(scf.YieldOp(out), inner)
        loop = scf.ForOp(self._index(0), self._index(extent), self._index(step), [carried], block)
        self.rewriter.insert(loop, at)
        loop.results[0].name_hint = carried.name_hint
        return loop.results[0]

    def _runtime_m(self, symbol: str, mb: int, dest: SSAValue, body) -> SSAValue:
        """The M blocks of a run-time M: a loop over the full blocks, then a partial block
        of the remaining rows (its A tiles loaded `valid[rows, Kb]`, its acc tile stored
        through `tile.set_validshape`), if any."""
        at = self.at
        found = parameter_dim(func_of(self.plan.matmul), symbol)  # type: ignore[arg-type]
        assert found is not None
        dim = tensor.DimOp(found[0], found[1])
        dim.result.name_hint = symbol
        self.rewriter.insert(dim, at)
        n = dim.result

        def arith_op(op: Operation, name: str) -> SSAValue:
            op.results[0].name_hint = name
            self.rewriter.insert(op, at)
            return op.results[0]

        zero = self._index(0)
        lo, count = zero, n
        if self.plan.spmd:
            # a balanced contiguous share per core (shares differ by at most one row)
            idx, num = tile.GetBlockIdxOp(), tile.GetBlockNumOp()
            idx.result.name_hint, num.result.name_hint = "block_idx", "block_num"
            self.rewriter.insert([idx, num], at)
            lo = arith_op(arith.DivUIOp(arith_op(arith.MuliOp(idx.result, n), "first_scaled"), num.result), "first_row")
            nxt = arith_op(arith.AddiOp(idx.result, self._index(1)), "next_block")
            hi = arith_op(arith.DivUIOp(arith_op(arith.MuliOp(nxt, n), "end_scaled"), num.result), "end_row")
            count = arith_op(arith.SubiOp(hi, lo), "core_rows")
        current, start, rest, name = dest, lo, count, "has_rows"
        if self.plan.m_bound is None or self.plan.m_bound > mb:
            blocks = arith_op(arith.DivUIOp(count, self._index(mb)), "full_blocks")
            full = arith_op(arith.MuliOp(blocks, self._index(mb)), "full_rows")
            end = full if lo is zero else arith_op(arith.AddiOp(lo, full), "full_end")
            block = Block(arg_types=[IndexType(), dest.type])
            block.args[0].name_hint, block.args[1].name_hint = "m", dest.name_hint
            inner = InsertPoint.at_end(block)
            out = body(inner, block.args[1], block.args[0])
            self.rewriter.insert(scf.YieldOp(out), inner)
            loop = scf.ForOp(lo, end, self._index(mb), [dest], block)
            self.rewriter.insert(loop, at)
            loop.results[0].name_hint = dest.name_hint
            current, start = loop.results[0], end
            rest, name = arith_op(arith.SubiOp(count, full), "tail_rows"), "has_tail"
        has_rest = arith_op(arith.CmpiOp(rest, zero, "sgt"), name)
        then_block, else_block = Block(), Block()
        inner = InsertPoint.at_end(then_block)
        out = body(inner, current, start, rest)
        self.rewriter.insert(scf.YieldOp(out), inner)
        else_block.add_op(scf.YieldOp(current))
        branch = scf.IfOp(has_rest, [dest.type], [then_block], [else_block])
        self.rewriter.insert(branch, at)
        branch.results[0].name_hint = dest.name_hint
        return branch.results[0]

    def _column_share(self, at: InsertPoint, col: SSAValue, nb: int) -> SSAValue | None:
        """The valid columns of the N block at `col` of a B with run-time valid width:
        max(0, min(nb, w - col)); None for a fully valid B."""
        w = self.b_cols
        if w is None:
            return None
        n = shape_of(self.plan.matmul.rhs.type)[1]  # type: ignore[index]
        if n == nb:
            return w  # one N block: the valid width itself (at most the view's width)
        if const_index(col) is not None and const_index(w) is not None:
            return self._index(max(0, min(nb, const_index(w) - const_index(col))))  # type: ignore[operator]
        left = arith.SubiOp(w, col)
        cut = arith.MinSIOp(left.result, self._index(nb))
        share = arith.MaxSIOp(cut.result, self._index(0))
        share.result.name_hint = "valid_cols"
        self.rewriter.insert([left, cut, share], at)
        return share.result

    def _offset(self, at: InsertPoint, base: SSAValue, delta: SSAValue, name: str) -> SSAValue:
        b, d = const_index(base), const_index(delta)
        if b == 0:
            return delta
        if d == 0:
            return base
        if b is not None and d is not None:
            return self._index(b + d)
        add = arith.AddiOp(base, delta)
        add.result.name_hint = name
        self.rewriter.insert(add, at)
        return add.result

    def _hoisted_panel(self, a: SSAValue, shape: tuple[int, int]) -> SSAValue:
        """The panel loaded before the plan's invariant loop: the view `a` and its index
        arithmetic move there first (they are pure and read nothing the loop writes)."""
        loop = self.plan.panel_loop
        assert loop is not None
        chain: list[Operation] = []
        _loop_invariant_ops(a, loop, chain)
        at = InsertPoint.before(loop)
        for op in chain:
            op.detach()
            self.rewriter.insert(op, at)
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        self.rewriter.insert(zero, at)
        return self._panel(at, a, zero.result, shape, zero.result)

    def _panel(self, at: InsertPoint, a: SSAValue, row: SSAValue, shape: tuple[int, int],
               col: SSAValue | None = None) -> SSAValue:
        """The M block's A rows [Mb, K] in L1, loaded once for all its N blocks."""
        load = tile.LoadOp(a, [row, col or self._index(0)], TileType(list(shape), a.type.element_type, MemorySpace.MAT))  # type: ignore[attr-defined]
        load.result.name_hint = f"{a.name_hint or 'lhs'}_panel"
        self.rewriter.insert(load, at)
        return load.result

    def _operands(self, at: InsertPoint, a: SSAValue, b: SSAValue, row: SSAValue, col: SSAValue,
                  kk: SSAValue, shape: tuple[int, int, int], suffix: str,
                  valid_rows: SSAValue | None = None, panel: SSAValue | None = None,
                  b_tile: SSAValue | None = None, cols: SSAValue | None = None) -> tuple[SSAValue, SSAValue]:
        mb, nb, kb = shape
        f16 = a.type.element_type  # type: ignore[attr-defined]
        valid = [valid_rows, self._index(kb)] if valid_rows is not None else []
        b_valid = [self._index(kb), cols] if cols is not None else []
        a_type = TileType([mb, kb], f16, MemorySpace.MAT)
        if panel is not None:
            a_mat = tile.SliceOp(panel, [self._index(0), kk], a_type)
        else:
            a_mat = tile.LoadOp(a, [row, kk], a_type, valid)
        b_mat = tile.LoadOp(b, [kk, col], TileType([kb, nb], f16, MemorySpace.MAT), b_valid) if b_tile is None else None
        left = tile.MoveOp(a_mat, MemorySpace.LEFT)
        right = tile.MoveOp(b_tile if b_mat is None else b_mat, MemorySpace.RIGHT)
        a_name, b_name = a.name_hint or "lhs", self.b_name or b.name_hint or "rhs"
        a_mat.result.name_hint = f"{a_name}_mat{suffix}"
        if b_mat is not None:
            b_mat.result.name_hint = f"{b_name}_mat{suffix}"
        left.result.name_hint, right.result.name_hint = f"{a_name}_left{suffix}", f"{b_name}_right{suffix}"
        # a B already in L1 moves into L0B first, while A's copy is still on its way
        self.rewriter.insert([a_mat, b_mat, left, right] if b_mat is not None else [a_mat, right, left], at)
        return left.result, right.result

    def _block(self, at: InsertPoint, a: SSAValue, b: SSAValue, dest: SSAValue, offsets: Sequence[SSAValue],
               row: SSAValue, col: SSAValue, k: int, shape: tuple[int, int, int],
               valid_rows: SSAValue | None = None, panel: SSAValue | None = None,
               b_tile: SSAValue | None = None) -> SSAValue:
        """One [mb, nb] output block: the K reduction into an acc tile, then its store (of
        its first `valid_rows` rows, for the partial block of a run-time M; of its share of
        B's valid columns, for a B of run-time valid width)."""
        mb, nb, kb = shape
        cols = self._column_share(at, col, nb)
        if k == kb:
            left, right = self._operands(at, a, b, row, col, self._index(0), shape, "", valid_rows, panel, b_tile, cols)
            acc = tile.MatmulOp(left, right)
            acc.result.name_hint = "acc"
            self.rewriter.insert(acc, at)
            result = acc.result
        else:
            # one K loop from a zero accumulator: the backend's first Mmad initialises L0C
            # (cmatrixInitVal = (k == 0)), so no K step is peeled with queues of its own
            start = tile.FullOp(self._zero_f32(), TileType([mb, nb], Float32Type(), MemorySpace.ACC))
            start.result.name_hint = "acc"
            self.rewriter.insert(start, at)
            block = Block(arg_types=[IndexType(), start.result.type])
            block.args[0].name_hint, block.args[1].name_hint = "k", "part"
            inner = InsertPoint.at_end(block)
            l2, r2 = self._operands(inner, a, b, row, col, block.args[0], shape, "", valid_rows, panel, cols=cols)
            nxt = tile.MatmulAccOp(block.args[1], l2, r2)
            nxt.result.name_hint = "part"
            self.rewriter.insert([nxt, scf.YieldOp(nxt.result)], inner)
            loop = scf.ForOp(self._index(0), self._index(k), self._index(kb), [start.result], block)
            self.rewriter.insert(loop, at)
            loop.results[0].name_hint = "acc"
            result = loop.results[0]
        where = [self._offset(at, offsets[0], row, "dst_row"), self._offset(at, offsets[1], col, "dst_col")]
        if valid_rows is not None or cols is not None:
            marked = tile.SetValidShapeOp(result, valid_rows or self._index(mb), cols or self._index(nb))
            marked.result.name_hint = "acc_valid"
            self.rewriter.insert(marked, at)
            result = marked.result
        if self.plan.quantised is not None:
            # the Fixpipe converts on its way out of L0C (quantPre): the acc tile stays f32
            narrowed = tile.CastOp(result, self.plan.quantised, self.plan.cast.mode.data if self.plan.cast.mode else None)  # type: ignore[union-attr]
            narrowed.result.name_hint = "acc_out"
            self.rewriter.insert(narrowed, at)
            result = narrowed.result
        if self.plan.relu is not None:
            rectified = tile.ReluOp(result)
            rectified.result.name_hint = "acc_relu"
            self.rewriter.insert(rectified, at)
            result = rectified.result
        atomic = self.plan.sink.atomic if self.plan.sink is not None else None
        # an atomic assemble adds each accumulator block into the destination (split-K partials)
        store = tile.StoreOp(result, dest, where) if atomic is None else tile.AtomicStoreOp(result, dest, where, atomic.data)
        store.result.name_hint = dest.name_hint
        self.rewriter.insert(store, at)
        return store.result
