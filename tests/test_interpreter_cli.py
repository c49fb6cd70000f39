"""pypto-run: random or .npy inputs, --dim, SPMD blocks, .npy outputs, diagnostics."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.tools.pypto_run import main

PROGRAM = """
pypto.func @main(%a: !pypto.tensor<[N, 4], f32>, out %o: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = pypto.tile.get_block_idx : index
  %row = arith.muli %b, %c2 : index
  %t = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[N, 4], f32> -> !pypto.tile<[2, 4], f32, vec>
  %e = pypto.tile.neg %t : !pypto.tile<[2, 4], f32, vec>
  %r = pypto.tile.store %e, %o[%row, %c0] : !pypto.tile<[2, 4], f32, vec>, !pypto.tensor<[N, 4], f32>
  %s = pypto.tensor.abs %a : !pypto.tensor<[N, 4], f32>
  pypto.return %s : !pypto.tensor<[N, 4], f32>
}
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "prog.mlir"
    path.write_text(PROGRAM)
    return path


def test_random_inputs_with_dim_and_npy_outputs(prog: Path, tmp_path: Path, capsys):
    out = tmp_path / "out"
    assert main([str(prog), "--entry", "main", "--dim", "N=4", "--seed", "7", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "result #0: [4, 4] float32" in text
    assert "out argument #1 %o: [4, 4] float32" in text
    result, written = np.load(out / "result_0.npy"), np.load(out / "arg_1.npy")
    assert (result >= 0).all()
    np.testing.assert_array_equal(np.abs(written[:2]), result[:2])  # -a and |a| on block 0's rows
    # rows 2.. keep their (random) initial contents: block 0 only writes rows 0..1
    # seeded: the same seed gives the same output
    assert main([str(prog), "--dim", "N=4", "--seed", "7", "-o", str(tmp_path / "again")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "again" / "result_0.npy"), result)


def test_npy_inputs_by_name_and_index_and_spmd_blocks(prog: Path, tmp_path: Path, capsys):
    a = np.arange(24, dtype=np.float32).reshape(6, 4) - 12
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "o.npy", np.zeros((6, 4), np.float32))
    out = tmp_path / "out"
    argv = [str(prog), "--input", f"a={tmp_path / 'a.npy'}", "--input", f"1={tmp_path / 'o.npy'}",
            "--blocks", "3", "-o", str(out), "--print-values"]
    assert main(argv) == 0
    np.testing.assert_array_equal(np.load(out / "result_0.npy"), np.abs(a))
    np.testing.assert_array_equal(np.load(out / "arg_1.npy"), -a)  # all 3 blocks wrote their rows
    assert "[[12. 11. 10.  9.]" in capsys.readouterr().out


def test_errors_are_diagnostics_not_tracebacks(prog: Path, tmp_path: Path, capsys):
    assert main([str(prog)]) == 1
    assert re.match(rf"{re.escape(str(prog))}:\d+:1: error: argument #0 of @main: unbound symbol N", capsys.readouterr().err)
    assert main([str(prog), "--dim", "N=4", "--blocks", "3"]) == 1
    assert "pypto.tile.load in @main: out of bounds" in capsys.readouterr().err
    assert main([str(prog), "--dim", "N=4", "--entry", "nope"]) == 1
    assert "no function @nope" in capsys.readouterr().err
    assert main([str(prog), "--dim", "N=4", "--input", "zz=x.npy"]) == 1
    assert "has no argument 'zz'" in capsys.readouterr().err
    bad = tmp_path / "bad.mlir"
    bad.write_text("pypto.func @main( {")
    assert main([str(bad)]) == 1
    assert capsys.readouterr().err.startswith(f"{bad}:1:19: error: Expected block argument")


def test_console_script_is_installed(prog: Path):
    exe = shutil.which("pypto-run") or str(Path(sys.executable).parent / "pypto-run")
    proc = subprocess.run([exe, str(prog), "--dim", "N=2"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("result #0: [2, 4] float32")
