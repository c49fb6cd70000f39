"""End-to-end: compile tile-level programs to Ascend C + ACL host code, build them with g++
against the CPU simulation, run on random inputs and compare with the reference interpreter
(on the program before the pass pipeline) and with numpy."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.interpreter.tolerance import matmul_tolerance
from pypto_xdsl.tools.pypto_compile import (
    apply_pipeline,
    default_pipeline,
    parse_program,
    simulate,
)

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

PROGRAMS = Path(__file__).parent / "filecheck" / "backend"
RTOL, ATOL = 1e-5, 1e-6


def load(name: str):
    return parse_program((PROGRAMS / f"{name}.mlir").read_text())


def compile_and_run(name: str, tmp_path: Path, seed: int = 0, inputs=None):
    reference = load(name)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    return simulate(module, tmp_path / name, seed=seed, inputs=inputs, reference_module=reference)


def assert_matches_interpreter(report) -> None:
    assert report.reference is not None, report.note
    assert set(report.outputs) == set(report.reference)
    for name, got in report.outputs.items():
        np.testing.assert_allclose(got, report.reference[name], rtol=RTOL, atol=ATOL, err_msg=name)


def inputs_of(report, tmp_path: Path, name: str, param: str, shape) -> np.ndarray:
    return np.fromfile(tmp_path / name / "sim-run" / "in" / f"{param}.bin", dtype=np.float32).reshape(shape)


def test_elementwise_add(tmp_path):
    report = compile_and_run("add", tmp_path)
    assert_matches_interpreter(report)
    x = inputs_of(report, tmp_path, "add", "x", (64, 128))
    y = inputs_of(report, tmp_path, "add", "y", (64, 128))
    np.testing.assert_array_equal(report.outputs["z"], x + y)


def test_fused_mul_add_strided_windows(tmp_path):
    report = compile_and_run("fused", tmp_path, seed=1)
    assert_matches_interpreter(report)
    a, b, c = (inputs_of(report, tmp_path, "fused", p, (128, 128)) for p in "abc")
    np.testing.assert_allclose(report.outputs["d"], a * b + c, rtol=RTOL, atol=ATOL)


def test_scalar_and_unary_ops(tmp_path):
    x = np.random.default_rng(5).uniform(-2, 2, size=(8, 64)).astype(np.float32)
    alpha = np.float32(0.75)
    y0, z0 = np.zeros((8, 64), np.float32), np.zeros((8, 64), np.float32)
    report = compile_and_run("scalar_ops", tmp_path, inputs=[x, float(alpha), y0, z0])
    assert_matches_interpreter(report)
    expected_y = np.maximum((((x + alpha) * np.float32(2)) - np.float32(0.5)) / alpha, 0)
    np.testing.assert_allclose(report.outputs["y"], expected_y, rtol=RTOL, atol=ATOL)
    ab = np.abs(x)
    s3 = np.sqrt(ab) + np.exp(-x) + np.float32(0.25) + np.log(ab + 1)
    expected_z = (np.maximum(s3, x) - np.minimum(s3, x)) / (ab + 1)
    np.testing.assert_allclose(report.outputs["z"], expected_z, rtol=RTOL, atol=ATOL)


def test_row_softmax(tmp_path):
    report = compile_and_run("softmax", tmp_path, seed=2)
    assert_matches_interpreter(report)
    x = inputs_of(report, tmp_path, "softmax", "x", (64, 128))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(report.outputs["y"], e / e.sum(axis=1, keepdims=True), rtol=RTOL, atol=ATOL)


def test_not_32_byte_aligned_shapes(tmp_path):
    report = compile_and_run("unaligned", tmp_path, seed=3)
    assert_matches_interpreter(report)
    x = inputs_of(report, tmp_path, "unaligned", "x", (10, 13))
    np.testing.assert_allclose(report.outputs["y"], x * np.float32(1.5), rtol=RTOL)
    np.testing.assert_allclose(report.outputs["s"], x.sum(axis=1, keepdims=True), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(report.outputs["first"], x[2:3])


def test_tensor_larger_than_ub(tmp_path):
    report = compile_and_run("larger_than_ub", tmp_path, seed=4)
    assert_matches_interpreter(report)
    x = inputs_of(report, tmp_path, "larger_than_ub", "x", (1024, 256))
    assert x.nbytes > 192 * 1024
    np.testing.assert_allclose(report.outputs["y"], x * x - x, rtol=RTOL, atol=ATOL)


def test_in_place_results_of_kernels_that_fill_the_ub(tmp_path):
    """The shapes of the reference's 03_scalar_ops and 04_activation: four [128, 128] f32 tiles
    only fit with the sum computed in place over a dead loaded tile."""
    report = compile_and_run("in_place", tmp_path, seed=3)
    assert_matches_interpreter(report)
    a, b = (inputs_of(report, tmp_path, "in_place", p, (128, 128)) for p in "ab")
    x, y = (inputs_of(report, tmp_path, "in_place", p, (256, 128)) for p in "xy")
    np.testing.assert_array_equal(report.outputs["scaled"], (a + b) * np.float32(2))
    np.testing.assert_array_equal(report.outputs["rectified"], np.maximum(a + b, 0))
    np.testing.assert_array_equal(report.outputs["rows"], np.maximum(x + y, 0))


def test_orchestration_with_several_kernels_and_deps(tmp_path):
    report = compile_and_run("orchestration", tmp_path, seed=6)
    assert_matches_interpreter(report)
    x = inputs_of(report, tmp_path, "orchestration", "x", (16, 64))
    y = inputs_of(report, tmp_path, "orchestration", "y", (16, 64))
    acc = inputs_of(report, tmp_path, "orchestration", "acc", (16, 64))
    z = np.exp(x + y) * x
    np.testing.assert_allclose(report.outputs["z"], z, rtol=RTOL, atol=ATOL)
    expected_acc = acc.copy()
    for _ in range(3):
        expected_acc = expected_acc + z * np.float32(0.5)
    np.testing.assert_allclose(report.outputs["acc"], expected_acc, rtol=RTOL, atol=ATOL)


def test_spmd_kernel_over_four_blocks(tmp_path):
    from pypto_xdsl.interpreter.api import run_spmd

    module = load("spmd")
    report = simulate(module, tmp_path / "spmd", seed=7)
    assert_matches_interpreter(report)  # the interpreter runs the launch on its 4 blocks too
    x = inputs_of(report, tmp_path, "spmd", "x", (128, 64))
    np.testing.assert_array_equal(report.outputs["y"], np.maximum(x, 0) * np.float32(3))
    # The interpreter runs the kernel once per block, as the launch does.
    y = np.zeros((128, 64), np.float32)
    run_spmd(load("spmd"), "spmd_kernel", [x.copy(), y], 4)
    np.testing.assert_allclose(report.outputs["y"], y, rtol=RTOL)


def test_control_flow_loops_branches_and_scalars(tmp_path):
    x = np.random.default_rng(8).uniform(-1, 1, size=(64, 32)).astype(np.float32)
    y0, tail0 = np.zeros((64, 32), np.float32), np.zeros((8, 32), np.float32)
    report = compile_and_run("control_flow", tmp_path, inputs=[x, 8, y0, tail0])
    assert_matches_interpreter(report)
    even_block = (np.arange(64) // 8 % 2 == 0)[:, None]
    np.testing.assert_allclose(report.outputs["y"], np.where(even_block, np.exp(x), np.maximum(x, 0)), rtol=RTOL)
    # 4 of the 8 row blocks are even, so the scale is 2.5
    np.testing.assert_array_equal(report.outputs["tail"], x[:8] * np.float32(2.5))


def test_f16_i32_and_casts(tmp_path):
    report = compile_and_run("dtypes", tmp_path, seed=9)
    assert_matches_interpreter(report)
    run_in = tmp_path / "dtypes" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float16).reshape(16, 32)
    i = np.fromfile(run_in / "i.bin", dtype=np.int32).reshape(8, 64)
    j = np.fromfile(run_in / "j.bin", dtype=np.int32).reshape(8, 64)
    h = (np.exp(a) * np.float16(2)).astype(np.float16) + a
    np.testing.assert_allclose(report.outputs["h"].astype(np.float32), h.astype(np.float32), rtol=1e-3)
    np.testing.assert_array_equal(report.outputs["hf"], report.outputs["h"].astype(np.float32))
    np.testing.assert_array_equal(report.outputs["n"], np.maximum(i * 3, j) - j)
    np.testing.assert_array_equal(report.outputs["ti"], np.trunc(report.outputs["hf"] * np.float32(2.75)).astype(np.int32))


def test_row_broadcasts_with_brcb(tmp_path):
    """Brcb + level-0 row broadcasts: rows wider than one repeat, more than 255 rows, f16, i32."""
    rng = np.random.default_rng(15)

    def away_from_zero(shape, dtype):
        return (rng.uniform(0.5, 2, size=shape) * rng.choice([-1, 1], size=shape)).astype(dtype)

    x8, r8 = rng.uniform(-4, 4, size=(8, 200)).astype(np.float32), away_from_zero((8, 1), np.float32)
    x300, r300 = rng.uniform(-4, 4, size=(300, 8)).astype(np.float32), away_from_zero((300, 1), np.float32)
    xh, rh = rng.uniform(-4, 4, size=(16, 160)).astype(np.float16), away_from_zero((16, 1), np.float16)
    xi, ri = rng.integers(-1000, 1000, size=(8, 72), dtype=np.int32), rng.integers(-50, 50, size=(8, 1), dtype=np.int32)
    outs = [np.zeros(a.shape, a.dtype) for a in (x8, x300, xh, xh, xi, ri)]
    report = compile_and_run("row_broadcast", tmp_path, inputs=[x8, r8, x300, r300, xh, rh, xi, ri, *outs])
    assert_matches_interpreter(report)
    # one exactly rounded operation per element: bit-identical to numpy
    np.testing.assert_array_equal(report.outputs["y8"], x8 - r8)
    np.testing.assert_array_equal(report.outputs["y300"], x300 * r300)
    np.testing.assert_array_equal(report.outputs["yh"], xh / rh)
    np.testing.assert_array_equal(report.outputs["zh"], xh - xh.max(axis=1, keepdims=True))
    np.testing.assert_array_equal(report.outputs["yi"], xi * ri - ri)
    np.testing.assert_array_equal(report.outputs["zi"], np.zeros_like(ri))


@pytest.mark.parametrize("flag", [0, 1])
def test_tiles_carried_through_loops_and_branches(tmp_path, flag):
    x = np.random.default_rng(10).uniform(-1, 1, size=(256, 64)).astype(np.float32)
    outs = [np.zeros((32, 64), np.float32), np.zeros((32, 64), np.float32)]
    report = compile_and_run("carried_tiles", tmp_path, inputs=[x, flag, *outs])
    assert_matches_interpreter(report)
    blocks = x.reshape(8, 32, 64)
    np.testing.assert_allclose(report.outputs["s"], blocks.sum(axis=0), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(report.outputs["m"], blocks.max(axis=0) if flag else blocks[-1])


def test_a_shift_register_of_carried_tiles(tmp_path):
    x = np.random.default_rng(13).uniform(-1, 1, size=(256, 64)).astype(np.float32)
    outs = [np.zeros((32, 64), np.float32), np.zeros((32, 64), np.float32)]
    report = compile_and_run("carried_shift", tmp_path, inputs=[x, *outs])
    assert_matches_interpreter(report)
    blocks = x.reshape(8, 32, 64)
    np.testing.assert_array_equal(report.outputs["o"], blocks[6])  # the block before the last
    np.testing.assert_allclose(report.outputs["s"], blocks[:6].sum(axis=0), rtol=RTOL, atol=ATOL)


def test_slices_assemble_and_dim(tmp_path):
    report = compile_and_run("slices", tmp_path, seed=11)
    assert_matches_interpreter(report)
    run_in = tmp_path / "slices" / "sim-run" / "in"
    x = np.fromfile(run_in / "x.bin", dtype=np.float32).reshape(32, 96)
    y = np.fromfile(run_in / "y.bin", dtype=np.float32).reshape(32, 96)
    y[8:24, 32:96] = np.abs(x[8:24, 32:96])
    y[24:32] = -x[24:32]
    np.testing.assert_array_equal(report.outputs["y"], y)
    np.testing.assert_array_equal(report.outputs["z"], np.concatenate([y[0:16], x[4:20, 0:32]], axis=1))


def test_keyword_names_and_single_row_reductions(tmp_path):
    module = load("keyword_names")
    report = simulate(module, tmp_path / "kw", seed=12)
    assert_matches_interpreter(report)
    x = np.fromfile(tmp_path / "kw" / "sim-run" / "in" / "x.bin", dtype=np.float32).reshape(1, 200)
    np.testing.assert_allclose(report.outputs["y"], x.sum(axis=1, keepdims=True), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(report.outputs["z"], x.max(axis=1, keepdims=True))
    assert (tmp_path / "kw" / "kernels" / "main_kernel.cpp").is_file()


def test_matmul_cube_path(tmp_path):
    report = compile_and_run("matmul", tmp_path, seed=13)
    assert_matches_interpreter(report)
    run_in = tmp_path / "matmul" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float16).reshape(64, 128)
    b = np.fromfile(run_in / "b.bin", dtype=np.float16).reshape(128, 64)
    np.testing.assert_allclose(report.outputs["c"], a.astype(np.float32) @ b.astype(np.float32), rtol=RTOL, atol=ATOL)


def test_matmul_f32_cube_path(tmp_path):
    """f32 operands on the cube (float x float -> float Mmad): the banded Nd2Nz copy and
    LoadDataWithTranspose of the right operand against the interpreter and numpy."""
    report = compile_and_run("matmul_f32", tmp_path, seed=21)
    # the Mmad and the interpreter sum the 64 products in different orders: the documented
    # matmul rule (K = 64, f32 operands), not the elementwise floor
    expected = report.reference["c"]
    tol = matmul_tolerance(64, "f32", scale=float(np.abs(expected).max()))
    np.testing.assert_allclose(report.outputs["c"], expected, rtol=tol.rtol, atol=tol.atol)
    run_in = tmp_path / "matmul_f32" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float32).reshape(32, 64)
    b = np.fromfile(run_in / "b.bin", dtype=np.float32).reshape(64, 48)
    np.testing.assert_allclose(report.outputs["c"], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_matmul_bf16_cube_path(tmp_path):
    """bf16 operands (bfloat16_t x bfloat16_t -> float Mmad) on the f16 route: exact products of
    the rounded inputs accumulated in f32."""
    report = compile_and_run("matmul_bf16", tmp_path, seed=23)
    assert_matches_interpreter(report)
    run_in = tmp_path / "matmul_bf16" / "sim-run" / "in"

    def bf16(name, shape):
        bits = np.fromfile(run_in / f"{name}.bin", dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape).astype(np.float64)

    np.testing.assert_allclose(report.outputs["c"], bf16("a", (32, 64)) @ bf16("b", (64, 48)), rtol=1e-5, atol=1e-5)


def test_matmul_relu_folded_into_fixpipe(tmp_path):
    """relu(A @ B) with the relu as Fixpipe's reluEn: the simulation rectifies on the way out
    of L0C and matches the interpreter's tile.relu; about half the outputs are clamped to 0."""
    report = compile_and_run("matmul_relu", tmp_path, seed=24)
    assert_matches_interpreter(report)
    assert "reluEn = true" in (tmp_path / "matmul_relu" / "kernels" / "matmul_relu.cpp").read_text()
    run_in = tmp_path / "matmul_relu" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float16).reshape(32, 64).astype(np.float64)
    b = np.fromfile(run_in / "b.bin", dtype=np.float16).reshape(64, 48).astype(np.float64)
    got = report.outputs["c"]
    np.testing.assert_allclose(got, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    assert 0.2 < float(np.mean(got == 0)) < 0.8


def test_matmul_bias_table(tmp_path):
    """A @ B + bias with the bias row in the bias table (GM -> C1 -> C2, the 5-argument Mmad
    starting from it): f16 operands with relu as Fixpipe's reluEn, and bf16 operands, in one
    program (one g++ build), against the interpreter and numpy."""
    report = compile_and_run("matmul_bias", tmp_path, seed=31)
    assert_matches_interpreter(report)
    run_in = tmp_path / "matmul_bias" / "sim-run" / "in"
    x = np.fromfile(run_in / "x.bin", dtype=np.float16).reshape(32, 64).astype(np.float64)
    w = np.fromfile(run_in / "w.bin", dtype=np.float16).reshape(64, 48).astype(np.float64)

    def bf16(param, shape):
        bits = np.fromfile(run_in / f"{param}.bin", dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape).astype(np.float64)

    bias = np.fromfile(run_in / "bias.bin", dtype=np.float32).reshape(1, 48).astype(np.float64)
    np.testing.assert_allclose(report.outputs["y"], np.maximum(x @ w + bias, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(report.outputs["z"], bf16("xb", (32, 64)) @ bf16("wb", (64, 48)) + bias, rtol=1e-5, atol=1e-5)
    assert 0.2 < float(np.mean(report.outputs["y"] == 0)) < 0.8  # the relu clamps about half


def test_split_k_atomic_fixpipe(tmp_path):
    """Two blocks add their K-slice products into one output under SetAtomicAdd (after a
    vector kernel zeroes it): the sum of both partials, as the interpreter's atomic_store."""
    report = compile_and_run("matmul_atomic", tmp_path, seed=22)
    assert_matches_interpreter(report)
    run_in = tmp_path / "matmul_atomic" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float32).reshape(32, 128)
    b = np.fromfile(run_in / "b.bin", dtype=np.float32).reshape(128, 32)
    np.testing.assert_allclose(report.outputs["c"], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_task_ids_carried_through_a_host_loop(tmp_path):
    report = compile_and_run("task_loop", tmp_path, seed=14)
    assert_matches_interpreter(report)
    run_in = tmp_path / "task_loop" / "sim-run" / "in"
    x = np.fromfile(run_in / "x.bin", dtype=np.float32).reshape(32, 64)
    y = np.fromfile(run_in / "y.bin", dtype=np.float32).reshape(32, 64)
    np.testing.assert_array_equal(report.outputs["y"], y + x)


@pytest.mark.parametrize("name", ["softmax", "fused", "while_tiles", "scalar_ops"])
def test_kernels_without_their_pipe_v_barriers_fail_in_the_simulation(tmp_path, name):
    """The barriers `ascendc-insert-sync` inserts (and the remove pass keeps) are needed:
    without them the simulation stops on a PIPE_V hazard."""
    from pypto_xdsl.backend.ascendc.sim import SimulationError
    from pypto_xdsl.dialects.ascendc_sync import PipeBarrierOp

    module = load(name)
    apply_pipeline(module, "pypto-ascendc")
    barriers = [op for op in module.walk() if isinstance(op, PipeBarrierOp)]
    assert barriers
    for op in barriers:
        op.detach()
        op.erase()
    with pytest.raises(SimulationError, match=r"with no PipeBarrier<PIPE_V> in between \(missing PIPE_V synchronisation\)"):
        simulate(module, tmp_path / name, seed=1)


def test_matmul_f16_out_converted_in_fixpipe(tmp_path):
    """An f16 product with a relu (tile.cast of the accumulator, then tile.relu) as Fixpipe's
    quantPre F322F16 and reluEn: the simulation converts and rectifies on the way out of L0C,
    into a half tensor, and matches the interpreter and numpy's rounding to f16."""
    report = compile_and_run("matmul_f16_out", tmp_path, seed=25)
    # to one f16 step: the interpreter and the Mmad sum the products in different orders
    np.testing.assert_allclose(report.outputs["c"].astype(np.float32), report.reference["c"].astype(np.float32),
                               rtol=1e-3, atol=1e-4)
    kernel = (tmp_path / "matmul_f16_out" / "kernels" / "matmul_f16.cpp").read_text()
    assert "quantPre = QuantMode_t::F322F16" in kernel and "reluEn = true" in kernel
    run_in = tmp_path / "matmul_f16_out" / "sim-run" / "in"
    a = np.fromfile(run_in / "a.bin", dtype=np.float16).reshape(32, 64).astype(np.float32)
    b = np.fromfile(run_in / "b.bin", dtype=np.float16).reshape(64, 48).astype(np.float32)
    got = report.outputs["c"]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), np.maximum(a @ b, 0).astype(np.float16).astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    assert 0.2 < float(np.mean(got == 0)) < 0.8
