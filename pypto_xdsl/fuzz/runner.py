"""Fuzz a pass pipeline: generated programs must verify and mean the same after it.

    from pypto_xdsl.fuzz.runner import fuzz_pipeline
    report = fuzz_pipeline("inline-functions,outline-incore-scopes", cases=200, seed=0)
    assert not report.failures, report.summary()

CLI (what `make fuzz` runs):

    python -m pypto_xdsl.fuzz.runner [--passes P | --passes auto] [--cases N]
        [--seed S] [--time-limit SECONDS] [--save-failures DIR [--reduce]] [--no-direction-check]

With `--passes auto` the cases cycle over pipelines built from every registered pypto pass
(plus `canonicalize,cse` and the empty pipeline, which checks the print/parse round trip).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from pypto_xdsl.fuzz.generator import GenConfig, generate_program
from pypto_xdsl.interpreter.api import make_context, parse_module
from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """pypto-opt's registry: xDSL's passes plus the pypto passes that exist."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    from pypto_xdsl.transforms import get_all_passes

    passes = dict(xdsl_passes())
    passes.update(get_all_passes())
    return passes


def auto_pipelines() -> list[str]:
    """Pipelines over whatever pypto passes are registered now."""
    from pypto_xdsl.transforms import get_all_passes

    ours = get_all_passes()
    pipelines = ["", "canonicalize,cse"]
    for name in ("inline-functions", "outline-incore-scopes", "convert-tensor-to-tile"):
        if name in ours:
            pipelines.append(name)
    if "inline-functions" in ours and "outline-incore-scopes" in ours:
        pipelines.append("inline-functions,outline-incore-scopes")
        if "convert-tensor-to-tile" in ours:
            pipelines.append("inline-functions,outline-incore-scopes,convert-tensor-to-tile")
    if "pypto-default" in ours:
        pipelines.append("pypto-default")
    for verifier in ("verify-inline-functions-eliminated", "verify-split-incore-orch"):
        if verifier in ours:
            pipelines = [
                p + f",{verifier}" if _establishes(p, verifier) else p for p in pipelines
            ]
    return pipelines


def _establishes(pipeline: str, verifier: str) -> bool:
    needs = {
        "verify-inline-functions-eliminated": "inline-functions",
        "verify-split-incore-orch": "outline-incore-scopes",
    }[verifier]
    return needs in pipeline.split(",")


@dataclass
class FuzzFailure:
    seed: int
    pipeline: str
    stage: str
    """generate / pass / verify / roundtrip / semantics"""
    message: str
    program: str
    dims: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"seed {self.seed} [{self.pipeline or '<roundtrip>'}] {self.stage}: {first[:300]}"


