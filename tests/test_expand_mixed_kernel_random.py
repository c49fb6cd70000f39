"""Random mixed kernels (tests/random_mixed_kernels.py) through pypto-default: every one is
split into a group, verifies, and computes exactly what the unsplit program did; removing
the flags of one that needs them is a data race the interpreter reports."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pypto_xdsl.dialects import make_context
from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, run
from pypto_xdsl.interpreter.testing import assert_same_semantics
from pypto_xdsl.transforms.expand_mixed_kernel import check_mixed_kernels_expanded
from pypto_xdsl.transforms.pipelines import PyptoDefaultPipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_mixed_kernels import generate  # noqa: E402

SEEDS = range(40)


def _split(text: str):
    module = parse_module(text)
    PyptoDefaultPipeline().apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("seed", SEEDS)
def test_random_mixed_kernel_splits_and_keeps_its_meaning(seed: int):
    text = generate(seed)
    after = _split(text)
    printed = str(after)
    assert printed.count("pypto.func group @mixed") == 1
    assert check_mixed_kernels_expanded(after) == []
    assert parse_module(printed) is not None  # prints and parses back
    assert_same_semantics(text, after, "main", seeds=(0, 1), rtol=0, atol=0, matmul_tolerance=False)
    if "set_flag" in printed:
        broken = parse_module("\n".join(line for line in printed.splitlines() if "_flag" not in line))
        with pytest.raises(PyptoInterpretationError, match="data race on global memory"):
            run(broken, "main", seed=0)


def test_the_generator_covers_what_the_pass_handles():
    texts = [str(_split(generate(s))) for s in SEEDS]
    assert sum("pypto.tensor.create" in t for t in texts) >= 10  # workspaces moved to groups
    assert sum("set_flag to aic" in t for t in texts) >= 5  # vector -> cube through GM
    assert sum("pop from aiv" in t for t in texts) >= 10  # vector -> cube through the ring
    assert sum(bool(re.search(r"iter_args\(%va", t)) for t in texts) >= 3  # vector-carried loops
    assert sum("slots(1)" in t for t in texts) >= 5 and sum("slots(3)" in t for t in texts) >= 5
