"""Python API of the reference interpreter.

    from pypto_xdsl.interpreter import run, random_inputs
    outputs = run(module, "main", inputs)          # inputs are mutated in place (out/inout)
    outputs = run(module, "main", dims={"N": 128}, seed=0)   # random inputs
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError
from xdsl.utils.scoped_dict import ScopedDict

from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import (
    TaskIdType,
    TensorType,
    TileType,
    format_shape,
    is_float_type,
)
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.interpreter.arith_extra import ArithExtraFunctions, ArithUndefinedBehaviourChecks
from pypto_xdsl.interpreter.functions import PyptoFunctions, ShapeChecker, state
from pypto_xdsl.interpreter.values import (
    PyptoInterpretationError,
    TaskId,
    TensorTooLarge,
    Unwinding,
    check_allocation,
    coerce,
    numpy_dtype,
    resolve_shape,
)
from pypto_xdsl.parsing import PyptoParser
from pypto_xdsl.utils import deep_stack


def _extra_functions() -> list[Any]:
    """Implementations of the tensor/tile op families (present once the dialect has them)."""
    impls: list[Any] = []
    try:
        from pypto_xdsl.interpreter.tensor_functions import TensorFunctions
    except ImportError:
        pass
    else:
        impls.append(TensorFunctions())
    try:
        from pypto_xdsl.interpreter.tile_functions import TileFunctions
    except ImportError:
        pass
    else:
        impls.append(TileFunctions())
        from pypto_xdsl.interpreter.gather_functions import GatherFunctions

        impls.append(GatherFunctions())
    try:
        from pypto_xdsl.interpreter.cross_core import CrossCoreFunctions
    except ImportError:
        pass
    else:
        impls.append(CrossCoreFunctions())
    from pypto_xdsl.interpreter.distributed_functions import DistributedFunctions
    from pypto_xdsl.interpreter.signal_functions import SignalFunctions

    impls.append(SignalFunctions())
    impls.append(DistributedFunctions())
    return impls


_CTX: Context | None = None


@deep_stack
def parse_module(text: str, ctx: Context | None = None) -> ModuleOp:
    global _CTX
    if ctx is None:
        if _CTX is None:
            _CTX = make_context()
        ctx = _CTX
    return PyptoParser(ctx, text).parse_module()


class PyptoInterpreter(Interpreter):
    """xDSL's interpreter, unwinding an op's error in time independent of the nesting depth.

    xDSL attaches a print of the whole module to an error at every op it passes on its way
    out (each enclosing loop, branch and call), which makes an error at depth d cost d prints
    of the module. Here the error passes the enclosing ops as `Unwinding`, a BaseException
    their handlers let through, and `run` re-raises the original error.
    """

    def _run_op(self, op: Operation, inputs: Any):
        try:
            return super()._run_op(op, inputs)
        except Exception as e:
            raise Unwinding(e) from None

    def push_scope(self, name: str | None = None) -> None:
        self._ctx = _CachingScope(self._ctx, name=name)


class _CachingScope(ScopedDict):
    """A block's values, with the values of enclosing blocks it reads cached on the way.

    xDSL's `ScopedDict` finds a value of an enclosing block by walking the parent scopes,
    one per level of nesting: a loop nest d deep reads its bounds in O(d) each, O(d^2) in all
    (10,000 nested loops: minutes). A lookup here caches what it finds in every scope it
    walked through, so the next level finds it in its parent. Safe because a scope's
    ancestors are fixed while it lives and an SSA value is defined in one block only: no
    scope on the path can define the value later.
    """

    def __getitem__(self, key: Any) -> Any:
        local = self._local_scope
        if key in local:
            return local[key]
        path = [local]
        scope = self.parent
        while scope is not None:
            found = scope._local_scope
            if key in found:
                value = found[key]
                for walked in path:
                    walked[key] = value
                return value
            path.append(found)
            scope = scope.parent
        raise KeyError(f"No value for key {key}")


class StepLimit(Interpreter.Listener):
    """Stops a run after `max_steps` ops (a program that may not terminate: a fuzzed
    `scf.while`, a loop bound of 2^40)."""

    def __init__(self, max_steps: int):
        self.remaining = max_steps
        self.max_steps = max_steps

    def will_interpret_op(self, op: Operation, args: Any) -> None:
        self.remaining -= 1
        if self.remaining < 0:
            raise PyptoInterpretationError(
                f"the run exceeded {self.max_steps:,} steps (ops executed); does the program terminate?", op
            )


def make_interpreter(
    module: ModuleOp, *, block_idx: int = 0, block_num: int = 1, check_directions: bool = False,
    max_steps: int | None = None,
) -> Interpreter:
    """An interpreter for `module` with pypto, arith, scf, func and builtin implementations.

    `check_directions` makes a write into the storage of an `in` parameter a diagnostic;
    `max_steps` bounds the number of ops executed.
    """
    interpreter = PyptoInterpreter(module, index_bitwidth=64)
    interpreter.listeners = (ShapeChecker(interpreter),) + ((StepLimit(max_steps),) if max_steps else ())
    for functions in (
        ArithFunctions(),
        ArithExtraFunctions(),
        ScfFunctions(),
        FuncFunctions(),
        BuiltinFunctions(),
        PyptoFunctions(),
        *_extra_functions(),
    ):
        interpreter.register_implementations(functions)
    interpreter.register_implementations(ArithUndefinedBehaviourChecks(), override=True)
    st = state(interpreter)
    st.block_idx, st.block_num = block_idx, block_num
    st.check_directions = check_directions
    st.spawn = lambda: make_interpreter(
        module, block_idx=block_idx, block_num=block_num, check_directions=check_directions
    )
    return interpreter


def entry_function(module: ModuleOp, entry: str) -> Operation:
    for op in module.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is not None and getattr(name, "data", None) == entry:
            if not hasattr(op, "function_type"):  # e.g. an ascendc.kernel: printed, not interpreted
                raise PyptoInterpretationError(
                    f"@{entry} is a '{op.name}', not a function the interpreter runs (pypto.func, func.func)", op
                )
            return op
    raise PyptoInterpretationError(f"no function @{entry} in the module")


def _input_for(
    t: Attribute, rng: np.random.Generator, dims: Mapping[str, int], where: str
) -> Any:
    if isinstance(t, TensorType | TileType):
        shape = t.get_shape()
        unknown = [d for d in shape if isinstance(d, str) and d not in dims]
        if unknown:
            raise PyptoInterpretationError(
                f"{where}: unbound symbol {unknown[0]} in shape {format_shape(shape)} "
                f"(bind it with dims={{'{unknown[0]}': ...}} or --dim {unknown[0]}=...)"
            )
        concrete = resolve_shape(shape, dims, [dims["?"]] * len(shape) if "?" in dims else [])
        if concrete is None:
            raise PyptoInterpretationError(
                f"{where}: shape {format_shape(shape)} has an unknown '?' dim "
                f"(give a default with dims={{'?': ...}} or --dim '?=...')"
            )
        try:
            return random_array(concrete, t.element_type, rng)
        except TensorTooLarge as e:
            raise PyptoInterpretationError(f"{where}: {e}") from None
    if isinstance(t, IndexType):
        return int(rng.integers(1, 5))
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return bool(rng.integers(0, 2))
        return int(rng.integers(-8, 8)) if t.signedness.data.value != "unsigned" else int(rng.integers(0, 8))
    if is_float_type(t):
        return float(np.float32(rng.uniform(-1.0, 1.0)))
    if isinstance(t, TaskIdType):
        return TaskId(-1, "input", done=True)
    if isinstance(t, DistributedTensorType):
        shape = resolve_shape(t.get_shape(), dims)
        if shape is None:
            raise PyptoInterpretationError(f"{where}: unbound symbol in shape {format_shape(t.get_shape())}")
        return np.zeros(shape, dtype=numpy_dtype(t.element_type))  # signals start cleared
    raise PyptoInterpretationError(f"{where}: cannot make a random input of type {t}")


def random_array(shape: Sequence[int], element_type: Attribute, rng: np.random.Generator) -> np.ndarray:
    """Uniform values in [-1, 1) for floats, small integers for ints, random bools for i1.

    Values are drawn in the carrier dtype (f32 for f32, f16 and bf16), never through a
    float64 array twice the size; shapes beyond `MAX_TENSOR_BYTES` are refused."""
    dtype = numpy_dtype(element_type)
    check_allocation(shape, dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape, dtype=np.int8).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -8
        return rng.integers(lo, 8, size=shape, dtype=dtype)
    draw = np.float64 if dtype == np.float64 else np.float32
    values = rng.random(size=shape, dtype=draw)
    values *= 2
    values -= 1
    return coerce(values, element_type)


def random_inputs(
    module: ModuleOp, entry: str, seed: int = 0, dims: Mapping[str, int] | None = None
) -> list[Any]:
    """Seeded random arguments for `@entry` (symbols of the shapes bound by `dims`)."""
    func = entry_function(module, entry)
    rng = np.random.default_rng(seed)
    types = func.function_type.inputs.data  # type: ignore[attr-defined]
    return [
        _input_for(t, rng, dims or {}, f"argument #{i} of @{entry}") for i, t in enumerate(types)
    ]


def _signedness_view(a: Any, t: Attribute) -> Any:
    """An integer array for an integer tensor parameter of the same width and the other
    signedness, viewed as the parameter's type (the same memory: writes reach the caller).
    PyPTO's callers pass u16/u32 tensors as torch int16/int32 (torch stores no such dtype),
    the bit patterns being the values."""
    if isinstance(t, TensorType) and type(a) is np.ndarray and a.dtype.kind in "iu":
        want = numpy_dtype(t.element_type)
        if want.kind in "iu" and want != a.dtype and want.itemsize == a.dtype.itemsize:
            return a.view(want)
    return a


@deep_stack
def run(
    module: ModuleOp,
    entry: str = "main",
    inputs: Sequence[Any] | None = None,
    dims: Mapping[str, int] | None = None,
    *,
    seed: int = 0,
    block_idx: int = 0,
    block_num: int = 1,
    check_directions: bool = False,
    max_steps: int | None = None,
    world_size: int | None = None,
    dispatcher: Any = None,
    device: Any = None,
) -> tuple[Any, ...]:
    """Run `@entry` and return its results.

    Tensor inputs are numpy arrays and are written in place (reference semantics), so
    out/inout arguments hold the written values afterwards. Without `inputs`, seeded random
    inputs are made (`random_inputs`), with symbolic dims bound by `dims`.
    `block_idx`/`block_num` are what `get_block_idx`/`get_block_num` return;
    `check_directions` diagnoses writes into `in` parameters; `max_steps` bounds the number
    of ops executed; `world_size` is the number of ranks a host function dispatches to (they
    run to their end before `run` returns, see `interpreter.ranks`); a `dispatcher(callee,
    rank, args)` runs each dispatch itself instead, when it is made (one rank after
    another: a simulated device per rank); `device` (`interpreter.ranks.DeviceWindows`) is
