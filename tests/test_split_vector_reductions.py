"""split-vector-member on a reduction across the split dimension: each AIV reduces its half,
the two exchange their partial results through a workspace and a mode-1 flag
(`pypto.cross_core.set_flag among aiv`, CrossCoreSetFlag<1, pipe>), and both combine them.

* the interpreter, before against after the pass: a combined max or min is exact; a combined
  sum adds the rows in another order than the whole one, so it is compared with the rule
  for sums in another order (docs/semantics.md, "Comparing matmul results", K = the rows
  summed);
* the interpreter's mode 1: a flag one AIV never sets, one it sets once more than the other,
  and a missing second meeting in a loop (a race on the workspace slot);
* the simulation against the interpreter, from one build; the simulation's mode 1 on
  hand-written kernels (one more build), and a lowered kernel whose mode-1 set is removed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import cross_core
from pypto_xdsl.dialects.cross_core import Pipe
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, random_inputs, run
from pypto_xdsl.interpreter.tolerance import matmul_tolerance, program_precision, tolerance_for
from pypto_xdsl.transforms.lower_cross_core_rings import lower_rings
from tests.sim_programs import build_sim_program
from tests.test_mixed_kernels import _apply
from tests.test_split_vector_member import _split

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

RM, RK, RN, RBN, RBM = 64, 64, 128, 64, 32


@pl.program
class CrossSplitReductions:
    """Two mixed scopes whose epilogues reduce across the split: under split(up_down) a column
    sum (stored) and a column max (subtracted from both row halves) in a loop over column
    blocks; under split(left_right) a row sum in a loop over row blocks."""

    @pl.function
    def main(
        self,
        a: pl.Tensor[[RM, RK], pl.FP16],
        b: pl.Tensor[[RK, RN], pl.FP16],
        colsum: pl.Out[pl.Tensor[[1, RN], pl.FP32]],
        y: pl.Out[pl.Tensor[[RM, RN], pl.FP32]],
        rowsum: pl.Out[pl.Tensor[[RM, 1], pl.FP32]],
    ) -> pl.Tensor[[RM, RN], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="column_stats"):
            for n in pl.range(RN // RBN):
                am = pl.load(a, [0, 0], [RM, RK], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, n * RBN], [RK, RBN], target_memory=pl.Mem.Mat)
                acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
                v = pl.move(acc, target_memory=pl.Mem.Vec)
                colsum = pl.store(pl.col_sum(v), [0, n * RBN], colsum)
                y = pl.store(pl.col_expand_sub(v, pl.col_max(v)), [0, n * RBN], y)
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)], name_hint="row_stats"):
            for m in pl.range(RM // RBM):
                am = pl.load(a, [m * RBM, 0], [RBM, RK], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, 0], [RK, RBN], target_memory=pl.Mem.Mat)
                acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
                rowsum = pl.store(pl.row_sum(pl.move(acc, target_memory=pl.Mem.Vec)), [m * RBM, 0], rowsum)
        return y


OUTPUTS = {"colsum": (2, RM), "y": (3, 0), "rowsum": (4, RBN)}
"""Output -> (argument index, the terms its reduction sums; 0: only a max, combined exactly)."""


def _close(name: str, expected: np.ndarray, got: np.ndarray) -> None:
    _, terms = OUTPUTS[name]
    if terms == 0:
        np.testing.assert_array_equal(got, expected, err_msg=name)
        return
    # two orders of adding `terms` f32 values: the rule for two orders of a K-long sum
    tolerance = matmul_tolerance(terms, "f32", scale=float(np.max(np.abs(expected))))
    assert tolerance.close(expected, got).all(), (name, tolerance, float(np.max(np.abs(got - expected))))


def _rings():
    module = _apply(CrossSplitReductions.fresh_module(), "pypto-default")
    assert lower_rings(module) == []
    return module


def _member(module, name: str):
    return next(f for f in func_ops(module) if f.sym_name.data == name)


def test_reductions_across_the_split_now_run_on_both_vector_cores(capfd):
    split, ratios = _split(_rings())
    assert ratios == {"column_stats": 2, "row_stats": 2}
    assert "warning" not in capfd.readouterr().err
    flags = {
        name: [(type(op).__name__, op.id_value) for op in _member(split, name).walk()
               if isinstance(op, cross_core.FlagOp) and op.pipe_kind is Pipe.V2V]
        for name in ("column_stats_aiv", "row_stats_aiv")
    }
    meeting = [("SetFlagOp", 2), ("WaitFlagOp", 2)]
    # one meeting per exchange; the row sum, alone in its loop body, meets once more after its
    # load (the next iteration writes the slot again; the column sum's slot is kept by the
    # column max's meeting, and the column max's by the next column sum's). Flag id 2: ids 0
    # and 1 are the ring's
    assert flags == {"column_stats_aiv": meeting * 2, "row_stats_aiv": meeting * 2}
    text = str(_member(split, "row_stats_aiv"))
    assert "pypto.tensor.create : !pypto.tensor<[64, 1], f32>" in text  # the [32, 1] partials of two column halves
    assert "pypto.tile.add %" in text


def test_the_split_reductions_compute_what_the_whole_ones_did():
    module = _rings()
    split, _ = _split(module)
    for seed in (0, 1, 2):
        inputs = random_inputs(module, "main", seed)
        before, after = [a.copy() for a in inputs], [a.copy() for a in inputs]
        run(module, "main", before)
        run(split, "main", after)
        for name, (index, _) in OUTPUTS.items():
            _close(name, before[index], after[index])


def _split_text() -> str:
    split, _ = _split(_rings())
    return str(split)


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, (RM, RK)).astype(np.float16), rng.uniform(-1, 1, (RK, RN)).astype(np.float16),
            np.zeros((1, RN), np.float32), np.zeros((RM, RN), np.float32), np.zeros((RM, 1), np.float32)]


_SET = "pypto.cross_core.set_flag among aiv id(2)"


def _only_on_sub_block(text: str, sub_block: int) -> str:
    """The first mode-1 set of `text` done by one sub-block alone."""
    at = text.index(_SET)
    guarded = (f"%only_c = arith.constant {sub_block} : index\n%only = arith.cmpi eq, %sub_block, %only_c : index\n"
               f"scf.if %only {{\n{_SET}\n}}")
    return text[:at] + guarded + text[at + len(_SET):]


def test_a_mode_one_flag_one_vector_core_never_sets_stops_the_interpreter():
    text = _only_on_sub_block(_split_text(), 0)
    with pytest.raises(PyptoInterpretationError, match=re.escape(
            "wait_flag among aiv: the v2v flag 2 is not set by every AIV of the core group (mode 1 counts a setting "
            "once each has set it)")):
        run(parse_module(text), "main", _inputs())


def test_a_mode_one_flag_set_once_more_by_one_vector_core_is_left_over():
    text = _split_text()
    end = text.index("    pypto.return %rowsum :", text.index("pypto.func aiv @row_stats_aiv"))  # after the loop
    extra = ("%extra_c = arith.constant 1 : index\n%extra = arith.cmpi eq, %sub_block, %extra_c : index\n"
             f"scf.if %extra {{\n{_SET}\n}}\n")
    with pytest.raises(PyptoInterpretationError, match=re.escape(
            "the v2v flag 2 set 1 time by @row_stats_aiv on sub-block 1 more than by the other AIV")):
        run(parse_module(text[:end] + extra + text[end:]), "main", _inputs())


def test_without_the_second_meeting_a_loop_overwrites_a_slot_the_other_vector_core_reads():
    text = _split_text()
    meeting = f"{_SET}\n      pypto.cross_core.wait_flag among aiv id(2)\n"  # in a loop body
    assert text.count(meeting) == 4
    last = text.rindex(meeting)  # row_stats's second meeting
    broken = text[:last] + text[last + len(meeting):]
    with pytest.raises(PyptoInterpretationError, match=re.escape(
            "data race on global memory: this read on sub-block 0 and the write by 'pypto.tile.store' in @row_stats_aiv "
            "on sub-block 1")):
        run(parse_module(broken), "main", _inputs())


# --------------------------------------------------------------------------- simulation


@needs_gxx
def test_the_split_reductions_on_the_simulation_match_the_interpreter(tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    reference = CrossSplitReductions.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    inputs = _inputs()
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    texts = {p.stem: p.read_text() for p in (tmp_path / "out" / "kernels").glob("*.cpp")}
    assert sorted(texts) == ["column_stats", "row_stats"]
    meeting = re.compile(r"CrossCoreSetFlag<1, PIPE_MTE3>\(2\);\s*CrossCoreWaitFlag<1, PIPE_S>\(2\);")
    for text in texts.values():
        assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in text
        assert meeting.search(text)  # each partial stored by MTE3, then the meeting
    # the row sum's loop meets once more once the other partial is loaded (MTE2)
    assert texts["row_stats"].count("CrossCoreSetFlag<1, PIPE_MTE2>(2);") == 1
    assert "CrossCoreSetFlag<1, PIPE_MTE2>" not in texts["column_stats"]
    expected = [a.copy() for a in inputs]
    run(reference, "main", expected)
    precision = program_precision(reference)
    for name, (index, _) in OUTPUTS.items():  # the simulation's matmul adds its K products in another order
        tolerance = tolerance_for(expected[index], precision)
        got = report.outputs[name]
        assert tolerance.close(expected[index], got).all(), (name, tolerance, float(np.max(np.abs(got - expected[index]))))


@needs_gxx
def test_a_missing_mode_one_flag_stops_the_simulation(tmp_path: Path):
    from pypto_xdsl.backend.ascendc.sim import SimulationError
    from pypto_xdsl.dialects.ascendc_sync import CrossCoreSetFlagOp
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, simulate

    module = CrossSplitReductions.fresh_module()
    apply_pipeline(module, "pypto-ascendc")
    first = next(op for op in module.walk() if isinstance(op, CrossCoreSetFlagOp) and op.mode_value == 1)
    first.detach()
    first.erase()
    # both AIVs run the member without the set: each waits at the meeting, the AIC for their ring credit
    with pytest.raises(SimulationError, match=r"CrossCoreWaitFlag\(\d+\) deadlocks: the AIV\d is waiting for its flag 2 at "
                                              r"the same time \(a missing or mismatched CrossCoreSetFlag"):
        simulate(module, tmp_path / "missing", inputs=_inputs(), compare=False)


MODE_ONE_CPP = r"""
#include <cstdio>
#include <cstring>
#include "kernel_operator.h"
#include "pypto_sim/launch.h"
using namespace AscendC;

