"""The statements of generated functions (`pypto_xdsl.fuzz.generator` builds the functions).

`FuncBuilder` emits ops into one function: whole-tensor compute in the program's element type,
writes of row windows (tile stores in incore code, `tensor.assemble` elsewhere), calls,
incore and SPMD scopes, `pypto.split_aiv`, and control flow — `scf.for` (start 0 or not, a
step dividing the rows or not), `scf.while`, `scf.if` with results, without results, without
an else — nested up to `GenConfig.max_depth`, plus scalar `arith` (index arithmetic for row
offsets, float and integer arithmetic for the scalar operands).

Writes obey the IR contract: a tensor that is written (an out parameter, a created buffer) is
only read through its latest SSA version, and values that are read freely are never written.
Writes inside `pypto.split_aiv` (which yields nothing) keep the storage's version: each lane
writes its own rows in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    SplitMode,
    TensorType,
    TileType,
    bind_shape,
    substitute_symbols,
)
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    CallOp,
    FuncOp,
    IncoreScopeOp,
    SplitAivOp,
    SubmitOp,
)
from pypto_xdsl.dialects.program import YieldOp as PyptoYieldOp

if TYPE_CHECKING:
    from pypto_xdsl.fuzz.generator import ProgramGenerator


@dataclass
class Helper:
    name: str
    func: FuncOp
    n_in: int
    has_out: bool
    n_pure_results: int
    kind: FuncKind
    dynamic: bool = False
    """Parameters of type [?, C]: results are sliced back to the caller's type."""


@dataclass
class Kernel:
    name: str
    func: FuncOp
    takes_weight: bool = False


@dataclass
class Scope:
    """What the generator may use at the current insertion point."""

    block: Block
    pool: list[SSAValue]
    """Values of the function's tensor type that are never written."""
    storages: dict[str, SSAValue]
    """Writable tensors: name -> latest version."""
    tids: list[SSAValue] = field(default_factory=list)
    in_incore: bool = False
    scalars: list[SSAValue] = field(default_factory=list)
    """Scalars of the element type computed so far (arith, reads)."""

    def child(self, block: Block, in_incore: bool | None = None) -> Scope:
        return Scope(
            block, list(self.pool), dict(self.storages), list(self.tids),
            self.in_incore if in_incore is None else in_incore, list(self.scalars),
        )


def is_float(t: Attribute) -> bool:
    return isinstance(t, Float32Type | Float16Type | BFloat16Type)


_TENSOR_BINARY = [tensor.AddOp, tensor.SubOp, tensor.MulOp, tensor.MaximumOp, tensor.MinimumOp, tensor.DivOp]
_TENSOR_UNARY = [tensor.ExpOp, tensor.NegOp, tensor.AbsOp, tensor.ReluOp, tensor.SqrtOp, tensor.LogOp, tensor.RecipOp]
_TENSOR_SCALAR = [tensor.AddsOp, tensor.SubsOp, tensor.MulsOp, tensor.DivsOp]
_TILE_BINARY = [tile.AddOp, tile.SubOp, tile.MulOp, tile.MaximumOp, tile.MinimumOp, tile.DivOp]
_TILE_UNARY = [tile.ExpOp, tile.NegOp, tile.AbsOp, tile.ReluOp, tile.SqrtOp, tile.LogOp, tile.RecipOp]
_TILE_SCALAR = [tile.AddsOp, tile.SubsOp, tile.MulsOp, tile.DivsOp]
_INTEGER_SAFE = {"AddOp", "SubOp", "MulOp", "MaximumOp", "MinimumOp", "NegOp", "AbsOp", "ReluOp",
                 "AddsOp", "SubsOp", "MulsOp"}
"""Ops defined on integers without division (integer division by zero is undefined)."""


_NAN_MAKERS = {"LogOp", "SqrtOp", "RecipOp", "DivOp"}
"""Ops that make NaN from inputs in [-1, 1) (or from the zeros of a created buffer): NaN
propagation through max/min is not specified the same way on the device and in numpy, so
programs compared with the simulation (the backend profile) leave them out."""


def ops_for(ops: Sequence[type[Operation]], element_type: Attribute, nan_free: bool = False) -> list[type[Operation]]:
    if not is_float(element_type):
        return [op for op in ops if op.__name__ in _INTEGER_SAFE]
    return [op for op in ops if not (nan_free and op.__name__ in _NAN_MAKERS)]


def weighted(rng, items: Sequence[tuple[object, float]]):
    """One item, with probability proportional to its weight (weight 0: never)."""
    live = [(item, w) for item, w in items if w > 0]
    r = rng.uniform(0, sum(w for _, w in live))
    for item, w in live:
        r -= w
        if r <= 0:
            return item
    return live[-1][0]


def changed(parent: Scope, inner: Scope) -> list[str]:
    """Writable tensors of `parent` that `inner` wrote (their latest version differs)."""
    return [name for name in sorted(parent.storages) if inner.storages[name] is not parent.storages[name]]


