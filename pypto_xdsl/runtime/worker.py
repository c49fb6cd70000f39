"""`ChipWorker`: explicit dispatch of compiled programs, in the spelling of PyPTO's runtime.

    worker = ChipWorker(config=RunConfig())
    handle = worker.register(my_kernel.compile(a, b, out))   # checked and built once
    handle(a, b, out)                                          # runs that specialisation
    w = worker.alloc_tensor((128, 128), torch.float32, init=weights)
    handle(x, w, out)
    worker.close()                                             # frees w, closes the handles

There is no device here: the worker is a host-side layer over the `Compiled` objects of
`@pl.jit` functions (`fn.compile(...)`), running them on the worker's target (the
interpreter or the CPU simulation, `RunConfig(target=...)`, `$PYPTO_XDSL_TARGET` by
default). A "device tensor" is a buffer the worker owns and passes to programs in place,
so a weight uploaded once is reused by every dispatch. Misuse (running after `close`,
freeing a tensor twice, a handle of another worker, arguments of another specialisation)
is an error that says so.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.locate import located
from pypto_xdsl.runtime.config import RunConfig


class ChipWorkerError(ParserError, RuntimeError):
    """Misuse of a ChipWorker, a RegistrationHandle or a DeviceTensor (also a RuntimeError)."""


class ChipWorkerArgumentError(ParserError, TypeError):
    """An argument a ChipWorker method cannot take (also a TypeError)."""


class DeviceTensor:
    """A buffer owned by a ChipWorker (`worker.alloc_tensor`); pass it to a program like an
    array. Its contents: `worker.read_tensor(t)`."""

    def __init__(self, worker: ChipWorker, array: np.ndarray, dtype: Any):
        self._worker = worker
        self._array = array
        self._dtype = dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._array.shape)

    @property
    def dtype(self) -> Any:
        """The dtype given to `alloc_tensor` (a torch dtype stays one)."""
        return self._dtype

    @property
    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def __repr__(self) -> str:
        shown = self._array.dtype if isinstance(self._dtype, type) else self._dtype  # np.float32 -> float32
        return f"DeviceTensor(shape={self.shape}, dtype={shown})"


class RegistrationHandle:
    """A compiled program registered on a ChipWorker; calling it runs the program there."""

    __test__ = False

    def __init__(self, worker: ChipWorker, compiled: Any):
        self._worker = worker
        self._compiled = compiled
        self._closed = False

    @property
    def compiled(self) -> Any:
        return self._compiled

    @property
    def closed(self) -> bool:
        return self._closed

    def __call__(self, *args: Any, config: RunConfig | None = None) -> Any:
        if self._closed:
            raise located(
                f"this handle of {self._compiled.what} was unregistered or its ChipWorker closed; "
                "register the program again (worker.register(compiled)) on an open worker",
                ChipWorkerError,
            )
        return self._worker.run(self._compiled, *args, config=config)

    def unregister(self) -> None:
        """Close this handle (the worker keeps the program registered until `close`)."""
        self._closed = True

    def __enter__(self) -> RegistrationHandle:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.unregister()

    def __repr__(self) -> str:
        return f"<RegistrationHandle of {self._compiled.what}{', closed' if self._closed else ''}>"


class ChipWorker:
    """One chip, run on the target of `config` (`RunConfig().target` by default): register
    compiled programs, dispatch them, own buffers reused across dispatches.

    Usable as a context manager (`with ChipWorker() as w:` closes it at the end); `close()`
    frees the buffers it still owns and closes its handles; `init()` opens it again.
    """

    def __init__(self, config: RunConfig | None = None, *, level: int = 2, **_options: Any):
        if level != 2:
            raise located(
                f"ChipWorker(level={level}): a ChipWorker is one chip (level=2); "
                "multi-chip workers are not modelled (a @pl.jit.host program runs its ranks when called)",
                ChipWorkerArgumentError,
            )
        if config is not None and not isinstance(config, RunConfig):
            raise located(f"ChipWorker(config=...) takes a RunConfig, got {config!r}", ChipWorkerArgumentError)
        self._config = config if config is not None else RunConfig()
        self._registered: dict[int, Any] = {}  # id(compiled) -> compiled
        self._handles: list[RegistrationHandle] = []
        self._tensors: dict[int, DeviceTensor] = {}  # id(tensor) -> tensor
        self._registrations = 0
        self._open = True

    # ---- lifecycle

    @property
    def target(self) -> str:
        return self._config.target

    @property
    def initialized(self) -> bool:
        return self._open

    def init(self) -> None:
        """Open the worker again after `close` (a new worker starts open)."""
        self._open = True

    def close(self) -> None:
        """Free the buffers this worker still owns and close its handles (idempotent)."""
        for handle in self._handles:
            handle._closed = True
        self._handles.clear()
        self._registered.clear()
        self._tensors.clear()
        self._open = False

    def __enter__(self) -> ChipWorker:
        self.init()
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def _require_open(self, op: str) -> None:
        if not self._open:
            raise located(
                f"ChipWorker.{op}(): the worker is closed; use a new ChipWorker, "
                "`with ChipWorker() as worker:`, or worker.init() first",
                ChipWorkerError,
            )

    # ---- programs

    @property
    def aicpu_dlopen_count(self) -> int:
        """How many distinct programs this worker has registered (each is loaded once: a
        second `register` of the same program, and every dispatch, load nothing)."""
        return self._registrations

    def register(self, compiled: Any) -> RegistrationHandle:
        """Register `compiled` (`fn.compile(...)` of a `@pl.jit` function, or what
        `run(program, ...)` returns for a `@pl.program`): check that it runs on
        this worker's target and build it now (on the sim target), so dispatching it later
        compiles nothing. Returns the callable handle."""
        self._require_open("register")
        self._check(compiled, "register")
        if id(compiled) not in self._registered:
            if compiled.target == "sim" and compiled.sim is None:
                compiled.build(self._config)
            self._registered[id(compiled)] = compiled
            self._registrations += 1
        handle = RegistrationHandle(self, compiled)
        self._handles.append(handle)
        return handle

    def run(self, compiled: Any, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        """Run `compiled` on this worker with `args` (arrays, torch tensors, scalars, or this
        worker's DeviceTensors); returns what calling the program returns. The arguments must
        have the shapes and dtypes `compiled` was compiled for."""
        self._require_open("run")
        self._check(compiled, "run")
        if config is None:
            config = RunConfig(target=compiled.target, pipeline=self._config.pipeline)
        elif not isinstance(config, RunConfig):
            raise located(f"ChipWorker.run(config=...) takes a RunConfig, got {config!r}", ChipWorkerArgumentError)
        elif config.target != compiled.target:
            raise located(
                f"ChipWorker.run(): config targets '{config.target}' but {compiled.what} is compiled "
                f"for the {compiled.target} target",
                ChipWorkerArgumentError,
            )
        args = tuple(self._resident(a, "run") for a in args)
        kwargs = {k: self._resident(v, "run") for k, v in kwargs.items()}
        if compiled.cache_key is None:
            # a @pl.program's, from run(program, ...): its own call takes both of PyPTO's styles
            return compiled.runtime.call(args, {**kwargs, "config": config})
        binding = self._binding(compiled, args, kwargs)
        if config.codegen_only:
            return None
        return compiled.run(binding, config)

    def _check(self, compiled: Any, op: str) -> None:
        from pypto_xdsl.runtime.compiled import Compiled

        if not isinstance(compiled, Compiled):
            hint = " (call fn.compile(*sample_args) first)" if hasattr(compiled, "compile") else ""
            raise located(
                f"ChipWorker.{op}() takes a compiled program (fn.compile(...) of a @pl.jit function, "
                "or run(program) of a @pl.program), "
                f"got {type(compiled).__name__}{hint}",
                ChipWorkerArgumentError,
            )
        if compiled.target != self.target:
            raise located(
                f"ChipWorker.{op}(): {compiled.what} is compiled for the {compiled.target} target and this "
                f"worker runs on the {self.target} target; compile it with config=RunConfig(target="
                f"'{self.target}') or use ChipWorker(config=RunConfig(target='{compiled.target}'))",
                ChipWorkerArgumentError,
            )

    def _binding(self, compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The arguments bound to `compiled`'s parameters; an error when they belong to another
        specialisation (running that would compile a program nobody registered)."""
        rt = compiled.runtime
        want = compiled.cache_key
        binding = None
        for static_dims in (False, True):
            binding = rt.bind(args, kwargs, static_dims=static_dims)
            if tuple(binding.key_parts) == want[2]:
                return binding
        raise located(
            f"ChipWorker.run(): the arguments {rt.describe_binding(binding)} do not match the program "
            f"registered, {compiled.what}; compile and register a program for them",
            ChipWorkerArgumentError,
        )

    # ---- buffers

    def alloc_tensor(self, shape: Sequence[int], dtype: Any, *, init: Any = None, worker_id: int = 0) -> DeviceTensor:
        """A buffer of `shape` and `dtype` (a torch, numpy or pl dtype) owned by this worker,
        zeroed or holding a copy of `init` (same shape and dtype). Pass it to programs like an
        array; it lives until `free_tensor` or `close`."""
        self._require_open("alloc_tensor")
        if worker_id != 0:
            raise located(f"ChipWorker.alloc_tensor(worker_id={worker_id}): a ChipWorker has worker 0 only",
                          ChipWorkerArgumentError)
        try:
            extents = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            raise located(f"ChipWorker.alloc_tensor(): shape must be a sequence of ints, got {shape!r}",
                          ChipWorkerArgumentError) from None
        if not extents or any(d <= 0 for d in extents):
            raise located(f"ChipWorker.alloc_tensor(): shape must be non-empty and positive, got {list(extents)}",
                          ChipWorkerArgumentError)
        np_dtype = _numpy_dtype(dtype)
        array = np.zeros(extents, dtype=np_dtype)
        if init is not None:
            from pypto_xdsl.runtime import arrays

            given = arrays.as_array(init, "init")
            if given is None:
                raise located(f"ChipWorker.alloc_tensor(init=...) takes an array, got {type(init).__name__}",
                              ChipWorkerArgumentError)
            if tuple(given.array.shape) != extents or given.array.dtype != np_dtype:
                raise located(
                    f"ChipWorker.alloc_tensor(): init is {given.array.dtype}{list(given.array.shape)}, "
                    f"the tensor {np_dtype}{list(extents)}; they must match",
                    ChipWorkerArgumentError,
                )
            np.copyto(array, given.array)
        tensor = DeviceTensor(self, array, dtype)
        self._tensors[id(tensor)] = tensor
        return tensor

    def free_tensor(self, tensor: DeviceTensor, *, worker_id: int = 0) -> None:
        """Release a buffer of `alloc_tensor`; using it afterwards is an error."""
        self._require_open("free_tensor")
        self._owned(tensor, "free_tensor")
        del self._tensors[id(tensor)]

    def read_tensor(self, tensor: DeviceTensor) -> np.ndarray:
        """A copy of a DeviceTensor's contents (pypto-xdsl's own; PyPTO reads with copy_from)."""
        self._require_open("read_tensor")
        return np.array(self._owned(tensor, "read_tensor")._array)

    def _owns(self, tensor: DeviceTensor) -> bool:
        return self._tensors.get(id(tensor)) is tensor

    def _owned(self, tensor: Any, op: str) -> DeviceTensor:
        if not isinstance(tensor, DeviceTensor):
            raise located(f"ChipWorker.{op}() takes a DeviceTensor of alloc_tensor, got {type(tensor).__name__}",
                          ChipWorkerArgumentError)
        if not self._owns(tensor):
            whose = "was already freed (free_tensor, or close)" if tensor._worker is self else "belongs to another ChipWorker"
            raise located(f"ChipWorker.{op}(): {tensor!r} {whose}", ChipWorkerError)
        return tensor

    def _resident(self, value: Any, op: str) -> Any:
        return self._owned(value, op)._array if isinstance(value, DeviceTensor) else value

    def __repr__(self) -> str:
        state = "open" if self._open else "closed"
        return f"<ChipWorker on the {self.target} target, {state}, {len(self._registered)} programs>"


def _numpy_dtype(dtype: Any) -> np.dtype:
    from pypto_xdsl.language import types as T
    from pypto_xdsl.runtime import arrays

    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dtype, torch.dtype):
        torch_name = str(dtype).removeprefix("torch.")
        name = arrays._TORCH_NAMES.get(torch_name)
        if name is None or name == "BF16":
            raise located(
                f"ChipWorker.alloc_tensor(): no buffer for the torch dtype {dtype}"
                + (" (numpy has no bfloat16; pass bf16 torch tensors to the program directly)" if name else ""),
                ChipWorkerArgumentError,
            )
        return np.dtype(torch_name)
    if isinstance(dtype, T.DataType):
        from pypto_xdsl.interpreter.values import numpy_dtype

        if dtype.name in ("BF16", "INDEX"):
            raise located(f"ChipWorker.alloc_tensor(): no buffer for {dtype}", ChipWorkerArgumentError)
        return numpy_dtype(dtype.to_ir())
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise located(f"ChipWorker.alloc_tensor(): {dtype!r} is not a dtype", ChipWorkerArgumentError) from None
    if np_dtype not in arrays._NUMPY_DTYPES:
        raise located(f"ChipWorker.alloc_tensor(): pl has no dtype for {np_dtype}", ChipWorkerArgumentError)
    return np_dtype
