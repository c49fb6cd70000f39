"""Fuzz a pass pipeline: generated programs must verify and mean the same after it.

    from pypto_xdsl.fuzz.runner import fuzz_pipeline
    report = fuzz_pipeline("inline-functions,outline-incore-scopes", cases=200, seed=0)
    assert not report.failures, report.summary()

CLI (what `make fuzz` runs):

    python -m pypto_xdsl.fuzz.runner [--passes P | --passes auto] [--cases N]
        [--seed S] [--time-limit SECONDS] [--save-failures DIR [--reduce]] [--no-direction-check]
        [--sim-share F]

With `--passes auto` the cases cycle over pipelines built from every registered pypto pass
(plus `canonicalize,cse` and the empty pipeline, which checks the print/parse round trip),
up to the backend's passes. After a pipeline that makes the module codegen-ready, the Ascend C
printer runs too (`emit_ascendc`: it prints, or declines with a "cannot lower" diagnostic,
counted as unsupported); for a share of those cases (`sim_share`) the printed program is
built with g++ against the simulation and run, and its outputs must match the interpreter's.
The report counts the features the programs exercised (`program_features`).

A share of the cases (`dsl_share`) are `pl` DSL programs instead (`pypto_xdsl.fuzz.dsl`):
their source goes through the frontend, the interpreter's run of the module it builds must
match the numpy model the generator wrote with the source, and the module then takes the
same pipeline, printer and simulation checks as a generated module. They are counted apart
in the summary. `jobs` worker processes share the cases (the plan of which case runs which
pipeline is made first, so a run's findings do not depend on the number of workers).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import io
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from pypto_xdsl.fuzz.generator import GenConfig, backend_config, generate_program
from pypto_xdsl.interpreter.api import make_context, parse_module
from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """pypto-opt's registry: xDSL's passes plus the pypto passes that exist."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    from pypto_xdsl.transforms import get_all_passes

    passes = dict(xdsl_passes())
    passes.update(get_all_passes())
    return passes


