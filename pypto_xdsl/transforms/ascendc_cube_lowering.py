"""The cube half of the kernel lowering (a mixin of `KernelLowering` in
ascendc_kernel_lowering.py): GM -> L1 in NZ fractals, L1 -> L0A/L0B, `Mmad` into L0C, and
`Fixpipe` from L0C to GM. The buffers and names come from the kernel plan, as for the vector ops."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.ascendc_kernel import quantised_accumulator, transposed_mat_source, zero_accumulator_loop
from pypto_xdsl.analysis.cxx_names import op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import program, tile
from pypto_xdsl.dialects.ascendc_types import ENUM_FIELDS, HardEvent, TPosition
from pypto_xdsl.dialects.attributes import MemorySpace, TensorType, TileType
from pypto_xdsl.transforms.ascendc_partial_tiles import const_of

if TYPE_CHECKING:
    from pypto_xdsl.transforms.ascendc_kernel_lowering import KernelLowering, TileRef, View

    _Base = KernelLowering
else:
    _Base = object


def chunked_panel_loop(load: tile.LoadOp) -> tuple[scf.ForOp, list[tile.SliceOp]] | None:
    """The loop (and the windows) for copying the resident L1 panel `load` fills in K chunks,
    each just before its first use, instead of in one copy ahead of everything else. The
    panel's uses are `tile.slice` windows of whole rows, `kb` columns wide; those in the first
    `scf.for` after the load (the N loop) are a K loop `0..ub step kb` directly in its body
    (window at `[0, k]`) and windows at constant columns directly in its body (pair-cube-blocks'
    peeled last step; not alone: a single K step's panel is one copy), which together take every chunk of the panel once; the other uses come
    after that loop. Its first iteration then runs every chunk, so chunk k is copied there, just
    before the B tile of the same step, and later uses find the panel complete. None when the
    panel is not of that form (it is copied whole)."""
    t = load.result.type
    if not isinstance(t, TileType) or t.space != MemorySpace.MAT or load.is_partial or len(load.offsets) != 2:
        return None
    rows, cols = t.get_shape()
    if not isinstance(rows, int) or not isinstance(cols, int) or const_of(load.offsets[1]) != 0:
        return None
    windows: list[tile.SliceOp] = []
    for use in load.result.uses:
        window = use.operation
        w = window.result.type if isinstance(window, tile.SliceOp) else None
        if (not isinstance(w, TileType) or w.space != MemorySpace.MAT or w.get_shape()[0] != rows
                or const_of(window.offsets[0]) != 0):  # type: ignore[union-attr]
            return None
        windows.append(window)  # type: ignore[arg-type]
    kb = windows[0].result.type.get_shape()[1] if windows else None  # type: ignore[attr-defined]
    if not isinstance(kb, int) or kb <= 0 or cols % kb or any(w.result.type.get_shape()[1] != kb for w in windows):  # type: ignore[attr-defined]
        return None
    block = load.parent_block()
    n_loop = next((op for op in block.ops if isinstance(op, scf.ForOp) and load.is_before_in_block(op)), None) if block else None
    if n_loop is None:
        return None
    inside: list[tile.SliceOp] = []
    for window in windows:
        ancestor = block.find_ancestor_op_in_block(window)
        if ancestor is n_loop:
            inside.append(window)
        elif ancestor is None or not n_loop.is_before_in_block(ancestor):
            return None
    chunks: list[int] = []
    looped = False
    for window in inside:
        parent = window.parent_op()
        if parent is n_loop and (col := const_of(window.offsets[1])) is not None:
            chunks.append(col)
            continue
        if not isinstance(parent, scf.ForOp) or parent.parent_op() is not n_loop or window.offsets[1] is not parent.body.block.args[0]:
            return None
        lb, ub, step = const_of(parent.lb), const_of(parent.ub), const_of(parent.step)
        if lb != 0 or step != kb or ub is None:
            return None
        chunks.extend(range(0, ub, kb))
        looped = True
    if not looped or sorted(chunks) != list(range(0, cols, kb)):
        return None
    return n_loop, inside


class CubeLowering(_Base):
    """Mixin of KernelLowering: the cube unit's data path and compute."""

    def _extent(self, extent: int | SSAValue) -> int | SSAValue:
        """A struct field's value for a valid extent: the constant, or the kernel scalar."""
        const = const_of(extent)
        return const if const is not None else self.scalar(extent)  # type: ignore[arg-type]

    def _fractal_extent(self, extent: int | SSAValue) -> int | SSAValue:
        """A valid extent rounded up to whole 16-element fractals (LoadData's `kExtension`
        into L0B and the Mmad's `n` take fractals; the columns past the valid ones compute
        product columns the Fixpipe does not store)."""
        value = self._extent(extent)
        if isinstance(value, int):
            return -(-value // 16) * 16
        c15, c16 = self.constant(15, value.type), self.constant(16, value.type)
        up = self._insert(arith.AddiOp(value, c15))
        blocks = self._insert(arith.DivUIOp(up.results[0], c16))
        whole = self._insert(arith.MuliOp(blocks.results[0], c16))
        whole.results[0].name_hint = "fractal_cols"
        return whole.results[0]

    def _params(self, base: str, struct: str, fields, element=None) -> SSAValue:
        """A parameter struct variable; a field whose value is an SSA value is set at run time;
        `element`: the template argument of a templated struct."""
        name = self.namer.fresh(base)
        p = self._insert(M.ParamsOp(name, struct, fields, element=element))
        p.results[0].name_hint = name
        return p.results[0]

    def _row_length(self, op: Operation, t: TensorType, field: str) -> int | SSAValue:
        """The elements between rows of the GM tensor `t`: its static last extent, or the
        kernel's scalar parameter of a dimension symbol (paged attention's
        `[Q_HEADS, HEAD_DIM_DYN]`), which the struct's `field` then takes at run time."""
        last = t.get_shape()[-1]
        if not isinstance(last, str):
            return int(last)  # type: ignore[arg-type]
        bound = program.dim_bounds(self.func).get(last)
        if field == "srcDValue" and bound is not None and bound > 0xFFFF:
            raise op_error(op, f"rows of {t} are up to {bound} elements long ({last}), beyond the 16-bit "
                               "Nd2NzParams.srcDValue")
        return self.dim_args[last]

    def _load_bias_row(self, op: tile.LoadOp) -> None:
        """GM -> L1 (`C1`) of a [1, N] bias row: a contiguous count copy on MTE2 (the plan
        checked that N f32 are whole 64-byte blocks, as the copy on to the bias table needs)."""
        d = self.def_tile(op.result, op)
        gm = self._gm_at(self.tensor_root(op.source), op.offsets)
        self._insert(M.DataCopyOp(d.value, gm, count=d.layout.cols))

    def _load_nz(self, op: tile.LoadOp) -> None:
        """GM (ND) -> L1 (NZ fractals of 16 rows x 32 bytes, column blocks `rows` x 32 bytes apart)
        with an Nd2Nz DataCopy: the feature map (one row of `rows` positions) that `_split`'s
        LoadData 3D v2 reads, for either operand."""
        if self.plan.buffer_of(op.result).position == TPosition.C1:  # type: ignore[union-attr]
            return self._load_bias_row(op)
        view = self.tensor_root(op.source)
        src = view.root.type
        assert isinstance(src, TensorType)
        d = self.def_tile(op.result, op)
        chunked = chunked_panel_loop(op)
        if chunked is not None and d.buffer.position == TPosition.A1:
            for window in chunked[1]:
                self.panel_chunks[window] = (op, view, chunked[0])  # copied by `_panel_chunk`
            return
        gm = self._gm_at(view, op.offsets)
        lay = d.layout
        src_cols = self._row_length(op, src, "srcDValue")
        fields = [("ndNum", 1), ("nValue", lay.rows), ("dValue", lay.cols), ("srcNdMatrixStride", 0),
                  ("srcDValue", src_cols), ("dstNzC0Stride", lay.rows), ("dstNzNStride", 1), ("dstNzMatrixStride", 0)]
        valid = self.partial.loads.get(op)
        if valid is not None:
            if d.buffer.position == TPosition.A1 and const_of(valid[1]) == lay.cols:
                # the partial M block of a run-time M: only its valid rows are copied (the
                # others compute product rows that its Fixpipe does not store)
                field, extent = "nValue", valid[0]
            elif d.buffer.position == TPosition.B1 and const_of(valid[0]) == lay.rows:
                # a right operand of valid width: only its valid columns are copied (the
                # Mmad computes only the product columns they give)
                field, extent = "dValue", valid[1]
            else:
                raise op_error(op, f"{op.result.type}: only the rows of a left operand's L1 tile or the columns of a "
                                   "right operand's may be partial on the cube path")
            value = const_of(extent) if const_of(extent) is not None else self.scalar(extent)
            fields = [(f, value if f == field else v) for f, v in fields]
        p = self._params(f"{d.var}_nd2nz", "Nd2NzParams", fields)
        self._insert(M.DataCopyOp(d.value, gm, struct=p))

    def _mat_window(self, op: tile.SliceOp) -> None:
        """A window of whole rows of a resident L1 panel (the plan checked it): no copy. Its
        NZ column blocks are the panel's, `rows x C0` elements apart, so column `j` starts
        `j * rows` elements into the panel; the LoadData that moves it adds that offset."""
        panel = self.tile_of(op.source)
        self.tiles[op.result] = panel
        if op in self.panel_chunks:
            self._panel_chunk(op)
        col = op.offsets[1]
        rows = panel.layout.rows
        const = self.consts.get(col)
        self.mat_offsets[op.result] = [(None, int(const) * rows)] if const is not None else [(self.scalar(col), rows)]
        if const == 0:
            self.mat_offsets[op.result] = []

    def _panel_chunk(self, op: tile.SliceOp) -> None:
        """In the first iteration of the panel's loop (`chunked_panel_loop`): the window's
        columns of A, GM -> L1 into the panel's NZ column blocks (`k * rows` elements in, the
        same `dstNzC0Stride` as the whole panel), and SetFlag/WaitFlag<MTE2_MTE1> so that
        the LoadData of this window waits for its own chunk only."""
        load, view, n_loop = self.panel_chunks[op]
        panel = self.tile_of(load.result)
        src = view.root.type
        assert isinstance(src, TensorType)
        rows = panel.layout.rows
        first = self._insert(arith.CmpiOp(self.scalar(n_loop.body.block.args[0]), self.scalar(n_loop.lb), "eq"))
        first.results[0].name_hint = f"{panel.var}_first"
        body = Block()

        def copy_chunk() -> None:
            k = op.offsets[1]
            dst = self.at(panel.value, [(self.scalar(k), rows)])
            gm = self._gm_at(view, [load.offsets[0], k])
            fields = [("ndNum", 1), ("nValue", rows), ("dValue", op.result.type.get_shape()[1]),  # type: ignore[attr-defined]
                      ("srcNdMatrixStride", 0), ("srcDValue", self._row_length(load, src, "srcDValue")),
                      ("dstNzC0Stride", rows), ("dstNzNStride", 1), ("dstNzMatrixStride", 0)]
            p = self._params(f"{panel.var}_chunk_nd2nz", "Nd2NzParams", fields)
            self._insert(M.DataCopyOp(dst, gm, struct=p))
            self._event(HardEvent.MTE2_MTE1)
            self._insert(scf.YieldOp())

        self._in_block(body, copy_chunk)
        self._insert(scf.IfOp(first.results[0], [], Region(body), Region()))

    def _split(self, op: tile.MoveOp) -> None:
        """L1 -> L0A or L0B. An operand whose L1 tile is its own NZ copy (either side, any
        element type the cube takes) is one LoadData with LoadData3DParamsV2, as the devkit's
        high-performance matmul sample loads a whole base slice ("可用一条指令描述完整的 base
        切片"): the tile is a feature map of one row of `rows` positions and `cols` channels,
        which the load writes as L0A row blocks or, transposing as it always does into L0B,
        as the L0B fractals of the [K, N] operand. A transposed source (Kᵀ from the L1 tile of
        K) is not one: its NZ fractals are the L0B fractals already, in order, which the 3D
        load (transposing) cannot copy; LoadData 2D moves them one row of fractals per call."""
        src = self.tile_of(op.input)
        d = self.def_tile(op.result, op)
        window = self.mat_offsets.get(op.input, [])
        if not transposed_mat_source(op.input):
            # an L0A/L0B tile (64 KiB) is at most 2048 rows or columns of 16 elements: within
            # l1W's 32767 and the 16-bit channelSize
            rows, cols = d.layout.rows, d.layout.cols
            right = op.result.type.space == MemorySpace.RIGHT  # type: ignore[union-attr]
            # a right operand of valid width loads its valid channels only, packed as the
            # L0B fractals of a [K, width] operand (the Mmad's `n`)
            width = self._fractal_extent(self.partial.columns.get(op, cols))
            fields = [("l1H", 1), ("l1W", rows), ("channelSize", cols), ("kExtension", width), ("mExtension", rows),
                      *([("enTranspose", True)] if right else [])]  # as the sample sets it (no effect into L0B)
            p = self._params(f"{d.var}_load", "LoadData3DParamsV2", fields, element=d.elem)
            self._insert(C.LoadData3DV2Op(d.value, self.at(src.value, window), p))
            return
        if op in self.partial.columns:
            raise op_error(op, f"{op.input.type}: a transposed right operand (Kᵀ) of valid width is not supported on "
                               "the cube path (its LoadData 2D moves whole rows of fractals)")
        # Kᵀ: one row of fractals per call, as LoadData's 8-bit repeat count allows
        rows, cols, eb = d.layout.rows, d.layout.cols, d.layout.elem_bytes
        frac, c0 = 512 // eb, 32 // eb
        outer, inner = rows // c0, cols // 16
        if inner > 255:
            raise op_error(op, f"{op.result.type} needs more than 255 LoadData repeats per fractal row")
        p = self._params(f"{d.var}_load", "LoadData2DParams", [("repeatTimes", inner), ("srcStride", 1), ("ifTranspose", False)])
        step = inner * frac
        lb, ub, one = (self.constant(v, i32) for v in (0, outer, 1))
        loop = self._insert(scf.ForOp(lb, ub, one, [], Region(Block(arg_types=[i32]))))
        iv = loop.body.block.args[0]
        iv.name_hint = "blk"
        outer_builder = self.builder
        self.builder = Builder(InsertPoint.at_end(loop.body.block))
        self._insert(C.LoadDataOp(self.at(d.value, [(iv, step)]), self.at(src.value, [(iv, step), *window]), p))
        self._insert(scf.YieldOp())
        self.builder = outer_builder

    def _zero_accumulator(self, op: tile.FullOp) -> None:
        """The zero accumulator a K loop starts from (the plan checked the form): its L0C
        tensor is allocated, not filled; the loop's Mmad sets `cmatrixInitVal = (k == lb)`."""
        loop = zero_accumulator_loop(op)
        assert loop is not None
        self.def_tile(op.result, op)
        (use,) = op.result.uses
        self.zero_started[loop.body.block.args[use.index - 2]] = loop

    def _mmad(self, op: tile.MatmulOp | tile.MatmulAccOp | tile.MatmulBiasOp) -> None:
        a, b = self.tile_of(op.lhs), self.tile_of(op.rhs)
        if op.lhs.type.space != MemorySpace.LEFT or op.rhs.type.space != MemorySpace.RIGHT:  # type: ignore[union-attr]
            raise op_error(op, "matmul takes a 'left' and a 'right' tile (move them from 'mat' first)")
        if isinstance(op, tile.MatmulAccOp):
            c = self.tile_of(op.acc)
            self.tiles[op.result] = c
        else:
            c = self.def_tile(op.result, op)
        m, k = a.layout.rows, a.layout.cols
        n = self._fractal_extent(self.partial.columns.get(op, b.layout.cols))
        loop = self.zero_started.get(op.acc) if isinstance(op, tile.MatmulAccOp) else None
        if loop is not None:
            # the first K step starts from zero: one loop, no peeled step with its own queues
            first = self._insert(arith.CmpiOp(self.scalar(loop.body.block.args[0]), self.scalar(loop.lb), "eq"))
            first.result.name_hint = "first_k"
            p = self._params(f"{c.var}_mmad", "MmadParams",
                             [("m", m), ("n", n), ("k", k), ("cmatrixInitVal", first.result)])
        else:
            # a bias-table Mmad starts from the bias row (cmatrixSource, set by the 5-argument
            # form from the bias tensor's position), not from zero
            fresh = isinstance(op, tile.MatmulOp)
            p = self._params(f"{c.var}_mmad", "MmadParams", [("m", m), ("n", n), ("k", k), ("cmatrixInitVal", fresh)])
        bias = self.tile_of(op.bias).value if isinstance(op, tile.MatmulBiasOp) else None
        self._insert(C.MmadOp(c.value, a.value, b.value, p, bias=bias))

    def _fixpipe_epilogue(self, op: tile.ReluOp | tile.CastOp) -> None:
        """relu or conversion to f16 of an accumulator: no instruction; the Fixpipe that
        stores it sets `reluEn` or `quantPre` (the plan checked that a plain store is its only
        use)."""
        self.tiles[op.result] = self.tile_of(op.input)

    def _fixpipe(self, op: tile.StoreOp | tile.AtomicStoreOp, view: View, ref: TileRef) -> None:
        """L0C (NZ) -> GM (ND) with Fixpipe; a stored relu of the accumulator is its `reluEn`,
        its conversion to f16 (`tile.cast`) `quantPre = F322F16` (CAST_RINT)."""
        dst = view.root.type
        assert isinstance(dst, TensorType)
        gm = self._gm_at(view, op.offsets)
        relu = isinstance(op.tile.owner, tile.ReluOp)
        quantised = quantised_accumulator(op.tile)
        fields = [
            ("nSize", ref.layout.cols), ("mSize", ref.layout.rows), ("srcStride", ref.layout.rows),
            ("dstStride", self._row_length(op, dst, "dstStride")),
            *([("quantPre", ENUM_FIELDS["quantPre"][1].index("F322F16"))] if quantised else []),
            *([("reluEn", True)] if relu else []), ("ndNum", 1),
        ]
        valid = self.partial.stores.get(op)
        if valid is not None:
            # a partial M block: its valid rows (a run-time count for a run-time M) leave L0C;
            # a product of a right operand of valid width: its valid columns
            sizes = {"mSize": self._extent(valid[0]), "nSize": self._extent(valid[1])}
            fields = [(f, sizes.get(f, v)) for f, v in fields]
        p = self._params(f"{ref.var}_fixpipe", "FixpipeParamsV220", fields)
        self._insert(C.FixpipeOp(gm, ref.value, p))
        self._insert(M.FreeTensorOp(ref.decl, ref.value))
