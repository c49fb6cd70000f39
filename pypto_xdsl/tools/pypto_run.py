"""pypto-run: execute a pypto program with the reference interpreter.

    pypto-run prog.mlir --entry main --dim N=128            # seeded random inputs
    pypto-run prog.mlir --input 0=a.npy --input b=b.npy     # .npy inputs by index or name
    pypto-run prog.mlir --dim N=64 -o out/                  # write results/arguments as .npy
    pypto-run prog.mlir --blocks 4                          # SPMD launch of 4 blocks

Prints one line per result and per out/inout argument (shape, dtype, checksum, min/max).
"""

from __future__ import annotations

import argparse
import io
import sys
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.utils.exceptions import DiagnosticException, InterpretationError, ParseError

from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import ParamDirection
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.interpreter.api import entry_function, random_inputs, run
from pypto_xdsl.interpreter.values import TaskId
from pypto_xdsl.parsing import LocatingParser
from pypto_xdsl.tools import diagnostics
from pypto_xdsl.utils import call_with_deep_stack


def _parse_dim(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got '{text}'")
    try:
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"dimension {name} must be an integer, got '{value}'") from None


def _parse_input(text: str) -> tuple[str, Path]:
    key, sep, path = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected INDEX=FILE.npy or NAME=FILE.npy, got '{text}'")
    return key, Path(path)


def describe(value: Any, full: bool = False) -> str:
    if isinstance(value, np.ndarray):
        text = f"{list(value.shape)} {value.dtype}"
        if value.size:
            # in float64 without a float64 copy of the array
            total = float(value.sum(dtype=np.float64))
            text += (
                f" sum={total:.6g} min={float(value.min()):.6g} max={float(value.max()):.6g}"
                f" mean={total / value.size:.6g}"
            )
        if full:
            text += "\n" + np.array2string(value, threshold=sys.maxsize)
        return text
    if isinstance(value, TaskId):
        return repr(value)
    return repr(value)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pypto-run", description="Run a pypto program with the reference interpreter.")
    p.add_argument("file", help="input .mlir file ('-' for stdin), or a .py file with a @pl.program or @pl.jit function")
    p.add_argument("--entry", default=None,
                   help="function to run (default: main, else the last function; for .py: the @pl.jit function "
                   "or the program's entry)")
    p.add_argument("--dim", action="append", type=_parse_dim, default=[], metavar="NAME=N",
                   help="bind a shape symbol for random inputs ('?=N' sets unknown dims)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    p.add_argument("--input", action="append", type=_parse_input, default=[], metavar="ARG=FILE.npy",
                   help="take argument ARG (index or name) from a .npy file")
    p.add_argument("--blocks", type=int, default=1, help="SPMD launch: run the entry for blocks 0..N-1")
    p.add_argument("-o", "--output-dir", type=Path, default=None,
                   help="write result_<i>.npy and arg_<i>.npy (out/inout arguments) here")
    p.add_argument("--print-values", action="store_true", help="print whole arrays")
    p.add_argument("--max-steps", type=int, default=None, metavar="N",
                   help="stop with an error after N ops executed (default: no limit)")
    p.add_argument("--ranks", type=int, default=None, metavar="N",
                   help="a host function's group of ranks: pypto.dist.world_size is N")
    from pypto_xdsl.tools.python_args import add_python_arguments

    add_python_arguments(p, entry=False)
    return p


def _load(
    args: argparse.Namespace, data: bytes, name: str, spans: diagnostics.OpSpans
) -> tuple[Any, str, dict[str, int], list[str], dict[str, Any]]:
    """(module, entry, dims bound by --shape, warnings, a program's --scalar run values) of the
    input file (`.mlir` ops' and `.py` ops' locations go to `spans`)."""
    if not args.file.endswith(".py"):
        module = LocatingParser(make_context(), data, name, spans=spans).parse_module()
        return module, args.entry, {}, [], dict(args.scalar)  # a program: --scalar values are run values
    from pypto_xdsl.parsing import decode_source
    from pypto_xdsl.runtime.loading import module_from_python

    text = decode_source(data, name)
    loaded = module_from_python(text, args.file, args.entry, {s.name: s for s in args.shape}, dict(args.scalar))
    diagnostics.add_frontend_spans(loaded.module, spans)
    return loaded.module, loaded.entry or "main", loaded.dims, loaded.warnings, loaded.run_scalars


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return call_with_deep_stack(_main, args)


