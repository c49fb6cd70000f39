"""Op traits and interfaces shared by the pypto op families."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException


@dataclass(frozen=True)
class ResultAliasesOperand(OpTrait):
    """Result 0 names the same storage as operand `operand_index` (write-through ops)."""

    operand_index: int


_ALIAS_TRAITS: dict[type[Operation], ResultAliasesOperand | None] = {}


def alias_trait(op: Operation) -> ResultAliasesOperand | None:
    """`op`'s ResultAliasesOperand trait, looked up once per op class (traits are static):
    the passes ask it of every op they walk."""
    cls = type(op)
    try:
        return _ALIAS_TRAITS[cls]
    except KeyError:
        trait = _ALIAS_TRAITS[cls] = op.get_trait(ResultAliasesOperand)
        return trait


def aliased_operand(op: Operation) -> SSAValue | None:
    """The operand whose storage result 0 of `op` names, if `op` writes through one."""
    trait = alias_trait(op)
    if trait is None:
        return None
    return op.operands[trait.operand_index]


class InferResultTypes:
    """An op whose result types follow from its operands and properties.

    Result types that are an op parameter (the shape of a `tile.load`, the dtype of a
    `cast`) are taken from the declared result type, after checking it against the
    operands. Passes call `infer_result_types` after substituting operands to re-derive
    types; the verifier checks that the declared types equal the inferred ones.
    """

    def infer_result_types(self) -> Sequence[Attribute]:
        """Raise VerifyException naming the offending operand when operands are invalid."""
        raise NotImplementedError

    def verify_result_types(self) -> None:
        expected = tuple(self.infer_result_types())
        actual = self.result_types
        if expected != tuple(actual):
            for i, (a, e) in enumerate(zip(actual, expected)):
                if a != e:
                    raise VerifyException(
                        f"result #{i} has type {a}, but the operands imply {e}"
                    )
            raise VerifyException(
                f"expected {len(expected)} results, got {len(actual)}"
            )

    def verify_(self) -> None:
        self.verify_result_types()
