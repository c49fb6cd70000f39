"""The deferred-waiter contract: what a task that runs `pypto.system.defer_wait` may do.

A task registering completion conditions (a *deferred waiter*) finishes its body at once
while its task id stays incomplete until every condition holds; the runtime keeps at most
`MAX_CONDITIONS` conditions per waiter. So the waiter's body must be registration only:

* scalar bookkeeping (`arith`, index arithmetic, constants), structured control flow and
  `defer_wait` registrations;
* `pypto.tensor.read` only *before* the first registration (reading a threshold);
* no tensors created or carried, no results, no calls, no other pypto op (payload, cache,
  communication or continuation work belongs in a task depending on the waiter);
* a loop that registers must have a statically known positive trip count, and may not
  read tensors; the static maximum of registrations (loops multiply, branches take the
  larger, sequences add) is at most `MAX_CONDITIONS`.

`deferred_waiter_errors(block)` checks a scope body (or an outlined function body) and
returns the first violation, worded as PyPTO reports it, or None. The walk recurses per
nested region (a waiter nests a loop and a branch), not per op.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation

from pypto_xdsl.analysis.static_loops import static_trip_count
from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.dialects.distributed import DeferWaitOp, DistributedTensorType

MAX_CONDITIONS = 64

TENSOR_READ_AFTER_REGISTRATION = (
    "deferred waiter cannot execute tensor reads, payload, cache, communication, or "
    "continuation work after pld.system.defer_wait registration begins"
)
TENSOR_READ_IN_LOOP = (
    "deferred waiter loop may execute tensor reads or continuation work after registering "
    "its first condition; loop bodies may contain only pure scalar bookkeeping, control "
    "flow, and defer_wait registrations"
)
PAYLOAD_TENSORS = "deferred waiter is registration-only and cannot create or update payload tensors"
RETURNS_VALUE = "deferred waiter is registration-only and cannot return a value"
DYNAMIC_LOOP = (
    "deferred waiter registration loop must have a statically known positive trip count so "
    "the per-waiter condition budget can be proved"
)
WHILE_LOOP = "deferred waiter supports only sequential/unrolled scalar registration loops"
EARLY_RESOLVE = (
    "pl.at(...) containing pld.system.defer_wait cannot use allow_early_resolve=True; the "
    "waiter's TaskId must remain unresolved until its registered signal condition is satisfied"
)
NESTED_LAUNCH = (
    "pld.system.defer_wait must be in a task-level pl.at(CORE_GROUP) scope; nesting the "
    "waiter under pl.spmd or another task-launch scope is unsupported because the outer "
    "launch owns dispatch predicate and early-resolve semantics"
)
PREDICATED = (
    "pld.system.defer_wait task cannot use a dispatch predicate; every submitted waiter must "
    "register its completion condition"
)


def too_many(n: int) -> str:
    return f"deferred waiter supports at most {MAX_CONDITIONS} conditions, but may statically register {n}"


def _call_message(callee: str) -> str:
    return (
        f"deferred waiter scalar bookkeeping supports only a pre-registration tensor.read "
        f"call; unexpected operation '{callee}'"
    )


def _unexpected(op: Operation) -> str:
    return f"deferred waiter is registration-only; unexpected operation '{op.name}'"


class WaiterError(Exception):
    """A violation of the deferred-waiter contract (the message is PyPTO's wording)."""


def contains_defer_wait(block: Block) -> bool:
    return any(isinstance(op, DeferWaitOp) for op in block.walk())


def _is_shaped(t) -> bool:
    return isinstance(t, TensorType | TileType | DistributedTensorType)


def deferred_waiter_errors(block: Block) -> str | None:
    """The first violation of the waiter contract in `block` (a waiter body), or None."""
    try:
        _check_block(block)
    except WaiterError as e:
        return str(e)
    return None


def _check_block(body: Block) -> None:
    """Walk the body in program order keeping whether registration has begun; count the
    static maximum of conditions per region, combining nested regions on the way out."""
    started = False

    def count_block(block: Block, in_loop: bool) -> int:
        nonlocal started
        total = 0
        for op in block.ops:
            total += count_op(op, in_loop)
        return total

    def count_op(op: Operation, in_loop: bool) -> int:
        nonlocal started
        if isinstance(op, DeferWaitOp):
            started = True
            return 1
        if op.name == "pypto.tensor.read":
            if started:
                raise WaiterError(TENSOR_READ_AFTER_REGISTRATION)
            return 0
        if isinstance(op, scf.ForOp):
            if any(_is_shaped(t) for t in op.iter_args.types):
                raise WaiterError(PAYLOAD_TENSORS)
            registers = any(isinstance(o, DeferWaitOp) for o in op.body.walk())
            if registers:
                if any(o.name == "pypto.tensor.read" for o in op.body.walk()):
                    raise WaiterError(TENSOR_READ_IN_LOOP)
                trips = static_trip_count(op)
                if trips is None or trips <= 0:
                    raise WaiterError(DYNAMIC_LOOP)
            else:
                trips = 0
            inner = count_block(op.body.block, True)
            return trips * inner
        if isinstance(op, scf.WhileOp):
            if any(_is_shaped(t) for t in op.arguments.types):
                raise WaiterError(PAYLOAD_TENSORS)
            if any(isinstance(o, DeferWaitOp) for o in op.walk()):
                raise WaiterError(WHILE_LOOP)
            return count_block(op.before_region.block, True) + count_block(op.after_region.block, True)
        if isinstance(op, scf.IfOp):
            if any(_is_shaped(t) for t in op.result_types):
                raise WaiterError(PAYLOAD_TENSORS)
            then = count_block(op.true_region.block, in_loop)
            other = count_block(op.false_region.block, in_loop) if op.false_region.blocks else 0
            return max(then, other)
        if isinstance(op, scf.YieldOp | scf.ConditionOp):
            return 0
        if op.name == "pypto.yield":
            if op.operands:
                raise WaiterError(RETURNS_VALUE)
            return 0
        if op.name in ("pypto.call", "pypto.submit"):
            raise WaiterError(_call_message(op.callee.root_reference.data))  # type: ignore[attr-defined]
        if op.dialect_name() in ("arith", "index") or op.name in ("pypto.tile.get_block_idx", "pypto.tile.get_block_num"):
            if any(_is_shaped(t) for t in op.result_types):
                raise WaiterError(PAYLOAD_TENSORS)
            return 0
        if any(_is_shaped(t) for t in op.result_types):
            raise WaiterError(PAYLOAD_TENSORS)
        raise WaiterError(_unexpected(op))

    n = count_block(body, False)
    if n > MAX_CONDITIONS:
        raise WaiterError(too_many(n))
