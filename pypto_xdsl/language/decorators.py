"""`@pl.program`, `@pl.function`, `@pl.jit.inline`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pypto_xdsl.language.types import FunctionType


@dataclass(frozen=True)
class FunctionInfo:
    kind: FunctionType


def _mark(fn: Callable[..., Any], kind: FunctionType) -> Callable[..., Any]:
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise TypeError(f"@pl.function decorates a method, got {fn!r}")
    fn.__pl_function__ = FunctionInfo(kind)  # type: ignore[attr-defined]
    return fn


def function(
    fn: Callable[..., Any] | None = None,
    *,
    type: FunctionType = FunctionType.Opaque,  # noqa: A002  (PyPTO's keyword)
    scope_type: FunctionType | None = None,
) -> Any:
    """Mark a method of a `@pl.program` class as a pypto function.

    `@pl.function`, `@pl.function(type=pl.FunctionType.InCore)`; `scope_type=` is accepted as
    a synonym of `type=` (the seed documents use it).
    """
    kind = scope_type if scope_type is not None else type
    if not isinstance(kind, FunctionType):
        raise TypeError(f"@pl.function(type=...) expects a pl.FunctionType, got {kind!r}")
    if fn is not None:
        return _mark(fn, kind)
    return lambda f: _mark(f, kind)


def program(cls: type) -> Any:
    """Compile a class of `@pl.function` methods into a pypto program (`Program`)."""
    from pypto_xdsl.frontend.program import Program

    return Program.from_class(cls)


class _Jit:
    """`@pl.jit.inline`: shorthand for `@pl.function(type=pl.FunctionType.Inline)`."""

    @staticmethod
    def inline(fn: Callable[..., Any]) -> Callable[..., Any]:
        return _mark(fn, FunctionType.Inline)


jit = _Jit()
