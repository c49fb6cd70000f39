"""pypto-compile: a PyPTO program (.mlir or .py) -> Ascend C kernels + ACL host code (+ CPU simulation).

    pypto-compile prog.mlir -o out/            # kernels/*.cpp, host/*.cpp, CMakeLists.txt, README.md
    pypto-compile prog.py -o out/              # a Python file holding one @pl.program
    pypto-compile prog.mlir -o out/ --sim      # ... then build with g++ against the simulation
                                               # headers, run on seeded random inputs and compare
                                               # with the reference interpreter when it can run
    pypto-compile prog.mlir -o out/ --sim --dim N=1,17,64   # one build, run at each extent
    pypto-compile prog.mlir -o out/ --profile  # ... and print the cost model's estimate (implies --sim)
    pypto-compile prog.mlir -o out/ --report   # ... and the per-kernel metrics (implies --sim)

Exit status: 0 on success, 1 on a compile error (message on stderr, no traceback), 2 when the
simulated program fails or disagrees with the interpreter.
"""

from __future__ import annotations

import argparse
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError

from pypto_xdsl.analysis.dynamic_extents import dynamic_symbols
from pypto_xdsl.backend.ascendc import sim
from pypto_xdsl.backend.ascendc.emit import EmittedProgram, choose_entry
from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import ParamDirection, TensorType
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter.tolerance import Tolerance, program_precision, tolerance_for
from pypto_xdsl.parsing import LocatingParser, decode_source
from pypto_xdsl.runtime.passes import emit_ascendc
from pypto_xdsl.tools import diagnostics
from pypto_xdsl.utils import call_with_deep_stack, deep_stack


@deep_stack
def parse_program(
    text: str | bytes, ctx: Context | None = None, name: str = "<unknown>",
    spans: diagnostics.OpSpans | None = None,
) -> ModuleOp:
    """Parse and verify `.mlir` text (`spans`, if given, receives where each op starts)."""
    module = LocatingParser(ctx or make_context(), text, name, spans=spans).parse_module()
    module.verify()
    return module


class FrontendDiagnostic(DiagnosticException):
    """The `pl` frontend's diagnostic of a `.py` input, located in the file already."""


@deep_stack
def load_program(
    path: Path, ctx: Context | None = None, entry: str | None = None, shapes=(), scalars=(),
    spans: diagnostics.OpSpans | None = None, data: bytes | None = None, run_scalars: dict | None = None,
) -> ModuleOp:
    """Parse and verify a `.mlir` file (`spans`, if given, receives where each op starts), or
    a `.py` file holding one `@pl.program` or `@pl.jit` functions (`entry` picks one; `shapes`
    / `scalars` specialise it, see runtime.loading; for a program, `.py` or `.mlir`,
    `run_scalars`, if given, receives the scalars as run-time values). `data`: the file's bytes, already read."""
    if data is None:
        data = Path(path).read_bytes()
    if Path(path).suffix != ".py":
        if run_scalars is not None:  # a program: nothing to specialise
            run_scalars.update(dict(scalars))
        return parse_program(data, ctx, str(path), spans)
    from pypto_xdsl.frontend.errors import ParserError
    from pypto_xdsl.runtime.loading import module_from_python

    text = decode_source(data, str(path))
    try:
        loaded = module_from_python(text, str(path), entry, {s.name: s for s in shapes}, dict(scalars))
    except ParserError as e:
        message = "\n".join([str(e), *getattr(e, "warnings", ())])
        raise FrontendDiagnostic(message) from None
    for w in loaded.warnings:
        print(w, file=sys.stderr)
    if run_scalars is not None:
        run_scalars.update(loaded.run_scalars)
    if spans is not None:
        diagnostics.add_frontend_spans(loaded.module, spans)
    loaded.module.verify()
    return loaded.module


@deep_stack
def apply_pipeline(module: ModuleOp, pipeline: str, ctx: Context | None = None) -> None:
    """Run a pypto-opt pass pipeline (e.g. 'pypto-default') on `module`; '' runs nothing."""
    if not pipeline:
        return
    from xdsl.passes import PassPipeline

    from pypto_xdsl.transforms import get_all_passes

    available = {name: factory for name, factory in get_all_passes().items()}
    pipe = PassPipeline.parse_spec(available, pipeline)
    pipe.apply(ctx or make_context(), module)
    module.verify()


@deep_stack
def compile_module(module: ModuleOp, out_dir: Path, entry: str | None = None) -> EmittedProgram:
    """Write the generated files (and a copy of the simulation headers) under `out_dir`."""
    program = emit_ascendc(module, entry=entry)
    out_dir = Path(out_dir)
    for rel, text in program.files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sim.copy_headers(out_dir)
    return program


