"""Mixed cube + vector kernels end to end on the CPU simulation: a scope with cube and vector
tiles is split (expand-mixed-kernel), its rings go through a GM workspace
(lower-cross-core-rings), the group becomes one MIX kernel, and the simulation (an AIC and an
AIV thread per block, with their cross-core flags) computes what the interpreter computes on
the unsplit program, within the matmul tolerance rule.

Programs: matmul + bias + relu (examples/mixed/fused_linear.py), flash attention over key
blocks, an FFN with silu and with gelu; two shapes each, f16 inputs. The attention reads its
keys as Kᵀ ([D, S]) and the FFN peels its first hidden block (the accumulator starts as a
matmul): the cube path has no transposed right operand (`transpose_view` of an L1 tile) and
no zero-initialised accumulator yet, which examples/mixed/ flash_attention.py and ffn.py use."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.interpreter import run
from pypto_xdsl.interpreter.tolerance import program_precision, tolerance_for
from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate
from tests.test_mixed_kernels import LINEAR

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")


def attention_kt(S: int, D: int, dtype=pl.FP16, BQ: int = 64, BK: int = 64):
    scale = 1.0 / math.sqrt(D)

    @pl.program
    class AttentionKt:
        @pl.function
        def main(
            self,
            q: pl.Tensor[[S, D], dtype],
            kt: pl.Tensor[[D, S], dtype],
            v: pl.Tensor[[S, D], dtype],
            o: pl.Out[pl.Tensor[[S, D], pl.FP32]],
        ) -> pl.Tensor[[S, D], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="attention"):
                for qi in pl.range(S // BQ):
                    q_left = pl.move(pl.load(q, [qi * BQ, 0], [BQ, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                    m_i = pl.tile.full([BQ, 1], pl.FP32, -1e30)
                    l_i = pl.tile.full([BQ, 1], pl.FP32, 0.0)
                    o_i = pl.tile.full([BQ, D], pl.FP32, 0.0)
                    for j in pl.range(S // BK):
                        k_right = pl.move(pl.load(kt, [0, j * BK], [D, BK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                        s_ij = pl.mul(pl.move(pl.matmul(q_left, k_right), target_memory=pl.Mem.Vec), scale)
                        m_new = pl.maximum(m_i, pl.row_max(s_ij))
                        p = pl.row_expand_expdif(s_ij, m_new)
                        alpha = pl.exp(pl.sub(m_i, m_new))
                        l_i = pl.add(pl.mul(l_i, alpha), pl.row_sum(p))
                        p_left = pl.move(pl.cast(p, dtype), target_memory=pl.Mem.Left)
                        v_right = pl.move(pl.load(v, [j * BK, 0], [BK, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                        pv = pl.move(pl.matmul(p_left, v_right), target_memory=pl.Mem.Vec)
                        o_i = pl.add(pl.row_expand_mul(o_i, alpha), pv)
                        m_i = m_new
                    o = pl.store(pl.row_expand_div(o_i, l_i), [qi * BQ, 0], o)
            return o

    return AttentionKt


def ffn_peeled(M: int, H: int, F: int, act: str, dtype=pl.FP16, BM: int = 64, BF: int = 64):
    silu = act == "silu"

    @pl.program
    class FfnPeeled:
        @pl.function
        def main(
            self,
            x: pl.Tensor[[M, H], dtype],
            w1: pl.Tensor[[H, F], dtype],
            w2: pl.Tensor[[F, H], dtype],
            out: pl.Out[pl.Tensor[[M, H], pl.FP32]],
        ) -> pl.Tensor[[M, H], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="ffn"):
                for m in pl.range(M // BM):
                    x_left = pl.move(pl.load(x, [m * BM, 0], [BM, H], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                    w1_first = pl.move(pl.load(w1, [0, 0], [H, BF], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                    h0 = pl.move(pl.matmul(x_left, w1_first), target_memory=pl.Mem.Vec)
                    if silu:
                        a0 = pl.mul(h0, pl.recip(pl.add(pl.exp(pl.neg(h0)), 1.0)))
                    else:
                        inner0 = pl.mul(pl.add(pl.mul(pl.mul(pl.mul(h0, h0), h0), 0.044715), h0), 0.7978845608028654)
                        a0 = pl.mul(pl.mul(h0, pl.add(pl.tanh(inner0), 1.0)), 0.5)
                    a_first = pl.move(pl.cast(a0, dtype), target_memory=pl.Mem.Left)
                    w2_first = pl.move(pl.load(w2, [0, 0], [BF, H], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                    acc = pl.matmul(a_first, w2_first)
                    for f in pl.range(1, F // BF):
                        w1_right = pl.move(pl.load(w1, [0, f * BF], [H, BF], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                        h = pl.move(pl.matmul(x_left, w1_right), target_memory=pl.Mem.Vec)
                        if silu:
                            a = pl.mul(h, pl.recip(pl.add(pl.exp(pl.neg(h)), 1.0)))
                        else:
                            inner = pl.mul(pl.add(pl.mul(pl.mul(pl.mul(h, h), h), 0.044715), h), 0.7978845608028654)
                            a = pl.mul(pl.mul(h, pl.add(pl.tanh(inner), 1.0)), 0.5)
                        a_left = pl.move(pl.cast(a, dtype), target_memory=pl.Mem.Left)
                        w2_right = pl.move(pl.load(w2, [f * BF, 0], [BF, H], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                        acc = pl.matmul_acc(acc, a_left, w2_right)
                    out = pl.store(acc, [m * BM, 0], out)
            return out

    return FfnPeeled


def _operands(shapes, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, s).astype(np.float16) for s in shapes]


def _case(workload: str, shape: tuple[int, ...]):
    """(program, inputs) with f16 operands and a zeroed f32 output."""
    if workload == "linear":
        x, w, bias, y = LINEAR.inputs(*shape, np.float16)
        return LINEAR.build(*shape, pl.FP16), [x, w, bias, y]
    if workload == "attention":
        S, D = shape
        q, kt, v = _operands([(S, D), (D, S), (S, D)])
        return attention_kt(S, D), [q, kt, v, np.zeros((S, D), np.float32)]
    M, H, F = shape
    x, w1, w2 = _operands([(M, H), (H, F), (F, H)])
    return ffn_peeled(M, H, F, workload.split("_")[1]), [x, w1, w2, np.zeros((M, H), np.float32)]


CASES = [
    ("linear", (128, 256, 128)),
    ("linear", (64, 128, 192)),
    ("attention", (256, 64)),
    ("attention", (128, 128)),
    ("ffn_silu", (128, 64, 256)),
    ("ffn_gelu", (64, 128, 128)),
]


@pytest.mark.parametrize("workload, shape", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_mixed_kernel_on_the_simulation_matches_the_interpreter(workload, shape, tmp_path: Path):
    program, inputs = _case(workload, shape)
    reference = program.fresh_module()
    module = reference.clone()
    apply_pipeline(module, default_pipeline())
    report = simulate(module, tmp_path / "out", inputs=[a.copy() for a in inputs], reference_module=reference)
    kernels = list((tmp_path / "out" / "kernels").glob("*.cpp"))
    assert len(kernels) == 1, kernels  # one MIX kernel for the group, its members inside
    text = kernels[0].read_text()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in text  # the epilogues split over both AIVs
    assert "if ASCEND_IS_AIC {" in text and "if ASCEND_IS_AIV {" in text
    assert "CrossCoreSetFlag<2, PIPE_FIX>" in text and "CrossCoreWaitFlag<2, PIPE_S>" in text
    assert report.reference is not None, report.note
    expected = run(reference, "main", [a.copy() for a in inputs])[0]
    precision = program_precision(reference)
    name = next(iter(report.outputs))
    tolerance = tolerance_for(np.asarray(expected), precision)
    got = report.outputs[name]
    assert tolerance.close(expected, got).all(), (name, tolerance, float(np.max(np.abs(got - expected))))


def _lowered_linear():
    program, inputs = _case("linear", (64, 128, 192))
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
    elif mutation == "duplicated":
        block = full.parent_block()
        block.insert_op_after(full.clone(), full)
    else:
        full.properties["id"] = int_prop(7)


@pytest.mark.parametrize("mutation, message", [
    ("missing", r"CrossCoreWaitFlag\(\d+\) (can never return|deadlocks).*a missing or mismatched CrossCoreSetFlag"),
    ("duplicated", r"set \d+ time\(s\) more than it waits for it when the kernel ends|already at 15"),
    ("mismatched", r"CrossCoreWaitFlag\(\d+\) (can never return|deadlocks).*set but not waited for: AIV\d? flag 7 \(x\d+\)"),
])
def test_a_missing_duplicated_or_mismatched_cross_core_flag_stops_the_simulation(mutation, message, tmp_path: Path):
    from pypto_xdsl.backend.ascendc.sim import SimulationError

    module, inputs = _lowered_linear()
    _mutated_flag(module, mutation)
    with pytest.raises(SimulationError, match=message):
        simulate(module, tmp_path / mutation, inputs=[a.copy() for a in inputs], compare=False)


def test_a_mix_kernel_without_its_aic_branch_stops_the_simulation(tmp_path: Path):
    """The AIV waits for a ring slot nobody fills: the AIC thread finished at once."""
    from pypto_xdsl.backend.ascendc.sim import SimulationError
    from pypto_xdsl.dialects.ascendc_kernel import CoreCallOp, KernelOp

    module, inputs = _lowered_linear()
    mix = next(op for op in module.walk() if isinstance(op, KernelOp) and op.kernel_kind.value == "mix")
    aic = next(op for op in mix.body.block.ops if isinstance(op, CoreCallOp) and op.core.data == "aic")
    aic.detach()
    aic.erase()
    with pytest.raises(SimulationError, match=r"CrossCoreWaitFlag\(\d+\) can never return: the AIC finished"):
        simulate(module, tmp_path / "alone", inputs=[a.copy() for a in inputs], compare=False)
