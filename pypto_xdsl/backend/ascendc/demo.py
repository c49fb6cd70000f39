"""The backend half of `make demo`: write Ascend C + host code, run it in the CPU simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp


def run_demo_backend(module: ModuleOp, out_dir: Path, seed: int = 0) -> None:
    from pypto_xdsl.backend.ascendc.sim import SimulationError
    from pypto_xdsl.tools.pypto_compile import compile_module, simulate

    print(f"\n=== Ascend C backend {'=' * 50}")
    program = compile_module(module, out_dir)
    for rel in program.files:
        print(f"  wrote {out_dir / rel}")
    if shutil.which("g++") is None:
        print("  g++ not found: simulation skipped")
        return
    try:
        report = simulate(module, out_dir, seed=seed)
    except SimulationError as e:
        print(f"  simulation failed: {e}")
        raise SystemExit(2) from e
    print(f"  built {report.exe} against the CPU simulation headers in {out_dir / 'sim' / 'include'}")
    if report.max_abs_error is None:
        print(f"  {report.note}")
        return
    print(
        f"  simulated outputs vs the reference interpreter: max abs error {report.max_abs_error:.3g}, "
        f"max rel error {report.max_rel_error:.3g}"
    )
