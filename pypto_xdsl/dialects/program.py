"""Program-structure ops of the pypto dialect: functions, calls, returns, incore scopes and task
submission. The ops are defined by theme and gathered here, the import path the rest of the
project uses:

* functions.py: `pypto.func`, `pypto.return`, scalar write-backs, `pypto.dim_bounds`;
* calls.py: `pypto.call`, `pypto.submit` and the check of a call against its callee;
* scopes.py: `pypto.incore_scope`, `pypto.manual_scope`, `pypto.split_aiv`, `pypto.yield`;
* launch.py: how a call, a submit or a scope launches on cores (`pypto.block_dim`,
  `cores(%n)`, `pypto.no_dep`).
"""

from pypto_xdsl.dialects.calls import CallOp, SubmitOp, check_call_signature
from pypto_xdsl.dialects.functions import (
    DIM_BOUNDS_ATTR,
    FuncOp,
    ReturnOp,
    dim_bounds,
    func_ops,
    scalar_writebacks,
)
from pypto_xdsl.dialects.launch import (
    BLOCK_DIM_ATTR,
    NO_DEP_ATTR,
    SYNC_START_ATTR,
    launch_block_dim,
    launch_cores,
    no_dep_positions,
)
from pypto_xdsl.dialects.scopes import (
    SPLIT_AIV_EXCLUSIVE_MESSAGE,
    IncoreScopeOp,
    ManualScopeOp,
    SplitAivOp,
    YieldOp,
)

__all__ = [
    "BLOCK_DIM_ATTR",
    "DIM_BOUNDS_ATTR",
    "NO_DEP_ATTR",
    "SPLIT_AIV_EXCLUSIVE_MESSAGE",
    "SYNC_START_ATTR",
    "CallOp",
    "FuncOp",
    "IncoreScopeOp",
    "ManualScopeOp",
    "ReturnOp",
    "SplitAivOp",
    "SubmitOp",
    "YieldOp",
    "check_call_signature",
    "dim_bounds",
    "func_ops",
    "launch_block_dim",
    "launch_cores",
    "no_dep_positions",
    "scalar_writebacks",
]
