"""`pypto_op_definition`: `irdl_op_definition` with memoised constraint checks.

Verifying a large program runs IRDL's generic checks for every op (operand and result counts
and segment sizes, each operand, result and property constraint), and `pypto-opt` verifies
after parsing and after every pass. For an op without regions or successors those checks
depend only on the operand and result types and the properties, and the parser shares
instances of those (`InternedParsedType`, the call op's interned properties), so the outcome
is remembered per op definition and tuple of instances. A first sight (and any failure) runs
IRDL's own `OpDef.verify`, so every diagnostic is exactly xDSL's; later sights of the same
instances check only what can still differ: attributes and traits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, OpDef, OptAttributeDef, irdl_op_definition
from xdsl.irdl.constraints import VerificationContext
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.traits import InferResultTypes

OpT = TypeVar("OpT", bound=type[IRDLOperation])


class OpVerifyException(VerifyException):
    """A `VerifyException` raised on behalf of `op`, which a verifier of another op (a walk
    over a function, the module's symbol table) found at fault: tools report it at `op`."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op

# Distinct type signatures remembered per op; programs use few, fuzzers may use many.
MAX_SIGNATURES = 4096


class SignatureMemo:
    """The (operand types, result types, properties) for which an op's checks passed.

    `custom_verify` is the op's own `verify_`; when it is `InferResultTypes.verify_`, whose
    outcome also depends on nothing but those instances (no op infers from an operand's
    defining op or from attributes), a remembered signature skips it too.
    """

    def __init__(self, op_def: OpDef, custom_verify: Callable[[IRDLOperation], None] | None):
        self.op_def = op_def
        self.custom_verify = custom_verify
        self.custom_is_memoised = custom_verify is InferResultTypes.verify_
        # ids of the instances -> the instances themselves (kept alive, so the ids stay theirs)
        self.passed: dict[tuple[tuple[int, ...], tuple[str, ...], int, int], tuple[Attribute, ...]] = {}

    def verify(self, op: IRDLOperation) -> None:
        parts = (
            *(o.type for o in op.operands),
            *(r.type for r in op.results),
            *op.properties.values(),
        )
        key = (tuple(map(id, parts)), tuple(op.properties), len(op.regions), len(op.successors))
        seen = self.passed.get(key)
        if seen is not None and all(a is b for a, b in zip(seen, parts)):
            self._verify_attributes_and_traits(op)
            if self.custom_verify is not None and not self.custom_is_memoised:
                self.custom_verify(op)
            return
        self.op_def.verify(op)
        if self.custom_verify is not None:
            self.custom_verify(op)
        if len(self.passed) < MAX_SIGNATURES:
            self.passed[key] = parts

    @functools.cached_property
    def verifying_traits(self) -> tuple[OpTrait, ...]:
        """The traits that check something (most, like `Pure`, keep `OpTrait.verify`'s no-op)."""
        return tuple(t for t in self.op_def.traits if type(t).verify is not OpTrait.verify)

    def _verify_attributes_and_traits(self, op: Operation) -> None:
        """The tail of xDSL 0.74's `OpDef.verify`, in its order and with its messages."""
        if self.op_def.attributes:
            context = VerificationContext()
            for name, attr_def in self.op_def.attributes.items():
                if name not in op.attributes:
                    if isinstance(attr_def, OptAttributeDef):
                        continue
                    raise VerifyException(f"attribute '{name}' expected in operation '{op.name}'")
                attr_def.constr.verify(op.attributes[name], context)
        for trait in self.verifying_traits:
            trait.verify(op)


def memoisable(op_def: OpDef) -> bool:
    """No region or successor definitions, whose checks depend on more than the instances
    above (block counts, entry arguments sharing constraint variables with the operands);
    the memo key counts regions and successors, so an op given some anyway is re-checked."""
    return not op_def.regions and not op_def.successors


def pypto_op_definition(cls: OpT) -> OpT:
    """`irdl_op_definition`, with memoised constraint checks where they depend on instances only."""
    custom_verify: Callable[[IRDLOperation], None] | None = getattr(cls, "verify_", None)
    cls = irdl_op_definition(cls)
    op_def = cls.get_irdl_definition()
    if memoisable(op_def):
        memo = SignatureMemo(op_def, custom_verify)

        def verify_(self: IRDLOperation) -> None:
            memo.verify(self)

        cls.verify_ = verify_  # pyright: ignore[reportAttributeAccessIssue]
    return cls
