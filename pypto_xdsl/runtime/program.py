"""Running and compiling `@pl.program` classes.

`@pl.program` returns a `RunnableProgram`: the frontend's `Program` (IR) plus `.run` (the
reference interpreter) and `.compile` (the Ascend C backend). `run(program, *tensors,
config=RunConfig())` is PyPTO's spelling: it compiles with the config's pipeline and runs on
its target, writing `out`/`inout` tensors in place, and returns the compiled program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import Program
from pypto_xdsl.language import types as T
from pypto_xdsl.runtime import arrays
from pypto_xdsl.runtime.config import RunConfig
from pypto_xdsl.runtime.passes import apply_passes, apply_pipeline, emit_ascendc


def type_of_input(x: Any, what: str = "run") -> Attribute:
    """The IR type an input gives an unannotated entry parameter."""
    try:
        array = arrays.as_array(x, what)
    except arrays.ArgumentProblem as e:
        raise ParserError(str(e)) from None
    if array is not None:
        return A.TensorType(list(array.array.shape), array.dtype.to_ir())
    if isinstance(x, bool):
        return T.BOOL.to_ir()
    if isinstance(x, int):
        return T.INDEX.to_ir()
    if isinstance(x, float):
        return T.FP32.to_ir()
    raise ParserError(f"{what}: cannot derive a parameter type from {type(x).__name__}")


def _prepared(inputs: Sequence[Any]) -> tuple[list[Any], list[arrays.ArrayArg | None]]:
    values, adapted = [], []
    for i, x in enumerate(inputs):
        try:
            a = arrays.as_array(x, f"input #{i}")
        except arrays.ArgumentProblem as e:
            raise ParserError(str(e)) from None
        adapted.append(a)
        values.append(a.array if a is not None else arrays.scalar_value(x) if arrays.scalar_value(x) is not None else x)
    return values, adapted


class RunnableProgram(Program):
    """A `@pl.program`: `.module`, `.print()`, `.specialize(...)`, plus `.run` and `.compile`."""

    @property
    def functions(self) -> dict[str, Any]:
        """PyPTO's `program.functions`: name -> `.name` / `.func_type` / `.op` of each
        function of the module (as `fn.lower(...).functions`)."""
        from pypto_xdsl.runtime.jit import LoweredProgram

        return LoweredProgram(self.module, self.entry()).functions

    def as_python(self) -> str:
        """PyPTO's `program.as_python()`, its IR printed for reading. PyPTO prints its IR in
        the DSL's syntax; this project's IR has its own text form, which this returns (the
        same as `str(program)`)."""
        return str(self)

    def _typed_for(self, name: str, inputs: Sequence[Any]) -> Program:
        if self.untyped_param(name) is not None:
            return self.specialize(**{name: [type_of_input(x) for x in inputs]})
        return self

    def run(
        self,
        *inputs: Any,
        entry: str | None = None,
        passes: Sequence[str] = (),
        dims: Mapping[str, int] | None = None,
    ) -> Any:
        """Execute `entry` (default: the last uncalled function) with the reference interpreter.

        Inputs are numpy arrays (written in place for out/inout tensors; torch CPU tensors and
        other arrays too) or Python scalars; unannotated parameters of the entry take the
        inputs' types. `passes` (pypto-opt names) run first. Returns the entry's result (a
        tuple when it returns several).
        """
        from pypto_xdsl.interpreter import run as interpret

        name = entry or self.entry()
        if name not in self.source.functions:
            raise ParserError(f"run: '{self.name}' has no function '{name}'")
        values, adapted = _prepared(inputs)
        module = self._typed_for(name, inputs).fresh_module()
        if passes:
            apply_passes(module, passes)
        results = interpret(module, name, values, dims)
        for a in adapted:
            if a is not None and a.write_back is not None:
                a.write_back(a.array)
        return results[0] if len(results) == 1 else results

    def compile(
        self,
        out_dir: str | Path,
        passes: Sequence[str] = ("pypto-default",),
        entry: str | None = None,
    ) -> list[Path]:
        """Run `passes`, then the Ascend C backend; write its files under `out_dir`.

        Returns the written paths (kernels/*.cpp, host/*, CMakeLists.txt, ...).
        """
        module = self.fresh_module()
        apply_passes(module, passes)
        emitted = emit_ascendc(module, entry)
        out = Path(out_dir)
        written: list[Path] = []
        for rel, text in emitted.files.items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
        return written


class _ProgramRuntime:
    """What `Compiled` needs from its owner, for a `@pl.program` run through `run()`."""

    def __init__(self, program: Program, entry: str):
        from pypto_xdsl.runtime.jit import CacheStats

        self.program = program
        self.entry = entry
        self.stats = CacheStats()
        self.fn = type("_Named", (), {"__name__": entry})()

    def error_at_def(self, message: str) -> ParserError:
        decl = self.program.source.functions[self.entry]
        e = self.program.source.srcmap.error(decl.node, message)
        return ParserError(e.message, e.filename, e.line, e.col, e.source_line, None)

    def call(self, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """`compiled(*tensors)`: PyPTO's in-place style (every parameter given: the out
        tensors are written, None is returned) or return style (only the parameters that are
        not `pl.Out`: those are allocated, zero-filled, and returned)."""
        _, outputs = _run_program(self.program, args, kwargs.get("config"))
        if outputs is None:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _entry_for_run(program: Program) -> str:
    """PyPTO runs the Orchestration function; else the default entry."""
    for name, decl in program.source.functions.items():
        if decl.kind == A.FuncKind.ORCHESTRATION and not decl.called:
            return name
    return program.entry()


def run(program: Any, *tensors: Any, config: RunConfig | None = None) -> Any:
    """Compile `program` (a `@pl.program`) and run it on `tensors` (PyPTO's `run`).

    Out/inout tensors are written in place; returns the compiled program (`.module`,
    `.files`, callable again with new tensors). Without tensors it only compiles.
    """
    from pypto_xdsl.language.decorators import JitFunction

    config = config or RunConfig()
    if isinstance(program, JitFunction):
        program(*tensors, config=config)
        return program.compile(*tensors, config=config)
    return _run_program(program, tensors, config)[0]


def _run_program(program: Any, tensors: Sequence[Any], config: RunConfig | None) -> tuple[Any, list[Any] | None]:
    """Compile `program` and run it on `tensors`: the compiled program, and in return style
    (the tensors of the parameters that are not `pl.Out` only) the allocated outputs."""
    from pypto_xdsl.frontend.locate import located
    from pypto_xdsl.runtime.compiled import Compiled
    from pypto_xdsl.runtime.jit import ArgumentError, Binding, ParamPlan

    config = config or RunConfig()
    if not isinstance(program, Program):
        raise located(f"run() takes a @pl.program, got {program!r}", ArgumentError)
    name = _entry_for_run(program)
    decl = program.source.functions[name]
    outputs: list[Any] | None = None
    if tensors and len(tensors) != len(decl.params):
        tensors, outputs = _allocate_outputs(program, name, tensors)
    typed = program._typed_for(name, tensors) if isinstance(program, RunnableProgram) and tensors else program
    decl = typed.source.functions[name]
    rt = _ProgramRuntime(typed, name)
    module = typed.fresh_module()
    try:
        apply_pipeline(module, config.pipeline)
    except Exception as e:
        from xdsl.utils.exceptions import DiagnosticException

        if isinstance(e, DiagnosticException | ValueError | NotImplementedError):
            raise rt.error_at_def(f"cannot compile {program.name}.{name}: pipeline '{config.pipeline}': {e}") from None
        raise
    func = next(op for op in module.ops if getattr(op, "sym_name", None) is not None and op.sym_name.data == name)
    binding = Binding({}, {}, {}, [], [], {}, "numpy")
    for i, (p, direction) in enumerate(zip(decl.params, func.directions)):
        value = tensors[i] if tensors else None
        is_tensor = isinstance(func.args[i].type, A.TensorType)
        binding.plans.append(ParamPlan(p.arg, is_tensor, direction))
        if value is None:
            continue
        if is_tensor:
            try:
                a = arrays.as_array(value, f"argument '{p.arg}'")
            except arrays.ArgumentProblem as e:
                raise located(str(e), ArgumentError) from None
            if a is None:
                raise located(f"argument '{p.arg}' of {program.name}.{name} must be a tensor, got {value!r}", ArgumentError)
            want = T.dtype_from_ir(func.args[i].type.element_type)
            if want is not None:
                a = arrays.as_unsigned_view(a, want)
            binding.arrays[p.arg] = a
            for axis, d in enumerate(func.args[i].type.get_shape()):  # the run-time extents (checked by the host code)
                if isinstance(d, str) and d not in binding.symbols and axis < np.ndim(a.array):
                    binding.symbols[d] = int(np.shape(a.array)[axis])
            if a.kind == "torch":
                binding.kind = "torch"
        else:
            binding.scalars[p.arg] = arrays.scalar_value(value) if arrays.scalar_value(value) is not None else value
    compiled = Compiled(rt, module, name, binding.plans, config.target, f"{program.name}.{name}")  # type: ignore[arg-type]
    if config.target == "sim":
        compiled.build(config)
    if tensors and not config.codegen_only:
        compiled.run(binding, config)
    return compiled, outputs


def _allocate_outputs(program: Program, name: str, tensors: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """PyPTO's return style: `tensors` are the arguments of the parameters that are not
    `pl.Out`, in order; each `pl.Out` tensor parameter gets a zero-filled tensor of its
    declared (static) shape, torch when the inputs are torch tensors."""
    from pypto_xdsl.frontend.locate import located
    from pypto_xdsl.interpreter.values import numpy_dtype
    from pypto_xdsl.runtime.jit import ArgumentError

    decl = program.source.functions[name]
    func = next(
        op for op in program.module.ops if getattr(op, "sym_name", None) is not None and op.sym_name.data == name
    )
    outs = [i for i, d in enumerate(func.directions) if d == A.ParamDirection.OUT]
    if len(tensors) != len(decl.params) - len(outs) or not outs:
        inputs = [p.arg for i, p in enumerate(decl.params) if i not in outs]
        raise located(
            f"{program.name}.{name} takes {len(decl.params)} arguments "
            f"({', '.join(p.arg for p in decl.params)}), or its {len(inputs)} non-output ones "
            f"({', '.join(inputs)}) with the outputs returned; got {len(tensors)}",
            ArgumentError,
        )
    torch_inputs = any(type(t).__module__.startswith("torch") for t in tensors)
    given = iter(tensors)
    full: list[Any] = []
    allocated: list[Any] = []
    for i, p in enumerate(decl.params):
        if i not in outs:
            full.append(next(given))
            continue
        t = func.args[i].type
        if not isinstance(t, A.TensorType) or not all(isinstance(d, int) for d in t.get_shape()):
            raise located(
                f"{program.name}.{name}: the output '{p.arg}' has the type {t}; a returned output needs "
                f"a static shape (pass it as an argument instead)",
                ArgumentError,
            )
        array = np.zeros(tuple(t.get_shape()), dtype=numpy_dtype(t.element_type))
        if torch_inputs:
            array = arrays.to_caller_kind(array, "torch", T.dtype_from_ir(t.element_type))
        full.append(array)
        allocated.append(array)
    return full, allocated

