"""The scalar-unit part of the kernel lowering (`convert-pypto-to-ascendc`): what Ascend C
does element by element with `GetValue`/`SetValue` — tile element access (`tile.read/write`),
element access of global memory (`tensor.read/write` left inside a kernel), transposes, and
tile windows whose column offset a vector instruction cannot start at (run-time, or off a
32-byte boundary).

The scalar unit (PIPE_S) runs ahead of the vector and MTE pipes: a group of accesses to UB
first waits for the vector pipe's and MTE2's writes (`SetFlag/WaitFlag<V_S>`, `<MTE2_S>`),
and after writing UB makes later vector instructions and copies out wait for it (`<S_V>`,
`<S_MTE3>`). Scalar accesses to GM go through the data cache: a read of a tensor the kernel
also writes waits for MTE3 (`<MTE3_S>`) and invalidates the line first, a write cleans it
(`DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>`) and
orders later copies after it (`<S_MTE2>`, `<S_MTE3>`).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.ascendc_kernel import TRANSPOSE_BLOCK, storage_root, vector_transpose_form
from pypto_xdsl.analysis.cxx_names import op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_scalar as X
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.ascendc_types import HardEvent


class ScalarLowering:
    """Mixin of KernelLowering (through VectorLowering): the scalar-unit ops."""

    # ---- element access (the scalar unit)

    def _event(self, event: HardEvent) -> None:
        """SetFlag/WaitFlag<event> on a borrowed id: the waiting pipe waits for the setting one.
        None in a kernel without local buffers (no TPipe): it copies nothing, so no pipe but
        the scalar unit's runs."""
        if getattr(self, "pipe", None) is None:
            return
        name = self.namer.fresh(f"event_{event.value.lower()}")
        fetch = self._insert(S.FetchEventIdOp(name, event, self.pipe))
        fetch.results[0].name_hint = name
        self._insert(S.SetFlagOp(event, fetch.results[0]))
        self._insert(S.WaitFlagOp(event, fetch.results[0]))

    def scalar_access_begins(self) -> None:
        """Before the scalar unit reads or writes UB: the vector pipe's and MTE2's writes are done."""
        self._event(HardEvent.V_S)
        self._event(HardEvent.MTE2_S)

    def scalar_access_ends(self) -> None:
        """After the scalar unit wrote UB: later vector instructions and copies out see it."""
        self._event(HardEvent.S_V)
        self._event(HardEvent.S_MTE3)

    @staticmethod
    def _neighbour_access(op: Operation, forward: bool) -> bool:
        """Whether the nearest non-arith op before/after `op` in its block is also an element access."""
        other = op.next_op if forward else op.prev_op
        while other is not None and other.dialect_name() == "arith":
            other = other.next_op if forward else other.prev_op
        return isinstance(other, tile.ReadOp | tile.WriteOp)

    def _element_index(self, op: Operation, offsets, ld: int) -> SSAValue:
        """The element offset `i * ld + j` of a tile element, as an index value."""
        row, col = (None, offsets[0]) if len(offsets) == 1 else offsets
        rc = None if row is None else self.consts.get(row)
        cc = self.consts.get(col)
        if (row is None or rc is not None) and cc is not None:
            return self.index_constant(int(rc or 0) * ld + int(cc))
        parts = self.scalar(col)
        if row is not None:
            scaled = self._insert(arith.MuliOp(self.scalar(row), self.index_constant(ld))).results[0]
            parts = self._insert(arith.AddiOp(scaled, parts)).results[0]
        return parts

    def index_constant(self, value: int) -> SSAValue:
        return self._insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]

    def _read(self, op: tile.ReadOp) -> None:
        """`T v = t.GetValue(i * ld + j);` (a group of accesses is synchronised once)."""
        t = self.tile_of(op.source)
        if not self._neighbour_access(op, forward=False):
            self.scalar_access_begins()
        index = self._element_index(op, op.offsets, t.layout.ld)
        name = self.namer.fresh(op.result.name_hint or "elem")
        get = self._insert(X.GetValueOp(name, t.value, index))
        get.results[0].name_hint = name
        self.values[op.result] = get.results[0]

    def _write(self, op: tile.WriteOp) -> None:
        """`t.SetValue(i * ld + j, v);` in place: the result names the destination's buffer."""
        t = self.tile_of(op.dest)
        if not self._neighbour_access(op, forward=False):
            self.scalar_access_begins()
        index = self._element_index(op, op.offsets, t.layout.ld)
        self._insert(X.SetValueOp(t.value, index, self.scalar_as(self.scalar(op.value), t.elem)))
        self.tiles[op.result] = t
        if not self._neighbour_access(op, forward=True):
            self.scalar_access_ends()

    def _scalar_loop(self, n: int, body) -> None:
        """`for (int64_t k = 0; k < n; ++k) body(k)` in the ascendc IR."""
        lb, ub, step = self.index_constant(0), self.index_constant(n), self.index_constant(1)
        loop = self._insert(scf.ForOp(lb, ub, step, [], Region(Block(arg_types=[IndexType()]))))
        iv = loop.body.block.args[0]
        outer = self.builder
        self.builder = Builder(InsertPoint.at_end(loop.body.block))
        try:
            body(iv)
            self._insert(scf.YieldOp())
        finally:
            self.builder = outer

    def _affine(self, iv: SSAValue, coeff: int, plus: SSAValue | None = None) -> SSAValue:
        v = iv if coeff == 1 else self._insert(arith.MuliOp(iv, self.index_constant(coeff))).results[0]
        return v if plus is None else self._insert(arith.AddiOp(v, plus)).results[0]

    def _transpose(self, op: Operation) -> None:
        """[R, C] -> [C, R] element by element on the scalar unit (GetValue/SetValue): Ascend
        C's Transpose is for 16 x 16 blocks of 2-byte elements and TransDataTo5HD for
        16-row groups, neither a general [R, C] transpose of float tiles."""
        a = self.tile_of(op.operands[0])
        if op.operands[0].type.rank != 2:  # type: ignore[attr-defined]
            raise op_error(op, "only 2-D tiles are transposed by the Ascend C backend")
        d = self.def_tile(op.results[0], op)
        scratch = self.plan.scratch.get(op)  # type: ignore[attr-defined]
        self.transpose_local(op, a.value, a.layout, d.value, d.layout, scratch)

    def transpose_local(self, op: Operation, src: SSAValue, src_layout, dst: SSAValue, dst_layout, scratch=None) -> None:
        """dst[j, i] = src[i, j] for the [rows, cols] of `src_layout`: with Ascend C's
        Transpose where the elements are 2-byte and the extents multiples of 16 (one block
        directly, else each 16 x 16 block gathered into `scratch`, transposed and scattered
        with level-0 Muls by 1), otherwise on the scalar unit."""
        rows, cols = src_layout.rows, src_layout.cols
        form = vector_transpose_form(rows, cols, src_layout.elem_bytes)
        if form == "direct" and src_layout.ld == cols and dst_layout.ld == rows:
            self.vec(op, C.TransposeOp(dst, src))  # type: ignore[attr-defined]
            return
        if form == "blocks" and scratch is not None:
            return self._transpose_blocks(op, src, src_layout, dst, dst_layout, scratch)
        self.scalar_access_begins()

        def row(i: SSAValue) -> None:
            src_row = self._affine(i, src_layout.ld)

            def col(j: SSAValue) -> None:
                v = self._insert(X.GetValueOp(self.namer.fresh("elem"), src, self._affine(j, 1, src_row))).results[0]
                self._insert(X.SetValueOp(dst, self._affine(j, dst_layout.ld, i), v))

            self._scalar_loop(cols, col)

        self._scalar_loop(rows, row)
        self.scalar_access_ends()

    def _transpose_blocks(self, op: Operation, src: SSAValue, src_layout, dst: SSAValue, dst_layout, scratch) -> None:
        n = TRANSPOSE_BLOCK
        elem = src.type.element_type  # type: ignore[attr-defined]
        eb = src_layout.elem_bytes
        name = self.namer.fresh("tr_tmp")
        get = self._insert(M.GetBufOp(name, self.decls[id(scratch)], elem))  # type: ignore[attr-defined]
        get.results[0].name_hint = name
        gathered = get.results[0]
        transposed = self.at_const(gathered, n * n)  # type: ignore[attr-defined]
        for bi in range(src_layout.rows // n):
            for bj in range(src_layout.cols // n):
                self._copy_rows(op, gathered, 0, n, src, bi * n * src_layout.ld + bj * n, src_layout.ld,  # type: ignore[attr-defined]
                                n, n, elem, eb)
                self.vec(op, C.TransposeOp(transposed, gathered))  # type: ignore[attr-defined]
                self._copy_rows(op, dst, bj * n * dst_layout.ld + bi * n, dst_layout.ld, transposed, 0, n,  # type: ignore[attr-defined]
                                n, n, elem, eb)

    def _scalar_window(self, op: Operation, src, dst, origin: SSAValue, into_window: bool) -> None:
        """Copy a window element by element (GetValue/SetValue): from `src` at element `origin`
        into `dst` (slice), or all of `src` into `dst` at `origin` (assemble)."""
        big, small = (dst, src) if into_window else (src, dst)
        rows, cols = small.layout.rows, small.layout.cols
        self.scalar_access_begins()

        def row(r: SSAValue) -> None:
            big_row = self._affine(r, big.layout.ld, origin)
            small_row = self._affine(r, small.layout.ld)

            def col(c: SSAValue) -> None:
                at_big = self._affine(c, 1, big_row)
                at_small = self._affine(c, 1, small_row)
                s_at, d_at = (at_small, at_big) if into_window else (at_big, at_small)
                v = self._insert(X.GetValueOp(self.namer.fresh("elem"), src.value, s_at)).results[0]
                self._insert(X.SetValueOp(dst.value, d_at, v))

            self._scalar_loop(cols, col)

        self._scalar_loop(rows, row)
        self.scalar_access_ends()


    # ---- element access of global memory

    def _gm_index(self, view, offsets) -> SSAValue:
        """The element offset, in its root GlobalTensor, of a tensor element at `offsets`."""
        _, origin = self._window(view, offsets)  # type: ignore[attr-defined]
        total: SSAValue | None = None
        for value, coeff in origin.terms:
            term = self.index_constant(coeff) if value is None else self._affine(value, coeff)
            total = term if total is None else self._insert(arith.AddiOp(total, term)).results[0]  # type: ignore[attr-defined]
        return total if total is not None else self.index_constant(0)

    def _storage(self, value: SSAValue) -> SSAValue | None:
        for _ in range(1000):
            root = storage_root(self.func, value)  # type: ignore[attr-defined]
            if root is not None:
                return root
            owner = value.owner
            if not isinstance(owner, tile.AtomicStoreOp | tensor.WriteOp | tensor.AssembleOp):
                return None
            value = owner.dest
        return None

    def _is_written(self, value: SSAValue) -> bool:
        """Whether the kernel writes the storage `value` names anywhere (unknown: yes)."""
        root = self._storage(value)
        if root is None or getattr(root.owner, "name", "") == "pypto.dist.window_at":
            return True  # unknown, or a communication window: other ranks write it at any time
        writers = (tile.StoreOp, tile.AtomicStoreOp, tensor.WriteOp, tensor.AssembleOp)
        return any(isinstance(w, writers) and self._storage(w.dest) in (root, None) for w in self.func.walk())  # type: ignore[attr-defined]

    def lower_gm_element(self, op: Operation) -> None:
        """`tensor.read` / `tensor.write` inside a kernel: GlobalTensor GetValue/SetValue."""
        if isinstance(op, tensor.ReadOp):
            view = self.tensor_root(op.source)  # type: ignore[attr-defined]
            gm = self.gm.get(view.root)  # type: ignore[attr-defined]
            if gm is None:
                raise op_error(op, "it reads a tensor with no GlobalTensor here")
            index = self._gm_index(view, op.offsets)
            if self._is_written(op.source):
                # the kernel writes this tensor too: its copies out first, then a fresh cache line
                self._event(HardEvent.MTE3_S)
                self._insert(X.DataCacheCleanAndInvalidOp(self._gm_at_index(gm, index)))
            name = self.namer.fresh(op.result.name_hint or "elem")  # type: ignore[attr-defined]
            get = self._insert(X.GetValueOp(name, gm, index))  # type: ignore[attr-defined]
            get.results[0].name_hint = name
            self.values[op.result] = get.results[0]  # type: ignore[attr-defined]
            return
        assert isinstance(op, tensor.WriteOp)
        view = self.tensor_root(op.dest)  # type: ignore[attr-defined]
        gm = self.gm.get(view.root)  # type: ignore[attr-defined]
        if gm is None:
            raise op_error(op, "it writes a tensor with no GlobalTensor here")
        self.views[op.result] = view  # type: ignore[attr-defined]
        elem = op.dest.type.element_type  # type: ignore[attr-defined]
        index = self._gm_index(view, op.offsets)
        self._event(HardEvent.MTE3_S)  # earlier copies out of the same lines land first
        self._insert(X.SetValueOp(gm, index, self.scalar_as(self.scalar(op.value), elem)))  # type: ignore[attr-defined]
        self._insert(X.DataCacheCleanAndInvalidOp(self._gm_at_index(gm, index)))
        self._event(HardEvent.S_MTE2)
        self._event(HardEvent.S_MTE3)

    def _gm_at_index(self, gm: SSAValue, index: SSAValue) -> SSAValue:
        return self.at(gm, [(index, 1)])  # type: ignore[attr-defined]
