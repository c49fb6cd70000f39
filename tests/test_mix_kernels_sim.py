"""Mixed cube + vector kernels end to end on the CPU simulation: a scope with cube and vector
tiles is split (expand-mixed-kernel), its rings go through a GM workspace
(lower-cross-core-rings), the group becomes one MIX kernel whose vector member is split over
both AIVs of the core group (KERNEL_TYPE_MIX_AIC_1_2), and the simulation (an AIC and two AIV
threads per block, with their cross-core flags) computes what the interpreter computes on the
unsplit program, within the matmul tolerance rule.

Programs: examples/mixed/ as written: matmul + bias + gelu (fused_linear.py with act="gelu"), flash attention
over key blocks reading Kᵀ through `pl.tile.transpose_view` of the L1 key block
(flash_attention.py), an FFN with silu and with gelu (ffn.py); two shapes each with f16
inputs, bf16 inputs at the smaller shape (one g++ build per program: the bf16 programs at
both shapes would double the builds; tests/test_mixed_kernels.py covers both shapes with the
interpreter). The linear layer with its relu epilogue is one cube kernel after pypto-default;
tests/test_fold_bias_epilogue.py runs it on the simulation."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.interpreter import run
from pypto_xdsl.interpreter.tolerance import program_precision, tolerance_for
from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate
from tests.sim_programs import build_sim_program
from tests.test_mixed_kernels import _case

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")


CASES = [
    ("linear_gelu", (128, 256, 128), "f16"),
    ("linear_gelu", (64, 128, 192), "f16"),
    ("linear_gelu", (64, 128, 192), "bf16"),
    ("attention", (256, 64), "f16"),
    ("attention", (128, 128), "f16"),
    ("attention", (128, 128), "bf16"),
    ("ffn_silu", (128, 64, 256), "f16"),
    ("ffn_gelu", (64, 128, 128), "f16"),
    ("ffn_gelu", (64, 128, 128), "bf16"),
]


@pytest.mark.parametrize("workload, shape, dtype", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_mixed_kernel_on_the_simulation_matches_the_interpreter(workload, shape, dtype, tmp_path: Path):
    program, inputs, *_ = _case(workload, shape, dtype)
    reference = program.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    kernels = list((tmp_path / "out" / "kernels").glob("*.cpp"))
    assert len(kernels) == 1, kernels  # one MIX kernel for the group, its members inside
    text = kernels[0].read_text()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in text  # the epilogues split over both AIVs
    assert "AscendC::GetSubBlockIdx()" in text
    assert "if ASCEND_IS_AIC {" in text and "if ASCEND_IS_AIV {" in text
    assert "CrossCoreSetFlag<2, PIPE_FIX>" in text and "CrossCoreWaitFlag<2, PIPE_S>" in text
    assert report.reference is not None, report.note
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    precision = program_precision(reference)
    name = next(iter(report.outputs))
    tolerance = tolerance_for(np.asarray(expected), precision)
    got = report.outputs[name]
    assert tolerance.close(expected, got).all(), (name, tolerance, float(np.max(np.abs(got - expected))))


def test_a_tensor_level_matmul_acc_runs_as_a_mix_kernel_and_matches_the_interpreter(tmp_path: Path):
    """pl.matmul_acc at the tensor level: the product on the AIC, its accumulator added on the
    AIVs (convert-tensor-to-tile's split), one build at a small shape."""
    import pypto_xdsl.language as pl

    M, K, N = 64, 32, 64

    @pl.program
    class MatmulAcc:
        @pl.function
        def main(self, acc: pl.Tensor[[M, N], pl.FP32], a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
                 y: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm_acc"):
                y = pl.assemble(y, pl.matmul_acc(acc, a, b), [0, 0])
            return y

    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-1, 1, (M, N)).astype(np.float32), rng.uniform(-1, 1, (M, K)).astype(np.float16),
              rng.uniform(-1, 1, (K, N)).astype(np.float16), np.zeros((M, N), np.float32)]
    reference = MatmulAcc.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    (kernel,) = (tmp_path / "out" / "kernels").glob("*.cpp")
    assert "if ASCEND_IS_AIC {" in kernel.read_text() and "if ASCEND_IS_AIV {" in kernel.read_text()
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    np.testing.assert_allclose(expected, inputs[0] + inputs[1].astype(np.float32) @ inputs[2].astype(np.float32),
                               rtol=1e-5, atol=1e-5)
    got = report.outputs[next(iter(report.outputs))]
    tolerance = tolerance_for(np.asarray(expected), program_precision(reference))
    assert tolerance.close(expected, got).all(), float(np.max(np.abs(got - expected)))


def _lowered_linear():
    program, inputs, *_ = _case("linear_gelu", (64, 128, 192), "f16")
    module = program.fresh_module()
    apply_pipeline(module, "pypto-ascendc")
    return module, inputs


