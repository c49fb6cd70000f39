"""Random well-typed pypto programs, the fuzz target of the pass pipelines and the backend.

`generate_program(seed)` builds (with the Python op builders, never text) a module with:

* a chain of helper functions (mostly `inline`, some `opaque`): helper i may call helpers j < i,
  so the call graph is acyclic; helpers may take an `out` parameter they write into
  (`tensor.assemble`) and return; their parameter types may use their own shape symbol `M`
  (so call sites specialise them) or `?` (results are sliced back to the caller's type);
* explicit kernels (`incore`, `aiv`; `aic` cube kernels multiplying by a weight) — tile load /
  compute / store loops — called with `pypto.call` or launched with `pypto.submit` (`deps`);
* an `opaque` or `orchestration` `@main(x0, x1, [w], k, [rank-0, rank-1, rank-3 inputs],
  out o0, [inout o1], [out o3])` whose body mixes whole-tensor compute, several call sites per
  helper, control flow nested up to `max_depth` (`scf.for` with zero or non-zero starts and
  steps that divide the rows or not, `scf.while`, `scf.if` with and without results and
  else), `pypto.incore_scope` (tile loops, tensor compute, helper calls, `pypto.split_aiv`,
  task ids and deps), SPMD scopes (`get_block_idx`, `get_block_num`), `tensor.create` (static
  and `?` extents), `slice`, `assemble`, `read`, `dim`, `cast`, `matmul` (tiles staged through
  `mat`), row reductions and expands, and scalar `arith`;
* an element type among f32 (most), f16, bf16, i32, i16, i8; a symbolic row dimension `N`
  (bound by `GeneratedProgram.dims`) or static shapes, small, unaligned or large.

The statements are `pypto_xdsl.fuzz.statements`. Every generated module verifies (checked on
generation).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerType,
    ModuleOp,
    f32,
)
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection, TensorType
from pypto_xdsl.dialects.program import FuncOp, ReturnOp
from pypto_xdsl.fuzz.statements import (
    FuncBuilder,
    Helper,
    Kernel,
    Scope,
    accepts,
    call_result_types,
)

__all__ = ["GenConfig", "GeneratedProgram", "call_result_types", "generate_program", "programs"]


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
    rows: tuple[int, ...] = (4, 8, 12, 16)
    """Choices of the row extent of the tensors (the value of N when symbolic)."""
    cols: tuple[int, ...] = (4, 8, 5, 13, 32)
    tile_rows: tuple[int, ...] = (2, 4)
    """Row-block sizes of loops and tiles; each must divide every choice of `rows`."""
    large: float = 0.04
    """Probability of a large shape instead: [64, 128] in blocks of 16 or 32 rows."""
    max_depth: int = 3
    """Nesting of control flow and scopes in @main."""
    dtypes: tuple[tuple[str, float], ...] = (
        ("f32", 6.0), ("f16", 1.0), ("bf16", 1.0), ("i32", 1.0), ("i16", 0.5), ("i8", 0.5),
    )
    """Element types of the program's tensors, with their weights."""
    control_flow: bool = True
    """`scf.while` and `scf.if` without results."""
    odd_loops: bool = True
    """Loops with a non-zero start or a step that does not divide the rows."""
    arith: bool = True
    """Scalar arithmetic (row offsets, scalar operands)."""
    casts: bool = True
    split_aiv: bool = True
    ranks: bool = True
    """Rank-0, rank-1 and rank-3 inputs (and a rank-3 output) of @main."""
    dynamic_dims: bool = True
    """`?` extents: helper parameters, `tensor.create(%n)`."""
    memory_spaces: bool = True
    """`mat` staging of cube operands, `bias` round trips."""
    kinds: bool = True
    """`aic` kernels and an `orchestration` @main."""
    backend: bool = False
    """Programs the Ascend C backend lowers (its documented subset: @main only launches
    kernels and scopes and returns its out parameters, no scalar reads, tile shapes it can
    lay out); with `backend_config()` for the other knobs."""


def backend_config(**overrides) -> GenConfig:
    """A `GenConfig` for the backend's subset: static, aligned shapes (cube tiles of 16),
    f32/f16/i32, inline helpers only, no features it declines (split_aiv, bf16, `?` dims, ranks
    other than 2, mixed vector/cube kernels)."""
    values = dict(
        backend=True, symbolic=False, rows=(16, 32, 64), cols=(16, 32, 64), tile_rows=(8, 16), large=0.0,
        dtypes=(("f32", 4.0), ("f16", 1.0), ("i32", 1.0)), matmul=False, memory_spaces=False, split_aiv=False,
        ranks=False, dynamic_dims=False, control_flow=True, casts=True,
    )
    values.update(overrides)
    return GenConfig(**values)


