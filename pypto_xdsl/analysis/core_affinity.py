"""Core affinity: which core of a core group runs each op of a kernel.

An Ascend 910B core group has a cube core (AIC: L1 `mat`, L0A `left`, L0B `right`, L0C
`acc`, the bias table, the matmul unit) and vector cores (AIV: the Unified Buffer `vec` and
the vector unit). Every op of an incore function is classified

* **cube** or **vector**: it runs on that core. Tile ops go by memory space, as in PyPTO's
  ExpandMixedKernel: an op that makes a tile runs where the tile lives (`tile.load` into
  `mat` is cube, into `vec` vector; a compute op on `vec` tiles is vector); one that makes no
  tile runs where its first tile operand lives (`tile.store` of an `acc` tile is cube).
  `tile.matmul`/`matmul_acc` (and the tensor forms) are cube; other tensor-level compute is
  vector. Cross-core ops run on their end of the ring;
* a **boundary**: a `tile.move` from a cube buffer to `vec` or back. It runs on both cores
  (a push on one, a pop on the other: `expand-mixed-kernel` lowers it);
* **shared**: everything that is neither — scalar arithmetic, constants, tensor views and
  allocations, `get_block_idx`, reads of single tensor elements: both cores compute it;
* **mixed**: a loop or branch holding ops of both cores (it exists on both).

Ops without a side of their own (scalar arithmetic, `tensor.read`, ...) take the side of
their operands: an `arith.addf` of a value read from a vector tile is vector. Values follow
their defining op, except tensors named through a write (`tile.store`'s result names the
stored-to tensor: both cores can name that storage, so it is shared). Loop-carried values
take the join of their initial and yielded values.

`classify(func)` returns the `Affinity` of every op and value; its `problem` is the first
obstacle to splitting the function, an `Unsplittable` naming the op (a value one core
computes and the other uses without a transfer, a loop over both cores whose bound one core
computes, a call, ...) — which matters only when the function is mixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from pypto_xdsl.dialects import cross_core, tensor, tile
from pypto_xdsl.dialects.attributes import MemorySpace, TensorType, TileType
from pypto_xdsl.dialects.cross_core import CUBE_SPACES, Pipe
from pypto_xdsl.dialects.program import CallOp, FuncOp, ReturnOp, SplitAivOp, SubmitOp
from pypto_xdsl.dialects.traits import aliased_operand


class Side(Enum):
    SHARED = "shared"
    CUBE = "cube"
    VECTOR = "vector"
    MIXED = "mixed"
    """A loop or branch holding ops of both cores, or a boundary move."""

    @property
    def other(self) -> Side:
        assert self in (Side.CUBE, Side.VECTOR)
        return Side.VECTOR if self is Side.CUBE else Side.CUBE

    @property
    def core(self) -> str:
        return {Side.CUBE: "cube (AIC)", Side.VECTOR: "vector (AIV)"}.get(self, self.value)


def join(a: Side, b: Side) -> Side:
    if a is Side.SHARED:
        return b
    if b is Side.SHARED or a is b:
        return a
    return Side.MIXED


def space_side(space: MemorySpace) -> Side:
    return Side.CUBE if space in CUBE_SPACES else Side.VECTOR


class Unsplittable(Exception):
    """A mixed kernel that cannot be split into an AIC and an AIV part, and why."""

    def __init__(self, reason: str, op: Operation | None = None, tensor_level: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.op = op
        self.tensor_level = tensor_level
        """The obstacle is tensor-level compute (left by convert-tensor-to-tile)."""

    @property
    def detail(self) -> str:
        """The reason and, when known, the op it is about, as the IR spells it."""
        if self.op is None:
            return self.reason
        return f"{self.reason}; at `{op_excerpt(self.op)}`"


_EXCERPT_LENGTH = 160


def op_excerpt(op: Operation) -> str:
    """The first line of `op` in the custom syntax (its regions elided), to point at it in a
    message; IR carries no source locations."""
    from io import StringIO

    from xdsl.printer import Printer

    stream = StringIO()
    Printer(stream=stream).print_op(op)
    line = stream.getvalue().strip().splitlines()[0].rstrip()
    if op.regions and any(r.blocks for r in op.regions):
        line = (line[:-1].rstrip() if line.endswith("{") else line) + " { ... }"
    if len(line) > _EXCERPT_LENGTH:
        line = line[: _EXCERPT_LENGTH - 3] + "..."
    return line


def describe(value: SSAValue) -> str:
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return f"result #{value.index} of '{value.op.name}'"


# Ops that make no compute of their own: allocations, views and sizes follow their operands.
_FOLLOWING_TENSOR_OPS = (
    tensor.CreateOp, tensor.SliceOp, tensor.ReshapeOp, tensor.TransposeOp, tensor.DimOp, tensor.ReadOp,
    tensor.SetValidShapeOp,
)
_WRITING_TENSOR_OPS = (tensor.AssembleOp, tensor.WriteOp)
_CUBE_OPS = (tile.MatmulOp, tile.MatmulAccOp, tile.MatmulBiasOp, tensor.MatmulOp, tensor.MatmulAccOp)
_SHARED_TILE_OPS = (tile.GetBlockIdxOp, tile.GetBlockNumOp, tile.GetSubBlockIdxOp)


def move_direction(op: tile.MoveOp) -> Pipe | None:
    """The pipe a `tile.move` crosses, None when it stays on one core."""
    src, dst = op.input.type, op.result.type
    assert isinstance(src, TileType) and isinstance(dst, TileType)
    a, b = space_side(src.space), space_side(dst.space)
    if a is b:
        return None
    return Pipe.C2V if a is Side.CUBE else Pipe.V2C


def intrinsic_side(op: Operation) -> Side | None:
    """The core an op runs on by its own nature; None when it follows its operands."""
    if isinstance(op, _CUBE_OPS):
        return Side.CUBE
    if isinstance(op, tile.MoveOp):
        if move_direction(op) is not None:
            return Side.MIXED
        t = op.input.type
        assert isinstance(t, TileType)
        return space_side(t.space)
    if isinstance(op, cross_core.PushOp | cross_core.SetFlagOp):
        return Side.CUBE if op.pipe_kind is Pipe.C2V else Side.VECTOR
    if isinstance(op, cross_core.PopOp | cross_core.WaitFlagOp):
        return Side.CUBE if op.pipe_kind is Pipe.V2C else Side.VECTOR
    if isinstance(op, _SHARED_TILE_OPS):
        return Side.SHARED
    if op.name.startswith("pypto.tile."):
        for r in op.results:
            if isinstance(r.type, TileType):
                return space_side(r.type.space)
        for o in op.operands:
            if isinstance(o.type, TileType):
                return space_side(o.type.space)
        return None
    if isinstance(op, SplitAivOp):
        return Side.VECTOR  # a region run once per AIV lane
    if op.name.startswith("pypto.tensor."):
        if isinstance(op, _FOLLOWING_TENSOR_OPS + _WRITING_TENSOR_OPS):
            return None
        return Side.VECTOR  # tensor-level compute other than matmul: the vector unit
    return None


def _is_storage_name(value: SSAValue) -> bool:
    """A tensor named through a write or a view: the same storage on both cores."""
    if not isinstance(value.type, TensorType):
        return False
    if isinstance(value, BlockArgument):
        return True
    op = value.owner
    return (
        aliased_operand(op) is not None
        or isinstance(op, tensor.CreateOp | tensor.SliceOp | tensor.ReshapeOp | tensor.TransposeOp)
        or isinstance(op, tensor.SetValidShapeOp)
        or isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp)
    )


def writes_memory(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is None or any(e.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE) for e in effects)


@dataclass
class Affinity:
    """Sides of the ops and values of one function."""

    ops: dict[Operation, Side] = field(default_factory=dict)
    values: dict[SSAValue, Side] = field(default_factory=dict)
    problem: Unsplittable | None = None
    """Why the function could not be split, should it be mixed (the first obstacle met)."""

    def of(self, op: Operation) -> Side:
        return self.ops.get(op, Side.SHARED)

    def value(self, v: SSAValue) -> Side:
        return self.values.get(v, Side.SHARED)

    @property
    def is_mixed(self) -> bool:
        sides = set(self.ops.values())
        return Side.MIXED in sides or {Side.CUBE, Side.VECTOR} <= sides

    @property
    def uses_cube(self) -> bool:
        return any(s in (Side.CUBE, Side.MIXED) for s in self.ops.values())


class _Classifier:
    def __init__(self, func: FuncOp):
        self.func = func
        self.aff = Affinity()

    def run(self) -> Affinity:
        self.block(self.func.body.block)
        return self.aff

    def _problem(self, e: Unsplittable) -> None:
        if self.aff.problem is None:
            self.aff.problem = e

    # ---- values

    def _set_value(self, v: SSAValue, side: Side) -> None:
        if isinstance(v.type, TensorType) and _is_storage_name(v):
            side = Side.SHARED if side is not Side.MIXED else side
        self.aff.values[v] = side

    def _operand_side(self, op: Operation, operands: Iterable[SSAValue]) -> Side:
        side = Side.SHARED
        first: SSAValue | None = None  # the operand that gave `side`
        for o in operands:
            s = self.aff.value(o)
            new = join(side, s)
            if new is Side.MIXED:
                assert first is not None
                self._problem(Unsplittable(
                    f"'{op.name}' combines {describe(first)}, computed on the {side.core} core, with "
                    f"{describe(o)}, computed on the {s.core} core; only tiles cross between the "
                    "cores (tile.move)",
                    op,
                ))
                continue
            if side is Side.SHARED and new is not Side.SHARED:
                first = o
            side = new
        return side

    # ---- ops

    def block(self, block: Block) -> Side:
        side = Side.SHARED
        for op in block.ops:
            side = join(side, self.op(op))
        return side

    def op(self, op: Operation) -> Side:
        if isinstance(op, scf.YieldOp | scf.ConditionOp | ReturnOp):
            self.aff.ops[op] = Side.SHARED
            return Side.SHARED
        if isinstance(op, scf.ForOp):
            return self._for(op)
        if isinstance(op, scf.IfOp):
            return self._if(op)
        if isinstance(op, scf.WhileOp):
            return self._while(op)
        if isinstance(op, CallOp | SubmitOp):
            self._problem(Unsplittable(f"'{op.name}' inside a kernel: calls cannot be given one core", op))
            self.aff.ops[op] = Side.SHARED
            return Side.SHARED
        side = intrinsic_side(op)
        if isinstance(op, SplitAivOp):
            inner = self.block(op.body.block)
            if inner in (Side.CUBE, Side.MIXED):
                self._problem(Unsplittable("a pypto.split_aiv region holds cube ops (its lanes are the AIV cores)", op))
        operands = self._operand_side(op, op.operands)
        if side is None:
            side = operands
            if side is Side.SHARED and isinstance(op, _WRITING_TENSOR_OPS):
                side = Side.VECTOR  # a write runs once: on the vector core's MTE3
            elif side is Side.SHARED and not op.regions and writes_memory(op) and not op.name.startswith("pypto."):
                self._problem(Unsplittable(
                    f"'{op.name}' writes memory but belongs to neither core (it would run twice)", op
                ))
        elif side in (Side.CUBE, Side.VECTOR) and operands not in (Side.SHARED, side):
            bad = next(o for o in op.operands if self.aff.value(o) is operands)
            tensor_level = isinstance(bad.type, TensorType) or op.name.startswith("pypto.tensor.")
            self._problem(Unsplittable(
                f"'{op.name}' runs on the {side.core} core but uses {describe(bad)}, which the "
                f"{operands.core} core computes"
                + (
                    " (tensor-level compute crosses cores only through a tensor in global memory: "
                    "convert-tensor-to-tile did not lower it)" if tensor_level else "; only tiles cross (tile.move)"
                ),
                op,
                tensor_level,
            ))
        self.aff.ops[op] = side
        for r in op.results:
            self._set_value(r, Side.SHARED if side is Side.MIXED else side)
        if isinstance(op, tile.MoveOp) and side is Side.MIXED:
            src, dst = op.operands[0].type, op.result.type
            assert isinstance(src, TileType) and isinstance(dst, TileType)
            self.aff.values[op.result] = space_side(dst.space)
            # the cube side of a c2v ring pushes from L0C or L1 only (Fixpipe / DataCopy)
            if space_side(src.space) is Side.CUBE and src.space not in (MemorySpace.ACC, MemorySpace.MAT):
                self._problem(Unsplittable(
                    f"'{op.name}' moves a '{src.space.value}' tile to the vector core: only 'acc' and "
                    "'mat' tiles cross from the cube core",
                    op,
                ))
        return side

    def _control(self, op: Operation, operands: Iterable[SSAValue], inner: Side, what: str) -> None:
        ctl = self._operand_side(op, operands)
        if inner is Side.MIXED and ctl is not Side.SHARED:
            self._problem(Unsplittable(
                f"'{op.name}' holds ops of both cores, but its {what} is computed on the {ctl.core} "
                "core only: both cores must be able to compute it",
                op,
            ))

    def _carried(self, op: Operation, index: int, a: Side, b: Side) -> Side:
        """Join `a`, the side of a loop's initial value (or of the branches so far), with `b`,
        that of a yielded value."""
        side = join(a, b)
        if side is Side.MIXED:
            if isinstance(op, scf.ForOp):
                name = describe(op.body.block.args[1 + index])
                how = f"starts on the {a.core} core and is updated on the {b.core} core"
            else:
                name = describe(op.results[index])
                how = f"comes from the {a.core} core in one branch and from the {b.core} core in another"
            self._problem(Unsplittable(
                f"'{op.name}' carries {name} (value #{index}), which {how}: a carried scalar stays "
                "on one core (only tiles cross, through tile.move)",
                op,
            ))
            return a
        return side

    def _for(self, op: scf.ForOp) -> Side:
        block = op.body.block
        carried = [self.aff.value(v) for v in op.iter_args]
        for _ in range(4):  # SHARED < CUBE/VECTOR: a fixed point within two rounds
            self.aff.values[block.args[0]] = Side.SHARED
            for arg, side in zip(block.args[1:], carried):
                self._set_value(arg, side)
            inner = self.block(block)
            term = block.last_op
            assert isinstance(term, scf.YieldOp)
            new = [
                self._carried(op, i, c, self.aff.value(y)) for i, (c, y) in enumerate(zip(carried, term.arguments))
            ]
            if new == carried:
                break
            carried = new
        side = join(self._operand_side(op, (op.lb, op.ub, op.step)), inner)
        self._control(op, (op.lb, op.ub, op.step), inner, "trip count")
        for r, s in zip(op.res, carried):
            self._set_value(r, s)
        self.aff.ops[op] = side
        return side

    def _if(self, op: scf.IfOp) -> Side:
        inner = Side.SHARED
        for region in op.regions:
            for block in region.blocks:
                inner = join(inner, self.block(block))
        self._control(op, (op.cond,), inner, "condition")
        side = join(self._operand_side(op, (op.cond,)), inner)
        yields = [b.last_op for r in op.regions for b in r.blocks]
        for i, r in enumerate(op.results):
            s = Side.SHARED
            for y in yields:
                assert isinstance(y, scf.YieldOp)
                s = self._carried(op, i, s, self.aff.value(y.arguments[i]))
            self._set_value(r, s)
        self.aff.ops[op] = side
        return side

    def _while(self, op: scf.WhileOp) -> Side:
        """A while loop stays on one core (or is shared): its trip count is data-dependent, so
        both halves could only run it in lockstep through the rings."""
        for arg in (*op.before_region.block.args, *op.after_region.block.args):
            self._set_value(arg, Side.SHARED)
        inner = join(self.block(op.before_region.block), self.block(op.after_region.block))
        if inner is Side.MIXED:
            self._problem(Unsplittable(
                "an scf.while holds ops of both cores: only scf.for loops and scf.if branches are split", op
            ))
        side = join(self._operand_side(op, op.arguments), inner)
        for r in op.results:
            self._set_value(r, side)
        self.aff.ops[op] = side
        return side


def classify(func: FuncOp) -> Affinity:
    """The side of every op and value of `func` (see the module docstring)."""
    return _Classifier(func).run()


def kernel_kind_for(aff: Affinity) -> str:
    """`aic` for a kernel that uses the cube only, `aiv` otherwise (vector or shared only)."""
    return "aic" if aff.uses_cube else "aiv"


__all__ = [
    "Affinity",
    "Side",
    "Unsplittable",
    "classify",
    "intrinsic_side",
    "join",
    "kernel_kind_for",
    "move_direction",
    "op_excerpt",
    "space_side",
]
