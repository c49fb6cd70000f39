"""The DSL surface of the reference's paged-attention models (examples/models/04-09):
tensor views with run-time extents and valid regions, the store partition of the tile's own
shape, `pl.cluster`, `pl.spmd(sync_start=)`, scalar call arguments, and the runtime's
return-style calls, `TensorSpec` and `ir.compile`. Each: the IR the frontend emits, its
interpreter semantics against numpy, and the located errors."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


def rnd(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


RUNTIME_SLICE = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            t = pl.load(x, [0, 0], [16, 128])
            out = pl.store(pl.exp(t), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 128], pl.FP32], cfg: pl.Tensor[[2], pl.INT64],
                 out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
            cols = pl.tensor.read(cfg, [0])
            row = pl.tensor.read(cfg, [1])
            v = pl.slice(x, [16, cols], [row, 0])
            o = pl.slice(out, [16, cols], [row, 0])
            r = self.k(v, o)
            return out
"""


def test_slice_with_a_runtime_extent_emits_sizes_and_runs():
    prog = build(RUNTIME_SLICE)
    text = str(prog.module)
    assert "sizes(" in text and "!pypto.tensor<[16, ?], f32>" in text
    x, out = rnd((64, 128)), np.zeros((64, 128), np.float32)
    prog.run(x, np.array([128, 32], np.int64), out)
    want = np.zeros_like(x)
    want[32:48] = np.exp(x[32:48])
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_runtime_extent_against_a_static_parameter_is_checked_at_the_call():
    prog = build(RUNTIME_SLICE)
    with pytest.raises(Exception, match=r"has shape \[16, 100\] but its type is !pypto.tensor<\[16, 128\], f32>"):
        prog.run(rnd((64, 128)), np.array([100, 0], np.int64), np.zeros((64, 128), np.float32))


def test_slice_valid_shape_on_a_tensor_makes_the_loaded_tile_partial():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, s: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[4, pl.dynamic("V")])],
                  out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
                t = pl.load(s, [0, 0], [4, 8])
                out = pl.store(pl.row_max(pl.tile.fillpad(t, pad_value=pl.PadValue.min)), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[4, 8], pl.FP32], n: pl.Tensor[[1], pl.INT64],
                     out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
                v = pl.tensor.read(n, [0])
                s = pl.slice(x, [4, 8], [0, 0], valid_shape=[4, v])
                out = self.k(s, out)
                return out
    """)
    assert "pypto.tensor.set_validshape" in str(prog.module)
    x, out = rnd((4, 8), 3), np.zeros((4, 1), np.float32)
    prog.run(x, np.array([3], np.int64), out)
    np.testing.assert_array_equal(out[:, 0], x[:, :3].max(axis=1))


def test_slice_running_past_the_end_is_valid_up_to_the_edge_and_read_only():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, idx: pl.Tensor[[8], pl.INT32], n: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[1], pl.INT32]]) -> pl.Tensor[[1], pl.INT32]:
                s = pl.tensor.read(idx, [0])
                for i in pl.range(1, n):
                    s = s + pl.tensor.read(idx, [i])
                out = pl.tensor.write(out, [0], s)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, table: pl.Tensor[[pl.dynamic("T")], pl.INT32], cfg: pl.Tensor[[2], pl.INT64],
                     out: pl.Out[pl.Tensor[[1], pl.INT32]]) -> pl.Tensor[[1], pl.INT32]:
                at = pl.tensor.read(cfg, [0])
                n = pl.tensor.read(cfg, [1])
                window = pl.slice(table, [8], [at])
                out = self.k(window, n, out)
                return out
    """)
    table, out = np.arange(10, dtype=np.int32), np.zeros(1, np.int32)
    prog.run(table, np.array([6, 4], np.int64), out)  # the window [6, 14) of a [10] tensor
    assert out[0] == 6 + 7 + 8 + 9


def test_write_through_an_overhanging_slice_is_an_error():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, t: pl.Tensor[[pl.dynamic("T")], pl.FP32], cfg: pl.Tensor[[1], pl.INT64]) -> pl.Tensor[[pl.dynamic("T")], pl.FP32]:
                at = pl.tensor.read(cfg, [0])
                w = pl.slice(t, [8], [at])
                w = pl.tensor.write(w, [0], 1.0)
                return t
    """)
    with pytest.raises(Exception, match="writes into a read-only tensor"):
        prog.run(np.zeros(10, np.float32), np.array([6], np.int64))


def test_store_shapes_of_the_tiles_own_shape_is_a_plain_store():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[32, 8], pl.FP32]]) -> pl.Tensor[[32, 8], pl.FP32]:
                t = pl.load(x, [0, 0], [16, 8])
                out = pl.store(t, [16, 0], out, [16, 8])
                return out
    """)
    x, out = rnd((16, 8)), np.zeros((32, 8), np.float32)
    prog.run(x, out)
    np.testing.assert_array_equal(out[16:], x)
    with pytest.raises(ParserError, match=r"'shapes' \[1, 16, 8\] differs from the tile's shape \[16, 8\]"):
        build("""
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[32, 8], pl.FP32]]) -> pl.Tensor[[32, 8], pl.FP32]:
                    t = pl.load(x, [0, 0], [16, 8])
                    out = pl.store(t, [16, 0], out, [1, 16, 8])
                    return out
        """)


