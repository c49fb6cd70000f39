"""The CPU simulation headers fail loudly on every hardware rule they check.

tests/backend_sim/violations.cpp misuses the Ascend C / ACL subset in one way per mode; each
mode must stop with exit status 86 and a "pypto-sim error" that names the problem, and the
correct path ("ok") must run to completion.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pypto_xdsl.backend.ascendc.sim import SIM_INCLUDE_DIR

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

SOURCE = Path(__file__).parent / "backend_sim" / "violations.cpp"


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("sim") / "violations"
    subprocess.run(
        ["g++", "-std=c++17", "-O0", "-w", f"-I{SIM_INCLUDE_DIR}", str(SOURCE), "-o", str(exe)],
        check=True,
        capture_output=True,
    )
    return exe


def run(program: Path, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(program), mode], capture_output=True, text=True, timeout=60)


def test_correct_usage_runs(program):
    proc = run(program, "ok")
    assert proc.returncode == 0, proc.stderr
    # y = exp(x) with x[100] = 1.0
    assert proc.stdout.strip() == "ok 2.718282"


def test_cube_path_runs(program):
    proc = run(program, "cube_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok 1.0 4.0 1.0"


def test_cube_path_with_load_data_3d_runs(program):
    # LoadData with LoadData3DParamsV2 into L0A and L0B: the same product as the 2D loads
    proc = run(program, "cube_load3d_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok 1.0 4.0 1.0"


def test_cube_copy_published_by_a_flag_runs(program):
    # a chunk of a resident L1 panel: SetFlag/WaitFlag<MTE2_MTE1> after its copy, no queue hand-off
    proc = run(program, "cube_flagged_copy_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok 1.0 4.0 1.0"


def test_brcb_and_level0_row_broadcast(program):
    proc = run(program, "brcb_row_sub_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "brcb ok"


def test_pipe_v_barrier_orders_dependent_vector_instructions(program):
    proc = run(program, "pipe_v_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "pipe_v ok"


@pytest.mark.parametrize(
    "mode, message",
    [
        ("pipe_v_raw", "Abs reads UB bytes [2048, 2560) of buffer 'VECCALC TBuf #2 slot 0 (UB bytes [2048, 3072))' "
         "that an earlier Exp wrote, with no PipeBarrier<PIPE_V> in between"),
        ("pipe_v_war", "Relu writes UB bytes [2304, 2560) of buffer"),
        ("pipe_v_waw", "Relu writes UB bytes [1280, 1536) of buffer"),
        ("ub_overflow", "exceeds the Unified Buffer"),
        ("compute_before_deque", "before EnQue/DeQue (missing MTE2->V synchronisation)"),
        ("alloc_exhausted", "all 1 buffers are in use (missing FreeTensor?)"),
        ("dequeue_empty", "DeQue on empty queue"),
        ("use_while_enqueued", "while it is enqueued"),
        ("misaligned", "at UB byte 12 is not 32-byte aligned"),
        ("count_overflow", "512 elements exceed the operand's 256 elements"),
        ("getvalue_without_sync", "without SetFlag/WaitFlag<HardEvent::V_S>"),
        ("wait_without_set", "WaitFlag<HardEvent::V_S>(1) without a matching SetFlag"),
        ("event_ids_exhausted", "AllocEventID<HardEvent::MTE3_MTE2>: all 8 event ids are in use"),
        ("release_foreign_event_id", "ReleaseEventID<HardEvent::MTE3_MTE2>(0) of an id AllocEventID did not return"),
        ("release_with_flag_set", "while its flag is set and not waited for"),
        ("event_id_not_released", "reserved with AllocEventID and never released"),
        ("repeat_limit", "repeatTime 300 outside [1, 255]"),
        ("mask_limit", "mask 65 outside [1, 64]"),
        ("brcb_misaligned", "Brcb: operand in buffer 'VECIN queue #0 slot 0 (UB bytes [0, 1024))' at UB byte 12 is not 32-byte aligned"),
        ("brcb_repeat_limit", "Brcb: repeatTime 256 outside [1, 255]"),
        ("brcb_overflow", "Brcb: 320 elements exceed the operand's 256 elements"),
        ("brcb_in_place", "Brcb: dst and src0 overlap"),
        ("use_after_free", "after FreeTensor"),
        ("copy_out_without_queue", "missing V->MTE3 synchronisation"),
        ("copy_not_whole_blocks", "is not a whole number of 32-byte blocks: use DataCopyPad"),
        ("gm_out_of_bounds", "of a GlobalTensor with 128 elements"),
        ("leak", "still allocated or enqueued (missing FreeTensor)"),
        ("host_pointer_arg", "argument 'x'"),
        ("memcpy_overflow", "outside any device allocation"),
        ("finalize_with_leak", "aclFinalize with 2 device allocations not freed"),
        ("double_free", "not a live device allocation"),
        ("cube_l0a_overflow", "exceeds the L0A"),
        ("cube_loaddata_before_deque", "LoadData reads buffer 'A1 queue"),
        ("cube_flag_before_copy", "LoadData reads buffer 'A1 queue"),
        ("cube_mmad_before_deque", "Mmad reads buffer 'A2 queue"),
        ("cube_fixpipe_without_queue", "missing M->FIX synchronisation"),
        ("cube_bad_k", "multiples of 16 (got 16, 16, 8)"),
        ("cube_bias_init_true", "Mmad with a bias-table row and cmatrixInitVal = true"),
        ("cube_bias_before_deque", "Mmad reads buffer 'C2 queue"),
        ("cube_cmatrix_source_without_bias", "cmatrixSource (bias table) needs the 5-argument Mmad"),
        ("cube_atomic_type_mismatch", "Fixpipe copies 4-byte elements under SetAtomicAdd of another element type"),
        ("cube_atomic_left_on", "SetAtomicAdd without SetAtomicNone before the kernel returns"),
        ("cube_f32_iftranspose", "ifTranspose transposes 16 x 16 fractals of 2-byte types; use LoadDataWithTranspose for 4-byte types"),
        ("cube_load3d_before_deque", "LoadData with LoadData3DParamsV2 reads buffer 'A1 queue"),
        ("cube_load3d_filter", "supports a 1 x 1 filter with unit strides and dilations (the matrix case), got filter 1 x 2"),
        ("cube_load3d_outside", "positions 0..32 of 16 and channels 0..16 of 16 leave the feature map"),
        ("cube_load3d_partial_fractal", "kExtension 8 of 16"),
        ("cube_load3d_l0a_transpose", "the simulation does not transpose into L0A"),
        ("cube_load3d_misaligned", "LoadData with LoadData3DParamsV2: operand in buffer 'A2 queue #5 slot 0 (L0A bytes [512, 1536))' is not 512-byte aligned in L0A"),
    ],
)
def test_violation_fails_loudly(program, mode, message):
    proc = run(program, mode)
    assert proc.returncode == 86, (mode, proc.returncode, proc.stdout, proc.stderr)
    assert "pypto-sim error" in proc.stderr
    assert message in proc.stderr
    assert "ok " not in proc.stdout


def test_event_ids_come_from_the_tpipe(program):
    """AllocEventID reserves an id until ReleaseEventID; FetchEventID lends one nobody reserved."""
    proc = run(program, "event_ids_ok")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "event ids ok"
