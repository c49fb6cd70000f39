"""The on-disk cache of simulation builds, and the fingerprint of the compiler itself.

A build is keyed by the specialised program after its pipeline (the IR text: it captures the
source, the argument types, the scalar values and the constants the program read) and by the
compiler's fingerprint (the pypto-xdsl sources and simulation headers, xDSL's version and the
C++ compiler), so it is invalidated when the program's source or the compiler changes.

Location: `$PYPTO_XDSL_CACHE`, else `$XDG_CACHE_HOME/pypto-xdsl`, else `~/.cache/pypto-xdsl`.
An entry is a directory `sim-<hash>/` holding the generated files and `build-sim/pypto_main`;
it is written under a temporary name and renamed into place, so concurrent processes never
see half an entry.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    from pypto_xdsl.backend.ascendc.sim import cache_root

    return cache_root()


@lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """Hash of everything that decides what a build contains, other than the program."""
    h = hashlib.sha256()
    try:
        from importlib.metadata import version

        h.update(f"xdsl {version('xdsl')}\n".encode())
    except Exception:  # pragma: no cover - xdsl is a dependency
        pass
    for path in sorted(_PACKAGE_DIR.rglob("*")):
        if path.suffix in (".py", ".h", ".hpp") and path.is_file():
            h.update(str(path.relative_to(_PACKAGE_DIR)).encode())
            h.update(path.read_bytes())
    from pypto_xdsl.backend.ascendc.sim import compile_flags, compiler

    h.update(" ".join(compile_flags()).encode())
    cxx = compiler()
    if cxx is not None:
        try:
            out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        h.update(f"{cxx}\n{out}".encode())
    return h.hexdigest()


def build_key(program_text: str, entry: str) -> str:
    h = hashlib.sha256()
    h.update(compiler_fingerprint().encode())
    h.update(entry.encode() + b"\0")
    h.update(program_text.encode())
    return h.hexdigest()[:24]


def cached_build(key: str, make: Callable[[Path], None]) -> tuple[Path, bool]:
    """The directory of build `key`, made with `make(dir)` when absent; (dir, was it cached)."""
    root = cache_dir()
    final = root / f"sim-{key}"
    if (final / "DONE").exists():
        return final, True
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".sim-{key}-", dir=root))
    try:
        make(staging)
        (staging / "DONE").write_text(key + "\n")
        try:
            staging.rename(final)
        except OSError:  # another process finished the same build first
            if not (final / "DONE").exists():
                shutil.rmtree(final, ignore_errors=True)
                staging.rename(final)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return final, False


def value_key(value: Any) -> Any:
    """A hashable key of a constant a program reads (None for values that are not constants)."""
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return (type(value).__name__, value)
    if isinstance(value, Enum):
        return ("enum", type(value).__qualname__, value.name)
    if isinstance(value, tuple | list):
        items = tuple(value_key(v) for v in value)
        return None if any(i is None for i in items) else (type(value).__name__, items)
    from pypto_xdsl.language.types import DataType, DynVar

    if isinstance(value, DataType | DynVar):
        return (type(value).__name__, repr(value))
    return None