def _main(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        data = diagnostics.read_input(args.file)
    except diagnostics.InputFileError as e:
        print(f"pypto-run: error: {e}", file=sys.stderr)
        return diagnostics.EXIT_ERROR
    spans: diagnostics.OpSpans = weakref.WeakKeyDictionary()
    warnings: list[str] = []
    try:
        return _run(args, name, data, spans, warnings)
    except ParserError as e:  # the frontend's diagnostic of a .py file, already located
        print(e, file=sys.stderr)
        for w in [*warnings, *getattr(e, "warnings", ())]:
            print(w, file=sys.stderr)
    except ParseError as e:
        print(diagnostics.format_parse_error(e), file=sys.stderr)
    except InterpretationError as e:
        # at the op that failed, else at the entry function (its arguments, its inputs)
        op = getattr(e, "op", None) or _entry_op(spans, args.entry or "main")
        entry = diagnostics.op_span(op, spans) if op is not None else None
        if entry is not None:
            print(diagnostics.format_located(entry[0], entry[1], str(e)), file=sys.stderr)
        else:  # nothing to point at (a module without the entry function): the input's start
            print(f"{name}:1:1: error: {e}", file=sys.stderr)
    except DiagnosticException as e:
        print(diagnostics.format_op_error(e, spans, name), file=sys.stderr)
    except OSError as e:  # an --input .npy that cannot be read, an -o that cannot be written
        print(_os_error(e, args), file=sys.stderr)
    except ValueError as e:  # a mismatching or malformed .npy input
        print(f"pypto-run: error: {e}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - every failure becomes one diagnostic
        if (text := diagnostics.format_resource_error(e, name)) is not None:
            print(text, file=sys.stderr)
        elif diagnostics.raised_by_verifier(e):
            print(diagnostics.format_op_error(e, spans, name), file=sys.stderr)
        else:
            print(diagnostics.format_internal_error("pypto-run", e), file=sys.stderr)
    return diagnostics.EXIT_ERROR


def _os_error(error: OSError, args: argparse.Namespace) -> str:
    inputs = {str(path) for _, path in args.input}
    if error.filename is not None and str(error.filename) in inputs:
        return f"pypto-run: error: cannot open input file '{error.filename}': {error.strerror or error}"
    return diagnostics.format_os_error("pypto-run", error)


def default_entry(module) -> str:
    """`main` if the module has it, else its last function the interpreter runs."""
    names = [
        op.sym_name.data
        for op in module.ops
        if isinstance(getattr(op, "sym_name", None), StringAttr) and hasattr(op, "function_type")
    ]
    return "main" if "main" in names or not names else names[-1]


def _entry_op(spans: diagnostics.OpSpans, entry: str):
    for op in list(spans.keys()):
        name = op.properties.get("sym_name")
        if name is not None and getattr(name, "data", None) == entry and op.parent_op() is not None:
            return op
    return None


def _run(
    args: argparse.Namespace, name: str, data: bytes, spans: diagnostics.OpSpans, warnings: list[str]
) -> int:
    module, args.entry, shape_dims, loaded_warnings, run_scalars = _load(args, data, name, spans)
    warnings.extend(loaded_warnings)
    module.verify()
    if args.entry is None:
        args.entry = default_entry(module)
    func = entry_function(module, args.entry)
    dims = {**shape_dims, **dict(args.dim)}
    arg_names = [a.name_hint for a in func.body.block.args]  # type: ignore[attr-defined]
    n_args = len(arg_names)
    files: dict[int, Path] = {}
    for key, path in args.input:
        if key.isdigit():
            index = int(key)
        elif key in arg_names:
            index = arg_names.index(key)
        else:
            raise InterpretationError(f"@{args.entry} has no argument '{key}'")
        if not 0 <= index < n_args:
            raise InterpretationError(f"@{args.entry} has no argument #{index}")
        files[index] = path
    needs_random = len(files) < n_args
    inputs = list(random_inputs(module, args.entry, args.seed, dims)) if needs_random else [None] * n_args
    if run_scalars:
        from pypto_xdsl.runtime.loading import run_scalar_inputs

        inputs = run_scalar_inputs(func, inputs, run_scalars)
    for index, path in files.items():
        value = _load_npy(path)
        # A scalar parameter takes a 0-d array's value (the interpreter's scalars are Python's).
        inputs[index] = value.item() if value.ndim == 0 else value
    directions = getattr(func, "directions", (ParamDirection.IN,) * n_args)
    runs = [
        run(module, args.entry, inputs, block_idx=b, block_num=args.blocks, max_steps=args.max_steps,
            world_size=args.ranks)
        for b in range(args.blocks)
    ]
    results = runs[-1]
    written = [i for i, d in enumerate(directions) if d != ParamDirection.IN]
    if args.output_dir is not None:  # first: a failure to write leaves stdout empty
        args.output_dir.mkdir(parents=True, exist_ok=True)
        for i, value in enumerate(results):
            if isinstance(value, np.ndarray):
                np.save(args.output_dir / f"result_{i}.npy", value)
        for i in written:
            np.save(args.output_dir / f"arg_{i}.npy", inputs[i])
    for w in warnings:
        print(w, file=sys.stderr)
    for i, value in enumerate(results):
        print(f"result #{i}: {describe(value, args.print_values)}")
    for i in written:
        name = f" %{arg_names[i]}" if arg_names[i] else ""
        print(f"{directions[i].value} argument #{i}{name}: {describe(inputs[i], args.print_values)}")
    return 0


def _load_npy(path: Path) -> Any:
    """An `--input` array; a file that is not a readable `.npy` array is one error naming it."""
    with open(path, "rb") as f:  # an OSError names the file: "cannot open input file"
        data = f.read()
    problem = None
    if not data.startswith(b"\x93NUMPY"):
        problem = "it is not a .npy file"
    else:
        try:
            return np.load(io.BytesIO(data), allow_pickle=False)
        except (OSError, ValueError, EOFError) as e:  # numpy's complaint about the contents
            problem = str(e)
    raise ValueError(f"cannot read input file '{path}' as a .npy array: {problem}")


def entry() -> None:
    sys.exit(diagnostics.quiet_when_stdout_closes(main))


if __name__ == "__main__":
    entry()
