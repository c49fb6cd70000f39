"""Host code for tensors created inside orchestration loops."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INPUTS = Path(__file__).parent / "backend_inputs"
COMPILE = str(Path(sys.executable).parent / "pypto-compile")

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@needs_gxx
def test_tensor_created_in_a_loop_is_allocated_once_and_matches_the_interpreter(tmp_path: Path) -> None:
    result = subprocess.run(
        [COMPILE, str(INPUTS / "create_in_loop.py"), "-o", str(tmp_path), "--sim"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "simulation matches the interpreter" in result.stdout
    host = (tmp_path / "host" / "main_orch.cpp").read_text()
    loop = host.index("for (")
    assert host.index("aclrtMalloc(&blk_dev") < loop  # hoisted out of the loop body
    assert host.count("aclrtFree(blk_dev)") == 1


def test_tensor_created_in_a_loop_and_carried_out_is_rejected(tmp_path: Path) -> None:
    result = subprocess.run(
        [COMPILE, str(INPUTS / "create_escapes_loop.mlir"), "-o", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1
    assert "pypto.tensor.create" in result.stderr
    assert "carried out of it" in result.stderr
    assert "Traceback" not in result.stderr
