"""Frontend: tensor subscripts (windows), `while` loops, `pl.parallel` / `pl.pipeline`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr
from xdsl.parser import Parser
from xdsl.traits import Pure

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.frontend import ParserError
from pypto_xdsl.frontend.program import load_programs
from pypto_xdsl.tools.pypto_compile import make_context

ROOT = Path(__file__).resolve().parent.parent
N = pl.dynamic("N")
T64 = pl.Tensor[[64, 64], pl.FP32]
V64 = pl.Tensor[[64], pl.FP32]
SHAPE = [16, 32]
RNG = np.random.default_rng(7)


def funcs(prog) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in prog.module.ops if isinstance(f, FuncOp)}


def ops_of(op, cls) -> list:
    return [o for o in op.walk() if isinstance(o, cls)]


def const_of(value) -> int | None:
    owner = value.owner
    return owner.value.value.data if isinstance(owner, arith.ConstantOp) else None


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def compile_body(tmp_path, body: str, params: str = "x: pl.Tensor[[64, 64], pl.FP32]"):
    indented = "\n".join("        " + line for line in body.splitlines())
    source = (
        "import pypto_xdsl.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        f"    def main(self, {params}):\n"
        f"{indented}\n"
        "        return\n"
    )
    return load_programs(source, str(tmp_path / "prog.py"))


# =========================================================================== tensor windows


def test_static_subscript_is_a_slice_with_constant_offsets():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> pl.Tensor[[32, 48], pl.FP32]:
            return x[16:48, 16:]

    (s,) = ops_of(funcs(P)["main"], tensor_ops.SliceOp)
    assert s.result.type == TensorType([32, 48], pl.FP32.to_ir())
    assert [const_of(o) for o in s.offsets] == [16, 16]
    assert s.source is funcs(P)["main"].args[0]


def test_index_keeps_the_rank_and_missing_dimensions_are_whole():
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[N, 64], pl.FP32]):
            a = x[3]
            b = x[:, :16]
            c = x[2:5]
            return a, b, c

    a, b, c = ops_of(funcs(P)["main"], tensor_ops.SliceOp)
    assert a.result.type.get_shape() == (1, 64) and [const_of(o) for o in a.offsets] == [3, 0]
    assert b.result.type.get_shape() == ("N", 16) and [const_of(o) for o in b.offsets] == [0, 0]
    assert c.result.type.get_shape() == (3, 64) and [const_of(o) for o in c.offsets] == [2, 0]


def test_index_valued_bounds_with_a_constant_extent():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, r: pl.Scalar[pl.INDEX], out: pl.Out[T64]) -> T64:
            for i in pl.range(4):
                out[i * 16:(i + 1) * 16, r:r + 8] = x[i * 16:16 + i * 16, r + 1:9 + r]
            return out

    main = funcs(P)["main"]
    (loop,) = ops_of(main, scf.ForOp)
    (s,) = ops_of(loop, tensor_ops.SliceOp)
    assert s.result.type.get_shape() == (16, 8)
    row, col = s.offsets
    assert isinstance(row.owner, arith.MuliOp) and row.owner.lhs is loop.body.block.args[0]
    assert isinstance(col.owner, arith.AddiOp) and col.owner.lhs is main.args[1]
    (a,) = ops_of(loop, tensor_ops.AssembleOp)
    assert a.offsets[1] is main.args[1]
    # the stops are never emitted: only the offsets' arithmetic is
    assert len(ops_of(loop, arith.AddiOp)) == 1


def test_subscripts_read_and_write_the_right_elements():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, out: pl.Out[T64], r: pl.Scalar[pl.INDEX]) -> T64:
            for i in pl.range(4):
                out[i * 16:(i + 1) * 16] = pl.exp(x[i * 16:(i + 1) * 16, :])
            row = x[r, 0:32]
            out[0:1, 32:] = row + 1.0
            out[5, 0:32] += row
            out[r + 1:r + 3, 8:16] = x[0:2, 0:8]
            return out

    x = rand(64, 64)
    got = P.run(x, np.zeros_like(x), 9)
    want = np.exp(x)
    want[0, 32:] = x[9, :32] + 1
    want[5, :32] += x[9, :32]
    want[10:12, 8:16] = x[0:2, 0:8]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_item_assignment_rebinds_the_name_and_is_carried_by_control_flow():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, out: pl.Out[T64], flag: pl.Scalar[pl.INDEX]) -> T64:
            for i in pl.range(2):
                out[i * 8:i * 8 + 8] = x[0:8]
            if flag > 0:
                out[16:24] = x[8:16]
            alias = out
            out[24:32] = x[0:8]
            return alias

    main = funcs(P)["main"]
    (loop,) = ops_of(main, scf.ForOp)
    assert len(loop.iter_args) == 1 and loop.iter_args[0] is main.args[1]
    (branch,) = ops_of(main, scf.IfOp)
    assert len(branch.results) == 1
    assert branch.results[0].name_hint == "out"
    (last,) = [a for a in ops_of(main, tensor_ops.AssembleOp) if a.dest is branch.results[0]]
    # `alias` names the same storage as `out`: it sees the later write
    assert main.body.block.last_op.operands[0] is last.result
    x = rand(64, 64)
    for flag in (0, 1):
        want = np.zeros_like(x)
        want[0:8] = want[8:16] = want[24:32] = x[0:8]
        if flag:
            want[16:24] = x[8:16]
        np.testing.assert_allclose(P.run(x, np.zeros_like(x), flag), want)


def test_assigning_a_tile_to_a_window_is_a_store():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: T64, out: pl.Out[T64]) -> T64:
            t = pl.load(x, [0, 0], [16, 64])
            out[48:64, :] = pl.exp(t)
            return out

    k = funcs(P)["k"]
    (store,) = ops_of(k, tile_ops.StoreOp)
    assert [const_of(o) for o in store.offsets] == [48, 0]
    assert k.body.block.last_op.operands[0] is store.results[0]
    x = rand(64, 64)
    want = np.zeros_like(x)
    want[48:] = np.exp(x[:16])
    np.testing.assert_allclose(P.run(x, np.zeros_like(x)), want, rtol=1e-5)


def test_static_subscript_of_a_python_constant():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> pl.Tensor[[16, 32], pl.FP32]:
            return x[0:SHAPE[0], 0:SHAPE[1]]

    (s,) = ops_of(funcs(P)["main"], tensor_ops.SliceOp)
    assert s.result.type.get_shape() == (16, 32)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("y = x[0:n]", "extent of '0:n' must be a compile-time constant"),
        ("y = x[n:n * 2]", "not a compile-time constant: the end must be the start plus a constant"),
        ("y = x[n:]", "extent of 'n:' along dimension 0 is not static"),
        ("y = x[0:8:2]", "slice steps are not supported"),
        ("y = x[0:65]", "exceeds dimension 0 .* \\(extent 64\\)"),
        ("y = x[60:68]", "exceeds dimension 0"),
        ("y = x[64]", "exceeds dimension 0"),
        ("y = x[4:4]", "is empty"),
        ("y = x[-1]", "negative offset -1"),
        ("y = x[0, 0, 0]", "3 indices for a tensor of rank 2"),
        ("y = x[..., 0]", "'...' is not supported"),
        ("y = x[0.5]", "expected an integer"),
        ("t = pl.load(x, [0, 0], [8, 8])\ny = t[0:4]", "subscripts are not supported on tiles"),
        ("y = n[0]", "an index scalar cannot be subscripted"),
        ("x[0:8] = 1.0", "only a tensor or a tile can be assigned to a window"),
        ("x[0:8] = x[0:16]", "cannot assign a tensor .* to the window \\[8, 64\\]"),
        ("x[0:8] = pl.cast(x[0:8], pl.FP16)", "element types differ"),
        ("x[0:8][0:4] = x[0:4]", "item assignment needs a plain name"),
        ("n[0] = x", "item assignment is only supported on tensors"),
    ],
)
def test_window_diagnostics(tmp_path, body, message):
    with pytest.raises(ParserError, match=message) as info:
        compile_body(tmp_path, body, "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    err = info.value
    assert err.line is not None and err.line >= 7 and err.source_line is not None
    assert "^" in str(err) and "Traceback" not in str(err)


def _repeated_index_arithmetic(module) -> list[str]:
    """Pure integer / index ops that repeat an earlier op of their block (same name,
    operands, properties and result type)."""
    repeats = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                seen = set()
                for inner in block.ops:
                    if inner.regions or len(inner.results) != 1 or not inner.has_trait(Pure):
                        continue
                    if not isinstance(inner.results[0].type, IndexType | IntegerType):
                        continue
                    key = (inner.name, tuple(inner.operands), tuple(sorted(inner.properties.items())), inner.results[0].type)
                    if key in seen:
                        repeats.append(str(inner))
                    seen.add(key)
    return repeats


EXAMPLE_FILES = sorted(
    p for pattern in ("*.py", "kernels/*.py", "mixed/*.py") for p in (ROOT / "examples").glob(pattern)
)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_examples_compute_each_index_expression_once_per_block(path):
    for prog in load_programs(path.read_text(), str(path)):
        assert _repeated_index_arithmetic(prog.module) == []


def test_window_read_and_write_share_their_offsets(tmp_path):
    (prog,) = compile_body(
        tmp_path,
        "for r in pl.range(4):\n"
        "    x[r * 16:(r + 1) * 16, :] = pl.exp(x[r * 16:(r + 1) * 16, :])\n"
        "    t = pl.load(x, [r * 16 + 1, n], [8, 8])\n"
        "    x = pl.store(t, [r * 16 + 1, n], x)\n",
        "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INT64]",
    )
    module = prog.module
    assert _repeated_index_arithmetic(module) == []
    (sl,) = ops_of(module, tensor_ops.SliceOp)
    (asm,) = ops_of(module, tensor_ops.AssembleOp)
    (load,) = ops_of(module, tile_ops.LoadOp)
    (store,) = ops_of(module, tile_ops.StoreOp)
    assert sl.offsets[0] is asm.offsets[0]
    assert list(load.offsets) == list(store.offsets)
    assert len(ops_of(module, arith.IndexCastOp)) == 1  # n converted once for both uses


# =========================================================================== while


def test_while_carries_rebound_names_and_evaluates_the_condition_each_iteration():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            i = 0
            acc = x
            while i < n:
                acc = acc * 2.0
                i += 1
            return acc

    main = funcs(P)["main"]
    (loop,) = ops_of(main, scf.WhileOp)
    assert [r.name_hint for r in loop.results] == ["acc", "i"]
    assert loop.arguments[0] is main.args[0] and const_of(loop.arguments[1]) == 0
    cond = loop.before_region.block.last_op
    assert isinstance(cond, scf.ConditionOp)
    cmp = cond.condition.owner
    assert isinstance(cmp, arith.CmpiOp) and cmp.lhs is loop.before_region.block.args[1]
    assert list(cond.args) == list(loop.before_region.block.args)
    assert main.body.block.last_op.operands[0] is loop.results[0]
    x = rand(64, 64)
    for n in (0, 1, 3):
        np.testing.assert_allclose(P.run(x, n), x * 2.0**n, rtol=1e-6)


def test_while_with_tensor_condition_nested_control_flow_and_windows():
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
            row = 0
            total = 0.0
            while pl.read(x, [row, 0]) > 0.0 and row < 7:
                for j in pl.range(8):
                    v = pl.read(x, [row, j])
                    if v > 0.5:
                        total = total + v
                out[row:row + 1] = x[row:row + 1] * 3.0
                row = row + 1
            return out, row, total

    x = rand(8, 8)
    x[:, 0] = [1.0, 2.0, 0.5, -1.0, 3.0, 1.0, 1.0, 1.0]
    out, row, total = P.run(x, np.zeros_like(x))
    want = np.zeros_like(x)
    want[:3] = x[:3] * 3.0
    assert row == 3
    np.testing.assert_allclose(out, want, rtol=1e-6)
    np.testing.assert_allclose(total, x[:3][x[:3] > 0.5].sum(), rtol=1e-5)


def test_name_defined_only_inside_a_while_is_undefined_after_it(tmp_path):
    body = "i = 0\nwhile i < n:\n    tmp = i\n    i = i + 1\ny = tmp"
    with pytest.raises(ParserError, match="'tmp' is not defined here: 'tmp' is only defined inside the loop"):
        compile_body(tmp_path, body, "n: pl.Scalar[pl.INDEX]")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("while True:\n    pass", "must be a comparison \\(i1\\) computed at run time, got the constant True"),
        ("while x:\n    pass", "a 'while' condition must be a comparison"),
        ("i = 0\nwhile i < n:\n    i = i + 1\nelse:\n    pass", "'while ... else' is not supported"),
        ("i = 0\nwhile i < n:\n    i = x", "loop-carried variable 'i' changes type"),
        ("while k < n:\n    k = 1", "'k' is used before it is defined"),
        ("i = 0\nwhile i < n:\n    i = i + 1\n    break", "'break' is not supported"),
        ("for i in pl.range(n):\n    continue", "'continue' is not supported"),
    ],
)
def test_while_diagnostics(tmp_path, body, message):
    with pytest.raises(ParserError, match=message) as info:
        compile_body(tmp_path, body, "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")
    assert info.value.line is not None and info.value.line >= 7


# =========================================================================== pl.parallel / pl.pipeline


def test_parallel_and_pipeline_are_for_loops_with_a_kind_attribute():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, out: pl.Out[T64]) -> T64:
            for i in pl.range(2):
                out[i:i + 1] = x[i:i + 1]
            for b in pl.parallel(0, 64, 16):
                out[b:b + 16, 0:8] = x[b:b + 16, 8:16]
            for k, (acc,) in pl.pipeline(3, init_values=(x,)):
                acc2 = acc + 1.0
                res = pl.yield_(acc2)
            out[32:64] = res[0:32]
            return out

    loops = ops_of(funcs(P)["main"], scf.ForOp)
    kinds = [loop.attributes.get("pypto.loop_kind") for loop in loops]
    assert kinds == [None, StringAttr("parallel"), StringAttr("pipeline")]
    assert [const_of(v) for v in (loops[1].lb, loops[1].ub, loops[1].step)] == [0, 64, 16]
    assert isinstance(loops[2].body.block.args[0].type, IndexType)
    # the attribute survives printing and parsing
    reparsed = Parser(make_context(), str(P)).parse_module()
    assert [op.attributes.get("pypto.loop_kind") for op in reparsed.walk() if isinstance(op, scf.ForOp)] == kinds
    x = rand(64, 64)
    want = np.zeros_like(x)
    want[0:2] = x[0:2]
    for b in range(0, 64, 16):
        want[b:b + 16, 0:8] = x[b:b + 16, 8:16]
    want[32:64] = x[0:32] + 3.0
    np.testing.assert_allclose(P.run(x, np.zeros_like(x)), want, rtol=1e-6)
    np.testing.assert_allclose(P.run(x, np.zeros_like(x), passes=["pypto-default"]), want, rtol=1e-6)


def test_unroll_is_a_for_loop_over_constants_whose_rebound_names_are_carried():
    """PyPTO's `pl.unroll` (unrolled at compile time there): the same iterations as pl.range,
    tagged `unroll`; names rebound in it (PyPTO's unrolled copies) are carried."""

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, v: pl.Tensor[[6], pl.FP32], t: pl.InOut[pl.Tensor[[3, 2], pl.FP32]]) -> pl.Tensor[[3, 2], pl.FP32]:
            for k in pl.unroll(2):
                for r in pl.unroll(0, 3, 1):
                    val = pl.read(v, [k * 3 + r])
                    t = pl.write(t, [r, k], val)
            return t

    loops = ops_of(funcs(P)["main"], scf.ForOp)
    assert [loop.attributes.get("pypto.loop_kind") for loop in loops] == [StringAttr("unroll")] * 2
    v = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(P.run(v, np.zeros((3, 2), np.float32)), v.reshape(2, 3).T)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("for i in pl.parallel(4, chunk=2):\n    pass", "pl.parallel does not accept 'chunk'"),
        ("for i in pl.pipeline():\n    pass", "pl.pipeline takes 1 to 3 arguments"),
        ("y = pl.parallel(3)", "pl.parallel is only allowed as the iterable of a 'for' loop"),
        ("for i in pl.tile.load(x, [0, 0], [8, 8]):\n    pass", "loops must iterate over pl.range"),
        ("for i, (a,) in pl.unroll(2, init_values=(x,)):\n    pass", "pl.unroll does not accept 'init_values'"),
        ("n = pl.tensor.dim(x, 0)\nfor i in pl.unroll(n):\n    pass", "the bounds of pl.unroll are compile-time int constants"),
        ("y = pl.unroll(3)", "pl.unroll is only allowed as the iterable of a 'for' loop"),
    ],
)
def test_parallel_diagnostics(tmp_path, body, message):
    with pytest.raises(ParserError, match=message):
        compile_body(tmp_path, body)


