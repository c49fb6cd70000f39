"""lower-cross-core-rings keeps the meaning of a group: the twelve mixed programs of
test_mixed_kernels.py and the random mixed kernels compute exactly what they did with rings,
and the interpreter's race detector accepts the FULL/FREE flag discipline (and rejects it when
a flag is removed)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pypto_xdsl.dialects.cross_core import TRANSFER_TYPES, SetFlagOp, WaitFlagOp
from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.transforms.lower_cross_core_rings import lower_rings
from tests.test_mixed_kernels import CASES, _apply, _case


def _with_rings(module):
    lowered = module.clone()
    assert lower_rings(lowered) == []
    lowered.verify()
    return lowered


@pytest.mark.parametrize("workload, shape, dtype", CASES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_rings_in_global_memory_compute_what_the_rings_did(workload, shape, dtype):
    program, inputs, *_ = _case(workload, shape, dtype)
    split = _apply(program.fresh_module(), "pypto-default")
    lowered = _with_rings(split)
    assert not any(isinstance(op, TRANSFER_TYPES) for op in lowered.walk())
    assert_same_semantics(split, lowered, "main", seeds=(0,), rtol=0, atol=0, matmul_tolerance=False)


def test_random_mixed_kernels_keep_their_meaning():
    from tests.random_mixed_kernels import generate

    transfers = 0
    for seed in range(8):
        # expand-mixed-kernel splits outlined incore functions: without outlining there is no
        # group, no transfer and nothing to compare
        split = _apply(parse_module(generate(seed)), "outline-incore-scopes", "expand-mixed-kernel")
        transfers += sum(isinstance(op, TRANSFER_TYPES) for op in split.walk())
        lowered = _with_rings(split)
        assert not any(isinstance(op, TRANSFER_TYPES) for op in lowered.walk())
        assert_same_semantics(split, lowered, "main", seeds=(0,), rtol=0, atol=0, matmul_tolerance=False)
    assert transfers >= 8


def _linear_with_rings():
    program, inputs, *_ = _case("linear_gelu", (64, 128, 192), "f16")
    return _with_rings(_apply(program.fresh_module(), "pypto-default")), inputs


def test_without_the_free_credit_the_producer_overwrites_a_slot_the_consumer_reads():
    lowered, inputs = _linear_with_rings()
    text = str(lowered)
    # the FULL flag of the c2v ring is the first id the pass allocated: drop its waits
    full = re.search(r"wait_flag from aic id\((\d+)\)", text).group(1)
    broken = parse_module(text.replace(f"pypto.cross_core.wait_flag from aic id({full})\n", ""))
    with pytest.raises(PyptoInterpretationError, match="race|set .* more than waited"):
        run(broken, "main", [a.copy() for a in inputs])


def test_every_ring_flag_is_waited_for_as_often_as_it_is_set():
    lowered, _ = _linear_with_rings()
    sets: dict[tuple[str, int], int] = {}
    waits: dict[tuple[str, int], int] = {}
    for op in lowered.walk():
        if isinstance(op, SetFlagOp):
            sets[(op.pipe_kind.value, op.id_value)] = sets.get((op.pipe_kind.value, op.id_value), 0) + 1
        elif isinstance(op, WaitFlagOp):
            waits[(op.pipe_kind.value, op.id_value)] = waits.get((op.pipe_kind.value, op.id_value), 0) + 1
    assert sets.keys() == waits.keys() and sets


RUNTIME_TRIPS = Path(__file__).resolve().parent / "filecheck" / "transforms" / "lower-cross-core-rings" / "runtime_trips.mlir"


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_a_transfer_after_a_loop_with_a_run_time_trip_count_finds_its_slot(n):
    """n blocks through the ring in a loop, then one more: the last slot is n mod 2 at run
    time. The lowered group stores what the ring version stores, for every n (a wrong slot
    would hand the consumer a stale block, or race with the producer)."""
    module = parse_module(RUNTIME_TRIPS.read_text())
    lowered = _with_rings(module)
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (64, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    before = run(module, "main", [a, b, np.zeros((64, 16), np.float32), n])[0]
    after = run(lowered, "main", [a, b, np.zeros((64, 16), np.float32), n])[0]
    np.testing.assert_array_equal(before, after)
    product = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(after[48:], product[48:], rtol=1e-3, atol=1e-3)
    assert not after[16 * n : 48].any()