# --------------------------------------------------------------------------- simulation


@dataclass
class SimulationReport:
    exe: Path
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    reference: dict[str, np.ndarray] | None = None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    note: str = ""
    profile: list[dict[str, Any]] = field(default_factory=list)  # cost-model launch records
    dims: dict[str, int] = field(default_factory=dict)  # the extents of the dynamic dimensions of this run


def _param_files(func) -> list[tuple[str, Any, ParamDirection]]:
    from pypto_xdsl.backend.ascendc.host_driver import param_file_names

    return [
        (name, arg.type, d) for name, arg, d in zip(param_file_names(func), func.args, func.directions)
    ]


def write_inputs(func, inputs: Sequence[Any], in_dir: Path) -> None:
    in_dir.mkdir(parents=True, exist_ok=True)
    # out tensors too: their initial contents are part of the program's input
    for (name, t, _), value in zip(_param_files(func), inputs):
        sim.write_parameter_file(in_dir / f"{name}.bin", value, t)


def read_outputs(func, out_dir: Path, dims: Mapping[str, int] | None = None) -> dict[str, np.ndarray]:
    return {
        name: sim.read_parameter_file(out_dir / f"{name}.bin", t, dims)
        for name, t, d in _param_files(func)
        if isinstance(t, TensorType) and d != ParamDirection.IN
    }


@deep_stack
def simulate(
    module: ModuleOp,
    out_dir: Path,
    *,
    entry: str | None = None,
    inputs: Sequence[Any] | None = None,
    seed: int = 0,
    reference_module: ModuleOp | None = None,
    compare: bool = True,
    profile: bool = False,
    dims: Mapping[str, int] | None = None,
) -> SimulationReport:
    """Compile `module`, build it against the simulation, run on `inputs` (seeded random by default).

    With `compare`, the interpreter runs `reference_module` (default: `module`) on copies of the
    same inputs and the report carries the max abs/rel error over all out/inout tensors.
    With `profile`, the report carries the cost model's launch records (`sim/profile.py`).
    `dims` binds the program's dynamic dimensions (the driver's `N=17` arguments).
    """
    return simulate_sizes(module, out_dir, [dict(dims or {})], entry=entry, inputs=inputs, seed=seed,
                          reference_module=reference_module, compare=compare, profile=profile)[0]


@deep_stack
def simulate_sizes(
    module: ModuleOp,
    out_dir: Path,
    bindings: Sequence[Mapping[str, int]],
    *,
    entry: str | None = None,
    inputs: Sequence[Any] | Callable[[Mapping[str, int]], Sequence[Any]] | None = None,
    seed: int = 0,
    reference_module: ModuleOp | None = None,
    compare: bool = True,
    profile: bool = False,
) -> list[SimulationReport]:
    """`simulate` at each binding of the dynamic dimensions, with one build: the same
    executable runs every size (its extents on the command line). `inputs` is one list for
    every binding, a function of the binding, or None (random inputs of each size)."""
    out_dir = Path(out_dir)
    compile_module(module, out_dir, entry)
    func = choose_entry(module, entry)
    if func is None:
        raise sim.SimulationError("nothing to run: the program has no orchestration function")
    symbols = dynamic_symbols(func)
    for binding in bindings:
        missing = [d for d in symbols if d not in binding]
        unknown = [d for d in binding if d not in symbols]
        if missing:
            raise sim.SimulationError(
                f"@{func.sym_name.data} has the dynamic dimension{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)}: give {'each' if len(missing) > 1 else 'its'} extent with --dim "
                f"{missing[0]}=<extent> (e.g. --dim {missing[0]}=64)")
        if unknown:
            have = f"its dynamic dimensions are {', '.join(symbols)}" if symbols else "its shapes are static"
            raise sim.SimulationError(f"--dim {unknown[0]}: @{func.sym_name.data} has no dimension {unknown[0]} ({have})")
    exe = sim.build(out_dir)
    reports = []
    for binding in bindings:
        run_inputs = inputs(binding) if callable(inputs) else inputs
        if run_inputs is None:
            from pypto_xdsl.interpreter.api import random_inputs

            run_inputs = random_inputs(module, func.sym_name.data, seed, binding)
        reports.append(_run_simulated(module, func, exe, out_dir, run_inputs, binding, symbols,
                                      reference_module, compare, profile))
    return reports


