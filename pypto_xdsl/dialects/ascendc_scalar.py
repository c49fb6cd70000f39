"""`ascendc` ops of the scalar unit: element access of a tensor.

    %v = ascendc.get_value "v" %t, %i : !ascendc.local_tensor<f32, VECCALC>, index
    ascendc.set_value %t, %i, %v : !ascendc.local_tensor<f32, VECCALC>, index, f32
    ascendc.data_cache_clean_and_invalid %g : !ascendc.gm_tensor<f32>

An element access of a Unified Buffer tensor runs on the scalar unit (PIPE_S): it is ordered
after the vector and MTE pipes' writes by SetFlag/WaitFlag<V_S> and <MTE2_S>, and later vector
instructions and copies after it by <S_V> and <S_MTE3> (the kernel lowering emits them around
each group of accesses).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.ascendc_format import AscendCFormat
from pypto_xdsl.dialects.ascendc_types import GlobalTensorType, LocalTensorType


def _check_tensor_and_index(op: IRDLOperation, tensor: SSAValue, index: SSAValue) -> Attribute:
    if not isinstance(index.type, IndexType | IntegerType):
        raise VerifyException(f"the index of {op.name} is an integer, got {index.type}")
    return tensor.type.element_type  # type: ignore[attr-defined]  # the operand constraint: a tensor


@irdl_op_definition
class GetValueOp(AscendCFormat, IRDLOperation):
    """`T name = t.GetValue(i);`"""

    name = "ascendc.get_value"
    var = prop_def(StringAttr, prop_name="name")
    tensor = operand_def(LocalTensorType | GlobalTensorType)
    index = operand_def()
    result = result_def()
    FORMAT_NAMED: ClassVar[bool] = True

    @classmethod
    def result_type(cls, operand_types, props):
        t = operand_types[0] if operand_types else None
        return t.element_type if isinstance(t, LocalTensorType | GlobalTensorType) else None

    def __init__(self, name: str, tensor: SSAValue, index: SSAValue):
        super().__init__(operands=[tensor, index], properties={"name": StringAttr(name)},
                         result_types=[tensor.type.element_type])  # type: ignore[attr-defined]

    def verify_(self) -> None:
        elem = _check_tensor_and_index(self, self.tensor, self.index)
        if self.result.type != elem:
            raise VerifyException(f"{self.name} returns the tensor's element type {elem}, got {self.result.type}")


@irdl_op_definition
class SetValueOp(AscendCFormat, IRDLOperation):
    """`t.SetValue(i, v);`"""

    name = "ascendc.set_value"
    tensor = operand_def(LocalTensorType | GlobalTensorType)
    index = operand_def()
    value = operand_def()

    def __init__(self, tensor: SSAValue, index: SSAValue, value: SSAValue):
        super().__init__(operands=[tensor, index, value])

    def verify_(self) -> None:
        elem = _check_tensor_and_index(self, self.tensor, self.index)
        if self.value.type != elem:
            raise VerifyException(
                f"the value {self.name} stores is {self.value.type} but the tensor holds {elem} "
                "(convert it with ascendc.scalar_cast)"
            )


@irdl_op_definition
class DataCacheCleanAndInvalidOp(AscendCFormat, IRDLOperation):
    """`DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(gm);`:
    writes back and drops the scalar data-cache line holding `gm`'s first element (a scalar
    GM access is then coherent with the MTE pipes' copies)."""

    name = "ascendc.data_cache_clean_and_invalid"
    tensor = operand_def(GlobalTensorType)

    def __init__(self, tensor: SSAValue):
        super().__init__(operands=[tensor])


SCALAR_OPS = [GetValueOp, SetValueOp, DataCacheCleanAndInvalidOp]