the rank and windows-in regions a program localized by `localize-windows` reaches its
windows through. Runs on a deep stack
    (`pypto_xdsl.utils.deep_stack`).
    """
    if inputs is None:
        inputs = random_inputs(module, entry, seed, dims)
    func = entry_function(module, entry)
    interpreter = make_interpreter(
        module, block_idx=block_idx, block_num=block_num, check_directions=check_directions,
        max_steps=max_steps,
    )
    state(interpreter).device = device
    group = None
    if world_size is not None:
        from pypto_xdsl.interpreter.ranks import RankGroup

        group = state(interpreter).group = RankGroup(world_size)
        state(interpreter).dispatcher = dispatcher
    prepared = [
        coerce(np.asarray(a), t.element_type)
        if isinstance(t, TensorType | TileType) and isinstance(a, list | tuple)
        else _signedness_view(a, t)
        for a, t in zip(inputs, func.function_type.inputs.data)  # type: ignore[attr-defined]
    ]
    with np.errstate(all="ignore"):
        try:
            try:
                results = tuple(interpreter.call_op(func, tuple(prepared)))
                if group is not None:
                    group.run_all()
                return results
            except Unwinding as unwinding:
                if group is not None:
                    group.abort()
                raise unwinding.error from None
        except InterpretationError:
            raise
        except TensorTooLarge as e:
            st = state(interpreter)
            raise PyptoInterpretationError(str(e), st.current_op, st.error_func) from e
        except (ValueError, IndexError, TypeError, ArithmeticError, KeyError, AssertionError) as e:
            # an op implemented outside pypto (arith, scf, ...) failed: name it
            st = state(interpreter)
            raise PyptoInterpretationError(f"{type(e).__name__}: {e}", st.current_op, st.error_func) from e


def run_spmd(
    module: ModuleOp,
    entry: str,
    inputs: Sequence[Any],
    num_blocks: int,
) -> list[tuple[Any, ...]]:
    """SPMD launch: run `@entry` once per block 0..num_blocks-1 on the same inputs.

    `pypto.tile.get_block_idx` returns the block's index and `get_block_num` returns
    `num_blocks`; blocks run one after another and share the input tensors.
    """
    return [
        run(module, entry, inputs, block_idx=b, block_num=num_blocks) for b in range(num_blocks)
    ]


def function_directions(module: ModuleOp, entry: str):
    func = entry_function(module, entry)
    if isinstance(func, FuncOp):
        return func.directions
    return None