CLUSTER = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[8, 8], pl.FP32], flag: pl.Scalar[pl.BOOL], w: pl.Scalar[pl.INT64],
              out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
            t = pl.load(x, [0, 0], [8, 8])
            if flag:
                t = pl.mul(t, 2.0)
            out = pl.store(t, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
            one = pl.tensor.dim(x, 0) // 8
            with pl.cluster(name_hint="c"):
                out = self.k(x, one, 3, out)
            return out
"""


def test_cluster_is_transparent_and_scalar_arguments_convert():
    prog = build(CLUSTER)
    text = str(prog.module)
    assert "arith.cmpi ne" in text  # an index passed for a pl.BOOL parameter: != 0
    x, out = rnd((8, 8)), np.zeros((8, 8), np.float32)
    prog.run(x, out)
    np.testing.assert_array_equal(out, 2 * x)


def test_cluster_and_sync_start_errors():
    with pytest.raises(ParserError, match="pl.cluster groups launches"):
        build("""
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
                    with pl.cluster():
                        y = pl.neg(x)
                    return x
        """)
    with pytest.raises(ParserError, match="sync_start must be True or False"):
        build("""
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.Orchestration)
                def main(self, x: pl.Tensor[[8, 8], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
                    with pl.spmd(2, sync_start=1):
                        o = pl.assemble(o, pl.neg(x), [0, 0])
                    return o
        """)


def test_spmd_sync_start_runs_every_block():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[8, 8], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
                for i in pl.spmd(2, sync_start=True):
                    o[i * 4:(i + 1) * 4] = pl.neg(x[i * 4:(i + 1) * 4])
                return o
    """)
    x, o = rnd((8, 8)), np.zeros((8, 8), np.float32)
    prog.run(x, o)
    np.testing.assert_array_equal(o, -x)


def test_return_style_call_allocates_and_returns_the_outputs():
    from pypto_xdsl.runtime import RunConfig, run

    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]],
                     y: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
                o = pl.assemble(o, pl.add(x, y), [0, 0])
                return o
    """)
    compiled = run(prog, config=RunConfig())
    x, y = rnd((4, 4), 1), rnd((4, 4), 2)
    np.testing.assert_allclose(compiled(x, y), x + y)
    o = np.zeros((4, 4), np.float32)
    assert compiled(x, o, y) is None  # in-place style
    np.testing.assert_allclose(o, x + y)
    with pytest.raises(Exception, match="or its 2 non-output ones"):
        compiled(x)


def test_tensor_spec_with_numpy_dtypes():
    from pypto_xdsl.runtime import TensorSpec

    assert TensorSpec("q", [2, 3], np.float32, init_value=2.0).create_tensor().sum() == 12.0
    assert TensorSpec("o", [2], np.int32, is_output=True).create_tensor().tolist() == [0, 0]
    assert TensorSpec("c", [2], np.float32, init_value=lambda: [1.5, 2.5]).create_tensor().tolist() == [1.5, 2.5]
    with pytest.raises(TypeError, match="unsupported init_value"):
        TensorSpec("b", [2], np.float32, init_value="x").create_tensor()


def test_ir_compile_and_program_functions(tmp_path):
    from pypto_xdsl.runtime import ir

    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                out = pl.store(pl.exp(pl.load(x, [0, 0], [16, 16])), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
                out = self.k(x, out)
                return out
    """)
    out = ir.compile(prog, strategy=ir.OptimizationStrategy.Default, output_dir=tmp_path / "o")
    assert any(p.suffix == ".cpp" for p in (tmp_path / "o").rglob("*"))
    assert out == str(tmp_path / "o")
    assert list(prog.functions) == ["k", "main"] and prog.functions["k"].name == "k"
    assert "pypto.func" in prog.as_python()


ESCAPING = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[8, 4], pl.FP32], n: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
            for b in pl.range(n):
                t = pl.load(x, [b * 2, 0], [2, 4])
                written = pl.store(pl.neg(t), [b * 2, 0], out)
            return written
"""


@pytest.mark.parametrize("n", [0, 2, 4])
def test_a_write_escaping_its_loop_names_the_storage_after_it(n):
    prog = build(ESCAPING)
    assert "scf.for" in str(prog.module)
    x, out = rnd((8, 4), 5), np.full((8, 4), 7.0, np.float32)
    prog.run(x, n, out)
    want = np.full((8, 4), 7.0, np.float32)
    want[: 2 * n] = -x[: 2 * n]
    np.testing.assert_array_equal(out, want)


def test_a_value_escaping_its_loop_is_still_an_error():
    with pytest.raises(ParserError, match="'y' is only defined inside the loop"):
        build("""
            @pl.program
            class P:
                @pl.function
                def main(self, x: pl.Tensor[[8, 4], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP32]:
                    for i in pl.range(3):
                        y = pl.neg(x)
                    return y
        """)


def test_a_shorter_runtime_view_for_an_in_parameter_is_valid_in_its_extent():
    # the reference's 04_paged_attention: pl.slice(sij, [16, valid_len], [0, 0]) passed for a
    # [16, 128] parameter; the kernel's load is partial past valid_len
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, s: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
                t = pl.load(s, [0, 0], [4, 8])
                out = pl.store(pl.row_max(t), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[4, 8], pl.FP32], n: pl.Tensor[[1], pl.INT64],
                     out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
                v = pl.tensor.read(n, [0])
                s = pl.slice(x, [4, v], [0, 0])
                out = self.k(s, out)
                return out
    """)
    x, out = rnd((4, 8), 9), np.zeros((4, 1), np.float32)
    prog.run(x, np.array([5], np.int64), out)
    np.testing.assert_array_equal(out[:, 0], x[:, :5].max(axis=1))