def _member_sets(module, kind: str):
    from pypto_xdsl.dialects.ascendc_kernel import KernelOp
    from pypto_xdsl.dialects.ascendc_sync import CrossCoreSetFlagOp

    member = next(op for op in module.walk() if isinstance(op, KernelOp) and op.group is not None
                  and op.kernel_kind.value == kind)
    return [op for op in member.walk() if isinstance(op, CrossCoreSetFlagOp)]


def _mutated_flag(module, mutation: str) -> None:
    from pypto_xdsl.dialects.ascendc_format import int_prop

    aic_sets = _member_sets(module, "cube")
    full = next(op for op in aic_sets if op.pipe_kind.value == "PIPE_FIX")  # a ring slot stored by Fixpipe
    if mutation == "missing":
        full.detach()
        full.erase()
    else:
        full.properties["id"] = int_prop(7)


# A duplicated set, a counter past 15 and a MIX kernel without its AIC branch are the 1:2
# scenarios below (one build for all of them).
@pytest.mark.parametrize("mutation, message", [
    ("missing", r"CrossCoreWaitFlag\(\d+\) (can never return|deadlocks).*a missing or mismatched CrossCoreSetFlag"),
    ("mismatched", r"CrossCoreWaitFlag\(\d+\) (can never return|deadlocks).*set but not waited for: AIV\d? flag 7 \(x\d+\)"),
])
def test_a_missing_or_mismatched_cross_core_flag_stops_the_simulation(mutation, message, tmp_path: Path):
    from pypto_xdsl.backend.ascendc.sim import SimulationError

    module, inputs = _lowered_linear()
    _mutated_flag(module, mutation)
    with pytest.raises(SimulationError, match=message):
        simulate(module, tmp_path / mutation, inputs=[a.copy() for a in inputs], compare=False)


# --------------------------------------------------------------------------- 1:2 flag semantics
# The simulation's KERNEL_TYPE_MIX_AIC_1_2 launch on hand-written MIX kernels, one g++ build for
# every scenario (argv[1] picks it): per-core indices, and mode 2 with two AIVs (an AIC setting
# reaches both; the AIC's counter counts a setting by both).

