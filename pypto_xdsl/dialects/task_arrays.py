"""Arrays of task ids in orchestration code: `!pypto.task_ids<N>` and its ops.

PyPTO's `pl.array.create(n, pl.TASK_ID)` records the task ids of a fan-out (one `pl.submit`
per element) so that one `deps=[array]` waits for all of them. The array is a value: setting
an element gives a new array, as `tensor.assemble` gives a new tensor, so loops carry it as
any other value. An element never set is "no task": a dependency on it is satisfied.

    %a = pypto.task_ids.create : !pypto.task_ids<4>
    %b = pypto.task_ids.set %a[%i], %t : !pypto.task_ids<4>
    %t = pypto.task_ids.get %b[%i] : !pypto.task_ids<4>
    %d = pypto.task_dummy deps(%t0, %t1)      // a task that only waits (PyPTO's system.task_dummy)
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntAttr, IntegerAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    param_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import TaskIdType


@irdl_attr_definition
class TaskIdArrayType(ParametrizedAttribute, TypeAttribute):
    """`!pypto.task_ids<N>`: N task ids (N > 0, static)."""

    name = "pypto.task_ids"
    extent: IntAttr = param_def(IntAttr)

    def __init__(self, extent: int | IntAttr):
        super().__init__(IntAttr(extent) if isinstance(extent, int) else extent)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=True)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.extent.data}>")

    def verify(self) -> None:
        if self.extent.data <= 0:
            raise VerifyException(f"!pypto.task_ids needs a positive extent, got {self.extent.data}")


def _check_orchestration(op: Operation) -> None:
    from pypto_xdsl.dialects.program import FuncOp

    func = op.parent_op()
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op()
    if isinstance(func, FuncOp) and func.is_incore:
        raise VerifyException(
            f"'{op.name}' in the {func.func_kind.value} function @{func.sym_name.data}: task ids exist "
            "only in orchestration code"
        )


def _check_index(op: Operation, index: SSAValue, array: Attribute) -> None:
    owner = index.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr) and isinstance(array, TaskIdArrayType):
        i, n = owner.value.value.data, array.extent.data
        if not 0 <= i < n:
            raise VerifyException(f"'{op.name}': index {i} is out of bounds of {array} (0..{n - 1})")


@irdl_op_definition
class TaskIdsCreateOp(IRDLOperation):
    """An array of task ids, every element "no task"."""

    name = "pypto.task_ids.create"
    result = result_def(TaskIdArrayType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, extent: int):
        super().__init__(result_types=[TaskIdArrayType(extent)])

    def verify_(self) -> None:
        _check_orchestration(self)


@irdl_op_definition
class TaskIdsSetOp(IRDLOperation):
    """The array with element `index` replaced by `value`."""

    name = "pypto.task_ids.set"
    T: ClassVar = VarConstraint("T", base(TaskIdArrayType))
    array = operand_def(T)
    index = operand_def(IndexType)
    value = operand_def(TaskIdType)
    result = result_def(T)
    assembly_format = "$array `[` $index `]` `,` $value attr-dict `:` type($array)"

    def __init__(self, array: SSAValue, index: SSAValue, value: SSAValue):
        super().__init__(operands=[array, index, value], result_types=[array.type])

    def verify_(self) -> None:
        _check_orchestration(self)
        _check_index(self, self.index, self.array.type)


@irdl_op_definition
class TaskIdsGetOp(IRDLOperation):
    """Element `index` of the array ("no task" when it was never set)."""

    name = "pypto.task_ids.get"
    array = operand_def(TaskIdArrayType)
    index = operand_def(IndexType)
    result = result_def(TaskIdType)
    assembly_format = "$array `[` $index `]` attr-dict `:` type($array)"

    def __init__(self, array: SSAValue, index: SSAValue):
        super().__init__(operands=[array, index], result_types=[TaskIdType()])

    def verify_(self) -> None:
        _check_orchestration(self)
        _check_index(self, self.index, self.array.type)


@irdl_op_definition
class TaskDummyOp(IRDLOperation):
    """A task that runs nothing and ends once every dependency has: one task id standing for
    many (PyPTO's `pl.system.task_dummy(deps=[...])`)."""

    name = "pypto.task_dummy"
    deps = var_operand_def(TaskIdType)
    result = result_def(TaskIdType)
    assembly_format = "`deps` `(` $deps `)` attr-dict"

    def __init__(self, deps: list[SSAValue]):
        super().__init__(operands=[deps], result_types=[TaskIdType()])

    def verify_(self) -> None:
        _check_orchestration(self)


TASK_ARRAY_OPS = [TaskIdsCreateOp, TaskIdsSetOp, TaskIdsGetOp, TaskDummyOp]
