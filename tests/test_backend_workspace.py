"""Kernel-local GM tensors (`pypto.tensor.create` inside a kernel) live in a per-launch workspace.

End to end: compile (pypto-default, which materialises intermediates as kernel-local tensors),
build against the CPU simulation with g++, run on random inputs and compare with the interpreter
on the pre-pipeline program and with numpy. Plus the simulation's workspace bounds check and the
printer's errors.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.host import kernel_signature
from pypto_xdsl.backend.ascendc.kernel import (
    print_kernel,
    returned_locals,
    workspace_plan,
)
from pypto_xdsl.dialects import program
from pypto_xdsl.runtime.passes import emit_ascendc
from pypto_xdsl.tools.pypto_compile import (
    apply_pipeline,
    compile_module,
    default_pipeline,
    parse_program,
    simulate,
    write_inputs,
)
from pypto_xdsl.transforms.pipelines import lower_kernel_for_ascendc

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

PROGRAMS = Path(__file__).parent / "filecheck" / "backend"
RTOL, ATOL = 1e-5, 1e-6


def load(name: str):
    return parse_program((PROGRAMS / f"{name}.mlir").read_text())


def func(module, name: str) -> program.FuncOp:
    for f in program.func_ops(module):
        if f.sym_name.data == name:
            return f
    raise KeyError(name)


def pipelined(name: str):
    module = load(name)
    apply_pipeline(module, default_pipeline())
    return module


def read_input(tmp_path: Path, name: str, param: str, shape) -> np.ndarray:
    return np.fromfile(tmp_path / name / "sim-run" / "in" / f"{param}.bin", dtype=np.float32).reshape(shape)


def assert_matches_interpreter(report) -> None:
    assert report.reference is not None, report.note
    assert set(report.outputs) == set(report.reference)
    for name, got in report.outputs.items():
        np.testing.assert_allclose(got, report.reference[name], rtol=RTOL, atol=ATOL, err_msg=name)


# --------------------------------------------------------------------------- planning


def test_the_pipeline_materialises_kernel_local_tensors_and_plans_their_slots():
    module = pipelined("workspace")
    plans = {k: workspace_plan(func(module, k)) for k in ("ws_slice", "ws_odd", "ws_loop")}
    assert [(s.value.name_hint, s.offset, s.bytes) for s in plans["ws_slice"][0]] == [("t", 0, 64 * 128 * 4)]
    assert plans["ws_slice"][1] == 32768
    # two [10, 13] f32 tensors of 520 bytes, each on a 512-byte boundary
    assert [(s.value.name_hint, s.offset, s.bytes) for s in plans["ws_odd"][0]] == [("m", 0, 520), ("t", 1024, 520)]
    assert plans["ws_odd"][1] == 2048
    # the tensor created inside the loop has one slot, reused by every iteration
    assert [(s.offset, s.bytes) for s in plans["ws_loop"][0]] == [(0, 2048)]
    # the orchestration has no kernel-local tensors of its own
    assert workspace_plan(func(module, "main")) == ([], 0)


def test_only_kernels_with_local_tensors_take_a_workspace():
    module = pipelined("workspace_result")
    twice, use = func(module, "twice"), func(module, "use")
    lowered_twice, lowered_use = lower_kernel_for_ascendc(twice), lower_kernel_for_ascendc(use)
    assert kernel_signature(lowered_twice)[-1] == ("void*", "workspace")
    assert all(name != "workspace" for _, name in kernel_signature(lowered_use))
    assert lowered_twice.workspace_bytes == 64 * 128 * 4
    assert [(r.kind.data, r.value.data) for r in lowered_twice.result_kinds] == [("workspace", 0)]
    assert "GM_ADDR workspace" in print_kernel(lowered_twice)
    assert "workspace" not in print_kernel(lowered_use)
    slot = returned_locals(twice)[0]
    assert slot is not None and slot.offset == 0 and slot.bytes == 64 * 128 * 4
    assert returned_locals(use) == [None]


# --------------------------------------------------------------------------- end to end


@needs_gxx
def test_materialised_intermediates_end_to_end(tmp_path):
    reference = load("workspace")
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "workspace", seed=21, reference_module=reference)
    assert_matches_interpreter(report)
    a = read_input(tmp_path, "workspace", "a", (64, 128))
    b = read_input(tmp_path, "workspace", "b", (64, 128))
    c = read_input(tmp_path, "workspace", "c", (10, 13))
    x = read_input(tmp_path, "workspace", "x", (32, 64))
    t = a * b
    np.testing.assert_allclose(report.outputs["o"], np.exp(t[16:48]), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(report.outputs["p"], t)
    m = c * c
    np.testing.assert_allclose(report.outputs["q"], m[0:4, 0:8] - (m + c)[2:6, 3:11], rtol=RTOL, atol=ATOL)
    z = np.concatenate([np.exp(x[8 * i : 8 * i + 8][2:6] * np.float32(2)) for i in range(4)])
    np.testing.assert_allclose(report.outputs["z"], z, rtol=RTOL, atol=ATOL)


@needs_gxx
def test_kernel_returning_its_local_tensor_feeds_the_next_kernel(tmp_path):
    """The issue's example: t = a * b; u = exp(t); r = t + u in an incore scope with no out
    parameter. r stays in the first kernel's workspace and the host passes it on."""
    reference = load("workspace_result")
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "wr", seed=22, reference_module=reference)
    assert_matches_interpreter(report)
    a = read_input(tmp_path, "wr", "a", (64, 128))
    b = read_input(tmp_path, "wr", "b", (64, 128))
    t = a * b
    np.testing.assert_allclose(report.outputs["o"], (t + np.exp(t)) * np.float32(3), rtol=RTOL, atol=ATOL)


