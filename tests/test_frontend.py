"""Python DSL frontend: program structure, types, SSA construction, ops, diagnostics."""
# ruff: noqa: F841 -- the pl programs below leave names unused on purpose: the frontend must drop them

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float32Type, IndexType, IntegerType

import pypto_xdsl.language as pl
from pypto_xdsl.dialects import tensor as tensor_ops
from pypto_xdsl.dialects import tile as tile_ops
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    ParamDirection,
    TensorType,
    TileType,
)
from pypto_xdsl.dialects.program import CallOp, FuncOp, IncoreScopeOp, SubmitOp
from pypto_xdsl.frontend import ParserError

N = pl.dynamic("N")
T64 = pl.Tensor[[64, 64], pl.FP32]


def funcs(prog) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in prog.module.ops if isinstance(f, FuncOp)}


def ops_of(func: FuncOp, cls) -> list:
    return [op for op in func.walk() if isinstance(op, cls)]


# --------------------------------------------------------------------------- structure and types


def test_signature_types_directions_and_kinds():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            a: pl.Tensor[[N, 128], pl.FP16],
            t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat],
            s: pl.Scalar[pl.INDEX],
            f: pl.Scalar[pl.FP32],
            o: pl.Out[pl.Tensor[[64], pl.INT32]],
            io: pl.InOut[pl.Tensor[[8, 8], pl.BF16]],
        ):
            return

        @pl.function(type=pl.FunctionType.Orchestration)
        def orch(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return x

        @pl.function(type=pl.FunctionType.Inline)
        def inl(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return x

        @pl.jit.inline
        def jinl(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return x

        @pl.function(scope_type=pl.FunctionType.AIV)
        def aiv(self):
            return

        @pl.function
        def opaque(self):
            return

    f = funcs(P)
    k = f["k"]
    inputs = k.function_type.inputs.data
    assert inputs[0] == TensorType(["N", 128], pl.FP16.to_ir())
    assert inputs[1] == TileType([16, 128], Float32Type(), MemorySpace.MAT)
    assert inputs[2] == IndexType() and inputs[3] == Float32Type()
    assert inputs[4] == TensorType([64], IntegerType(32))
    assert k.directions == (
        ParamDirection.IN, ParamDirection.IN, ParamDirection.IN, ParamDirection.IN,
        ParamDirection.OUT, ParamDirection.INOUT,
    )
    assert [a.name_hint for a in k.args] == ["a", "t", "s", "f", "o", "io"]
    kinds = {name: fn.func_kind for name, fn in f.items()}
    assert kinds == {
        "k": FuncKind.INCORE, "orch": FuncKind.ORCHESTRATION, "inl": FuncKind.INLINE,
        "jinl": FuncKind.INLINE, "aiv": FuncKind.AIV, "opaque": FuncKind.OPAQUE,
    }
    assert list(f) == ["k", "orch", "inl", "jinl", "aiv", "opaque"]  # declaration order


def test_plain_methods_are_not_functions_and_module_prints():
    @pl.program
    class P:
        def helper_not_compiled(self):
            return 1 / 0

        @pl.function
        def main(self, x: T64) -> T64:
            return x

    assert list(funcs(P)) == ["main"]
    text = str(P)
    assert "pypto.func @main(%x: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>" in text


def test_tuple_return_annotation_and_unpacking():
    @pl.program
    class P:
        @pl.function
        def two(self, x: T64) -> tuple[T64, T64]:
            y = x + 1
            return y, x

        @pl.function
        def main(self, x: T64) -> T64:
            a, b = self.two(x)
            pair = self.two(a)
            c = pair[0]
            return pl.add(c, b)

    f = funcs(P)
    assert len(f["two"].function_type.outputs.data) == 2
    calls = ops_of(f["main"], CallOp)
    assert [c.res[0].name_hint for c in calls] == ["a", "c"]  # a tuple has no hint; its element takes `c`
    assert calls[1].args[0] is calls[0].res[0]
    add = ops_of(f["main"], tensor_ops.AddOp)[0]
    assert add.lhs is calls[1].res[0] and add.rhs is calls[0].res[1]


def test_declared_result_type_mismatch_is_an_error():
    with pytest.raises(ParserError, match="result #0 of 'main' is declared"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> pl.Tensor[[32, 64], pl.FP32]:
                return x


@pytest.mark.parametrize("dtype", ["UINT16", "UINT8", "UINT32"])
def test_a_literal_operand_of_an_unsigned_tile_is_a_located_error(dtype):
    """arith.constant makes signless integers only: a literal scalar for a ui16 tile has no
    constant of the tile's element type, which once failed as an internal verifier error."""
    U = pl.Tensor[[16, 16], getattr(pl, dtype)]
    with pytest.raises(ParserError, match=r"cannot use the constant 1 as a scalar ui\d+: constants are signless") as err:

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, a: U, out: pl.Out[U]) -> U:
                t = pl.load(a, [0, 0], [16, 16])
                out = pl.store(pl.tile.adds(t, 1), [0, 0], out)
                return out

    assert "internal" not in str(err.value)


# --------------------------------------------------------------------------- SSA construction


def test_rebinding_gives_fresh_values_with_name_hints():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> T64:
            y = pl.exp(x)
            y = y * 2.0
            y = pl.maximum(y, x)
            return y

    main = funcs(P)["main"]
    hints = [op.results[0].name_hint for op in main.body.block.ops if op.results and not isinstance(op, arith.ConstantOp)]
    assert hints == ["y", "y", "y"]
    exp, muls, maximum = (
        ops_of(main, tensor_ops.ExpOp)[0], ops_of(main, tensor_ops.MulsOp)[0], ops_of(main, tensor_ops.MaximumOp)[0]
    )
    assert muls.lhs is exp.result and maximum.lhs is muls.result and maximum.rhs is main.args[0]


def test_loop_carries_only_rebound_variables_that_are_read():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            acc = x
            count = 0
            unused = x
            for i in pl.range(1, n, 2):
                acc = pl.add(acc, x)
                count = count + i
                unused = pl.exp(x)
                tmp = acc + 1.0
            total = count + 1
            return acc

    main = funcs(P)["main"]
    (loop,) = ops_of(main, scf.ForOp)
    assert [a.name_hint for a in loop.body.block.args] == ["i", "acc", "count"]
    assert [r.name_hint for r in loop.results] == ["acc", "count"]
    assert loop.iter_args[0] is main.args[0]
    assert isinstance(loop.lb.owner, arith.ConstantOp) and loop.ub is main.args[1]
    ret = main.body.block.last_op
    assert ret.operands[0] is loop.results[0]


def test_nested_loops_carry_through_both_levels():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> T64:
            for i in pl.range(4):
                for j in range(3):  # Python's range works too
                    x = x + 1.0
            return x

    main = funcs(P)["main"]
    outer, inner = ops_of(main, scf.ForOp)
    assert len(outer.results) == 1 and len(inner.results) == 1
    assert inner.iter_args[0] is outer.body.block.args[1]
    assert main.body.block.last_op.operands[0] is outer.results[0]
    x = np.ones((64, 64), dtype=np.float32)
    np.testing.assert_allclose(P.run(x), np.full((64, 64), 13.0))


def test_if_else_results_and_runtime_semantics():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            y = x
            if n > 2:
                y = x * 3.0
                z = y
            else:
                z = x + 1.0
            return pl.add(y, z)

    main = funcs(P)["main"]
    (if_op,) = ops_of(main, scf.IfOp)
    assert [r.name_hint for r in if_op.results] == ["y", "z"]
    x = np.ones((64, 64), dtype=np.float32)
    np.testing.assert_allclose(P.run(x, 5), np.full((64, 64), 6.0))
    np.testing.assert_allclose(P.run(x, 1), np.full((64, 64), 3.0))


def test_if_without_else_and_compile_time_condition():
    DEBUG = False

    @pl.program
    class P:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            if n < 10:
                k = k * 2
            if DEBUG:
                k = k + 1000
            return k

    main = funcs(P)["main"]
    assert len(ops_of(main, scf.IfOp)) == 1  # the DEBUG branch is resolved at compile time
    assert P.run(3) == 6 and P.run(12) == 12


def test_variable_defined_in_one_branch_is_an_error_after_it():
    with pytest.raises(ParserError, match="'z' is not defined here: 'z' is only defined in one branch"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
                if n > 2:
                    z = x + 1.0
                return z


def test_variable_defined_only_in_loop_is_an_error_after_it():
    with pytest.raises(ParserError, match="only defined inside the loop"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> T64:
                for i in pl.range(3):
                    w = x + 1.0
                return w


def test_loop_carried_type_change_is_an_error():
    with pytest.raises(ParserError, match="loop-carried variable 'x' changes type"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> T64:
                for i in pl.range(3):
                    x = pl.load(x, [0, 0], [16, 16])
                return x


def test_read_before_definition_is_an_error():
    with pytest.raises(ParserError, match="'y' is used before it is defined"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> T64:
                z = y + 1.0  # noqa: F821 (read before it is defined: the error under test)
                y = x
                return z


# --------------------------------------------------------------------------- pl.at, calls, submit


def test_incore_scope_results_name_hint_task_id_and_deps():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, out: pl.Out[T64]) -> T64:
            y = x + 1.0
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as t0:
                tile = pl.load(y, [0, 0], [64, 64])
                scratch = tile + 1.0
                out = pl.store(scratch, [0, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[t0]):
                t2 = pl.load(out, [0, 0], [64, 64])
                w = pl.store(t2, [0, 0], x)
            return w

    main = funcs(P)["main"]
    s0, s1 = ops_of(main, IncoreScopeOp)
    assert s0.name_hint.data == "first" and s1.name_hint is None
    # `out` is rebound inside the first scope and read later: it is the only result.
    assert [r.name_hint for r in s0.outputs] == ["out"]
    assert s0.task_id is not None and s0.task_id.name_hint == "t0"
    assert list(s1.deps) == [s0.task_id] and s1.task_id is None
    load2 = ops_of(s1, tile_ops.LoadOp)[0]
    assert load2.source is s0.outputs[0]


def test_calls_and_submit():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: T64, o: pl.Out[T64]) -> T64:
            t = pl.load(a, [0, 0], [64, 64])
            o = pl.store(t, [0, 0], o)
            return o

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T64, o: pl.Out[T64]) -> T64:
            r1, tid = pl.submit(self.k, a, o)
            r2, tid2 = pl.submit(self.k, r1, o, deps=[tid])
            r3 = self.k(r2, o)
            return r3

    main = funcs(P)["main"]
    sub1, sub2 = ops_of(main, SubmitOp)
    assert sub1.callee.string_value() == "k" and list(sub2.deps) == [sub1.task_id]
    assert sub2.args[0] is sub1.outputs[0]
    (call,) = ops_of(main, CallOp)
    assert call.args[0] is sub2.outputs[0] and call.res[0].name_hint == "r3"


def test_call_argument_errors():
    with pytest.raises(ParserError, match=r"'k' takes 1 arguments, got 2"):

        @pl.program
        class P:
            @pl.function
            def k(self, a: T64) -> T64:
                return a

            @pl.function
            def main(self, a: T64) -> T64:
                return self.k(a, a)

    with pytest.raises(ParserError, match=r"argument 0 of 'k' \('a'\) has type .*\[32, 64\].*, expected"):

        @pl.program
        class Q:
            @pl.function
            def k(self, a: T64) -> T64:
                return a

            @pl.function
            def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> T64:
                return self.k(a)


def test_symbolic_parameters_bind_at_call_sites():
    @pl.program
    class P:
        @pl.function
        def k(self, a: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
            return pl.exp(a)

        @pl.function
        def main(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            return self.k(a)

    (call,) = ops_of(funcs(P)["main"], CallOp)
    assert call.res[0].type == TensorType([16, 64], Float32Type())


def test_unannotated_parameters_are_inferred_from_call_sites():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Inline)
        def square(self, x):
            return pl.mul(x, x)

        @pl.function
        def main(self, a: T64, b: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
            a2 = self.square(a)
            b2 = self.square(b)
            return b2

    sq = funcs(P)["square"]
    # The differing extent becomes a symbol each call site binds.
    assert sq.function_type.inputs.data == (TensorType(["x_d0", 64], Float32Type()),)
    a2, b2 = ops_of(funcs(P)["main"], CallOp)
    assert a2.res[0].type == TensorType([64, 64], Float32Type())
    assert b2.res[0].type == TensorType([32, 64], Float32Type())


def test_unannotated_entry_needs_types():
    with pytest.raises(ParserError, match="cannot infer the type of parameter 'a' of 'main'") as info:

        @pl.program
        class P:
            @pl.function
            def main(self, a):
                return pl.exp(a)

        P.module
    assert "specialize(main=[...])" in str(info.value)


def test_specialize_and_run_infer_entry_types():
    @pl.program
    class P:
        @pl.function
        def main(self, a):
            return pl.exp(a)

    S = P.specialize(main=[pl.Tensor[[8], pl.FP32]])
    assert funcs(S)["main"].function_type.inputs.data == (TensorType([8], Float32Type()),)
    x = np.linspace(0, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(P.run(x), np.exp(x), rtol=1e-6)


# --------------------------------------------------------------------------- ops


def test_unified_ops_dispatch_on_operand_type():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: T64, o: pl.Out[T64]) -> T64:
            t = pl.load(a, [0, 0], [64, 64])
            t = pl.add(t, t)
            t = pl.sub(t, 1.0)
            t = pl.mul(t, t)
            t = pl.div(t, 2.0)
            t = pl.exp(pl.neg(t))
            t = -t
            t = 3.0 * t
            o = pl.store(t, [0, 0], o)
            return o

        @pl.function
        def main(self, a: T64, o: pl.Out[T64]) -> T64:
            b = pl.add(a, a)
            b = pl.sub(b, 1.0)
            b = b / 2.0
            b = pl.sqrt(pl.abs(b))
            return self.k(b, o)

    f = funcs(P)
    k_names = [op.name for op in f["k"].walk() if op.name.startswith("pypto.tile")]
    assert k_names == [
        "pypto.tile.load", "pypto.tile.add", "pypto.tile.subs", "pypto.tile.mul", "pypto.tile.divs",
        "pypto.tile.neg", "pypto.tile.exp", "pypto.tile.neg", "pypto.tile.muls", "pypto.tile.store",
    ]
    m_names = [op.name for op in f["main"].walk() if op.name.startswith("pypto.tensor")]
    assert m_names == [
        "pypto.tensor.add", "pypto.tensor.subs", "pypto.tensor.divs", "pypto.tensor.abs", "pypto.tensor.sqrt",
    ]


def test_tensor_structure_ops():
    @pl.program
    class P:
        @pl.function
        def main(self, a: pl.Tensor[[N, 64], pl.FP32], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.FP32]:
            c = pl.create_tensor([m, 64], pl.FP32)
            d = pl.tensor.create([N, 8], pl.FP16)
            n = pl.tensor.dim(a, 0)
            v = pl.slice(a, [16, 64], [n - 16, 0])
            c = pl.assemble(c, v, [0, 0])
            c = pl.tensor.muls(c, 2.0)
            h = pl.cast(c, pl.FP16)
            p = pl.matmul(c, pl.create_tensor([64, 32], pl.FP32))
            return pl.tensor.read(c, [1, 2])

    main = funcs(P)["main"]
    create, create2, _ = ops_of(main, tensor_ops.CreateOp)
    assert create.result.type == TensorType([None, 64], Float32Type()) and list(create.dynamic_sizes) == [main.args[1]]
    assert create2.result.type == TensorType(["N", 8], pl.FP16.to_ir())
    (sl,) = ops_of(main, tensor_ops.SliceOp)
    assert sl.result.type == TensorType([16, 64], Float32Type())
    assert isinstance(sl.offsets[0].owner, arith.SubiOp)
    (asm,) = ops_of(main, tensor_ops.AssembleOp)
    assert asm.dest is create.result and asm.source is sl.result
    (cast,) = ops_of(main, tensor_ops.CastOp)
    assert cast.result.type == TensorType([None, 64], pl.FP16.to_ir())
    (mm,) = ops_of(main, tensor_ops.MatmulOp)
    assert mm.result.type == TensorType([None, 32], Float32Type())
    (read,) = ops_of(main, tensor_ops.ReadOp)
    assert read.result.type == Float32Type()


def test_tensor_row_ops_and_f16_matmul():
    """pl.row_* on tensors give the tensor ops; pl.matmul of f16 tensors is an f32 tensor."""

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[48, 64], pl.FP32], a: pl.Tensor[[16, 32], pl.FP16],
              b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
            mx = pl.row_max(x)
            e = pl.exp(pl.row_expand_sub(x, mx))
            s = pl.tensor.row_sum(e)
            y = pl.tensor.row_expand_div(e, s)
            y = pl.row_expand_mul(y, mx)
            p = pl.matmul(a, b)
            return y

    k = funcs(P)["k"]
    (mx,) = ops_of(k, tensor_ops.RowMaxOp)
    assert mx.result.type == TensorType([48, 1], Float32Type())
    (s,) = ops_of(k, tensor_ops.RowSumOp)
    assert s.result.type == TensorType([48, 1], Float32Type())
    assert [type(op) for op in k.walk() if isinstance(op, tensor_ops.TensorRowExpandOp)] == [
        tensor_ops.RowExpandSubOp, tensor_ops.RowExpandDivOp, tensor_ops.RowExpandMulOp]
    assert not [op for op in k.walk() if op.name.startswith("pypto.tile.")]
    (mm,) = ops_of(k, tensor_ops.MatmulOp)
    assert mm.result.type == TensorType([16, 16], Float32Type())


def test_tile_ops():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
            x = pl.load(a, [0, 0], [16, 64])
            mx = pl.row_max(x)
            x = pl.row_expand_sub(x, mx)
            s = pl.tile.row_sum(pl.exp(x))
            x = pl.row_expand_div(x, s)
            l = pl.move(x, target_memory=pl.Mem.Left)
            r = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Right)
            acc = pl.matmul(l, r)
            acc = pl.matmul_acc(acc, l, r)
            z = pl.tile.full([16, 32], pl.FP32, 0.0)
            res = pl.move(acc, pl.Mem.Vec)
            res = pl.maximum(res, z)
            i = pl.tile.get_block_idx()
            o = pl.store(res, [0, 0], o)
            return o

    k = funcs(P)["k"]
    (mx,) = ops_of(k, tile_ops.RowMaxOp)
    assert mx.result.type == TileType([16, 1], Float32Type())
    (r,) = [op for op in ops_of(k, tile_ops.LoadOp) if op.result.name_hint == "r"]
    assert r.result.type == TileType([64, 32], Float32Type(), MemorySpace.RIGHT)
    (mm,) = ops_of(k, tile_ops.MatmulOp)
    assert mm.result.type == TileType([16, 32], Float32Type(), MemorySpace.ACC)
    (acc,) = ops_of(k, tile_ops.MatmulAccOp)
    assert acc.acc is mm.result
    (full,) = ops_of(k, tile_ops.FullOp)
    assert full.result.type == TileType([16, 32], Float32Type())
    assert len(ops_of(k, tile_ops.GetBlockIdxOp)) == 1


def test_scalar_arithmetic_and_comparisons():
    @pl.program
    class P:
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX], f: pl.Scalar[pl.FP32]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.FP32]]:
            a = (n + 3) * 2 - 1
            b = a // 4 + a % 3
            c = max(b, 7)
            g = f * 2.0 - 1.0
            g = g * 0.25
            k = b if n > 1 else c
            return k + min(c, 100), g

    main = funcs(P)["main"]
    assert ops_of(main, arith.FloorDivSIOp) and ops_of(main, arith.RemSIOp) and ops_of(main, arith.CmpiOp)
    assert ops_of(main, arith.MulfOp) and ops_of(main, arith.SelectOp)
    for n in (0, 5, 40):
        a = (n + 3) * 2 - 1
        b = a // 4 + a % 3
        c = max(b, 7)
        k = b if n > 1 else c
        got = P.run(n, 1.5)
        assert got[0] == k + min(c, 100)
        assert np.isclose(got[1], (1.5 * 2 - 1) / 4)


def test_float_division_and_unsigned_integers():
    @pl.program
    class P:
        @pl.function
        def main(self, f: pl.Scalar[pl.FP32], i: pl.Scalar[pl.INT32]) -> tuple[pl.Scalar[pl.FP32], pl.Scalar[pl.INT32]]:
            return f / 4.0, i // 3

    main = funcs(P)["main"]
    assert ops_of(main, arith.DivfOp) and ops_of(main, arith.FloorDivSIOp)
    assert main.function_type.outputs.data[1] == IntegerType(32)
    with pytest.raises(ParserError, match="scalar arithmetic on ui32 is not supported"):

        @pl.program
        class U:
            @pl.function
            def main(self, u: pl.Scalar[pl.UINT32]) -> pl.Scalar[pl.UINT32]:
                return u + 1
    with pytest.raises(ParserError, match="'/' on integers is not supported; use '//'"):

        @pl.program
        class Q:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                return n / 2


def test_constants_fold_at_compile_time():
    SIZE = 32

    @pl.program
    class P:
        @pl.function
        def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
            return pl.slice(a, [SIZE, 64], [SIZE * 2 - 64, 0])

    main = funcs(P)["main"]
    consts = [op.value.value.data for op in ops_of(main, arith.ConstantOp)]
    assert consts == [0]  # SIZE * 2 - 64 folded and shared with the second offset


# --------------------------------------------------------------------------- diagnostics


def test_error_message_has_location_source_line_and_caret():
    with pytest.raises(ParserError) as info:

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> T64:
                y = pl.frobnicate(x)
                return y

    err = info.value
    lines = str(err).splitlines()
    assert lines[0].startswith(f"{__file__}:{err.line}:{err.col + 1}: error: unknown name 'pl.frobnicate'")
    assert lines[1].strip() == "y = pl.frobnicate(x)"
    assert lines[2].index("^") == lines[1].index("pl.frobnicate") and lines[2].count("^") == len("pl.frobnicate")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("while x:\n    pass", "a 'while' condition must be a comparison"),
        ("y = pl.add(x, pl.load(x, [0, 0], [64, 64]))", "operands 'lhs' .* must both be tensors or both tiles"),
        ("y = pl.load(x, [0], [64, 64])", "needs 2 entries, got 1"),
        ("y = pl.load(x, [0, 0], [128, 64])", "window \\[128, 64\\] exceeds"),
        ("y = x[0:65]", "exceeds dimension 0"),
        ("y = undefined_thing + 1", "name 'undefined_thing' is not defined"),
        ("y = pl.tensor.row_max(pl.load(x, [0, 0], [64, 64]))", "pl.tensor.row_max expects a tensor, got"),
        ("y = pl.tile.row_sum(x)", "pl.tile.row_sum expects a tile, got"),
        ("y = pl.row_expand_sub(x, pl.row_max(pl.load(x, [0, 0], [64, 64])))",
         "'rhs' of pl.row_expand_sub must be a tensor like 'lhs', got"),
        ("y = pl.row_expand_div(x, x)", "operand 'row' must have shape \\[M, 1\\], got"),
        ("for i in [1, 2]:\n    pass", "loops must iterate over pl.range"),
        ("y = pl.exp(x, x)", "pl.exp takes at most 1 arguments"),
        ("y = pl.cast(x, pl.Mem.Vec)", "expected a dtype"),
        ("y = self.nothing(x)", "has no @pl.function 'nothing'"),
        ("y = x + 'a'", "must be a scalar"),
        ("with pl.at(level=pl.Level.AIC):\n    pass", "only level=pl.Level.CORE_GROUP is supported"),
        ("a, b = x", "cannot unpack"),
        ("y = pl.range(3)", "pl.range is only allowed as the iterable of a 'for' loop"),
        ("def inner():\n    pass", "unsupported statement 'FunctionDef'"),
        (
            "with pl.at(level=pl.Level.CORE_GROUP):\n    with pl.at(level=pl.Level.CORE_GROUP):\n        pass",
            "pl.at scopes cannot be nested",
        ),
        ("if x:\n    pass", "an 'if' condition must be a comparison"),
        ("for i in pl.range(3):\n    return", "'return' is only supported as the last statement"),
        ("for i in pl.spmd(0):\n    pass", "core count of pl.spmd must be a positive integer constant"),
        ("for i in pl.spmd(x):\n    pass", "core count of pl.spmd must be a positive integer constant or an index value"),
        ("for i, j in pl.spmd(2):\n    pass", "the block index of pl.spmd must be a single name"),
        ("for i in pl.spmd(2, cores=3):\n    pass", "pl.spmd has no parameter 'cores'"),
        ("with pl.at(level=pl.Level.CORE_GROUP):\n    for i in pl.spmd(2):\n        pass",
         "pl.spmd launches an InCore scope and cannot be inside pl.at"),
        ("for i in pl.spmd(2):\n    y = x\nz = i", "'i' is the block index of the pl.spmd at line"),
        ("with pl.spmd(2, deps=[x]):\n    pass", "deps must be a list of task ids"),
    ],
)
def test_diagnostics(tmp_path, body, message):
    indented = "\n".join("        " + line for line in body.splitlines())
    source = (
        "import pypto_xdsl.language as pl\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[64, 64], pl.FP32]):\n"
        f"{indented}\n"
        "        return\n"
    )
    from pypto_xdsl.frontend.program import load_programs

    path = str(tmp_path / "prog.py")
    with pytest.raises(ParserError, match=message) as info:
        load_programs(source, path)
    assert info.value.filename == path and info.value.line is not None and info.value.line >= 7
    assert "Traceback" not in str(info.value)