def _run_simulated(module, func, exe: Path, out_dir: Path, inputs: Sequence[Any], binding: Mapping[str, int],
                   symbols: list[str], reference_module: ModuleOp | None, compare: bool,
                   profile: bool) -> SimulationReport:
    in_dir, res_dir = out_dir / "sim-run" / "in", out_dir / "sim-run" / "out"
    for old in (*in_dir.glob("*.bin"), *res_dir.glob("*.bin")):
        old.unlink()  # a previous size's files
    write_inputs(func, inputs, in_dir)
    profile_path = out_dir / "sim-run" / "profile.jsonl" if profile else None
    extents = [f"{d}={binding[d]}" for d in symbols]
    result = sim.run(exe, in_dir, res_dir, profile=profile_path, args=extents)
    if result.returncode != 0:
        at = f" at {' '.join(extents)}" if extents else ""
        raise sim.SimulationError(
            f"the simulated program exited with status {result.returncode}{at}:\n{result.stderr}{result.stdout}"
        )
    report = SimulationReport(exe, read_outputs(func, res_dir, binding))
    report.dims = dict(binding)
    if profile_path is not None:
        from pypto_xdsl.backend.ascendc.sim.profile import read_profile

        report.profile = read_profile(profile_path)
    if compare:
        try:
            from pypto_xdsl.interpreter.api import run as interpret
        except ImportError:  # pragma: no cover - the interpreter ships with the package
            report.note = "interpreter not available"
            return report
        ref_inputs = [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in inputs]
        interpret(reference_module or module, func.sym_name.data, ref_inputs, dict(binding) or None)
        reference = {}
        for (name, t, d), value in zip(_param_files(func), ref_inputs):
            if isinstance(t, TensorType) and d != ParamDirection.IN:
                reference[name] = np.asarray(value)
        report.reference = reference
        abs_err, rel_err = 0.0, 0.0
        for name, got in report.outputs.items():
            want = reference[name].astype(np.float64)
            with np.errstate(all="ignore"):
                diff = np.abs(got.astype(np.float64) - want)
                # equal values (also equal infinities) and NaN in both count as no error
                diff[(got == reference[name]) | (np.isnan(got.astype(np.float64)) & np.isnan(want))] = 0.0
                rel = diff / np.maximum(np.abs(want), 1e-30)
            abs_err = max(abs_err, float(np.nan_to_num(diff, nan=np.inf).max(initial=0.0)))
            rel_err = max(rel_err, float(np.nan_to_num(rel, nan=np.inf).max(initial=0.0)))
        report.max_abs_error, report.max_rel_error = abs_err, rel_err
    return report


# --------------------------------------------------------------------------- CLI


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pypto-compile", description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="PyPTO program (.mlir, '-' for .mlir on stdin, or .py with one @pl.program "
                                  "or @pl.jit functions)")
    p.add_argument("-o", "--output", required=True, help="output directory")
    p.add_argument("--entry", help="orchestration function the driver runs (default: main, else the last)")
    p.add_argument(
        "-p", "--passes", default=None,
        help="pass pipeline to run before printing (default: pypto-default{strict-mixed=true}, pypto-default "
        "where a mixed kernel that cannot be split is an error; '' for none)",
    )
    p.add_argument("--sim", action="store_true", help="build with g++ against the CPU simulation and run")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs of --sim")
    p.add_argument(
        "--rtol", type=float, default=None,
        help="--sim: relative tolerance against the interpreter (default 1e-5, or derived from the "
        "program's matmuls: K and the dtype, see docs/semantics.md)",
    )
    p.add_argument(
        "--atol", type=float, default=None,
        help="--sim: absolute tolerance, for values near zero (default 1e-6, or derived from the matmuls)",
    )
    p.add_argument(
        "--dim", action="append", default=[], metavar="NAME=N[,N...]",
        help="--sim: the extents of a dynamic dimension (e.g. N=0,1,17,64,1000); the program is built once "
        "and run at each, every run compared with the interpreter (several --dim: the i-th runs together, "
        "a single extent serves every run)",
    )
    p.add_argument("--profile", action="store_true",
                   help="print the cost model's estimate per kernel of the simulated run (cycles, bounding pipe, "
                        "utilisation; docs/performance.md); implies --sim")
    p.add_argument("--report", action="store_true",
                   help="print per-kernel metrics of the simulated run (GM bytes, memory use, DMA bursts, vector "
                        "work, sync) and add them to the kernels' header comments; implies --sim")
    from pypto_xdsl.tools.python_args import add_python_arguments

    add_python_arguments(p, entry=False)
    return p


