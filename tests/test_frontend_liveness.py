"""Frontend: which names a loop carries and a `pl.at` scope returns follow Python liveness.

A name the code rebinds before it reads it again is a new variable (Python reuses the name):
a loop does not carry it and a scope does not return it, so it may hold a tile of another
shape than before. A name that may be read first (in the next iteration, after the loop or
the scope, in a branch) is still carried or returned.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.program import FuncOp, IncoreScopeOp
from pypto_xdsl.frontend import ParserError

T64 = pl.Tensor[[64, 64], pl.FP32]
RNG = np.random.default_rng(11)


def main_of(prog) -> FuncOp:
    return next(f for f in prog.module.ops if isinstance(f, FuncOp) and f.sym_name.data == "main")


def ops_of(op, cls) -> list:
    return [o for o in op.walk() if isinstance(o, cls)]


def test_a_tile_rebound_before_it_is_read_is_not_carried_and_may_change_shape():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: T64, out: pl.Out[T64]) -> T64:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 64])
                out = pl.store(t, [0, 0], out)
            for i in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [16 + i * 8, 0], [8, 32])
                    out = pl.store(t, [16 + i * 8, 0], out)
            return out

    main = main_of(P)
    (loop,) = ops_of(main, scf.ForOp)
    assert [a.name_hint for a in loop.body.block.args] == ["i", "out"]
    first, second = ops_of(main, IncoreScopeOp)
    # neither scope returns its tile: nothing reads `t` before the next rebinding
    assert [r.name_hint for r in first.results] == ["out"]
    assert [r.name_hint for r in second.results] == ["out"]
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    want = np.zeros((64, 64), np.float32)
    want[:16] = x[:16]
    want[16:32, :32] = x[16:32, :32]
    np.testing.assert_array_equal(P.run(x, np.zeros((64, 64), np.float32)), want)


def test_a_name_read_before_it_is_rebound_is_still_carried():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> T64:
            y = pl.exp(x)
            for i in pl.range(3):
                z = pl.add(y, x)  # reads the previous iteration's y
                y = pl.mul(z, x)
            return x

    (loop,) = ops_of(main_of(P), scf.ForOp)
    assert [a.name_hint for a in loop.body.block.args] == ["i", "y"]


def test_a_name_read_after_the_loop_is_carried_and_a_shape_change_is_an_error():
    with pytest.raises(ParserError, match="loop-carried variable 't' changes type"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64, out: pl.Out[T64]) -> T64:
                t = pl.load(x, [0, 0], [16, 64])
                for i in pl.range(2):
                    t = pl.load(x, [0, 0], [8, 32])
                out = pl.store(t, [0, 0], out)
                return out


def test_an_enclosing_loop_that_reads_the_name_first_keeps_it_carried():
    with pytest.raises(ParserError, match="loop-carried variable 't' changes type"):

        @pl.program
        class P:
            @pl.function
            def main(self, x: T64, out: pl.Out[T64]) -> T64:
                t = pl.load(x, [0, 0], [16, 64])
                for j in pl.range(2):
                    out = pl.store(t, [0, 0], out)  # the outer iteration reads t first
                    for i in pl.range(2):
                        t = pl.load(x, [0, 0], [8, 32])
                return out


def test_a_conditional_rebinding_is_carried():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            y = x
            for i in pl.range(4):
                if i < n:
                    y = pl.add(x, x)
                x = pl.add(y, x)
            return x

    (loop,) = ops_of(main_of(P), scf.ForOp)
    assert sorted(a.name_hint for a in loop.body.block.args[1:]) == ["x", "y"]
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    # i = 0 and 1 take the branch (n = 2): y = 2x0, x1 = 3x0; y = 6x0, x2 = 9x0; then 15x0, 21x0
    np.testing.assert_allclose(P.run(x, 2), 21 * x, rtol=1e-6)


def test_a_temporary_rebound_each_iteration_is_not_carried_and_the_result_is_right():
    @pl.program
    class P:
        @pl.function
        def main(self, x: T64) -> T64:
            t = pl.exp(x)
            for i in pl.range(2):
                t = pl.add(x, x)
                x = pl.add(t, x)
            return x

    (loop,) = ops_of(main_of(P), scf.ForOp)
    assert [a.name_hint for a in loop.body.block.args] == ["i", "x"]
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_allclose(P.run(x), 9 * x, rtol=1e-6)
