"""`scf.while` in kernels and host code: printed as `while (true)` loops with carried values,
built with g++ against the CPU simulation and compared with the interpreter and numpy."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.runtime.passes import emit_ascendc
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


TILES_PROGRAM = Path(__file__).parent / "filecheck" / "backend" / "while_tiles.mlir"


@needs_gxx
@pytest.mark.parametrize("n", [0, 1, 4])
def test_tiles_carried_through_while(tmp_path, n):
    rng = np.random.default_rng(32)
    x = rng.uniform(-1, 1, size=(16, 64)).astype(np.float32)
    outs = [rng.uniform(-1, 1, size=(16, 64)).astype(np.float32) for _ in range(4)]
    report = simulate(parse_program(TILES_PROGRAM.read_text()), tmp_path / "wt", inputs=[x, n, *outs])
    assert report.reference is not None, report.note
    for name, got in report.outputs.items():
        np.testing.assert_allclose(got, report.reference[name], rtol=RTOL, atol=ATOL, err_msg=name)
    t = x.copy()
    for _ in range(n):
        t = t * np.float32(0.5) + x
    np.testing.assert_array_equal(report.outputs["y"], t)
    t, z = x.copy(), outs[1].copy()
    for _ in range(n):
        t = np.maximum(t, x)
        z = t.copy()
        t = t * np.float32(-0.5)
    np.testing.assert_array_equal(report.outputs["z"], z)
    np.testing.assert_array_equal(report.outputs["y2"], np.maximum(t, x))
    np.testing.assert_array_equal(report.outputs["y3"], x)


@needs_gxx
def test_loaded_tile_yielded_from_scf_for_is_freed(tmp_path):
    """A tile loaded in a loop body and yielded as its last use is freed after the yield's copy
    (before: never freed, so the next iteration's AllocTensor found its queue full)."""
    text = f"""
pypto.func incore @k(%x: {T}, out %y: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %xt = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
  %t = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %xt) -> ({TILE}) {{
    %u = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
    %s = pypto.tile.add %a, %u : {TILE}
    scf.yield %s : {TILE}
  }}
  %t2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t) -> ({TILE}) {{
    %u = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
    scf.yield %u : {TILE}
  }}
  %r = pypto.tile.add %t, %t2 : {TILE}
  %w = pypto.tile.store %r, %y[%c0, %c0] : {TILE}, {T}
  pypto.return %w : {T}
}}
pypto.func orchestration @main(%x: {T}, out %y: {T}) -> {T} {{
  %r = pypto.call @k(%x, %y) : ({T}, {T}) -> {T}
  pypto.return %r : {T}
}}"""
    x = np.random.default_rng(33).uniform(-1, 1, size=(8, 64)).astype(np.float32)
    report = simulate(parse_program(text), tmp_path / "fy", inputs=[x, np.zeros_like(x)])
    assert report.reference is not None, report.note
    np.testing.assert_array_equal(report.outputs["y"], report.reference["y"])
    np.testing.assert_array_equal(report.outputs["y"], (x + x + x + x) + x)


T = "!pypto.tensor<[8, 64], f32>"
TILE = "!pypto.tile<[8, 64], f32, vec>"


def test_swapping_carried_tiles_in_while_is_rejected():
    text = f"""
pypto.func incore @k(%x: {T}, %n: index, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
  %u = pypto.tile.exp %t : {TILE}
  %i, %r, %s = scf.while (%j = %c0, %p = %t, %q = %u) : (index, {TILE}, {TILE}) -> (index, {TILE}, {TILE}) {{
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %p, %q : index, {TILE}, {TILE}
  }} do {{
  ^bb0(%jj: index, %a: {TILE}, %b: {TILE}):
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %b, %a : index, {TILE}, {TILE}
  }}
  %d = pypto.tile.sub %r, %s : {TILE}
  %w = pypto.tile.store %d, %o[%c0, %c0] : {TILE}, {T}
  pypto.return %w : {T}
}}"""
    with pytest.raises(BackendError, match=r"cannot lower 'scf.while' in @k: yielding one carried tile in place of another \(a swap\) is not supported"):
        emit_ascendc(parse_program(text))


def test_tile_moving_position_in_while_is_rejected():
    text = f"""
pypto.func incore @k(%x: {T}, %n: index, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : {T} -> {TILE}
  %r, %i = scf.while (%j = %c0, %acc = %t) : (index, {TILE}) -> ({TILE}, index) {{
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %acc, %j : {TILE}, index
  }} do {{
  ^bb0(%a: {TILE}, %jj: index):
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %a : index, {TILE}
  }}
  %w = pypto.tile.store %r, %o[%c0, %c0] : {TILE}, {T}
  pypto.return %w : {T}
}}"""
    with pytest.raises(BackendError, match=r"cannot lower 'scf.while' in @k: a tile carried through scf.while keeps its position: the initial value at position 0 is index"):
        emit_ascendc(parse_program(text))


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
        emit_ascendc(parse_program(text))
