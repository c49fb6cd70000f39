"""`tensor.assemble` left inside a kernel: a copy from global memory to global memory (a
window of a parameter, the parameter itself, or a `tensor.transpose` view of one), which the
backend stages through UB (`DataCopy` GM -> UB, a copy or a transpose, `DataCopy` UB -> GM).
Each program is compiled with `pypto-compile`'s pipeline, simulated and compared bit for bit
with the interpreter; the refusals name the op."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from pypto_xdsl.analysis.cxx_names import BackendError
from pypto_xdsl.runtime.passes import emit_ascendc
from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, parse_program, simulate

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32}


def _t(shape, e):
    return f"!pypto.tensor<[{', '.join(map(str, shape))}], {e}>"


def program(x_shape, o_shape, e, body: str, o_dir: str = "inout") -> str:
    """A kernel @k(%x, %o) whose body ends with `%r`, the assembled %o, and its caller."""
    x, o = _t(x_shape, e), _t(o_shape, e)
    body = body.replace("{X}", x).replace("{O}", o)
    return f"""
pypto.func incore @k(%x: {x}, {o_dir} %o: {o}) -> {o} {{
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  {body}
  pypto.return %r : {o}
}}
pypto.func orchestration @main(%x: {x}, {o_dir} %o: {o}) -> {o} {{
  %r = pypto.call @k(%x, %o) : ({x}, {o}) -> {o}
  pypto.return %r : {o}
}}
"""


def transposed(x_shape, o_shape, e, at=("%c0", "%c0"), atomic: bool = False) -> str:
    rows, cols = x_shape
    tr = _t((cols, rows), e)
    mode = " atomic(add)" if atomic else ""
    return program(x_shape, o_shape, e, f"""%tr = pypto.tensor.transpose %x, 0, 1 : {{X}} -> {tr}
  %r = pypto.tensor.assemble %tr into %o[{at[0]}, {at[1]}]{mode} : {tr} into {{O}}""")


def run(text: str, tmp_path, seed: int = 5):
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path, seed=seed, reference_module=reference)
    assert report.reference is not None, report.note
    return report


def kernel_cpp(text: str) -> str:
    module = parse_program(text)
    apply_pipeline(module, default_pipeline())
    return emit_ascendc(module).files["kernels/k.cpp"]


@needs_gxx
@pytest.mark.parametrize("e, x_shape, o_shape, at", [
    ("f32", (8, 16), (16, 8), ("%c0", "%c0")),
    ("f16", (5, 12), (16, 24), ("%c2", "%c3")),  # unaligned rows and columns, into an unaligned window
    ("i32", (3, 40), (40, 8), ("%c0", "%c4")),
])
def test_transposed_assemble_matches_the_interpreter(e, x_shape, o_shape, at, tmp_path):
    report = run(transposed(x_shape, o_shape, e, at), tmp_path)
    got, want = report.outputs["o"], report.reference["o"]
    np.testing.assert_array_equal(got, want)
    rows, cols = x_shape
    i, j = (int(a.removeprefix("%c")) for a in at)
    assert not np.array_equal(got[i:i + cols, j:j + rows], np.zeros((cols, rows)))


@needs_gxx
def test_transposed_assemble_larger_than_one_staging_buffer_goes_in_blocks(tmp_path):
    """[64, 256] f32 is 64 KiB: blocks of 32 source rows, each written to 32 destination columns."""
    text = transposed((64, 256), (256, 64), "f32")
    cpp = kernel_cpp(text)
    assert cpp.count("DataCopy(r_in") == 2, cpp
    report = run(text, tmp_path)
    np.testing.assert_array_equal(report.outputs["o"], report.reference["o"])


@needs_gxx
def test_atomic_transposed_assemble_adds_into_the_destination(tmp_path):
    text = transposed((8, 16), (16, 8), "f32", atomic=True)
    cpp = kernel_cpp(text)
    assert cpp.index("SetAtomicAdd<float>();") < cpp.index("DataCopy(o_gm") < cpp.index("SetAtomicNone();")
    report = run(text, tmp_path)
    np.testing.assert_array_equal(report.outputs["o"], report.reference["o"])


@needs_gxx
@pytest.mark.parametrize("e", ["f32", "f16"])
def test_assemble_of_an_overlapping_window_of_the_destination(e, tmp_path):
    """o[0:6, :] = o[2:8, :]: the windows overlap, so convert-tensor-to-tile leaves the assemble;
    the whole source is read into UB before any of it is written (numpy's semantics too)."""
    text = program((8, 20), (8, 20), e, """%s = pypto.tensor.slice %o[%c2, %c0] : {O} -> !pypto.tensor<[6, 20], E>
  %r = pypto.tensor.assemble %s into %o[%c0, %c0] : !pypto.tensor<[6, 20], E> into {O}""".replace("E>", f"{e}>"))
    assert "DataCopy(r_out, r_in" in kernel_cpp(text)
    reference = parse_program(text)
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    o = np.arange(160, dtype=NP[e]).reshape(8, 20)
    report = simulate(module, tmp_path, inputs=[np.zeros((8, 20), NP[e]), o.copy()], reference_module=reference)
    assert report.reference is not None, report.note
    got, want = report.outputs["o"], report.reference["o"]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got[:6], o[2:])
    np.testing.assert_array_equal(got[6:], o[6:])


