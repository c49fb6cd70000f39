"""Random well-typed pypto programs, the fuzz target of the pass pipeline.

`generate_program(seed)` builds (with the Python op builders, never text) a module with:

* a chain of helper functions (mostly `inline`, some `opaque`): helper i may call helpers j < i,
  so the call graph is acyclic; helpers may take an `out` parameter they write into
  (`tensor.assemble`) and return; their parameter types may use their own shape symbol `M`
  (so call sites specialise them);
* explicit `incore` kernels (tile load / compute / store loops) called with `pypto.call` or
  launched with `pypto.submit` (with `deps`);
* an opaque `@main(x0, x1, [w], k, out o0, [inout o1])` whose body mixes whole-tensor compute,
  several call sites per helper, `scf.for` (row loops with the written tensor as iter_arg),
  `scf.if` (on the index parameter or on data), `pypto.incore_scope` (with tile loops, tensor
  compute and helper calls inside, optional task ids and deps), `tensor.create`, `slice`,
  `assemble`, `read`, `dim`, `matmul`, row reductions and expands;
* a symbolic row dimension `N` (bound by `GeneratedProgram.dims`) or static shapes.

Writes obey the IR contract: a tensor that is written (an out parameter or a created buffer) is
only read through its latest SSA version, and values that are read freely are never written.
Every generated module verifies (checked on generation).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    f32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pypto_xdsl.dialects import tensor, tile
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    ParamDirection,
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
    ReturnOp,
    SubmitOp,
)
from pypto_xdsl.dialects.program import YieldOp as PyptoYieldOp


@dataclass
class GenConfig:
    """Knobs of the generator (defaults: everything on, small sizes)."""

    max_helpers: int = 4
    max_kernels: int = 2
    max_stmts: int = 7
    max_helper_stmts: int = 4
    symbolic: bool | None = None
    """Main's row dim is the symbol N (True), static (False) or either (None)."""
    incore_scopes: bool = True
    tiles: bool = True
    submit: bool = True
    matmul: bool = True
    rows: tuple[int, ...] = (4, 8)
    """Choices of the row extent of the tensors (the value of N when symbolic)."""
    cols: tuple[int, ...] = (4, 8)
    tile_rows: tuple[int, ...] = (2, 4)
    """Row-block sizes of loops and tiles; each must divide every choice of `rows`."""


@dataclass
class GeneratedProgram:
    module: ModuleOp
    entry: str
    dims: dict[str, int]
    seed: int

    def __str__(self) -> str:
        return str(self.module)


@dataclass
class _Helper:
    name: str
    func: FuncOp
    n_in: int
    has_out: bool
    n_pure_results: int
    kind: FuncKind


@dataclass
class _Kernel:
    name: str
    func: FuncOp


@dataclass
class _Scope:
    """What the generator may use at the current insertion point."""

    block: Block
    pool: list[SSAValue]
    """Values of the function's tensor type that are never written."""
    storages: dict[str, SSAValue]
    """Writable tensors: name -> latest version."""
    tids: list[SSAValue] = field(default_factory=list)
    in_incore: bool = False

    def child(self, block: Block, in_incore: bool | None = None) -> _Scope:
        return _Scope(
            block, list(self.pool), dict(self.storages), list(self.tids),
            self.in_incore if in_incore is None else in_incore,
        )


_TENSOR_BINARY = [tensor.AddOp, tensor.SubOp, tensor.MulOp, tensor.MaximumOp, tensor.MinimumOp, tensor.DivOp]
_TENSOR_UNARY = [tensor.ExpOp, tensor.NegOp, tensor.AbsOp, tensor.ReluOp, tensor.SqrtOp, tensor.LogOp, tensor.RecipOp]
_TENSOR_SCALAR = [tensor.AddsOp, tensor.SubsOp, tensor.MulsOp, tensor.DivsOp]
_TILE_BINARY = [tile.AddOp, tile.SubOp, tile.MulOp, tile.MaximumOp, tile.MinimumOp, tile.DivOp]
_TILE_UNARY = [tile.ExpOp, tile.NegOp, tile.AbsOp, tile.ReluOp, tile.SqrtOp, tile.LogOp, tile.RecipOp]
_TILE_SCALAR = [tile.AddsOp, tile.SubsOp, tile.MulsOp, tile.DivsOp]


