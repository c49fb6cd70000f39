"""Hand-written C++ programs against the simulation headers (scenarios the compiler does not
emit, such as a broken flag protocol), built once per test module."""

from __future__ import annotations

import subprocess
from pathlib import Path


def build_sim_program(out: Path, name: str, source: str) -> Path:
    """`source` written to `out/<name>.cpp` and built against the simulation headers; the
    executable's path."""
    from pypto_xdsl.backend.ascendc.sim import SIM_INCLUDE_DIR, compiler

    cpp = out / f"{name}.cpp"
    cpp.write_text(source)
    exe = out / name
    cmd = [compiler(), "-std=c++17", "-O0", f"-I{SIM_INCLUDE_DIR}", str(cpp), "-o", str(exe), "-pthread"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe
