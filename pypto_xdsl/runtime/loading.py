"""The tools' view of a Python file: one module, from a `@pl.program` or a `@pl.jit` function.

    pypto-opt prog.py                                    # the file's single @pl.program
    pypto-opt kernels.py --entry softmax --shape x=64x64:f32 --shape out=64x64:f32
    pypto-run kernels.py --entry scale --shape x=8x16:f16 --scalar factor=0.5

A jit function is specialised like a call would specialise it: `--shape NAME=DIMSxDIMS:DTYPE`
gives a tensor parameter's shape and dtype (parameters annotated with a full type need none),
`--scalar NAME=VALUE` a scalar parameter's value. The module is the specialised program
before any pass (the tools run their own pipelines).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_python
from pypto_xdsl.language import types as T
from pypto_xdsl.runtime.arrays import ArgumentProblem, TypedSample

_DTYPES = {
    "f32": "FP32", "fp32": "FP32", "float32": "FP32", "f16": "FP16", "fp16": "FP16", "float16": "FP16",
    "bf16": "BF16", "bfloat16": "BF16", "i8": "INT8", "int8": "INT8", "i16": "INT16", "int16": "INT16",
    "i32": "INT32", "int32": "INT32", "i64": "INT64", "int64": "INT64", "u8": "UINT8", "uint8": "UINT8",
    "bool": "BOOL", "i1": "BOOL",
}


@dataclass(frozen=True)
class ShapeSpec:
    """`--shape a=64x64:f32`: a tensor parameter's shape and dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: T.DataType

    def sample(self) -> Any:
        return TypedSample(self.shape, self.dtype)


_SHAPE = re.compile(r"^([A-Za-z_]\w*)=((?:\d+x)*\d+|scalar|)(?::(\w+))?$")


def parse_shape(text: str) -> ShapeSpec:
    """`NAME=64x64:f32` (dtype defaults to f32; `NAME=:f16` is a rank-0 tensor)."""
    m = _SHAPE.match(text.strip())
    if m is None:
        raise ValueError(f"expected NAME=DIMxDIM[:DTYPE] (e.g. a=64x64:f32), got '{text}'")
    name, dims, dtype = m.group(1), m.group(2), (m.group(3) or "f32").lower()
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype '{dtype}' in '{text}' (one of {', '.join(sorted(set(_DTYPES)))})")
    shape = tuple(int(d) for d in dims.split("x")) if dims and dims != "scalar" else ()
    return ShapeSpec(name, shape, T.DataType(_DTYPES[dtype]))


def parse_scalar(text: str) -> tuple[str, Any]:
    """`NAME=VALUE`: an int, a float, or true/false."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise ValueError(f"expected NAME=VALUE, got '{text}'")
    low = value.strip().lower()
    if low in ("true", "false"):
        return name, low == "true"
    try:
        return name, int(value)
    except ValueError:
        pass
    try:
        return name, float(value)
    except ValueError:
        raise ValueError(f"the value of {name} must be a number or true/false, got '{value}'") from None


@dataclass
class LoadedModule:
    module: ModuleOp
    entry: str | None
    dims: dict[str, int] = field(default_factory=dict)
    """Extents of the dynamic dimensions the given shapes bound (for random inputs)."""
    warnings: list[str] = field(default_factory=list)
    run_scalars: dict[str, Any] = field(default_factory=dict)
    """A @pl.program's `--scalar` values: its entry's scalar arguments in a run (a program is
    not specialised; pypto-run and pypto-compile --sim pass them instead of random values)."""


def run_scalar_inputs(func: Any, inputs: list[Any], run_scalars: Mapping[str, Any]) -> list[Any]:
    """`inputs` of the entry `func` with its scalar parameters named in `run_scalars` replaced;
    a name that is not one of them is a ParserError."""
    names = [a.name_hint for a in func.args]
    out = list(inputs)
    for name, value in run_scalars.items():
        if name not in names or isinstance(func.args[names.index(name)].type, TensorType):
            scalars = [n for n, a in zip(names, func.args) if not isinstance(a.type, TensorType)]
            have = f"its scalar parameters are {', '.join(scalars)}" if scalars else "it has no scalar parameters"
            raise ParserError(f"--scalar {name}: @{func.sym_name.data} has no scalar parameter '{name}' ({have})")
        out[names.index(name)] = value
    return out


def module_from_python(
    text: str,
    filename: str,
    entry: str | None = None,
    shapes: Mapping[str, ShapeSpec] | None = None,
    scalars: Mapping[str, Any] | None = None,
) -> LoadedModule:
    """The module of a Python file: its @pl.program, or one of its @pl.jit functions specialised."""
    loaded = load_python(text, filename)
    shapes, scalars = dict(shapes or {}), dict(scalars or {})
    jit = loaded.jit_functions
    programs = loaded.programs
    if entry is not None and entry in jit:
        return _jit_module(jit[entry], shapes, scalars, loaded.warnings)
    # --shape/--scalar specialise a jit function; a file with only @pl.programs has none to
    # specialise: its program is compiled as written, --scalar gives run-time values
    if programs and (entry is not None or not (shapes or scalars) or not jit):
        chosen = programs
        if entry is not None:
            chosen = [p for p in programs if entry in p.source.functions]
            if not chosen:
                raise ParserError(f"{filename} has no function '{entry}' (in a @pl.program or as a @pl.jit function)")
        if len(chosen) != 1:
            raise ParserError(
                f"{filename} defines {len(chosen)} @pl.programs ({', '.join(p.name for p in chosen)}); "
                "choose one with --entry FUNCTION"
            )
        program = chosen[0]
        default = "main" if "main" in program.source.functions else program.entry()
        warnings = list(loaded.warnings)
        if shapes:
            warnings.append(f"{filename}: warning: {', '.join(f'--shape {n}' for n in shapes)} not used: --shape "
                            f"specialises @pl.jit functions; @pl.program {program.name} is compiled as written")
        return LoadedModule(program.module, entry or default, {}, warnings, dict(scalars))
    entries = loaded.jit_entries
    if entry is None and len(entries) == 1:
        return _jit_module(next(iter(entries.values())), shapes, scalars, loaded.warnings)
    # about the whole file: at its start
    at_start = dict(filename=filename, line=1, col=0, source_line=text.split("\n", 1)[0])
    if not jit:
        raise ParserError(f"{filename} defines no @pl.program and no @pl.jit function at top level", **at_start)
    if entry is not None:
        raise ParserError(f"{filename} has no @pl.jit function '{entry}' (it has: {', '.join(jit)})", **at_start)
    if not entries:
        raise ParserError(f"{filename} defines no @pl.jit entry function, only kernels ({', '.join(jit)}); "
                          "choose one with --entry NAME", **at_start)
    raise ParserError(
        f"{filename} defines {len(entries)} @pl.jit functions ({', '.join(entries)}); choose one with --entry NAME",
        **at_start,
    )


def _jit_module(fn: Any, shapes: dict[str, ShapeSpec], scalars: dict[str, Any], warnings: list[str]) -> LoadedModule:
    rt = fn.runtime()
    specs = rt.param_specs()
    unknown = [n for n in [*shapes, *scalars] if n not in rt.names]
    if unknown:
        raise ParserError(f"{rt._signature_text()} has no parameter '{unknown[0]}'")
    args: dict[str, Any] = {}
    for name in rt.names:
        spec = specs[name]
        if name in shapes:
            args[name] = shapes[name].sample()
        elif name in scalars:
            args[name] = scalars[name]
        elif isinstance(spec, T.TypeSpec) and isinstance(spec.ir, TensorType):
            try:
                args[name] = TypedSample([d if isinstance(d, int) else 1 for d in spec.ir.get_shape()],
                                         T.dtype_from_ir(spec.ir.element_type))
            except ArgumentProblem as e:
                raise _at_definition(fn, f"parameter '{name}': {e}") from None
        elif rt.signature.parameters[name].default is not rt.signature.parameters[name].empty:
            continue  # the default value
        elif isinstance(spec, T.TypeSpec):
            raise ParserError(f"parameter '{name}' of {rt._signature_text()} is a scalar: give its value with --scalar {name}=VALUE")
        else:
            raise ParserError(
                f"parameter '{name}' of {rt._signature_text()} has no static type: give it with "
                f"--shape {name}=64x64:f32 (a tensor) or --scalar {name}=VALUE"
            )
    binding = rt.bind((), args, static_dims=False)
    module = rt.specialise(binding, static_dims=False)
    return LoadedModule(module, fn.__name__, dict(binding.symbols), warnings)


def _at_definition(fn: Any, message: str) -> ParserError:
    """A diagnostic at the `def` line of the jit function `fn`."""
    import linecache

    code = getattr(getattr(fn, "__wrapped__", None), "__code__", None)
    if code is None:
        return ParserError(message)
    line = code.co_firstlineno
    return ParserError(message, code.co_filename, line, 0, linecache.getline(code.co_filename, line) or None)
