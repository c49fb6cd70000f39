"""Small helpers shared across the package."""

from __future__ import annotations

import functools
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from xdsl.ir import Block, Operation, Region

P = ParamSpec("P")
T = TypeVar("T")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk IR construction or rewrite.

    IR is a large cyclic object graph built or rewritten in one go and nothing becomes
    garbage meanwhile; each automatic collection walks the growing heap, which makes bulk work
    superlinear. Reference counting still frees acyclic garbage.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def walk_ops(root: Operation | Region | Block) -> Iterator[Operation]:
    """The ops nested in `root` in pre-order, `root` first when it is an op (the order of
    `Operation.walk`), with a constant cost per op at any nesting depth: xDSL's walk nests one
    generator per region level, so walking ops D levels deep costs D resumptions each."""
    stack: list[Iterator[Operation]] = []
    if isinstance(root, Operation):
        yield root
        stack.append(_nested_ops(root))
    elif isinstance(root, Region):
        stack.append(_region_ops(root))
    else:
        stack.append(iter(root.ops))
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions:
            stack.append(_nested_ops(op))


def _region_ops(region: Region) -> Iterator[Operation]:
    for block in region.blocks:
        yield from block.ops


def _nested_ops(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops


# --------------------------------------------------------------------------- deep nesting
#
# xDSL's parser, verifier, printer, walkers and interpreter recurse: a few Python frames per
# level of region nesting (op -> region -> block -> op), more through generators and custom
# parsers. Python's default limit of 1,000 frames gives out near 140 nested `scf.for`. The
# tools and the public APIs therefore run on a thread with a large C stack and a raised
# recursion limit; beyond it a RecursionError is reported as one diagnostic
# (`NestingTooDeep`), never a crash.

MAX_NESTING_DEPTH = 10_000
"""Region nesting (loops, ifs, whiles, scopes) and call-chain depth the tools support."""

RECURSION_LIMIT = 60 * MAX_NESTING_DEPTH
"""Python frames: enough for the deepest per-level recursion (the printer, about 40 frames)."""

STACK_BYTES = 1 << 30
"""C stack of the worker thread (virtual memory; only the pages used are committed)."""

_on_deep_stack = threading.local()
_limit_lock = threading.Lock()
_deep_threads = 0
_saved_limit = 0


class NestingTooDeep(Exception):
    """A program nested beyond what the tools support (a RecursionError on the deep stack)."""

    def __init__(self, what: str = "the program"):
        super().__init__(
            f"{what} is nested too deeply: at most {MAX_NESTING_DEPTH:,} levels of regions "
            "(loops, ifs, scopes) or of calls are supported"
        )


def _raise_limit() -> None:
    global _deep_threads, _saved_limit
    with _limit_lock:
        if _deep_threads == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _deep_threads += 1


def _restore_limit() -> None:
    global _deep_threads
    with _limit_lock:
        _deep_threads -= 1
        if _deep_threads == 0:
            sys.setrecursionlimit(_saved_limit)


def call_with_deep_stack(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a thread with a `STACK_BYTES` stack and a recursion limit of
    `RECURSION_LIMIT` (directly when already on one), so deeply nested programs parse,
    verify, print, transform and run. Exceptions (and `SystemExit`) propagate to the caller
    unchanged; a RecursionError, raised only beyond `MAX_NESTING_DEPTH`, is too."""
    if getattr(_on_deep_stack, "active", False):
        return fn(*args, **kwargs)
    outcome: list[Any] = []

    def target() -> None:
        _on_deep_stack.active = True
        try:
            outcome.append((True, fn(*args, **kwargs)))
        except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
            outcome.append((False, e))

    worker = threading.Thread(target=target, name="pypto-deep-stack", daemon=True)
    _raise_limit()
    try:
        with _stack_size(STACK_BYTES):  # the size applies to threads started meanwhile
            worker.start()
        worker.join()
    finally:
        _restore_limit()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


@contextmanager
def _stack_size(size: int) -> Iterator[None]:
    previous = threading.stack_size(size)
    try:
        yield
    finally:
        threading.stack_size(previous)


def deep_stack(fn: Callable[P, T]) -> Callable[P, T]:
    """Decorator: `fn` always runs under `call_with_deep_stack`."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        return call_with_deep_stack(fn, *args, **kwargs)

    return wrapper
