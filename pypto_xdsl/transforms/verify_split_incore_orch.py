"""`verify-split-incore-orch`: after outline-incore-scopes, no `pypto.incore_scope` is left
outside an InCore function or nested in another (errors); a tensor compute op left in an
orchestration function is reported as a warning."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.dialects.attributes import ORCHESTRATION_LIKE_KINDS, FuncKind
from pypto_xdsl.dialects.program import FuncOp, IncoreScopeOp
from pypto_xdsl.transforms.outline_incore_scopes import enclosing_scope
from pypto_xdsl.utils import walk_ops

# Tensor ops that only describe or move data (no compute): allowed in orchestration code.
NON_COMPUTE_TENSOR_OPS = frozenset(
    {
        "pypto.tensor.create",
        "pypto.tensor.read",
        "pypto.tensor.write",
        "pypto.tensor.slice",
        "pypto.tensor.assemble",
        "pypto.tensor.dim",
        "pypto.tensor.reshape",
        "pypto.tensor.reinterpret_view",
        "pypto.tensor.transpose",
        "pypto.tensor.view",
    }
)


@dataclass
class SplitIncoreOrchReport:
    errors: list[str]
    warnings: list[str]


def check_split_incore_orch(module: ModuleOp) -> SplitIncoreOrchReport:
    """SplitIncoreOrch + NoNestedInCore over a module (one walk per function).

    Errors: a `pypto.incore_scope` in a function that is not InCore-kind (it should have
    been outlined), or nested in another scope. Warnings: a tensor compute op left in an
    orchestration function (it should be inside an InCore function).
    """
    errors: list[str] = []
    warnings: list[str] = []
    for op in walk_ops(module):
        if isinstance(op, IncoreScopeOp):
            func = op.parent_op()
            while func is not None and not isinstance(func, FuncOp):
                func = func.parent_op()
            where = f"@{func.sym_name.data}" if isinstance(func, FuncOp) else "a non-pypto function"
            if enclosing_scope(op, module) is not None:
                errors.append(
                    f"nested InCore scope detected in {where}: InCore scopes must not contain "
                    f"other InCore scopes"
                )
            elif not (isinstance(func, FuncOp) and func.func_kind == FuncKind.INCORE):
                errors.append(
                    f"InCore scope (pypto.incore_scope) found in non-InCore function {where} "
                    f"(should have been outlined)"
                )
        elif op.name.startswith("pypto.tensor.") and op.name not in NON_COMPUTE_TENSOR_OPS:
            func = op.parent_op()
            while func is not None and not isinstance(func, FuncOp | IncoreScopeOp):
                func = func.parent_op()
            if isinstance(func, FuncOp) and func.func_kind in ORCHESTRATION_LIKE_KINDS:
                warnings.append(
                    f"compute tensor op '{op.name}' found in {func.func_kind.value} function "
                    f"@{func.sym_name.data} (should be inside InCore)"
                )
    return SplitIncoreOrchReport(errors, warnings)


@dataclass(frozen=True)
class VerifySplitIncoreOrchPass(ModulePass):
    """Verifier: no incore scope outside InCore functions, none nested (errors);
    tensor compute ops in orchestration functions are reported as warnings on stderr."""

    name = "verify-split-incore-orch"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        report = check_split_incore_orch(op)
        for w in report.warnings:
            print(f"warning: {w}", file=sys.stderr)
        if report.errors:
            raise PassFailedException(
                "verify-split-incore-orch: " + "; ".join(report.errors)
            )
