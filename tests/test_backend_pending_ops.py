"""The tile ops the Ascend C printer does not lower yet (their lowering comes with the
`ascendc` dialect) are refused with a diagnostic naming the op, not a crash and not code
that ignores them: one kernel per op family. (Partial tiles, `set_validshape` and
`load ... valid[...]`, are refused as dynamic extents: tests/test_backend_dynamic.py.)"""

from __future__ import annotations

import pytest

from pypto_xdsl.tools import pypto_compile

T = "!pypto.tensor<[8, 16], f32>"
V = "!pypto.tile<[8, 16], f32, vec>"
R = "!pypto.tile<[8, 1], f32, vec>"
C = "!pypto.tile<[1, 16], f32, vec>"
W = "!pypto.tile<[16, 8], f32, vec>"

CASES = {
    "create": f"%r = pypto.tile.create : {V}",
    "fillpad": f"%r = pypto.tile.fillpad %t pad(min) : {V}",
    "rsqrt": f"%r = pypto.tile.rsqrt %t : {V}",
    "tanh": f"%r = pypto.tile.tanh %t : {V}",
    "sin": f"%r = pypto.tile.sin %t : {V}",
    "maximums": f"%r = pypto.tile.maximums %t, %s : {V}, f32",
    "expands": f"%r = pypto.tile.expands %t, %s : {V}, f32",
    "col_expand_mul": f"%v = pypto.tile.load %x[%c0, %c0] : {T} -> {C}\n  %r = pypto.tile.col_expand_mul %t, %v : {V}, {C}",
    "row_expand_add": f"%v = pypto.tile.row_sum %t : {V}\n  %r = pypto.tile.row_expand_add %t, %v : {V}, {R}",
    "row_min": f"%v = pypto.tile.row_min %t : {V}\n  %r = pypto.tile.row_expand_sub %t, %v : {V}, {R}",
    "col_sum": f"%v = pypto.tile.col_sum %t : {V}\n  %r = pypto.tile.col_expand_sub %t, %v : {V}, {C}",
    "transpose": f"%q = pypto.tile.transpose %t, 0, 1 : {V} -> {W}\n  %r = pypto.tile.transpose %q, 0, 1 : {W} -> {V}",
    "reshape": f"%q = pypto.tile.reshape %t : {V} -> {W}\n  %r = pypto.tile.reshape %q : {W} -> {V}",
    "slice": f"%w = pypto.tile.slice %t[%c0, %c0] : {V} -> !pypto.tile<[1, 16], f32, vec>\n  %r = pypto.tile.assemble %w into %t[%c0, %c0] : !pypto.tile<[1, 16], f32, vec> into {V}",
    "write": f"%r = pypto.tile.write %s into %t[%c0, %c0] : f32 into {V}",
    "read": f"%e = pypto.tile.read %t[%c0, %c0] : {V}\n  %r = pypto.tile.adds %t, %e : {V}, f32",
    "concat": f"%h = pypto.tile.slice %t[%c0, %c0] : {V} -> !pypto.tile<[8, 8], f32, vec>\n  %r = pypto.tile.concat %h, %h : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 8], f32, vec>",
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


def test_atomic_store_is_refused_not_printed_as_a_store(tmp_path, capsys):
    code, err = compile_text(kernel("%r = pypto.tile.neg %t : " + V, store="atomic_store"), tmp_path, capsys)
    assert code == 1 and "cannot lower 'pypto.tile.atomic_store'" in err, err
