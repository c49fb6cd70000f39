"""The Ascend C backend compiles static shapes only: a kernel or orchestration function that
depends on a run-time extent (a dynamic parameter, a dynamic tensor, a partial tile) is refused
before anything is printed, with one diagnostic naming the function and the parameter or op,
by every tool that reaches the backend."""

from __future__ import annotations

import re

import pytest

from pypto_xdsl.tools import pypto_compile

STATIC_ONLY = 'the Ascend C backend compiles static shapes only (docs/backend.md, "Dynamic shapes")'

X = "!pypto.tensor<[N, 128], f32>"
S = "!pypto.tensor<[16, 64], f32>"
V = "!pypto.tile<[16, 64], f32, vec>"

CHAIN = f"""
pypto.func incore @k(%a: {X}, %b: {X}, %s: f32, out %o: {X}) -> {X} {{
  %c0 = arith.constant 0 : index
  %x = pypto.tensor.mul %a, %b : {X}
  %y = pypto.tensor.adds %x, %s : {X}, f32
  %w = pypto.tensor.assemble %y into %o[%c0, %c0] : {X} into {X}
  pypto.return %w : {X}
}}
pypto.func orchestration @main(%a: {X}, %b: {X}, %s: f32, out %o: {X}) -> {X} {{
  %r = pypto.call @k(%a, %b, %s, %o) {{pypto.block_dim = 4 : i64}} : ({X}, {X}, f32, {X}) -> {X}
  pypto.return %r : {X}
}}
"""


def static_kernel(body: str, orchestration: str | None = None) -> str:
    """`@k(%a, %n, out %o)` over [16, 64] with `body` making the tile %r it stores."""
    main = orchestration or f"""
pypto.func orchestration @main(%a: {S}, %n: index, out %o: {S}) -> {S} {{
  %r = pypto.call @k(%a, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    return f"""
pypto.func incore @k(%a: {S}, %n: index, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  {body}
  %w = pypto.tile.store %r, %o[%c0, %c0] : {V}, {S}
  pypto.return %w : {S}
}}
{main}
"""


def compile_error(text: str, tmp_path, capsys, *extra: str) -> str:
    src = tmp_path / "p.mlir"
    src.write_text(text)
    out = tmp_path / "out"
    code = pypto_compile.main([str(src), "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    # one diagnostic, located in the input: `p.mlir:L:C: error: ...`, the source line, a caret
    lines = err.strip().splitlines()
    assert len(lines) == 3 and lines[2].lstrip().startswith("^"), err
    located = re.match(rf"{re.escape(str(src))}:\d+:\d+: error: (.*)", lines[0])
    assert located, err
    assert not (out / "kernels").exists()  # nothing printed
    return located.group(1)


@pytest.mark.parametrize("extra", [(), ("--sim",)])
def test_a_converted_dynamic_program_is_refused_at_its_kernel_parameter(extra, tmp_path, capsys):
    """pypto-default tiles the run-time row count; the backend names the kernel's first
    dynamic parameter and the symbol, not the loops and partial tiles it would meet next."""
    err = compile_error(CHAIN, tmp_path, capsys, *extra)
    assert err == (f"ascendc: cannot lower @k: tensor parameter %a has the dynamic shape [N, 128] "
                   f"(N is a run-time extent); {STATIC_ONLY}")


def test_a_partial_load_is_refused_not_printed_as_a_full_copy(tmp_path, capsys):
    body = f"""%t = pypto.tile.load %a[%c0, %c0] valid[%n, %c64] : {S} -> {V}
  %r = pypto.tile.exp %t : {V}"""
    err = compile_error(static_kernel(body), tmp_path, capsys, "-p", "")
    assert err == (f"ascendc: cannot lower 'pypto.tile.load' in @k: the partial load of %t "
                   f"(valid[%n, %c64]) reads a run-time block; {STATIC_ONLY}")


def test_a_partial_tile_is_refused_naming_the_value(tmp_path, capsys):
    body = f"""%t = pypto.tile.load %a[%c0, %c0] : {S} -> {V}
  %r = pypto.tile.set_validshape %t, %n, %c64 : {V}, index, index"""
    err = compile_error(static_kernel(body), tmp_path, capsys, "-p", "")
    assert err == (f"ascendc: cannot lower 'pypto.tile.set_validshape' in @k: %r is a partial tile "
                   f"(a run-time valid shape); {STATIC_ONLY}")


def test_a_dynamic_orchestration_parameter_is_refused_even_if_the_kernels_are_static(tmp_path, capsys):
    main = f"""
pypto.func orchestration @main(%a: !pypto.tensor<[M, 64], f32>, %n: index, out %o: {S}) -> {S} {{
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.slice %a[%c0, %c0] : !pypto.tensor<[M, 64], f32> -> {S}
  %r = pypto.call @k(%w, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    body = f"""%t = pypto.tile.load %a[%c0, %c0] : {S} -> {V}
  %r = pypto.tile.exp %t : {V}"""
    err = compile_error(static_kernel(body, main), tmp_path, capsys, "-p", "")
    assert err == (f"ascendc: cannot lower @main: tensor parameter %a has the dynamic shape [M, 64] "
                   f"(M is a run-time extent); {STATIC_ONLY}")


def test_a_dynamic_tensor_made_by_the_host_is_refused_naming_the_op(tmp_path, capsys):
    main = f"""
pypto.func orchestration @main(%a: {S}, %n: index, out %o: {S}) -> {S} {{
  %tmp = pypto.tensor.create(%n) : !pypto.tensor<[?, 64], f32>
  %r = pypto.call @k(%a, %n, %o) : ({S}, index, {S}) -> {S}
  pypto.return %r : {S}
}}"""
    body = f"""%t = pypto.tile.load %a[%c0, %c0] : {S} -> {V}
  %r = pypto.tile.exp %t : {V}"""
    err = compile_error(static_kernel(body, main), tmp_path, capsys, "-p", "")
    assert err == (f"ascendc: cannot lower 'pypto.tensor.create' in @main: %tmp has the dynamic shape "
                   f"[?, 64] ('?' is an unknown extent); {STATIC_ONLY}")


def test_the_same_kernel_with_static_shapes_compiles(tmp_path, capsys):
    """The refusal is about the extents only: specialised to N = 64 the program prints."""
    src = tmp_path / "p.mlir"
    src.write_text(CHAIN.replace("[N, 128]", "[64, 128]"))
    assert pypto_compile.main([str(src), "-o", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "kernels" / "k.cpp").exists()
