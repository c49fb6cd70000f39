"""fold-bias-epilogue on examples/mixed/fused_linear.py: the matmul's vector epilogue (a bias
row added with col_expand_add, then relu) becomes tile.matmul_bias with the relu on the
accumulator, so expand-mixed-kernel finds one cube kernel instead of a MIX group; the result
still matches numpy (interpreter, f16 and bf16) and the CPU simulation matches the interpreter."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import run
from pypto_xdsl.interpreter.tolerance import assert_close_to_reference
from pypto_xdsl.transforms import get_all_passes

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mixed" / "fused_linear.py"
PASSES = ("inline-functions", "outline-incore-scopes", "convert-tensor-to-tile", "fold-bias-epilogue",
          "expand-mixed-kernel")


def _linear():
    spec = importlib.util.spec_from_file_location("mixed_fused_linear_fold", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_the_epilogue_folds_into_one_cube_kernel(dtype):
    linear = _linear()
    pl_dtype, np_dtype = {"f16": (pl.FP16, np.float16), "bf16": (pl.BF16, linear.BF16)}[dtype]
    module = linear.build(64, 128, 192, pl_dtype).fresh_module()
    ctx = make_context()
    for name in PASSES:
        get_all_passes()[name]()().apply(ctx, module)
    module.verify()
    kinds = {f.sym_name.data: f.func_kind for f in func_ops(module)}
    assert kinds["linear_relu"] == FuncKind.AIC and FuncKind.GROUP not in kinds.values()
    text = str(module)
    assert "pypto.tile.matmul_bias" in text and "col_expand_add" not in text and "vec>" not in text
    x, w, bias, y = linear.inputs(64, 128, 192, np_dtype)
    result = run(module, "main", [x, w, bias, y])[0]
    assert_close_to_reference(result, linear.reference(x, w, bias), k=128, dtype=dtype)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")
def test_the_folded_linear_layer_matches_the_interpreter_in_simulation(tmp_path):
    tool = str(Path(sys.executable).parent / "pypto-compile")
    proc = subprocess.run([tool, str(EXAMPLE), "-o", str(tmp_path / "out"), "--sim", "-p", ",".join(PASSES)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "simulation matches the interpreter" in proc.stdout
    kernel = (tmp_path / "out" / "kernels" / "linear_relu.cpp").read_text()
    assert "KERNEL_TYPE_AIC_ONLY" in kernel and "reluEn = true" in kernel
    assert "Mmad(acc, " in kernel and "TPosition::C2" in kernel
