"""Compile-time values the frontend manipulates besides SSA values, and how the types of two
values relate (an argument and its parameter, the arguments of two call sites)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects.attributes import TaskIdType, TensorType, TileType

Value = Any  # SSAValue | Const | FuncRef | tuple | list | static Python object


@dataclass(frozen=True)
class Const:
    """A Python literal (int / float / bool) not yet materialised in the IR."""

    value: int | float | bool


@dataclass(frozen=True)
class FuncRef:
    """`self.f`: a reference to a function of the program (callee of a call or submit)."""

    name: str


@dataclass(frozen=True)
class Undefined:
    """A name that is not visible here, and why (defined only in one branch, in a loop...)."""

    reason: str


@dataclass(frozen=True)
class ScopeOption:
    """`pl.split(mode[, slot_num=])` / `pl.cross_core_slot(slot_num=)`: an item of
    `pl.at(..., optimizations=[...])`. `split` is the SplitMode member (None: not given)."""

    what: str
    split: object = None
    slot_num: int | None = None


def describe(value: object) -> str:
    """A short user-facing description of a frontend value."""
    if isinstance(value, SSAValue):
        return describe_type(value.type)
    if isinstance(value, Const):
        return f"the constant {value.value!r}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} values"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, ScopeOption):
        return value.what
    if isinstance(value, FuncRef):
        return f"the function '{value.name}'"
    return repr(value)


def describe_type(t: Attribute) -> str:
    if isinstance(t, TensorType):
        return f"a tensor {t}"
    if isinstance(t, TileType):
        return f"a tile {t}"
    if isinstance(t, TaskIdType):
        return "a task id"
    if t.name == "pypto.dist_tensor":
        return f"a distributed tensor {t}"
    if t.name == "pypto.window_buffer":
        return f"a window buffer {t}"
    if t.name == "pypto.task_ids":
        return f"an array of task ids {t}"
    if isinstance(t, IndexType):
        return "an index scalar"
    return f"a scalar {t}"


def join_types(a: Attribute, b: Attribute, param: str = "p") -> Attribute | None:
    """A type describing both `a` and `b`: differing dims become the symbol `<param>_d<i>`.

    A symbol (rather than `?`) keeps call results precise: each call site binds it to its
    argument's extent.
    """
    if a == b:
        return a
    if type(a) is not type(b) or not isinstance(a, TensorType | TileType):
        return None
    assert isinstance(b, TensorType | TileType)
    if a.element_type != b.element_type or a.rank != b.rank:
        return None
    if isinstance(a, TileType) and a.space != b.space:  # type: ignore[union-attr]
        return None
    dims = [x if x == y else f"{param}_d{i}" for i, (x, y) in enumerate(zip(a.get_shape(), b.get_shape()))]
    return a.with_shape(dims)


def types_compatible(formal: Attribute, actual: Attribute) -> bool:
    if formal == actual:
        return True
    if type(formal) is not type(actual) or not isinstance(formal, TensorType | TileType):
        return False
    assert isinstance(actual, TensorType | TileType)
    if formal.element_type != actual.element_type:
        return False
    if isinstance(formal, TileType) and formal.space != actual.space:  # type: ignore[union-attr]
        return False
    return A.bind_shape(formal.get_shape(), actual.get_shape(), {}, strict=False)
