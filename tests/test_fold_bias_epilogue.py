"""fold-bias-epilogue, part of pypto-default, on examples/mixed/fused_linear.py: the matmul's
vector epilogue (a bias row added with col_expand_add, then relu) becomes tile.matmul_bias with
the relu on the accumulator, so expand-mixed-kernel finds one cube kernel instead of a MIX
group; the result still matches numpy and the unfolded program (interpreter, f16 and bf16,
two shapes), and the CPU simulation of the cube kernel matches the interpreter.
`pypto-default{fold-bias=false}` keeps the MIX group. A K loop from a zero fill is peeled."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import parse_module, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.interpreter.tolerance import assert_close_to_reference, program_precision, tolerance_for
from pypto_xdsl.runtime.passes import apply_pipeline
from tests.test_mixed_kernels import _apply

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mixed" / "fused_linear.py"
# (M, K, N), input dtype: the shapes tests/test_mixed_kernels.py runs the MIX linear layer at
SHAPES = [((128, 256, 128), "f16"), ((128, 256, 128), "bf16"), ((64, 128, 192), "f16"), ((64, 128, 192), "bf16")]


def _linear():
    spec = importlib.util.spec_from_file_location("mixed_fused_linear_fold", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LINEAR = _linear()
DTYPES = {"f16": (pl.FP16, np.float16), "bf16": (pl.BF16, LINEAR.BF16)}


def _kinds(module) -> dict[str, FuncKind]:
    return {f.sym_name.data: f.func_kind for f in func_ops(module)}


@pytest.mark.parametrize("shape, dtype", SHAPES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_pypto_default_folds_the_epilogue_into_one_cube_kernel(shape, dtype):
    pl_dtype, np_dtype = DTYPES[dtype]
    program = LINEAR.build(*shape, pl_dtype)
    before = _apply(program.fresh_module(), "inline-functions", "outline-incore-scopes", "convert-tensor-to-tile")
    module = _apply(program.fresh_module(), "pypto-default")
    kinds = _kinds(module)
    assert kinds["linear_relu"] == FuncKind.AIC and FuncKind.GROUP not in kinds.values()
    text = str(module)
    assert "pypto.tile.matmul_bias" in text and "col_expand_add" not in text and "vec>" not in text
    # the bias joins the accumulation first: the same within the matmul tolerance
    assert_same_semantics(before, module, "main", seeds=(0, 1))
    x, w, bias, y = LINEAR.inputs(*shape, np_dtype)
    result = run(module, "main", [x, w, bias, y])[0]
    assert_close_to_reference(result, LINEAR.reference(x, w, bias), k=shape[1], dtype=dtype)


def test_fold_bias_false_keeps_the_mixed_kernel():
    module = LINEAR.build(64, 128, 192).fresh_module()
    apply_pipeline(module, "pypto-default{fold-bias=false}")
    kinds = _kinds(module)
    assert kinds["linear_relu"] == FuncKind.GROUP
    assert kinds["linear_relu_aic"] == FuncKind.AIC and kinds["linear_relu_aiv"] == FuncKind.AIV
    assert "matmul_bias" not in str(module) and "col_expand_add" in str(module)


def test_a_k_loop_from_a_zero_fill_is_peeled_and_computes_what_it_computed():
    text = (ROOT / "tests/filecheck/transforms/fold-bias-epilogue/zero_start.mlir").read_text()
    after = _apply(parse_module(text), "fold-bias-epilogue")
    assert str(after).count("pypto.tile.matmul_bias") == 3  # zero_start, both of one_step; not no_step
    for entry in ("zero_start", "one_step", "no_step"):
        assert_same_semantics(text, after, entry, seeds=(0, 1))


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
def test_the_folded_linear_layer_compiles_to_one_cube_kernel_that_matches_the_interpreter(tmp_path):
    tool = str(Path(sys.executable).parent / "pypto-compile")
    proc = subprocess.run([tool, str(EXAMPLE), "-o", str(tmp_path / "out"), "--sim"],  # the default pipeline
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "simulation matches the interpreter" in proc.stdout
    kernel = (tmp_path / "out" / "kernels" / "linear_relu.cpp").read_text()
    assert "KERNEL_TYPE_AIC_ONLY" in kernel and "reluEn = true" in kernel
    assert "Mmad(acc, " in kernel and "TPosition::C2" in kernel


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("shape, dtype", [((64, 128, 192), "f16"), ((64, 128, 192), "bf16")],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_the_folded_linear_layer_on_the_simulation_matches_the_interpreter(shape, dtype, tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import default_pipeline, simulate

    pl_dtype, np_dtype = DTYPES[dtype]
    reference = LINEAR.build(*shape, pl_dtype).fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    inputs = list(LINEAR.inputs(*shape, np_dtype))
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    (kernel,) = (tmp_path / "out" / "kernels").glob("*.cpp")
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);" in kernel.read_text()
    assert report.reference is not None, report.note
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    tolerance = tolerance_for(np.asarray(expected), program_precision(reference))
    got = report.outputs["y"]
    assert tolerance.close(expected, got).all(), (tolerance, float(np.max(np.abs(got - expected))))


F16_BIAS_SHAPES = [(128, 256, 128), (64, 128, 192)]


@pytest.mark.parametrize("shape", F16_BIAS_SHAPES, ids=lambda v: "x".join(map(str, v)))
def test_an_f16_bias_row_folds_and_computes_what_the_unfolded_program_did(shape):
    program = LINEAR.build(*shape, pl.FP16, bias_dtype=pl.FP16)
    before = _apply(program.fresh_module(), "inline-functions", "outline-incore-scopes", "convert-tensor-to-tile")
    assert "pypto.tile.cast" in str(before)
    module = _apply(program.fresh_module(), "pypto-default")
    assert _kinds(module)["linear_relu"] == FuncKind.AIC
    text = str(module)
    assert "f16, mat> -> !pypto.tile<[1, 64], f32, bias>" in text and "pypto.tile.cast" not in text
    assert_same_semantics(before, module, "main", seeds=(0, 1))
    x, w, bias, y = LINEAR.inputs(*shape, np.float16, bias_dtype=np.float16)
    result = run(module, "main", [x, w, bias, y])[0]
    assert_close_to_reference(result, LINEAR.reference(x, w, bias.astype(np.float32)), k=shape[1], dtype="f16")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
@pytest.mark.parametrize("shape", F16_BIAS_SHAPES, ids=lambda v: "x".join(map(str, v)))
def test_an_f16_bias_row_on_the_simulation_matches_the_interpreter(shape, tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import default_pipeline, simulate

    reference = LINEAR.build(*shape, pl.FP16, bias_dtype=pl.FP16).fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    inputs = list(LINEAR.inputs(*shape, np.float16, bias_dtype=np.float16))
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    (kernel,) = (tmp_path / "out" / "kernels").glob("*.cpp")
    code = kernel.read_text()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);" in code
    assert "DataCopyParams(1, 2, 0, 0)" in code  # 64 halves: two 64-byte source blocks
    assert report.reference is not None, report.note
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    tolerance = tolerance_for(np.asarray(expected), program_precision(reference))
    got = report.outputs["y"]
    assert tolerance.close(expected, got).all(), (tolerance, float(np.max(np.abs(got - expected))))
