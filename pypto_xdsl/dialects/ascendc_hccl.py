"""The HCCL kernel-side API a rank's kernel reaches its group's windows with (the devkit's
`include/adv_api/hccl/hccl.h`, class `AscendC::Hccl`):

    %h = ascendc.hccl "hccl"
    %r = ascendc.hccl_rank_id %h : !ascendc.hccl_client
    %n = ascendc.hccl_rank_dim %h : !ascendc.hccl_client
    %w = ascendc.hccl_window "w_gm" %h, %off, %rank size 64 : !ascendc.hccl_client, i64, index -> !ascendc.gm_tensor<f32>

* `hccl` (a declaration): `Hccl<HcclServerType::HCCL_SERVER_TYPE_AICPU> hccl;
  hccl.Init(GetHcclContext<0>());` — the client of the communication domain the kernel's
  launch carries (its context: the rank, the group's size, every rank's *windows in* region).
* `hccl_rank_id` / `hccl_rank_dim`: `hccl.GetRankId()`, `hccl.GetRankDim()`.
* `hccl_window`: a GlobalTensor of `size` elements at byte `%off` of rank `%rank`'s windows-in
  region, `(__gm__ T*)(hccl.GetWindowsInAddr(rank) + off)`: the window of that rank, which a
  copy or an element access then reads or writes directly (peer memory is addressable).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.ascendc_format import INT, AscendCFormat, check_positive, int_prop
from pypto_xdsl.dialects.ascendc_memory import Declaration, Expression
from pypto_xdsl.dialects.ascendc_types import GlobalTensorType

HCCL_CLIENT = "AscendC::Hccl<AscendC::HcclServerType::HCCL_SERVER_TYPE_AICPU>"


@irdl_attr_definition
class HcclType(ParametrizedAttribute, TypeAttribute):
    """`!ascendc.hccl_client`: an `AscendC::Hccl` client of the kernel's communication domain."""

    name = "ascendc.hccl_client"


@irdl_op_definition
class HcclOp(AscendCFormat, IRDLOperation):
    """`Hccl<...> name; name.Init(AscendC::GetHcclContext<0>());`"""

    name = "ascendc.hccl"
    var = prop_def(StringAttr, prop_name="name")
    result = result_def(HcclType)
    traits = traits_def(Declaration())
    FORMAT_NAMED: ClassVar[bool] = True

    @classmethod
    def result_type(cls, operand_types, props):
        return HcclType()

    def __init__(self, name: str = "hccl"):
        super().__init__(properties={"name": StringAttr(name)}, result_types=[HcclType()])


class _HcclQueryOp(AscendCFormat, IRDLOperation):
    @classmethod
    def result_type(cls, operand_types, props):
        return IndexType()

    def __init__(self, hccl: SSAValue):
        super().__init__(operands=[hccl], result_types=[IndexType()])


@irdl_op_definition
class HcclRankIdOp(_HcclQueryOp):
    """`hccl.GetRankId()`: this rank."""

    name = "ascendc.hccl_rank_id"
    hccl = operand_def(HcclType)
    result = result_def(IndexType)
    traits = traits_def(Pure(), Expression())


@irdl_op_definition
class HcclRankDimOp(_HcclQueryOp):
    """`hccl.GetRankDim()`: the number of ranks of the domain."""

    name = "ascendc.hccl_rank_dim"
    hccl = operand_def(HcclType)
    result = result_def(IndexType)
    traits = traits_def(Pure(), Expression())


@irdl_op_definition
class HcclWindowOp(AscendCFormat, IRDLOperation):
    """`GlobalTensor<T> name; name.SetGlobalBuffer((__gm__ T*)(hccl.GetWindowsInAddr(rank) + off), size);`"""

    name = "ascendc.hccl_window"
    var = prop_def(StringAttr, prop_name="name")
    hccl = operand_def(HcclType)
    offset = operand_def(IntegerType)
    rank = operand_def()
    size = prop_def(IntegerAttr)
    result = result_def(GlobalTensorType)
    FORMAT_NAMED: ClassVar[bool] = True
    FORMAT_KEYWORDS: ClassVar[tuple] = (("size", "size", INT, None),)

    def __init__(self, name: str, hccl: SSAValue, offset: SSAValue, rank: SSAValue, element_type: Attribute, size: int):
        super().__init__(
            operands=[hccl, offset, rank],
            properties={"name": StringAttr(name), "size": int_prop(size)},
            result_types=[GlobalTensorType(element_type)],
        )

    def verify_(self) -> None:
        check_positive(self, "size")
        t = self.rank.type
        if not (isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data > 1):
            raise VerifyException(f"the rank of ascendc.hccl_window is an integer scalar, got {t}")


HCCL_OPS = [HcclOp, HcclRankIdOp, HcclRankDimOp, HcclWindowOp]
HCCL_TYPES = [HcclType]
