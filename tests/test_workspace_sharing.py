"""Who shares which bytes of a launch's GM workspace, and what the simulation checks of it.

* A tensor only the vector member of a 1:2 MIX kernel creates (`pl.create_tensor` used as
  scratch by the epilogue) is **one** tensor for both AIVs of the core group, at one offset of
  the block's part of the workspace, as in the interpreter. That is correct because
  split-vector-member halves every tile the member stores there and moves each store and load
  by `GetSubBlockIdx() * half`: each AIV writes and reads its own rows of it, never the
  other's (a member whose accesses of a tensor it writes do not split so is kept on one AIV).
  Checked: the interpreter before against after the split, exactly; the simulation on two
  blocks against the interpreter; the printed offsets.
* The blocks of a launch run at the same time on the device but one after another in the
  simulation, so bytes two blocks both touch (a workspace whose per-block parts overlap, an
  output two blocks store) used to give the right result there. The simulation now logs every
  GM access of a launch on more than one block and stops where two blocks touch the same bytes
  with a plain write among the accesses (atomic adds from several blocks are allowed among
  themselves): a generated kernel whose blocks are made to share one workspace part, and
  hand-written kernels for each case.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.dialects.cross_core import TASK_RATIO_ATTR
from pypto_xdsl.dialects.program import func_ops
from pypto_xdsl.interpreter import run
from pypto_xdsl.interpreter.tolerance import program_precision, tolerance_for
from pypto_xdsl.tools.pypto_compile import apply_pipeline, compile_module, default_pipeline, simulate, write_inputs
from tests.sim_programs import build_sim_program
from tests.test_mixed_kernels import _apply
from tests.test_split_vector_member import _split

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

BLOCKS, M, K, N, NB = 2, 64, 64, 128, 64


@pl.program
class VectorScratch:
    """On each of two blocks: per column block, the cube's product goes to the AIVs, which
    stage its exp through a GM tensor only they create and read it back. Under split(up_down)
    each AIV holds 32 of the 64 rows, so both stage data of their own through `scratch`."""

    @pl.function
    def main(
        self,
        a: pl.Tensor[[BLOCKS * M, K], pl.FP16],
        b: pl.Tensor[[K, N], pl.FP16],
        y: pl.Out[pl.Tensor[[BLOCKS * M, N], pl.FP32]],
    ) -> pl.Tensor[[BLOCKS * M, N], pl.FP32]:
        for blk in pl.spmd(BLOCKS, name_hint="scratch", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            scratch = pl.create_tensor([M, NB], pl.FP32)
            for n in pl.range(N // NB):
                am = pl.load(a, [blk * M, 0], [M, K], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, n * NB], [K, NB], target_memory=pl.Mem.Mat)
                acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
                v = pl.move(acc, target_memory=pl.Mem.Vec)
                scratch = pl.store(pl.exp(v), [0, 0], scratch)
                w = pl.load(scratch, [0, 0], [M, NB])
                y = pl.store(pl.add(w, v), [blk * M, n * NB], y)
        return y


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.uniform(-1, 1, (BLOCKS * M, K)).astype(np.float16), rng.uniform(-1, 1, (K, N)).astype(np.float16),
            np.zeros((BLOCKS * M, N), np.float32)]


def _rings():
    from pypto_xdsl.transforms.lower_cross_core_rings import lower_rings

    module = _apply(VectorScratch.fresh_module(), "pypto-default")
    assert lower_rings(module) == []
    return module


def test_the_vector_scratch_is_split_and_each_vector_core_keeps_to_its_rows(capfd):
    module = _rings()
    split, ratios = _split(module)
    assert ratios == {"scratch": 2}
    assert "warning" not in capfd.readouterr().err
    aiv = next(f for f in func_ops(split) if f.sym_name.data == "scratch_aiv")
    text = str(aiv)
    # one scratch tensor of the whole [64, 64] shape: the member's, which both AIVs share ...
    assert text.count("pypto.tensor.create : !pypto.tensor<[64, 64], f32>") == 1
    # ... each storing and loading its 32 rows at GetSubBlockIdx() * 32
    assert re.search(r"%scratch_\d+ = pypto\.tile\.store %\w+, %scratch_\d+\[%(\w+), %\w+\] : "
                     r"!pypto\.tile<\[32, 64\], f32, vec>", text), text
    group = next(f for f in func_ops(split) if f.sym_name.data == "scratch")
    assert group.attributes[TASK_RATIO_ATTR].value.data == 2
    for seed in (0, 1):
        from pypto_xdsl.interpreter import random_inputs

        inputs = random_inputs(module, "main", seed)
        before, after = [a.copy() for a in inputs], [a.copy() for a in inputs]
        run(module, "main", before)
        run(split, "main", after)  # the interpreter gives both sub-blocks the one scratch tensor
        np.testing.assert_array_equal(after[2], before[2])


@needs_gxx
def test_the_vector_scratch_on_two_blocks_of_the_simulation_matches_the_interpreter(tmp_path: Path):
    reference = VectorScratch.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    inputs = _inputs()
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    (kernel,) = (tmp_path / "out" / "kernels").glob("*.cpp")
    text = kernel.read_text()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in text
    # the block's part: the ring (both members) at 0, the scratch (the AIVs only) after it
    aiv = text[text.index("__aicore__ inline void scratch_aiv("):]
    assert "GM_ADDR block_ws = workspace + (AscendC::GetBlockIdx() / AscendC::GetTaskRatio()) * 49152;" in aiv
    assert "scratch_gm.SetGlobalBuffer((__gm__ float*)(block_ws + 32768), 4096);" in aiv
    assert "scratch_gm" not in text[:text.index("__aicore__ inline void scratch_aiv(")]
    sub = re.search(r"const int64_t (\w+) = AscendC::GetSubBlockIdx\(\) \* 32;", aiv)
    assert sub, aiv
    assert f"DataCopy(scratch_gm[{sub.group(1)} * 64], " in aiv  # each AIV's 32 rows, out and back in
    assert aiv.count(f"scratch_gm[{sub.group(1)} * 64]") == 2
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    got = report.outputs[next(iter(report.outputs))]
    tolerance = tolerance_for(np.asarray(expected), program_precision(reference))
    assert tolerance.close(expected, got).all(), float(np.max(np.abs(got - expected)))


# --------------------------------------------------------------------------- blocks of a launch


def _run_built(out: Path, module) -> subprocess.CompletedProcess:
    exe = sim.build(out)
    main = next(f for f in func_ops(module) if f.sym_name.data == "main")
    write_inputs(main, _inputs(), out / "in")
    return sim.run(exe, out / "in", out / "res")


@needs_gxx
def test_two_blocks_sharing_one_part_of_the_workspace_stop_the_simulation(tmp_path: Path):
    """The MIX kernel above with every block's part of the workspace at the same bytes: blocks
    run one after another in the simulation, so its output is still right; the check between
    the blocks of a launch names the two blocks and the bytes."""
    module = VectorScratch.fresh_module()
    apply_pipeline(module, default_pipeline())
    out = tmp_path / "shared"
    compile_module(module, out)
    kernel = out / "kernels" / "scratch.cpp"
    text = kernel.read_text()
    strides = ["workspace + AscendC::GetBlockIdx() * 49152;",
               "workspace + (AscendC::GetBlockIdx() / AscendC::GetTaskRatio()) * 49152;"]
    for stride in strides:
        assert text.count(stride) == 1
        text = text.replace(stride, "workspace + 0 * 49152;")
    kernel.write_text(text)
    result = _run_built(out, module)
    assert result.returncode == 86, result.stderr
    assert re.search(r"pypto-sim error: kernel scratch: blocks 0 and 1 of one launch both touch GM bytes \[0, \d+\) of a "
                     r"device allocation of 98304 bytes \(a write by Fixpipe on block 0, a (read|write) by .* on block 1\): "
                     r"the blocks of a launch run at the same time on the device", result.stderr), result.stderr


BLOCKS_CPP = r"""
#include <cstdio>
#include <cstring>
#include "kernel_operator.h"
#include "pypto_sim/launch.h"
using namespace AscendC;

