"""Calling `@pl.jit` functions: binding arguments, specialising, caching, running.

A call `fn(a, b, out, config=RunConfig())`:

1. binds the arguments to the parameters (Python's rules, defaults included); a tensor is
   anything `runtime.arrays` accepts, a scalar a Python number;
2. makes the specialisation key: per tensor its dtype and shape (dims declared dynamic, by a
   `pl.dynamic` in the annotation or by `a.bind_dynamic(axis, M)`, count as "any" on the
   interpreter target), per scalar its value (scalars are specialisation constants, as in
   PyPTO), the values of the module constants the program reads, the target and the pipeline;
3. on a miss, builds the specialised module (`frontend.jit.build_module`), runs the pipeline
   and, for the sim target, emits and builds the Ascend C program (cached on disk, see
   `runtime.cache`);
4. runs it on the caller's arrays: `out`/`inout` arguments are written in place, and the
   function's results are returned (a result naming an argument's storage is that argument).
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from io import StringIO
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from pypto_xdsl.dialects import attributes as A
from pypto_xdsl.dialects.attributes import TensorType, TileType, is_float_type
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.frontend import jit as fjit
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.locate import located
from pypto_xdsl.language import types as T
from pypto_xdsl.runtime import arrays
from pypto_xdsl.runtime.cache import value_key
from pypto_xdsl.runtime.config import RunConfig

if TYPE_CHECKING:
    from pypto_xdsl.runtime.compiled import Compiled


class ArgumentError(ParserError, TypeError):
    """Arguments that do not fit the jit function's parameters (located at the call)."""


class CompileError(ParserError):
    """The specialised program failed a pass or the backend (located at the function)."""


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    sim_builds: int = 0
    sim_disk_hits: int = 0
    last_compile_seconds: float = 0.0


@dataclass
class ParamPlan:
    name: str
    tensor: bool
    direction: A.ParamDirection
    bound: bool = False  # a scalar specialised into the program (not passed at run time)


@dataclass
class Binding:
    """One call's arguments, bound to the parameters."""

    values: dict[str, Any]
    arrays: dict[str, arrays.ArrayArg]
    scalars: dict[str, Any]
    plans: list[ParamPlan]
    key_parts: list[Any]
    symbols: dict[str, int]
    kind: str  # "torch" when any tensor argument is a torch tensor
    origins: dict[str, str] = field(default_factory=dict)
    """Where each symbol took its extent: `dimension 0 of 'x'`."""
    tensor_types: dict[str, tuple[TensorType, bool, bool]] = field(default_factory=dict)
    """Per tensor parameter: its type in the program, whether dynamic dims were made static,
    whether the annotation gives the type."""
    static_dims: bool = False
    """The dynamic dimensions are specialised to this call's extents (else they stay symbolic)."""


def _ir_of(spec: Any) -> Attribute | None:
    return spec.ir if isinstance(spec, T.TypeSpec) else None


def _describe_arg(value: Any) -> str:
    a = arrays.as_array(value, "") if not isinstance(value, bool | int | float) else None
    if a is not None:
        return f"{a.dtype.name.lower()}{list(a.array.shape)}"
    return repr(value)


def _dtype_text(t: Attribute) -> str:
    d = T.dtype_from_ir(t)
    return f"pl.{d.name}" if d is not None else str(t)


