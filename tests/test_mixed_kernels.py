"""Mixed cube + vector kernels through expand-mixed-kernel: the split program computes what the
unsplit one did (the interpreter runs both parts of each group as cooperating threads), for
matmul + bias + gelu, flash attention and an FFN at two shapes each, f16 and bf16 inputs;
each also matches a float64 numpy reference within the matmul tolerance rule.

The programs are the DSL kernels under examples/mixed/ (`build(shape..., dtype)`); the linear
layer is fused_linear.py with its GELU epilogue (`act="gelu"`): with relu it is one cube kernel
after pypto-default (tests/test_fold_bias_epilogue.py)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, run
from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics
from pypto_xdsl.interpreter.tolerance import assert_close_to_reference
from pypto_xdsl.transforms import get_all_passes
from pypto_xdsl.transforms.expand_mixed_kernel import check_mixed_kernels_expanded

ROOT = Path(__file__).resolve().parent.parent
MIXED = ROOT / "examples" / "mixed"


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"mixed_{name}", MIXED / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LINEAR, ATTENTION, FFN = _example("fused_linear"), _example("flash_attention"), _example("ffn")
DTYPES = {"f16": (pl.FP16, np.float16), "bf16": (pl.BF16, "bf16")}


def _apply(module: ModuleOp, *passes: str) -> ModuleOp:
    ctx = make_context()
    available = get_all_passes()
    for name in passes:
        available[name]()().apply(ctx, module)
    module.verify()
    return module


def _unsplit_and_split(program) -> tuple[ModuleOp, ModuleOp]:
    """The program after outlining and tiling (still incore), and after pypto-default."""
    before = _apply(program.fresh_module(), "inline-functions", "outline-incore-scopes", "convert-tensor-to-tile")
    after = _apply(program.fresh_module(), "pypto-default")
    return before, after


def _groups(module: ModuleOp) -> list[str]:
    return [f.sym_name.data for f in func_ops(module) if f.func_kind == FuncKind.GROUP]


# (workload, shape, dtype): two shapes each, f16 and bf16
CASES = [
    ("linear_gelu", (128, 256, 128), "f16"),
    ("linear_gelu", (128, 256, 128), "bf16"),
    ("linear_gelu", (64, 128, 192), "f16"),
    ("linear_gelu", (64, 128, 192), "bf16"),
    ("attention", (256, 64), "f16"),
    ("attention", (256, 64), "bf16"),
    ("attention", (128, 128), "f16"),
    ("attention", (128, 128), "bf16"),
    ("ffn_silu", (128, 64, 256), "f16"),
    ("ffn_silu", (128, 64, 256), "bf16"),
    ("ffn_gelu", (64, 128, 128), "f16"),
    ("ffn_gelu", (64, 128, 128), "bf16"),
]


def _case(workload: str, shape: tuple[int, ...], dtype: str):
    """(program, inputs, float64 reference, K, rounded operands)."""
    pl_dtype, np_dtype = DTYPES[dtype]
    if workload == "linear_gelu":
        x, w, bias, y = LINEAR.inputs(*shape, np_dtype)
        program, expected = LINEAR.build(*shape, pl_dtype, "gelu"), LINEAR.reference(x, w, bias, "gelu")
        return program, [x, w, bias, y], expected, shape[1], False
    if workload == "attention":
        q, k, v, o = ATTENTION.inputs(*shape, np_dtype)
        return ATTENTION.build(*shape, pl_dtype), [q, k, v, o], ATTENTION.reference(q, k, v), shape[0], True
    act = workload.split("_")[1]
    x, w1, w2, out = FFN.inputs(*shape, np_dtype)
    return FFN.build(*shape, pl_dtype, act), [x, w1, w2, out], FFN.reference(x, w1, w2, act), max(shape[1:]), True


@pytest.mark.parametrize("workload, shape, dtype", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_split_program_computes_what_the_unsplit_one_did(workload, shape, dtype):
    program, inputs, expected, k, rounded = _case(workload, shape, dtype)
    before, after = _unsplit_and_split(program)
    assert not _groups(before) and len(_groups(after)) == 1
    assert check_mixed_kernels_expanded(after) == []
    # the same ops in the same order on each core: the numbers are identical
    assert_same_semantics(before, after, "main", seeds=(0, 1), rtol=0, atol=0, matmul_tolerance=False)
    split_result = run(after, "main", [a.copy() for a in inputs])[0]
    assert_close_to_reference(split_result, expected, k=k, dtype=dtype, rounded_operands=rounded)


def test_the_examples_run_as_scripts():
    for name in ("fused_linear", "flash_attention", "ffn", "linear_tensor_level"):
        proc = subprocess.run([sys.executable, str(MIXED / f"{name}.py")], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "matches numpy before and after pypto-default" in proc.stdout


def test_attention_parts_carry_only_their_own_loop_values():
    after = _apply(ATTENTION.build(128, 64).fresh_module(), "pypto-default")
    text = str(after)
    aic = text[text.index("pypto.func aic @attention_aic"):text.index("pypto.func aiv @attention_aiv")]
    aiv = text[text.index("pypto.func aiv @attention_aiv"):text.index("pypto.func group @attention")]
    assert "iter_args" not in aic  # the cube's key-block loop carries nothing
    assert re.search(r"scf\.for %j = .* iter_args\(%l_i_\d+ = %l_i, %o_i_\d+ = %o_i, %m_i_\d+ = %m_i\)", aiv)
    assert aic.count("pypto.cross_core.push") == 2 and aic.count("pypto.cross_core.pop") == 1
    assert aiv.count("pypto.cross_core.pop") == 2 and aiv.count("pypto.cross_core.push") == 1
    assert "pypto.tile.matmul" not in aiv and "pypto.tile.exp" not in aic


def test_ffn_accumulator_stays_on_the_cube():
    after = _apply(FFN.build(128, 64, 128).fresh_module(), "pypto-default")
    text = str(after)
    aic = text[text.index("pypto.func aic @ffn_aic"):text.index("pypto.func aiv @ffn_aiv")]
    aiv = text[text.index("pypto.func aiv @ffn_aiv"):text.index("pypto.func group @ffn")]
    assert "iter_args(%acc_" in aic and "tile.store %acc" in aic
    assert "iter_args" not in aiv and "pypto.tile.store" not in aiv


# --------------------------------------------------------------------------- through GM


def test_tensor_level_linear_goes_through_a_shared_workspace_with_a_flag():
    example = _example("linear_tensor_level")
    before, after = _unsplit_and_split(example.LinearRelu)
    assert _groups(after) == ["linear_relu"]
    text = str(after)
    group = text[text.index("pypto.func group @linear_relu"):]
    assert "pypto.tensor.create" in group
    assert text.count("pypto.cross_core.set_flag to aiv") == 1 and text.count("pypto.cross_core.wait_flag from aic") == 1
    assert_same_semantics(before, after, "main", seeds=(0, 1, 2), rtol=0, atol=0, matmul_tolerance=False)


def _without(text: str, pattern: str) -> ModuleOp:
    return parse_module("\n".join(line for line in text.splitlines() if not re.search(pattern, line)))


def test_without_its_flags_the_split_program_races_and_the_interpreter_says_so():
    example = _example("linear_tensor_level")
    _, after = _unsplit_and_split(example.LinearRelu)
    broken = _without(str(after), r"cross_core\.(set|wait)_flag")
    with pytest.raises(PyptoInterpretationError, match="data race on global memory: this read and the write by 'pypto.tile.store' in @linear_relu_aic"):
        run(broken, "main", seed=0)


def test_a_workspace_rewritten_every_iteration_needs_flags_both_ways():
    """Dropping only the flag that tells the cube the vector has read the workspace lets the
    cube overwrite it too early: a write-after-read race."""
    text = (ROOT / "tests/filecheck/transforms/expand-mixed-kernel/flags.mlir").read_text().split("// -----")[1]
    after = str(_apply(parse_module(text), "expand-mixed-kernel"))
    assert_same_semantics(text, after, "rows", rtol=0, atol=0)
    broken = _without(after, r"set_flag to aic|wait_flag from aiv")
    with pytest.raises(SemanticsMismatch, match="@rows_aiv: data race on global memory: this read and the write by 'pypto.tile.store' in @rows_aic"):
        assert_same_semantics(text, broken, "rows", seeds=(0,))


def test_a_missing_transfer_is_a_deadlock_or_a_pop_without_a_push():
    after = str(_apply(ATTENTION.build(128, 64).fresh_module(), "pypto-default"))
    aiv = after.index("pypto.func aiv @attention_aiv")
    push = after.index("pypto.cross_core.push", aiv)
    line_end = after.index("\n", push)
    no_p = parse_module(after[:push] + "// removed" + after[line_end:])
    with pytest.raises(PyptoInterpretationError, match=r"deadlock: pop from aiv: the v2c ring is empty .* while @attention_aiv waits at 'pypto.cross_core.pop'"):
        run(no_p, "main", seed=0)


# --------------------------------------------------------------------------- pass properties


def test_the_pass_is_idempotent_and_leaves_what_it_cannot_split_unchanged():
    after = _apply(LINEAR.build(64, 128, 64, act="gelu").fresh_module(), "pypto-default")
    again = _apply(parse_module(str(after)), "expand-mixed-kernel")
    assert str(again) == str(after)
    text = (ROOT / "tests/filecheck/transforms/expand-mixed-kernel/unsplittable.mlir").read_text().split("// -----")[0]
    original = parse_module(text)
    assert str(_apply(parse_module(text), "expand-mixed-kernel")) == str(original)


def test_the_backend_lowers_mixed_kernels_it_can_and_names_what_blocks_the_rest(tmp_path: Path):
    """fused_linear.py under pypto-default{fold-bias=false} becomes one MIX kernel, its
    epilogue split over both AIVs of a core group; so does ffn.py, whose zero-initialised accumulator the cube path lowers as its K
    loop's first Mmad (cmatrixInitVal = (k == 0))."""
    compile_tool = str(Path(sys.executable).parent / "pypto-compile")
    ok = subprocess.run([compile_tool, str(MIXED / "fused_linear.py"), "-o", str(tmp_path / "linear"),
                         "-p", "pypto-default{strict-mixed=true fold-bias=false}"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "KERNEL_TYPE_MIX_AIC_1_2" in (tmp_path / "linear" / "kernels" / "linear_relu.cpp").read_text()
    proc = subprocess.run([compile_tool, str(MIXED / "ffn.py"), "-o", str(tmp_path / "ffn")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (ffn_kernel,) = (tmp_path / "ffn" / "kernels").glob("*.cpp")
    text = ffn_kernel.read_text()
    assert "KERNEL_TYPE_MIX_AIC_1_2" in text and "cmatrixInitVal = first_k" in text