BACKEND_PASSES = ("ascendc-plan-buffers", "ascendc-insert-sync")


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
        if all(p in ours for p in BACKEND_PASSES):
            pipelines.append(",".join(("pypto-default", *BACKEND_PASSES)))
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
    source: str = "mlir"
    """"mlir" (a generated module; `program` is its text) or "dsl" (`program` is the `pl` source)."""

    def __str__(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        what = "dsl seed" if self.source == "dsl" else "seed"
        return f"{what} {self.seed} [{self.pipeline or '<roundtrip>'}] {self.stage}: {first[:300]}"


@dataclass
class FuzzReport:
    cases: int = 0
    seconds: float = 0.0
    failures: list[FuzzFailure] = field(default_factory=list)
    per_pipeline: dict[str, int] = field(default_factory=dict)
    features: Counter = field(default_factory=Counter)
    """Programs exercising each feature (`program_features`)."""
    backend: Counter = field(default_factory=Counter)
    """Outcomes of the Ascend C printer and the simulation."""
    dsl_cases: int = 0
    """Of `cases`, the `pl` DSL programs; the counters below are theirs alone."""
    dsl_per_pipeline: dict[str, int] = field(default_factory=dict)
    dsl_backend: Counter = field(default_factory=Counter)
    dsl_features: Counter = field(default_factory=Counter)
    """Programs exercising each DSL construct (`DslProgram.features`)."""
    jobs: int = 1

    @property
    def programs_per_second(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0

    @property
    def dsl_failures(self) -> list[FuzzFailure]:
        return [f for f in self.failures if f.source == "dsl"]

    def merge(self, other: FuzzReport) -> None:
        """Add a worker's counts and failures to this report."""
        self.cases += other.cases
        self.dsl_cases += other.dsl_cases
        self.failures += other.failures
        for mine, theirs in ((self.per_pipeline, other.per_pipeline), (self.dsl_per_pipeline, other.dsl_per_pipeline)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v
        self.features.update(other.features)
        self.backend.update(other.backend)
        self.dsl_backend.update(other.dsl_backend)
        self.dsl_features.update(other.dsl_features)

    def summary(self) -> str:
        mlir = self.cases - self.dsl_cases
        workers = f", {self.jobs} workers" if self.jobs > 1 else ""
        lines = [
            f"{self.cases} programs in {self.seconds:.1f}s ({self.programs_per_second:.1f} programs/s{workers}), "
            f"{len(self.failures)} failures",
            f"generated modules: {mlir} programs, {len(self.failures) - len(self.dsl_failures)} failures",
        ]
        for pipeline, count in self.per_pipeline.items():
            if count > self.dsl_per_pipeline.get(pipeline, 0):
                lines.append(f"  {count - self.dsl_per_pipeline.get(pipeline, 0):6d}  {pipeline or '<print/parse round trip>'}")
        if self.backend:
            lines.append("Ascend C printer and simulation (generated modules):")
            lines.extend(f"  {n:6d}  {what}" for what, n in sorted(self.backend.items(), key=lambda x: -x[1]))
        if self.features:
            lines.append("programs per feature (generated modules and DSL programs after the frontend):")
            lines.extend(f"  {self.features[f]:6d}  {f}" for f in FEATURES)
        if self.dsl_cases:
            lines.append(
                f"pl DSL programs (frontend, then the numpy model, then the pipeline): {self.dsl_cases} programs, "
                f"{len(self.dsl_failures)} failures"
            )
            for pipeline, count in self.dsl_per_pipeline.items():
                lines.append(f"  {count:6d}  {pipeline or '<print/parse round trip>'}")
            if self.dsl_backend:
                lines.append("Ascend C printer and simulation (DSL programs):")
                lines.extend(f"  {n:6d}  {what}" for what, n in sorted(self.dsl_backend.items(), key=lambda x: -x[1]))
            lines.append("DSL programs per construct:")
            lines.extend(f"  {n:6d}  {what}" for what, n in sorted(self.dsl_features.items()))
        lines.extend(f"  FAIL {f}" for f in self.failures[:20])
        return "\n".join(lines)


FEATURES = (
    "scf.for", "scf.for start > 0", "scf.for step not dividing", "scf.while", "scf.if with results",
    "scf.if without results", "scf.if without else", "nesting depth >= 3", "incore_scope", "spmd scope",
    "split_aiv", "submit", "inline call", "opaque call", "aic kernel", "aiv kernel", "orchestration main",
    "rank 0", "rank 1", "rank 3", "? dim", "symbolic dim", "unaligned shape", "large shape",
    "f32", "f16", "bf16", "i32", "i16", "i8", "tensor.cast", "tile.cast", "mat tile", "bias tile",
    "matmul", "get_block_idx", "get_block_num", "row ops", "index arith", "float arith", "int arith",
    "arith.select",
)


def program_features(module: ModuleOp) -> set[str]:
    """The features (`FEATURES`) a module exercises."""
    from xdsl.dialects import arith, scf
    from xdsl.dialects.builtin import IntegerAttr

    from pypto_xdsl.dialects import tensor, tile
    from pypto_xdsl.dialects.attributes import FuncKind, MemorySpace, TensorType, TileType
    from pypto_xdsl.dialects.program import BLOCK_DIM_ATTR, CallOp, FuncOp, IncoreScopeOp, SplitAivOp, SubmitOp

    found: set[str] = set()
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    for op in module.walk():
        name = op.name
        if isinstance(op, scf.ForOp):
            found.add("scf.for")
            lb, step = (o.owner if isinstance(o.owner, arith.ConstantOp) else None for o in (op.lb, op.step))
            if lb is not None and isinstance(lb.value, IntegerAttr) and lb.value.value.data > 0:
                found.add("scf.for start > 0")
            if step is not None and isinstance(step.value, IntegerAttr) and step.value.value.data not in (2, 4, 16, 32):
                found.add("scf.for step not dividing")
        elif isinstance(op, scf.WhileOp):
            found.add("scf.while")
        elif isinstance(op, scf.IfOp):
            found.add("scf.if with results" if op.results else "scf.if without results")
            if not op.false_region.blocks:
                found.add("scf.if without else")
        elif isinstance(op, IncoreScopeOp):
            found.add("spmd scope" if BLOCK_DIM_ATTR in op.attributes else "incore_scope")
        elif isinstance(op, SplitAivOp):
            found.add("split_aiv")
        elif isinstance(op, SubmitOp):
            found.add("submit")
        elif isinstance(op, CallOp):
            callee = funcs.get(op.callee.string_value())
            if callee is not None:
                found.add("inline call" if callee.func_kind == FuncKind.INLINE else "opaque call")
        elif isinstance(op, FuncOp):
            if op.func_kind == FuncKind.AIC:
                found.add("aic kernel")
            elif op.func_kind == FuncKind.AIV:
                found.add("aiv kernel")
            elif op.func_kind == FuncKind.ORCHESTRATION and op.sym_name.data == "main":
                found.add("orchestration main")
        elif isinstance(op, tensor.CastOp):
            found.add("tensor.cast")
        elif isinstance(op, tile.CastOp):
            found.add("tile.cast")
        elif isinstance(op, tensor.MatmulOp | tile.MatmulOp):
            found.add("matmul")
        elif isinstance(op, tile.GetBlockIdxOp):
            found.add("get_block_idx")
        elif isinstance(op, tile.GetBlockNumOp):
            found.add("get_block_num")
        elif isinstance(op, tensor.RowMaxOp | tensor.RowSumOp | tile.RowMaxOp | tile.RowSumOp):
            found.add("row ops")
        elif isinstance(op, arith.SelectOp):
            found.add("arith.select")
        elif name in ("arith.remui", "arith.divui", "arith.maxsi", "arith.subi") and isinstance(op.results[0].type, type(op.operands[0].type)) and str(op.results[0].type) == "index":
            found.add("index arith")
        elif name in ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf", "arith.sitofp"):
            found.add("float arith")
        elif name in ("arith.andi", "arith.ori", "arith.xori", "arith.muli", "arith.addi", "arith.subi") and str(op.results[0].type).startswith("i"):
            found.add("int arith")
        for r in (*op.results, *(a for region in op.regions for block in region.blocks for a in block.args)):
            t = r.type
            if isinstance(t, TensorType | TileType):
                shape = t.get_shape()
                rank = len(shape)
                if rank in (0, 1, 3):
                    found.add(f"rank {rank}")
                if None in shape:
                    found.add("? dim")
                if any(isinstance(d, str) for d in shape):
                    found.add("symbolic dim")
                if shape and isinstance(shape[-1], int) and shape[-1] % 8:
                    found.add("unaligned shape")
                if isinstance(t, TensorType) and t.is_static() and t.num_elements() >= 64 * 128:
                    found.add("large shape")
                element = str(t.element_type)
                if element in FEATURES:
                    found.add(element)
                if isinstance(t, TileType) and t.space == MemorySpace.MAT:
                    found.add("mat tile")
                if isinstance(t, TileType) and t.space == MemorySpace.BIAS:
                    found.add("bias tile")
    if _depth(module) >= 3:
        found.add("nesting depth >= 3")
    return found


def _depth(module: ModuleOp) -> int:
    """The deepest nesting of regions below a function body."""
    deepest = 0
    for op in module.walk():
        if op.regions and op.parent_op() is not module:
            d, p = 0, op
            while p is not None and p.parent_op() is not module:
                d, p = d + 1, p.parent_op()
            deepest = max(deepest, d)
    return deepest


MAX_RUN_STEPS = 1_000_000
"""Ops one interpreter run of a checked program may execute: the reducer's candidates (a
loop whose increment it deleted) may not terminate."""


def check_module(
    module: ModuleOp,
    pipeline: str,
    entry: str = "main",
    dims: Mapping[str, int] | None = None,
    *,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
    simulate_in: Path | None = None,
    backend: Counter | None = None,
) -> tuple[str, str] | None:
    """Run `pipeline` on a copy of `module`, verify, print/parse and compare semantics; after
    a pipeline ending codegen-ready (`pypto-default`, the backend passes) print Ascend C, and
    with `simulate_in` (a scratch directory) also build, run and compare the simulation.

    Returns None, or (stage, message) with stage one of pass / verify / roundtrip / semantics /
    emit / simulate (or "original" when `module` itself fails to run). `backend` counts the
    printer's and the simulation's outcomes.
    """
    after: ModuleOp = module.clone()
    stage = "pass"
    try:
        names = pipeline.split(",")
        front = [n for n in names if n not in BACKEND_PASSES]
        with contextlib.redirect_stderr(io.StringIO()):  # pass warnings are not findings
            PassPipeline.parse_spec(registry or available_passes(), ",".join(front)).apply(make_context(), after)
            if len(front) < len(names) and not _backend_passes(after, names[len(front):], registry, backend):
                return None
        stage = "verify"
        after.verify()
        stage = "roundtrip"
        after = parse_module(str(after))
        after.verify()
        stage = "semantics"
        assert_same_semantics(
            module, after, entry, input_seeds, dims, check_directions=check_directions,
            max_steps=MAX_RUN_STEPS,
        )
        if names[-1] in ("pypto-default", *BACKEND_PASSES):
            stage = "emit"
            if not _emits(after, backend):
                return None
            if simulate_in is not None and not dims:
                stage = "simulate"
                problem = _simulation_mismatch(module, after, simulate_in, backend)
                if problem is not None:
                    return stage, problem
    except SemanticsMismatch as e:
        return stage, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - every exception is a finding
        return ("original" if stage == "semantics" else stage), f"{type(e).__name__}: {e}"
    return None


def _backend_passes(module: ModuleOp, names: list[str], registry, backend: Counter | None) -> bool:
    """Run the backend's passes: True when they ran, False when one declines the program
    (a "cannot lower" PassFailedException: the backend's documented limits)."""
    from xdsl.utils.exceptions import PassFailedException

    try:
        PassPipeline.parse_spec(registry or available_passes(), ",".join(names)).apply(make_context(), module)
    except PassFailedException as e:
        if "cannot lower" not in str(e):
            raise
        _count_unsupported(backend, e)
        return False
    return True


def _count_unsupported(backend: Counter | None, error: Exception) -> None:
    if backend is not None:
        reason = re.sub(r"@\w+|%\w+|'[^']*'|<[^>]*>|\d+", "_", str(error).split(":", 2)[-1].strip())
        backend[f"unsupported: {' '.join(reason.split()[:8])}"] += 1


def _emits(module: ModuleOp, backend: Counter | None) -> bool:
    """Print Ascend C: True when printed, False when the printer declines (a diagnostic
    "cannot lower ...", a documented limit); anything else propagates (a finding)."""
    from xdsl.utils.exceptions import DiagnosticException

    from pypto_xdsl.runtime.passes import emit_ascendc

    try:
        emit_ascendc(module)
    except DiagnosticException as e:
        _count_unsupported(backend, e)
        return False
    if backend is not None:
        backend["printed"] += 1
    return True


SIM_TOLERANCE = {"f32": (1e-5, 1e-6), "f16": (2e-3, 1e-3), "bf16": (1.6e-2, 1e-2)}
"""(rtol, atol) of the simulation against the interpreter, by element type (as pypto-compile)."""


def _simulation_mismatch(before: ModuleOp, after: ModuleOp, scratch: Path, backend: Counter | None) -> str | None:
    """Build and run the printed program against the simulation; compare with the interpreter
    run of `before`. None when they agree (or g++ is missing)."""
    import shutil

    import numpy as np

    from pypto_xdsl.backend.ascendc import sim
    from pypto_xdsl.backend.ascendc.emit import choose_entry
    from pypto_xdsl.tools.pypto_compile import simulate

    if choose_entry(after, None) is None:
        # kernels only (an opaque @main stays on the host, unprinted): nothing to launch
        if backend is not None:
            backend["not simulated: no orchestration function"] += 1
        return None
    if sim.compiler() is None:
        return None
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        report = simulate(after, scratch, reference_module=before)
    except sim.SimulationError as e:
        return f"SimulationError: {e}"
    if backend is not None:
        backend["simulated"] += 1
    narrowest = narrowest_float(before)
    for name, got in report.outputs.items():
        want = report.reference[name]  # type: ignore[index]
        rtol, atol = simulation_tolerance(str(got.dtype), narrowest)
        if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            return f"simulation differs from the interpreter in {name}: max abs error {report.max_abs_error}"
    return None


_PRECISION = ("bf16", "f16", "f32")
"""Float element types, least precise first."""


def narrowest_float(module: ModuleOp) -> str | None:
    """The least precise float element type of any tensor or tile in `module`."""
    from pypto_xdsl.dialects.attributes import TensorType, TileType

    found = set()
    for op in module.walk():
        for value in (*op.results, *(a for region in op.regions for block in region.blocks for a in block.args)):
            if isinstance(value.type, TensorType | TileType):
                found.add(str(value.type.element_type))
    return next((t for t in _PRECISION if t in found), None)


def simulation_tolerance(output_dtype: str, narrowest: str | None) -> tuple[float, float]:
    """(rtol, atol) of a simulated output against the interpreter: its element type's, or
    that of the least precise float type the program passes values through. The simulation's
    `exp`/`log` differ from numpy's by an ulp; a later cast to f16 (or bf16) turns that into
    an ulp of the narrow type wherever the value lies near a rounding boundary, and casting
    back to f32 keeps the difference (`make fuzz` found 2 of 4,096 elements 1 f16 ulp apart)."""
    own = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}.get(output_dtype, output_dtype)
    if own not in SIM_TOLERANCE:
        return (0.0, 0.0)
    if narrowest in SIM_TOLERANCE and _PRECISION.index(narrowest) < _PRECISION.index(own):
        own = narrowest
    return SIM_TOLERANCE[own]


def check_case(
    pipeline: str,
    seed: int,
    *,
    config: GenConfig | None = None,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
    simulate_in: Path | None = None,
    backend: Counter | None = None,
    features: Counter | None = None,
) -> FuzzFailure | None:
    """Generate program `seed` and `check_module` it (counting its features)."""
    try:
        program = generate_program(seed, config)
    except Exception as e:  # noqa: BLE001 - a generator bug is a finding too
        return FuzzFailure(seed, pipeline, "generate", f"{type(e).__name__}: {e}", "")
    if features is not None:
        features.update(program_features(program.module))
    found = check_module(
        program.module, pipeline, program.entry, program.dims, input_seeds=input_seeds,
        registry=registry, check_directions=check_directions, simulate_in=simulate_in, backend=backend,
    )
    if found is None:
        return None
    return FuzzFailure(seed, pipeline, found[0], found[1], str(program.module), program.dims)


def check_dsl_case(
    pipeline: str,
    seed: int,
    *,
    backend_profile: bool = False,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
    simulate_in: Path | None = None,
    backend: Counter | None = None,
    features: Counter | None = None,
    dsl_features: Counter | None = None,
) -> FuzzFailure | None:
    """Generate `pl` program `seed` (`fuzz.dsl`), build it with the frontend, check the
    interpreter against its numpy model, then `check_module` it."""
    from pypto_xdsl.fuzz.dsl import check_against_model, generate_dsl_program

    try:
        program = generate_dsl_program(seed, backend=backend_profile)
    except Exception as e:  # noqa: BLE001 - a generator bug is a finding too
        return FuzzFailure(seed, pipeline, "generate", f"{type(e).__name__}: {e}", "", source="dsl")

    def failed(stage: str, message: str) -> FuzzFailure:
        return FuzzFailure(seed, pipeline, stage, message, program.source, source="dsl")

    if dsl_features is not None:
        dsl_features.update(program.features)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            module = program.module()
    except Exception as e:  # noqa: BLE001 - the frontend must accept every generated program
        return failed("frontend", f"{type(e).__name__}: {e}")
    if features is not None:
        features.update(program_features(module))
    try:
        problem = check_against_model(program, module, seeds=input_seeds[:1])
    except Exception as e:  # noqa: BLE001 - the frontend's module must run
        problem = f"{type(e).__name__}: {e}"
    if problem is not None:
        return failed("model", problem)
    found = check_module(
        module, _dsl_pipeline(pipeline), program.entry, {}, input_seeds=input_seeds, registry=registry,
        check_directions=check_directions, simulate_in=simulate_in, backend=backend,
    )
    return None if found is None else failed(*found)


def _dsl_pipeline(pipeline: str) -> str:
    """`pipeline` for a DSL program: `verify-split-incore-orch` only after `inline-functions`
    too (the DSL programs' Inline helpers hold `pl.at` scopes, which `outline-incore-scopes`
    leaves to the callers they are inlined into; the generated modules' helpers hold none)."""
    names = pipeline.split(",")
    if "inline-functions" in names:
        return pipeline
    return ",".join(n for n in names if n != "verify-split-incore-orch")


@dataclass(frozen=True)
class CaseSpec:
    """One planned case: which program (`seed`, `dsl`, `backend_profile`) through which
    pipeline, and whether it is simulated."""

    index: int
    seed: int
    pipeline: str
    dsl: bool
    backend_profile: bool
    simulate: bool


def plan_cases(
    pipelines: Sequence[str], cases: int, seed: int, *, sim_share: float, dsl_share: float,
    default_config: bool,
) -> list[CaseSpec]:
    """The cases of a run, decided up front (deterministic in `seed`, whatever the workers)."""
    chooser = random.Random(seed)
    plan = []
    for i in range(cases):
        pipeline = pipelines[i % len(pipelines)]
        codegen_ready = pipeline.split(",")[-1] in ("pypto-default", *BACKEND_PASSES)
        dsl = dsl_share > 0 and chooser.random() < dsl_share
        profile = default_config and codegen_ready and chooser.random() < 0.5
        simulate = codegen_ready and chooser.random() < sim_share
        plan.append(CaseSpec(i, seed + i, pipeline, dsl, profile, simulate))
    return plan


def run_cases(
    plan: Sequence[CaseSpec],
    *,
    deadline: float | None = None,
    config: GenConfig | None = None,
    input_seeds: Sequence[int] = (0, 1),
    registry: dict[str, Callable[[], type[ModulePass]]] | None = None,
    check_directions: bool = True,
    progress: str | None = None,
) -> FuzzReport:
    """Run planned cases in this process (until `deadline`, a `time.time()`); with
    `progress` (a label), a line on stderr every `PROGRESS_EVERY` cases."""
    report = FuzzReport()
    scratch = Path(tempfile.mkdtemp(prefix="pypto-fuzz-sim-"))
    try:
        for n, case in enumerate(plan):
            if deadline is not None and time.time() > deadline:
                break
            if progress is not None and n and n % PROGRESS_EVERY == 0:
                print(f"{progress}: {n}/{len(plan)} cases, {len(report.failures)} failures", file=sys.stderr, flush=True)
            simulate_in = scratch / "case" if case.simulate else None
            if case.dsl:
                failure = check_dsl_case(
                    case.pipeline, case.seed, backend_profile=case.backend_profile, input_seeds=input_seeds,
                    registry=registry, check_directions=check_directions, simulate_in=simulate_in,
                    backend=report.dsl_backend, features=report.features, dsl_features=report.dsl_features,
                )
                report.dsl_cases += 1
                report.dsl_per_pipeline[case.pipeline] = report.dsl_per_pipeline.get(case.pipeline, 0) + 1
            else:
                case_config = backend_config() if case.backend_profile else config
                failure = check_case(
                    case.pipeline, case.seed, config=case_config, input_seeds=input_seeds, registry=registry,
                    check_directions=check_directions, simulate_in=simulate_in, backend=report.backend,
                    features=report.features,
                )
            report.cases += 1
            report.per_pipeline[case.pipeline] = report.per_pipeline.get(case.pipeline, 0) + 1
            if failure is not None:
                report.failures.append(failure)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report


PROGRESS_EVERY = 100


def _worker(plan: list[CaseSpec], deadline: float | None, check_directions: bool, progress: str | None) -> FuzzReport:
    return run_cases(plan, deadline=deadline, check_directions=check_directions, progress=progress)


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
    sim_share: float = 0.0,
    dsl_share: float = 0.0,
    jobs: int = 1,
    progress: bool = False,
) -> FuzzReport:
    """Run `passes` (a pypto-opt pipeline, e.g. "inline-functions,cse") on `cases` generated
    programs (seeds seed .. seed+cases-1); each must verify, print/parse, and keep its semantics.

    `passes="auto"` cycles over `auto_pipelines()`. Stops early after `time_limit` seconds.
    `registry` replaces pypto-opt's pass registry (tests inject deliberately wrong passes).
    `check_directions` makes a write into an `in` parameter (e.g. a wrongly inferred
    direction of an outlined function) a failure. `sim_share` of the cases whose pipeline
    ends codegen-ready are also built and run against the simulation. `dsl_share` of the
    cases are `pl` DSL programs (`check_dsl_case`). `jobs` > 1 runs the cases in that many
    worker processes (with the default registry, inputs and generator configuration).
    """
    pipelines = auto_pipelines() if passes == "auto" else [passes]
    for p in pipelines:  # fail fast on an unknown pass name
        PassPipeline.parse_spec(registry or available_passes(), p)
    plan = plan_cases(pipelines, cases, seed, sim_share=sim_share, dsl_share=dsl_share, default_config=config is None)
    start = time.perf_counter()
    deadline = time.time() + time_limit if time_limit is not None else None
    parallel = jobs > 1 and registry is None and config is None and tuple(input_seeds) == (0, 1)
    if not parallel:
        report = run_cases(plan, deadline=deadline, config=config, input_seeds=input_seeds,
                           registry=registry, check_directions=check_directions,
                           progress="fuzz" if progress else None)
    else:
        report = FuzzReport(jobs=jobs)
        # cases dealt round-robin in small chunks: the pipelines' costs spread evenly
        lanes = [[c for k, c in enumerate(plan) if (k // 4) % jobs == j] for j in range(jobs)]
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            labels = [f"worker {j}" if progress else None for j in range(jobs)]
            for part in pool.map(_worker, lanes, [deadline] * jobs, [check_directions] * jobs, labels):
                report.merge(part)
        report.failures.sort(key=lambda f: f.seed)
    report.seconds = time.perf_counter() - start
    return report


def default_jobs() -> int:
    """Worker processes of `make fuzz`: one per core."""
    return os.cpu_count() or 1


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
    parser.add_argument("--sim-share", type=float, default=0.05,
                        help="share of the codegen-ready cases built and run with g++ (default 0.05)")
    parser.add_argument("--dsl-share", type=float, default=0.0,
                        help="share of the cases that are pl DSL programs through the frontend (default 0)")
    parser.add_argument("--jobs", default="1", help="worker processes, or 'auto' (one per core); default 1")
    parser.add_argument("--progress", action="store_true", help=f"a line on stderr every {PROGRESS_EVERY} cases")
    args = parser.parse_args(argv)
    jobs = default_jobs() if args.jobs == "auto" else int(args.jobs)
    report = fuzz_pipeline(
        args.passes, args.cases, args.seed, time_limit=args.time_limit,
        check_directions=not args.no_direction_check, sim_share=args.sim_share, dsl_share=args.dsl_share,
        jobs=jobs, progress=args.progress,
    )
    print(report.summary())
    if args.save_failures is not None and report.failures:
        args.save_failures.mkdir(parents=True, exist_ok=True)
        for f in report.failures:
            first = f.message.splitlines()[0] if f.message else ""
            if f.source == "dsl":
                header = f"# pipeline: {f.pipeline}\n# {f.stage}: {first}\n"
                (args.save_failures / f"dsl-seed{f.seed}.py").write_text(header + f.program)
                continue
            path = args.save_failures / f"seed{f.seed}.mlir"
            header = f"// pipeline: {f.pipeline}\n// dims: {f.dims}\n// {f.stage}: {first}\n"
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
