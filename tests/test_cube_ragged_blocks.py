"""Ragged N blocks on the cube path: a static N without a good block divisor takes blocks of
128 columns and a ragged last one, and a kernel that deals two static shapes by an `if` plans
the two branches' queues as one (ascendc-plan-buffers shares exclusive branches); both run in
the simulation and match the interpreter."""

from __future__ import annotations

import pytest

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.frontend.program import parse_python_file
from pypto_xdsl.tools.pypto_compile import apply_pipeline, simulate

pytestmark = pytest.mark.skipif(sim.compiler() is None, reason="needs g++ for the simulation")

BANDS = '''import pypto_xdsl.language as pl
A = pl.Tensor[[128, 256], pl.FP16]
B = pl.Tensor[[256, 688], pl.FP16]
C = pl.Tensor[[128, 688], pl.FP16]
@pl.program
class P:
    @pl.function
    def main(self, a: A, b: B, c: pl.Out[C]) -> C:
        for i in pl.spmd(2, name_hint="bands"):
            if i == 0:
                c[:, 0:352] = pl.matmul(a, b[:, 0:352], out_dtype=pl.FP16)
            else:
                c[:, 352:688] = pl.matmul(a, b[:, 352:688], out_dtype=pl.FP16)
        return c
'''


def test_a_kernel_dealing_two_static_bands_by_an_if_fits_and_matches(tmp_path):
    """Band 0 is 352 columns (128 + 128 + a ragged 96), band 1 336 (3 x 112): each branch has
    its A panel, B, L0 and accumulator queues, which the plan shares with the other branch's
    (one execution runs one branch); apart they would need two 64 KiB panels' worth more L1
    and single-buffered L0 tiles."""
    module = parse_python_file(BANDS, "<bands>")
    apply_pipeline(module, "pypto-default")
    report = simulate(module, tmp_path, seed=3)
    assert report.max_abs_error is not None
    out, ref = report.outputs["c"], report.reference["c"]
    assert (abs(out.astype("float32") - ref.astype("float32")) <= 2e-2 + 2e-3 * abs(ref.astype("float32"))).all()
    kernel = (tmp_path / "kernels" / "bands.cpp").read_text()
    assert kernel.count("TQue<TPosition::A1") == 1 and "(disjoint live ranges)" in kernel
    assert "TQue<TPosition::A2, 2>" in kernel and "TQue<TPosition::B2, 2>" in kernel  # double-buffered L0
    assert "nSize = valid_cols;" in kernel  # band 0's ragged block