@needs_gxx
def test_spmd_kernel_gives_every_block_its_own_workspace(tmp_path):
    from pypto_xdsl.interpreter.api import run_spmd

    report = simulate(load("workspace_spmd"), tmp_path / "spmd", seed=23)
    assert_matches_interpreter(report)  # the interpreter runs the launch on its 4 blocks too
    x = read_input(tmp_path, "spmd", "x", (64, 64))
    np.testing.assert_allclose(report.outputs["y"], np.exp(x) + x, rtol=RTOL, atol=ATOL)
    y = np.zeros((64, 64), np.float32)
    run_spmd(load("workspace_spmd"), "spmd_ws", [x.copy(), y], 4)
    np.testing.assert_allclose(report.outputs["y"], y, rtol=RTOL, atol=ATOL)


@needs_gxx
def test_simulation_rejects_a_workspace_too_small_for_all_blocks(tmp_path):
    """The host allocates blocks x bytes-per-block; with only one block's worth, block 1's
    kernel-local tensor would lie past the allocation: the simulation stops."""
    module = load("workspace_spmd")
    out = tmp_path / "small"
    compile_module(module, out)
    host = out / "host" / "main_orch.cpp"
    text = host.read_text()
    assert "aclrtMalloc(&spmd_ws_ws_dev, 8192," in text
    host.write_text(text.replace("aclrtMalloc(&spmd_ws_ws_dev, 8192,", "aclrtMalloc(&spmd_ws_ws_dev, 2048,"))
    exe = sim.build(out)
    in_dir = out / "in"
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    write_inputs(func(module, "main"), [x, np.zeros((64, 64), np.float32)], in_dir)
    result = sim.run(exe, in_dir, out / "res")
    assert result.returncode == 86, result.stderr
    assert "pypto-sim error [kernel spmd_ws, block 1/4]" in result.stderr
    assert re.search(r"SetGlobalBuffer\(.*2048 bytes\) is not inside one device allocation", result.stderr), result.stderr


# --------------------------------------------------------------------------- errors


def kernel_error(text: str, name: str = "k") -> str:
    module = parse_program(text)
    with pytest.raises(BackendError) as info:
        print_kernel(lower_kernel_for_ascendc(func(module, name)))
    return str(info.value)


T = "!pypto.tensor<[8, 64], f32>"


def test_dynamic_kernel_local_tensor_is_rejected():
    msg = kernel_error(f"""
pypto.func incore @k(%x: {T}, %n: index, out %o: {T}) -> {T} {{
  %t = pypto.tensor.create(%n) : !pypto.tensor<[?, 64], f32>
  pypto.return %o : {T}
}}""")
    assert "cannot lower 'pypto.tensor.create' in @k" in msg
    assert "dynamic shape" in msg


def test_returning_a_window_of_a_local_tensor_is_rejected():
    msg = kernel_error(f"""
pypto.func incore @k(%x: {T}) -> !pypto.tensor<[4, 64], f32> {{
  %c0 = arith.constant 0 : index
  %t = pypto.tensor.create : {T}
  %l = pypto.tile.load %x[%c0, %c0] : {T} -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %l, %t[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, {T}
  %s = pypto.tensor.slice %w[%c0, %c0] : {T} -> !pypto.tensor<[4, 64], f32>
  pypto.return %s : !pypto.tensor<[4, 64], f32>
}}""")
    assert "cannot lower 'pypto.return' in @k" in msg
    assert "only a whole kernel-local tensor can be returned" in msg


def _returning_program(call_attrs: str, in_loop: bool) -> str:
    kernel = f"""
pypto.func incore @k(%x: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %t = pypto.tensor.create : {T}
  %l = pypto.tile.load %x[%c0, %c0] : {T} -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %l, %t[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, {T}
  pypto.return %w : {T}
}}"""
    if in_loop:
        body = f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%cur = %x) -> ({T}) {{
    %n = pypto.call @k(%cur) : ({T}) -> {T}
    scf.yield %n : {T}
  }}
  %o2 = pypto.call @copy(%r, %o) : ({T}, {T}) -> {T}"""
    else:
        body = f"""
  %n = pypto.call @k(%x) {call_attrs} : ({T}) -> {T}
  %o2 = pypto.call @copy(%n, %o) : ({T}, {T}) -> {T}"""
    return kernel + f"""
pypto.func incore @copy(%a: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  %l = pypto.tile.load %a[%c0, %c0] : {T} -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %l, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, {T}
  pypto.return %w : {T}
}}
pypto.func orchestration @main(%x: {T}, out %o: {T}) -> {T} {{{body}
  pypto.return %o2 : {T}
}}"""


def test_host_reads_a_returned_local_tensor_from_the_workspace():
    em = emit_ascendc(parse_program(_returning_program("", False)))
    host = em.files["host/main_orch.cpp"]
    assert "void* n_dev = k_ws_dev;  // %n: kernel-local tensor of @k, in its workspace" in host
    assert "ACLRT_LAUNCH_KERNEL(copy)(1, stream, n_dev, o_dev)" in host


def test_returned_local_tensor_of_a_multi_block_launch_is_rejected():
    with pytest.raises(BackendError, match=r"@k returns the kernel-local tensor %n .* launched on 2 blocks"):
        emit_ascendc(parse_program(_returning_program("{pypto.block_dim = 2 : i64}", False)))


def test_returned_local_tensor_carried_out_of_a_host_loop_is_rejected():
    with pytest.raises(BackendError, match=r"the workspace is reused by every iteration"):
        emit_ascendc(parse_program(_returning_program("", True)))