# =========================================================================== pl.at optimizations


def test_pl_at_optimizations_give_split_and_slots():
    from pypto_xdsl.dialects.attributes import SplitMode
    from pypto_xdsl.dialects.program import IncoreScopeOp

    @pl.program
    class P:
        @pl.function
        def main(self, a: V64, out: pl.Out[V64]) -> V64:
            with pl.at(
                level=pl.Level.CORE_GROUP,
                optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)],
            ):
                out = pl.store(pl.load(a, [0], [64]), [0], out)
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT, slot_num=2)]):
                out = pl.store(pl.exp(pl.load(out, [0], [64])), [0], out)
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):
                out = pl.store(pl.load(out, [0], [64]) * 2.0, [0], out)
            return out

    s1, s2, s3 = ops_of(funcs(P)["main"], IncoreScopeOp)
    assert s1.split.data == SplitMode.UP_DOWN and s1.slot_num.value.data == 4
    assert s2.split.data == SplitMode.LEFT_RIGHT and s2.slot_num.value.data == 2
    assert s3.split is None and s3.slot_num is None
    a = rand(64)
    np.testing.assert_allclose(P.run(a, np.zeros_like(a), passes=["pypto-default"]), np.exp(a) * 2.0, rtol=1e-6)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.split(pl.SplitMode.UP_DOWN)]", "split mode of the scope is given twice"),
        ("split=pl.SplitMode.UP_DOWN, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]", "given twice"),
        ("optimizations=[pl.cross_core_slot(slot_num=2), pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]", "conflicting slot counts 2 and 4"),
        ("optimizations=[pl.cross_core_slot(slot_num=0)]", "'slot_num' of pl.cross_core_slot must be a positive integer"),
        ("optimizations=[pl.split(2)]", "'mode' of pl.split must be a pl.SplitMode member"),
        ("optimizations=pl.split(pl.SplitMode.UP_DOWN)", "optimizations must be a list"),
        ("optimizations=[x]", "optimizations must be a list of pl.split"),
    ],
)
def test_pl_at_optimization_diagnostics(tmp_path, options, message):
    body = f"with pl.at(level=pl.Level.CORE_GROUP, {options}):\n    y = pl.exp(x)"
    with pytest.raises(ParserError, match=message):
        compile_body(tmp_path, body)


