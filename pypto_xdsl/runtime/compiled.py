"""A compiled specialisation of a jit function, and running it on a target."""

from __future__ import annotations

import copy
import sys
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, InterpretationError

from pypto_xdsl.dialects.attributes import ParamDirection, TensorType
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.runtime import arrays
from pypto_xdsl.runtime.config import RunConfig
from pypto_xdsl.runtime.passes import apply_pipeline

if TYPE_CHECKING:
    from pypto_xdsl.runtime.jit import Binding, JitRuntime, ParamPlan
    from pypto_xdsl.runtime.simulate import SimBuild


class SimulationMismatch(AssertionError):
    """`RunConfig(verify=True)`: the simulated program and the interpreter disagree."""


def compile_specialisation(rt: JitRuntime, binding: Binding, config: RunConfig) -> Compiled:

    module = rt.specialise(binding, static_dims=binding.static_dims)
    what = rt.describe_binding(binding)
    try:
        apply_pipeline(module, config.pipeline)
    except (DiagnosticException, ValueError, NotImplementedError) as e:
        raise rt.error_at_def(f"cannot compile {what}: pipeline '{config.pipeline}': {e}") from None
    return Compiled(rt, module, rt.fn.__name__, [p for p in binding.plans if not p.bound], config.target, what)


def _kept_dir(config: RunConfig, name: str) -> Path:
    if config.build_dir is not None:
        return config.build_dir
    return Path("build_output") / f"{name}_{time.strftime('%Y%m%d_%H%M%S')}"


class _RankFailed(BaseException):
    """A rank's program failed on the sim target: its located error, carried out of the
    host function's interpreter (which would wrap an Exception in a print of the module)."""

    def __init__(self, error: ParserError):
        super().__init__(error)
        self.error = error


class _Scalar:
    """A scalar argument passed at run time (a `@pl.program` entry's scalar parameter)."""

    def __init__(self, value: Any):
        self.array = value
        self.original = value
        self.write_back = None


