"""Helpers of the tests that cover the behaviour of PyPTO's own pass tests
(test_reference_inline.py, test_reference_outline*.py): run a pass on a compiled program,
compare structure up to names (CSE on both sides, as the reference compares up to
alpha-renaming), inspect functions, parameters and launches."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from pypto_xdsl.dialects.attributes import ParamDirection
from pypto_xdsl.dialects.program import CallOp, FuncOp, SubmitOp
from pypto_xdsl.frontend.program import Program
from pypto_xdsl.interpreter import assert_same_semantics
from pypto_xdsl.runtime.passes import apply_passes

IN, OUT, INOUT = ParamDirection.IN, ParamDirection.OUT, ParamDirection.INOUT


def after(program: Program, passes: Sequence[str]) -> tuple[ModuleOp, ModuleOp]:
    """(the program's module, the module after `passes`)."""
    before = program.fresh_module()
    module = program.fresh_module()
    apply_passes(module, list(passes))
    module.verify()
    return before, module


def outlined(program: Program) -> ModuleOp:
    return after(program, ["outline-incore-scopes"])[1]


def inlined(program: Program) -> ModuleOp:
    return after(program, ["inline-functions"])[1]


def funcs(module: ModuleOp) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}


def kinds(module: ModuleOp) -> dict[str, str]:
    return {name: f.func_kind.value for name, f in funcs(module).items()}


def params(func: FuncOp) -> list[tuple[str | None, ParamDirection]]:
    """(name, direction) of each parameter."""
    return [(a.name_hint, d) for a, d in zip(func.args, func.directions)]


def launches(func: FuncOp) -> list[CallOp | SubmitOp]:
    """The calls and submits in `func`, in program order."""
    return [op for op in func.body.walk() if isinstance(op, CallOp | SubmitOp)]


def arg_names(op: CallOp | SubmitOp) -> list[str | None]:
    return [a.name_hint for a in op.args]


def op_names(func: FuncOp, prefix: str = "pypto.") -> list[str]:
    return [op.name for op in func.body.walk() if op is not func and op.name.startswith(prefix)]


def cse(module: ModuleOp) -> ModuleOp:
    CommonSubexpressionElimination().apply(Context(), module)
    return module


def assert_same_structure(actual: ModuleOp, expected: ModuleOp) -> None:
    """Equal up to value names (both sides CSE'd: where constants sit does not matter)."""
    cse(actual)
    cse(expected)
    assert actual.is_structurally_equivalent(expected), f"got:\n{actual}\nexpected:\n{expected}"


def same_meaning(before: ModuleOp, module: ModuleOp, entry: str = "main", **kwargs) -> None:
    assert_same_semantics(before, module, entry, **kwargs)


def only(items: Sequence[Operation]) -> Operation:
    assert len(items) == 1, items
    return items[0]