static const char* scenario = "";

// Each block copies 64 floats of x (its own: x[64 b, 64 b + 64)) through UB, adds 1, and writes
// them to y where the scenario says; "reads_other" then reads back the first 64 floats of y.
static void kernel(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> x_gm, y_gm;
  x_gm.SetGlobalBuffer((__gm__ float*)x, 128);
  y_gm.SetGlobalBuffer((__gm__ float*)y, 128);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, 256);
  pipe.InitBuffer(out, 1, 256);
  const int64_t b = GetBlockIdx();
  LocalTensor<float> t = in.AllocTensor<float>();
  DataCopy(t, x_gm[b * 64], 64);
  in.EnQue(t);
  t = in.DeQue<float>();
  LocalTensor<float> o = out.AllocTensor<float>();
  Adds(o, t, 1.0f, 64);
  in.FreeTensor(t);
  out.EnQue(o);
  o = out.DeQue<float>();
  const bool atomic = std::strcmp(scenario, "atomic") == 0;
  const int64_t at = std::strcmp(scenario, "same") == 0 || atomic ? 0 : b * 64;
  if (atomic) SetAtomicAdd<float>();
  if (std::strcmp(scenario, "reads_other") != 0 || b == 0) DataCopy(y_gm[at], o, 64);
  if (atomic) SetAtomicNone();
  out.FreeTensor(o);
  if (std::strcmp(scenario, "reads_other") == 0 && b == 1) {
    TEventID e = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
    SetFlag<HardEvent::MTE3_MTE2>(e);
    WaitFlag<HardEvent::MTE3_MTE2>(e);
    LocalTensor<float> back = in.AllocTensor<float>();
    DataCopy(back, y_gm, 64);
    in.EnQue(back);
    back = in.DeQue<float>();
    in.FreeTensor(back);
  }
}

