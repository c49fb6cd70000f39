"""Small helpers shared across the package."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