def test_pl_at_inside_incore_function_is_an_error():
    with pytest.raises(ParserError, match="pl.at inside incore function 'k'"):

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: T64) -> T64:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = x
                return y


def test_uncalled_untyped_inline_helper_is_omitted():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Inline)
        def unused(self, x):
            return x

        @pl.function
        def main(self, x: T64) -> T64:
            return x

    assert list(funcs(P)) == ["main"]


def test_op_stubs_refuse_to_run_in_python():
    with pytest.raises(RuntimeError, match="pl.add can only be used inside a @pl.function"):
        pl.add(1, 2)


def test_compile_writes_backend_files_or_explains(tmp_path):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: T64, o: pl.Out[T64]) -> T64:
            t = pl.load(a, [0, 0], [64, 64])
            o = pl.store(pl.exp(t), [0, 0], o)
            return o

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T64, o: pl.Out[T64]) -> T64:
            return self.k(a, o)

    try:
        from pypto_xdsl.backend.ascendc.emit import emit_program  # noqa: F401
    except ImportError:  # pragma: no cover - builds without the backend
        with pytest.raises(NotImplementedError, match="Ascend C backend"):
            P.compile(tmp_path)
        return
    written = P.compile(tmp_path)
    assert tmp_path / "kernels" / "k.cpp" in written
    assert "GetBlockIdx" in (tmp_path / "kernels" / "k.cpp").read_text() or "__aicore__" in (
        tmp_path / "kernels" / "k.cpp"
    ).read_text()