def accepts(callee: FuncOp, actual: TensorType) -> bool:
    """Whether `callee`'s tensor parameters take arguments of type `actual` exactly: a static
    extent only the same extent (not `?`, which the call would have to refine), a symbol or
    `?` anything."""
    for formal in callee.function_type.inputs.data:
        if not isinstance(formal, TensorType):
            continue
        if not bind_shape(formal.get_shape(), actual.get_shape(), {}, strict=False):
            return False
        if any(isinstance(f, int) and f != a for f, a in zip(formal.get_shape(), actual.get_shape())):
            return False
    return True


def call_result_types(callee: FuncOp, args: Sequence[SSAValue]) -> list[Attribute]:
    """The result types of a call: the callee's, with its shape symbols bound from `args`."""
    binding: dict[str, int | str | None] = {}
    for formal, arg in zip(callee.function_type.inputs.data, args):
        if isinstance(formal, TensorType | TileType) and isinstance(arg.type, TensorType | TileType):
            bind_shape(formal.get_shape(), arg.type.get_shape(), binding, strict=False)
    return [substitute_symbols(t, binding) for t in callee.function_type.outputs.data]


class FuncBuilder:
    """Emits ops into one function; constants go to the top of its entry block."""

    def __init__(self, gen: ProgramGenerator, func: FuncOp, ttype: TensorType):
        self.gen = gen
        self.rng = gen.rng
        self.func = func
        self.ttype = ttype
        self.dtype = ttype.element_type
        self.entry = func.body.block
        self._consts: dict[tuple[str, object], SSAValue] = {}
        self._const_anchor: Operation | None = None
        self.visible_helpers: Sequence[Helper] = ()
        self.o3: SSAValue | None = None
        """@main's rank-3 output, latest version (written at the top level only)."""

    # -- basics

    @property
    def cfg(self):
        return self.gen.config

    @property
    def is_main(self) -> bool:
        return self.func is self.gen.main

    def emit(self, scope: Scope, op: Operation) -> Operation:
        scope.block.add_op(op)
        return op

    def value(self, scope: Scope, op: Operation) -> SSAValue:
        return self.emit(scope, op).results[0]

    def const_index(self, value: int) -> SSAValue:
        return self._const(("index", value), lambda: arith.ConstantOp.from_int_and_width(value, IndexType()))

    def const_scalar(self, value: float, element_type: Attribute | None = None) -> SSAValue:
        """A constant of the element type (floats rounded to it by the attribute)."""
        t = element_type or self.dtype
        if is_float(t):
            return self._const((str(t), float(value)), lambda: arith.ConstantOp(FloatAttr(float(value), t)))
        assert isinstance(t, IntegerType)
        v = int(value)
        return self._const((str(t), v), lambda: arith.ConstantOp(IntegerAttr(v, t)))

    def const_f32(self, value: float) -> SSAValue:
        return self.const_scalar(value, f32)

    def _const(self, key: tuple[str, object], make) -> SSAValue:
        if key not in self._consts:
            op = make()
            if self._const_anchor is None:
                first = self.entry.first_op
                if first is None:
                    self.entry.add_op(op)
                else:
                    self.entry.insert_op_before(op, first)
            else:
                self.entry.insert_op_after(op, self._const_anchor)
            self._const_anchor = op
            self._consts[key] = op.results[0]
        return self._consts[key]

    def rows(self, scope: Scope, source: SSAValue) -> SSAValue:
        """The row extent of `source` as an index value (dim op when symbolic or unknown)."""
        d = self.ttype.get_shape()[0]
        if isinstance(d, int):
            return self.const_index(d)
        return self.value(scope, tensor.DimOp(source, 0))

    def pick(self, scope: Scope) -> SSAValue:
        return self.rng.choice(scope.pool)

    def readable(self, scope: Scope) -> SSAValue:
        """A pool value, or (sometimes) the latest version of a written tensor."""
        if scope.storages and self.rng.random() < 0.2:
            return scope.storages[self.rng.choice(sorted(scope.storages))]
        return self.pick(scope)

    def scalar(self, scope: Scope) -> SSAValue:
        """A scalar of the element type: a constant, a read element, or scalar arithmetic."""
        r = self.rng.random()
        if r < 0.2 and not self.cfg.backend:
            src = self.pick(scope)
            c0 = self.const_index(0)
            value = self.value(scope, tensor.ReadOp(src, [c0] * len(self.ttype.get_shape())))
            scope.scalars.append(value)
            return value
        if r < 0.35 and self.cfg.arith:
            return self.arith_scalar(scope)
        if r < 0.45 and scope.scalars:
            return self.rng.choice(scope.scalars)
        if is_float(self.dtype):
            return self.const_scalar(self.rng.choice([0.5, 1.5, 2.0, -1.0, 3.0]))
        return self.const_scalar(self.rng.choice([1, 2, 3, -1]))

    def arith_scalar(self, scope: Scope) -> SSAValue:
        """Scalar arithmetic of the element type (f32 and integers: f16/bf16 constants only,
        as the interpreter's xDSL arith does not round f16 sums)."""
        rng = self.rng
        if isinstance(self.dtype, Float32Type):
            a, b = self.const_f32(rng.choice([0.5, 1.5, -2.0])), self.const_f32(rng.choice([0.25, 3.0]))
            op = rng.choice([arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.MaximumfOp, arith.MinimumfOp, arith.DivfOp])
            value = self.value(scope, op(a, b))
            if rng.random() < 0.3 and self.gen.k is not None and self.is_main:
                as_float = self.value(scope, arith.SIToFPOp(self.value(scope, arith.IndexCastOp(self.gen.k, IntegerType(64))), f32))
                value = self.value(scope, arith.AddfOp(value, as_float))
            if rng.random() < 0.3:
                cond = self.value(scope, arith.CmpfOp(value, self.const_f32(0.0), rng.choice(["ogt", "olt", "oge"])))
                value = self.value(scope, arith.SelectOp(cond, value, b))
        elif isinstance(self.dtype, IntegerType) and self.dtype.width.data > 1:
            a, b = self.const_scalar(rng.choice([1, 2, 5])), self.const_scalar(rng.choice([3, -2]))
            op = rng.choice([arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp,
                             arith.AndIOp, arith.OrIOp, arith.XOrIOp])
            value = self.value(scope, op(a, b))
            if rng.random() < 0.3:
                cond = self.value(scope, arith.CmpiOp(value, self.const_scalar(0), rng.choice(["sgt", "slt", "ne"])))
                value = self.value(scope, arith.SelectOp(cond, value, a))
        else:
            return self.const_scalar(1.0)
        scope.scalars.append(value)
        return value

    def block_row(self, scope: Scope) -> SSAValue:
        """A row offset that is a multiple of the tile rows and leaves room for a window:
        a constant, or index arithmetic on the index parameter (remainder of a block count)."""
        blocks = self.gen.rows_value // self.gen.tile_rows
        k = self.gen.k if self.is_main else None
        if k is None or not self.cfg.arith or self.rng.random() < 0.5:
            return self.const_index(self.gen.tile_rows * self.rng.randrange(blocks))
        shifted = self.value(scope, arith.AddiOp(k, self.const_index(self.rng.randrange(blocks))))
        blk = self.value(scope, arith.RemUIOp(shifted, self.const_index(blocks)))
        if self.rng.random() < 0.3:  # the same through a floor division and a max
            blk = self.value(scope, arith.MaxSIOp(blk, self.const_index(0)))
        return self.value(scope, arith.MuliOp(blk, self.const_index(self.gen.tile_rows)))

    # -- whole-tensor compute

    def compute(self, scope: Scope) -> SSAValue:
        is_f = is_float(self.dtype)
        matmul = 1 if self.gen.weight is not None and self.is_main and not self.cfg.backend else 0
        kind = weighted(self.rng, [
            ("binary", 4), ("unary", 3), ("scalar", 3), ("rows", 2 if is_f else 0), ("matmul", matmul),
            ("cast", 1 if self.cfg.casts else 0),
        ])
        if kind == "rows":
            op = self.row_compute(scope)
        elif kind == "binary":
            op = self.rng.choice(ops_for(_TENSOR_BINARY, self.dtype, self.cfg.backend))(self.readable(scope), self.readable(scope))
        elif kind == "unary":
            op = self.rng.choice(ops_for(_TENSOR_UNARY, self.dtype, self.cfg.backend))(self.readable(scope))
        elif kind == "scalar":
            value = self.readable(scope)
            op = self.rng.choice(ops_for(_TENSOR_SCALAR, self.dtype, self.cfg.backend))(value, self.scalar(scope))
        elif kind == "cast":
            other = self.cast_partner()
            there = self.value(scope, tensor.CastOp(self.readable(scope), other))
            if self.rng.random() < 0.5:
                there = self.value(scope, tensor.AbsOp(there))
            op = tensor.CastOp(there, self.dtype)
        else:
            op = tensor.MatmulOp(self.readable(scope), self.gen.weight)
        result = self.value(scope, op)
        scope.pool.append(result)
        return result

    def cast_partner(self) -> Attribute:
        """The element type a cast round trip goes through."""
        if isinstance(self.dtype, Float32Type):
            return Float16Type() if self.cfg.backend else self.rng.choice([Float16Type(), BFloat16Type()])
        if is_float(self.dtype):
            return Float32Type()
        return self.rng.choice([Float32Type(), IntegerType(32) if self.dtype != IntegerType(32) else Float32Type()])

    def row_compute(self, scope: Scope) -> Operation:
        """Tensor-level row ops: a softmax-like chain (row max, expand-sub, exp, row sum,
        expand-div or -mul), or one reduction expanded over another tensor's rows."""
        x = self.readable(scope)
        if self.rng.random() < 0.6:
            m = self.value(scope, tensor.RowMaxOp(x))
            e = self.value(scope, tensor.ExpOp(self.value(scope, tensor.RowExpandSubOp(x, m))))
            s = self.value(scope, tensor.RowSumOp(e))
            return tensor.RowExpandDivOp(e, s) if self.rng.random() < 0.7 else tensor.RowExpandMulOp(e, s)
        r = self.value(scope, self.rng.choice([tensor.RowMaxOp, tensor.RowSumOp])(x))
        return self.rng.choice([tensor.RowExpandSubOp, tensor.RowExpandMulOp])(self.readable(scope), r)

    def condition(self, scope: Scope) -> SSAValue:
        k = self.gen.k if self.is_main else None
        if k is not None and (self.rng.random() < 0.6 or self.cfg.backend):
            bound = self.const_index(self.rng.randint(1, 3))
            return self.value(scope, arith.CmpiOp(k, bound, self.rng.choice(["slt", "sge", "ult", "ne"])))
        if self.cfg.backend:  # no scalar reads of tensors: the block index decides
            idx = self.value(scope, tile.GetBlockIdxOp())
            return self.value(scope, arith.CmpiOp(idx, self.const_index(1), self.rng.choice(["slt", "sge"])))
        src = self.pick(scope)
        c0 = self.const_index(0)
        value = self.value(scope, tensor.ReadOp(src, [c0] * len(self.ttype.get_shape())))
        if is_float(self.dtype):
            return self.value(scope, arith.CmpfOp(value, self.const_scalar(0.0), self.rng.choice(["ogt", "ult"])))
        return self.value(scope, arith.CmpiOp(value, self.const_scalar(0), self.rng.choice(["sgt", "sle"])))

    def if_compute(self, scope: Scope, depth: int) -> None:
        """`scf.if` yielding a pool value from each branch and every tensor a branch writes."""
        cond = self.condition(scope)
        storage = None
        if scope.storages and (self.rng.random() < 0.4 or self.cfg.backend):
            storage = self.rng.choice(sorted(scope.storages))
        if self.cfg.backend and storage is None:
            self.compute(scope)
            return
        branches: list[tuple[Block, Scope, SSAValue]] = []
        for _ in range(2):
            block = Block()
            inner = scope.child(block)
            for _ in range(self.rng.randint(0, 2)):
                self.statement(inner, depth + 1)
            value = self.compute(inner)
            if storage is not None:
                self.write_rows(inner, storage, self.const_index(0))
            branches.append((block, inner, value))
        written = sorted({name for _, inner, _ in branches for name in changed(scope, inner)})
        # the backend needs every yielded tensor to name one storage: no computed value
        values = [] if self.cfg.backend else [None]
        for block, inner, value in branches:
            block.add_op(scf.YieldOp(*(value for _ in values), *(inner.storages[name] for name in written)))
        types = [self.ttype for _ in values] + [scope.storages[name].type for name in written]
        op = self.emit(scope, scf.IfOp(cond, types, Region(branches[0][0]), Region(branches[1][0])))
        if values:
            scope.pool.append(op.results[0])
        for name, result in zip(written, op.results[len(values):]):
            scope.storages[name] = result

    def host_if(self, scope: Scope, depth: int) -> None:
        """`scf.if` on the index parameter in host code, each branch launching a scope that
        writes the same storage (the backend's host control flow)."""
        cond = self.condition(scope)
        storage = self.rng.choice(sorted(scope.storages))
        blocks = []
        for _ in range(2):
            block = Block()
            inner = scope.child(block)
            self.incore_scope(inner, depth + 1, storage=storage)
            block.add_op(scf.YieldOp(inner.storages[storage]))
            blocks.append(Region(block))
        op = self.emit(scope, scf.IfOp(cond, [scope.storages[storage].type], blocks[0], blocks[1]))
        scope.storages[storage] = op.results[0]

    def if_effect(self, scope: Scope) -> None:
        """`scf.if` without results, with or without an else: compute whose values stay
        inside (reads and arithmetic; no writes, which would need yielding)."""
        cond = self.condition(scope)
        blocks = []
        for _ in range(1 if self.rng.random() < 0.5 else 2):
            block = Block()
            inner = scope.child(block)
            inner.storages = {}
            for _ in range(self.rng.randint(1, 2)):
                self.compute(inner)
            block.add_op(scf.YieldOp())
            blocks.append(Region(block))
        self.emit(scope, scf.IfOp(cond, [], blocks[0], blocks[1] if len(blocks) > 1 else None))

    # -- writes

    def write_rows(self, scope: Scope, storage: str, row: SSAValue) -> None:
        """Write a [TR, C] window at (row, 0) of `storage`: tiles in incore code, else assemble."""
        dest = scope.storages[storage]
        c0 = self.const_index(0)
        tr, c = self.gen.tile_rows, self.gen.cols
        if scope.in_incore and self.cfg.tiles and (self.rng.random() < 0.8 or self.cfg.backend):
            t = self.tile_value(scope, row)
            op = tile.StoreOp(t, dest, [row, c0])
        else:
            src = self.pick(scope)
            window = self.value(scope, tensor.SliceOp(src, [row, c0], TensorType([tr, c], self.dtype)))
            if self.rng.random() < 0.3:
                window = self.value(scope, self.rng.choice(ops_for(_TENSOR_UNARY, self.dtype, self.cfg.backend))(window))
            op = tensor.AssembleOp(window, dest, [row, c0])
        scope.storages[storage] = self.value(scope, op)

    def tile_value(self, scope: Scope, row: SSAValue) -> SSAValue:
        """A [TR, C] vec tile computed from tiles loaded at (row, 0)."""
        c0 = self.const_index(0)
        ttile = TileType([self.gen.tile_rows, self.gen.cols], self.dtype, MemorySpace.VEC)

        def load() -> SSAValue:
            return self.value(scope, tile.LoadOp(self.readable(scope), [row, c0], ttile))

        t = load()
        is_f = is_float(self.dtype)
        matmul = self.gen.weight is not None and self.is_main and self.cfg.matmul and not self.cfg.backend
        for _ in range(self.rng.randint(1, 3)):
            kind = weighted(self.rng, [
                ("binary", 3), ("unary", 2), ("scalar", 2), ("softmax", 1 if is_f else 0), ("full", 1),
                ("matmul", 1 if matmul else 0), ("cast", 1 if self.cfg.casts else 0),
                ("bias", 0.3 if self.cfg.memory_spaces else 0),
            ])
            if kind == "binary":
                t = self.value(scope, self.rng.choice(ops_for(_TILE_BINARY, self.dtype, self.cfg.backend))(t, load()))
            elif kind == "unary":
                t = self.value(scope, self.rng.choice(ops_for(_TILE_UNARY, self.dtype, self.cfg.backend))(t))
            elif kind == "scalar":
                t = self.value(scope, self.rng.choice(ops_for(_TILE_SCALAR, self.dtype, self.cfg.backend))(t, self.scalar(scope)))
            elif kind == "full":
                fill = self.const_scalar(self.rng.choice([0.25, 2.0]) if is_f else self.rng.choice([1, 2]))
                f = self.value(scope, tile.FullOp(fill, ttile))
                t = self.value(scope, tile.AddOp(t, f))
            elif kind == "cast":
                h = self.value(scope, tile.CastOp(t, self.cast_partner()))
                t = self.value(scope, tile.CastOp(h, self.dtype))
            elif kind == "bias":  # a round trip through the bias table
                b = self.value(scope, tile.MoveOp(t, MemorySpace.BIAS))
                t = self.value(scope, tile.MoveOp(b, MemorySpace.VEC))
            elif kind == "softmax":
                m = self.value(scope, tile.RowMaxOp(t))
                e = self.value(scope, tile.ExpOp(self.value(scope, tile.RowExpandSubOp(t, m))))
                s = self.value(scope, tile.RowSumOp(e))
                op = tile.RowExpandDivOp(e, s) if self.rng.random() < 0.7 else tile.RowExpandMulOp(e, s)
                t = self.value(scope, op)
            else:
                t = self.tile_matmul(scope, t)
        return t

    def tile_matmul(self, scope: Scope, t: SSAValue) -> SSAValue:
        """`t` x the weight on the cube: operands staged through `mat` (L1) or moved from
        `vec`, accumulated once or twice, moved back to `vec`."""
        c0 = self.const_index(0)
        cols = self.gen.cols
        if self.cfg.memory_spaces and self.rng.random() < 0.5:
            w = self.value(scope, tile.LoadOp(self.gen.weight, [c0, c0], TileType([cols, cols], f32, MemorySpace.MAT)))
            staged = self.value(scope, tile.MoveOp(t, MemorySpace.MAT))
            left = self.value(scope, tile.MoveOp(staged, MemorySpace.LEFT))
        else:
            w = self.value(scope, tile.LoadOp(self.gen.weight, [c0, c0], TileType([cols, cols], f32)))
            left = self.value(scope, tile.MoveOp(t, MemorySpace.LEFT))
        right = self.value(scope, tile.MoveOp(w, MemorySpace.RIGHT))
        acc = self.value(scope, tile.MatmulOp(left, right))
        if self.rng.random() < 0.5:
            acc = self.value(scope, tile.MatmulAccOp(acc, left, right))
        return self.value(scope, tile.MoveOp(acc, MemorySpace.VEC))

    # -- loops

    def loop_bounds(self, scope: Scope, storage: str) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(lb, ub, step) of a loop whose iterations write a [TR, C] window at row i: start 0
        with a step of TR (aligned), or a non-zero start or a step that does not divide the
        rows, with ub = rows - TR + 1 so that every window is in bounds."""
        tr = self.gen.tile_rows
        rows = self.rows(scope, scope.storages[storage])
        if not self.cfg.odd_loops or self.rng.random() < 0.6:
            return self.const_index(0), rows, self.const_index(tr)
        lb = self.rng.choice([1, tr, 2 if tr > 2 else 1])
        step = self.rng.choice([tr + 1, 3, 2 * tr, 1])
        ub = self.value(scope, arith.SubiOp(rows, self.const_index(tr - 1))) if tr > 1 else rows
        return self.const_index(lb), ub, self.const_index(step)

    def row_loop(self, scope: Scope, storage: str, depth: int, incore_body: bool) -> None:
        """`scf.for` over row windows writing `storage`; every writable tensor is an iter_arg."""
        names = sorted(scope.storages)
        inits = [scope.storages[name] for name in names]
        lb, ub, step = self.loop_bounds(scope, storage)
        block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        inner = scope.child(block)
        inner.storages = dict(zip(names, block.args[1:]))
        row = block.args[0]
        if incore_body:
            self.incore_scope(inner, depth + 1, storage=storage, row=row)
        else:
            if inner.in_incore and self.rng.random() < 0.3:
                idx = self.value(inner, tile.GetBlockIdxOp())
                offset = self.value(inner, arith.MuliOp(idx, self.const_index(self.gen.tile_rows)))
                row = self.value(inner, arith.AddiOp(row, offset))
            self.write_rows(inner, storage, row)
            if depth + 1 < self.cfg.max_depth and self.rng.random() < 0.3:
                self.statement(inner, depth + 1)
        block.add_op(scf.YieldOp(*(inner.storages[name] for name in names)))
        op = self.emit(scope, scf.ForOp(lb, ub, step, inits, block))
        for name, result in zip(names, op.results):
            scope.storages[name] = result

    def while_loop(self, scope: Scope, storage: str, depth: int) -> None:
        """`scf.while` counting row blocks: the `before` region tests the count, the `do`
        region writes the block's rows and steps the count; the writable tensors are carried."""
        names = sorted(scope.storages)
        inits = [scope.storages[name] for name in names]
        types = [IndexType(), *(v.type for v in inits)]
        blocks = self.gen.rows_value // self.gen.tile_rows
        if isinstance(self.ttype.get_shape()[0], int):
            limit = self.const_index(blocks)
        else:
            limit = self.value(scope, arith.DivUIOp(self.rows(scope, inits[names.index(storage)]),
                                                    self.const_index(self.gen.tile_rows)))
        before = Block(arg_types=types)
        going = self.value(
            Scope(before, [], {}), arith.CmpiOp(before.args[0], limit, self.rng.choice(["ult", "slt"]))
        )
        before.add_op(scf.ConditionOp(going, *before.args))
        after = Block(arg_types=types)
        inner = scope.child(after)
        inner.storages = dict(zip(names, after.args[1:]))
        row = self.value(inner, arith.MuliOp(after.args[0], self.const_index(self.gen.tile_rows)))
        self.write_rows(inner, storage, row)
        if depth + 1 < self.cfg.max_depth and self.rng.random() < 0.3:
            self.statement(inner, depth + 1)
        step = self.value(inner, arith.AddiOp(after.args[0], self.const_index(1)))
        after.add_op(scf.YieldOp(step, *(inner.storages[name] for name in names)))
        op = self.emit(scope, scf.WhileOp([self.const_index(0), *inits], types, Region(before), Region(after)))
        for name, result in zip(names, op.results[1:]):
            scope.storages[name] = result

    # -- calls

    def call_helper(self, scope: Scope, helpers: Sequence[Helper]) -> None:
        candidates = [h for h in helpers if not scope.in_incore or h.kind == FuncKind.INLINE]
        if not candidates:
            self.compute(scope)
            return
        h = self.rng.choice(candidates)
        if h.has_out and not scope.storages:
            self.compute(scope)
            return
        args = [self.pick(scope) for _ in range(h.n_in)]
        storage = None
        if h.has_out:
            storage = self.rng.choice(sorted(scope.storages))
            args.append(scope.storages[storage])
        results = call_result_types(h.func, args)
        dumps = [self.pick(scope)] if self.rng.random() < 0.1 else []
        op = self.emit(scope, CallOp(h.name, args, results, dumps))
        pure = list(op.results[: h.n_pure_results])
        if h.dynamic and None not in self.ttype.get_shape():  # [?, C] results: a window of the caller's type
            c0 = self.const_index(0)
            pure = [self.value(scope, tensor.SliceOp(v, [c0, c0], self.ttype)) for v in pure]
        scope.pool.extend(pure)
        if storage is not None:
            scope.storages[storage] = op.results[-1]

    def launch_kernel(self, scope: Scope) -> None:
        if not self.gen.kernels or not scope.storages:
            self.compute(scope)
            return
        k = self.rng.choice(self.gen.kernels)
        storage = self.rng.choice(sorted(scope.storages))
        args = [self.pick(scope)] + ([self.gen.weight] if k.takes_weight else []) + [scope.storages[storage]]
        results = call_result_types(k.func, args)
        if self.cfg.submit and self.rng.random() < 0.6:
            op = self.emit(scope, SubmitOp(k.name, args, results, self.deps(scope)))
            scope.tids.append(op.results[-1])
        else:
            op = self.emit(scope, CallOp(k.name, args, results))
        scope.storages[storage] = op.results[0]

    def deps(self, scope: Scope) -> list[SSAValue]:
        """Usually one or two of the task ids launched so far."""
        if not scope.tids or self.rng.random() < 0.2:
            return []
        return self.rng.sample(scope.tids, min(len(scope.tids), self.rng.randint(1, 2)))

    # -- scopes

    def incore_scope(self, scope: Scope, depth: int, storage: str | None = None, row: SSAValue | None = None) -> None:
        block = Block()
        inner = scope.child(block, in_incore=True)
        if storage is None and scope.storages and self.rng.random() < 0.75:
            storage = self.rng.choice(sorted(scope.storages))
        if storage is not None:
            if row is not None:
                self.write_rows(inner, storage, row)
            elif self.rng.random() < 0.7:
                self.row_loop(inner, storage, depth + 1, incore_body=False)
            else:
                self.write_rows(inner, storage, self.const_index(0))
        for _ in range(self.rng.randint(0, 2)):
            self.statement(inner, depth + 1)
        written = changed(scope, inner)
        yielded = [inner.storages[name] for name in written]
        if (not written or self.rng.random() < 0.5) and not self.cfg.backend:
            yielded.append(self.compute(inner))
        block.add_op(PyptoYieldOp(*yielded))
        with_tid = self.cfg.submit and row is None and self.rng.random() < 0.4
        deps = self.deps(scope) if with_tid or self.rng.random() < 0.3 else []
        name = f"k{self.gen.next_name()}" if self.rng.random() < 0.3 else None
        op = self.emit(
            scope,
            IncoreScopeOp(
                [v.type for v in yielded], Region(block), name_hint=name, deps=deps,
                with_task_id=with_tid, dumps=[self.pick(scope)] if self.rng.random() < 0.15 else [],
            ),
        )
        results = list(op.outputs)
        for name in written:
            scope.storages[name] = results.pop(0)
        scope.pool.extend(results)
        if op.task_id is not None:
            scope.tids.append(op.task_id)

    def spmd_scope(self, scope: Scope) -> None:
        """An SPMD scope (`pl.spmd`): one core per row block of a storage, each writing its
        own block, found by block index (and the block count: rows / count = TR)."""
        storage = self.rng.choice(sorted(scope.storages))
        block = Block()
        inner = scope.child(block, in_incore=True)
        idx = self.value(inner, tile.GetBlockIdxOp())
        if self.rng.random() < 0.5:
            count = self.value(inner, tile.GetBlockNumOp())
            rows = self.const_index(self.gen.rows_value) if isinstance(self.ttype.get_shape()[0], int) else (
                self.value(inner, tensor.DimOp(inner.storages[storage], 0))
            )
            per_block = self.value(inner, arith.DivUIOp(rows, count))
            row = self.value(inner, arith.MuliOp(idx, per_block))
        else:
            row = self.value(inner, arith.MuliOp(idx, self.const_index(self.gen.tile_rows)))
        if self.rng.random() < 0.5:
            self.write_rows(inner, storage, row)
        else:  # tensor-level compute on the block's window, which convert-tensor-to-tile tiles
            c0 = self.const_index(0)
            window_type = TensorType([self.gen.tile_rows, self.gen.cols], self.dtype)
            v = self.value(inner, tensor.SliceOp(self.pick(inner), [row, c0], window_type))
            for _ in range(self.rng.randint(1, 2)):
                v = self.value(inner, self.rng.choice(ops_for(_TENSOR_UNARY, self.dtype, self.cfg.backend))(v))
            dest = inner.storages[storage]
            inner.storages[storage] = self.value(inner, tensor.AssembleOp(v, dest, [row, c0]))
        written = inner.storages[storage]
        block.add_op(PyptoYieldOp(written))
        name = f"k{self.gen.next_name()}" if self.rng.random() < 0.3 else None
        op = self.emit(scope, IncoreScopeOp([written.type], Region(block), name_hint=name))
        op.attributes[BLOCK_DIM_ATTR] = IntegerAttr(self.gen.rows_value // self.gen.tile_rows, 64)
        scope.storages[storage] = op.outputs[0]

    def split_aiv(self, scope: Scope) -> None:
        """`pypto.split_aiv`: each of the two AIV lanes writes its own row window of a storage
        in place (the region yields nothing; the storage keeps its version)."""
        storage = self.rng.choice(sorted(scope.storages))
        region = SplitAivOp(self.rng.choice([SplitMode.UP_DOWN, SplitMode.LEFT_RIGHT]))
        body = region.body.block
        inner = scope.child(body)
        row = self.value(inner, arith.MuliOp(body.args[0], self.const_index(self.gen.tile_rows)))
        c0 = self.const_index(0)
        ttile = TileType([self.gen.tile_rows, self.gen.cols], self.dtype, MemorySpace.VEC)
        t = self.value(inner, tile.LoadOp(self.pick(inner), [row, c0], ttile))
        t = self.value(inner, self.rng.choice(ops_for(_TILE_UNARY, self.dtype, self.cfg.backend))(t))
        self.emit(inner, tile.StoreOp(t, scope.storages[storage], [row, c0]))
        self.emit(scope, region)

    # -- other shapes

    def ranked_compute(self, scope: Scope) -> None:
        """Compute on the rank-0, rank-1 and rank-3 parameters: a read of a scalar used later,
        and (rank 3) a window assembled into the rank-3 output."""
        gen = self.gen
        name = self.rng.choice(sorted(gen.ranked))
        value = gen.ranked[name]
        for _ in range(self.rng.randint(1, 2)):
            op = self.rng.choice(ops_for(_TENSOR_UNARY + _TENSOR_BINARY, self.dtype, self.cfg.backend))
            value = self.value(scope, op(value) if issubclass(op, tensor.TensorUnaryOp) else op(value, value))
        rank = len(value.type.get_shape())
        c0 = self.const_index(0)
        last = self.const_index(self.gen.cols - 1)
        indices = {0: [], 1: [last], 3: [self.const_index(1), c0, last]}[rank]
        scope.scalars.append(self.value(scope, tensor.ReadOp(value, indices)))
        if rank == 3 and self.o3 is not None and scope.block is self.entry:
            window = TensorType([1, *value.type.get_shape()[1:]], self.dtype)
            w = self.value(scope, tensor.SliceOp(value, [c0, c0, c0], window))
            self.o3 = self.value(scope, tensor.AssembleOp(w, self.o3, [self.const_index(1), c0, c0]))

    def dynamic_buffer(self, scope: Scope) -> None:
        """`tensor.create(%n) : [?, C]` filled with a pool value, read back as a window."""
        dynamic = TensorType([None, self.gen.cols], self.dtype)
        source = self.pick(scope)
        buf = self.value(scope, tensor.CreateOp(dynamic, [self.rows(scope, source)]))
        c0 = self.const_index(0)
        buf = self.value(scope, tensor.AssembleOp(source, buf, [c0, c0]))
        scope.pool.append(self.value(scope, tensor.SliceOp(buf, [c0, c0], self.ttype)))

    # -- statements

    def statement(self, scope: Scope, depth: int) -> None:
        cfg, gen = self.cfg, self.gen
        is_main = self.is_main
        nested = depth < cfg.max_depth
        top = is_main and not scope.in_incore
        scopes = top and cfg.incore_scopes
        two_lanes = gen.rows_value >= 2 * gen.tile_rows
        choices = [
            ("compute", 4),
            ("call", 4 if self.visible_helpers else 0),
            ("if", 2 if nested else 0),
            ("if_effect", 1 if nested and cfg.control_flow else 0),
            ("assemble", 2 if scope.storages else 0),
            ("loop", 2 if nested and scope.storages else 0),
            ("while", 1 if nested and scope.storages and cfg.control_flow else 0),
            ("incore", 4 if nested and scopes else 0),
            ("loop_incore", 2 if nested and scopes and scope.storages else 0),
            ("kernel", 3 if top and gen.kernels and scope.storages else 0),
            ("spmd", 1 if nested and scopes and scope.storages else 0),
            ("split_aiv", 1 if scope.in_incore and cfg.tiles and cfg.split_aiv and two_lanes and scope.storages
             and not isinstance(scope.block.parent_op(), SplitAivOp) else 0),
            ("create", 1 if top else 0),
            ("ranked", 1 if is_main and gen.ranked else 0),
            ("dynamic", 0.5 if top and cfg.dynamic_dims else 0),
        ]
        if cfg.backend and top:
            host = {"kernel", "incore", "loop_incore", "spmd", "if_host", "while_host"}
            choices = [(k, w) for k, w in choices if k in host] + [
                ("if_host", 1 if nested and scope.storages and scopes else 0),
            ]
            if not any(w for _, w in choices):
                choices = [("incore", 1)]
        kind = weighted(self.rng, choices)
        if kind == "if_host":
            self.host_if(scope, depth)
            return
        if kind == "compute":
            self.compute(scope)
        elif kind == "call":
            self.call_helper(scope, self.visible_helpers)
        elif kind == "if":
            self.if_compute(scope, depth)
        elif kind == "if_effect":
            self.if_effect(scope)
        elif kind == "assemble":
            self.write_rows(scope, self.rng.choice(sorted(scope.storages)), self.block_row(scope))
        elif kind == "loop":
            self.row_loop(scope, self.rng.choice(sorted(scope.storages)), depth, incore_body=False)
        elif kind == "while":
            self.while_loop(scope, self.rng.choice(sorted(scope.storages)), depth)
        elif kind == "incore":
            self.incore_scope(scope, depth)
        elif kind == "loop_incore":
            self.row_loop(scope, self.rng.choice(sorted(scope.storages)), depth, incore_body=True)
        elif kind == "kernel":
            self.launch_kernel(scope)
        elif kind == "spmd":
            self.spmd_scope(scope)
        elif kind == "split_aiv":
            self.split_aiv(scope)
        elif kind == "ranked":
            self.ranked_compute(scope)
        elif kind == "dynamic":
            self.dynamic_buffer(scope)
        elif kind == "create":
            op = self.emit(scope, tensor.CreateOp(self.ttype))
            name = f"buf{self.gen.next_name()}"
            scope.storages[name] = op.results[0]
            self.write_rows(scope, name, self.const_index(0))
