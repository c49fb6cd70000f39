"""Compile-time values the frontend manipulates besides SSA values."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue

from pypto_xdsl.dialects.attributes import TaskIdType, TensorType, TileType


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
    if isinstance(t, IndexType):
        return "an index scalar"
    return f"a scalar {t}"
