"""Index values as linear forms `c + sum(k_i * atom_i)` over opaque SSA atoms, so that two
offsets computed along different paths can be compared (pair-cube-blocks: is the second
block's B window the columns right after the first's?).

Constants, `arith.addi`/`subi` and `arith.muli` by a constant are followed; an `scf.if`
result is followed into the branch its condition takes when the known ranges of the atoms
(a loop's induction variable over its iterations) decide an `arith.cmpi`; everything else is
an atom. A loop variable whose range is one value is that constant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import OpResult, SSAValue


@dataclass(frozen=True)
class LinearForm:
    const: int
    terms: frozenset[tuple[SSAValue, int]] = frozenset()

    @staticmethod
    def of(const: int, terms: Mapping[SSAValue, int] | None = None) -> LinearForm:
        return LinearForm(const, frozenset((v, k) for v, k in (terms or {}).items() if k))

    def _terms(self) -> dict[SSAValue, int]:
        return dict(self.terms)

    def __add__(self, other: LinearForm) -> LinearForm:
        terms = self._terms()
        for v, k in other.terms:
            terms[v] = terms.get(v, 0) + k
        return LinearForm.of(self.const + other.const, terms)

    def scaled(self, factor: int) -> LinearForm:
        return LinearForm.of(self.const * factor, {v: k * factor for v, k in self.terms})

    def __sub__(self, other: LinearForm) -> LinearForm:
        return self + other.scaled(-1)

    @property
    def constant(self) -> int | None:
        return None if self.terms else self.const


_DECIDE = {
    "slt": lambda lo, hi: True if hi < 0 else False if lo >= 0 else None,
    "sle": lambda lo, hi: True if hi <= 0 else False if lo > 0 else None,
    "sgt": lambda lo, hi: True if lo > 0 else False if hi <= 0 else None,
    "sge": lambda lo, hi: True if lo >= 0 else False if hi < 0 else None,
    "eq": lambda lo, hi: True if lo == hi == 0 else False if lo > 0 or hi < 0 else None,
    "ne": lambda lo, hi: False if lo == hi == 0 else True if lo > 0 or hi < 0 else None,
}
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@dataclass
class IndexForms:
    """Linear forms of index values; `ranges` bounds some atoms (inclusive)."""

    ranges: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)
    _cache: dict[SSAValue, LinearForm] = field(default_factory=dict)

    def form(self, value: SSAValue) -> LinearForm:
        found = self._cache.get(value)
        if found is None:
            found = self._cache[value] = self._form(value)
        return found

    def _form(self, value: SSAValue) -> LinearForm:
        span = self.ranges.get(value)
        if span is not None and span[0] == span[1]:
            return LinearForm.of(span[0])
        op = value.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return LinearForm.of(op.value.value.data)
        if isinstance(op, arith.AddiOp):
            return self.form(op.lhs) + self.form(op.rhs)
        if isinstance(op, arith.SubiOp):
            return self.form(op.lhs) - self.form(op.rhs)
        if isinstance(op, arith.MuliOp):
            lhs, rhs = self.form(op.lhs), self.form(op.rhs)
            if lhs.constant is not None:
                return rhs.scaled(lhs.constant)
            if rhs.constant is not None:
                return lhs.scaled(rhs.constant)
        if isinstance(op, scf.IfOp) and isinstance(value, OpResult):
            taken = self.decide(op.cond)
            if taken is not None:
                region = op.true_region if taken else op.false_region
                yield_op = region.block.last_op if region.blocks else None
                if isinstance(yield_op, scf.YieldOp):
                    return self.form(yield_op.operands[value.index])
        return LinearForm.of(0, {value: 1})

    def bounds(self, form: LinearForm) -> tuple[int, int] | None:
        lo = hi = form.const
        for v, k in form.terms:
            span = self.ranges.get(v)
            if span is None:
                return None
            a, b = k * span[0], k * span[1]
            lo, hi = lo + min(a, b), hi + max(a, b)
        return lo, hi

    def decide(self, cond: SSAValue) -> bool | None:
        """The value of an `arith.cmpi` (signed or equality) whenever its operands' ranges
        decide it; None otherwise."""
        op = cond.owner
        if not isinstance(op, arith.CmpiOp):
            return None
        predicate = _PREDICATES[op.predicate.value.data]
        decide = _DECIDE.get(predicate)
        span = self.bounds(self.form(op.lhs) - self.form(op.rhs))
        if decide is None or span is None:
            return None
        return decide(*span)


__all__ = ["IndexForms", "LinearForm"]
