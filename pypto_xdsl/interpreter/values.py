"""Runtime values of the reference interpreter and their mapping from IR types.

* `!pypto.tensor<...>`: a numpy array with reference semantics (views share storage);
* `!pypto.tile<...>`: a numpy array owned by one op result (ops never write into a tile
  in place, except `tile.matmul_acc`, whose result names its accumulator operand);
* `!pypto.task_id`: a `TaskId`;
* `index` / integers: Python `int`; floats: Python `float` (arith) or numpy scalars.

`bf16` has no numpy dtype: it is carried as float32 rounded to bf16 precision after every op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from pypto_xdsl.dialects.attributes import Dim, TensorType, TileType, format_shape


class PyptoInterpretationError(InterpretationError):
    """A run-time error of a pypto program, naming the op (and function) where it happened."""

    def __init__(self, message: str, op: Operation | None = None, func: str | None = None):
        where = ""
        if op is not None:
            where = f"{op.name}"
            if func is not None:
                where += f" in @{func}"
            where += ": "
        super().__init__(where + message)
        self.op = op
        self.func = func
        self.detail = message


class Unwinding(BaseException):
    """An error of an op on its way out of the interpreter (see `api.PyptoInterpreter`)."""

    def __init__(self, error: Exception):
        super().__init__(error)
        self.error = error


@dataclass(eq=False)
class TaskId:
    """Handle of a task launched by `pypto.submit` or a `pypto.incore_scope ... task_id`."""

    number: int
    name: str
    deps: tuple[TaskId, ...] = ()
    done: bool = False
    deferred: tuple[DeferredCondition, ...] = ()
    """Completion conditions the task registered (`pypto.system.defer_wait`): its body has
    run, but the task completes only once each of them holds."""

    def unmet(self) -> DeferredCondition | None:
        """The first registered condition that does not hold (now), if any."""
        for condition in self.deferred:
            if not condition.holds():
                return condition
        return None

    def __repr__(self) -> str:
        return f"TaskId(#{self.number} {self.name}{' done' if self.done else ''})"


@dataclass(frozen=True, eq=False)
class DeferredCondition:
    """`signal[index] >= expected`, registered by `pypto.system.defer_wait`."""

    signal: np.ndarray
    index: tuple[int, ...]
    expected: int
    where: str
    """The registering op's signal operand and offsets, for diagnostics."""

    def holds(self) -> bool:
        return int(self.signal[self.index]) >= self.expected

    def describe(self) -> str:
        return f"{self.where} >= {self.expected} (the slot holds {int(self.signal[self.index])})"


@dataclass
class Frame:
    """One activation of a pypto.func: the symbol binding of its shapes."""

    func: str
    binding: dict[str, int] = field(default_factory=dict)
    lenient: bool = False
    """Inline functions may bind one symbol to different extents per site."""
    ambiguous: set[str] = field(default_factory=set)
    origins: dict[str, str] = field(default_factory=dict)
    """Where each bound symbol took its extent (`dimension 0 of argument #0 (%x)`), for
    messages about a second value that disagrees."""
    readonly: list[tuple[int, np.ndarray]] = field(default_factory=list)
    """(index, array) of the tensor arguments passed to `in` parameters."""


def bf16_round(a: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bf16 (ties to even), keeping dtype float32 and the
    shape (also of a rank-0 array, which `ascontiguousarray` would make rank 1)."""
    shape = np.shape(a)
    a = np.ascontiguousarray(a, dtype=np.float32).reshape(shape)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = (rounded & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, out)


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype that carries element type `t`."""
    if isinstance(t, Float32Type | BFloat16Type):
        return np.dtype(np.float32)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = t.signedness.data == Signedness.UNSIGNED
        return np.dtype(f"{'u' if unsigned else ''}int{width}")
    raise NotImplementedError(f"no numpy dtype for element type {t}")


MAX_TENSOR_BYTES = 1 << 33
"""Largest tensor the interpreter allocates (8 GiB): a larger shape is an error that says
so, instead of an allocation the machine cannot back (numpy reserves zeroed memory lazily,
so the failure would come later, as the process being killed)."""


def zeros(shape: Sequence[int], element_type: Attribute) -> np.ndarray:
    """A zero-filled array of `element_type` (its carrier dtype), at most `MAX_TENSOR_BYTES`."""
    dtype = numpy_dtype(element_type)
    check_allocation(shape, dtype)
    return np.zeros(shape, dtype=dtype)


class TensorTooLarge(ValueError):
    """A tensor beyond `MAX_TENSOR_BYTES`."""


def check_allocation(shape: Sequence[int], dtype: np.dtype) -> None:
    count = 1
    for n in shape:
        count *= int(n)
    size = count * np.dtype(dtype).itemsize
    if size > MAX_TENSOR_BYTES:
        raise TensorTooLarge(
            f"a tensor of shape {list(shape)} and dtype {np.dtype(dtype)} needs {size / 2**30:,.1f} GiB; "
            f"the interpreter holds tensors of at most {MAX_TENSOR_BYTES / 2**30:.0f} GiB"
        )


def coerce(a: np.ndarray, element_type: Attribute) -> np.ndarray:
    """Convert `a` to the carrier dtype of `element_type` (rounding bf16)."""
    dtype = numpy_dtype(element_type)
    if a.dtype != dtype:
        a = a.astype(dtype)
    if isinstance(element_type, BFloat16Type):
        a = bf16_round(a)
    return a


def to_scalar(value: object, element_type: Attribute) -> object:
    """A Python scalar of `element_type` (used for scalar operands and `tensor.read`)."""
    dtype = numpy_dtype(element_type)
    v = np.asarray(value).astype(dtype)
    if isinstance(element_type, BFloat16Type):
        v = bf16_round(v.reshape(1))[0]
    return v.item()


def resolve_shape(
    shape: Sequence[Dim], binding: Mapping[str, int], dynamic: Sequence[int] = ()
) -> tuple[int, ...] | None:
    """Concrete extents of `shape`; `?` dims take values from `dynamic` in order.

    Returns None when a symbol is unbound or `dynamic` runs out.
    """
    out: list[int] = []
    dyn = list(dynamic)
    for d in shape:
        if isinstance(d, int):
            out.append(d)
        elif isinstance(d, str):
            if d not in binding:
                return None
            out.append(binding[d])
        else:
            if not dyn:
                return None
            out.append(dyn.pop(0))
    return tuple(out)


def describe(t: Attribute) -> str:
    if isinstance(t, TensorType | TileType):
        return f"{format_shape(t.get_shape())}"
    return str(t)


def is_shaped(t: Attribute) -> bool:
    return isinstance(t, TensorType | TileType)
