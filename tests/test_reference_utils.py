"""The APIs of PyPTO's `examples/utils/` programs: PartialCodegenError, pl.parse / pl.loads,
serialize / deserialize, and arrays of task ids (`pl.array.create(n, pl.TASK_ID)`)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.emit import PartialCodegenError


@pl.jit
def rebinds_out(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.mul(x, 2.0)
        result = pl.add(x, 1.0)
    return result


def test_partial_codegen_error_keeps_the_kernels_and_is_located():
    x = np.ones(64, np.float32)
    compiled = rebinds_out.compile(x, np.zeros_like(x))
    with pytest.raises(PartialCodegenError) as info:
        compiled.files
    e = info.value
    assert isinstance(e, BackendError) and isinstance(e, RuntimeError)
    assert sorted(e.files) == ["kernels/rebinds_out_incore_0.cpp", "sim/aclrtlaunch_rebinds_out_incore_0.h"]
    message = str(e)
    assert message.startswith(f"{__file__}:{rebinds_out.__wrapped__.__code__.co_firstlineno + 1}:1: error: ")
    assert "code generation failed for @rebinds_out;" in message
    assert "orchestration functions can only return tensors written through their parameters" in message
