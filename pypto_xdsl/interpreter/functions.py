"""Interpreter implementations of the pypto program-structure ops, and shared machinery.

Execution is sequential: `pypto.submit` runs its callee to completion before the next op,
so every dependency of a task is complete when the task starts (the interpreter checks it).
A task whose body registered deferred conditions (`pypto.system.defer_wait`) completes
only once they hold: a task depending on it checks them when it is launched.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    ParamDirection,
    TaskIdType,
    TensorType,
    TileType,
    format_shape,
)
from pypto_xdsl.dialects.distributed import DistributedTensorType
from pypto_xdsl.dialects.program import (
    DIM_BOUNDS_ATTR,
    CallOp,
    FuncOp,
    IncoreScopeOp,
    ManualScopeOp,
    ReturnOp,
    SplitAivOp,
    SubmitOp,
    YieldOp,
    dim_bounds,
    launch_block_dim,
    launch_cores,
)
from pypto_xdsl.dialects.task_arrays import TaskDummyOp, TaskIdsCreateOp, TaskIdsGetOp, TaskIdsSetOp
from pypto_xdsl.interpreter.values import (
    DeferredCondition,
    Frame,
    PyptoInterpretationError,
    TaskId,
    Unwinding,
    numpy_dtype,
    resolve_shape,
    zeros,
)
from pypto_xdsl.utils import MAX_NESTING_DEPTH  # noqa: E402

SPLIT_AIV_LANES = 2
NO_TASK = TaskId(-1, "no task", done=True)
"""An element of an array of task ids that was never set: a dependency on it is met."""
"""`pl.split_aiv` always splits a scope across the two AIV cores of a core group."""


@dataclass
class InterpState:
    """Per-run state of the pypto interpreter functions."""

    frames: list[Frame] = field(default_factory=list)
    tasks: list[TaskId] = field(default_factory=list)
    """Every task launched (submit / incore scope with task id), in launch order."""
    block_idx: int = 0
    block_num: int = 1
    check_directions: bool = False
    """Diagnose writes into the storage of an `in` parameter of any active function."""
    current_op: Operation | None = None
    error_func: str | None = None
    """The op started last (names the op in diagnostics of foreign-op failures)."""
    global_frame: Frame = field(default_factory=lambda: Frame("<top>"))
    cross_core: Any = None
    """The rings and flags cross-core ops use (`interpreter.cross_core.Channels`): those of
    the mixed task being run, or of the one incore function running alone."""
    core: int = 0
    """Which member of a group this interpreter runs: 0 the AIC, 1 .. task_ratio its AIVs."""
    sub_block: int = 0
    """The vector core of its core group an AIV member instance runs on (`get_subblock_idx`):
    0, or 1 for the second AIV of a group with task_ratio 2."""
    spawn: Callable[[], Interpreter] | None = None
    """Makes another interpreter like this one (a group runs each member on its own)."""
    registrations: list[list[DeferredCondition]] = field(default_factory=list)
    """One list per running task launch: the conditions its body registers."""
    group: Any = None
    """The ranks a host function dispatches to (`interpreter.ranks.RankGroup`), or None."""
    dispatcher: Callable[[str, int, tuple[Any, ...]], None] | None = None
    """Runs a dispatch in place of the interpreter (the sim target's per-rank devices)."""
    device: Any = None
    """The device a localized rank program runs on (`interpreter.ranks.DeviceWindows`), or None."""

    @property
    def frame(self) -> Frame:
        return self.frames[-1] if self.frames else self.global_frame


def state(interpreter: Interpreter) -> InterpState:
    return interpreter.get_data(PyptoFunctions, "state", InterpState)


def fail(interpreter: Interpreter, op: Operation | None, message: str) -> PyptoInterpretationError:
    """An error naming `op` and the function being run (raise the returned exception)."""
    frames = state(interpreter).frames
    return PyptoInterpretationError(message, op, frames[-1].func if frames else None)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn numpy/Python errors inside an op implementation into a diagnostic naming the op."""

    @functools.wraps(fn)
    def wrapper(self: Any, interpreter: Interpreter, op: Operation, args: PythonValues):
        try:
            return fn(self, interpreter, op, args)
        except InterpretationError:
            raise
        except (ValueError, IndexError, TypeError, ArithmeticError, KeyError) as e:
            raise fail(interpreter, op, f"{type(e).__name__}: {e}") from e

    return wrapper


def pimpl(op_type: type[Operation]):
    """`@impl(op_type)` with `guarded` error conversion."""

    def annot(fn: Callable[..., Any]):
        return impl(op_type)(guarded(fn))

    return annot


# --------------------------------------------------------------------------- shape checks


def check_value(
    interpreter: Interpreter,
    op: Operation | None,
    what: str,
    t: Attribute,
    value: Any,
    frame: Frame,
) -> None:
    """Check a runtime value against its IR type; bind the symbols of its shape in `frame`."""
    if isinstance(t, TensorType | TileType | DistributedTensorType):
        kind = "tile" if isinstance(t, TileType) else "tensor"
        if not isinstance(value, np.ndarray):
            raise fail(interpreter, op, f"{what} should be a {kind} array, got {type(value).__name__}")
        shape = t.get_shape()
        if value.ndim != len(shape):
            raise fail(
                interpreter, op,
                f"{what} has rank {value.ndim} (shape {list(value.shape)}) but its type {t} "
                f"has rank {len(shape)}",
            )
        for axis, (d, n) in enumerate(zip(shape, value.shape)):
            if isinstance(d, int):
                if d != n:
                    raise fail(
                        interpreter, op,
                        f"shape mismatch: {what} has shape {list(value.shape)} but its type is "
                        f"{t} (dim {axis} should be {d})",
                    )
            elif isinstance(d, str):
                bound = frame.binding.get(d)
                if bound is None:
                    frame.binding[d] = n
                    frame.origins[d] = f"dimension {axis} of {what}"
                elif bound != n and d not in frame.ambiguous:
                    if frame.lenient:
                        frame.ambiguous.add(d)
                    else:
                        origin = frame.origins.get(d)
                        raise fail(
                            interpreter, op,
                            f"shape mismatch: {what} has shape {list(value.shape)} but its type "
                            f"{t} needs {d} = {bound}"
                            + (f", the extent of {origin}" if origin else "")
                            + f" (dim {axis} is {n})",
                        )
        want = numpy_dtype(t.element_type)
        if value.dtype != want:
            raise fail(
                interpreter, op,
                f"{what} has dtype {value.dtype} but its type {t} needs {want}",
            )
    elif isinstance(t, TaskIdType):
        if not isinstance(value, TaskId):
            raise fail(interpreter, op, f"{what} should be a task id, got {type(value).__name__}")


class ShapeChecker(Interpreter.Listener):
    """Checks every tensor/tile result of every op (pypto, scf, ...) against its type."""

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter
        self.state = state(interpreter)

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self.state.current_op = op

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        if not op.results:
            return
        frame = state(self.interpreter).frame
        for i, (res, value) in enumerate(zip(op.results, results)):
            t = res.type
            if isinstance(t, TensorType | TileType | TaskIdType | DistributedTensorType):
                check_value(self.interpreter, op, f"result #{i}", t, value, frame)


def check_write(interpreter: Interpreter, op: Operation, dest: np.ndarray) -> None:
    """With `check_directions`, a write must not reach an `in` parameter's storage."""
    if isinstance(dest, np.ndarray) and not dest.flags.writeable:
        raise fail(
            interpreter, op,
            "writes into a read-only tensor: a slice whose window runs past the end of its source "
            "(its storage ends at the source's edge), or a read-only argument",
        )
    st = state(interpreter)
    if not st.check_directions:
        return
    for frame in reversed(st.frames):
        for index, array in frame.readonly:
            if np.shares_memory(dest, array):
                raise fail(
                    interpreter, op,
                    f"writes into the storage of parameter #{index} of @{frame.func}, which is "
                    f"declared 'in' (direction check)",
                )


def bind_arguments(
    interpreter: Interpreter, op: Operation, callee: FuncOp, args: Sequence[Any], frame: Frame
) -> None:
    params = callee.body.blocks[0].args if callee.body.blocks else ()
    for i, (t, value) in enumerate(zip(callee.function_type.inputs.data, args)):
        hint = params[i].name_hint if i < len(params) else None
        name = f" (%{hint})" if hint else ""
        check_value(interpreter, op, f"argument #{i}{name} of @{callee.sym_name.data}", t, value, frame)
    for symbol, bound in dim_bounds(callee).items():
        extent = frame.binding.get(symbol)
        if extent is not None and extent > bound:
            raise fail(
                interpreter, op,
                f"the dynamic dimension {symbol} is {extent} ({frame.origins.get(symbol, 'an argument')}), "
                f"above its bound {bound} ({DIM_BOUNDS_ATTR} of @{callee.sym_name.data}: its tiles are sized for "
                f"at most {bound})",
            )


def short_views(op: CallOp | SubmitOp, callee: FuncOp, args: Sequence[Any]) -> list[Any]:
    """PyPTO's view of a run-time extent shorter than the parameter's static one: a tensor
    passed as `[16, ?]` with 72 columns for an `in` parameter `[16, 128]` (the paged-attention
    `pl.slice(sij, [16, valid_len], ...)` of a ragged block) is the parameter's shape valid in
    its first 72 columns, so loads from it are partial there. Its storage ends at the
    argument's extent: the kernel sees a read-only copy whose cells past it are unspecified.
    Other mismatches stay errors of the call (`check_value`)."""
    from pypto_xdsl.interpreter.numerics import unspecified
    from pypto_xdsl.interpreter.partial import PartialTile, valid_block, valid_of

    out = list(args)
    for i, (value, operand, formal, direction) in enumerate(
        zip(args, op.args, callee.function_type.inputs.data, callee.directions)
    ):
        actual = operand.type
        if not (
            direction == ParamDirection.IN and isinstance(formal, TensorType) and isinstance(actual, TensorType)
            and isinstance(value, np.ndarray) and value.ndim == formal.rank == actual.rank
        ):
            continue
        dims = [
            f if isinstance(f, int) and a is None and n < f else n
            for f, a, n in zip(formal.get_shape(), actual.get_shape(), value.shape)
        ]
        if tuple(dims) == value.shape:
            continue
        padded = unspecified(tuple(dims), value.dtype)
        padded[valid_block(value.shape)] = np.asarray(value)
        padded.flags.writeable = False
        part = padded.view(PartialTile)
        part.valid = tuple(valid_of(value) or value.shape)
        out[i] = part
    return out


# --------------------------------------------------------------------------- program ops


@register_impls
class PyptoFunctions(InterpreterFunctions):
    """pypto.func / call / return / submit / incore_scope / yield."""

    @impl_callable(FuncOp)
    def call_func(self, interpreter: Interpreter, op: FuncOp, args: PythonValues) -> PythonValues:
        st = state(interpreter)
        name = op.sym_name.data
        n_formals = len(op.function_type.inputs)
        if len(args) != n_formals:
            raise fail(interpreter, op, f"@{name} takes {n_formals} arguments, got {len(args)}")
        frame = Frame(name, lenient=op.func_kind == FuncKind.INLINE)
        caller = st.frames[-1].func if st.frames else None

        try:
            bind_arguments(interpreter, op, op, args, frame)
        except PyptoInterpretationError as e:
            where = f" (called from @{caller})" if caller else ""
            raise PyptoInterpretationError(e.detail + where, op, name) from e
        if st.check_directions:
            frame.readonly = [
                (i, a)
                for i, (a, d) in enumerate(zip(args, op.directions))
                if d == ParamDirection.IN and isinstance(a, np.ndarray)
            ]
        st.frames.append(frame)
        alone = op.is_incore and st.cross_core is None
        try:
            if op.func_kind == FuncKind.GROUP:
                from pypto_xdsl.interpreter.cross_core import run_group

                results = run_group(interpreter, op, args)
            elif alone:
                from pypto_xdsl.interpreter.cross_core import Channels, check_balanced

                st.cross_core = Channels()  # the function's own rings: nobody else pushes or pops
                results = interpreter.run_ssacfg_region(op.body, tuple(args), name)
                check_balanced(interpreter, op, st.cross_core, f"@{name}")
            else:
                results = interpreter.run_ssacfg_region(op.body, tuple(args), name)
            for i, (t, value) in enumerate(zip(op.function_type.outputs.data, results)):
                check_value(interpreter, op, f"result #{i} of @{name}", t, value, frame)
        except (Exception, Unwinding):
            if st.error_func is None:
                st.error_func = name  # innermost function of a failure (for diagnostics)
            raise
        finally:
            st.frames.pop()
            if alone:
                st.cross_core = None
        return results

    @impl_terminator(ReturnOp)
    def run_return(
        self, interpreter: Interpreter, op: ReturnOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    def _callee(self, interpreter: Interpreter, op: CallOp | SubmitOp) -> FuncOp:
        name = op.callee.string_value()
        callee = lookup_symbol(op, name) if op.parent_op() is not None else None
        if callee is None:
            callee = interpreter.get_op_for_symbol(name)
        if not isinstance(callee, FuncOp):
            raise fail(interpreter, op, f"'@{name}' is not a pypto.func")
        return callee

    @staticmethod
    def _launch(
        interpreter: Interpreter, op: CallOp | SubmitOp, callee: FuncOp, args: tuple, cores: int | None
    ) -> tuple[PythonValues, list[DeferredCondition]]:
        """Run the callee once, or once per block of an SPMD launch (`pypto.block_dim = N`,
        or `cores(%n)` read at run time); return its results and the conditions it registered.

        Blocks run one after another, block 0 first, each seeing its own `get_block_idx`;
        their writes land in the same storage, as on the device.
        """
        if len(state(interpreter).frames) >= MAX_NESTING_DEPTH:
            raise fail(interpreter, op, f"calls nested more than {MAX_NESTING_DEPTH:,} deep: unbounded recursion?")
        st = state(interpreter)
        blocks = cores if cores is not None else launch_block_dim(op, callee)
        st.registrations.append([])
        saved = st.block_idx, st.block_num
        try:
            if blocks == 1:
                results = interpreter.call_op(callee, args)
            else:
                results = ()
                for b in range(blocks):
                    st.block_idx, st.block_num = b, blocks
                    results = interpreter.call_op(callee, args)
        finally:
            st.block_idx, st.block_num = saved
            registered = st.registrations.pop()
        return results, registered

    @staticmethod
    def _core_count(interpreter: Interpreter, op: Operation, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise fail(
                interpreter, op,
                f"the launch's core count cores(...) is {value!r}; it must be a positive integer",
            )
        return value

    @staticmethod
    def _check_deps(interpreter: Interpreter, op: Operation, deps: Sequence[Any]) -> None:
        for i, dep in enumerate(deps):
            if not isinstance(dep, TaskId) or not dep.done:
                raise fail(interpreter, op, f"dependency #{i} ({dep}) is not a completed task")
            unmet = dep.unmet()
            if unmet is not None:
                raise fail(
                    interpreter, op,
                    f"dependency #{i} ({dep}) never completes: its deferred wait {unmet.describe()} "
                    f"does not hold when this task is launched (the interpreter runs one rank, so "
                    f"only a notify before this launch can satisfy it)",
                )

    # ---- arrays of task ids: tuples of TaskId, "no task" a completed placeholder

    @impl(TaskIdsCreateOp)
    def run_task_ids_create(self, interpreter: Interpreter, op: TaskIdsCreateOp, args: PythonValues) -> PythonValues:
        return (tuple(NO_TASK for _ in range(op.result.type.extent.data)),)

    @staticmethod
    def _element(interpreter: Interpreter, op: Operation, array: tuple, index: Any) -> int:
        if not isinstance(index, int) or not 0 <= index < len(array):
            raise fail(interpreter, op, f"index {index!r} is out of bounds of an array of {len(array)} task ids")
        return index

    @impl(TaskIdsSetOp)
    def run_task_ids_set(self, interpreter: Interpreter, op: TaskIdsSetOp, args: PythonValues) -> PythonValues:
        array, index, value = args
        i = self._element(interpreter, op, array, index)
        return (array[:i] + (value,) + array[i + 1 :],)

    @impl(TaskIdsGetOp)
    def run_task_ids_get(self, interpreter: Interpreter, op: TaskIdsGetOp, args: PythonValues) -> PythonValues:
        array, index = args
        return (array[self._element(interpreter, op, array, index)],)

    @impl(TaskDummyOp)
    def run_task_dummy(self, interpreter: Interpreter, op: TaskDummyOp, args: PythonValues) -> PythonValues:
        self._check_deps(interpreter, op, args)
        st = state(interpreter)
        task = TaskId(len(st.tasks), "task_dummy", tuple(args), done=True)
        st.tasks.append(task)
        return (task,)

    @impl(CallOp)
    def run_call(self, interpreter: Interpreter, op: CallOp, args: PythonValues) -> PythonValues:
        n_args = len(op.args)
        callee = self._callee(interpreter, op)
        cores = self._core_count(interpreter, op, args[-1]) if launch_cores(op) is not None else None
        # A call is no task: conditions its callee registers bind nobody (a terminal waiter).
        results, _ = self._launch(interpreter, op, callee, tuple(short_views(op, callee, args[:n_args])), cores)
        return results

    @impl(SubmitOp)
    def run_submit(self, interpreter: Interpreter, op: SubmitOp, args: PythonValues) -> PythonValues:
        st = state(interpreter)
        n_args = len(op.args)
        call_args = list(args[:n_args])
        deps = args[n_args : n_args + len(op.deps)]
        callee = self._callee(interpreter, op)
        self._check_deps(interpreter, op, deps)
        cores = self._core_count(interpreter, op, args[-1]) if launch_cores(op) is not None else None
        formals = callee.function_type.inputs.data
        if len(call_args) < len(formals):
            # Trailing `out` parameters omitted: the runtime allocates them.
            frame = Frame(callee.sym_name.data, lenient=True)
            bind_arguments(interpreter, op, callee, call_args, frame)
            for i in range(len(call_args), len(formals)):
                t = formals[i]
                if not isinstance(t, TensorType) or callee.directions[i] != ParamDirection.OUT:
                    raise fail(interpreter, op, f"omitted argument #{i} is not an out tensor")
                shape = resolve_shape(t.get_shape(), frame.binding)
                if shape is None:
                    raise fail(
                        interpreter, op,
                        f"cannot allocate omitted out parameter #{i} of "
                        f"@{callee.sym_name.data}: unbound symbol in {format_shape(t.get_shape())}",
                    )
                call_args.append(zeros(shape, t.element_type))
        results, registered = self._launch(interpreter, op, callee, tuple(call_args), cores)
        task = TaskId(len(st.tasks), callee.sym_name.data, tuple(deps), done=True, deferred=tuple(registered))
        st.tasks.append(task)
        return (*results, task)

    @impl(IncoreScopeOp)
    def run_incore_scope(
        self, interpreter: Interpreter, op: IncoreScopeOp, args: PythonValues
    ) -> PythonValues:
        st = state(interpreter)
        deps = args[: len(op.deps)]
        self._check_deps(interpreter, op, deps)
        name = op.name_hint.data if op.name_hint is not None else "incore_scope"
        if launch_cores(op) is not None:
            blocks = self._core_count(interpreter, op, args[-1])
        else:
            blocks = launch_block_dim(op, None)
        st.registrations.append([])
        saved = st.block_idx, st.block_num
        try:
            if blocks == 1:
                results = interpreter.run_ssacfg_region(op.body, (), name)
            else:  # an SPMD scope: the body runs once per block, as its outlined kernel will
                for b in range(blocks):
                    st.block_idx, st.block_num = b, blocks
                    results = interpreter.run_ssacfg_region(op.body, (), name)
        finally:
            st.block_idx, st.block_num = saved
            registered = st.registrations.pop()
        if op.task_id is None:
            return tuple(results)
        task = TaskId(len(st.tasks), name, tuple(deps), done=True, deferred=tuple(registered))
        st.tasks.append(task)
        return (*results, task)

    @impl(ManualScopeOp)
    def run_manual_scope(
        self, interpreter: Interpreter, op: ManualScopeOp, args: PythonValues
    ) -> PythonValues:
        """Run once, in place: tasks run in program order here anyway, so manual dependency
        mode changes nothing the interpreter can observe (deps are still checked)."""
        return tuple(interpreter.run_ssacfg_region(op.body, (), "manual_scope"))

    @impl(SplitAivOp)
    def run_split_aiv(self, interpreter: Interpreter, op: SplitAivOp, args: PythonValues) -> PythonValues:
        """The region runs once per AIV lane of the core pair (2), lane 0 first, each lane with
        its own index; their writes land in the same storage."""
        for lane in range(SPLIT_AIV_LANES):
            interpreter.run_ssacfg_region(op.body, (lane,), "split_aiv")
        return ()

    @impl_terminator(YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
