"""Shrink a failing program while it keeps failing the same way (greedy test-case reduction).

    from pypto_xdsl.fuzz.reduce import reduce_failure
    small = reduce_failure(text, "inline-functions", dims={"N": 4})

Steps, repeated until nothing more can be removed: delete an op, replacing each of its results
by a value of the same type that dominates its uses (one of the op's operands, else an argument
of the enclosing function); delete a function nobody calls. A candidate is kept when the
original-side program still verifies and runs, and the pipeline still fails at the same stage
with the same kind of error (`failure_signature`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import IsTerminator

from pypto_xdsl.dialects.program import CallOp, FuncOp, SubmitOp


def failure_signature(stage: str, message: str) -> tuple[str, str]:
    """The stage plus the error's type and wording with names, numbers and types removed."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    words = re.sub(r"[%@#!]?[\w.]*\d[\w.]*|'[^']*'|<[^>]*>|\[[^\]]*\]", "_", first)
    return stage, " ".join(words.split()[:6])


def _callees(module: ModuleOp) -> set[str]:
    return {
        op.callee.string_value() for op in module.walk() if isinstance(op, CallOp | SubmitOp)
    }


def _substitute(op: Operation, value: SSAValue) -> SSAValue | None:
    for operand in op.operands:
        if operand.type == value.type:
            return operand
    func = op.parent_op()
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op()
    if func is None:
        return None
    for arg in func.body.block.args:
        if arg.type == value.type:
            return arg
    return None


def _try_delete(module: ModuleOp, index: int) -> ModuleOp | None:
    """A copy of `module` without its `index`-th op (walk order), or None if not deletable."""
    clone = module.clone()
    ops = list(clone.walk())
    if index >= len(ops):
        return None
    op = ops[index]
    if op is clone or op.has_trait(IsTerminator) or op.parent_op() is clone and not isinstance(op, FuncOp):
        return None
    if isinstance(op, FuncOp):
        if op.sym_name.data in _callees(clone) or op.sym_name.data == "main":
            return None
        op.detach()
        op.erase()
        return clone
    replacements: list[SSAValue] = []
    for result in op.results:
        if not result.uses:
            continue
        sub = _substitute(op, result)
        if sub is None:
            return None
        replacements.append(sub)
    subs = iter(replacements)
    for result in op.results:
        if result.uses:
            result.replace_all_uses_with(next(subs))
    op.detach()
    op.erase()
    return clone


def reduce_module(
    module: ModuleOp, interesting: Callable[[ModuleOp], bool], max_attempts: int = 2000
) -> ModuleOp:
    """Greedily delete ops and functions from `module` while `interesting` holds."""
    current = module
    attempts = 0
    progress = True
    while progress and attempts < max_attempts:
        progress = False
        index = len(list(current.walk())) - 1
        while index > 0 and attempts < max_attempts:
            candidate = _try_delete(current, index)
            index -= 1
            if candidate is None:
                continue
            attempts += 1
            if interesting(candidate):
                current = candidate
                progress = True
                index = min(index, len(list(current.walk())) - 1)
    return current


def reduce_failure(
    program: str | ModuleOp,
    pipeline: str,
    entry: str = "main",
    dims: Mapping[str, int] | None = None,
    *,
    registry: dict[str, Any] | None = None,
    check_directions: bool = True,
    max_attempts: int = 2000,
) -> str:
    """The smallest variant (found greedily) of `program` that still fails `pipeline` the
    same way as `program` does (as `fuzz.check_module` reports it)."""
    from pypto_xdsl.fuzz.runner import check_module
    from pypto_xdsl.interpreter.api import parse_module

    module = parse_module(program) if isinstance(program, str) else program
    original = check_module(
        module, pipeline, entry, dims, registry=registry, check_directions=check_directions
    )
    if original is None:
        raise ValueError("the program does not fail: nothing to reduce")
    want = failure_signature(*original)

    def interesting(candidate: ModuleOp) -> bool:
        try:
            candidate.verify()
        except Exception:  # noqa: BLE001
            return False
        found = check_module(
            candidate, pipeline, entry, dims, registry=registry, check_directions=check_directions
        )
        return found is not None and found[0] != "original" and failure_signature(*found) == want

    return str(reduce_module(module, interesting, max_attempts))