def default_pipeline() -> str:
    """pypto-default, where a mixed kernel that cannot be split is an error: Ascend C runs a
    kernel on one core type, so the user gets expand-mixed-kernel's reason, once."""
    from pypto_xdsl.transforms import get_all_passes

    return "pypto-default{strict-mixed=true}" if "pypto-default" in get_all_passes() else ""


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    return call_with_deep_stack(_main, args)


def _main(args: argparse.Namespace) -> int:
    spans: diagnostics.OpSpans = weakref.WeakKeyDictionary()
    try:
        return _compile(args, spans)
    except diagnostics.InputFileError as e:
        print(f"pypto-compile: error: {e}", file=sys.stderr)
    except ParseError as e:
        print(diagnostics.format_parse_error(e), file=sys.stderr)
    except FrontendDiagnostic as e:
        print(e, file=sys.stderr)
    except DiagnosticException as e:
        print(diagnostics.format_op_error(e, spans, "pypto-compile"), file=sys.stderr)
    except OSError as e:  # the output directory cannot be written
        print(diagnostics.format_os_error("pypto-compile", e), file=sys.stderr)
    except sim.SimulationError as e:
        print(f"pypto-compile: simulation failed: {e}", file=sys.stderr)
        return diagnostics.EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - every failure becomes one diagnostic
        if (text := diagnostics.format_resource_error(e, args.input)) is not None:
            print(text, file=sys.stderr)
        elif diagnostics.raised_by_verifier(e):
            print(diagnostics.format_op_error(e, spans, "pypto-compile"), file=sys.stderr)
        else:
            print(diagnostics.format_internal_error("pypto-compile", e), file=sys.stderr)
    return diagnostics.EXIT_ERROR


def _compile(args: argparse.Namespace, spans: diagnostics.OpSpans) -> int:
    out_dir = Path(args.output)
    ctx = make_context()
    data = diagnostics.read_input(args.input)
    run_scalars: dict[str, Any] = {}  # a @pl.program's --scalar values
    if args.input == "-":  # .mlir text on stdin
        module = parse_program(data, ctx, "<stdin>", spans)
    else:
        module = load_program(Path(args.input), ctx, args.entry, args.shape, args.scalar, spans=spans, data=data,
                              run_scalars=run_scalars)
    if (empty := _empty_module_error(module, args.input)) is not None:
        print(empty, file=sys.stderr)
        return diagnostics.EXIT_ERROR
    reference = module.clone()
    apply_pipeline(module, default_pipeline() if args.passes is None else args.passes, ctx)
    if not (args.sim or args.profile or args.report):
        program = compile_module(module, out_dir, args.entry)
        print(f"pypto-compile: wrote {len(program.files)} files to {out_dir}/ "
              f"({len(program.kernels)} kernels, {len(program.hosts)} orchestration functions)")
        return 0
    bindings = parse_dims(args.dim)
    inputs = None
    if run_scalars:
        from pypto_xdsl.interpreter.api import random_inputs
        from pypto_xdsl.runtime.loading import run_scalar_inputs

        func = choose_entry(module, args.entry)
        if func is not None:
            try:
                inputs = run_scalar_inputs(func, list(random_inputs(module, func.sym_name.data, args.seed, bindings[0])),
                                           run_scalars)
            except Exception as e:
                raise FrontendDiagnostic(f"{args.input}: error: {e}") from None
    reports = simulate_sizes(module, out_dir, bindings, entry=args.entry, seed=args.seed, inputs=inputs,
                             reference_module=reference, profile=args.profile or args.report)
    print(f"pypto-compile: wrote {out_dir}/ and built {reports[0].exe}")
    status = 0
    for report in reports:
        if report.dims:
            print(f"run at {', '.join(f'{d}={v}' for d, v in report.dims.items())}:")
        status = max(status, _check_report(report, module, reference, args, out_dir))
    return status


def _empty_module_error(module: ModuleOp, input_name: str) -> str | None:
    """An input without a single `pypto.func` (an empty file, a bare `builtin.module {}`) has
    nothing to compile: the message, at the input's first line (None when there is a function)."""
    if any(isinstance(op, FuncOp) for op in module.walk()):
        return None
    where = "<stdin>" if input_name == "-" else input_name
    return (f"{where}:1:1: error: the module defines no pypto.func functions; pypto-compile needs a "
            "`pypto.func orchestration` function and the kernels it calls")