def test_pl_at_split_dumps_and_swap_unpacking():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, y: T64) -> tuple[T64, T64]:
            x, y = y, x
            with pl.at(pl.CORE_GROUP, split=pl.SplitMode.UP_DOWN, dumps=[x]):
                t = pl.load(x, [0, 0], [64, 64])
                y = pl.store(t, [0, 0], y)
            return x, y

    main = funcs(P)["main"]
    (scope,) = ops_of(main, IncoreScopeOp)
    assert scope.split is not None and scope.split.data.value == "up_down"
    assert list(scope.dumps) == [main.args[1]]  # after the swap, x is the second argument
    (load,) = ops_of(main, tile_ops.LoadOp)
    (store,) = ops_of(main, tile_ops.StoreOp)
    assert load.source is main.args[1] and store.dest is main.args[0]
    ret = main.body.block.last_op
    assert ret.operands[0] is main.args[1] and ret.operands[1] is scope.outputs[0]


def test_submit_omitting_an_untyped_trailing_parameter_is_an_error():
    with pytest.raises(ParserError, match="cannot infer the type of parameter 'o' of 'k'"):

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a, o: pl.Out[...]):
                return a

            @pl.function
            def main(self, a: T64) -> T64:
                r, tid = pl.submit(self.k, a)
                return r


