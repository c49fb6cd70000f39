"""`ascendc.kernel`, `ascendc.return` and `ascendc.launch`: an Ascend C kernel function and its
launch from host code.

    ascendc.kernel vector @add(%x: !ascendc.gm_addr, %s: f32, %z: !ascendc.gm_addr)
        attributes {results = [#ascendc.result<param 2>]} {
      ...
      ascendc.return
    }

    %r = ascendc.launch @add blocks 4 (%x, %s, %z) : (!pypto.tensor<[64, 128], f32>, f32,
        !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>

A kernel is `extern "C" __global__ __aicore__ void <name>(GM_ADDR x, float s, GM_ADDR z)`; its
`results` say which parameter each result of the program's kernel function was written
through (or which workspace slot it lives in), `workspace` is the per-block bytes of its
trailing workspace parameter, `memory_plan` (set by ascendc-plan-buffers) the bytes used and
available per on-chip memory, `sync` (set by ascendc-insert-sync) how PIPE_V ordering was
decided. `ascendc.launch` replaces the program's `pypto.call`/`pypto.submit` of the kernel in
orchestration code: its operands and results are the program's tensors and scalars.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    Float16Type,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, SymbolOpInterface, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.ascendc_memory import BlockWorkspaceOp
from pypto_xdsl.dialects.ascendc_types import (
    POSITION_MEMORY,
    TMP_UB_OFFSET,
    BufferType,
    GmAddrType,
    KernelKind,
    KernelKindAttr,
    Memory,
    QueueType,
    TPosition,
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_CUBE_POSITIONS = frozenset({TPosition.A1, TPosition.A2, TPosition.B1, TPosition.B2, TPosition.C1, TPosition.C2,
                             TPosition.CO1})
_VECTOR_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC})


def is_scalar_param(t: Attribute) -> bool:
    return isinstance(t, IndexType | Float32Type | Float16Type | BFloat16Type) or (
        isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64)
    )


@irdl_attr_definition
class KernelResultAttr(ParametrizedAttribute):
    """`#ascendc.result<param 2>` (result written through parameter 2) or
    `#ascendc.result<workspace 512>` (a kernel-local tensor at byte 512 of the workspace)."""

    name = "ascendc.result"
    kind: StringAttr
    value: IntAttr

    def __init__(self, kind: str, value: int):
        super().__init__(StringAttr(kind), IntAttr(value))

    def verify(self) -> None:
        if self.kind.data not in ("param", "workspace"):
            raise VerifyException(f"a kernel result is 'param N' or 'workspace OFFSET', not '{self.kind.data}'")
        if self.value.data < 0:
            raise VerifyException("a kernel result index or offset is not negative")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_keyword_in(("param", "workspace"))
            value = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (StringAttr(kind), IntAttr(value))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind.data} {self.value.data}>")


# Properties printed as keywords, the rest in the attribute dictionary.
_KERNEL_PROPS = ("arg_names", "results", "workspace", "memory_plan", "sync", "group", "task_ratio")


@irdl_op_definition
class KernelOp(IRDLOperation):
    """An Ascend C kernel: `extern "C" __global__ __aicore__ void name(GM_ADDR ..., scalars ...)`."""

    name = "ascendc.kernel"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(KernelKindAttr)
    results_ = opt_prop_def(ArrayAttr[KernelResultAttr], prop_name="results")
    workspace = opt_prop_def(IntegerAttr)
    memory_plan = opt_prop_def(DictionaryAttr)
    sync = opt_prop_def(StringAttr)
    arg_names = opt_prop_def(ArrayAttr[StringAttr])
    group = opt_prop_def(StringAttr)  # a MIX kernel's member: the core branch of that kernel, an inline function
    task_ratio = opt_prop_def(IntegerAttr)  # a MIX kernel's AIVs per AIC: 1 (KERNEL_TYPE_MIX_AIC_1_1, the default) or 2 (_1_2)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, sym_name: str, kind: KernelKind, arg_types: Sequence[Attribute], body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=arg_types))
        super().__init__(
            properties={"sym_name": StringAttr(sym_name), "kind": KernelKindAttr(kind)}, regions=[body]
        )

    # ---- accessors

    @property
    def kernel_kind(self) -> KernelKind:
        return self.kind.data

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    @property
    def vector_cores(self) -> int:
        """AIVs per AIC of a MIX kernel (`task_ratio`, default 1)."""
        return self.task_ratio.value.data if self.task_ratio is not None else 1

    @property
    def workspace_bytes(self) -> int:
        return self.workspace.value.data if self.workspace is not None else 0

    @property
    def launch_params(self) -> tuple[SSAValue, ...]:
        """The parameters a launch passes (all but the trailing workspace)."""
        return self.args[:-1] if self.workspace_bytes else self.args

    @property
    def result_kinds(self) -> list[KernelResultAttr]:
        return list(self.results_.data) if self.results_ is not None else []

    def memory(self) -> dict[Memory, tuple[int, int]]:
        """memory -> (used, capacity) recorded by ascendc-plan-buffers."""
        out: dict[Memory, tuple[int, int]] = {}
        if self.memory_plan is None:
            return out
        for key, entry in self.memory_plan.data.items():
            used = entry.data.get("used") if isinstance(entry, DictionaryAttr) else None
            cap = entry.data.get("capacity") if isinstance(entry, DictionaryAttr) else None
            if isinstance(used, IntegerAttr) and isinstance(cap, IntegerAttr) and key in Memory.__members__.values():
                out[Memory(key)] = (used.value.data, cap.value.data)
        return out

    # ---- verification

    def verify_(self) -> None:
        name = self.sym_name.data
        for k, arg in enumerate(self.args):
            if not (isinstance(arg.type, GmAddrType) or is_scalar_param(arg.type)):
                raise VerifyException(
                    f"parameter #{k} of kernel @{name} is {arg.type}; kernel parameters are !ascendc.gm_addr or scalars"
                )
        if self.workspace is not None:
            if self.workspace_bytes <= 0:
                raise VerifyException(f"kernel @{name}: 'workspace' must be positive, got {self.workspace_bytes}")
            if not self.args or not isinstance(self.args[-1].type, GmAddrType):
                raise VerifyException(f"kernel @{name} has a workspace but its last parameter is not !ascendc.gm_addr")
        for op in self.body.walk():
            if isinstance(op, BlockWorkspaceOp) and op.part_bytes != self.workspace_bytes:
                # the host allocates blocks x 'workspace' bytes: parts of another size would
                # overlap the next block's part or reach past the allocation
                raise VerifyException(
                    f"kernel @{name}: its block's part of the workspace is {self.workspace_bytes} bytes "
                    f"('workspace'), but '{op.var.data}' takes parts of {op.part_bytes}"
                )
        for r in self.result_kinds:
            if r.kind.data == "param":
                k = r.value.data
                if k >= len(self.launch_params) or not isinstance(self.args[k].type, GmAddrType):
                    raise VerifyException(f"kernel @{name}: result written through parameter #{k}, which is not a GM parameter")
            elif self.workspace is None or r.value.data >= self.workspace_bytes:
                raise VerifyException(f"kernel @{name}: result in workspace byte {r.value.data}, outside its workspace")
        if self.memory_plan is not None:
            for key, entry in self.memory_plan.data.items():
                if key not in Memory.__members__.values():
                    raise VerifyException(f"kernel @{name}: 'memory_plan' names unknown memory '{key}'")
                if not (isinstance(entry, DictionaryAttr) and isinstance(entry.data.get("used"), IntegerAttr)
                        and isinstance(entry.data.get("capacity"), IntegerAttr)):
                    raise VerifyException(f"kernel @{name}: 'memory_plan' entry {key} needs integer 'used' and 'capacity'")
        if self.arg_names is not None:
            if len(self.arg_names.data) != len(self.args):
                raise VerifyException(f"kernel @{name} has {len(self.args)} parameters but {len(self.arg_names.data)} 'arg_names'")
            for n in self.arg_names.data:
                if not _IDENTIFIER.fullmatch(n.data):
                    raise VerifyException(f"kernel @{name}: parameter name '{n.data}' is not a C++ identifier")
        if self.task_ratio is not None:
            if self.kernel_kind != KernelKind.MIX:
                raise VerifyException(f"kernel @{name}: 'task_ratio' (AIVs per AIC) belongs to MIX kernels only")
            if self.task_ratio.value.data not in (1, 2):
                raise VerifyException(
                    f"kernel @{name}: 'task_ratio' is 1 (KERNEL_TYPE_MIX_AIC_1_1) or 2 (_1_2), got {self.task_ratio.value.data}"
                )
        if self.group is not None and self.kernel_kind == KernelKind.MIX:
            raise VerifyException(f"kernel @{name}: a member of a MIX kernel runs on one core (kind cube or vector)")
        if self.kernel_kind == KernelKind.MIX and any(isinstance(op, CoreCallOp) for op in self.body.block.ops):
            for op in self.body.block.ops:
                if not isinstance(op, CoreCallOp | ReturnOp):
                    raise VerifyException(
                        f"MIX kernel @{name} branches to its members (ascendc.core_call) and holds no other op, "
                        f"but holds '{op.name}'"
                    )
        if self.sync is not None and self.sync.data not in ("explicit", "auto"):
            raise VerifyException(f"kernel @{name}: 'sync' is \"explicit\" or \"auto\", got \"{self.sync.data}\"")
        self._verify_declarations()

    def _verify_declarations(self) -> None:
        from pypto_xdsl.dialects.ascendc_memory import InitBufferOp, uses_reserved_ub

        name = self.sym_name.data
        names: dict[str, Operation] = {}
        if self.arg_names is not None:
            for n in self.arg_names.data:
                if n.data in names:
                    raise VerifyException(f"kernel @{name} names two parameters '{n.data}'")
                names[n.data] = self
        positions: set[TPosition] = set()
        used: dict[Memory, int] = {}
        reserved = False
        for op in self.walk():
            n = op.properties.get("name")
            if isinstance(n, StringAttr) and op is not self:
                if not _IDENTIFIER.fullmatch(n.data):
                    raise VerifyException(f"kernel @{name}: '{n.data}' ({op.name}) is not a C++ identifier")
                if n.data in names:
                    first = "a parameter" if names[n.data] is self else names[n.data].name
                    raise VerifyException(f"kernel @{name} declares '{n.data}' twice ({first} and {op.name})")
                names[n.data] = op
            for r in op.results:
                if isinstance(r.type, QueueType | BufferType):
                    positions.add(r.type.pos)
            if isinstance(op, InitBufferOp):
                t = op.buffer.type
                mem = POSITION_MEMORY.get(t.pos)  # type: ignore[union-attr]
                if mem is not None:
                    used[mem] = used.get(mem, 0) + op.total_bytes
            reserved = reserved or uses_reserved_ub(op)
        kind = self.kernel_kind
        if kind == KernelKind.VECTOR and positions & _CUBE_POSITIONS:
            bad = sorted(p.value for p in positions & _CUBE_POSITIONS)
            raise VerifyException(f"vector kernel @{name} declares cube buffers ({', '.join(bad)}); use kind cube or mix")
        if kind == KernelKind.CUBE and positions & _VECTOR_POSITIONS:
            bad = sorted(p.value for p in positions & _VECTOR_POSITIONS)
            raise VerifyException(f"cube kernel @{name} declares vector buffers ({', '.join(bad)}); use kind vector or mix")
        plan = self.memory()
        if self.memory_plan is None:
            return  # capacities are the plan's invariant (ascendc-plan-buffers records them)
        for mem, total in used.items():
            if mem not in plan:
                raise VerifyException(f"kernel @{name} has {mem.value} buffers but its 'memory_plan' has no {mem.value} entry")
            recorded, capacity = plan[mem]
            if mem == Memory.UB and reserved and capacity > TMP_UB_OFFSET:
                raise VerifyException(
                    f"kernel @{name} uses an API with hidden UB scratch above TMP_UB_OFFSET ({TMP_UB_OFFSET} bytes) "
                    f"but plans {capacity} bytes of UB"
                )
            if total > capacity:
                raise VerifyException(
                    f"kernel @{name} initialises {total} bytes of {mem.value} buffers but its plan allows {capacity}"
                )
            if total != recorded:
                raise VerifyException(
                    f"kernel @{name} initialises {total} bytes of {mem.value} buffers but its 'memory_plan' records {recorded}"
                )

    # ---- custom syntax

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        kind = parser.parse_str_enum(KernelKind)
        sym_name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        op = cls(sym_name, kind, [a.type for a in args], body)
        if attributes is not None:
            for key, value in attributes.data.items():
                if key in _KERNEL_PROPS:
                    op.properties[key] = value
                else:
                    op.attributes[key] = value
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kernel_kind.value} ")
        printer.print_symbol_name(self.sym_name.data)
        with printer.in_parens():
            printer.print_list(self.body.block.args, printer.print_block_argument)
        extra = {k: self.properties[k] for k in _KERNEL_PROPS if k in self.properties}
        extra.update(self.attributes)
        if extra:
            printer.print_op_attributes(extra, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """The end of a kernel body (C++: the closing brace)."""

    name = "ascendc.return"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))
    assembly_format = "attr-dict"


class CoreCallSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, CoreCallOp)
        parent = op.parent_op()
        if op.core.data not in ("aic", "aiv") or not isinstance(parent, KernelOp) or parent.kernel_kind != KernelKind.MIX:
            return  # CoreCallOp.verify_ reports the core and the placement
        callee = lookup_symbol(op, op.callee)
        name = op.callee.string_value()
        if not isinstance(callee, KernelOp):
            raise VerifyException(f"'@{name}' does not refer to an ascendc.kernel")
        want = KernelKind.CUBE if op.core.data == "aic" else KernelKind.VECTOR
        if callee.kernel_kind != want:
            raise VerifyException(
                f"the {op.core.data} branch calls @{name}, a {callee.kernel_kind.value} kernel; "
                f"it must be a {want.value} kernel"
            )
        if callee.group is None or callee.group.data != parent.sym_name.data:
            raise VerifyException(f"@{name} is not a member of this MIX kernel (its 'group' names another)")
        if [a.type for a in op.args] != [a.type for a in callee.args]:
            raise VerifyException(f"@{name} takes ({', '.join(str(a.type) for a in callee.args)}), "
                                  f"the branch passes ({', '.join(str(a.type) for a in op.args)})")


@irdl_op_definition
class CoreCallOp(IRDLOperation):
    """`ascendc.core_call aic @k_aic(%a, %b) : !ascendc.gm_addr, !ascendc.gm_addr`: in a MIX
    kernel, `if ASCEND_IS_AIC { k_aic(a, b); }` (`aiv`: ASCEND_IS_AIV), the member running on
    that core type (impl/utils/sys_macros.h)."""

    name = "ascendc.core_call"
    core = prop_def(StringAttr)
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    traits = traits_def(CoreCallSymbolUser())

    def __init__(self, core: str, callee: str, args: Sequence[SSAValue]):
        super().__init__(operands=[args], properties={"core": StringAttr(core), "callee": SymbolRefAttr(callee)})

    def verify_(self) -> None:
        if self.core.data not in ("aic", "aiv"):
            raise VerifyException(f"a core branch is 'aic' or 'aiv', not '{self.core.data}'")
        parent = self.parent_op()
        if not isinstance(parent, KernelOp) or parent.kernel_kind != KernelKind.MIX:
            raise VerifyException("ascendc.core_call branches to a member inside a MIX kernel (ascendc.kernel mix)")

    @classmethod
    def parse(cls, parser: Parser) -> CoreCallOp:
        core = parser.parse_keyword_in(("aic", "aiv"))
        callee = parser.parse_symbol_name().data
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(":"):
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(operands):
            parser.raise_error(f"expected {len(operands)} operand types, got {len(types)}")
        op = cls(core, callee, parser.resolve_operands(operands, types, parser.pos))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.core.data} ")
        printer.print_symbol_name(self.callee.string_value())
        with printer.in_parens():
            printer.print_list(self.args, printer.print_operand)
        if self.args:
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_op_attributes(self.attributes)


class LaunchSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, LaunchOp)
        callee = lookup_symbol(op, op.callee)
        name = op.callee.string_value()
        if not isinstance(callee, KernelOp):
            raise VerifyException(f"'@{name}' does not refer to an ascendc.kernel")
        params = callee.launch_params
        if len(op.args) != len(params):
            raise VerifyException(f"@{name} takes {len(params)} arguments, the launch passes {len(op.args)}")
        from pypto_xdsl.dialects.attributes import TaskIdType, TensorType

        for k, (arg, param) in enumerate(zip(op.args, params)):
            if isinstance(param.type, GmAddrType):
                if not isinstance(arg.type, TensorType):
                    raise VerifyException(f"argument #{k} of the launch of @{name} must be a tensor (a GM parameter), got {arg.type}")
            elif arg.type != param.type:
                raise VerifyException(f"argument #{k} of the launch of @{name} has type {arg.type}, expected {param.type}")
        if op.task is not None and (not op.res or not isinstance(op.res[-1].type, TaskIdType)):
            return  # LaunchOp.verify_ reports the missing task id
        n_tensors = len(op.res) - (1 if op.task is not None else 0)
        if n_tensors != len(callee.result_kinds):
            raise VerifyException(f"@{name} returns {len(callee.result_kinds)} tensors, the launch has {n_tensors}")


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """`ACLRT_LAUNCH_KERNEL(k)(blocks, stream, args...)`: a kernel launch in orchestration code.

    `deps` and `task` keep a `pypto.submit`'s task dependencies and task id (launches on one
    stream run in order, so they need no code)."""

    name = "ascendc.launch"
    callee = prop_def(FlatSymbolRefAttrConstr)
    blocks = prop_def(IntegerAttr)
    task = opt_prop_def(UnitAttr)
    args = var_operand_def()
    deps = var_operand_def()
    res = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(LaunchSymbolUser())

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        from pypto_xdsl.dialects.attributes import TaskIdType

        callee = parser.parse_symbol_name().data
        parser.parse_keyword("blocks")
        blocks = parser.parse_integer(allow_boolean=False, allow_negative=False)
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        deps = []
        if parser.parse_optional_keyword("deps") is not None:
            deps = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        task = parser.parse_optional_keyword("task") is not None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ft = parser.parse_function_type()
        if len(ft.inputs.data) != len(args):
            parser.raise_error(f"ascendc.launch has {len(args)} arguments but {len(ft.inputs.data)} types", pos, parser.pos)
        operands = [parser.resolve_operand(u, t) for u, t in zip(args, ft.inputs.data)]
        dep_values = [parser.resolve_operand(u, TaskIdType()) for u in deps]
        op = cls(callee, blocks, operands, list(ft.outputs.data), dep_values, task)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.string_value())
        printer.print_string(f" blocks {self.block_dim} (")
        printer.print_list(self.args, printer.print_operand)
        printer.print_string(")")
        if self.deps:
            printer.print_string(" deps(")
            printer.print_list(self.deps, printer.print_operand)
            printer.print_string(")")
        if self.task is not None:
            printer.print_string(" task")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(self.args.types, self.res.types)

    def __init__(self, callee: str, blocks: int, args: Sequence[SSAValue], result_types: Sequence[Attribute],
                 deps: Sequence[SSAValue] = (), task: bool = False):
        props: dict[str, Attribute] = {"callee": SymbolRefAttr(callee), "blocks": IntegerAttr(blocks, i64)}
        if task:
            props["task"] = UnitAttr()
        super().__init__(operands=[args, deps], result_types=[result_types], properties=props)

    def verify_(self) -> None:
        if self.blocks.value.data < 1:
            raise VerifyException(f"a launch runs on at least one block, got {self.blocks.value.data}")
        from pypto_xdsl.dialects.attributes import TaskIdType

        if self.task is not None and (not self.res or not isinstance(self.res[-1].type, TaskIdType)):
            raise VerifyException("a launch with 'task' has a !pypto.task_id as its last result")
        for d in self.deps:
            if not isinstance(d.type, TaskIdType):
                raise VerifyException(f"launch dependencies are task ids, got {d.type}")

    @property
    def block_dim(self) -> int:
        return self.blocks.value.data

    @property
    def outputs(self) -> Sequence[SSAValue]:
        """The tensor results (without the task id)."""
        return self.res[:-1] if self.task is not None else self.res