class Compiled:
    """One specialisation: the module after the pipeline and, on the sim target, its build.

    `.module` is the IR, `.files` the Ascend C kernels and host code the backend emits
    (`{relative path: text}`), `.write(dir)` writes them; calling the object runs it.
    """

    def __init__(self, rt: JitRuntime, module: ModuleOp, entry: str, plans: list[ParamPlan], target: str, what: str):
        self.runtime = rt
        self.module = module
        self.entry = entry
        self.plans = plans
        self.target = target
        self.what = what
        self.sim: SimBuild | None = None
        self.cache_key: tuple | None = None
        """The key of the jit cache this specialisation is stored under."""
        self.group: Any = None
        """A host function's rank group (its DistributedConfig), None for one device."""
        self.windows: dict[int, Any] = {}
        """The entry's window parameters (index -> their `!pypto.dist_tensor` type) before
        `localize-windows` made them byte offsets of the rank's communication region."""

    def __repr__(self) -> str:
        return f"<compiled {self.what} for the {self.target} target>"

    # ---- products

    @cached_property
    def emitted(self) -> Any:
        from pypto_xdsl.backend.ascendc.emit import PartialCodegenError
        from pypto_xdsl.runtime.passes import emit_ascendc

        try:
            return emit_ascendc(self.module, entry=self.entry)
        except PartialCodegenError as e:
            located = self.runtime.error_at_def(f"cannot emit Ascend C for {self.what}: {e}")
            raise PartialCodegenError(str(located), e.files) from None
        except DiagnosticException as e:
            raise self.runtime.error_at_def(f"cannot emit Ascend C for {self.what}: {e}") from None

    @property
    def files(self) -> dict[str, str]:
        """The generated Ascend C kernels, ACL host code, CMakeLists.txt and README."""
        return dict(self.emitted.files)

    @property
    def kernels(self) -> list[str]:
        return list(self.emitted.kernels)

    def ascendc(self) -> str:
        """Every generated file, each after a `// ===== file: <path> =====` marker."""
        from pypto_xdsl.backend.ascendc.emit import FILE_MARKER

        return "".join(FILE_MARKER.format(path=p) + "\n" + t for p, t in self.files.items())

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write the generated files (and the simulation headers) under `out_dir`."""
        from pypto_xdsl.backend.ascendc import sim

        out = Path(out_dir)
        written = []
        for rel, text in self.files.items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
        sim.copy_headers(out)
        return written

    def __str__(self) -> str:
        from io import StringIO

        from xdsl.printer import Printer

        out = StringIO()
        Printer(stream=out).print_op(self.module)
        return out.getvalue()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        config = kwargs.setdefault("config", RunConfig(target=self.target))
        if self.group is not None and isinstance(config, RunConfig) and config.distributed_config is None:
            # a host program runs on the group it was compiled for
            config = copy.copy(config)
            config.distributed_config = self.group
            kwargs["config"] = config
        return self.runtime.call(args, kwargs)

    # ---- the sim target

    def _sim_dispatcher(self, launches: list[tuple[str, int, tuple[Any, ...]]]) -> Any:
        """A host function on the sim target: the interpreter runs the host's code and each
        dispatch is recorded; the ranks then run together (`_run_group`), as they do at the
        end of the host function on the interpreter."""

        def dispatch(callee: str, rank: int, args: tuple[Any, ...]) -> None:
            launches.append((callee, rank, args))

        return dispatch

    def _run_group(self, launches: list[tuple[str, int, tuple[Any, ...]]], config: RunConfig) -> None:
        """Every dispatched rank program as a simulated device of its own (a process of its
        build), all at once, sharing the group's windows through one communication domain
        (runtime/comm_domain.py); a rank's launches run one after another."""
        from pypto_xdsl.backend.ascendc.sim import SimulationError
        from pypto_xdsl.interpreter.ranks import WindowArray
        from pypto_xdsl.runtime.comm_domain import CommDomain

        if not launches:
            return
        sim_config = copy.copy(config)
        sim_config.distributed_config = None
        domain = CommDomain(self.group.world_size)
        buffers: dict[int, Any] = {}
        plans = []
        for callee, rank, args in launches:
            fn = self.runtime.dispatched_function(callee)
            rt = fn.runtime()
            windows = {rt.names[k]: a for k, a in enumerate(args) if isinstance(a, WindowArray) and a.buffer is not None}
            plain = [np.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            try:
                binding, compiled = rt._sim_compiled(plain, {}, sim_config)
            except ParserError as e:  # located in the rank's function
                raise e from None
            inputs: list[Any] = []
            for i, p in enumerate(compiled.plans):
                if i in compiled.windows:
                    w = windows[p.name]
                    buffers[id(w.buffer)] = w.buffer
                    nbytes = w.buffer.arrays[0].nbytes
                    inputs.append(domain.place(id(w.buffer), nbytes, f"{callee}.{p.name}"))
                elif p.tensor:
                    inputs.append(binding.arrays[p.name].array)
                else:
                    inputs.append(binding.scalars[p.name])
            plans.append((rank, compiled, binding, inputs))
        domain.create({rank for rank, *_ in plans})
        try:
            for buf in buffers.values():
                for r, array in enumerate(buf.arrays):
                    domain.write(r, domain.offsets[id(buf)], array)
            self._run_ranks(plans, domain)
            for buf in buffers.values():
                for r, array in enumerate(buf.arrays):
                    array[...] = domain.read(r, domain.offsets[id(buf)], array)
        except SimulationError as e:
            raise self.runtime.error_at_def(f"running {self.what} on the sim target: {e}") from None
        finally:
            domain.close()

    @staticmethod
    def _run_ranks(plans: list[tuple[int, Compiled, Any, list[Any]]], domain: Any) -> None:
        """Start each rank's first program, then each one's next as the previous ends; the
        first failure stops the others (a rank that waits for a failed one would wait on)."""
        from pypto_xdsl.backend.ascendc.sim import SimulationError
        from pypto_xdsl.runtime.simulate import start_build

        queues: dict[int, list[tuple[Compiled, Any, list[Any]]]] = {}
        for rank, compiled, binding, inputs in plans:
            queues.setdefault(rank, []).append((compiled, binding, inputs))
        running: dict[int, tuple[Any, Compiled, Any]] = {}

        def start(rank: int) -> None:
            compiled, binding, inputs = queues[rank].pop(0)
            assert compiled.sim is not None
            env = domain.env(rank, last=not queues[rank])
            running[rank] = (start_build(compiled.sim, inputs, dims=binding.symbols, env=env), compiled, binding)

        for rank in queues:
            start(rank)
        try:
            while running:
                finished = [r for r, (proc, _, _) in running.items() if proc.proc.poll() is not None]
                if not finished:
                    time.sleep(0.01)
                    continue
                for rank in finished:
                    proc, compiled, binding = running.pop(rank)
                    try:
                        outputs = proc.finish()
                    except SimulationError as e:
                        raise SimulationError(f"rank {rank} ({compiled.what}): {e}") from None
                    for p, out in zip(compiled.plans, outputs):
                        if out is not None:
                            a = binding.arrays[p.name]
                            np.copyto(a.array, out, casting="unsafe")
                            if a.write_back is not None:
                                a.write_back(a.array)
                    if queues[rank]:
                        start(rank)
        finally:
            for proc, _, _ in running.values():
                proc.stop()

    def _localize_windows(self) -> None:
        """A rank's program built as one device: its windows become its own global memory."""
        from pypto_xdsl.dialects.distributed import DistributedTensorType
        from pypto_xdsl.dialects.program import FuncOp
        from pypto_xdsl.frontend.errors import source_of
        from pypto_xdsl.runtime.passes import apply_passes

        if not any(
            isinstance(t, DistributedTensorType)
            for f in self.module.ops if isinstance(f, FuncOp) for t in f.function_type.inputs.data
        ):
            return
        from pypto_xdsl.transforms.localize_windows import window_parameters

        for f in self.module.ops:
            if isinstance(f, FuncOp) and f.sym_name.data == self.entry:
                self.windows = window_parameters(f)
        try:
            apply_passes(self.module, ["localize-windows"])
        except DiagnosticException as e:
            found = source_of(getattr(e, "op", None))
            if found is not None:
                srcmap, node = found
                raise srcmap.error(node, f"cannot build {self.what} for the sim target: {e}") from None
            raise self.runtime.error_at_def(f"cannot build {self.what} for the sim target: {e}") from None
        self.__dict__.pop("emitted", None)

    def build(self, config: RunConfig) -> None:
        from pypto_xdsl.backend.ascendc.emit import choose_entry
        from pypto_xdsl.backend.ascendc.host_tensors import result_params_across_calls
        from pypto_xdsl.runtime import cache
        from pypto_xdsl.runtime.simulate import describe_build, emit_and_build

        self._localize_windows()
        try:
            func = choose_entry(self.module, self.entry)
        except DiagnosticException:
            func = None
        if func is None or func.sym_name.data != self.entry:
            raise self.runtime.error_at_def(
                f"{self.what} has no orchestration function to run on the sim target "
                "(call it from a @pl.jit entry, or use the interpreter target)"
            )
        self.results = result_params_across_calls(func)
        for i, param in enumerate(self.results):
            if param is None or not isinstance(func.args[param].type, TensorType):
                raise self._results_error(
                    f"result #{i} of {self.what} is not one of its tensor parameters: the sim target "
                    "returns results through pl.Out / pl.InOut parameters (write it into one, or use "
                    "the interpreter target)"
                )
        self.emitted  # backend errors before g++ runs
        key = cache.build_key(str(self), self.entry)
        try:
            directory, hit = cache.cached_build(key, lambda d: emit_and_build(self.module, self.entry, d))
        except Exception as e:
            from pypto_xdsl.backend.ascendc.sim import SimulationError

            if isinstance(e, SimulationError | DiagnosticException):
                raise self.runtime.error_at_def(f"cannot build {self.what} for the sim target: {e}") from None
            raise
        stats = self.runtime.stats
        if hit:
            stats.sim_disk_hits += 1
        else:
            stats.sim_builds += 1
        self.sim = describe_build(self.module, self.entry, directory, hit)

    def _results_error(self, message: str) -> Exception:
        """The error for results the host code cannot return: a PartialCodegenError (with
        this message) when the backend prints the kernels and fails on the host code only."""
        from pypto_xdsl.backend.ascendc.emit import PartialCodegenError

        error = self.runtime.error_at_def(message)
        try:
            self.emitted
        except PartialCodegenError as e:
            return PartialCodegenError(str(error), e.files)
        except ParserError:
            pass  # another backend error: the message about the results says more
        return error

    # ---- running

    def run(self, binding: Binding, config: RunConfig) -> Any:
        args = [binding.arrays[p.name] if p.tensor else _Scalar(binding.scalars[p.name]) for p in self.plans]
        if self.target == "sim" and self.group is not None:
            launches: list[tuple[str, int, tuple[Any, ...]]] = []
            try:
                results = self._run_interpreter(binding, args, dispatcher=self._sim_dispatcher(launches))
            except _RankFailed as failed:
                raise failed.error from None
            self._run_group(launches, config)
        elif self.target == "sim":
            results = self._run_sim(binding, args, config)
        else:
            results = self._run_interpreter(binding, args)
        for p in self.plans:
            a = binding.arrays[p.name]
            if p.tensor and p.direction != ParamDirection.IN and a.write_back is not None:
                a.write_back(a.array)
        if config.save_kernels:
            self._keep(config)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def _run_interpreter(self, binding: Binding, args: list[arrays.ArrayArg], dispatcher: Any = None) -> list[Any]:
        from pypto_xdsl.runtime._imports import light_xdsl_interpreters

        light_xdsl_interpreters()
        from pypto_xdsl.interpreter import run as interpret

        try:
            world = self.group.world_size if self.group is not None else None
            raw = interpret(self.module, self.entry, [a.array for a in args], world_size=world, dispatcher=dispatcher)
        except InterpretationError as e:
            raise self.runtime.error_at_def(f"running {self.what}: {e}") from None
        return [self._result(r, binding, args) for r in raw]

    def _result(self, value: Any, binding: Binding, args: list[arrays.ArrayArg]) -> Any:
        if isinstance(value, np.ndarray):
            for a in args:
                if not isinstance(a.array, np.ndarray):
                    continue
                if value is a.array or (value.shape == a.array.shape and np.may_share_memory(value, a.array)):
                    return a.original
            return arrays.to_caller_kind(value, binding.kind)
        if isinstance(value, np.generic):
            return value.item()
        return value

    def _run_sim(self, binding: Binding, args: list[arrays.ArrayArg], config: RunConfig) -> list[Any]:
        from pypto_xdsl.backend.ascendc.sim import SimulationError
        from pypto_xdsl.runtime.simulate import run_build

        assert self.sim is not None
        reference = None
        if config.verify:
            from pypto_xdsl.interpreter import run as interpret

            copies = [np.array(a.array, copy=True) if isinstance(a.array, np.ndarray) else a.array for a in args]
            interpret(self.module, self.entry, copies)
            reference = copies
        inputs = [a.array for a in args]
        domain = None
        if self.windows:
            # alone, the rank is rank 0 of a group of one: its windows, in its communication
            # region, start as the arrays passed and are copied back (they are written in place)
            from pypto_xdsl.runtime.comm_domain import CommDomain

            domain = CommDomain(1)
            for i in self.windows:
                inputs[i] = domain.place(i, np.asarray(args[i].array).nbytes, self.plans[i].name)
            domain.create({0})
            for i in self.windows:
                domain.write(0, domain.offsets[i], np.asarray(args[i].array))
        try:
            outputs = run_build(self.sim, inputs, dims=binding.symbols, env=domain.env(0, True) if domain else None)
            if domain is not None:
                for i in self.windows:
                    arr = args[i].array
                    np.copyto(arr, domain.read(0, domain.offsets[i], np.ascontiguousarray(arr)))
        except SimulationError as e:
            raise self.runtime.error_at_def(f"running {self.what} on the sim target: {e}") from None
        finally:
            if domain is not None:
                domain.close()
        for a, p, out in zip(args, self.plans, outputs):
            if out is None:
                continue
            np.copyto(a.array, out, casting="unsafe")
            if reference is not None:
                want = reference[self.plans.index(p)]
                if not np.allclose(out, want, rtol=config.rtol, atol=config.atol, equal_nan=True):
                    err = float(np.nanmax(np.abs(out.astype(np.float64) - want.astype(np.float64))))
                    raise SimulationMismatch(
                        f"{self.what}: the sim target's '{p.name}' differs from the interpreter's "
                        f"(max abs error {err:.3g}, rtol {config.rtol}, atol {config.atol})"
                    )
        return [args[i].original for i in self.results]

    def _keep(self, config: RunConfig) -> None:
        import shutil

        directory = _kept_dir(config, self.entry)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "program.mlir").write_text(str(self))
        if self.sim is not None:
            shutil.copytree(self.sim.directory, directory, dirs_exist_ok=True)
        print(f"pypto-xdsl: kept {self.what} ({self.target} target) in {directory}/", file=sys.stderr)
