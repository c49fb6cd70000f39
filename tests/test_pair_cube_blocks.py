"""pair-cube-blocks: two output blocks of a cube kernel advanced together (one K loop, two
accumulators, the last K step peeled), the odd block left to the original loop. The pass
keeps the interpreter's result bit for bit; the paired kernels run in the simulation and
match the interpreter, their cube queues shared by the steps that use them in turn."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.dialects import tile
from pypto_xdsl.frontend.program import parse_python_file
from pypto_xdsl.interpreter.api import random_inputs, run
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate

CASES = Path(__file__).parent / "filecheck" / "transforms" / "pair-cube-blocks" / "pair.mlir"


def _functions() -> list[tuple[str, str]]:
    chunks = CASES.read_text().split("// -----")
    out = []
    for chunk in chunks:
        for name in re.findall(r"^pypto\.func aic @(\w+)", chunk, re.MULTILINE):
            out.append((name, chunk))
    return out


@pytest.mark.parametrize("name,text", _functions(), ids=[n for n, _ in _functions()])
def test_pairing_keeps_the_interpreters_result(name, text):
    before = parse_program(text)
    after = parse_program(text)
    apply_pipeline(after, "pair-cube-blocks")
    inputs = random_inputs(before, name, seed=7)
    want = [np.array(a, copy=True) for a in inputs]
    got = [np.array(a, copy=True) for a in inputs]
    run(before, name, want)
    run(after, name, got)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def test_paired_functions_are_the_ones_the_pass_may_pair():
    paired = set()
    for name, text in _functions():
        module = parse_program(text)
        apply_pipeline(module, "pair-cube-blocks")
        func = next(op for op in module.walk() if getattr(op, "sym_name", None) and op.sym_name.data == name)
        if any(isinstance(op, tile.MatmulAccOp) and len(op.parent_op().results) == 2 for op in func.walk()):  # type: ignore[union-attr]
            paired.add(name)
    assert paired == {"three", "two", "ragged"}


def test_pairing_again_changes_nothing():
    text = CASES.read_text().split("// -----")[0]
    once = parse_program(text)
    apply_pipeline(once, "pair-cube-blocks")
    twice = once.clone()
    apply_pipeline(twice, "pair-cube-blocks")
    assert str(twice) == str(once)


DEAL = '''import pypto_xdsl.language as pl
A = pl.Tensor[[256, 256], pl.FP16]
B = pl.Tensor[[256, 384], pl.FP16]
C = pl.Tensor[[256, 384], pl.FP16]
@pl.program
class P:
    @pl.function
    def main(self, a: A, b: B, c: pl.Out[C]) -> C:
        # per core: a row block of 128 and three column blocks, the last a ragged 96 columns
        for i in pl.spmd(2, name_hint="deal"):
            for j in pl.range(3):
                w = 128 - 32 * (j // 2)
                bv = pl.slice(b, [256, 128], [0, j * 128], valid_shape=[256, w])
                c = pl.assemble(c, pl.matmul(a[i * 128 : (i + 1) * 128], bv, out_dtype=pl.FP16), [i * 128, j * 128])
        return c
'''


@pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")
def test_a_paired_kernel_matches_the_interpreter_in_the_simulation(tmp_path):
    module = parse_python_file(DEAL, "<deal>")
    apply_pipeline(module, "pypto-default")
    report = simulate(module, tmp_path, seed=5)
    out, ref = report.outputs["c"].astype(np.float32), report.reference["c"].astype(np.float32)
    assert (abs(out - ref) <= 2e-2 + 2e-3 * abs(ref)).all()
    kernel = (tmp_path / "kernels" / "deal.cpp").read_text()
    # the pair's K loop: two Mmads on one L0A tile; the peeled step: the first block's Fixpipe
    # before the second block's last Mmad; the odd (ragged) block in its own loop
    order = "".join("M" if "Mmad(" in line else "F" for line in kernel.splitlines()
                    if re.match(r"\s*(Mmad|Fixpipe)\(", line))
    assert order == "MM" + "MFMF" + "MF"
    # the peeled step's and the odd block's tiles use the pair's queues: one queue per position,
    # the two accumulators (live together) two buffers of one
    assert kernel.count("TQue<TPosition::A2") == 1 and kernel.count("TQue<TPosition::B1") == 1
    assert kernel.count("TQue<TPosition::CO1, 2>") == 1 and kernel.count("TQue<TPosition::CO1") == 1
    # the pair's two B tiles of a K step are one copy of [128, 256] (dValue: 128 + the second's width)
    copies = re.findall(r"DataCopy\((bv_mat\w*)\[?", kernel)
    assert "bv_mat_pair" in copies and re.search(r"bv_mat_pair_nd2nz\.dValue = ", kernel)
