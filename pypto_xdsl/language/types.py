"""Type and enum markers of the DSL: `pl.Tensor[[64, N], pl.FP32]`, `pl.Out[...]`, ..."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from pypto_xdsl.dialects import attributes as A

# --------------------------------------------------------------------------- dtypes


@dataclass(frozen=True)
class DataType:
    """An element / scalar type: `pl.FP32`, `pl.INDEX`, ..."""

    name: str

    def to_ir(self) -> Attribute:
        return _DTYPE_IR[self.name]()

    def __repr__(self) -> str:
        return f"pl.{self.name}"


_DTYPE_IR = {
    "FP32": Float32Type,
    "FP16": Float16Type,
    "BF16": BFloat16Type,
    "BOOL": lambda: IntegerType(1),
    "INT8": lambda: IntegerType(8),
    "INT16": lambda: IntegerType(16),
    "INT32": lambda: IntegerType(32),
    "INT64": lambda: IntegerType(64),
    "UINT8": lambda: IntegerType(8, Signedness.UNSIGNED),
    "UINT16": lambda: IntegerType(16, Signedness.UNSIGNED),
    "UINT32": lambda: IntegerType(32, Signedness.UNSIGNED),
    "UINT64": lambda: IntegerType(64, Signedness.UNSIGNED),
    "INDEX": IndexType,
}

FP32 = DataType("FP32")
FP16 = DataType("FP16")
BF16 = DataType("BF16")
BOOL = DataType("BOOL")
INT8 = DataType("INT8")
INT16 = DataType("INT16")
INT32 = DataType("INT32")
INT64 = DataType("INT64")
UINT8 = DataType("UINT8")
UINT16 = DataType("UINT16")
UINT32 = DataType("UINT32")
UINT64 = DataType("UINT64")
INDEX = DataType("INDEX")


def dtype_from_ir(t: Attribute) -> DataType | None:
    for name, factory in _DTYPE_IR.items():
        if factory() == t:
            return DataType(name)
    return None


# --------------------------------------------------------------------------- enums


class FunctionType(Enum):
    Opaque = A.FuncKind.OPAQUE
    Inline = A.FuncKind.INLINE
    InCore = A.FuncKind.INCORE
    AIC = A.FuncKind.AIC
    AIV = A.FuncKind.AIV
    Orchestration = A.FuncKind.ORCHESTRATION
    Graph = A.FuncKind.GRAPH


class MemorySpace(Enum):
    Vec = A.MemorySpace.VEC
    Mat = A.MemorySpace.MAT
    Left = A.MemorySpace.LEFT
    Right = A.MemorySpace.RIGHT
    Acc = A.MemorySpace.ACC
    Bias = A.MemorySpace.BIAS


Mem = MemorySpace


class Level(Enum):
    AIV = A.Level.AIV
    AIC = A.Level.AIC
    CORE_GROUP = A.Level.CORE_GROUP
    CHIP = "chip"
    """The whole chip: where orchestration functions run (`@pl.function(level=pl.Level.CHIP,
    role=pl.Role.Orchestrator)`); not a `pl.at` scope level here."""
    HOST = "host"
    """The host of a rank group: `@pl.jit.host` functions run there. PyPTO's HOST-level
    `@pl.function`s of a `@pl.program` (orchestrators, sub-worker callbacks) are not
    modelled: naming the level there is a located error."""


class Role(Enum):
    """Who a function is at its level (PyPTO's Role)."""

    Orchestrator = "orchestrator"
    SubWorker = "sub_worker"


class SplitMode(Enum):
    NONE = A.SplitMode.NONE
    UP_DOWN = A.SplitMode.UP_DOWN
    LEFT_RIGHT = A.SplitMode.LEFT_RIGHT


class PadValue(Enum):
    """`pl.PadValue.zero / max / min`: what `pl.tile.fillpad` writes outside the valid shape."""

    zero = A.PadValue.ZERO
    max = A.PadValue.MAX
    min = A.PadValue.MIN


class AtomicType(Enum):
    """`atomic=pl.AtomicType.Add` on `pl.store` / `pl.assemble`: add into global memory."""

    None_ = A.AtomicKind.NONE
    Add = A.AtomicKind.ADD


class TensorLayout(Enum):
    """`pl.TensorLayout.ND` (row-major, the layout of every tensor here); PyPTO's `DN`/`NZ`
    layouts are recognised and rejected."""

    ND = "ND"
    DN = "DN"
    NZ = "NZ"


# --------------------------------------------------------------------------- dynamic dims


@dataclass(frozen=True)
class DynVar:
    """`N = pl.dynamic("N")`: a named symbolic dimension; `pl.dynamic("N", max=4096)` also
    bounds it (buffers are sized for the bound; a larger extent is an error at the call)."""

    name: str
    max: int | None = None

    def __repr__(self) -> str:
        bound = f", max={self.max}" if self.max is not None else ""
        return f"pl.dynamic({self.name!r}{bound})"


def dynamic(name: str, max: int | None = None) -> DynVar:
    """A dynamic dimension named `name`, optionally bounded by `max` (the largest extent)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"pl.dynamic expects an identifier, got {name!r}")
    if max is not None and (isinstance(max, bool) or not isinstance(max, int) or max < 1):
        raise ValueError(f"pl.dynamic({name!r}, max=...) takes a positive integer bound, got {max!r}")
    return DynVar(name, max)


# --------------------------------------------------------------------------- type specs


class TypeError_(Exception):
    """A malformed type annotation (reported by the frontend as a ParserError)."""


def _dims(shape: object) -> list[A.Dim]:
    if not isinstance(shape, list | tuple):
        raise TypeError_(f"a shape must be a list of dimensions, got {shape!r}")
    dims: list[A.Dim] = []
    for d in shape:
        if isinstance(d, DynVar):
            dims.append(d.name)
        elif isinstance(d, bool) or not isinstance(d, int | None.__class__):
            raise TypeError_(f"a dimension must be an int or pl.dynamic(...), got {d!r}")
        elif d is not None and d < 0:
            raise TypeError_(f"a dimension must be non-negative, got {d}")
        else:
            dims.append(d)
    return dims


def _dtype(dtype: object) -> DataType:
    if not isinstance(dtype, DataType):
        raise TypeError_(f"expected a dtype such as pl.FP32, got {dtype!r}")
    return dtype


def dim_bounds(shape: object) -> tuple[tuple[str, int], ...]:
    """The `(name, max)` of every bounded `pl.dynamic` in a shape; one name bounded two ways
    is an error."""
    found: dict[str, int] = {}
    for d in shape if isinstance(shape, list | tuple) else ():
        if isinstance(d, DynVar) and d.max is not None:
            if found.get(d.name, d.max) != d.max:
                raise TypeError_(f"the dynamic dimension {d.name} has the bounds {found[d.name]} and {d.max}")
            found[d.name] = d.max
    return tuple(found.items())


@dataclass(frozen=True)
class TypeSpec:
    """A resolved DSL type annotation: its IR type and its parameter direction."""

    ir: Attribute
    direction: A.ParamDirection = A.ParamDirection.IN
    any_space: bool = False
    """`pl.Tile[[...], dtype]` without a memory space: an annotated assignment accepts a tile
    of any space (a parameter's tile is `vec`)."""
    bounds: tuple[tuple[str, int], ...] = ()
    """`(name, max)` of the bounded `pl.dynamic` dimensions of the type."""

    def __repr__(self) -> str:
        return f"TypeSpec({self.ir}, {self.direction.value})"


@dataclass(frozen=True)
class TensorView:
    """`pl.TensorView(valid_shape=..., layout=...)`, the optional third item of `pl.Tensor[...]`.

    Tensors here are row-major (`pl.TensorLayout.ND`): another layout or a stride is rejected
    when the annotation is read. A `valid_shape` (PyPTO's partially valid tensor view, e.g.
    `[Q, VALID_LEN]` for a block whose tail columns are padding) is accepted and checked
    against the shape; the valid region itself travels with the argument (the caller's
    `pl.slice(..., valid_shape=...)`), as in PyPTO, where it is bound from the tensor passed."""

    valid_shape: object = None
    layout: object = None
    stride: object = None

    def check(self, shape: object = None) -> None:
        if self.layout not in (None, TensorLayout.ND):
            raise TypeError_(
                f"pl.TensorView(layout={self.layout!r}) is not supported: tensors are row-major "
                f"(pl.TensorLayout.ND)"
            )
        if self.stride is not None:
            raise TypeError_(
                "pl.TensorView(stride=...) is not supported: tensors are dense and row-major here"
            )
        if self.valid_shape is None:
            return
        valid = self.valid_shape
        if not isinstance(valid, list | tuple):
            raise TypeError_(f"pl.TensorView(valid_shape=...) must be a list of dimensions, got {valid!r}")
        dims = _dims(shape) if shape is not None else None
        if dims is not None and len(valid) != len(dims):
            raise TypeError_(
                f"pl.TensorView(valid_shape={list(valid)!r}) has {len(valid)} entries for a rank-{len(dims)} "
                f"tensor"
            )
        for i, v in enumerate(valid):
            if isinstance(v, DynVar):
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise TypeError_(
                    f"entry {i} of pl.TensorView(valid_shape=...) must be an int or pl.dynamic(...), got {v!r}"
                )
            if dims is not None and isinstance(dims[i], int) and v > dims[i]:
                raise TypeError_(
                    f"pl.TensorView(valid_shape={list(valid)!r}) exceeds the tensor's shape in dimension {i} "
                    f"({v} > {dims[i]})"
                )


class Tensor:
    """`pl.Tensor[[64, N], pl.FP32]` (optionally `pl.Tensor[[64, N], pl.FP32, pl.TensorView(...)]`)"""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        if isinstance(item, tuple) and len(item) == 3 and isinstance(item[2], TensorView):
            item[2].check(item[0])
            item = item[:2]
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError_("pl.Tensor takes [shape, dtype], e.g. pl.Tensor[[64, 128], pl.FP32]")
        dtype = _dtype(item[1])
        if dtype is INDEX or dtype == INDEX:
            raise TypeError_("tensor elements cannot be pl.INDEX")
        return TypeSpec(A.TensorType(_dims(item[0]), dtype.to_ir()), bounds=dim_bounds(item[0]))


class Tile:
    """`pl.Tile[[64, 64], pl.FP32]` or `pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]`"""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            raise TypeError_("pl.Tile takes [shape, dtype] or [shape, dtype, memory space]")
        dtype = _dtype(item[1])
        if dtype == INDEX:
            raise TypeError_("tile elements cannot be pl.INDEX")
        space = A.MemorySpace.VEC
        if len(item) == 3:
            if not isinstance(item[2], MemorySpace):
                raise TypeError_(f"expected a memory space such as pl.Mem.Vec, got {item[2]!r}")
            space = item[2].value
        return TypeSpec(
            A.TileType(_dims(item[0]), dtype.to_ir(), space), any_space=len(item) == 2, bounds=dim_bounds(item[0])
        )


class Scalar:
    """`pl.Scalar[pl.INDEX]`, `pl.Scalar[pl.FP32]`"""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        return TypeSpec(_dtype(item).to_ir())


class Out:
    """`pl.Out[pl.Tensor[...]]`: a parameter the function writes (direction `out`)."""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        return _with_direction(item, A.ParamDirection.OUT)


class InOut:
    """`pl.InOut[pl.Tensor[...]]`: a parameter the function reads and writes."""

    def __class_getitem__(cls, item: object) -> TypeSpec:
        return _with_direction(item, A.ParamDirection.INOUT)


@dataclass(frozen=True)
class UntypedDirection:
    """A parameter whose direction is known and whose type is inferred: `pl.Out[...]`, and the
    bare `pl.Tensor` / `pl.Out[pl.Tensor]` of `@pl.jit` functions (shape and dtype come from
    the call's arguments)."""

    direction: A.ParamDirection = A.ParamDirection.IN


def _with_direction(item: object, direction: A.ParamDirection) -> TypeSpec | UntypedDirection:
    if item is Ellipsis or item is Tensor:
        return UntypedDirection(direction)
    if not isinstance(item, TypeSpec):
        raise TypeError_(f"pl.{direction.value.capitalize()}[...] expects a type, got {item!r}")
    if item.direction != A.ParamDirection.IN:
        raise TypeError_("parameter directions cannot be nested")
    return TypeSpec(item.ir, direction, bounds=item.bounds)


_PYTHON_SCALARS: dict[object, DataType] = {bool: BOOL, int: INDEX, float: FP32}


def to_type_spec(value: object) -> TypeSpec | UntypedDirection:
    """Interpret an evaluated annotation."""
    if isinstance(value, TypeSpec | UntypedDirection):
        return value
    if value is Tensor or value is Scalar:  # bare `pl.Tensor` / `pl.Scalar`: typed by the argument
        return UntypedDirection()
    if isinstance(value, DataType):  # `x: pl.INDEX` shorthand for a scalar
        return TypeSpec(value.to_ir())
    if value in _PYTHON_SCALARS:  # `n: int`, `scale: float`, `flag: bool`
        return TypeSpec(_PYTHON_SCALARS[value].to_ir())
    raise TypeError_(f"not a pl type: {value!r}")


# Bare names for `from pypto_xdsl.language import InCore` (the seed documents use them).
Opaque = FunctionType.Opaque
Inline = FunctionType.Inline
InCore = FunctionType.InCore
Orchestration = FunctionType.Orchestration
CORE_GROUP = Level.CORE_GROUP
