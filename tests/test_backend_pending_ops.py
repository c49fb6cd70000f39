"""The tile ops the Ascend C backend does not lower yet (fillpad_expand) are refused with a diagnostic naming the op, not a crash and not code
that ignores them: one kernel per op family. The lowered ones
are tested in test_backend_tile_ops.py, partial tiles and fillpad in test_backend_partial_tiles.py."""

from __future__ import annotations

import pytest

from pypto_xdsl.tools import pypto_compile

T = "!pypto.tensor<[8, 16], f32>"
V = "!pypto.tile<[8, 16], f32, vec>"
R = "!pypto.tile<[8, 1], f32, vec>"
C = "!pypto.tile<[1, 16], f32, vec>"
W = "!pypto.tile<[16, 8], f32, vec>"

CASES = {
    "fillpad_expand": f"%r = pypto.tile.fillpad_expand %t pad(min) : {V} -> {V}",
}


def kernel(body: str, store: str = "store") -> str:
    return f"""
pypto.func aiv @k(%x: {T}, %s: f32, inout %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = pypto.tile.load %x[%c0, %c0] : {T} -> {V}
  {body}
  %o2 = pypto.tile.{store} %r, %o[%c0, %c0]{" atomic(add)" if store == "atomic_store" else ""} : {V}, {T}
  pypto.return %o2 : {T}
}}
pypto.func orchestration @main(%x: {T}, %s: f32, inout %o: {T}) -> {T} {{
  %r = pypto.call @k(%x, %s, %o) : ({T}, f32, {T}) -> {T}
  pypto.return %r : {T}
}}
"""


def compile_text(text: str, tmp_path, capsys) -> tuple[int, str]:
    src = tmp_path / "k.mlir"
    src.write_text(text)
    code = pypto_compile.main([str(src), "-o", str(tmp_path / "out")])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(CASES))
def test_pending_tile_op_is_refused_by_name(name, tmp_path, capsys):
    code, err = compile_text(kernel(CASES[name]), tmp_path, capsys)
    assert code == 1
    assert "cannot lower 'pypto.tile." in err and "not supported by the Ascend C backend" in err, err
    assert "Traceback" not in err


def test_atomic_store_is_an_add_under_set_atomic_add(tmp_path, capsys):
    """A vector atomic_store is no plain store: its copy out runs under SetAtomicAdd<float>(),
    and the simulation adds into what the destination holds, as the interpreter does."""
    import shutil

    import numpy as np

    from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate

    text = kernel("%r = pypto.tile.neg %t : " + V, store="atomic_store")
    code, err = compile_text(text, tmp_path, capsys)
    assert code == 0, err
    cpp = (tmp_path / "out" / "kernels" / "k.cpp").read_text()
    assert cpp.index("SetAtomicAdd<float>();") < cpp.index("DataCopy(o_gm") < cpp.index("SetAtomicNone();")
    if shutil.which("g++") is None:
        return
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, "pypto-default")
    report = simulate(module, tmp_path / "sim", seed=3, reference_module=reference)
    assert report.reference is not None, report.note
    np.testing.assert_allclose(report.outputs["o"], report.reference["o"], rtol=1e-6, atol=1e-6)
