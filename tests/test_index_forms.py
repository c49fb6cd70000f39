"""Linear forms of index values (analysis/index_forms.py): what pair-cube-blocks relies on to
see that the second block's B window starts where the first's ends."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1
from xdsl.ir import Block, Region

from pypto_xdsl.analysis.index_forms import IndexForms, LinearForm


def _const(block: Block, value: int):
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    block.add_op(op)
    return op.result


def _add(block: Block, op):
    block.add_op(op)
    return op.results[0]


def _column_of(block: Block, j, band):
    """`if j < 2 { 256 + (2 * band + j) * 128 } else { 96 * band }` (the benchmark's deal)."""
    cond = _add(block, arith.CmpiOp(j, _const(block, 2), "slt"))
    then, other = Block(), Block()
    c2, c128, c256 = _const(then, 2), _const(then, 128), _const(then, 256)
    two_band = _add(then, arith.MuliOp(c2, band))
    col = _add(then, arith.AddiOp(c256, _add(then, arith.MuliOp(_add(then, arith.AddiOp(two_band, j)), c128))))
    then.add_op(scf.YieldOp(col))
    other.add_op(scf.YieldOp(_add(other, arith.MuliOp(_const(other, 96), band))))
    return _add(block, scf.IfOp(cond, [IndexType()], Region(then), Region(other)))


def test_adjacent_columns_through_a_branch_the_loop_range_decides():
    block = Block(arg_types=[IndexType(), IndexType()])
    j, band = block.args
    j_second = _add(block, arith.AddiOp(j, _const(block, 1)))
    first, second = _column_of(block, j, band), _column_of(block, j_second, band)
    # j only takes 0 (a loop 0..2 step 2): both branches are the `then` one
    forms = IndexForms({j: (0, 0)})
    assert (forms.form(second) - forms.form(first)).constant == 128
    assert forms.form(first) == LinearForm.of(256, {band: 256})
    # j in 0..2: j + 1 may be 3, the branch is not decided and the columns are unrelated atoms
    wide = IndexForms({j: (0, 2)})
    assert (wide.form(second) - wide.form(first)).constant is None


def test_comparisons_decided_by_ranges_and_not():
    block = Block(arg_types=[IndexType(), IndexType()])
    i, x = block.args
    forms = IndexForms({i: (0, 7)})
    c8, c0, c7 = _const(block, 8), _const(block, 0), _const(block, 7)
    assert forms.decide(_add(block, arith.CmpiOp(i, c8, "slt"))) is True
    assert forms.decide(_add(block, arith.CmpiOp(i, c0, "sge"))) is True
    assert forms.decide(_add(block, arith.CmpiOp(i, c7, "sgt"))) is False
    assert forms.decide(_add(block, arith.CmpiOp(i, c7, "slt"))) is None  # 7 is in range
    assert forms.decide(_add(block, arith.CmpiOp(i, x, "slt"))) is None  # x unbounded
    assert forms.decide(_add(block, arith.CmpiOp(i, c8, "ult"))) is None  # unsigned: not decided here
    assert forms.decide(_const(block, 1)) is None  # not a comparison


def test_forms_follow_add_sub_and_constant_products_only():
    block = Block(arg_types=[IndexType(), IndexType()])
    a, b = block.args
    three = _const(block, 3)
    e = _add(block, arith.SubiOp(_add(block, arith.MuliOp(a, three)), _add(block, arith.AddiOp(a, _const(block, 5)))))
    forms = IndexForms()
    assert forms.form(e) == LinearForm.of(-5, {a: 2})
    product = _add(block, arith.MuliOp(a, b))  # not linear: an atom of its own
    assert forms.form(product) == LinearForm.of(0, {product: 1})
    assert (forms.form(product) - forms.form(product)).constant == 0
    flag = block.insert_arg(i1, 2)
    assert forms.form(_add(block, arith.SelectOp(flag, a, b))).constant is None