int main(int argc, char** argv) {
  scenario = argc > 1 ? argv[1] : "";
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  float host[128];
  for (int i = 0; i < 128; ++i) host[i] = static_cast<float>(i);
  void *x = nullptr, *y = nullptr;
  aclrtMalloc(&x, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(x, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
  std::memset(host, 0, sizeof host);
  aclrtMemcpy(y, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
  pypto_sim::launch("blocks", 2, stream, [&] { kernel((GM_ADDR)x, (GM_ADDR)y); });
  aclrtMemcpy(host, sizeof host, y, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST);
  std::printf("%g %g %g\n", host[0], host[64], host[127]);
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
"""


@pytest.fixture(scope="module")
def blocks_program(tmp_path_factory) -> Path:
    return build_sim_program(tmp_path_factory.mktemp("blocks"), "blocks", BLOCKS_CPP)


@needs_gxx
@pytest.mark.parametrize("scenario, printed", [
    ("disjoint", "1 65 128"),  # each block its own 64 floats
    ("atomic", "66 0 0"),  # both add into y[0, 64): (0 + 1) + (64 + 1)
])
def test_blocks_writing_their_own_bytes_or_adding_atomically_run(blocks_program: Path, scenario: str, printed: str):
    proc = subprocess.run([str(blocks_program), scenario], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == printed.split()


@needs_gxx
@pytest.mark.parametrize("scenario, accesses", [
    ("same", "a write by DataCopy UB->GM on block 0, a write by DataCopy UB->GM on block 1"),
    ("reads_other", "a write by DataCopy UB->GM on block 0, a read by DataCopy GM->UB on block 1"),
])
def test_blocks_touching_bytes_another_block_writes_stop_the_simulation(blocks_program: Path, scenario: str,
                                                                        accesses: str):
    proc = subprocess.run([str(blocks_program), scenario], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 86, (proc.returncode, proc.stderr)
    assert ("pypto-sim error: kernel blocks: blocks 0 and 1 of one launch both touch GM bytes [0, 256) of a device "
            f"allocation of 512 bytes ({accesses}): the blocks of a launch run at the same time") in proc.stderr, proc.stderr
