"""What every tool does with an input it cannot use and an output it cannot write (issue #18):
the same convention for `pypto-opt`, `pypto-run` and `pypto-compile`, as mlir-opt's — one
message on stderr, exit status 1, nothing on stdout, no traceback:

* a file that cannot be opened (missing, a directory, no permission):
  `tool: error: cannot open input file 'p.mlir': <reason>`;
* bytes that are not UTF-8 (binary garbage too): `p.mlir:line:col: error: invalid UTF-8 ...`;
* an empty `.mlir` file is an empty module (what each tool does with one: `pypto-opt` prints
  it, `pypto-run` has no function to run, `pypto-compile` nothing to print); an empty `.py`
  file defines no program;
* `-` reads `.mlir` text from stdin; any other extension than `.py` is `.mlir` text;
* an output that cannot be written: `tool: error: cannot write output 'path': <reason>`.

The tools run in-process (`run_tool`), as `make fuzz-errors` runs them; exit statuses are
those of the command (`SystemExit`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.fuzz.inprocess import run_tool
from pypto_xdsl.tools import diagnostics

TOOLS = ["pypto-opt", "pypto-run", "pypto-compile"]

PROGRAM = """\
pypto.func @main(%x: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32> {
  pypto.return %x : !pypto.tensor<[4, 4], f32>
}
"""


def _run(tool: str, path: str, tmp_path: Path, stdin: bytes = b"", extra=()):
    args = [path, *extra]
    if tool == "pypto-compile" and "-o" not in extra:
        args += ["-o", str(tmp_path / "out")]
    return run_tool(tool, args, stdin)


def _one_error_line(result, prefix: str) -> str:
    assert result.crash is None, result.crash
    assert result.code == diagnostics.EXIT_ERROR, (result.code, result.stderr)
    assert result.stdout == "", "nothing on stdout on failure"
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(prefix), result.stderr
    assert len(result.diagnostics()) == 1, result.stderr
    return first


@pytest.fixture
def unreadable(tmp_path, monkeypatch) -> Path:
    """A file this process may not read: chmod 000, and (root reads it anyway) `open` of it
    refused as the kernel refuses it to anyone else."""
    path = tmp_path / "secret.mlir"
    path.write_text(PROGRAM)
    path.chmod(0)
    if os.geteuid() == 0:
        real_open = open

        def refusing_open(file, *args, **kwargs):
            if str(file) == str(path):
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(diagnostics, "open", refusing_open, raising=False)
    return path


@pytest.mark.parametrize("tool", TOOLS)
def test_a_missing_file_is_one_error_naming_it(tool, tmp_path):
    missing = tmp_path / "missing.mlir"
    line = _one_error_line(_run(tool, str(missing), tmp_path), f"{tool}: error: ")
    assert line == f"{tool}: error: cannot open input file '{missing}': No such file or directory"


@pytest.mark.parametrize("tool", TOOLS)
def test_a_directory_is_one_error_naming_it(tool, tmp_path):
    folder = tmp_path / "folder.mlir"
    folder.mkdir()
    line = _one_error_line(_run(tool, str(folder), tmp_path), f"{tool}: error: ")
    assert line == f"{tool}: error: cannot open input file '{folder}': Is a directory"


@pytest.mark.parametrize("tool", TOOLS)
def test_an_unreadable_file_is_one_error_naming_it(tool, tmp_path, unreadable):
    line = _one_error_line(_run(tool, str(unreadable), tmp_path), f"{tool}: error: ")
    assert line == f"{tool}: error: cannot open input file '{unreadable}': Permission denied"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "name, data, where",
    [
        ("garbage.mlir", bytes(range(128, 256)) * 3, "1:1"),
        ("latin1.mlir", PROGRAM.replace("@main", "@m\xe4in").encode("latin-1"), "1:14"),
        ("latin1.py", b"x = 1\n# caf\xe9\n", "2:6"),
    ],
)
def test_bytes_that_are_not_utf8_are_located_at_the_first_bad_byte(tool, tmp_path, name, data, where):
    path = tmp_path / name
    path.write_bytes(data)
    line = _one_error_line(_run(tool, str(path), tmp_path), f"{path}:{where}: error: ")
    assert "invalid UTF-8 byte" in line


@pytest.mark.parametrize("tool", TOOLS)
def test_binary_garbage_on_stdin_is_located_at_stdin(tool, tmp_path):
    line = _one_error_line(_run(tool, "-", tmp_path, stdin=b"\x00\xff\xfe garbage"), "<stdin>:1:")
    assert "invalid UTF-8 byte 0xff" in line


def test_an_empty_mlir_file_is_an_empty_module(tmp_path):
    path = tmp_path / "empty.mlir"
    path.write_bytes(b"")
    opt = _run("pypto-opt", str(path), tmp_path)
    assert (opt.crash, opt.code, opt.stderr) == (None, 0, "")
    assert opt.stdout.split() == ["builtin.module", "{", "}"]
    run = _one_error_line(_run("pypto-run", str(path), tmp_path), f"{path}:1:1: error: ")
    assert "no function @main" in run
    compiled = _one_error_line(_run("pypto-compile", str(path), tmp_path), f"{path}:1:1: error: ")
    assert "the module defines no pypto.func functions" in compiled and "orchestration" in compiled


@pytest.mark.parametrize("text", ["builtin.module {}", "// only a comment\n", "func.func @f() {\n  func.return\n}"])
def test_pypto_compile_of_a_module_without_pypto_functions_is_located(text, tmp_path):
    """No `pypto.func` to compile: one located message before any pass or backend runs."""
    path = tmp_path / "nothing.mlir"
    path.write_text(text)
    compiled = _run("pypto-compile", str(path), tmp_path)
    line = _one_error_line(compiled, f"{path}:1:1: error: ")
    assert "the module defines no pypto.func functions" in line
    assert compiled.code == 1


@pytest.mark.parametrize("tool", TOOLS)
def test_an_empty_py_file_defines_no_program(tool, tmp_path):
    path = tmp_path / "empty.py"
    path.write_bytes(b"")
    line = _one_error_line(_run(tool, str(path), tmp_path), f"{path}:1:1: error: ")
    assert "defines no @pl.program" in line


@pytest.mark.parametrize("tool", TOOLS)
def test_empty_stdin_is_an_empty_module(tool, tmp_path):
    result = _run(tool, "-", tmp_path)
    assert result.crash is None and "Traceback" not in result.stderr
    if tool == "pypto-opt":
        assert result.code == 0 and result.stdout.split() == ["builtin.module", "{", "}"]
    else:
        assert result.code == diagnostics.EXIT_ERROR and result.stdout == ""


@pytest.mark.parametrize("tool", TOOLS)
def test_stdin_and_a_file_give_the_same_output(tool, tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    if tool == "pypto-compile":
        from_file = _run(tool, str(path), tmp_path, extra=["-o", str(tmp_path / "a")])
        from_stdin = _run(tool, "-", tmp_path, stdin=PROGRAM.encode(), extra=["-o", str(tmp_path / "b")])
        assert from_file.code == from_stdin.code
        assert from_file.stderr.replace(str(path), "<stdin>") == from_stdin.stderr
        return
    from_file = _run(tool, str(path), tmp_path)
    from_stdin = _run(tool, "-", tmp_path, stdin=PROGRAM.encode())
    assert (from_file.code, from_file.stdout) == (from_stdin.code, from_stdin.stdout) == (0, from_file.stdout)


@pytest.mark.parametrize("tool", TOOLS)
def test_a_file_of_another_extension_is_mlir_text(tool, tmp_path):
    path = tmp_path / "program.txt"
    path.write_text(PROGRAM.replace("%x", "%x%"))  # a parse error: it was read as .mlir
    _one_error_line(_run(tool, str(path), tmp_path), f"{path}:1:")


def test_pypto_opt_output_that_cannot_be_written_is_one_error(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    line = _one_error_line(run_tool("pypto-opt", [str(path), "-o", str(tmp_path)]), "pypto-opt: error: ")
    assert line == f"pypto-opt: error: cannot write output '{tmp_path}': Is a directory"


def test_pypto_run_output_directory_that_cannot_be_made_leaves_stdout_empty(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    line = _one_error_line(run_tool("pypto-run", [str(path), "-o", str(path)]), "pypto-run: error: ")
    assert line == f"pypto-run: error: cannot write output '{path}': File exists"


def test_pypto_compile_output_directory_that_cannot_be_made_is_one_error(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_tool("pypto-compile", [str(path), "-o", str(blocker)])
    assert result.code == diagnostics.EXIT_ERROR  # (no kernel either: the first error wins)
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "it is not a .npy file"),
        (b"not an array at all", "it is not a .npy file"),
        (b"\x93NUMPY\x01\x00\x76\x00{'descr'", "EOF"),
    ],
)
def test_pypto_run_input_arrays_that_are_not_npy_files_are_one_error(tmp_path, content, reason):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    array = tmp_path / "x.npy"
    array.write_bytes(content)
    line = _one_error_line(run_tool("pypto-run", [str(path), "--input", f"0={array}"]), "pypto-run: error: ")
    assert line.startswith(f"pypto-run: error: cannot read input file '{array}' as a .npy array: {reason}")


def test_pypto_run_input_arrays_that_cannot_be_opened_are_one_error(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    line = _one_error_line(
        run_tool("pypto-run", [str(path), "--input", f"x={tmp_path / 'no.npy'}"]), "pypto-run: error: "
    )
    assert line == f"pypto-run: error: cannot open input file '{tmp_path / 'no.npy'}': No such file or directory"


def test_pypto_run_reads_a_npy_input(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    np.save(tmp_path / "x.npy", np.ones((4, 4), np.float32))
    result = run_tool("pypto-run", [str(path), "--input", f"0={tmp_path / 'x.npy'}"])
    assert (result.code, result.stderr) == (0, "") and "sum=16" in result.stdout


@pytest.mark.parametrize("tool", TOOLS)
def test_a_malformed_command_line_is_argparse_status_2(tool):
    result = run_tool(tool, ["--no-such-option"])
    assert result.crash is None and result.code == diagnostics.EXIT_USAGE


def test_the_installed_commands_exit_with_the_same_status(tmp_path):
    """The console scripts, not only `main`: the status reaches the shell."""
    missing = str(tmp_path / "missing.mlir")
    bindir = Path(sys.executable).parent
    for tool in TOOLS:
        extra = ["-o", str(tmp_path / "out")] if tool == "pypto-compile" else []
        proc = subprocess.run([str(bindir / tool), missing, *extra], capture_output=True, text=True, timeout=120)
        assert (proc.returncode, proc.stdout) == (1, ""), (tool, proc.stderr)
        assert proc.stderr == f"{tool}: error: cannot open input file '{missing}': No such file or directory\n"


VALID_REGION = Path(__file__).parent / "backend_inputs" / "tensor_valid_region.py"  # one @pl.program, no @pl.jit


@pytest.mark.parametrize("tool", TOOLS)
def test_scalar_flags_on_a_file_with_only_a_program_compile_it(tool, tmp_path):
    """--scalar on a .py holding only a @pl.program: the program, as written (as with --entry),
    not "defines no @pl.program"; --shape (which only specialises @pl.jit functions) is reported unused."""
    result = _run(tool, str(VALID_REGION), tmp_path, extra=["--scalar", "n=4", "--shape", "x=8x8:f32"])
    assert result.crash is None and result.code == 0, result.stderr
    assert "defines no @pl.program" not in result.stderr
    assert (f"{VALID_REGION}: warning: --shape x not used: --shape specialises @pl.jit functions; "
            "@pl.program P is compiled as written") in result.stderr


def test_a_programs_scalar_flag_is_its_value_in_the_run(tmp_path):
    """pypto-run: `--scalar n=V` is the entry's scalar argument n (the valid columns written),
    instead of a random value; a name that is no scalar parameter is one error."""
    runs = {n: run_tool("pypto-run", [str(VALID_REGION), "--scalar", f"n={n}"]) for n in (0, 64)}
    assert all(r.code == 0 for r in runs.values()), [r.stderr for r in runs.values()]
    assert runs[0].stdout != runs[64].stdout
    assert run_tool("pypto-run", [str(VALID_REGION), "--scalar", "n=64"]).stdout == runs[64].stdout
    bad = run_tool("pypto-run", [str(VALID_REGION), "--scalar", "m=3"])
    assert bad.code == diagnostics.EXIT_ERROR and "--scalar m: @main has no scalar parameter 'm' (its scalar " \
        "parameters are n)" in bad.stderr, bad.stderr


def test_a_programs_scalar_flag_is_its_value_in_the_simulated_run(tmp_path):
    """pypto-compile --sim: the simulated program and the interpreter both run with `--scalar n=V`
    (one build, shared with the partial-tile test through the session's build cache)."""
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("needs g++ for the simulation")
    written = {}
    for n in (0, 64):
        out = tmp_path / f"n{n}"
        result = run_tool("pypto-compile", [str(VALID_REGION), "-o", str(out), "--sim", "--entry", "main",
                                            "--scalar", f"n={n}"])
        assert result.code == 0 and "simulation matches the interpreter" in result.stdout, result.stderr
        written[n] = np.fromfile(out / "sim-run" / "out" / "o.bin", dtype=np.float32).reshape(16, 64)
    inputs = np.fromfile(tmp_path / "n64" / "sim-run" / "in" / "a.bin", dtype=np.float32).reshape(16, 64)
    np.testing.assert_allclose(written[64], np.exp(inputs), rtol=1e-5)  # every column valid
    assert not np.allclose(written[0], np.exp(inputs))  # no column valid: o keeps its initial contents