@dataclass
class FuzzReport:
    cases: int = 0
    seconds: float = 0.0
    failures: list[FuzzFailure] = field(default_factory=list)
    per_pipeline: dict[str, int] = field(default_factory=dict)

    @property
    def programs_per_second(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        lines = [
            f"{self.cases} programs in {self.seconds:.1f}s ({self.programs_per_second:.1f} programs/s), "
            f"{len(self.failures)} failures"
        ]
        for pipeline, count in self.per_pipeline.items():
            lines.append(f"  {count:6d}  {pipeline or '<print/parse round trip>'}")
        lines.extend(f"  FAIL {f}" for f in self.failures[:20])
        return "\n".join(lines)


def check_module(
    module: ModuleOp,
    pipeline: str,
    entry: str = "main",
    dims: Mapping[str, int] | None = None,
    *,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
) -> tuple[str, str] | None:
    """Run `pipeline` on a copy of `module`, verify, print/parse and compare semantics.

    Returns None, or (stage, message) with stage one of pass / verify / roundtrip / semantics
    (or "original" when `module` itself fails to run).
    """
    after: ModuleOp = module.clone()
    stage = "pass"
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # pass warnings are not findings
            PassPipeline.parse_spec(registry or available_passes(), pipeline).apply(make_context(), after)
        stage = "verify"
        after.verify()
        stage = "roundtrip"
        after = parse_module(str(after))
        after.verify()
        stage = "semantics"
        assert_same_semantics(
            module, after, entry, input_seeds, dims, check_directions=check_directions
        )
    except SemanticsMismatch as e:
        return stage, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - every exception is a finding
        return ("original" if stage == "semantics" else stage), f"{type(e).__name__}: {e}"
    return None


def check_case(
    pipeline: str,
    seed: int,
    *,
    config: GenConfig | None = None,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
) -> FuzzFailure | None:
    """Generate program `seed` and `check_module` it."""
    try:
        program = generate_program(seed, config)
    except Exception as e:  # noqa: BLE001 - a generator bug is a finding too
        return FuzzFailure(seed, pipeline, "generate", f"{type(e).__name__}: {e}", "")
    found = check_module(
        program.module, pipeline, program.entry, program.dims, input_seeds=input_seeds,
        registry=registry, check_directions=check_directions,
    )
    if found is None:
        return None
    return FuzzFailure(seed, pipeline, found[0], found[1], str(program.module), program.dims)


def fuzz_pipeline(
    passes: str,
    cases: int = 100,
    seed: int = 0,
    *,
    time_limit: float | None = None,
    config: GenConfig | None = None,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
) -> FuzzReport:
    """Run `passes` (a pypto-opt pipeline, e.g. "inline-functions,cse") on `cases` generated
    programs (seeds seed .. seed+cases-1); each must verify, print/parse, and keep its semantics.

    `passes="auto"` cycles over `auto_pipelines()`. Stops early after `time_limit` seconds.
    `registry` replaces pypto-opt's pass registry (tests inject deliberately wrong passes).
    `check_directions` makes a write into an `in` parameter (e.g. a wrongly inferred
    direction of an outlined function) a failure.
    """
    registry = registry or available_passes()
    pipelines = auto_pipelines() if passes == "auto" else [passes]
    for p in pipelines:  # fail fast on an unknown pass name
        PassPipeline.parse_spec(registry, p)
    report = FuzzReport()
    start = time.perf_counter()
    for i in range(cases):
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        pipeline = pipelines[i % len(pipelines)]
        failure = check_case(
            pipeline, seed + i, config=config, input_seeds=input_seeds, registry=registry,
            check_directions=check_directions,
        )
        report.cases += 1
        report.per_pipeline[pipeline] = report.per_pipeline.get(pipeline, 0) + 1
        if failure is not None:
            report.failures.append(failure)
    report.seconds = time.perf_counter() - start
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pypto-fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--passes", default="auto", help="pipeline, or 'auto' (default)")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds")
    parser.add_argument("--save-failures", type=Path, default=None, help="write failing programs here")
    parser.add_argument("--reduce", action="store_true",
                        help="with --save-failures: also write a reduced seed<N>.reduced.mlir")
    parser.add_argument("--no-direction-check", action="store_true",
                        help="do not fail on writes into 'in' parameters")
    args = parser.parse_args(argv)
    report = fuzz_pipeline(
        args.passes, args.cases, args.seed, time_limit=args.time_limit,
        check_directions=not args.no_direction_check,
    )
    print(report.summary())
    if args.save_failures is not None and report.failures:
        args.save_failures.mkdir(parents=True, exist_ok=True)
        for f in report.failures:
            path = args.save_failures / f"seed{f.seed}.mlir"
            header = f"// pipeline: {f.pipeline}\n// dims: {f.dims}\n// {f.stage}: {f.message.splitlines()[0]}\n"
            path.write_text(header + f.program + "\n")
            if args.reduce and f.program:
                from pypto_xdsl.fuzz.reduce import reduce_failure

                small = reduce_failure(
                    f.program, f.pipeline, "main", f.dims,
                    check_directions=not args.no_direction_check,
                )
                (args.save_failures / f"seed{f.seed}.reduced.mlir").write_text(header + small + "\n")
        print(f"failing programs written to {args.save_failures}/")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
