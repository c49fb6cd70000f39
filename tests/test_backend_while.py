"""`scf.while` in kernels and host code: printed as `while (true)` loops with carried values,
built with g++ against the CPU simulation and compared with the interpreter and numpy."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.emit import emit_program
from pypto_xdsl.tools.pypto_compile import parse_program, simulate

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

PROGRAM = Path(__file__).parent / "filecheck" / "backend" / "while.mlir"
RTOL, ATOL = 1e-5, 1e-6


@needs_gxx
@pytest.mark.parametrize(("k", "nblk", "reps"), [(5.0, 3, 2), (0.5, 0, 0), (40.0, 4, 3)])
def test_while_loops_in_kernel_and_host(tmp_path, k, nblk, reps):
    rng = np.random.default_rng(31)
    x = rng.uniform(-1, 1, size=(32, 64)).astype(np.float32)
    y0 = rng.uniform(-1, 1, size=(32, 64)).astype(np.float32)
    acc0 = rng.uniform(-1, 1, size=(32, 64)).astype(np.float32)
    report = simulate(parse_program(PROGRAM.read_text()), tmp_path / "w", inputs=[x, k, nblk, reps, y0, acc0])
    assert report.reference is not None, report.note
    for name, got in report.outputs.items():
        np.testing.assert_allclose(got, report.reference[name], rtol=RTOL, atol=ATOL, err_msg=name)
    s = np.float32(k)
    while s > 1:
        s = np.float32(s * np.float32(0.5))
    y = y0.copy()
    y[: 8 * nblk] = np.exp(x[: 8 * nblk]) * s
    np.testing.assert_allclose(report.outputs["y"], y, rtol=RTOL, atol=ATOL)
    acc = acc0.copy()
    for _ in range(reps):
        acc = acc + y
    np.testing.assert_allclose(report.outputs["acc"], acc, rtol=RTOL, atol=ATOL)


T = "!pypto.tensor<[8, 64], f32>"
TILE = "!pypto.tile<[8, 64], f32, vec>"


def test_tile_carried_through_while_is_rejected():
    text = f"""
pypto.func incore @k(%x: {T}, %n: index, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
  %i, %r = scf.while (%j = %c0, %acc = %t) : (index, {TILE}) -> (index, {TILE}) {{
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %acc : index, {TILE}
  }} do {{
  ^bb0(%jj: index, %a: {TILE}):
    %e = pypto.tile.exp %a : {TILE}
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %e : index, {TILE}
  }}
  %w = pypto.tile.store %r, %o[%c0, %c0] : {TILE}, {T}
  pypto.return %w : {T}
}}"""
    with pytest.raises(BackendError, match=r"cannot lower 'scf.while' in @k: tile values .* cannot be carried through scf.while"):
        emit_program(parse_program(text))


def test_forwarding_a_tensor_that_is_not_carried_is_rejected():
    text = f"""
pypto.func incore @k(%x: {T}, %n: index, out %o: {T}, out %p: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i, %r = scf.while (%j = %c0, %acc = %o) : (index, {T}) -> (index, {T}) {{
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %p : index, {T}
  }} do {{
  ^bb0(%jj: index, %a: {T}):
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %o : index, {T}
  }}
  pypto.return %o : {T}
}}"""
    with pytest.raises(BackendError, match=r"forwarded by scf.condition must name the storage of one of the loop's carried"):
        emit_program(parse_program(text))