def test_printed_module_parses_back():
    from pypto_xdsl.interpreter import parse_module

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[N, 64], pl.FP32], o: pl.Out[pl.Tensor[[N, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[N, 64], pl.FP32]:
            for i in pl.range(0, n, 16):
                t = pl.load(a, [i, 0], [16, 64])
                if i > 0:
                    t = t * 2.0
                o = pl.store(t, [i, 0], o)
            return o

        @pl.function
        def main(self, a: pl.Tensor[[N, 64], pl.FP32], o: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
            n = pl.tensor.dim(a, 0)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="kk") as tid:
                t = pl.load(a, [0, 0], [16, 64])
                o = pl.store(t, [0, 0], o)
            r, t2 = pl.submit(self.k, a, o, n, deps=[tid])
            return r

    reparsed = parse_module(str(P))
    reparsed.verify()
    assert reparsed.is_structurally_equivalent(P.module)


def test_postponed_annotations_are_evaluated(tmp_path):
    from pypto_xdsl.frontend.program import load_programs

    source = (
        "from __future__ import annotations\n"
        "import pypto_xdsl.language as pl\n"
        "SIZE = 32\n\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[SIZE], pl.FP32]) -> pl.Tensor[[SIZE], pl.FP32]:\n"
        "        y: pl.Tensor[[SIZE], pl.FP32] = pl.exp(x)\n"
        "        return y\n"
    )
    (prog,) = load_programs(source, str(tmp_path / "p.py"))
    main = funcs(prog)["main"]
    assert main.function_type.inputs.data == (TensorType([32], Float32Type()),)
    assert main.function_type.outputs.data == (TensorType([32], Float32Type()),)


def test_explicit_init_values_and_yield_form():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> tuple[T64, pl.Scalar[pl.INDEX]]:
            count = 0
            for i, (acc, k) in pl.range(n, init_values=(x, 1)):
                acc2 = pl.add(acc, x)
                count = count + 1
                if i > 1:
                    w = pl.yield_(acc2 * 2.0)
                else:
                    w = pl.yield_(acc2)
                acc_out, k_out = pl.yield_(w, k + i)
            return acc_out, k_out + count

    main = funcs(P)["main"]
    (loop,) = ops_of(main, scf.ForOp)
    assert [a.name_hint for a in loop.body.block.args] == ["i", "acc", "k", "count"]
    assert [r.name_hint for r in loop.results] == ["acc_out", "k_out", "count"]
    x = np.ones((64, 64), dtype=np.float32)
    acc, k = x.copy(), 1
    for i in range(4):
        acc = acc + x
        acc = acc * 2.0 if i > 1 else acc
        k = k + i
    got_acc, got_k = P.run(x, 4)
    np.testing.assert_allclose(got_acc, acc)
    assert got_k == k + 4


def test_init_values_loop_must_end_with_yield():
    with pytest.raises(ParserError, match="must end with 'names = pl.yield_"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64) -> T64:
                for i, (acc,) in pl.range(3, init_values=(x,)):
                    acc = acc + 1.0
                return acc


def test_python_file_must_define_exactly_one_program(tmp_path):
    from pypto_xdsl.frontend.program import parse_python_file

    one = (
        "import pypto_xdsl.language as pl\n\n"
        "@pl.program\n"
        "class A:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "        return x\n"
    )
    module = parse_python_file(one, str(tmp_path / "one.py"))
    assert [f.sym_name.data for f in module.ops] == ["main"]
    two = one + one.replace("class A", "class B").split("\n\n", 1)[1]
    with pytest.raises(ParserError, match="exactly one @pl.program at top level, found 2"):
        parse_python_file(two, str(tmp_path / "two.py"))
    with pytest.raises(ParserError, match="invalid Python"):
        parse_python_file("def f(:\n", str(tmp_path / "bad.py"))


def test_returned_literals_take_the_declared_type():
    @pl.program
    class P:
        @pl.function
        def main(self) -> tuple[pl.Scalar[pl.FP32], pl.Scalar[pl.INT32], pl.Scalar[pl.INDEX]]:
            return 1, 2, 3

    assert funcs(P)["main"].function_type.outputs.data == (Float32Type(), IntegerType(32), IndexType())
    assert P.run() == (1.0, 2, 3)