def parse_dims(options: Sequence[str]) -> list[dict[str, int]]:
    """`--dim N=0,1,17 --dim M=4` -> [{N: 0, M: 4}, {N: 1, M: 4}, {N: 17, M: 4}]."""
    columns: dict[str, list[int]] = {}
    for option in options:
        name, eq, values = option.partition("=")
        try:
            extents = [int(v) for v in values.split(",")] if eq and name.strip() else None
        except ValueError:
            extents = None
        if extents is None or any(v < 0 for v in extents):
            raise sim.SimulationError(f"--dim {option}: expected NAME=N[,N...] with non-negative integer extents")
        if name.strip() in columns:
            raise sim.SimulationError(f"--dim {name.strip()} is given twice")
        columns[name.strip()] = extents
    runs = max((len(v) for v in columns.values()), default=1)
    for name, extents in columns.items():
        if len(extents) not in (1, runs):
            raise sim.SimulationError(f"--dim {name} has {len(extents)} extents but another --dim has {runs}; "
                                      "give one extent or as many as the others")
    return [{name: extents[k if len(extents) > 1 else 0] for name, extents in columns.items()} for k in range(runs)]


def _check_report(report: SimulationReport, module: ModuleOp, reference: ModuleOp, args, out_dir: Path) -> int:
    if args.profile or args.report:
        _print_profile(report, module, args, out_dir)
    for name, arr in report.outputs.items():
        print(f"  output {name}: shape {list(arr.shape)}")
    if report.max_abs_error is None:
        print(f"  (no comparison: {report.note})")
        return 0
    print(f"  max abs error vs interpreter: {report.max_abs_error:.3g}, max rel error: {report.max_rel_error:.3g}")
    tolerances = comparison_tolerances(report, reference, args.rtol, args.atol)
    ok = all(
        tolerances[n].close(report.reference[n], report.outputs[n]).all()  # type: ignore[index]
        for n in report.outputs
    )
    used = "; ".join(f"{n}: {t}" for n, t in tolerances.items())
    if not ok:
        print(f"pypto-compile: simulation disagrees with the interpreter ({used})", file=sys.stderr)
        return 2
    print(f"  simulation matches the interpreter ({used})")
    return 0


def _print_profile(report: SimulationReport, module: ModuleOp, args, out_dir: Path) -> None:
    from pypto_xdsl.backend.ascendc.sim import profile as prof

    kernels = prof.by_kernel(report.profile)
    if args.profile:
        print(prof.format_profile(kernels))
    if args.report:
        func = choose_entry(module, args.entry)
        # the run's --dim extents size the dynamic tensors (without them there is no minimum)
        min_bytes = prof.program_min_bytes(func, report.dims) if func is not None else None
        static = static_metric_lines(module)
        print(prof.format_report(kernels, min_bytes, static=static))
        prof.annotate_kernel_sources(out_dir, kernels, static)


def static_metric_lines(module: ModuleOp) -> dict[str, list[str]]:
    """Each kernel's static counts (`analysis.kernel_metrics`), by kernel name; a MIX kernel's
    are its members' (the simulation reports a MIX launch under the MIX kernel's name)."""
    from pypto_xdsl.analysis.kernel_metrics import kernel_metrics
    from pypto_xdsl.dialects.ascendc_kernel import CoreCallOp, KernelOp
    from pypto_xdsl.dialects.ascendc_types import KernelKind
    from pypto_xdsl.transforms.pipelines import lower_for_ascendc

    kernels = {k.sym_name.data: k for k in lower_for_ascendc(module).body.block.ops if isinstance(k, KernelOp)}
    out: dict[str, list[str]] = {}
    for name, kernel in kernels.items():
        if kernel.kernel_kind != KernelKind.MIX:
            out[name] = kernel_metrics(kernel).lines()
            continue
        lines = []
        for call in kernel.body.block.ops:
            member = kernels.get(call.callee.string_value()) if isinstance(call, CoreCallOp) else None
            if member is not None:
                lines.append(f"member {call.core.data} @{member.sym_name.data}:")
                lines.extend("  " + line for line in kernel_metrics(member).lines())
        out[name] = lines
    return out


def comparison_tolerances(
    report: SimulationReport, reference: ModuleOp, rtol: float | None, atol: float | None
) -> dict[str, Tolerance]:
    """Per output: the given --rtol/--atol, else the rule for the program's matmuls (K and
    the dtype, `interpreter.tolerance`), else rtol 1e-5 / atol 1e-6."""
    precision = program_precision(reference) if rtol is None or atol is None else None
    out: dict[str, Tolerance] = {}
    for name in report.outputs:
        derived = tolerance_for(np.asarray(report.reference[name]), precision)  # type: ignore[index]
        out[name] = Tolerance(rtol if rtol is not None else derived.rtol, atol if atol is not None else derived.atol)
    return out


def entry_point() -> None:
    sys.exit(diagnostics.quiet_when_stdout_closes(main))


if __name__ == "__main__":
    entry_point()
