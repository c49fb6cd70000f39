"""`@pl.program`, `@pl.function` and `@pl.jit` (with `.incore`, `.inline`, `.opaque`, `.graph`).

Decorators only record what the user wrote: `@pl.function` marks a method (or a module-level
function a program calls by name), `@pl.jit...` wraps a function in a `JitFunction`.
Compiling and running happen in `pypto_xdsl.runtime`, loaded the first time a jit function is
called or inspected. A decorator used wrongly (`@pl.function(1)`, `@pl.function(type=3)`,
`@pl.program` twice, an unknown keyword) raises a `ParserError` located at the user's line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pypto_xdsl.frontend.errors import UnknownNameError
from pypto_xdsl.frontend.locate import did_you_mean, located, user_frame
from pypto_xdsl.language.types import FunctionType, Level, Role

DEF_LOCALS = "__pypto_def_locals__"
"""Attribute of a decorated function: the locals of the function that defined it, when it was
defined inside one (a factory): string annotations (`from __future__ import annotations`) may
name them, and Python keeps no other reference to them."""


def _definer_locals() -> dict[str, Any]:
    frame = user_frame(sys._getframe(1))
    if frame is None or frame.f_code.co_name == "<module>" or frame.f_locals is frame.f_globals:
        return {}
    return dict(frame.f_locals)


@dataclass(frozen=True)
class FunctionInfo:
    kind: FunctionType


def _is_function(fn: object) -> bool:
    return callable(fn) and hasattr(fn, "__code__")


def _mark(fn: Callable[..., Any], kind: FunctionType, what: str = "@pl.function") -> Callable[..., Any]:
    if not _is_function(fn):
        raise located(f"{what} decorates a function (a method of a @pl.program class), got {fn!r}")
    fn.__pl_function__ = FunctionInfo(kind)  # type: ignore[attr-defined]
    return fn


# Options of PyPTO's @pl.function that this frontend does not model.
_UNSUPPORTED_FUNCTION_OPTIONS = {
    "attrs": "free-form function attributes are not modelled",
    "auto_scope": "runtime scopes are not modelled",
    "strict_ssa": "the frontend always builds SSA form",
    "external_source": "hand-written external kernels are not supported",
}


# Level and role of the kinds that have one (PyPTO derives them from the function type;
# here `level=`/`role=` select an Opaque function's kind, or must agree with `type=`).
_KIND_LEVEL_ROLE: dict[FunctionType, tuple[Level, Role]] = {
    FunctionType.Orchestration: (Level.CHIP, Role.Orchestrator),
    FunctionType.Graph: (Level.CHIP, Role.Orchestrator),
    FunctionType.AIC: (Level.AIC, Role.SubWorker),
    FunctionType.AIV: (Level.AIV, Role.SubWorker),
}
_SELECTED = {
    (Level.CHIP, Role.Orchestrator): FunctionType.Orchestration,
    (Level.AIC, Role.SubWorker): FunctionType.AIC,
    (Level.AIV, Role.SubWorker): FunctionType.AIV,
}


def _kind_of(kind: FunctionType, level: Level | None, role: Role | None) -> FunctionType:
    if level is None and role is None:
        return kind
    if level is not None and not isinstance(level, Level):
        raise located(f"@pl.function(level=...) expects a pl.Level, got {level!r}")
    if role is not None and not isinstance(role, Role):
        raise located(f"@pl.function(role=...) expects a pl.Role, got {role!r}")
    if level is None:
        raise located("@pl.function(role=...) needs a level= too (e.g. level=pl.Level.CHIP)")
    spelled = f"level=pl.Level.{level.name}" + (f", role=pl.Role.{role.name}" if role is not None else "")
    if level == Level.HOST:
        raise located(
            f"@pl.function({spelled}): HOST-level functions of a @pl.program (host orchestrators, "
            "sub-worker callbacks) are not supported; a @pl.jit.host function orchestrates a group of ranks"
        )
    if kind != FunctionType.Opaque:
        want = _KIND_LEVEL_ROLE.get(kind)
        if want is None or want[0] != level or role not in (None, want[1]):
            raise located(
                f"@pl.function(type=pl.FunctionType.{kind.name}, {spelled}): the type and the "
                f"level/role disagree"
            )
        return kind
    default_role = Role.Orchestrator if level == Level.CHIP else Role.SubWorker
    selected = _SELECTED.get((level, role or default_role))
    if selected is None:
        raise located(
            f"@pl.function({spelled}) names no function kind this compiler has "
            f"(CHIP + Orchestrator: orchestration; AIC / AIV + SubWorker: kernels)"
        )
    return selected


def function(
    fn: Callable[..., Any] | None = None,
    *args: Any,
    type: FunctionType = FunctionType.Opaque,  # noqa: A002  (PyPTO's keyword)
    scope_type: FunctionType | None = None,
    level: Level | None = None,
    role: Role | None = None,
    **options: Any,
) -> Any:
    """Mark a method of a `@pl.program` class as a pypto function.

    `@pl.function`, `@pl.function(type=pl.FunctionType.InCore)`; `scope_type=` is accepted as
    a synonym of `type=` (the seed documents use it). `level=` / `role=` select the kind the
    way PyPTO derives them from it: `level=pl.Level.CHIP, role=pl.Role.Orchestrator` is an
    orchestration function. A module-level `@pl.function` becomes part of every program
    that calls it by name.
    """
    if args or (fn is not None and not _is_function(fn)):
        given = fn if fn is not None and not _is_function(fn) else args[0]
        raise located(
            f"@pl.function takes keyword arguments only, got the positional argument {given!r}; "
            "write @pl.function(type=pl.FunctionType.InCore)"
        )
    for key in options:
        if key in _UNSUPPORTED_FUNCTION_OPTIONS:
            raise located(f"@pl.function({key}=...) is not supported: {_UNSUPPORTED_FUNCTION_OPTIONS[key]}")
        raise located(
            f"@pl.function has no option '{key}'{did_you_mean(key, ['type', 'scope_type', 'level', 'role'])}"
        )
    kind = scope_type if scope_type is not None else type
    if not isinstance(kind, FunctionType):
        raise located(
            f"@pl.function(type=...) expects a pl.FunctionType such as pl.FunctionType.InCore, got {kind!r}"
        )
    kind = _kind_of(kind, level, role)
    if fn is not None:
        return _mark(fn, kind)
    return lambda f: _mark(f, kind)


def program(cls: Any = None, **options: Any) -> Any:
    """Compile a class of `@pl.function` methods into a pypto program."""
    for key in options:
        if key == "strict_ssa":
            continue  # PyPTO's SSA check; the frontend always builds SSA form
        raise located(f"@pl.program has no option '{key}'")
    if cls is None:
        return lambda c: program(c)
    from pypto_xdsl.frontend.program import Program

    if isinstance(cls, Program):
        raise located(f"@pl.program is applied twice to '{cls.name}'; apply it once")
    if isinstance(cls, JitFunction):
        raise located(f"@pl.program decorates a class, got the @pl.jit function '{cls.__name__}'")
    if not isinstance(cls, type):
        raise located(f"@pl.program decorates a class of @pl.function methods, got {cls!r}")
    from pypto_xdsl.runtime.program import RunnableProgram

    return RunnableProgram.from_class(cls, _definer_locals())


# --------------------------------------------------------------------------- @pl.jit


class JitFunction:
    """A `@pl.jit` function: specialised on its arguments' shapes and dtypes when called.

    `fn(*arrays, config=RunConfig())` compiles (once per specialisation) and runs it;
    `fn.lower(*arrays)` returns the specialised program after the default pipeline,
    `fn.compile(*arrays)` the compiled program with its Ascend C files. A sub-function
    (`@pl.jit.incore`, `.inline`, `.opaque`) is compiled as part of the entries that call it;
    calling one from Python runs it as its own program.
    """

    def __init__(
        self, func: Callable[..., Any], kind: FunctionType | None, level: Level | None = None, host: bool = False
    ):
        self.__wrapped__ = func
        self.kind = kind  # None: the entry (an orchestration function)
        self.level = level
        self.host = host
        """`@pl.jit.host`: an entry that orchestrates a group of ranks (a host function)."""
        self.__name__ = func.__name__
        self.__qualname__ = getattr(func, "__qualname__", func.__name__)
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self._runtime: Any = None  # pypto_xdsl.runtime.jit.JitRuntime, made on first use

    @property
    def is_entry(self) -> bool:
        return self.kind is None

    @property
    def flavour(self) -> str:
        """`jit`, `jit.host`, `jit.incore`, `jit.inline`, `jit.opaque` or `jit.graph` (as decorated)."""
        if self.host:
            return "jit.host"
        return "jit" if self.kind is None else _FLAVOURS.get(self.kind, "jit.incore")

    def runtime(self) -> Any:
        if self._runtime is None:
            from pypto_xdsl.runtime.jit import JitRuntime

            self._runtime = JitRuntime(self)
        return self._runtime

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.runtime().call(args, kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """The program specialised to these arguments, after the default pipeline (not run)."""
        return self.runtime().lower(args, kwargs)

    def compile(self, *args: Any, **kwargs: Any) -> Any:
        """The compiled program for these arguments: `.files` holds the emitted Ascend C."""
        return self.runtime().compile(args, kwargs)

    def specialize(self, *args: Any, **kwargs: Any) -> Any:
        """The program specialised to these arguments, before any pass."""
        return self.runtime().specialize(args, kwargs)

    def cache_info(self) -> Any:
        """Counters of the specialisation cache: hits, misses, sim builds, sim disk hits."""
        return self.runtime().stats

    @property
    def _cache(self) -> dict:
        """PyPTO's name for the specialisation cache (its tests call `fn._cache.clear()`):
        the compiled specialisations of this process, by argument signature."""
        return self.runtime().cache

    def cache_clear(self) -> None:
        """Forget every specialisation compiled in this process (the disk cache stays)."""
        self.runtime().clear()

    def __repr__(self) -> str:
        return f"<@pl.{self.flavour} function {self.__qualname__}>"


_FLAVOURS = {
    FunctionType.InCore: "jit.incore",
    FunctionType.AIC: "jit.incore",
    FunctionType.AIV: "jit.incore",
    FunctionType.Inline: "jit.inline",
    FunctionType.Opaque: "jit.opaque",
    FunctionType.Graph: "jit.graph",
}

_LEVEL_KINDS = {None: FunctionType.InCore, Level.CORE_GROUP: FunctionType.InCore,
                Level.AIC: FunctionType.AIC, Level.AIV: FunctionType.AIV}


def _make_jit(fn: Any, kind: FunctionType | None, what: str, level: Level | None = None, host: bool = False) -> JitFunction:
    if isinstance(fn, JitFunction):
        raise located(f"@pl.{what} is applied to '{fn.__name__}', which is already @pl.{fn.flavour}")
    if isinstance(fn, type):
        raise located(f"@pl.{what} decorates a function, got the class '{fn.__name__}' (use @pl.program)")
    if not _is_function(fn):
        raise located(f"@pl.{what} decorates a function, got {fn!r}")
    setattr(fn, DEF_LOCALS, _definer_locals())
    return JitFunction(fn, kind, level, host)


def _reject_options(what: str, options: dict[str, Any], supported: tuple[str, ...]) -> None:
    for key in options:
        if key == "auto_scope":
            if options[key] is not True:
                raise located(f"@pl.{what}(auto_scope=False) is not supported: runtime scopes are not modelled")
            continue
        raise located(f"@pl.{what} has no option '{key}'{did_you_mean(key, supported)}")


class _SubDecorator:
    def __init__(self, name: str, kind: FunctionType):
        self.name = name
        self.kind = kind

    def __call__(self, fn: Any = None, **options: Any) -> Any:
        what = f"jit.{self.name}"
        level = options.pop("level", None) if self.name == "incore" else None
        if level is not None and level not in _LEVEL_KINDS:
            raise located(f"@pl.jit.incore(level=...) expects a pl.Level (AIC, AIV, CORE_GROUP), got {level!r}")
        _reject_options(what, options, ("level",) if self.name == "incore" else ())
        kind = _LEVEL_KINDS[level] if self.name == "incore" else self.kind
        if fn is None:
            return lambda f: _make_jit(f, kind, what, level)
        return _make_jit(fn, kind, what, level)

    def __repr__(self) -> str:
        return f"pl.jit.{self.name}"


class _HostDecorator:
    """`@pl.jit.host`: the host orchestrator of a group of ranks. Its body dispatches
    `@pl.jit` functions to ranks (`f(..., device=r)`); the group is the device list of
    `RunConfig(distributed_config=DistributedConfig(device_ids=[...]))`."""

    def __call__(self, fn: Any = None, **options: Any) -> Any:
        _reject_options("jit.host", options, ())
        if fn is None:
            return lambda f: _make_jit(f, None, "jit.host", host=True)
        return _make_jit(fn, None, "jit.host", host=True)

    def __repr__(self) -> str:
        return "pl.jit.host"


class _Unsupported:
    def __init__(self, name: str, why: str):
        self.name = name
        self.why = why

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise located(f"@pl.jit.{self.name} is not supported: {self.why}")


class _JitDecorator:
    """`pl.jit`: `@pl.jit` (an entry), `@pl.jit.host` (a rank group's entry), `@pl.jit.incore`,
    `@pl.jit.inline`, `@pl.jit.opaque`, `@pl.jit.graph`."""

    def __init__(self) -> None:
        self.incore = _SubDecorator("incore", FunctionType.InCore)
        self.inline = _SubDecorator("inline", FunctionType.Inline)
        self.opaque = _SubDecorator("opaque", FunctionType.Opaque)
        self.graph = _SubDecorator("graph", FunctionType.Graph)
        self.host = _HostDecorator()
        self.extern = _Unsupported("extern", "hand-written external C++ kernels are not supported")

    def __call__(self, fn: Any = None, **options: Any) -> Any:
        _reject_options("jit", options, ("auto_scope",))
        if fn is None:
            return lambda f: _make_jit(f, None, "jit")
        return _make_jit(fn, None, "jit")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise located(
            f"pl.jit has no '{name}'{did_you_mean(name, ['incore', 'inline', 'opaque', 'graph', 'host'])}",
            UnknownNameError,
        )

    def __repr__(self) -> str:
        return "pl.jit"


jit = _JitDecorator()
