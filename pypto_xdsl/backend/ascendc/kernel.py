"""Kernel printer: one `ascendc.kernel` -> one Ascend C source file, one op per statement.

Every decision is in the IR by the time it gets here (convert-pypto-to-ascendc,
ascendc-plan-buffers, ascendc-insert-sync, ascendc-remove-redundant-sync): the printer maps
each ascendc op to its C++ statement or declaration, arith/scf to C++ expressions, loops and
branches (cxx.CxxWriter), and names scalars after their name hints. Ops that are C++
expressions (`ascendc.at`, `get_block_idx`, `scalar_cast`, `unary_minus`, constants) print
where they are used. The header comment states the buffer plan the kernel records.

The printer runs no pass: `transforms.pipelines.lower_kernel_for_ascendc` lowers a tile-level
`pypto.func incore|aiv|aic` to the kernel it prints.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Operation, SSAValue

from pypto_xdsl.analysis.ascendc_kernel import (  # noqa: F401  (re-exported for tests)
    Layout,
    WorkspaceSlot,
    cube_layout,
    returned_locals,
    tile_layout,
    workspace_plan,
)
from pypto_xdsl.analysis.cxx_names import KERNEL_RESERVED, kernel_cxx_name, param_names  # noqa: F401
from pypto_xdsl.backend.ascendc.cxx import BackendError, CxxWriter, Expr, Namer, ctype, op_error
from pypto_xdsl.dialects import ascendc_compute as C
from pypto_xdsl.dialects import ascendc_hccl as H
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import ascendc_scalar as X
from pypto_xdsl.dialects import ascendc_sync as S
from pypto_xdsl.dialects import program
from pypto_xdsl.dialects.ascendc_kernel import CoreCallOp, KernelOp, ReturnOp
from pypto_xdsl.dialects.ascendc_types import (
    ENUM_FIELDS,
    MEMORY_BYTES,
    POSITION_MEMORY,
    BufferType,
    GmAddrType,
    KernelKind,
    Memory,
    QueueType,
)

_EXT_TYPES = ("uint16_t", "uint32_t", "uint32_t", "uint32_t")  # DataCopyExtParams' field types
_PROMOTED_TO_INT = ("int8_t", "uint8_t", "int16_t", "uint16_t")
_PLAN_ORDER = (Memory.UB, Memory.L1, Memory.L0A, Memory.L0B, Memory.L0C, Memory.BT)
_TASK_TYPE = {KernelKind.CUBE: "KERNEL_TYPE_AIC_ONLY", KernelKind.MIX: "KERNEL_TYPE_MIX_AIC_1_1"}
_MIX_TASK_TYPE = {1: "KERNEL_TYPE_MIX_AIC_1_1", 2: "KERNEL_TYPE_MIX_AIC_1_2"}
_MIX_CORES = {1: "one AIC and one AIV", 2: "one AIC and two AIVs"}


def _block_index(op: Operation) -> str:
    """The block an op with an optional `task_ratio` names: on the AIV of a 1:2 MIX kernel
    GetBlockIdx() counts vector cores (two per block), so it is divided by GetTaskRatio()."""
    ratio = op.properties.get("task_ratio")
    if isinstance(ratio, IntegerAttr) and ratio.value.data > 1:
        return "(AscendC::GetBlockIdx() / AscendC::GetTaskRatio())"
    return "AscendC::GetBlockIdx()"
_CORE_TEST = {"aic": "ASCEND_IS_AIC", "aiv": "ASCEND_IS_AIV"}


def _comment(values: list[str]) -> str:
    """The comment of a buffer declaration: the value it holds, or the values sharing it."""
    if len(values) == 1:
        return values[0]
    names = [values[0].split(" ")[0]] + [v.split(" ")[0] if v.startswith("%") else v for v in values[1:]]
    return ", ".join(names) + " (disjoint live ranges)"


def _bool(v: bool) -> str:
    return "true" if v else "false"


def _ints(op: Operation, name: str) -> list[int]:
    return [int(a.value.data) for a in op.properties[name].data]  # type: ignore[union-attr]


def _int(op: Operation, name: str) -> int:
    return int(op.properties[name].value.data)  # type: ignore[union-attr]


class KernelPrinter(CxxWriter):
    """Prints one `ascendc.kernel` as an Ascend C kernel."""

    def __init__(self, kernel: KernelOp):
        self.kernel = kernel
        self.kernel_name = kernel_cxx_name(kernel.sym_name.data)
        namer = Namer(KERNEL_RESERVED)
        namer.used.add(self.kernel_name)
        super().__init__(namer)

    # ------------------------------------------------------------------ names

    def _declare_names(self) -> list[str]:
        k = self.kernel
        name = k.sym_name.data
        explicit: list[str] = []
        for op in k.walk():
            n = op.properties.get("name")
            if isinstance(n, StringAttr) and op is not k:
                if isinstance(op, M.PipeOp) and n.data == "pipe":
                    continue  # the kernel's TPipe: a reserved name
                explicit.append(n.data)
        for n in explicit:
            if n in self.namer.used or Namer.sanitize(n) != n:
                raise BackendError(f"ascendc: @{name}: declared name '{n}' is not a fresh C++ identifier")
            self.namer.used.add(n)
        if k.arg_names is not None:
            params = [n.data for n in k.arg_names.data]
            for n in params:
                if n in self.namer.used or Namer.sanitize(n) != n:
                    raise BackendError(f"ascendc: @{name}: parameter name '{n}' is not a fresh C++ identifier")
                self.namer.used.add(n)
        else:
            params = param_names([a.name_hint for a in k.args], self.namer)
        return params

    # ------------------------------------------------------------------ entry

    def print(self, members: dict[str, KernelOp] | None = None) -> str:
        """The kernel's source file; a MIX kernel's file also holds its members (`members`:
        the module's member kernels by name)."""
        if self.kernel.kernel_kind == KernelKind.MIX:
            return self._print_mix(members or {})
        text, headers = self._function()
        lines = [
            f"// Ascend C kernel for @{self.kernel.sym_name.data}, generated by pypto-xdsl. Do not edit.",
            self._plan_line(),
            '#include "kernel_operator.h"',
            *(f'#include "{h}"' for h in headers),
            "",
            "using namespace AscendC;",
            "",
            text,
        ]
        return "\n".join(lines) + "\n"

    def _print_mix(self, members: dict[str, KernelOp]) -> str:
        k = self.kernel
        params = self._declare_names()
        sig = []
        for arg, n in zip(k.args, params):
            c = "GM_ADDR" if isinstance(arg.type, GmAddrType) else ctype(arg.type)
            self.exprs[arg] = Expr(n, c)
            sig.append(f"{c} {n}")
        functions: list[str] = []
        headers: set[str] = set()
        plans: list[str] = []
        body = [f"  KERNEL_TASK_TYPE_DEFAULT({_MIX_TASK_TYPE[k.vector_cores]});"]
        for op in k.body.block.ops:
            if not isinstance(op, CoreCallOp):
                continue
            member = members.get(op.callee.string_value())
            if member is None:
                raise BackendError(f"ascendc: MIX kernel @{k.sym_name.data}: member @{op.callee.string_value()} is missing")
            printer = KernelPrinter(member)
            text, more = printer._function()
            functions.append(text)
            headers |= set(more)
            plans.append(f"//   {op.core.data} @{member.sym_name.data}: " + printer._plan_line().removeprefix("// "))
            args = ", ".join(self.exprs[a].text for a in op.args)
            body.append(f"  if {_CORE_TEST[op.core.data]} {{")
            body.append(f"    {printer.kernel_name}({args});")
            body.append("  }")
        lines = [
            f"// Ascend C MIX kernel for group @{k.sym_name.data} ({_MIX_CORES[k.vector_cores]} per block), generated by "
            "pypto-xdsl. Do not edit.",
            *plans,
            '#include "kernel_operator.h"',
            *(f'#include "{h}"' for h in sorted(headers)),
            "",
            "using namespace AscendC;",
            "",
            *(f + "\n" for f in functions),
            f'extern "C" __global__ __aicore__ void {self.kernel_name}({", ".join(sig)}) {{',
            *body,
            "}",
        ]
        return "\n".join(lines) + "\n"

    def _function(self) -> tuple[str, list[str]]:
        """The kernel function (a member of a MIX kernel: an inline device function) and the
        advanced-API headers it needs."""
        k = self.kernel
        params = self._declare_names()
        sig: list[str] = []
        for arg, n in zip(k.args, params):
            if isinstance(arg.type, GmAddrType):
                self.exprs[arg] = Expr(n, "GM_ADDR")
                sig.append(f"GM_ADDR {n}")
            else:
                c = ctype(arg.type)
                self.exprs[arg] = Expr(n, c)
                sig.append(f"{c} {n}")
        self.out.depth = 1
        if k.kernel_kind in _TASK_TYPE and k.group is None:
            self.out.add(f"KERNEL_TASK_TYPE_DEFAULT({_TASK_TYPE[k.kernel_kind]});")
        ops = list(k.body.block.ops)
        index = 0
        while index < len(ops) and ops[index].has_trait(M.Declaration):
            self._declaration(ops[index])
            index += 1
        self.out.lines.append("")
        for op in ops[index:]:
            self.emit_op(op)
        head = ("__aicore__ inline void" if k.group is not None else 'extern "C" __global__ __aicore__ void')
        lines = [f'{head} {self.kernel_name}({", ".join(sig)}) {{', *self.out.lines, "}"]
        return "\n".join(lines), self._advanced_headers()

    def _advanced_headers(self) -> list[str]:
        """The advanced-API headers the kernel's calls need (on the devkit's include path
        `include/adv_api`, as bisheng_intf.cmake passes it)."""
        headers = {op.HEADER for op in self.kernel.walk() if isinstance(op, C.AdvancedMathOp)}
        if any(isinstance(op, H.HcclOp) for op in self.kernel.walk()):
            headers.add("hccl/hccl.h")
        return sorted(headers)

    def _plan_line(self) -> str:
        plan = self.kernel.memory()
        if not plan:
            used: dict[Memory, int] = {}
            for op in self.kernel.walk():
                if isinstance(op, M.InitBufferOp):
                    mem = POSITION_MEMORY[op.buffer.type.pos]  # type: ignore[union-attr]
                    used[mem] = used.get(mem, 0) + op.total_bytes
            plan = {m: (u, MEMORY_BYTES[m]) for m, u in used.items()}
        if self.kernel.kernel_kind == KernelKind.VECTOR:
            used_ub, cap = plan.get(Memory.UB, (0, MEMORY_BYTES[Memory.UB]))
            return f"// Unified Buffer plan: {used_ub} of {cap} bytes."
        parts = ", ".join(f"{m.value} {plan[m][0]} of {plan[m][1]}" for m in _PLAN_ORDER if m in plan)
        return f"// Cube (AIC) kernel. Buffer plan (bytes): {parts}."

    # ------------------------------------------------------------------ declarations

    def _elem(self, value: SSAValue) -> str:
        return ctype(value.type.element_type)  # type: ignore[attr-defined]

    def _var(self, op: Operation) -> str:
        return op.properties["name"].data  # type: ignore[union-attr]

    def _declaration(self, op: Operation) -> None:
        add = self.out.add
        if isinstance(op, M.GlobalTensorOp):
            name, c = self._var(op), self._elem(op.result)
            comment = f"  // {op.comment.data}" if op.comment is not None else ""
            add(f"GlobalTensor<{c}> {name};{comment}")
            addr = self.expr(op.addr).text
            if op.offset is not None:
                off = op.offset.value.data
                addr = f"({addr} + {off})" if off else f"({addr})"
            size = str(op.size.value.data)
            if op.extents:  # run-time dimensions times the static ones
                dims = " * ".join(self.expr(e).text for e in op.extents)
                size = dims if size == "1" else f"{dims} * {size}"
            add(f"{name}.SetGlobalBuffer((__gm__ {c}*){addr}, {size});")
            self.exprs[op.result] = Expr(name, "GlobalTensor")
        elif isinstance(op, M.BlockWorkspaceOp):
            name, nbytes = self._var(op), op.bytes_.value.data
            add(f"// Kernel-local GM tensors: {nbytes} bytes of workspace per block, this block's part.")
            block = _block_index(op)
            add(f"GM_ADDR {name} = {self.expr(op.workspace).text} + {block} * {nbytes};")
            self.exprs[op.result] = Expr(name, "GM_ADDR")
        elif isinstance(op, H.HcclOp):
            name = self._var(op)
            add(f"{H.HCCL_CLIENT} {name};  // the launch's communication domain")
            add(f"{name}.Init(AscendC::GetHcclContext<0>());")
            self.exprs[op.result] = Expr(name, "Hccl")
        elif isinstance(op, M.PipeOp):
            add(f"TPipe {self._var(op)};")
            self.exprs[op.result] = Expr(self._var(op), "TPipe")
        elif isinstance(op, M.TQueOp | M.TBufOp):
            name = op.var_name
            t = op.result.type
            comment = f"  // {_comment(op.held_values)}" if op.held_values else ""
            if isinstance(t, QueueType):
                add(f"TQue<TPosition::{t.pos.value}, {t.depth.data}> {name};{comment}")
            else:
                assert isinstance(t, BufferType)
                add(f"TBuf<TPosition::{t.pos.value}> {name};{comment}")
            self.exprs[op.result] = Expr(name, "buffer")
        elif isinstance(op, M.InitBufferOp):
            pipe, buf = self.expr(op.pipe).text, self.expr(op.buffer).text
            if op.num is not None:
                add(f"{pipe}.InitBuffer({buf}, {op.buffer_count}, {op.bytes_per_buffer});")
            else:
                add(f"{pipe}.InitBuffer({buf}, {op.bytes_per_buffer});")
        else:
            raise op_error(op, "this declaration has no printer")

    # ------------------------------------------------------------------ body

    def _t(self, value: SSAValue) -> str:
        return self.expr(value).text

    def _args(self, values) -> str:
        return ", ".join(self._t(v) for v in values)

    def emit_other(self, op: Operation) -> None:
        add = self.out.add
        if isinstance(op, ReturnOp):
            return
        if op.has_trait(M.Declaration):
            raise op_error(op, "declarations come first in a kernel, before its body")
        if isinstance(op, M.AllocTensorOp | M.GetBufOp):
            name, c = self._var(op), self._elem(op.result)
            src = self._t(op.operands[0])
            call = f"AllocTensor<{c}>()" if isinstance(op, M.AllocTensorOp) else f"Get<{c}>()"
            add(f"LocalTensor<{c}> {name} = {src}.{call};")
            self.exprs[op.result] = Expr(name, "LocalTensor")
            return
        if isinstance(op, M.EnqueOp):
            add(f"{self._t(op.queue)}.EnQue({self._t(op.tensor)});")
            return
        if isinstance(op, M.DequeHeadOp):
            name, c = self._var(op), self._elem(op.result)
            add(f"LocalTensor<{c}> {name} = {self._t(op.queue)}.DeQue<{c}>();")
            self.exprs[op.result] = Expr(name, "LocalTensor")
            return
        if isinstance(op, M.DequeOp):
            var = self._t(op.tensor)
            add(f"{var} = {self._t(op.queue)}.DeQue<{self._elem(op.result)}>();")
            self.exprs[op.result] = Expr(var, "LocalTensor")
            return
        if isinstance(op, M.FreeTensorOp):
            add(f"{self._t(op.queue)}.FreeTensor({self._t(op.tensor)});")
            return
        if isinstance(op, M.AtOp):
            parts = []
            for value, coeff in op.term_list():
                if value is None:
                    parts.append(str(coeff))
                else:
                    text = self._t(value)
                    parts.append(text if coeff == 1 else f"{text} * {coeff}")
            self.exprs[op.result] = Expr(f"{self._t(op.base)}[{' + '.join(parts)}]", self.expr(op.base).ctype)
            return
        if isinstance(op, M.ReinterpretCastOp):
            base = self.expr(op.source)
            self.exprs[op.result] = Expr(f"{base.text}.ReinterpretCast<{self._elem(op.result)}>()", base.ctype)
            return
        if isinstance(op, M.ParamsOp):
            name = self._var(op)
            struct = op.struct if op.element is None else f"{op.struct}<{ctype(op.element)}>"
            add(f"{struct} {name};")
            for key, value in op.all_items():
                if isinstance(value, SSAValue):
                    add(f"{name}.{key} = {self._t(value)};")
                elif key in ENUM_FIELDS:
                    enum, members = ENUM_FIELDS[key]
                    add(f"{name}.{key} = {enum}::{members[value]};")
                else:
                    add(f"{name}.{key} = {_bool(value) if isinstance(value, bool) else value};")
            self.exprs[op.result] = Expr(name, struct)
            return
        if isinstance(op, M.DataCopyOp):
            dst, src = self._t(op.dst), self._t(op.src)
            if op.count is not None:
                add(f"DataCopy({dst}, {src}, {op.count.value.data});")
            elif op.params is not None:
                add(f"DataCopy({dst}, {src}, DataCopyParams({', '.join(map(str, _ints(op, 'params')))}));")
            else:
                add(f"DataCopy({dst}, {src}, {self._t(op.struct_params)});")  # type: ignore[arg-type]
            return
        if isinstance(op, M.DataCopyPadOp):
            ext_values = [str(v) for v in _ints(op, "ext")]
            runtime = op.runtime_fields  # a partial tile's valid rows and columns, at run time
            for k, (field, ctype_) in enumerate(zip(M.DataCopyPadOp.EXT_FIELDS, _EXT_TYPES)):
                if field in runtime:
                    ext_values[k] = f"static_cast<{ctype_}>({self.expr(runtime[field]).text})"
            ext = ", ".join(ext_values)
            tail = ""
            if op.pad is not None:
                pad = [str(v) for v in _ints(op, "pad")]
                pad[0] = _bool(pad[0] != "0")
                if "rightPadding" in runtime:
                    pad[2] = f"static_cast<uint8_t>({self.expr(runtime['rightPadding']).text})"
                if "paddingValue" in runtime:
                    pad[3] = self.expr(runtime["paddingValue"]).text
                tail = f", DataCopyPadExtParams<{self._elem(op.dst)}>({', '.join(pad)})"
            add(f"DataCopyPad({self._t(op.dst)}, {self._t(op.src)}, DataCopyExtParams({ext}){tail});")
            return
        if isinstance(op, C.VectorOp):
            return self._vector(op)
        if isinstance(op, X.GetValueOp):
            c = self._elem(op.tensor)
            name = self._var(op)
            add(f"{c} {name} = {self._t(op.tensor)}.GetValue({self._t(op.index)});")
            self.exprs[op.result] = Expr(name, c)
            return
        if isinstance(op, X.SetValueOp):
            add(f"{self._t(op.tensor)}.SetValue({self._t(op.index)}, {self._t(op.value)});")
            return
        if isinstance(op, X.DataCacheCleanAndInvalidOp):
            c = self._elem(op.tensor)
            add(f"DataCacheCleanAndInvalid<{c}, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>({self._t(op.tensor)});")
            return
        if isinstance(op, C.L1ToL0LoadOp | C.MmadOp | C.FixpipeOp):
            add(f"{op.CXX_NAME}({self._args(op.operands)});")
            return
        if isinstance(op, S.FetchEventIdOp | S.AllocEventIdOp):
            call = "FetchEventID" if isinstance(op, S.FetchEventIdOp) else "AllocEventID"
            name = self._var(op)
            add(f"TEventID {name} = {self._t(op.pipe)}.{call}<HardEvent::{op.event.data.value}>();")
            self.exprs[op.result] = Expr(name, "TEventID")
            return
        if isinstance(op, S.ReleaseEventIdOp):
            add(f"{self._t(op.pipe)}.ReleaseEventID<HardEvent::{op.event.data.value}>({self._t(op.id)});")
            return
        if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
            fn = "SetFlag" if isinstance(op, S.SetFlagOp) else "WaitFlag"
            add(f"{fn}<HardEvent::{op.hard_event.value}>({self._t(op.id)});")
            return
        if isinstance(op, S.PipeBarrierOp):
            add(f"PipeBarrier<{op.pipe_kind.value}>();")
            return
        if isinstance(op, S.CrossCoreSetFlagOp | S.CrossCoreWaitFlagOp):
            fn = "CrossCoreSetFlag" if isinstance(op, S.CrossCoreSetFlagOp) else "CrossCoreWaitFlag"
            add(f"{fn}<{op.mode_value}, {op.pipe_kind.value}>({op.id_value});")
            return
        if isinstance(op, M.SetAtomicAddOp):
            add(f"SetAtomicAdd<{ctype(op.element)}>();")
            return
        if isinstance(op, M.SetAtomicNoneOp):
            add("SetAtomicNone();")
            return
        if isinstance(op, C.GetBlockIdxOp):
            self.exprs[op.result] = Expr(_block_index(op), "int64_t")
            return
        if isinstance(op, H.HcclRankIdOp | H.HcclRankDimOp):
            fn = "GetRankId" if isinstance(op, H.HcclRankIdOp) else "GetRankDim"
            self.exprs[op.result] = Expr(f"static_cast<int64_t>({self._t(op.hccl)}.{fn}())", "int64_t")
            return
        if isinstance(op, H.HcclWindowOp):
            name, c = self._var(op), ctype(op.result.type.element_type)
            rank = f"static_cast<uint32_t>({self._t(op.rank)})"
            add(f"GlobalTensor<{c}> {name};  // a window of rank {self._t(op.rank)}: its windows-in region + {self._t(op.offset)}")
            add(f"{name}.SetGlobalBuffer((__gm__ {c}*)({self._t(op.hccl)}.GetWindowsInAddr({rank}) + {self._t(op.offset)}), "
                f"{op.size.value.data});")
            self.exprs[op.result] = Expr(name, "GlobalTensor")
            return
        if isinstance(op, C.GetBlockNumOp | C.GetSubBlockIdxOp):
            fn = "GetBlockNum" if isinstance(op, C.GetBlockNumOp) else "GetSubBlockIdx"
            self.exprs[op.result] = Expr(f"AscendC::{fn}()", "int64_t")
            return
        if isinstance(op, C.UnaryMinusOp):
            s = self.expr(op.input)
            if s.literal and s.text.startswith("-"):
                text = s.text[1:]
            elif s.literal or s.text.isidentifier():
                text = f"-{s.text}"
            else:
                text = f"-({s.text})"
            # C++ promotes a negated 8/16-bit integer to int: the expression is an int
            promoted = s.ctype in _PROMOTED_TO_INT
            self.exprs[op.result] = Expr(text, "int32_t" if promoted else s.ctype)
            return
        if isinstance(op, C.ScalarCastOp):
            c = ctype(op.result.type)
            s = self.expr(op.input)
            self.exprs[op.result] = Expr(s.text if s.ctype == c else f"static_cast<{c}>({s.text})", c)
            return
        super().emit_other(op)

    def _vector(self, op: C.VectorOp) -> None:
        add = self.out.add
        fn = op.CXX_NAME
        operands = self._args(op.operands)
        if isinstance(op, C.DuplicateBitsOp):
            name = self._var(op)
            lo, hi, repeat = (self.expr(v).text for v in (op.mask_lo, op.mask_hi, op.repeat))
            add(f"uint64_t {name}[2] = {{static_cast<uint64_t>({lo}), static_cast<uint64_t>({hi})}};")
            blk, rep = _ints(op, "params")
            add(f"Duplicate({self._t(op.dst)}, {self._t(op.scalar)}, {name}, static_cast<uint8_t>({repeat}), {blk}, {rep});")
            return
        if isinstance(op, C.DuplicateOp) and op.extents:
            head = f"{self._t(op.dst)}, {self._t(op.scalar)}"
            if op.level0:  # run-time continuous mask and repeat
                mask, repeat = (self.expr(v).text for v in op.extents)
                blk, rep = _ints(op, "params")
                add(f"Duplicate({head}, static_cast<uint64_t>({mask}), static_cast<uint8_t>({repeat}), {blk}, {rep});")
            else:
                add(f"Duplicate({head}, static_cast<int32_t>({self.expr(op.extents[0]).text}));")
            return
        if isinstance(op, C.CastOp):
            add(f"Cast({self._t(op.dst)}, {self._t(op.src)}, RoundMode::{op.round.data.value}, {_int(op, 'count')});")
        elif isinstance(op, C.WholeReduceOp):
            order = f", ReduceOrder::{op.properties['order'].data.value}" if "order" in op.properties else ""  # type: ignore[union-attr]
            strides = ", ".join(map(str, _ints(op, "strides")))
            add(f"{fn}({operands}, {_int(op, 'mask')}, {_int(op, 'repeat')}, {strides}{order});")
        elif isinstance(op, C.BrcbOp):
            add(f"Brcb({operands}, {_int(op, 'repeat')}, BrcbRepeatParams({', '.join(map(str, _ints(op, 'params')))}));")
        elif isinstance(op, C.GatherbOp):
            params = ", ".join(map(str, _ints(op, "params")))
            add(f"Gatherb({operands}, {_int(op, 'repeat')}, GatherRepeatParams({params}));")
        elif isinstance(op, C.TransposeOp):
            add(f"Transpose({operands});")
        elif isinstance(op, C.SelectOp | C.SelectScalarOp):
            add(f"Select({operands}, SELMODE::{op.mode.data.value}, {_int(op, 'count')});")
        elif isinstance(op, C.CompareOp | C.ComparesOp):
            add(f"{fn}({operands}, CMPMODE::{op.mode.data.value}, {_int(op, 'count')});")
        elif "count" in op.properties:
            add(f"{fn}({operands}, {_int(op, 'count')});")
        else:
            params = _ints(op, "params")
            struct = "BinaryRepeatParams" if len(params) == 6 else "UnaryRepeatParams"
            add(f"{fn}({operands}, {_int(op, 'mask')}, {_int(op, 'repeat')}, {struct}({', '.join(map(str, params))}));")

    def emit_constant(self, op: arith.ConstantOp) -> None:
        """Infinities and NaN as the devkit spells them in kernels (`NumericLimits<T>`; kernel
        code has no <limits>)."""
        value = op.value
        if isinstance(value, FloatAttr) and not math.isfinite(value.value.data):
            v = value.value.data
            c = ctype(op.result.type)
            fn = "QuietNaN" if math.isnan(v) else "NegativeInfinity" if v < 0 else "Infinity"
            self.exprs[op.result] = Expr(f"NumericLimits<{c}>::{fn}()", c, literal=True, const_value=v)
            return
        super().emit_constant(op)

    def emit_op(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp) or op.dialect_name() != "ascendc":
            return super().emit_op(op)
        self.emit_other(op)


def print_ascendc_kernel(kernel: KernelOp, members: dict[str, KernelOp] | None = None) -> str:
    """The Ascend C source of one ascendc.kernel (a MIX kernel's file holds its `members`)."""
    return KernelPrinter(kernel).print(members)


def print_kernel(kernel: KernelOp | program.FuncOp) -> str:
    """The Ascend C source of one planned, synchronised ascendc.kernel."""
    if not isinstance(kernel, KernelOp):
        raise BackendError(
            f"ascendc: @{kernel.sym_name.data} is a pypto function; print_kernel prints an ascendc.kernel "
            "(lower it first: transforms.pipelines.lower_kernel_for_ascendc)"
        )
    return print_ascendc_kernel(kernel)


def workspace_bytes(kernel: KernelOp | program.FuncOp) -> int:
    """Workspace bytes per block that a launch of the kernel must provide (0: none)."""
    if isinstance(kernel, KernelOp):
        return kernel.workspace_bytes
    return workspace_plan(kernel)[1]