def _weighted(rng: random.Random, items: Sequence[tuple[object, int]]):
    """One item, with probability proportional to its weight (weight 0: never)."""
    live = [(item, w) for item, w in items if w > 0]
    r = rng.uniform(0, sum(w for _, w in live))
    for item, w in live:
        r -= w
        if r <= 0:
            return item
    return live[-1][0]


class _FuncBuilder:
    """Emits ops into one function; constants go to the top of its entry block."""

    def __init__(self, gen: ProgramGenerator, func: FuncOp, ttype: TensorType):
        self.gen = gen
        self.rng = gen.rng
        self.func = func
        self.ttype = ttype
        self.entry = func.body.block
        self._consts: dict[tuple[str, object], SSAValue] = {}
        self._const_anchor: Operation | None = None

    # -- basics

    def emit(self, scope: _Scope, op: Operation) -> Operation:
        scope.block.add_op(op)
        return op

    def const_index(self, value: int) -> SSAValue:
        return self._const(("index", value), lambda: arith.ConstantOp.from_int_and_width(value, IndexType()))

    def const_f32(self, value: float) -> SSAValue:
        return self._const(("f32", value), lambda: arith.ConstantOp(FloatAttr(value, f32)))

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

    def rows(self, scope: _Scope, source: SSAValue) -> SSAValue:
        """The row extent of `source` as an index value (dim op when symbolic)."""
        d = self.ttype.get_shape()[0]
        if isinstance(d, int):
            return self.const_index(d)
        return self.emit(scope, tensor.DimOp(source, 0)).results[0]

    def pick(self, scope: _Scope) -> SSAValue:
        return self.rng.choice(scope.pool)

    def readable(self, scope: _Scope) -> SSAValue:
        """A pool value, or (sometimes) the latest version of a written tensor."""
        if scope.storages and self.rng.random() < 0.2:
            return scope.storages[self.rng.choice(sorted(scope.storages))]
        return self.pick(scope)

    def scalar(self, scope: _Scope) -> SSAValue:
        if self.rng.random() < 0.25:
            src = self.pick(scope)
            c0 = self.const_index(0)
            return self.emit(scope, tensor.ReadOp(src, [c0, c0])).results[0]
        return self.const_f32(self.rng.choice([0.5, 1.5, 2.0, -1.0, 3.0]))

    # -- whole-tensor compute

    def compute(self, scope: _Scope) -> SSAValue:
        kind = _weighted(self.rng, [("binary", 4), ("unary", 3), ("scalar", 3), ("rows", 2), ("matmul", 1 if self.gen.weight is not None and self.func is self.gen.main else 0)])
        if kind == "rows":
            op = self.row_compute(scope)
        elif kind == "binary":
            op = self.rng.choice(_TENSOR_BINARY)(self.readable(scope), self.readable(scope))
        elif kind == "unary":
            op = self.rng.choice(_TENSOR_UNARY)(self.readable(scope))
        elif kind == "scalar":
            value = self.readable(scope)
            op = self.rng.choice(_TENSOR_SCALAR)(value, self.scalar(scope))
        else:
            op = tensor.MatmulOp(self.readable(scope), self.gen.weight)
        result = self.emit(scope, op).results[0]
        scope.pool.append(result)
        return result

    def row_compute(self, scope: _Scope) -> Operation:
        """Tensor-level row ops: a softmax-like chain (row max, expand-sub, exp, row sum,
        expand-div or -mul), or one reduction expanded over another tensor's rows."""
        x = self.readable(scope)
        if self.rng.random() < 0.6:
            m = self.emit(scope, tensor.RowMaxOp(x)).results[0]
            e = self.emit(scope, tensor.ExpOp(self.emit(scope, tensor.RowExpandSubOp(x, m)).results[0])).results[0]
            s = self.emit(scope, tensor.RowSumOp(e)).results[0]
            return tensor.RowExpandDivOp(e, s) if self.rng.random() < 0.7 else tensor.RowExpandMulOp(e, s)
        r = self.emit(scope, self.rng.choice([tensor.RowMaxOp, tensor.RowSumOp])(x)).results[0]
        return self.rng.choice([tensor.RowExpandSubOp, tensor.RowExpandMulOp])(self.readable(scope), r)

    def condition(self, scope: _Scope) -> SSAValue:
        k = self.gen.k if self.func is self.gen.main else None
        if k is not None and self.rng.random() < 0.6:
            bound = self.const_index(self.rng.randint(1, 3))
            return self.emit(scope, arith.CmpiOp(k, bound, "slt")).results[0]
        src = self.pick(scope)
        c0 = self.const_index(0)
        value = self.emit(scope, tensor.ReadOp(src, [c0, c0])).results[0]
        return self.emit(scope, arith.CmpfOp(value, self.const_f32(0.0), "ogt")).results[0]

    def if_compute(self, scope: _Scope, depth: int) -> None:
        """`scf.if` yielding a pool value from each branch and every tensor a branch writes."""
        cond = self.condition(scope)
        storage = None
        if scope.storages and self.rng.random() < 0.4:
            storage = self.rng.choice(sorted(scope.storages))
        branches: list[tuple[Block, _Scope, SSAValue]] = []
        for _ in range(2):
            block = Block()
            inner = scope.child(block)
            for _ in range(self.rng.randint(0, 2)):
                self.statement(inner, depth + 1, allow_nested=False)
            value = self.compute(inner)
            if storage is not None:
                self.write_rows(inner, storage, self.const_index(0))
            branches.append((block, inner, value))
        written = sorted({name for _, inner, _ in branches for name in _changed(scope, inner)})
        for block, inner, value in branches:
            block.add_op(scf.YieldOp(value, *(inner.storages[name] for name in written)))
        types = [self.ttype] + [scope.storages[name].type for name in written]
        op = self.emit(scope, scf.IfOp(cond, types, Region(branches[0][0]), Region(branches[1][0])))
        scope.pool.append(op.results[0])
        for name, result in zip(written, op.results[1:]):
            scope.storages[name] = result

    # -- writes

    def write_rows(self, scope: _Scope, storage: str, row: SSAValue) -> None:
        """Write a [TR, C] window at (row, 0) of `storage`: tiles in incore code, else assemble."""
        dest = scope.storages[storage]
        c0 = self.const_index(0)
        tr, c = self.gen.tile_rows, self.gen.cols
        if scope.in_incore and self.gen.config.tiles and self.rng.random() < 0.8:
            t = self.tile_value(scope, row)
            op = tile.StoreOp(t, dest, [row, c0])
        else:
            src = self.pick(scope)
            window = self.emit(scope, tensor.SliceOp(src, [row, c0], TensorType([tr, c], self.ttype.element_type)))
            op = tensor.AssembleOp(window.results[0], dest, [row, c0])
        scope.storages[storage] = self.emit(scope, op).results[0]

    def tile_value(self, scope: _Scope, row: SSAValue) -> SSAValue:
        """A [TR, C] vec tile computed from tiles loaded at (row, 0)."""
        c0 = self.const_index(0)
        ttile = TileType([self.gen.tile_rows, self.gen.cols], f32, MemorySpace.VEC)

        def load() -> SSAValue:
            return self.emit(scope, tile.LoadOp(self.readable(scope), [row, c0], ttile)).results[0]

        t = load()
        for _ in range(self.rng.randint(1, 3)):
            kind = _weighted(self.rng, [("binary", 3), ("unary", 2), ("scalar", 2), ("softmax", 1), ("full", 1), ("matmul", 1 if self.gen.weight is not None and self.func is self.gen.main and self.gen.config.matmul else 0), ("cast", 1)])
            if kind == "binary":
                t = self.emit(scope, self.rng.choice(_TILE_BINARY)(t, load())).results[0]
            elif kind == "unary":
                t = self.emit(scope, self.rng.choice(_TILE_UNARY)(t)).results[0]
            elif kind == "scalar":
                t = self.emit(scope, self.rng.choice(_TILE_SCALAR)(t, self.scalar(scope))).results[0]
            elif kind == "full":
                f = self.emit(scope, tile.FullOp(self.const_f32(self.rng.choice([0.25, 2.0])), ttile)).results[0]
                t = self.emit(scope, tile.AddOp(t, f)).results[0]
            elif kind == "cast":
                h = self.emit(scope, tile.CastOp(t, Float16Type())).results[0]
                t = self.emit(scope, tile.CastOp(h, Float32Type())).results[0]
            elif kind == "softmax":
                m = self.emit(scope, tile.RowMaxOp(t)).results[0]
                e = self.emit(scope, tile.ExpOp(self.emit(scope, tile.RowExpandSubOp(t, m)).results[0])).results[0]
                s = self.emit(scope, tile.RowSumOp(e)).results[0]
                op = tile.RowExpandDivOp(e, s) if self.rng.random() < 0.7 else tile.RowExpandMulOp(e, s)
                t = self.emit(scope, op).results[0]
            else:
                w = self.emit(scope, tile.LoadOp(self.gen.weight, [c0, c0], TileType([self.gen.cols, self.gen.cols], f32))).results[0]
                left = self.emit(scope, tile.MoveOp(t, MemorySpace.LEFT)).results[0]
                right = self.emit(scope, tile.MoveOp(w, MemorySpace.RIGHT)).results[0]
                acc = self.emit(scope, tile.MatmulOp(left, right)).results[0]
                if self.rng.random() < 0.5:
                    acc = self.emit(scope, tile.MatmulAccOp(acc, left, right)).results[0]
                t = self.emit(scope, tile.MoveOp(acc, MemorySpace.VEC)).results[0]
        return t

    def row_loop(self, scope: _Scope, storage: str, depth: int, incore_body: bool) -> None:
        """`scf.for` over row blocks writing `storage`; every writable tensor is an iter_arg."""
        names = sorted(scope.storages)
        inits = [scope.storages[name] for name in names]
        ub = self.rows(scope, scope.storages[storage])
        block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        inner = scope.child(block)
        inner.storages = dict(zip(names, block.args[1:]))
        row = block.args[0]
        if incore_body:
            self.incore_scope(inner, depth + 1, storage=storage, row=row)
        else:
            if inner.in_incore and self.rng.random() < 0.3:
                idx = self.emit(inner, tile.GetBlockIdxOp()).results[0]
                offset = self.emit(inner, arith.MuliOp(idx, self.const_index(self.gen.tile_rows))).results[0]
                row = self.emit(inner, arith.AddiOp(row, offset)).results[0]
            self.write_rows(inner, storage, row)
        block.add_op(scf.YieldOp(*(inner.storages[name] for name in names)))
        op = self.emit(scope, scf.ForOp(self.const_index(0), ub, self.const_index(self.gen.tile_rows), inits, block))
        for name, result in zip(names, op.results):
            scope.storages[name] = result

    # -- calls

    def call_helper(self, scope: _Scope, helpers: Sequence[_Helper]) -> None:
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
        scope.pool.extend(op.results[: h.n_pure_results])
        if storage is not None:
            scope.storages[storage] = op.results[-1]

    def launch_kernel(self, scope: _Scope) -> None:
        if not self.gen.kernels or not scope.storages:
            self.compute(scope)
            return
        k = self.rng.choice(self.gen.kernels)
        storage = self.rng.choice(sorted(scope.storages))
        args = [self.pick(scope), scope.storages[storage]]
        results = call_result_types(k.func, args)
        if self.gen.config.submit and self.rng.random() < 0.6:
            deps = self.deps(scope)
            op = self.emit(scope, SubmitOp(k.name, args, results, deps))
            scope.tids.append(op.results[-1])
        else:
            op = self.emit(scope, CallOp(k.name, args, results))
        scope.storages[storage] = op.results[0]

    def deps(self, scope: _Scope) -> list[SSAValue]:
        """Usually one or two of the task ids launched so far."""
        if not scope.tids or self.rng.random() < 0.2:
            return []
        return self.rng.sample(scope.tids, min(len(scope.tids), self.rng.randint(1, 2)))

    # -- incore scopes

    def incore_scope(self, scope: _Scope, depth: int, storage: str | None = None, row: SSAValue | None = None) -> None:
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
            self.statement(inner, depth + 1, allow_nested=False)
        written = _changed(scope, inner)
        yielded = [inner.storages[name] for name in written]
        if not written or self.rng.random() < 0.5:
            yielded.append(self.compute(inner))
        block.add_op(PyptoYieldOp(*yielded))
        with_tid = self.gen.config.submit and row is None and self.rng.random() < 0.4
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

    def spmd_scope(self, scope: _Scope) -> None:
        """An SPMD scope (`pl.spmd`): one core per row block of a storage, each writing its
        own block, found by block index."""
        storage = self.rng.choice(sorted(scope.storages))
        block = Block()
        inner = scope.child(block, in_incore=True)
        idx = self.emit(inner, tile.GetBlockIdxOp()).results[0]
        row = self.emit(inner, arith.MuliOp(idx, self.const_index(self.gen.tile_rows))).results[0]
        if self.rng.random() < 0.5:
            self.write_rows(inner, storage, row)
        else:  # tensor-level compute on the block's window, which convert-tensor-to-tile tiles
            c0 = self.const_index(0)
            window_type = TensorType([self.gen.tile_rows, self.gen.cols], self.ttype.element_type)
            v = self.emit(inner, tensor.SliceOp(self.pick(inner), [row, c0], window_type)).results[0]
            for _ in range(self.rng.randint(1, 2)):
                v = self.emit(inner, self.rng.choice(_TENSOR_UNARY)(v)).results[0]
            dest = inner.storages[storage]
            inner.storages[storage] = self.emit(inner, tensor.AssembleOp(v, dest, [row, c0])).results[0]
        written = inner.storages[storage]
        block.add_op(PyptoYieldOp(written))
        name = f"k{self.gen.next_name()}" if self.rng.random() < 0.3 else None
        op = self.emit(scope, IncoreScopeOp([written.type], Region(block), name_hint=name))
        op.attributes[BLOCK_DIM_ATTR] = IntegerAttr(self.gen.rows_value // self.gen.tile_rows, 64)
        scope.storages[storage] = op.outputs[0]

    # -- statements

    def statement(self, scope: _Scope, depth: int, allow_nested: bool = True) -> None:
        cfg = self.gen.config
        is_main = self.func is self.gen.main
        nested = allow_nested and depth < 2
        choices = [
            ("compute", 4),
            ("call", 4 if self.helpers_visible() else 0),
            ("if", 2 if nested else 0),
            ("assemble", 2 if scope.storages else 0),
            ("loop", 2 if nested and scope.storages else 0),
            ("incore", 4 if nested and is_main and cfg.incore_scopes and not scope.in_incore else 0),
            ("loop_incore", 2 if nested and is_main and cfg.incore_scopes and not scope.in_incore and scope.storages else 0),
            ("kernel", 2 if is_main and self.gen.kernels and not scope.in_incore and scope.storages else 0),
            ("spmd", 1 if nested and is_main and cfg.incore_scopes and not scope.in_incore and scope.storages else 0),
            ("create", 1 if is_main and not scope.in_incore else 0),
        ]
        kind = _weighted(self.rng, choices)
        if kind == "compute":
            self.compute(scope)
        elif kind == "call":
            self.call_helper(scope, self.visible_helpers)
        elif kind == "if":
            self.if_compute(scope, depth)
        elif kind == "assemble":
            storage = self.rng.choice(sorted(scope.storages))
            rows = self.gen.rows_value // self.gen.tile_rows
            self.write_rows(scope, storage, self.const_index(self.gen.tile_rows * self.rng.randrange(rows)))
        elif kind == "loop":
            self.row_loop(scope, self.rng.choice(sorted(scope.storages)), depth, incore_body=False)
        elif kind == "incore":
            self.incore_scope(scope, depth)
        elif kind == "loop_incore":
            self.row_loop(scope, self.rng.choice(sorted(scope.storages)), depth, incore_body=True)
        elif kind == "kernel":
            self.launch_kernel(scope)
        elif kind == "spmd":
            self.spmd_scope(scope)
        elif kind == "create":
            op = self.emit(scope, tensor.CreateOp(self.ttype))
            name = f"buf{self.gen.next_name()}"
            scope.storages[name] = op.results[0]
            self.write_rows(scope, name, self.const_index(0))

    visible_helpers: Sequence[_Helper] = ()

    def helpers_visible(self) -> bool:
        return bool(self.visible_helpers)


def _changed(parent: _Scope, inner: _Scope) -> list[str]:
    """Writable tensors of `parent` that `inner` wrote (their latest version differs)."""
    return [name for name in sorted(parent.storages) if inner.storages[name] is not parent.storages[name]]


def _accepts(callee: FuncOp, actual: TensorType) -> bool:
    """Whether `callee`'s tensor parameters accept arguments of type `actual`."""
    for formal in callee.function_type.inputs.data:
        if isinstance(formal, TensorType) and not bind_shape(formal.get_shape(), actual.get_shape(), {}, strict=False):
            return False
    return True


def call_result_types(callee: FuncOp, args: Sequence[SSAValue]) -> list[Attribute]:
    """The result types of a call: the callee's, with its shape symbols bound from `args`."""
    binding: dict[str, int | str | None] = {}
    for formal, arg in zip(callee.function_type.inputs.data, args):
        if isinstance(formal, TensorType | TileType) and isinstance(arg.type, TensorType | TileType):
            bind_shape(formal.get_shape(), arg.type.get_shape(), binding, strict=False)
    return [substitute_symbols(t, binding) for t in callee.function_type.outputs.data]


class ProgramGenerator:
    def __init__(self, seed: int, config: GenConfig | None = None):
        self.seed = seed
        self.rng = random.Random(seed)
        self.config = config or GenConfig()
        self._names = 0
        rng = self.rng
        cfg = self.config
        if any(r % t for r in cfg.rows for t in cfg.tile_rows):
            raise ValueError(f"every tile_rows {cfg.tile_rows} must divide every rows {cfg.rows}")
        self.cols = rng.choice(cfg.cols)
        self.rows_value = rng.choice(cfg.rows)
        self.tile_rows = rng.choice(cfg.tile_rows)
        symbolic = self.config.symbolic if self.config.symbolic is not None else rng.random() < 0.5
        self.row_dim: int | str = "N" if symbolic else self.rows_value
        self.dims = {"N": self.rows_value} if symbolic else {}
        self.ttype = TensorType([self.row_dim, self.cols], f32)
        self.weight: SSAValue | None = None
        self.k: SSAValue | None = None
        self.kernels: list[_Kernel] = []
        self.main: FuncOp | None = None

    def next_name(self) -> int:
        self._names += 1
        return self._names

    def generate(self) -> GeneratedProgram:
        rng, cfg = self.rng, self.config
        module = ModuleOp([])
        helpers: list[_Helper] = []
        for i in range(rng.randint(0, cfg.max_helpers)):
            helper = self.helper(i, helpers)
            helpers.append(helper)
            module.body.block.add_op(helper.func)
        if cfg.incore_scopes and cfg.tiles:
            for i in range(rng.randint(0, cfg.max_kernels)):
                kernel = self.kernel(i)
                self.kernels.append(kernel)
                module.body.block.add_op(kernel.func)
        module.body.block.add_op(self.main_function(helpers))
        module.verify()
        return GeneratedProgram(module, "main", dict(self.dims), self.seed)

    def helper(self, index: int, earlier: Sequence[_Helper]) -> _Helper:
        rng = self.rng
        kind = FuncKind.INLINE if rng.random() < 0.8 else FuncKind.OPAQUE
        own_symbol = rng.random() < 0.5
        ttype = TensorType(["M", self.cols], f32) if own_symbol else self.ttype
        n_in = rng.randint(1, 2)
        has_out = rng.random() < 0.4
        inputs = [ttype] * (n_in + (1 if has_out else 0))
        directions = [ParamDirection.IN] * n_in + ([ParamDirection.OUT] if has_out else [])
        name = f"helper{index}" if rng.random() < 0.8 else f"helper{index}__"
        func = FuncOp(name, inputs, [], kind, directions)
        fb = _FuncBuilder(self, func, ttype)
        fb.visible_helpers = [h for h in earlier if _accepts(h.func, ttype)]
        args = func.body.block.args
        scope = _Scope(func.body.block, list(args[:n_in]), {"out": args[-1]} if has_out else {})
        for _ in range(rng.randint(1, self.config.max_helper_stmts)):
            fb.statement(scope, depth=1)
        n_pure = rng.randint(1, 2)
        returned = [rng.choice(scope.pool[n_in:] or scope.pool) for _ in range(n_pure)]
        if has_out:
            returned.append(scope.storages["out"])
        func.body.block.add_op(ReturnOp(*returned))
        func.update_function_type()
        return _Helper(name, func, n_in, has_out, n_pure, kind)

    def kernel(self, index: int) -> _Kernel:
        kind = self.rng.choice([FuncKind.INCORE, FuncKind.INCORE, FuncKind.AIV])
        func = FuncOp(f"kernel{index}", [self.ttype, self.ttype], [], kind, [ParamDirection.IN, ParamDirection.OUT])
        fb = _FuncBuilder(self, func, self.ttype)
        x, o = func.body.block.args
        scope = _Scope(func.body.block, [x], {"out": o}, in_incore=True)
        fb.row_loop(scope, "out", depth=1, incore_body=False)
        func.body.block.add_op(ReturnOp(scope.storages["out"]))
        func.update_function_type()
        return _Kernel(func.sym_name.data, func)

    def main_function(self, helpers: Sequence[_Helper]) -> FuncOp:
        rng, cfg = self.rng, self.config
        t = self.ttype
        with_weight = cfg.matmul and rng.random() < 0.4
        with_inout = rng.random() < 0.5
        inputs: list[Attribute] = [t, t]
        directions = [ParamDirection.IN, ParamDirection.IN]
        if with_weight:
            inputs.append(TensorType([self.cols, self.cols], f32))
            directions.append(ParamDirection.IN)
        inputs.append(IndexType())
        directions.append(ParamDirection.IN)
        inputs.append(t)
        directions.append(ParamDirection.OUT)
        if with_inout:
            inputs.append(t)
            directions.append(ParamDirection.INOUT)
        func = FuncOp("main", inputs, [], FuncKind.OPAQUE, directions)
        self.main = func
        args = list(func.body.block.args)
        x0, x1 = args[0], args[1]
        pos = 2
        if with_weight:
            self.weight = args[pos]
            pos += 1
        self.k = args[pos]
        storages = {"o0": args[pos + 1]}
        if with_inout:
            storages["o1"] = args[pos + 2]
        fb = _FuncBuilder(self, func, t)
        fb.visible_helpers = list(helpers)
        scope = _Scope(func.body.block, [x0, x1], storages)
        for _ in range(rng.randint(2, cfg.max_stmts)):
            fb.statement(scope, depth=0)
        returned = [scope.pool[-1]] if len(scope.pool) > 2 or rng.random() < 0.5 else []
        if rng.random() < 0.5:
            returned.append(scope.storages["o0"])
        func.body.block.add_op(ReturnOp(*returned))
        func.update_function_type()
        return func


def generate_program(seed: int, config: GenConfig | None = None) -> GeneratedProgram:
    """A random well-typed, verifying program (deterministic in `seed`)."""
    return ProgramGenerator(seed, config).generate()


def programs(config: GenConfig | None = None):
    """A hypothesis strategy of generated programs (shrinks toward small seeds)."""
    from hypothesis import strategies as st

    return st.integers(min_value=0, max_value=2**32 - 1).map(lambda s: generate_program(s, config))

