"""The `ascendc` dialect: the Ascend C constructs the backend prints, one op per C++ statement
or declaration (the model is xDSL's `csl` dialect and its printer).

A kernel after `convert-pypto-to-ascendc`, `ascendc-plan-buffers` and `ascendc-insert-sync`:

    ascendc.kernel vector @add(%x: !ascendc.gm_addr, %z: !ascendc.gm_addr) attributes {...} {
      %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr
      %pipe = ascendc.tpipe "pipe"
      %inQ_a = ascendc.tque "inQ_a" : !ascendc.queue<VECIN, 1>
      ascendc.init_buffer %pipe, %inQ_a num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
      %a = ascendc.alloc_tensor "a" %inQ_a : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
      ascendc.data_copy %a, %x_gm count 1024 : ...
      ascendc.enque %inQ_a, %a : ...
      %a_1 = ascendc.deque %inQ_a, %a : ...
      ...
      ascendc.return
    }

Types and enums: ascendc_types.py; kernels and launches: ascendc_kernel.py; declarations,
local tensors and copies: ascendc_memory.py; instructions: ascendc_compute.py;
synchronisation: ascendc_sync.py; element access and atomics: ascendc_scalar.py. docs/dialect.md describes every op.
"""

from xdsl.ir import Dialect

from pypto_xdsl.dialects import (
    ascendc_compute,
    ascendc_hccl,
    ascendc_kernel,
    ascendc_memory,
    ascendc_scalar,
    ascendc_sync,
    ascendc_types,
)

KERNEL_OPS = [ascendc_kernel.KernelOp, ascendc_kernel.ReturnOp, ascendc_kernel.LaunchOp, ascendc_kernel.CoreCallOp]

ASCENDC_OPS = [
    *KERNEL_OPS,
    *ascendc_memory.DECLARATION_OPS,
    *ascendc_memory.TENSOR_OPS,
    *ascendc_memory.COPY_OPS,
    *ascendc_compute.VECTOR_OPS,
    *ascendc_compute.CUBE_OPS,
    *ascendc_compute.EXPRESSION_OPS,
    *ascendc_sync.SYNC_OPS,
    *ascendc_scalar.SCALAR_OPS,
    *ascendc_hccl.HCCL_OPS,
]

ASCENDC_ATTRIBUTES = [
    *ascendc_types.TYPES,
    *ascendc_types.ENUM_ATTRIBUTES,
    ascendc_kernel.KernelResultAttr,
    *ascendc_hccl.HCCL_TYPES,
]

AscendC = Dialect("ascendc", ASCENDC_OPS, ASCENDC_ATTRIBUTES)
