"""The parameter files the generated driver reads and writes: one encoding for every tool."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IndexType, bf16, f16, i32

from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.dialects.attributes import TensorType


def test_bf16_is_written_as_the_upper_half_of_the_rounded_float(tmp_path):
    t = TensorType([2, 2], bf16)
    value = np.array([[1.0, -2.5], [3.140625, 1.00390625]], dtype=np.float32)
    sim.write_parameter_file(tmp_path / "x.bin", value, t)
    raw = np.fromfile(tmp_path / "x.bin", dtype=np.uint16)
    assert raw.tolist() == [0x3F80, 0xC020, 0x4049, 0x3F80]  # 1.00390625 rounds to even: 1.0
    back = sim.read_parameter_file(tmp_path / "x.bin", t)
    assert back.dtype == np.float32 and back.tolist() == [[1.0, -2.5], [3.140625, 1.0]]


def test_f16_i32_and_index_files_have_their_host_widths(tmp_path):
    sim.write_parameter_file(tmp_path / "h.bin", np.ones((4, 8)), TensorType([4, 8], f16))
    sim.write_parameter_file(tmp_path / "i.bin", np.arange(6).reshape(2, 3), TensorType([2, 3], i32))
    sim.write_parameter_file(tmp_path / "n.bin", 7, IndexType())
    assert (tmp_path / "h.bin").stat().st_size == 4 * 8 * 2
    assert (tmp_path / "i.bin").stat().st_size == 6 * 4
    assert np.fromfile(tmp_path / "n.bin", dtype=np.int64).tolist() == [7]
    got = sim.read_parameter_file(tmp_path / "i.bin", TensorType([2, 3], i32))
    assert got.tolist() == [[0, 1, 2], [3, 4, 5]]