def test_undefined_name_in_a_window_end_is_reported_as_such(tmp_path):
    with pytest.raises(ParserError, match="name 'm' is not defined"):
        compile_body(tmp_path, "y = x[n:n + m]", "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]")


def test_window_assignment_inside_a_scope_becomes_a_scope_result():
    from pypto_xdsl.dialects.program import IncoreScopeOp

    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, out: pl.Out[T64]) -> T64:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
                    t = pl.load(x, [i * 16, 0], [16, 64])
                    out[i * 16:(i + 1) * 16] = pl.exp(t)
            return out

    (scope,) = ops_of(funcs(P)["main"], IncoreScopeOp)
    assert len(scope.outputs) == 1 and scope.outputs[0].name_hint == "out"
    x = rand(64, 64)
    for passes in ([], ["pypto-default"]):
        np.testing.assert_allclose(P.run(x, np.zeros_like(x), passes=passes), np.exp(x), rtol=1e-6)


# =========================================================================== pl.split_aiv

R2 = pl.Tensor[[2, 8], pl.FP32]


def test_split_aiv_regions_in_incore_functions_scopes_and_orchestration():
    from pypto_xdsl.dialects.attributes import SplitMode
    from pypto_xdsl.dialects.program import IncoreScopeOp, SplitAivOp
    from pypto_xdsl.runtime.passes import apply_passes

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: R2, out: pl.Out[R2]) -> R2:
            for aiv_id in pl.split_aiv(mode=pl.SplitMode.NONE):
                out[aiv_id, :] = pl.exp(pl.load(a, [aiv_id, 0], [1, 8]))
            return out

        @pl.function
        def scoped(self, a: R2, out: pl.Out[R2]) -> R2:
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)]):
                for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    out = pl.store(pl.load(a, [lane, 0], [1, 8]), [lane, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: R2, out: pl.Out[R2]) -> R2:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id, 0], [1, 8])
                out = pl.store(t, [aiv_id, 0], out)
            return out

    f = funcs(P)
    (region,) = ops_of(f["k"], SplitAivOp)
    assert region.mode.data == SplitMode.NONE and region.lane.name_hint == "aiv_id"
    (store,) = ops_of(region, tile_ops.StoreOp)
    assert store.offsets[0] is region.lane
    # no results: the function returns the storage the region wrote
    assert f["k"].body.block.last_op.operands[0] is f["k"].args[1]
    for name, mode in (("scoped", SplitMode.LEFT_RIGHT), ("main", SplitMode.UP_DOWN)):
        (scope,) = ops_of(f[name], IncoreScopeOp)  # main's region is wrapped in a scope
        (region,) = ops_of(scope, SplitAivOp)
        assert region.mode.data == mode
        # the scope yields the written storage, so later reads are ordered after it
        assert list(scope.yield_op.values) == [f[name].args[1]]
        assert f[name].body.block.last_op.operands[0] is scope.outputs[0]
    module = P.fresh_module()
    apply_passes(module, ["outline-incore-scopes"])
    outlined = {fn.sym_name.data: fn for fn in module.ops if isinstance(fn, FuncOp)}
    attrs = outlined["main_incore_0"].attributes
    assert "split_aiv" in attrs and attrs["split"].data == SplitMode.UP_DOWN
    assert outlined["scoped_incore_0"].attributes["slot_num"].value.data == 4


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("for i in pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN):\n    pass", "splits into 2 lanes, got the constant 4"),
        ("for i in pl.split_aiv(2):\n    pass", "pl.split_aiv needs mode="),
        ("for i in pl.split_aiv(2, mode=1):\n    pass", "'mode' of pl.split_aiv must be a pl.SplitMode"),
        ("for i, j in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    pass", "must be a single name"),
        (
            "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):\n"
            "    for i in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n        pass",
            "mutually exclusive",
        ),
        (
            "with pl.at(level=pl.Level.CORE_GROUP, split=pl.SplitMode.UP_DOWN):\n"
            "    for i in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n        pass",
            "has a split mode \\(up_down",
        ),
        (
            "for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    y = pl.exp(x)\nz = y",
            "'y' is only defined inside the pl.split_aiv region",
        ),
        ("for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    pass\nz = i + 1", "'i' is the lane of the pl.split_aiv region"),
        ("y = pl.split_aiv(2, mode=pl.SplitMode.NONE)", "pl.split_aiv is only allowed as the iterable of a 'for' loop"),
    ],
)
def test_split_aiv_diagnostics(tmp_path, body, message):
    with pytest.raises(ParserError, match=message):
        compile_body(tmp_path, body)


def test_scope_inside_a_while_captures_the_carried_value():
    """PyPTO's `test_outline_scope_inside_while_captures_iter_arg`, with a Python `while`."""

    @pl.program
    class P:
        @pl.function
        def main(self, x: V64, y: V64, n: pl.Scalar[pl.INDEX]) -> V64:
            acc = x
            i = 0
            while i < n:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                    updated = pl.add(acc, y)
                acc = updated
                i = i + 1
            return acc

    from pypto_xdsl.runtime.passes import apply_passes

    module = P.fresh_module()
    apply_passes(module, ["outline-incore-scopes"])
    outlined = {fn.sym_name.data: fn for fn in module.ops if isinstance(fn, FuncOp)}
    (loop,) = ops_of(outlined["main"], scf.WhileOp)
    (call,) = [op for op in loop.after_region.walk() if op.name == "pypto.call"]
    assert call.operands[0] is loop.after_region.block.args[0]  # acc, not the init x
    assert [a.name_hint for a in outlined["step"].args] == ["acc", "y"]
    x, y = rand(64), rand(64)
    for passes in ([], ["outline-incore-scopes"], ["pypto-default"]):
        np.testing.assert_allclose(P.run(x, y, 3, passes=passes), x + 3 * y, rtol=1e-5)
