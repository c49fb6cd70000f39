"""The negative fuzzer: mutations, the judging rule, and a bounded campaign (`make fuzz-errors`
runs 5,000 mutants)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pypto_xdsl.fuzz.errors import (
    judge,
    repository_dsl_seeds,
    repository_seeds,
    run_campaign,
    valid_dsl_seeds,
    valid_seeds,
)
from pypto_xdsl.fuzz.mutate import MUTATIONS, mutate

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = (ROOT / "examples" / "fused_softmax.mlir").read_text()


DSL_PROGRAM = (ROOT / "examples" / "softmax.py").read_text()
DSL_ONLY = {"dsl-name"}


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_every_mutation_changes_a_valid_program(kind):
    rng = random.Random(0)
    program = DSL_PROGRAM if kind in DSL_ONLY else PROGRAM
    mutants = {MUTATIONS[kind](program, rng) for _ in range(5)}
    assert None not in mutants
    assert all(m != program.encode() for m in mutants)


def test_mutate_draws_kinds_that_apply():
    rng = random.Random(1)
    kinds = {mutate(PROGRAM, rng)[0] for _ in range(200)}
    assert kinds == set(MUTATIONS) - DSL_ONLY
    dsl_kinds = {mutate(DSL_PROGRAM, rng)[0] for _ in range(200)}
    assert DSL_ONLY <= dsl_kinds and "token-delete" in dsl_kinds


def _result(code=1, stdout="", stderr="", crash=None):
    return {"code": code, "stdout": stdout, "stderr": stderr, "crash": crash}


def test_the_rule_accepts_one_located_diagnostic_or_valid_output_only():
    ok = lambda out: None  # noqa: E731
    assert judge(_result(stderr="p.mlir:3:5: error: bad\n  x\n  ^\n"), "p.mlir", ok).outcome == "diagnostic"
    assert judge(_result(code=0, stdout="module"), "p.mlir", ok).outcome == "valid"
    assert judge(_result(code=0, stdout="x"), "p.mlir", lambda out: "does not read back").outcome == "bad"
    assert judge(_result(stderr="p.mlir: error: bad\n"), "p.mlir", ok).outcome == "bad"  # no line:col
    two = "p.mlir:1:1: error: a\np.mlir:2:1: error: b\n"
    assert judge(_result(stderr=two), "p.mlir", ok).outcome == "bad"
    assert judge(_result(stderr="p.mlir:1:1: error: a\n", stdout="partial"), "p.mlir", ok).outcome == "bad"
    assert judge(_result(crash="Traceback ..."), "p.mlir", ok).outcome == "traceback"
    assert judge(_result(stderr="pypto-opt: internal error: KeyError"), "p.mlir", ok).outcome == "bad"
    assert judge({"hang": True, "args": []}, "p.mlir", ok).outcome == "hang"
    assert judge(_result(code=2, stderr="p.mlir:1:1: error: a"), "p.mlir", ok).outcome == "bad"


def test_a_quoted_source_line_naming_an_error_is_context_not_a_second_diagnostic():
    """make fuzz-errors on the merged tree: the source line under a located header was a CHECK
    comment quoting "error:", and the rule counted it as a second diagnostic."""
    ok = lambda out: None  # noqa: E731
    quoted = "p.mlir:27:9: error: invalid UTF-8 byte 0xeb\np.mlir:27:9\n// CHECK: q.mlir:1:1: error: x\n        ^\n        invalid\n"
    assert judge(_result(stderr=quoted), "p.mlir", ok).outcome == "diagnostic"
    # a second header after the quoted context still counts
    assert judge(_result(stderr=quoted + "p.mlir:2:1: error: b\n"), "p.mlir", ok).outcome == "bad"


def test_repository_seeds_are_the_valid_chunks():
    seeds = valid_seeds(repository_seeds(ROOT))
    assert len(seeds) >= 100
    assert not any("expected-error" in s for s in seeds)


def test_a_bounded_campaign_finds_no_traceback_hang_or_unlocated_diagnostic():
    seeds = valid_seeds([PROGRAM, *repository_seeds(ROOT)[:40]])
    report = run_campaign(seeds, mutants=60, seed=3, jobs=1, timeout=120)
    assert report.mutants == 60
    assert not report.failures, report.table() + "\n" + "\n\n".join(f[3] for f in report.failures[:3])
    total = sum(sum(c.values()) for c in report.by_kind.values())
    assert total == 60 and sum(c["diagnostic"] for c in report.by_kind.values()) > 20


def test_dsl_mutants_go_through_the_frontend_under_the_same_rule():
    dsl_seeds = valid_dsl_seeds(repository_dsl_seeds(ROOT))
    assert len(dsl_seeds) >= 5
    report = run_campaign(valid_seeds([PROGRAM]), mutants=40, seed=5, jobs=1, timeout=120,
                          dsl_seeds=dsl_seeds, dsl_share=1.0)
    assert not report.failures, report.table() + "\n" + "\n\n".join(f[3] for f in report.failures[:3])
    assert sum(report.by_source["dsl"].values()) == 40 and report.by_source["dsl"]["diagnostic"] > 10


def test_generated_dsl_programs_are_valid_seeds_and_their_mutants_follow_the_rule():
    from pypto_xdsl.fuzz.errors import generated_dsl_seeds

    texts = generated_dsl_seeds(4, 0)
    assert len(valid_dsl_seeds(texts)) == 4  # pypto-opt accepts every generated program as it is
    report = run_campaign(valid_seeds([PROGRAM]), mutants=20, seed=9, jobs=1, timeout=120,
                          dsl_seeds=texts, dsl_share=1.0)
    assert not report.failures, report.table() + "\n" + "\n\n".join(f[3] for f in report.failures[:3])
    assert sum(report.by_source["dsl"].values()) == 20