_DTYPES: dict[str, Attribute] = {
    "f32": Float32Type(), "f16": Float16Type(), "bf16": BFloat16Type(),
    "i32": IntegerType(32), "i16": IntegerType(16), "i8": IntegerType(8),
}


@dataclass
class GeneratedProgram:
    module: ModuleOp
    entry: str
    dims: dict[str, int]
    seed: int

    def __str__(self) -> str:
        return str(self.module)


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
        if rng.random() < cfg.large:
            self.rows_value, self.cols, self.tile_rows = 64, 128, rng.choice([16, 32])
        symbolic = self.config.symbolic if self.config.symbolic is not None else rng.random() < 0.5
        self.row_dim: int | str = "N" if symbolic else self.rows_value
        self.dims = {"N": self.rows_value} if symbolic else {}
        names, weights = zip(*cfg.dtypes)
        self.dtype: Attribute = _DTYPES[rng.choices(names, weights)[0]]
        self.ttype = TensorType([self.row_dim, self.cols], self.dtype)
        self.with_weight = cfg.matmul and isinstance(self.dtype, Float32Type) and rng.random() < 0.4
        if cfg.backend and self.with_weight:  # only aic kernels multiply: cube tiles of 16
            self.with_weight = self.tile_rows % 16 == 0 and self.cols % 16 == 0
        self.weight: SSAValue | None = None
        self.k: SSAValue | None = None
        self.kernels: list[Kernel] = []
        self.main: FuncOp | None = None
        self.ranked: dict[str, SSAValue] = {}
        """@main's rank-0/1/3 inputs by name."""

    def next_name(self) -> int:
        self._names += 1
        return self._names

    def generate(self) -> GeneratedProgram:
        rng, cfg = self.rng, self.config
        module = ModuleOp([])
        helpers: list[Helper] = []
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

    def helper(self, index: int, earlier: list[Helper]) -> Helper:
        rng = self.rng
        kind = FuncKind.INLINE if rng.random() < 0.8 or self.config.backend else FuncKind.OPAQUE
        shape_kind = rng.random()
        dynamic = self.config.dynamic_dims and shape_kind < 0.15
        if dynamic:
            ttype = TensorType([None, self.cols], self.dtype)
        elif shape_kind < 0.55:
            ttype = TensorType(["M", self.cols], self.dtype)
        else:
            ttype = self.ttype
        n_in = rng.randint(1, 2)
        has_out = not dynamic and rng.random() < 0.4
        inputs = [ttype] * (n_in + (1 if has_out else 0))
        directions = [ParamDirection.IN] * n_in + ([ParamDirection.OUT] if has_out else [])
        name = f"helper{index}" if rng.random() < 0.8 else f"helper{index}__"
        func = FuncOp(name, inputs, [], kind, directions)
        fb = FuncBuilder(self, func, ttype)
        fb.visible_helpers = [h for h in earlier if accepts(h.func, ttype) and not (h.dynamic and not dynamic)]
        args = func.body.block.args
        scope = Scope(func.body.block, list(args[:n_in]), {"out": args[-1]} if has_out else {})
        for _ in range(rng.randint(1, self.config.max_helper_stmts)):
            fb.statement(scope, depth=self.config.max_depth - 1)
        n_pure = rng.randint(1, 2)
        returned = [rng.choice(scope.pool[n_in:] or scope.pool) for _ in range(n_pure)]
        if has_out:
            returned.append(scope.storages["out"])
        func.body.block.add_op(ReturnOp(*returned))
        func.update_function_type()
        return Helper(name, func, n_in, has_out, n_pure, kind, dynamic)

    def kernel(self, index: int) -> Kernel:
        cube = self.config.kinds and self.with_weight and self.rng.random() < 0.4 and (
            not self.config.backend or self.tile_rows % 16 == 0
        )
        if cube:
            return self.cube_kernel(index)
        kind = self.rng.choice([FuncKind.INCORE, FuncKind.INCORE, FuncKind.AIV])
        func = FuncOp(f"kernel{index}", [self.ttype, self.ttype], [], kind, [ParamDirection.IN, ParamDirection.OUT])
        fb = FuncBuilder(self, func, self.ttype)
        x, o = func.body.block.args
        scope = Scope(func.body.block, [x], {"out": o}, in_incore=True)
        fb.row_loop(scope, "out", depth=1, incore_body=False)
        if self.config.split_aiv and self.rows_value >= 2 * self.tile_rows and self.rng.random() < 0.2:
            fb.split_aiv(scope)
        func.body.block.add_op(ReturnOp(scope.storages["out"]))
        func.update_function_type()
        return Kernel(func.sym_name.data, func)

    def cube_kernel(self, index: int) -> Kernel:
        """An `aic` kernel: each row block of `x` times the weight, through the cube."""
        from xdsl.dialects import scf

        from pypto_xdsl.dialects import tile
        from pypto_xdsl.dialects.attributes import MemorySpace, TileType

        wtype = TensorType([self.cols, self.cols], f32)
        func = FuncOp(
            f"kernel{index}", [self.ttype, wtype, self.ttype], [], FuncKind.AIC,
            [ParamDirection.IN, ParamDirection.IN, ParamDirection.OUT],
        )
        fb = FuncBuilder(self, func, self.ttype)
        x, w, o = func.body.block.args
        scope = Scope(func.body.block, [x], {"out": o}, in_incore=True)
        from xdsl.ir import Block

        body = Block(arg_types=[IndexType(), self.ttype])
        inner = scope.child(body)
        c0 = fb.const_index(0)
        row, acc_in = body.args
        tr, cols = self.tile_rows, self.cols
        a = fb.value(inner, tile.LoadOp(x, [row, c0], TileType([tr, cols], f32, MemorySpace.MAT)))
        b = fb.value(inner, tile.LoadOp(w, [c0, c0], TileType([cols, cols], f32, MemorySpace.MAT)))
        left = fb.value(inner, tile.MoveOp(a, MemorySpace.LEFT))
        right = fb.value(inner, tile.MoveOp(b, MemorySpace.RIGHT))
        acc = fb.value(inner, tile.MatmulOp(left, right))
        stored = fb.value(inner, tile.StoreOp(acc, acc_in, [row, c0]))
        body.add_op(scf.YieldOp(stored))
        loop = fb.emit(scope, scf.ForOp(c0, fb.rows(scope, o), fb.const_index(tr), [o], body))
        func.body.block.add_op(ReturnOp(loop.results[0]))
        func.update_function_type()
        return Kernel(func.sym_name.data, func, takes_weight=True)

    def main_function(self, helpers: list[Helper]) -> FuncOp:
        rng, cfg = self.rng, self.config
        t = self.ttype
        with_inout = rng.random() < 0.5
        inputs: list[Attribute] = [t, t]
        directions = [ParamDirection.IN, ParamDirection.IN]
        if self.with_weight:
            inputs.append(TensorType([self.cols, self.cols], f32))
            directions.append(ParamDirection.IN)
        inputs.append(IndexType())
        directions.append(ParamDirection.IN)
        ranked = {}
        if cfg.ranks and rng.random() < 0.3:
            ranked = {
                "s0": TensorType([], self.dtype),
                "v1": TensorType([self.cols], self.dtype),
                "t3": TensorType([2, self.row_dim, self.cols], self.dtype),
            }
            inputs += ranked.values()
            directions += [ParamDirection.IN] * len(ranked)
        inputs.append(t)
        directions.append(ParamDirection.OUT)
        if with_inout:
            inputs.append(t)
            directions.append(ParamDirection.INOUT)
        with_o3 = bool(ranked) and rng.random() < 0.5
        if with_o3:
            inputs.append(ranked["t3"])
            directions.append(ParamDirection.OUT)
        kind = FuncKind.ORCHESTRATION if cfg.kinds and rng.random() < 0.25 else FuncKind.OPAQUE
        func = FuncOp("main", inputs, [], kind, directions)
        self.main = func
        args = list(func.body.block.args)
        x0, x1 = args[0], args[1]
        pos = 2
        if self.with_weight:
            self.weight = args[pos]
            pos += 1
        self.k = args[pos]
        pos += 1
        for name in ranked:
            self.ranked[name] = args[pos]
            pos += 1
        storages = {"o0": args[pos]}
        pos += 1
        if with_inout:
            storages["o1"] = args[pos]
            pos += 1
        fb = FuncBuilder(self, func, t)
        fb.visible_helpers = list(helpers)
        scope = Scope(func.body.block, [x0, x1], storages)
        if with_o3:
            fb.o3 = args[pos]
        for _ in range(rng.randint(2, cfg.max_stmts)):
            fb.statement(scope, depth=0)
        returned = [scope.pool[-1]] if (len(scope.pool) > 2 or rng.random() < 0.5) and not cfg.backend else []
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