class JitRuntime:
    """The compile cache and call machinery of one `JitFunction`."""

    def __init__(self, fn: Any):
        self.fn = fn
        self.func = fn.__wrapped__
        self.signature = inspect.signature(self.func)
        for p in self.signature.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY):
                raise located(
                    f"@pl.{fn.flavour} function '{fn.__name__}': only plain parameters are supported, "
                    f"'{p.name}' is {p.kind.description}"
                )
        self.names = list(self.signature.parameters)
        self.cache: dict[tuple, Compiled] = {}
        self.stats = CacheStats()
        self._entry: fjit.FunctionSource | None = None
        self._callees: list[fjit.Callee] = []
        self._constants: list[tuple[fjit.FunctionSource, str]] = []
        self._specs: dict[str, Any] | None = None
        self._bounds: dict[str, int] | None = None
        self.sim_dynamic: bool | None = None
        """On the sim target: whether one build serves every extent of the dynamic dimensions
        (None: not tried yet; False: the backend needed them static, so each size is built)."""

    def clear(self) -> None:
        self.cache.clear()
        self.stats = CacheStats()
        self.sim_dynamic = None

    # ---- the program (read once)

    @property
    def entry_kind(self) -> A.FuncKind:
        if self.fn.host:
            return A.FuncKind.HOST
        return A.FuncKind.ORCHESTRATION if self.fn.kind is None else self.fn.kind.value

    def program_sources(self) -> fjit.FunctionSource:
        if self._entry is None:
            entry = fjit.read_function(self.func, f"@pl.{self.fn.flavour} function")
            callees = fjit.discover([entry], {entry.name}, fjit.read_function, host=self.fn.host)
            constants = []
            for fs in [entry, *(c.source for c in callees)]:
                for name in fs.free_names:
                    if value_key(fs.lookup(name)) is not None:
                        constants.append((fs, name))
            self._callees, self._constants, self._entry = callees, constants, entry
        return self._entry

    def param_specs(self) -> dict[str, Any]:
        """Each parameter's annotation as a type spec (None when unannotated)."""
        if self._specs is None:
            entry = self.program_sources()
            specs: dict[str, Any] = {}
            by_name = {a.arg: a for a in entry.params}
            for name in self.names:
                ann = entry.annotations.get(name)
                if isinstance(ann, str):
                    try:
                        ann = eval(ann, entry.live_namespace())  # noqa: S307 - the user's own annotation
                    except Exception as e:
                        raise entry.error(by_name[name].annotation, f"cannot evaluate the annotation of '{name}': {e}") from None
                if ann is None:
                    specs[name] = None
                    continue
                try:
                    specs[name] = T.to_type_spec(ann)
                except T.TypeError_ as e:
                    raise entry.error(by_name[name].annotation, f"invalid type for parameter '{name}': {e}") from None
            self._specs = specs
        return self._specs

    # ---- binding

    def _signature_text(self) -> str:
        return f"{self.fn.__name__}({', '.join(self.names)})"

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any], static_dims: bool) -> Binding:
        specs = self.param_specs()
        entry = self.program_sources()
        if len(args) > len(self.names):
            raise located(
                f"{self._signature_text()} takes {len(self.names)} arguments, got {len(args)}", ArgumentError
            )
        for key in kwargs:
            if key not in self.signature.parameters:
                raise located(f"{self._signature_text()} has no parameter '{key}'", ArgumentError)
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            missing = [n for n in self.names[len(args):] if n not in kwargs and
                       self.signature.parameters[n].default is inspect.Parameter.empty]
            if missing:
                raise located(
                    f"{self._signature_text()}: no argument for parameter "
                    + ", ".join(f"'{m}'" for m in missing), ArgumentError
                ) from None
            raise located(f"{self._signature_text()}: {e}", ArgumentError) from None
        bound.apply_defaults()
        binds: dict[str, dict[int, fjit.DynamicBind]] = {}
        for b in entry.binds:
            binds.setdefault(b.param, {})[b.axis] = b
        binding = Binding(dict(bound.arguments), {}, {}, [], [], {}, "numpy", static_dims=static_dims)
        for name in self.names:
            value = bound.arguments[name]
            self._bind_one(binding, name, value, specs[name], binds.get(name, {}), static_dims)
        for fs, name in self._constants:
            binding.key_parts.append((name, value_key(fs.lookup(name))))
        return binding

    def _bind_one(
        self, b: Binding, name: str, value: Any, spec: Any, dyn: dict[int, fjit.DynamicBind], static_dims: bool
    ) -> None:
        what = f"argument '{name}' of {self.fn.__name__}()"
        direction = spec.direction if spec is not None else A.ParamDirection.IN
        formal = _ir_of(spec)
        try:
            array = arrays.as_array(value, what)
        except arrays.ArgumentProblem as e:
            raise located(str(e), ArgumentError) from None
        if isinstance(formal, TileType):
            raise located(f"parameter '{name}' of {self.fn.__name__}() is a tile; a jit entry takes tensors and scalars", ArgumentError)
        if isinstance(formal, DistributedTensorType):
            # a window (`pld.DistributedTensor`): on its own, one device's window is its
            # global memory, an array of the annotated shape (a host dispatch passes it)
            formal = TensorType(formal.get_shape(), formal.element_type)
        wants_scalar = formal is not None and not isinstance(formal, TensorType)
        if array is not None and array.array.ndim == 0 and wants_scalar:
            value, array = array.array.item(), None
        if array is None:
            self._bind_scalar(b, name, value, formal, direction, what, dyn)
            return
        if wants_scalar:
            raise located(
                f"parameter '{name}' of {self.fn.__name__}() is a scalar ({_dtype_text(formal)}), got the tensor {_describe_arg(value)}",
                ArgumentError,
            )
        if array.kind == "torch":
            b.kind = "torch"
        if array.kind == "list" and direction != A.ParamDirection.IN:
            raise located(f"{what} is a list and cannot be written in place (pl.{direction.value.capitalize()}); pass a numpy array", ArgumentError)
        shape = list(array.array.shape)
        element = array.dtype.to_ir()
        dims: list[A.Dim]
        if isinstance(formal, TensorType):
            if formal.element_type != element:
                raise located(
                    f"parameter '{name}' of {self.fn.__name__}() is {_dtype_text(formal.element_type)}, "
                    f"got a {array.dtype.name} tensor {_describe_arg(value)}",
                    ArgumentError,
                )
            declared = formal.get_shape()
            if len(declared) != len(shape):
                raise located(
                    f"parameter '{name}' of {self.fn.__name__}() has rank {len(declared)} "
                    f"({A.format_shape(declared)}), got the shape {shape}",
                    ArgumentError,
                )
            dims = []
            for axis, (d, n) in enumerate(zip(declared, shape)):
                if isinstance(d, int):
                    if d != n:
                        raise located(
                            f"parameter '{name}' of {self.fn.__name__}() has the shape {A.format_shape(declared)}, "
                            f"got {shape} (dimension {axis} is {n}, not {d})",
                            ArgumentError,
                        )
                    dims.append(d)
                elif isinstance(d, str):
                    self._bind_symbol(b, d, n, name, axis)
                    dims.append(d)
                else:
                    dims.append(d)
            if dyn:
                first = next(iter(dyn.values()))
                raise self.program_sources().error(
                    first.node, f"bind_dynamic on '{name}', whose annotation already gives its shape; declare "
                    "the dimension in the annotation (pl.Tensor[[M, ...], ...]) or annotate it pl.Tensor"
                )
        else:
            dims = list(shape)
            for axis, d in dyn.items():
                if axis >= len(shape):
                    raise self.program_sources().error(
                        d.node, f"bind_dynamic({axis}, ...) on '{name}', which has rank {len(shape)} here"
                    )
                self._bind_symbol(b, d.symbol, shape[axis], name, axis)
                dims[axis] = d.symbol
        concrete = [b.symbols[d] if isinstance(d, str) else d for d in dims] if static_dims else dims
        key_dims = tuple(None if isinstance(d, str) else d for d in concrete)
        b.key_parts.append((name, "tensor", array.dtype.name, key_dims, direction.value))
        b.arrays[name] = array
        b.plans.append(ParamPlan(name, True, direction))
        b.tensor_types[name] = (TensorType(concrete, element), concrete != dims, formal is not None)

    def _bind_symbol(self, b: Binding, symbol: str, extent: int, name: str, axis: int) -> None:
        where = f"dimension {axis} of '{name}'"
        previous = b.symbols.get(symbol)
        if previous is not None and previous != extent:
            raise located(
                f"{self.fn.__name__}(): the dynamic dimension {symbol} is {previous} in {b.origins[symbol]} "
                f"but {extent} in {where}; parameters sharing a dimension must agree",
                ArgumentError,
            )
        bound = self.symbol_bounds().get(symbol)
        if bound is not None and extent > bound:
            raise located(
                f"{self.fn.__name__}(): {where} is {extent}, above the bound of its dynamic dimension "
                f"(pl.dynamic({symbol!r}, max={bound}))",
                ArgumentError,
            )
        b.symbols[symbol] = extent
        b.origins.setdefault(symbol, where)

    def symbol_bounds(self) -> dict[str, int]:
        """The declared bounds of the entry's dynamic dimensions (annotations and binds)."""
        if self._bounds is None:
            bounds: dict[str, int] = {}
            for spec in self.param_specs().values():
                bounds.update(getattr(spec, "bounds", ()))
            for bind in self.program_sources().binds:
                if bind.bound is not None:
                    bounds[bind.symbol] = bind.bound
            self._bounds = bounds
        return self._bounds

    def _bind_scalar(
        self, b: Binding, name: str, value: Any, formal: Attribute | None, direction: A.ParamDirection,
        what: str, dyn: dict[int, fjit.DynamicBind],
    ) -> None:
        scalar = arrays.scalar_value(value)
        if scalar is None:
            raise located(
                f"{what} must be a tensor (a numpy array, a torch tensor, ...) or a Python number, "
                f"got {type(value).__name__}",
                ArgumentError,
            )
        if dyn:
            raise self.program_sources().error(next(iter(dyn.values())).node, f"bind_dynamic on the scalar '{name}'")
        if direction != A.ParamDirection.IN:
            raise located(f"parameter '{name}' of {self.fn.__name__}() is pl.{direction.value.capitalize()}: pass a tensor, got {value!r}", ArgumentError)
        if formal is not None:
            scalar = self._convert_scalar(name, scalar, formal)
        b.key_parts.append((name, "scalar", type(scalar).__name__, scalar))
        b.scalars[name] = scalar
        b.plans.append(ParamPlan(name, False, direction, bound=True))

    def _convert_scalar(self, name: str, value: Any, formal: Attribute) -> Any:
        where = f"parameter '{name}' of {self.fn.__name__}() is {_dtype_text(formal)}"
        if formal == IntegerType(1):
            if not isinstance(value, bool):
                raise located(f"{where}, got {value!r} (pass True or False)", ArgumentError)
            return value
        if isinstance(formal, IndexType | IntegerType):
            if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
                raise located(f"{where}, got {value!r} (pass an integer)", ArgumentError)
            return int(value)
        if is_float_type(formal):
            if isinstance(value, bool):
                raise located(f"{where}, got {value!r} (pass a number)", ArgumentError)
            return float(value)
        return value

    # ---- specialisation

    def specialise(self, binding: Binding, static_dims: bool) -> ModuleOp:
        entry = self.program_sources()
        types = {}
        for name, (t, made_static, annotated) in binding.tensor_types.items():
            if not annotated or made_static:
                types[name] = t
        return fjit.build_module(
            entry, self.entry_kind, self._callees, types, binding.scalars,
            static_dims=binding.symbols if static_dims else None,
        )

    def describe_binding(self, binding: Binding) -> str:
        parts = []
        for p in binding.plans:
            if p.tensor:
                t = binding.tensor_types[p.name][0]
                parts.append(f"{p.name}: {_dtype_text(t.element_type)}{A.format_shape(t.get_shape())}")
            else:
                parts.append(f"{p.name}={binding.scalars[p.name]!r}")
        return f"{self.fn.__name__}({', '.join(parts)})"

    def compiled_for(self, binding: Binding, config: RunConfig, build: bool = True) -> Compiled:
        """The specialisation for `binding` (compiled on a miss); on the sim target with
        `build`, also its simulation build (`lower` needs none)."""
        key: tuple = (config.target, config.pipeline, tuple(binding.key_parts))
        group = self.rank_group(config)
        if group is not None:
            key += (("ranks", group.world_size),)
        compiled = self.cache.get(key)
        if compiled is not None:
            self.stats.hits += 1
        else:
            self.stats.misses += 1
            start = time.perf_counter()
            from pypto_xdsl.runtime.compiled import compile_specialisation

            compiled = compile_specialisation(self, binding, config)
            compiled.group = group
            self.stats.last_compile_seconds = time.perf_counter() - start
            self.cache[key] = compiled
            compiled.cache_key = key  # a ChipWorker checks a dispatch's arguments against it
        if build and config.target == "sim" and compiled.sim is None and not self.fn.host:
            start = time.perf_counter()
            compiled.build(config)
            self.stats.last_compile_seconds += time.perf_counter() - start
        return compiled

    def rank_group(self, config: RunConfig) -> Any:
        """A `@pl.jit.host` function's group of ranks (`config.distributed_config`); None for
        other functions, which run on one device."""
        group = config.distributed_config
        if not self.fn.host:
            if group is not None and group.world_size != 1:
                raise located(
                    f"{self.fn.__name__}() runs on one device; RunConfig(distributed_config=...) "
                    f"with {group.world_size} devices runs a @pl.jit.host orchestrator",
                    ArgumentError,
                )
            return None
        if group is None:
            raise located(
                f"@pl.jit.host function '{self.fn.__name__}' runs on a group of ranks: pass "
                "RunConfig(distributed_config=DistributedConfig(device_ids=[...]))",
                ArgumentError,
            )
        if group.num_sub_workers:
            raise located(
                f"DistributedConfig(num_sub_workers={group.num_sub_workers}): host sub-workers (callbacks) "
                "are not modelled; use num_sub_workers=0",
                ArgumentError,
            )
        return group

    def dispatched_function(self, ir_name: str) -> Any:
        """The `@pl.jit` function a host function dispatches as `@ir_name`."""
        from pypto_xdsl.language.decorators import JitFunction

        self.program_sources()
        for callee in self._callees:
            if callee.ir_name == ir_name:
                for obj in callee.objects:
                    if isinstance(obj, JitFunction):
                        return obj
        raise self.error_at_def(f"@{ir_name} is not a @pl.jit function this host function dispatches")

    def error_at_def(self, message: str) -> CompileError:
        entry = self.program_sources()
        e = entry.error(entry.node, message)
        return CompileError(e.message, e.filename, e.line, e.col, e.source_line, None)

    # ---- the public entry points

    @staticmethod
    def _config(kwargs: dict[str, Any]) -> RunConfig:
        config = kwargs.pop("config", None)
        if config is None:
            return RunConfig()
        if not isinstance(config, RunConfig):
            raise located(f"config= takes a pypto_xdsl.runtime.RunConfig, got {config!r}", ArgumentError)
        return config

    def _sim_compiled(self, args: Sequence[Any], kwargs: dict[str, Any], config: RunConfig) -> tuple[Binding, Compiled]:
        """The sim target's build for a call: one build for every extent of the dynamic
        dimensions (the driver takes them at run time) where the backend lowers them, else a
        build per extent (the dimensions specialised, as before phase 2 of #16)."""
        if self.sim_dynamic is not False:
            binding = self.bind(args, kwargs, static_dims=False)
            if not binding.symbols:
                return binding, self.compiled_for(binding, config)
            saved = CacheStats(**vars(self.stats))
            try:
                compiled = self.compiled_for(binding, config)
                self.sim_dynamic = True
                return binding, compiled
            except CompileError:
                if self.sim_dynamic:
                    raise
                self.sim_dynamic = False
                self.stats = saved  # the attempt is not a build of the user's
        binding = self.bind(args, kwargs, static_dims=True)
        return binding, self.compiled_for(binding, config)

    def call(self, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        config = self._config(kwargs)
        if config.target == "sim":
            binding, compiled = self._sim_compiled(args, kwargs, config)
        else:
            binding = self.bind(args, kwargs, static_dims=False)
            compiled = self.compiled_for(binding, config)
        if config.codegen_only:
            return None
        return compiled.run(binding, config)

    def lower(self, args: Sequence[Any], kwargs: dict[str, Any]) -> LoweredProgram:
        config = self._config(kwargs)
        binding = self._bind_or_signature(args, kwargs, config)
        compiled = self.compiled_for(binding, config, build=False)
        return LoweredProgram(compiled.module.clone(), compiled.entry)

    def specialize(self, args: Sequence[Any], kwargs: dict[str, Any]) -> LoweredProgram:
        config = self._config(kwargs)
        binding = self._bind_or_signature(args, kwargs, config)
        return LoweredProgram(self.specialise(binding, config.target == "sim"), self.fn.__name__)

    def compile(self, args: Sequence[Any], kwargs: dict[str, Any]) -> Compiled:
        config = self._config(kwargs)
        binding = self._bind_or_signature(args, kwargs, config)
        return self.compiled_for(binding, config)

    def _bind_or_signature(self, args: Sequence[Any], kwargs: dict[str, Any], config: RunConfig) -> Binding:
        """Bind sample arguments; without tensors, read the types from the annotations."""
        static = config.target == "sim"
        if args or any(arrays.as_array(v, k) is not None for k, v in kwargs.items()):
            return self.bind(args, kwargs, static)
        specs = self.param_specs()
        samples = dict(kwargs)
        for name in self.names:
            if name in samples:
                continue
            ir = _ir_of(specs[name])
            has_default = self.signature.parameters[name].default is not inspect.Parameter.empty
            if isinstance(ir, TensorType):
                if static and not all(isinstance(d, int) for d in ir.get_shape()):
                    raise located(
                        f"{self.fn.__name__}(): '{name}' has the dynamic shape {A.format_shape(ir.get_shape())} "
                        "and the sim target builds one size; pass sample arrays",
                        ArgumentError,
                    )
                samples[name] = _SignatureSample(ir)
            elif has_default:
                continue
            elif ir is None or isinstance(ir, TileType):
                raise located(
                    f"{self.fn.__name__}(): without sample arguments every tensor parameter needs a full "
                    f"annotation (pl.Tensor[[...], dtype]); '{name}' has none, pass sample arrays",
                    ArgumentError,
                )
            else:
                raise located(
                    f"{self.fn.__name__}(): '{name}' is a scalar; without sample arguments give its value "
                    f"by keyword ({name}=...)",
                    ArgumentError,
                )
        return self.bind((), samples, static)


def _SignatureSample(t: TensorType) -> arrays.TypedSample:
    """A stand-in array of an annotation's type (signature mode of lower/compile)."""
    shape = [d if isinstance(d, int) else 1 for d in t.get_shape()]
    dtype = T.dtype_from_ir(t.element_type)
    assert dtype is not None
    return arrays.TypedSample(shape, dtype)


@dataclass
class LoweredProgram:
    """A specialised program: `.module` (xDSL), `.functions` (name -> info), printable."""

    module: ModuleOp
    entry: str
    functions: dict[str, FunctionInfo] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from pypto_xdsl.dialects.program import FuncOp

        for op in self.module.ops:
            if isinstance(op, FuncOp):
                name = op.sym_name.data
                self.functions[name] = FunctionInfo(name, op.func_kind, op)

    def __str__(self) -> str:
        out = StringIO()
        Printer(stream=out).print_op(self.module)
        return out.getvalue()

    def print(self, file: Any = None) -> None:
        print(str(self), file=file if file is not None else sys.stdout)


@dataclass
class FunctionInfo:
    name: str
    func_type: A.FuncKind
    op: Any

    def __repr__(self) -> str:
        return f"<{self.func_type.value} function @{self.name}>"

