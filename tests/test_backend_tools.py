"""pypto-compile and `pypto-opt -t ascendc` as users run them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pypto_xdsl.backend.ascendc.emit import FILE_MARKER
from pypto_xdsl.tools.pypto_compile import main as compile_main

PROGRAMS = Path(__file__).parent / "filecheck" / "backend"
ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent


def test_pypto_compile_writes_the_project(tmp_path, capsys):
    out = tmp_path / "out"
    assert compile_main([str(PROGRAMS / "orchestration.mlir"), "-o", str(out)]) == 0
    assert "3 kernels, 1 orchestration functions" in capsys.readouterr().out
    for rel in [
        "kernels/add_k.cpp",
        "kernels/exp_mul_k.cpp",
        "kernels/scale_k.cpp",
        "host/main_orch.cpp",
        "host/main_orch.h",
        "host/main.cpp",
        "CMakeLists.txt",
        "README.md",
        "sim/aclrtlaunch_add_k.h",
        "sim/include/kernel_operator.h",
        "sim/include/acl/acl.h",
    ]:
        assert (out / rel).is_file(), rel
    cmake = (out / "CMakeLists.txt").read_text()
    assert "ascendc_library(pypto_kernels STATIC kernels/add_k.cpp kernels/exp_mul_k.cpp kernels/scale_k.cpp)" in cmake
    assert "add_executable(pypto_main host/main.cpp host/main_orch.cpp)" in cmake
    assert "SIMULATION" in (out / "sim/include/kernel_operator.h").read_text()


def test_pypto_compile_reports_errors_without_traceback(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        "pypto.func incore @k(%a: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {\n"
        "  %e = pypto.tensor.matmul %a, %a : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32> -> !pypto.tensor<[8, 8], f32>\n"
        "  pypto.return %e : !pypto.tensor<[8, 8], f32>\n}\n"
    )
    proc = subprocess.run(
        [str(BIN / "pypto-compile"), str(bad), "-o", str(tmp_path / "out")], capture_output=True, text=True
    )
    assert proc.returncode == 1
    # at the op the message names (the printer lowers a copy of the module; its diagnostic names the input's op)
    assert f"{bad}:2:3: error: ascendc: cannot lower 'pypto.tensor.matmul' in @k" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_pypto_compile_reports_parse_errors(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("pypto.func incore @k( {\n")
    proc = subprocess.run(
        [str(BIN / "pypto-compile"), str(bad), "-o", str(tmp_path / "out")], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{bad}:1:23: error:")
    assert "Traceback" not in proc.stderr


def test_pypto_opt_target_prints_every_file():
    proc = subprocess.run(
        [str(BIN / "pypto-opt"), str(PROGRAMS / "add.mlir"), "-t", "ascendc"],
        capture_output=True, text=True, check=True,
    )
    markers = [line for line in proc.stdout.splitlines() if line.startswith("// ===== file: ")]
    assert markers == [
        FILE_MARKER.format(path=p)
        for p in [
            "kernels/add_kernel.cpp",
            "sim/aclrtlaunch_add_kernel.h",
            "host/main_orch.h",
            "host/main_orch.cpp",
            "host/main.cpp",
            "CMakeLists.txt",
            "README.md",
        ]
    ]


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
def test_pypto_compile_sim_runs_and_compares(tmp_path, capsys):
    rc = compile_main([str(PROGRAMS / "softmax.mlir"), "-o", str(tmp_path / "sm"), "--sim", "--seed", "3"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "max abs error vs interpreter" in out
    assert "simulation matches the interpreter" in out


@pytest.mark.skipif(
    shutil.which("g++") is None or shutil.which("cmake") is None, reason="needs cmake and g++"
)
def test_generated_cmake_builds_the_simulation(tmp_path):
    out = tmp_path / "out"
    assert compile_main([str(PROGRAMS / "add.mlir"), "-o", str(out)]) == 0
    build = tmp_path / "build"
    env = dict(os.environ, CXXFLAGS="-O0")
    subprocess.run(["cmake", "-S", str(out), "-B", str(build), "-DPYPTO_SIM=ON"], check=True, capture_output=True, env=env)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True, env=env)
    exe = build / "pypto_main"
    assert exe.is_file()
    # Missing inputs: the driver explains itself and fails.
    proc = subprocess.run([str(exe), str(tmp_path / "nowhere"), str(tmp_path / "res")], capture_output=True, text=True)
    assert proc.returncode == 3
    assert "cannot open" in proc.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("example", ["softmax.py", "scopes.py"])
def test_pypto_compile_python_programs(tmp_path, capsys, example):
    """The Python DSL examples go through the frontend, the default pipeline and the backend."""
    rc = compile_main([str(ROOT / "examples" / example), "-o", str(tmp_path / "out"), "--sim"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "simulation matches the interpreter" in out