static const char* scenario = "";
static int order[4];
static int step = 0;

static void kernel() {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  if ASCEND_IS_AIC return;
  const bool aiv1 = GetSubBlockIdx() == 1;
  if (std::strcmp(scenario, "ok") == 0) {  // two rounds of a barrier: nobody passes one before both set it
    for (int i = 0; i < 2; ++i) {
      CrossCoreSetFlag<1, PIPE_MTE3>(3);
      CrossCoreWaitFlag<1, PIPE_S>(3);
      order[step++ % 4] = i;
    }
  } else if (std::strcmp(scenario, "one_does_not_set") == 0) {
    if (!aiv1) CrossCoreSetFlag<1, PIPE_MTE3>(3);
    CrossCoreWaitFlag<1, PIPE_S>(3);
  } else if (std::strcmp(scenario, "one_returns") == 0) {
    if (!aiv1) { CrossCoreSetFlag<1, PIPE_MTE3>(3); CrossCoreWaitFlag<1, PIPE_S>(3); }
  } else if (std::strcmp(scenario, "one_sets_more") == 0) {
    CrossCoreSetFlag<1, PIPE_MTE3>(3);
    if (aiv1) CrossCoreSetFlag<1, PIPE_MTE3>(3);
    CrossCoreWaitFlag<1, PIPE_S>(3);
  } else if (std::strcmp(scenario, "mismatched") == 0) {
    CrossCoreSetFlag<1, PIPE_MTE3>(aiv1 ? 4 : 3);
    CrossCoreWaitFlag<1, PIPE_S>(3);
  }
}