MIX_SCENARIOS_CPP = r"""
#include <cstdio>
#include <cstring>
#include "kernel_operator.h"
#include "pypto_sim/launch.h"
using namespace AscendC;

static const char* scenario = "";
static int64_t seen[2][3][4];  // [block][core] = {GetBlockIdx, GetSubBlockIdx, GetSubBlockNum, GetTaskRatio}

static void kernel() {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  const int64_t block = ASCEND_IS_AIC ? GetBlockIdx() : GetBlockIdx() / GetTaskRatio();
  const int core = ASCEND_IS_AIC ? 0 : 1 + static_cast<int>(GetSubBlockIdx());
  int64_t* s = seen[block][core];
  s[0] = GetBlockIdx(); s[1] = GetSubBlockIdx(); s[2] = GetSubBlockNum(); s[3] = GetTaskRatio();
  const bool aiv1 = ASCEND_IS_AIV && GetSubBlockIdx() == 1;
  if (std::strcmp(scenario, "ok") == 0) {  // a 2-slot ring: the AIC fills, both AIVs drain
    if ASCEND_IS_AIC {
      for (int i = 0; i < 4; ++i) { CrossCoreWaitFlag<2, PIPE_S>(1); CrossCoreSetFlag<2, PIPE_FIX>(0); }
      CrossCoreWaitFlag<2, PIPE_S>(1); CrossCoreWaitFlag<2, PIPE_S>(1);
    } else {
      CrossCoreSetFlag<2, PIPE_MTE2>(1); CrossCoreSetFlag<2, PIPE_MTE2>(1);
      for (int i = 0; i < 4; ++i) { CrossCoreWaitFlag<2, PIPE_S>(0); CrossCoreSetFlag<2, PIPE_MTE2>(1); }
    }
  } else if (std::strcmp(scenario, "one_aiv_sets_more") == 0) {
    if ASCEND_IS_AIC { CrossCoreWaitFlag<2, PIPE_S>(1); }
    else { CrossCoreSetFlag<2, PIPE_MTE3>(1); if (!aiv1) CrossCoreSetFlag<2, PIPE_MTE3>(1); }
  } else if (std::strcmp(scenario, "one_aiv_does_not_set") == 0) {
    if ASCEND_IS_AIC { CrossCoreWaitFlag<2, PIPE_S>(1); }
    else if (!aiv1) { CrossCoreSetFlag<2, PIPE_MTE3>(1); }
  } else if (std::strcmp(scenario, "one_aiv_does_not_wait") == 0) {
    if ASCEND_IS_AIC { CrossCoreSetFlag<2, PIPE_FIX>(0); }
    else if (!aiv1) { CrossCoreWaitFlag<2, PIPE_S>(0); }
  } else if (std::strcmp(scenario, "duplicated") == 0) {  // one set more than the AIVs wait for
    if ASCEND_IS_AIC { CrossCoreSetFlag<2, PIPE_FIX>(0); CrossCoreSetFlag<2, PIPE_FIX>(0); }
    else { CrossCoreWaitFlag<2, PIPE_S>(0); }
  } else if (std::strcmp(scenario, "overflow") == 0) {
    if ASCEND_IS_AIC { for (int i = 0; i < 16; ++i) CrossCoreSetFlag<2, PIPE_FIX>(0); }
  } else if (std::strcmp(scenario, "no_aic") == 0) {  // the AIVs wait for a slot nobody fills
    if ASCEND_IS_AIV { CrossCoreWaitFlag<2, PIPE_S>(0); }
  }
}

int main(int argc, char** argv) {
  scenario = argc > 1 ? argv[1] : "";
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  pypto_sim::launch_mix("mix_scenario", 2, stream, [] { kernel(); }, 2);
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 3; ++c)
      std::printf("%d %d: %lld %lld %lld %lld\n", b, c, (long long)seen[b][c][0], (long long)seen[b][c][1],
                  (long long)seen[b][c][2], (long long)seen[b][c][3]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def mix_scenarios(tmp_path_factory) -> Path:
    return build_sim_program(tmp_path_factory.mktemp("mix_scenarios"), "scenarios", MIX_SCENARIOS_CPP)


def test_a_one_to_two_mix_launch_runs_an_aic_and_two_aivs_per_block(mix_scenarios: Path):
    proc = subprocess.run([str(mix_scenarios), "ok"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # block, core (0 AIC, 1 AIV0, 2 AIV1): GetBlockIdx, GetSubBlockIdx, GetSubBlockNum, GetTaskRatio
    assert proc.stdout.splitlines() == [
        "0 0: 0 0 1 1", "0 1: 0 0 2 2", "0 2: 1 1 2 2",
        "1 0: 1 0 1 1", "1 1: 2 0 2 2", "1 2: 3 1 2 2",
    ]


@pytest.mark.parametrize("scenario, message", [
    ("one_aiv_sets_more", r"\[kernel mix_scenario, block 0/2\]: the AIV0 set flag 1 1 time\(s\) more than the other AIV "
                          r"when the kernel ends"),
    ("one_aiv_does_not_set", r"AIC\]: CrossCoreWaitFlag\(1\) can never return: the AIVs finished without setting flag 1"),
    ("one_aiv_does_not_wait", r"flag 0 of the AIV1 is set 1 time\(s\) more than it waits for it when the kernel ends"),
    ("duplicated", r"flag 0 of the AIV0 is set 1 time\(s\) more than it waits for it when the kernel ends"),
    ("overflow", r"AIC\]: CrossCoreSetFlag\(0\): flag 0 of the AIV0 is already at 15"),
    ("no_aic", r"\[kernel mix_scenario, block 0/2, AIV\d\]: CrossCoreWaitFlag\(0\) can never return: the AIC finished "
               r"without setting flag 0"),
])
def test_the_simulation_stops_on_a_broken_mode_two_flag_protocol(mix_scenarios: Path, scenario: str, message: str):
    proc = subprocess.run([str(mix_scenarios), scenario], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 86, (proc.returncode, proc.stderr)
    assert re.search(message, proc.stderr), proc.stderr


def test_both_split_modes_and_a_sub_block_zero_store_on_the_simulation(tmp_path: Path):
    """advanced/03 style: split(up_down) with a whole [1, 64] row stored and atomically added
    by sub-block 0 alone, and split(left_right); one build, both kernels 1:2, every output as
    the interpreter's."""
    from tests.test_split_vector_member import MIXED_SPLITS_PIPELINE, MixedSplits, mixed_splits_inputs

    reference = MixedSplits.fresh_module()
    module = reference.clone()
    apply_pipeline(module, MIXED_SPLITS_PIPELINE)
    inputs = mixed_splits_inputs()
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    texts = {p.stem: p.read_text() for p in (tmp_path / "out" / "kernels").glob("*.cpp")}
    assert sorted(texts) == ["mixed_left_right", "mixed_up_down"]
    assert all("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in t for t in texts.values())
    first = re.search(r"const bool (v_\d+) = AscendC::GetSubBlockIdx\(\) == 0;", texts["mixed_up_down"])
    assert first and texts["mixed_up_down"].count(f"if ({first.group(1)}) {{") == 2  # the store and the atomic add
    expected = [a.copy() for a in inputs]
    run(reference, "main", expected)
    for name, index in (("y", 3), ("scale", 4), ("z", 5), ("total", 6)):
        tolerance = tolerance_for(expected[index], program_precision(reference))
        assert tolerance.close(expected[index], report.outputs[name]).all(), name
