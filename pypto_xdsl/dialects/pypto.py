"""The `pypto` dialect: program structure, tensor, tile and cross-core op families, and their types."""

from xdsl.ir import Dialect

from pypto_xdsl.dialects import (
    attributes,
    distributed,
    distributed_comm,
    distributed_device,
    distributed_host,
    program,
    task_arrays,
    tile_mask,
)

PROGRAM_OPS = [
    program.FuncOp,
    program.ReturnOp,
    program.CallOp,
    program.SubmitOp,
    program.IncoreScopeOp,
    program.YieldOp,
    program.ManualScopeOp,
    program.SplitAivOp,
    *distributed.SIGNAL_OPS,
    *distributed_host.HOST_OPS,
    *distributed_comm.COMM_OPS,
    *distributed_device.DEVICE_OPS,
    *task_arrays.TASK_ARRAY_OPS,
]

ATTRIBUTES = [
    attributes.TensorType,
    attributes.TileType,
    attributes.TaskIdType,
    task_arrays.TaskIdArrayType,
    attributes.FuncKindAttr,
    attributes.ParamDirectionAttr,
    attributes.MemorySpaceAttr,
    attributes.LevelAttr,
    attributes.SplitModeAttr,
    attributes.PadValueAttr,
    attributes.AtomicKindAttr,
    tile_mask.CmpModeAttr,
    attributes.GatherCoalesceAttr,
    attributes.GatherOobAttr,
    *distributed.DISTRIBUTED_ATTRIBUTES,
    *distributed_host.HOST_ATTRIBUTES,
]


def _tensor_ops() -> list:
    try:
        from pypto_xdsl.dialects import tensor
    except ImportError:
        return []
    return list(tensor.TENSOR_OPS)


def _cross_core() -> tuple[list, list]:
    try:
        from pypto_xdsl.dialects import cross_core
    except ImportError:
        return [], []
    return list(cross_core.CROSS_CORE_OPS), list(cross_core.CROSS_CORE_ATTRIBUTES)


def _tile_ops() -> list:
    try:
        from pypto_xdsl.dialects import tile
    except ImportError:
        return []
    return list(tile.TILE_OPS)


_CROSS_CORE_OPS, _CROSS_CORE_ATTRIBUTES = _cross_core()

Pypto = Dialect(
    "pypto",
    [*PROGRAM_OPS, *_tensor_ops(), *_tile_ops(), *_CROSS_CORE_OPS],
    [*ATTRIBUTES, *_CROSS_CORE_ATTRIBUTES],
)