def test_a_large_self_overlapping_assemble_is_refused():
    text = program((8, 8), (128, 256), "f32", """%s = pypto.tensor.slice %o[%c4, %c0] : {O} -> !pypto.tensor<[64, 256], f32>
  %r = pypto.tensor.assemble %s into %o[%c0, %c0] : !pypto.tensor<[64, 256], f32> into {O}""")
    module = parse_program(text)
    apply_pipeline(module, default_pipeline())
    with pytest.raises(BackendError, match="may share storage with its destination and does not fit one 32768-byte"):
        emit_ascendc(module)


def test_a_transposed_view_read_other_than_by_an_assemble_is_refused():
    text = program((8, 16), (16, 8), "f32", """%tr = pypto.tensor.transpose %x, 0, 1 : {X} -> {O}
  %t = pypto.tile.load %tr[%c0, %c0] : {O} -> !pypto.tile<[16, 8], f32, vec>
  %r = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[16, 8], f32, vec>, {O}""")
    module = parse_program(text)
    apply_pipeline(module, default_pipeline())
    with pytest.raises(BackendError, match="lowers a transposed tensor only as the source of a tensor.assemble"):
        emit_ascendc(module)


@needs_gxx
def test_transposed_f16_assemble_uses_the_vector_transpose(tmp_path):
    """[32, 48] f16 (extents multiples of 16): the staged block is transposed by Ascend C's
    Transpose, 16 x 16 block by block, not on the scalar unit."""
    text = transposed((32, 48), (48, 32), "f16")
    cpp = kernel_cpp(text)
    assert cpp.count("Transpose(") == 6 and "GetValue" not in cpp, cpp
    report = run(text, tmp_path)
    np.testing.assert_array_equal(report.outputs["o"], report.reference["o"])


@needs_gxx
def test_transposed_assemble_at_run_time_offsets_in_a_loop(tmp_path):
    """o[:, i:i+8] = x[i:i+8, :]^T for i in 0, 8, 16, 24: run-time source and destination
    origins, the staging queues double-buffered by the loop."""
    from pathlib import Path

    text = (Path(__file__).parent / "backend_inputs" / "gm_transpose_loop.mlir").read_text()
    cpp = kernel_cpp(text)
    assert "for (int64_t i = 0; i < 32; i += 8)" in cpp and "InitBuffer(inQ_a_in, 2," in cpp, cpp
    report = run(text, tmp_path)
    np.testing.assert_array_equal(report.outputs["o"], report.reference["o"])
