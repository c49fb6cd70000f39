"""Orchestration printer: ACL host code for `pypto.func orchestration` functions.

For an orchestration function `@f` it prints `int run_f(aclrtStream stream, <host params>)`:
allocate device memory for every tensor parameter and `tensor.create`, copy `in`/`inout`
parameters in, launch each called kernel in program order with `ACLRT_LAUNCH_KERNEL` on the one
stream (in-order execution satisfies every data and `deps` dependency), synchronise, copy
`out`/`inout` parameters back, free. Every ACL call is checked; a failure prints the call
and the error code and returns it. The driver `main()` that reads inputs from files is
host_driver.py's; host_tensors.py models tensors as windows of device storage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from pypto_xdsl.analysis.cxx_names import kernel_cxx_name
from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.analysis.write_through import escapes_region
from pypto_xdsl.backend.ascendc.cxx import (
    BackendError,
    CxxWriter,
    Expr,
    Namer,
    byte_width,
    cast_to,
    ctype,
    op_error,
)
from pypto_xdsl.backend.ascendc.host_tensors import (
    DeviceTensor,
    HostView,
    extent_product,
    host_ctype,
    launch_result_params,
    launch_result_workspace,
    linear_offset,
    static_product,
)
from pypto_xdsl.dialects import program, tensor
from pypto_xdsl.dialects.ascendc_kernel import KernelOp, LaunchOp
from pypto_xdsl.dialects.ascendc_types import GmAddrType, KernelKind
from pypto_xdsl.dialects.attributes import FuncKind, ParamDirection, TensorType, TileType
from pypto_xdsl.dialects.launch import SYNC_START_ATTR
from pypto_xdsl.dialects.task_arrays import (
    TaskDummyOp,
    TaskIdArrayType,
    TaskIdsCreateOp,
    TaskIdsGetOp,
    TaskIdsSetOp,
)


def _read_only(value: SSAValue) -> bool:
    """Nothing writes through `value`: it is only read on the host, sliced into read-only
    windows, or passed to kernels that return none of it (the parameters they write)."""
    for use in value.uses:
        op = use.operation
        if isinstance(op, tensor.ReadOp | tensor.DimOp):
            continue
        if isinstance(op, tensor.SliceOp) and _read_only(op.result):
            continue
        if isinstance(op, LaunchOp | program.CallOp | program.SubmitOp):
            callee = lookup_symbol(op, op.callee)
            k = use.index - (len(op.operands) - len(op.args))  # type: ignore[attr-defined]
            if isinstance(callee, KernelOp) and k not in launch_result_params(callee):
                continue
            if isinstance(callee, program.FuncOp) and callee.directions[k] == ParamDirection.IN:
                continue
        return False
    return True


def block_dim(call: Operation, callee: program.FuncOp) -> int:
    try:
        return program.launch_block_dim(call, callee)
    except ValueError as e:  # a core count read at run time (cores(%n))
        raise op_error(call, f"{e}; the host code launches on a static block dim") from None


def kernel_signature(kernel: KernelOp) -> list[tuple[str, str]]:
    """(C++ type on the host side, name) of each kernel parameter, as the launch header has it."""
    namer = Namer()
    out = []
    for k, arg in enumerate(kernel.launch_params):
        name = namer.fresh(arg.name_hint or f"arg{k}")
        out.append(("void*" if isinstance(arg.type, GmAddrType) else ctype(arg.type), name))
    if kernel.workspace_bytes:
        out.append(("void*", namer.fresh("workspace")))  # kernel-local tensors (the kernel's workspace slots)
    return out




class HostPrinter(CxxWriter):
    """Prints one orchestration function as ACL host code."""

    NO_STORAGE_MESSAGE = "this tensor value has no device storage"

    def __init__(self, func: program.FuncOp):
        super().__init__(Namer(["stream", "CHECK_ACL", "ret", "buffers", "DeviceBuffers"]))
        self.func = func
        self.fn_name = Namer.sanitize(f"run_{func.sym_name.data}")
        self.device: dict[SSAValue, DeviceTensor] = {}
        self.view_ptrs: dict[HostView, str] = {}
        self.allocs: list[DeviceTensor] = []
        self.kernels: list[str] = []
        self.task_names: dict[SSAValue, str] = {}
        self.workspaces: dict[Operation, str] = {}  # launch -> its workspace device pointer
        self.dims_params: dict[SSAValue, str] = {}  # dynamic tensor parameter -> its `*_dims` pointer
        self.symbols: dict[str, str] = {}  # dimension symbol -> the C++ variable derived from the dims
        self.host_ptrs: dict[SSAValue, str] = {}  # tensor parameter -> the caller's host pointer
        # a run-time-sized `tensor.create` in a loop or branch -> (its buffer, its capacity variable)
        self.grown: dict[tensor.CreateOp, tuple[str, str]] = {}

    def carried_kind(self, op: Operation, t) -> str:
        from pypto_xdsl.dialects.attributes import TaskIdType

        if isinstance(t, TaskIdType | TaskIdArrayType):
            return "none"  # task ids need no code: launches on one stream run in order
        return super().carried_kind(op, t)

    # ------------------------------------------------------------------ signature

    def params(self) -> list[tuple[str, str, SSAValue, ParamDirection]]:
        out = []
        for k, (arg, direction) in enumerate(zip(self.func.args, self.func.directions)):
            t = arg.type
            base = arg.name_hint or f"arg{k}"
            if isinstance(t, TensorType):
                c = host_ctype(t.element_type)
                name = self.namer.fresh(f"{base}_host")
                const = "const " if direction == ParamDirection.IN else ""
                out.append((f"{const}{c}*", name, arg, direction))
                self.host_ptrs[arg] = name
                if not t.is_static():  # a raw pointer carries no shape: the extents follow it
                    dims = self.namer.fresh(f"{base}_dims")
                    self.dims_params[arg] = dims
                    out.append(("const int64_t*", dims, arg, ParamDirection.IN))
            elif isinstance(t, TileType):
                raise BackendError(f"ascendc: orchestration @{self.func.sym_name.data} cannot take tile parameters")
            else:
                c = ctype(t)
                if c in ("half", "bfloat16_t"):
                    raise BackendError(
                        f"ascendc: cannot lower @{self.func.sym_name.data}: {t} scalar parameter %{base} "
                        "is not supported by the host printer"
                    )
                name = self.namer.fresh(base)
                self.exprs[arg] = Expr(name, c)
                out.append((c, name, arg, direction))
        return out

    # ------------------------------------------------------------------ printing

    def print(self) -> tuple[str, str]:
        """(declaration, definition) of `run_<name>`."""
        if self.func.func_kind not in (FuncKind.ORCHESTRATION, FuncKind.GRAPH, FuncKind.OPAQUE):
            raise BackendError(f"ascendc: @{self.func.sym_name.data} is not an orchestration function")
        params = self.params()
        sig = ", ".join(["aclrtStream stream"] + [f"{c} {n}" for c, n, _, _ in params])
        decl = f"int {self.fn_name}({sig});"
        self.out.depth = 1
        if self.dims_params:
            self._derive_extents()
        self.out.add("DeviceBuffers buffers(stream);  // frees every device buffer below on an early return")
        # device buffers for the parameters, copy-in
        for c, n, arg, direction in params:
            t = arg.type
            if not isinstance(t, TensorType) or self.dims_params.get(arg) == n:  # an extents pointer
                continue
            dt = DeviceTensor(self.namer.fresh(f"{arg.name_hint or 'arg'}_dev"), t)
            self._alloc(dt, arg)
            # `out` parameters are copied in too: tensors have reference semantics, so the parts
            # a kernel does not write keep the caller's values.
            self._copy_checked(dt, f"aclrtMemcpy({dt.var}, {dt.nbytes}, {n}, {dt.nbytes}, ACL_MEMCPY_HOST_TO_DEVICE)")
        self._preallocate_nested_creates()
        self._allocate_workspaces()
        for op in self.func.body.block.ops:
            self.emit_op(op)
        self.out.add("CHECK_ACL(aclrtSynchronizeStream(stream));")
        for c, n, arg, direction in params:
            if isinstance(arg.type, TensorType) and direction != ParamDirection.IN:
                dt = self.device[arg]
                self._copy_checked(dt, f"aclrtMemcpy({n}, {dt.nbytes}, {dt.var}, {dt.nbytes}, ACL_MEMCPY_DEVICE_TO_HOST)")
        if self.allocs:
            self.out.add("CHECK_ACL(buffers.free_all());")
        self.out.add("return 0;")
        body = "\n".join(self.out.lines)
        definition = (
            f"// Orchestration @{self.func.sym_name.data}: device buffers, copy-in, kernel launches in order,\n"
            f"// synchronisation, copy-out. Returns 0 or the failing ACL error code.\n"
            f"int {self.fn_name}({sig}) {{\n{body}\n}}\n"
        )
        return decl, definition

    def _derive_extents(self) -> None:
        """Each dimension symbol from the first parameter that has it; every dimension of every
        dynamic parameter checked against its static value or the symbol, and a bounded
        symbol against its bound, before any device work (the interpreter's messages)."""
        from pypto_xdsl.analysis.dim_bounds import parameter_dim
        from pypto_xdsl.dialects.program import dim_bounds

        fn, add = self.fn_name, self.out.add
        origins: dict[str, str] = {}
        add("// Run-time extents, from the shapes the caller passes; checked before any device work.")
        for arg in self.dims_params:
            for axis, d in enumerate(arg.type.get_shape()):  # type: ignore[attr-defined]
                if isinstance(d, str) and d not in self.symbols:
                    found = parameter_dim(self.func, d)
                    assert found is not None
                    param, p_axis = found
                    var = self.namer.fresh(d)
                    self.symbols[d] = var
                    origins[d] = f"dimension {p_axis} of '{param.name_hint}'"
                    add(f"const int64_t {var} = {self.dims_params[param]}[{p_axis}];")
        fail = "return ACL_ERROR_INVALID_PARAM;"
        for arg, dims in self.dims_params.items():
            name = arg.name_hint
            for axis, d in enumerate(arg.type.get_shape()):  # type: ignore[attr-defined]
                if isinstance(d, str):
                    var, where = self.symbols[d], f"dimension {axis} of '{name}'"
                    if origins[d] == where:
                        continue
                    add(f"if ({dims}[{axis}] != {var}) {{")
                    add(f'  std::fprintf(stderr, "{fn}: the dynamic dimension {d} is %lld in {origins[d]} but %lld '
                        f'in {where}; parameters sharing a dimension must agree\\n", static_cast<long long>({var}), '
                        f"static_cast<long long>({dims}[{axis}]));")
                else:
                    add(f"if ({dims}[{axis}] != {d}) {{")
                    add(f'  std::fprintf(stderr, "{fn}: dimension {axis} of \'{name}\' is %lld but its type '
                        f'{arg.type} has {d}\\n", static_cast<long long>({dims}[{axis}]));')
                add(f"  {fail}")
                add("}")
        bounds = dim_bounds(self.func)
        for d, var in self.symbols.items():
            bound = bounds.get(d)
            limit = f" || {var} > {bound}" if bound is not None else ""
            add(f"if ({var} < 0{limit}) {{")
            what = f"above its bound {bound} (its kernels are sized for at most {bound})" if bound is not None else "negative"
            add(f'  std::fprintf(stderr, "{fn}: the dynamic dimension {d} is %lld ({origins[d]}), {what}\\n", '
                f"static_cast<long long>({var}));")
            add(f"  {fail}")
            add("}")

    def _copy_checked(self, dt: DeviceTensor, call: str) -> None:
        """A copy of a whole tensor; none for an empty dynamic one."""
        if dt.size is None:
            self.out.add(f"CHECK_ACL({call});")
        else:
            self.out.add(f"if ({dt.size} > 0) CHECK_ACL({call});")

    def extents_of_type(self, t: TensorType, sizes=()) -> tuple[str, ...]:
        """The extents of a tensor of type `t` as C++ texts: literals, the variables of its
        dimension symbols, and for each `?` the next of `sizes` (its run-time extent)."""
        out, given = [], iter(sizes)
        for d in t.get_shape():
            if isinstance(d, int):
                out.append(str(d))
            elif isinstance(d, str):
                out.append(self.symbols[d])
            else:
                out.append(self.expr(next(given)).text)
        return tuple(out)

    def _alloc_create(self, op: tensor.CreateOp) -> None:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        dt = DeviceTensor(self.name_for(op.results[0], "tmp") + "_dev", t)
        self.namer.used.add(dt.var)
        self._alloc(dt, op.results[0], self.extents_of_type(t, op.dynamic_sizes))

    def _preallocate_nested_creates(self) -> None:
        """Allocate the `tensor.create`s inside loops and branches once, before the loop.

        A C++ buffer declared inside a loop body would be out of scope where the function
        frees its buffers, and an allocation per iteration would need a stream synchronisation
        before each free. Each iteration reuses the buffer, which is correct while no
        iteration's tensor outlives it (is carried to the next iteration or out of the region).
        A static one is allocated at function entry. One with run-time extents (`?` sizes,
        known only where it is created) gets its buffer slot and a capacity at entry and grows
        where it is created, when an iteration needs more bytes than any before: after a stream
        synchronisation, since kernels still running may use the smaller buffer.
        """
        for op in self.func.walk():
            if not isinstance(op, tensor.CreateOp) or op.parent_op() is self.func:
                continue
            if escapes_region(op.results[0]):
                raise op_error(
                    op,
                    "a tensor created inside a loop or branch is carried out of it; the host printer "
                    "allocates such tensors once, so create it before the loop instead",
                )
            if not op.dynamic_sizes:
                self._alloc_create(op)
                continue
            var = self.name_for(op.results[0], "tmp") + "_dev"
            self.namer.used.add(var)
            capacity = self.namer.fresh(f"{var.removesuffix('_dev')}_capacity")
            self.out.add(f"void*& {var} = buffers.slot();  // %{op.results[0].name_hint or '?'}: {op.results[0].type}, "
                         "grown where it is created")
            self.out.add(f"size_t {capacity} = 0;")
            self.grown[op] = (var, capacity)

    def _grow_create(self, op: tensor.CreateOp) -> None:
        var, capacity = self.grown[op]
        t = op.results[0].type
        assert isinstance(t, TensorType)
        shape = self.extents_of_type(t, op.dynamic_sizes)
        dt = DeviceTensor(var, t, self.namer.fresh(f"{var.removesuffix('_dev')}_bytes"))
        count = extent_product([d if d.isdigit() else f"static_cast<size_t>({d})" for d in shape])
        add = self.out.add
        add(f"const size_t {dt.size} = {count} * {byte_width(t.element_type)};")
        add(f"if ({dt.size} > {capacity}) {{")
        add("  CHECK_ACL(aclrtSynchronizeStream(stream));  // kernels in flight may still use the smaller buffer")
        add(f"  if ({var} != nullptr) CHECK_ACL(aclrtFree({var}));")
        add(f"  {var} = nullptr;")
        add(f"  CHECK_ACL(aclrtMalloc(&{var}, {dt.size}, ACL_MEM_MALLOC_HUGE_FIRST));")
        add(f"  {capacity} = {dt.size};")
        add("}")
        self.device[op.results[0]] = dt
        self.tensor_views[op.results[0]] = HostView(op.results[0], shape, shape)
        if not any(a.var == var for a in self.allocs):
            self.allocs.append(dt)

    def _allocate_workspaces(self) -> None:
        """One device workspace per launch of a kernel with kernel-local tensors, allocated at
        function entry (a launch in a loop reuses it: launches on the one stream run in order)
        and sized for every block of the launch."""
        for op in self.func.walk():
            if not isinstance(op, LaunchOp):
                continue
            callee = lookup_symbol(op, op.callee)
            if not isinstance(callee, KernelOp):
                continue
            per_block = callee.workspace_bytes
            if not per_block:
                continue
            dim = op.block_dim
            var = self.namer.fresh(f"{kernel_cxx_name(callee.sym_name.data)}_ws_dev")
            self.out.add(
                f"void*& {var} = buffers.slot();  // workspace of @{callee.sym_name.data}: kernel-local tensors, "
                f"{dim} block(s) x {per_block} bytes"
            )
            self.out.add(f"CHECK_ACL(aclrtMalloc(&{var}, {dim * per_block}, ACL_MEM_MALLOC_HUGE_FIRST));")
            self.allocs.append(DeviceTensor(var, None))  # type: ignore[arg-type]
            self.workspaces[op] = var

    def _alloc(self, dt: DeviceTensor, value: SSAValue, shape: tuple[str, ...] | None = None) -> None:
        shape = shape if shape is not None else self.extents_of_type(dt.type)
        if not all(d.isdigit() for d in shape):
            dt.size = self.namer.fresh(f"{dt.var.removesuffix('_dev')}_bytes")
            eb = byte_width(dt.type.element_type)
            count = extent_product([d if d.isdigit() else f"static_cast<size_t>({d})" for d in shape])
            self.out.add(f"const size_t {dt.size} = {count} * {eb};")
            self.out.add(f"void*& {dt.var} = buffers.slot();")
            self.out.add("// an empty tensor still gets one 32-byte block: aclrtMalloc refuses a size of 0")
            self.out.add(f"CHECK_ACL(aclrtMalloc(&{dt.var}, {dt.size} > 0 ? {dt.size} : 32, ACL_MEM_MALLOC_HUGE_FIRST));")
        else:
            if not dt.type.is_static():
                # a `?` whose extent is a constant here: its byte count is known, not the type's
                dt.size = str(max(1, static_product(shape)) * byte_width(dt.type.element_type))
            self.out.add(f"void*& {dt.var} = buffers.slot();")
            self.out.add(f"CHECK_ACL(aclrtMalloc(&{dt.var}, {dt.nbytes}, ACL_MEM_MALLOC_HUGE_FIRST));")
        self.device[value] = dt
        self.tensor_views[value] = HostView(value, shape, shape)
        self.allocs.append(dt)

    def emit_other(self, op: Operation) -> None:
        if isinstance(op, program.ReturnOp):
            for v in op.arguments:
                view = self.tensor_root(v) if isinstance(v.type, TensorType) else None
                root = view.root if view is not None else None
                if view is None or not view.whole or not (
                    isinstance(root, BlockArgument) and root.owner.parent_op() is self.func
                ):
                    raise op_error(
                        op, "orchestration functions can only return tensors written through their parameters"
                    )
            return
        if isinstance(op, tensor.CreateOp):
            if op in self.grown:
                return self._grow_create(op)
            if op.results[0] not in self.device:
                self._alloc_create(op)
            return
        if isinstance(op, LaunchOp):
            return self._emit_launch(op)
        if isinstance(op, TaskIdsGetOp):  # named for the comments of the launches that wait
            self.task_names[op.result] = f"{op.array.name_hint or 'tids'}[{self.expr(op.index).text}]"
            return
        if isinstance(op, TaskIdsCreateOp | TaskIdsSetOp):
            return  # task ids need no code: launches on one stream run in order
        if isinstance(op, TaskDummyOp):
            tname = self.namer.fresh(op.result.name_hint or "barrier")
            self.task_names[op.result] = tname
            deps = ", ".join(self.task_names.get(d, f"%{d.name_hint or 'task'}") for d in op.deps)
            self.out.add(f"// task {tname}: waits for {deps or 'nothing'} (launches on one stream run in order)")
            return
        if isinstance(op, program.CallOp | program.SubmitOp):
            return self._reject_call(op)
        if isinstance(op, tensor.SliceOp):
            return self._emit_slice(op)
        if isinstance(op, tensor.AssembleOp):
            return self._emit_assemble(op)
        if isinstance(op, tensor.DimOp):
            view = self.tensor_root(op.source)
            assert isinstance(view, HostView)
            dim = view.shape[op.axis.value.data]
            if not dim.isdigit():  # a run-time extent: a dimension symbol's variable or a `?` size
                self.exprs[op.result] = Expr(dim, "int64_t")
                return
            self.exprs[op.result] = Expr(dim, "int64_t", literal=True, const_value=int(dim))
            return
        if isinstance(op, tensor.ReadOp):
            return self._emit_read(op)
        if isinstance(op, tensor.SetValidShapeOp):  # the same storage; the kernel takes the valid extents as scalars
            self.tensor_views[op.result] = self.tensor_root(op.input)
            return
        super().emit_other(op)

    # ---- views

    def _window(self, view: HostView, offsets: list[Expr], shape: tuple[str, ...]) -> HostView:
        text, const = linear_offset(view.root_shape, offsets)
        if view.const is not None and const is not None:
            return HostView(view.root, shape, view.root_shape, str(view.const + const), view.const + const)
        parts = [p for p in (view.offset, text) if p != "0"]
        return HostView(view.root, shape, view.root_shape, " + ".join(parts) if parts else "0", None)

    def _ptr(self, view: HostView) -> str:
        """A device pointer expression to the first element of `view`."""
        if view in self.view_ptrs:
            return self.view_ptrs[view]
        dt = self.device[view.root]
        if view.const == 0:
            return dt.var
        eb = byte_width(dt.type.element_type)
        if view.const is not None:
            return f"static_cast<uint8_t*>({dt.var}) + {view.const * eb}"
        return f"static_cast<uint8_t*>({dt.var}) + ({view.offset}) * {eb}"

    def _emit_slice(self, op: tensor.SliceOp) -> None:
        t = op.result.type
        assert isinstance(t, TensorType)
        source = self.tensor_root(op.source)
        offsets = [self.expr(o) for o in op.offsets]
        shape = self.extents_of_type(t, op.sizes)
        self._check_window(op, source, offsets, shape)
        view = self._window(source, offsets, shape)
        self.tensor_views[op.result] = view
        launched = any(isinstance(u.operation, program.CallOp | program.SubmitOp | LaunchOp) for u in op.result.uses)
        if launched and view.contiguous and view not in self.view_ptrs and view.const != 0:
            name = self.namer.fresh(f"{op.result.name_hint or 'view'}_dev")
            self.out.add(f"void* {name} = {self._ptr(view)};  // %{op.result.name_hint or '?'}: {t}")
            self.view_ptrs[view] = name

    def _emit_assemble(self, op: tensor.AssembleOp) -> None:
        if op.atomic is not None:
            raise op_error(op, "an atomic(add) assemble is not supported (the host copies with aclrtMemcpy2dAsync)")
        src, dst = self.tensor_root(op.source), self.tensor_root(op.dest)
        s_type = op.source.type
        assert isinstance(s_type, TensorType)
        window = self._window(dst, [self.expr(o) for o in op.offsets], src.shape)
        eb = str(byte_width(s_type.element_type))
        rows, cols = (src.shape[0], src.shape[1]) if len(src.shape) == 2 else ("1", src.shape[0])
        dpitch, spitch = extent_product([dst.root_shape[-1], eb]), extent_product([src.root_shape[-1], eb])
        self.out.add(
            f"CHECK_ACL(aclrtMemcpy2dAsync({self._ptr(window)}, {dpitch}, {self._ptr(src)}, {spitch}, "
            f"{extent_product([cols, eb])}, {rows}, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));  // %{op.result.name_hint or '?'}"
        )
        self.tensor_views[op.result] = dst

    def _check_window(self, op: Operation, source: HostView, offsets: list[Expr], shape: tuple[str, ...]) -> None:
        """A window (or element) at run-time offsets or of run-time extents is checked to lie
        in its source before it is used: out of bounds is an error naming the op's value."""
        conds, parts = [], []
        for axis, (off, size, bound) in enumerate(zip(offsets, shape, source.shape)):
            if (off.const_value is not None and size.isdigit() and bound.isdigit()) or (off.const_value == 0 and size == bound):
                continue  # static (the verifier checked it), or the whole extent
            if isinstance(op, tensor.SliceOp) and len(shape) == 1 and not bound.isdigit() and _read_only(op.result):
                # a fixed-size 1-D window nothing writes may run past a run-time extent (a
                # ragged tail of an index table: PyPTO's `pl.slice(block_table, [64], [b * n])`
                # near the end, whose kernels read only the entries they need; the interpreter's
                # rule): it must start inside; reading past the end is the kernel's to avoid (the
                # simulation reports an access past the allocation). 2-D data windows must fit.
                start = f"{off.text} >= {bound}" if size.isdigit() and int(size) > 0 else f"{size} > 0 && {off.text} >= {bound}"
                conds.append(start if off.const_value is not None else f"{off.text} < 0 || {start}")
            else:
                end = size if off.const_value == 0 else f"{off.text} + {size}"
                conds.append(f"{end} > {bound}" if off.const_value is not None else f"{off.text} < 0 || {end} > {bound}")
            parts.append((axis, off.text, size, bound))
        if not conds:
            return
        what = op.results[0].name_hint or "?"
        self.out.add(f"if ({' || '.join(f'({c})' if len(conds) > 1 else c for c in conds)}) {{")
        fmt = ", ".join(f"dimension {axis} takes %lld at %lld of %lld" for axis, *_ in parts)
        args = ", ".join(f"static_cast<long long>({x})" for _, o, z, b in parts for x in (z, o, b))
        self.out.add(f'  std::fprintf(stderr, "{self.fn_name}: \'{op.name}\' %%{what} is out of bounds: {fmt}\\n", {args});')
        self.out.add("  return ACL_ERROR_INVALID_PARAM;")
        self.out.add("}")

    def _emit_read(self, op: tensor.ReadOp) -> None:
        """One element on the host. A tensor no kernel writes (an `in` parameter) is read from
        the caller's host copy; any other from the device, after the stream has run every
        kernel launched so far (the one that wrote it among them)."""
        view = self.tensor_root(op.source)
        assert isinstance(view, HostView)
        t = op.result.type
        c = ctype(t)
        if c in ("half", "bfloat16_t"):
            raise op_error(op, f"reading a {t} element on the host is not supported (the host has no {c} arithmetic)")
        offsets = [self.expr(o) for o in op.offsets]
        self._check_window(op, view, offsets, ("1",) * len(view.shape))
        window = self._window(view, offsets, ("1",) * len(view.shape))
        name = self.name_for(op.result, "elem")
        host = self.host_ptrs.get(view.root)
        direction = self.func.directions[view.root.index] if isinstance(view.root, BlockArgument) else None
        if host is not None and direction == ParamDirection.IN:
            self.out.add(f"const {c} {name} = {host}[{window.offset}];  // an `in` tensor: the caller's copy")
        else:
            eb = byte_width(t)
            self.out.add(f"{c} {name} = 0;  // %{op.source.name_hint or '?'} as its kernels left it")
            self.out.add("CHECK_ACL(aclrtSynchronizeStream(stream));")
            self.out.add(
                f"CHECK_ACL(aclrtMemcpy(&{name}, {eb}, {self._ptr(window)}, {eb}, ACL_MEMCPY_DEVICE_TO_HOST));"
            )
        self.exprs[op.result] = Expr(name, c)

    def _bind_returned_local(self, op: Operation, callee: KernelOp, result: SSAValue, offset: int, dim: int) -> None:
        """A kernel result that is one of its kernel-local tensors: a view of the launch's workspace."""
        what = f"@{callee.sym_name.data} returns the kernel-local tensor %{result.name_hint or '?'} {result.type}"
        if dim != 1:
            raise op_error(op, f"{what} but is launched on {dim} blocks, each with its own copy; write it into an out parameter")
        if escapes_region(result):
            raise op_error(
                op, f"{what}, which lives in the launch's workspace; the workspace is reused by every iteration, "
                "so the result cannot be carried out of the loop or branch (write it into an out parameter)",
            )
        var = self.namer.fresh(f"{result.name_hint or 'result'}_dev")
        ws = self.workspaces[op]
        ptr = f"static_cast<uint8_t*>({ws}) + {offset}" if offset else ws
        self.out.add(
            f"void* {var} = {ptr};  "
            f"// %{result.name_hint or '?'}: kernel-local tensor of @{callee.sym_name.data}, in its workspace"
        )
        t = result.type
        assert isinstance(t, TensorType)
        self.device[result] = DeviceTensor(var, t)
        shape = self.extents_of_type(t)
        self.tensor_views[result] = HostView(result, shape, shape)

    def _kernel_arg(self, op: Operation, value: SSAValue) -> str:
        view = self.tensor_root(value)
        if not view.contiguous:
            rows, cols, root_cols = view.shape[0], view.shape[-1], view.root_shape[-1]
            if (rows.isdigit() or len(view.shape) > 2) and cols.isdigit() and root_cols.isdigit():
                raise op_error(
                    op,
                    f"kernel argument {value.type} is a strided window of {view.root.type}; kernels take "
                    "contiguous tensors (pass the whole tensor and offsets, or full-row slices)",
                )
            # contiguous or not by run-time extents: checked before the launch
            name = value.name_hint or "?"
            rows_differ = "" if rows.isdigit() else f"{rows} != 1 && "
            self.out.add(f"if ({rows_differ}{cols} != {root_cols}) {{")
            self.out.add(
                f'  std::fprintf(stderr, "{self.fn_name}: kernel argument %%{name} of @{op.callee.string_value()} '  # type: ignore[attr-defined]
                f'is %lld x %lld, a strided window of rows of %lld; kernels take contiguous tensors\\n", '
                f"static_cast<long long>({rows}), static_cast<long long>({cols}), static_cast<long long>({root_cols}));"
            )
            self.out.add("  return ACL_ERROR_INVALID_PARAM;")
            self.out.add("}")
        return self._ptr(view)

    def _reject_call(self, op: program.CallOp | program.SubmitOp) -> None:
        callee = lookup_symbol(op, op.callee)
        if isinstance(callee, program.FuncOp) and not callee.is_incore:
            raise op_error(
                op, f"@{callee.sym_name.data} has kind '{callee.func_kind.value}'; orchestration code can only "
                "launch incore kernels (inline or outline it first)"
            )
        raise op_error(op, "kernels are launched with ascendc.launch (run convert-pypto-to-ascendc first)")

    def _emit_launch(self, op: LaunchOp) -> None:
        callee = lookup_symbol(op, op.callee)
        assert isinstance(callee, KernelOp)
        args = []
        for a in op.args:
            if isinstance(a.type, TensorType):
                args.append(self._kernel_arg(op, a))
            else:
                args.append(cast_to(self.expr(a), ctype(a.type)))
        if op in self.workspaces:
            args.append(self.workspaces[op])
        dim = op.block_dim
        name = kernel_cxx_name(callee.sym_name.data)
        if name not in self.kernels:
            self.kernels.append(name)
        results = op.outputs
        params, locals_ = launch_result_params(callee), launch_result_workspace(callee)
        for k in range(min(len(results), len(params))):
            if params[k] is not None:
                self.tensor_views[results[k]] = self.tensor_root(op.args[params[k]])  # type: ignore[index]
            elif locals_[k] is not None:
                self._bind_returned_local(op, callee, results[k], locals_[k], dim)  # type: ignore[arg-type]
        if op.task is not None:
            tid = op.results[-1]
            tname = self.namer.fresh(tid.name_hint or "task")
            self.task_names[tid] = tname
            deps = ", ".join(self.task_names.get(d, f"%{d.name_hint or 'task'}") for d in op.deps)
            note = f" after {deps}" if deps else ""
            self.out.add(f"// task {tname}: @{callee.sym_name.data}{note} (launches on one stream run in order)")
        if SYNC_START_ATTR in op.attributes:
            self._check_resident_blocks(callee, name, str(dim))
        launch = ", ".join([str(dim), "stream", *args])  # a kernel may take no parameters
        self.out.add(f"CHECK_ACL(ACLRT_LAUNCH_KERNEL({name})({launch}));")

    def _check_resident_blocks(self, callee: KernelOp, name: str, dim: str) -> None:
        """A sync_start launch starts every block at once: before it, the device's cores (AI
        cores: one per core group, for cube and MIX kernels; vector cores otherwise) must
        hold all of them, else the launch returns ACL_ERROR_INVALID_PARAM."""
        info = "ACL_DEVICE_INFO_VECTOR_CORE_NUM" if callee.kernel_kind == KernelKind.VECTOR else "ACL_DEVICE_INFO_AI_CORE_NUM"
        device, cores = self.namer.fresh("sync_device"), self.namer.fresh("sync_cores")
        add = self.out.add
        add(f"int32_t {device} = 0;  // sync_start: every block of {name} starts at once, so all must be resident")
        add(f"int64_t {cores} = 0;")
        add(f"CHECK_ACL(aclrtGetDevice(&{device}));")
        add(f"CHECK_ACL(aclGetDeviceCapability(static_cast<uint32_t>({device}), {info}, &{cores}));")
        add(f"if ({cores} < static_cast<int64_t>({dim})) {{")
        add(f'  std::fprintf(stderr, "sync_start launch of {name} on %lld blocks, but the device runs %lld at once\\n", '
            f"static_cast<long long>({dim}), static_cast<long long>({cores}));")
        add("  return ACL_ERROR_INVALID_PARAM;")
        add("}")


_DEVICE_BUFFERS = """// The device buffers of one run. free_all() releases them at the end; if an ACL call
// fails first, CHECK_ACL returns early and the destructor waits for the stream (kernels
// already launched may still use the buffers) and releases whatever was allocated.
class DeviceBuffers {
 public:
  explicit DeviceBuffers(aclrtStream stream) : stream_(stream) {}
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* buffer : slots_) {
      if (buffer != nullptr) {
        (void)aclrtSynchronizeStream(stream_);
        break;
      }
    }
    (void)free_all();
  }

  void*& slot() {
    slots_.push_back(nullptr);
    return slots_.back();
  }

  int free_all() {
    int first_error = 0;
    for (void*& buffer : slots_) {
      if (buffer != nullptr) {
        const int err = static_cast<int>(aclrtFree(buffer));
        if (err != 0 && first_error == 0) first_error = err;
        buffer = nullptr;
      }
    }
    return first_error;
  }

 private:
  aclrtStream stream_;
  std::deque<void*> slots_;  // a deque keeps the references slot() hands out valid
};

"""

CHECK_ACL_MACRO = """#define CHECK_ACL(expr)                                                          \\
  do {                                                                           \\
    const int pypto_err_ = static_cast<int>(expr);                               \\
    if (pypto_err_ != 0) {                                                       \\
      std::fprintf(stderr, "%s:%d: %s failed with ACL error %d\\n", __FILE__,     \\
                   __LINE__, #expr, pypto_err_);                                 \\
      return pypto_err_;                                                         \\
    }                                                                            \\
  } while (0)
"""


@dataclass
class HostProgram:
    name: str  # orchestration function name
    fn_name: str
    header: str
    source: str
    kernels: list[str]


def print_host(func: program.FuncOp) -> HostProgram:
    p = HostPrinter(func)
    decl, definition = p.print()
    base = Namer.sanitize(func.sym_name.data) + "_orch"
    header = (
        f"// Host entry for orchestration @{func.sym_name.data}, generated by pypto-xdsl.\n"
        "#pragma once\n#include \"acl/acl.h\"\n\n"
        f"{decl}\n"
    )
    includes = "".join(f'#include "aclrtlaunch_{k}.h"\n' for k in p.kernels)
    source = (
        f"// ACL host code for orchestration @{func.sym_name.data}, generated by pypto-xdsl. Do not edit.\n"
        "#include <cstdio>\n#include <deque>\n\n"
        "#include \"acl/acl.h\"\n"
        f"{includes}"
        f'#include "{base}.h"\n\n'
        f"{CHECK_ACL_MACRO}\n"
        f"{_DEVICE_BUFFERS}\n"
        f"{definition}"
    )
    return HostProgram(func.sym_name.data, p.fn_name, header, source, p.kernels)


def orchestration_funcs(module: ModuleOp) -> list[program.FuncOp]:
    # A graph function is an orchestration body (each call one task launch): same host code.
    return [f for f in program.func_ops(module) if f.func_kind in (FuncKind.ORCHESTRATION, FuncKind.GRAPH)]
