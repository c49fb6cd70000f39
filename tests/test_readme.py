"""The README's tour must keep working as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent


def code_block(language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", README, re.S)
    assert match is not None, f"README has no {language} block"
    return match.group(1)


def pypto_opt(path: Path, *args: str) -> str:
    result = subprocess.run(
        [str(BIN / "pypto-opt"), str(path), *args], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_tour_mlir_program_outlines_as_described(tmp_path: Path) -> None:
    prog = tmp_path / "prog.mlir"
    prog.write_text(code_block("mlir"))
    out = pypto_opt(prog, "-p", "inline-functions,outline-incore-scopes")
    assert "pypto.func orchestration @main(" in out
    assert re.search(r"pypto\.func incore @main_incore_0\(%a: [^)]*, out %out: ", out)
    assert "pypto.return %out : " in out
    assert "@square" not in out


def test_tour_python_program_compiles_through_the_default_pipeline(tmp_path: Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text(code_block("python"))
    out = pypto_opt(prog, "-p", "pypto-default")
    assert "pypto.func aiv @main_incore_0" in out  # expand-mixed-kernel: a vector-only kernel
    assert "pypto.tile.mul" in out
    assert "pypto.call @square" not in out


def test_tour_jit_example_runs_on_both_targets_and_through_the_tools(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    jit = next(b for b in blocks if "@pl.jit" in b)
    prog = tmp_path / "jit_tour.py"
    prog.write_text(jit + "\nassert np.allclose(out, a * a)\nprint('tour ok')\n")
    result = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, cwd=tmp_path,
                            env={"PYPTO_XDSL_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert "tour ok" in result.stdout and "__global__" in result.stdout
    lib = tmp_path / "lib.py"
    lib.write_text(jit.split("a, out = ")[0])
    out = pypto_opt(lib, "--entry", "main", "--shape", "a=16x64:f32", "--shape", "out=16x64:f32",
                    "-p", "pypto-default")
    assert "pypto.func aiv @main_incore_0" in out and "@square" not in out