static void aic_sets() {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  if ASCEND_IS_AIC CrossCoreSetFlag<1, PIPE_FIX>(3);
}

int main(int argc, char** argv) {
  scenario = argc > 1 ? argv[1] : "";
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  if (std::strcmp(scenario, "on_the_aic") == 0) pypto_sim::launch_mix("mode_one", 1, stream, [] { aic_sets(); }, 2);
  pypto_sim::launch_mix("mode_one", 1, stream, [] { kernel(); }, 2);
  std::printf("%d %d %d %d\n", order[0], order[1], order[2], order[3]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def mode_one(tmp_path_factory) -> Path:
    return build_sim_program(tmp_path_factory.mktemp("mode_one"), "mode_one", MODE_ONE_CPP)


@needs_gxx
def test_a_mode_one_barrier_holds_each_vector_core_until_both_have_set_it(mode_one: Path):
    proc = subprocess.run([str(mode_one), "ok"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # both AIVs pass round 0 before either passes round 1
    assert proc.stdout.split() == ["0", "0", "1", "1"]


@needs_gxx
@pytest.mark.parametrize("scenario, message", [
    ("one_does_not_set", r"AIV1\]: CrossCoreWaitFlag\(3\) deadlocks: the AIV0 is waiting for its flag 3 .*mode-1 sets the "
                         r"other AIV has not matched: AIV0 flag 3 \(x1\)"),
    ("one_returns", r"AIV0\]: CrossCoreWaitFlag\(3\) can never return: the other AIV finished without setting flag 3"),
    ("one_sets_more", r"the AIV1 set mode-1 flag 3 1 time\(s\) more than the other AIV when the kernel ends"),
    ("mismatched", r"CrossCoreWaitFlag\(3\) (can never return|deadlocks).*a missing or mismatched CrossCoreSetFlag.*"
                   r"mode-1 sets the other AIV has not matched: AIV0 flag 3 \(x1\), AIV1 flag 4 \(x1\)"),
    ("on_the_aic", r"AIC\]: CrossCoreSetFlag<1>\(3\) on the AIC: mode 1 synchronises the AIVs of a core group"),
])
def test_the_simulation_stops_on_a_broken_mode_one_flag_protocol(mode_one: Path, scenario: str, message: str):
    proc = subprocess.run([str(mode_one), scenario], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 86, (proc.returncode, proc.stderr)
    assert re.search(message, proc.stderr), proc.stderr


CM, CK, CN, CBN = 64, 64, 256, 64


@pl.program
class CubeStagingAndSplitPartials:
    """A workspace tensor only the cube uses (the first product staged in GM for the second
    matmul) next to one only the AIVs use (the partial column sums split(up_down) exchanges),
    in a loop whose ring lets the cube run an iteration ahead: the two members write their own
    tensors at the same time, so each needs bytes of its own in the block's workspace."""

    @pl.function
    def main(
        self,
        a: pl.Tensor[[CM, CK], pl.FP16],
        b: pl.Tensor[[CK, CN], pl.FP16],
        c: pl.Tensor[[CBN, CBN], pl.FP32],
        colsum: pl.Out[pl.Tensor[[1, CN], pl.FP32]],
    ) -> pl.Tensor[[1, CN], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="chain"):
            staged = pl.create_tensor([CM, CBN], pl.FP32)
            for n in pl.range(CN // CBN):
                am = pl.load(a, [0, 0], [CM, CK], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, n * CBN], [CK, CBN], target_memory=pl.Mem.Mat)
                first = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
                staged = pl.store(first, [0, 0], staged)
                sm = pl.load(staged, [0, 0], [CM, CBN], target_memory=pl.Mem.Mat)
                cm = pl.load(c, [0, 0], [CBN, CBN], target_memory=pl.Mem.Mat)
                second = pl.matmul(pl.move(sm, target_memory=pl.Mem.Left), pl.move(cm, target_memory=pl.Mem.Right))
                colsum = pl.store(pl.col_sum(pl.move(second, target_memory=pl.Mem.Vec)), [0, n * CBN], colsum)
        return colsum


@needs_gxx
def test_members_own_workspace_tensors_do_not_overlap_on_the_simulation(tmp_path: Path):
    """Each member laid out from offset 0 put the cube's staged product and the AIVs' partials
    at the same bytes: column sums off by about 224 against the interpreter."""
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    reference = CubeStagingAndSplitPartials.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-1, 1, (CM, CK)).astype(np.float16), rng.uniform(-1, 1, (CK, CN)).astype(np.float16),
              rng.uniform(-1, 1, (CBN, CBN)).astype(np.float32), np.zeros((1, CN), np.float32)]
    report = simulate(module, tmp_path / "out", inputs=[x.copy() for x in inputs], reference_module=reference)
    kernel = (tmp_path / "out" / "kernels" / "chain.cpp").read_text()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in kernel
    expected = [x.copy() for x in inputs]
    run(reference, "main", expected)
    tolerance = tolerance_for(expected[3], program_precision(reference))
    got = report.outputs["colsum"]
    assert tolerance.close(expected[3], got).all(), (tolerance, float(np.max(np.abs(got - expected[3]))))
