"""The `pl` op surface of PyPTO's catalogue, spelled as the reference spells it (positional
order, keyword names, defaults), lowered by the frontend and run by the interpreter against
numpy. Several programs are the reference's own examples (tile softmax and normalisation,
concat, tile assemble, dynamic valid shapes), written as `@pl.program` classes."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.frontend.program import load_programs


def rnd(shape, seed=0, dtype=np.float32, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (np.abs(a) + 0.5 if positive else a).astype(dtype)


def build(source: str):
    """The single @pl.program of a module text (frontend errors surface as ParserError)."""
    text = "import math\nimport pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


def ir(prog) -> str:
    return str(prog.module)


# --------------------------------------------------------------------------- reference examples


@pl.program
class TileSoftmax:  # examples/intermediate/02_softmax.py
    @pl.function(type=pl.FunctionType.InCore)
    def tile_softmax(self, a: pl.Tensor[[64, 64], pl.FP32],
                     output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a = pl.load(a, [0, 0], [64, 64])
        max_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_max: pl.Tile[[64, 1], pl.FP32] = pl.row_max(tile_a, max_tmp)
        shifted = pl.row_expand_sub(tile_a, row_max)
        exp_shifted = pl.exp(shifted)
        sum_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_sum: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(exp_shifted, sum_tmp)
        result = pl.row_expand_div(exp_shifted, row_sum)
        pl.store(result, [0, 0], output)
        return output


def test_reference_tile_softmax_with_scratch_tiles():
    a = rnd((64, 64), 1)
    out = np.zeros_like(a)
    TileSoftmax.run(a, out)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    text = ir(TileSoftmax)
    assert "pypto.tile.create : !pypto.tile<[64, 64], f32, vec>" in text
    assert "pypto.tile.row_max %tile_a tmp(%max_tmp : !pypto.tile<[64, 64], f32, vec>)" in text


@pl.program
class Normalization:  # examples/intermediate/03_normalization.py
    @pl.function(type=pl.FunctionType.InCore)
    def rms_norm(self, x: pl.Tensor[[32, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
                 output: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [32, 64])
        tile_gamma = pl.load(gamma, [0, 0], [1, 64])
        squared = pl.mul(tile_x, tile_x)
        tmp = pl.create_tile([32, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        mean_sq: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(squared, tmp)
        mean_sq_T: pl.Tile[[1, 32], pl.FP32] = pl.reshape(mean_sq, [1, 32])
        mean_sq_T = pl.mul(mean_sq_T, 0.015625)
        mean_sq = pl.reshape(mean_sq_T, [32, 1])
        mean_sq_T = pl.reshape(mean_sq, [1, 32])
        rms_T = pl.add(mean_sq_T, 1e-5)
        rms_T = pl.sqrt(rms_T)
        rms = pl.reshape(rms_T, [32, 1])
        normalized = pl.row_expand_div(tile_x, rms)
        result = pl.col_expand_mul(normalized, tile_gamma)
        pl.store(result, [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.InCore)
    def layer_norm(self, x: pl.Tensor[[32, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
                   beta: pl.Tensor[[1, 64], pl.FP32],
                   output: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [32, 64])
        tile_gamma = pl.load(gamma, [0, 0], [1, 64])
        tile_beta = pl.load(beta, [0, 0], [1, 64])
        tmp = pl.create_tile([32, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        mean: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(tile_x, tmp)
        mean_T: pl.Tile[[1, 32], pl.FP32] = pl.reshape(mean, [1, 32])
        mean_T = pl.mul(mean_T, 0.015625)
        mean = pl.reshape(mean_T, [32, 1])
        centered = pl.row_expand_sub(tile_x, mean)
        squared = pl.mul(centered, centered)
        tmp2 = pl.create_tile([32, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        var: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(squared, tmp2)
        var_T: pl.Tile[[1, 32], pl.FP32] = pl.reshape(var, [1, 32])
        var_T = pl.mul(var_T, 0.015625)
        var = pl.reshape(var_T, [32, 1])
        var_T = pl.reshape(var, [1, 32])
        var_eps_T = pl.add(var_T, 1e-5)
        std_T = pl.sqrt(var_eps_T)
        std = pl.reshape(std_T, [32, 1])
        normalized = pl.row_expand_div(centered, std)
        scaled = pl.col_expand_mul(normalized, tile_gamma)
        beta_full = pl.col_expand(scaled, tile_beta)
        result = pl.add(scaled, beta_full)
        pl.store(result, [0, 0], output)
        return output


def test_reference_rms_norm_and_layer_norm():
    x, g, b = rnd((32, 64), 2), rnd((1, 64), 3), rnd((1, 64), 4)
    out = np.zeros_like(x)
    Normalization.run(x, g, out, entry="rms_norm")
    np.testing.assert_allclose(out, x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5) * g, rtol=1e-5)
    out = np.zeros_like(x)
    Normalization.run(x, g, b, out, entry="layer_norm")
    mean = x.mean(1, keepdims=True)
    var = ((x - mean) ** 2).mean(1, keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)


@pl.program
class Concat:  # examples/beginner/06_concat.py
    @pl.function(type=pl.FunctionType.InCore)
    def tile_concat_32x32(self, a: pl.Tensor[[32, 16], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
                          c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tile_a = pl.load(a, [0, 0], [32, 16])
        tile_b = pl.load(b, [0, 0], [32, 16])
        tile_out: pl.Tile[[32, 32], pl.FP32] = pl.concat(tile_a, tile_b)
        pl.store(tile_out, [0, 0], c)
        return c


def test_reference_tile_concat():
    a, b = rnd((32, 16), 5), rnd((32, 16), 6)
    c = np.zeros((32, 32), np.float32)
    Concat.run(a, b, c)
    np.testing.assert_array_equal(c, np.concatenate([a, b], axis=1))


@pl.program
class TileAssemble:  # examples/intermediate/05_assemble.py (the vector cases)
    @pl.function(type=pl.FunctionType.InCore)
    def row_by_row(self, x: pl.Tensor[[32, 32], pl.FP32], src: pl.Tensor[[32, 16], pl.FP32],
                   y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [32, 32], target_memory=pl.MemorySpace.Vec)
        tile_src = pl.load(src, [0, 0], [32, 16], target_memory=pl.MemorySpace.Vec)
        for i in pl.range(32):
            row = pl.slice(tile_src, [1, 16], [i, 0])
            tile_x = pl.tile.assemble(tile_x, row, [i, 0])
        pl.store(tile_x, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def double_loop_broadcast(self, x: pl.Tensor[[32, 32], pl.FP32], src: pl.Tensor[[16, 16], pl.FP32],
                              y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [32, 32], target_memory=pl.MemorySpace.Vec)
        tile_src = pl.load(src, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        for b in pl.range(2):
            for c in pl.range(2):
                tile_x = pl.tile.assemble(tile_x, tile_src, [b * 16, c * 16])
        pl.store(tile_x, [0, 0], y)
        return y


def test_reference_tile_assemble_loops():
    x, src = rnd((32, 32), 7), rnd((32, 16), 8)
    y = np.zeros_like(x)
    TileAssemble.run(x, src, y, entry="row_by_row")
    expected = x.copy()
    expected[:, :16] = src
    np.testing.assert_array_equal(y, expected)
    src16 = rnd((16, 16), 9)
    y = np.zeros_like(x)
    TileAssemble.run(x, src16, y, entry="double_loop_broadcast")
    np.testing.assert_array_equal(y, np.tile(src16, (2, 2)))


@pl.program
class DynValidShape:  # examples/intermediate/06_dyn_valid_shape.py
    @pl.function(type=pl.FunctionType.InCore)
    def dyn_valid_shape(self, data: pl.Tensor[[64, 64], pl.FP32], scale: pl.Scalar[pl.FP32],
                        vlen: pl.Scalar[pl.INDEX],
                        output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        s_tile = pl.load(data, [0, 0], [64, 64], valid_shape=[64, vlen], target_memory=pl.MemorySpace.Vec)
        s_padded = pl.tile.fillpad(s_tile, pad_value=pl.PadValue.min)
        scaled = pl.mul(s_padded, scale)
        pl.store(scaled, [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.InCore)
    def dyn_valid_shape_loop(self, sij_buf: pl.Tensor[[128, 64], pl.FP32], cfg: pl.Tensor[[3], pl.INT32],
                             output: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        n_blocks = pl.cast(pl.read(cfg, [0]), pl.INDEX)
        last_valid_len = pl.cast(pl.read(cfg, [1]), pl.INDEX)
        block_size = pl.cast(pl.read(cfg, [2]), pl.INDEX)
        for i in pl.range(n_blocks):
            if i == n_blocks - 1:
                vlen = last_valid_len
            else:
                vlen = block_size
            s_tile = pl.load(sij_buf, [i * 64, 0], [64, 64], valid_shape=[64, vlen],
                             target_memory=pl.MemorySpace.Vec)
            s_padded = pl.tile.fillpad(s_tile, pad_value=pl.PadValue.min)
            pl.store(s_padded, [i * 64, 0], output)
        return output


def test_reference_dynamic_valid_shapes():
    data = rnd((64, 64), 10)
    for vlen in (64, 32):
        out = np.zeros_like(data)
        DynValidShape.run(data, 0.5, vlen, out, entry="dyn_valid_shape")
        expected = data * 0.5
        expected[:, vlen:] = -np.inf
        np.testing.assert_array_equal(out, expected)
    sij = rnd((128, 64), 11)
    out = np.zeros_like(sij)
    DynValidShape.run(sij, np.array([2, 20, 64], np.int32), out, entry="dyn_valid_shape_loop")
    expected = sij.copy()
    expected[64:, 20:] = -np.inf
    np.testing.assert_array_equal(out, expected)
    assert "pypto.tile.set_validshape" in ir(DynValidShape) and "pypto.tile.fillpad" in ir(DynValidShape)


# --------------------------------------------------------------------------- more spellings


def test_scalar_min_max_and_valid_length_idiom():  # the paged-attention kernels' valid_len
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[4, 16], pl.FP32], cur: pl.Scalar[pl.INDEX], bn: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
                valid_len = pl.max(pl.min(16, cur - bn * 16), 0)
                t = pl.load(x, [0, 0], [4, 16], valid_shape=[4, valid_len])
                out = pl.store(pl.tile.fillpad(t), [0, 0], out)
                return out
    """)
    x = rnd((4, 16), 12)
    for cur, bn, n in ((40, 2, 8), (40, 1, 16), (40, 3, 0)):
        out = np.full_like(x, 7.0)
        prog.run(x, cur, bn, out)
        expected = x.copy()
        expected[:, n:] = 0.0
        np.testing.assert_array_equal(out, expected)


def test_tensor_level_ops_with_reference_keywords():
    prog = build("""
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[8, 16], pl.FP32], w: pl.Tensor[[8, 16], pl.FP32],
                     bias: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
                y = pl.col_expand_add(pl.rsqrt(pl.add(pl.mul(x, x), 1.0)), bias)
                z = pl.maximum(pl.tanh(y), 0.0)
                s = pl.matmul(z, w, b_trans=True, out_dtype=pl.FP32)
                return pl.expands(s, 2.0) + s
    """)
    x, w, bias = rnd((8, 16), 13), rnd((8, 16), 14), rnd((1, 16), 15)
    r = prog.run(x, w, bias)
    z = np.maximum(np.tanh(1 / np.sqrt(x * x + 1) + bias), 0)
    np.testing.assert_allclose(r, z @ w.T + 2.0, rtol=1e-5)
    text = ir(prog)
    for op in ("tensor.col_expand_add", "tensor.rsqrt", "tensor.maximums", "tensor.tanh",
               "tensor.transpose %w, 0, 1", "tensor.expands"):
        assert f"pypto.{op}" in text, op


def test_full_is_a_tensor_and_assemble_atomic_adds():
    prog = build("""
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4, 8], pl.FP32], o: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
                acc = pl.full([4, 8], dtype=pl.FP32, value=1.0)
                o = pl.assemble(o, pl.add(x, acc), [0, 0], atomic=pl.AtomicType.Add)
                t = pl.load(x, [0, 0], [4, 8])
                pl.store(t, [4, 0], o, atomic=pl.AtomicType.Add)
                return o
    """)
    x, o = rnd((4, 8), 16), rnd((8, 8), 17)
    expected = o.copy()
    expected[:4] += x + 1
    expected[4:] += x
    prog.run(x, o)
    np.testing.assert_allclose(o, expected, rtol=1e-6)
    assert "pypto.tensor.full" in ir(prog) and "atomic(add)" in ir(prog)


def test_tile_reductions_transposes_and_reads_writes():
    prog = build("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[8, 16], pl.FP32], m: pl.Tensor[[16, 8], pl.FP16],
                  o: pl.Out[pl.Tensor[[16, 8], pl.FP32]], v: pl.Out[pl.Tensor[[8, 16], pl.FP16]],
                  c: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
                t = pl.load(x, [0, 0], [8, 16])
                tmp = pl.tile.create([8, 16], pl.FP32)
                cols = pl.tile.col_sum(t, tmp_tile=tmp)
                lo = pl.tile.row_min(tile=t, tmp_tile=tmp)
                t = pl.tile.row_expand_sub(t, row_vec=lo)
                tt = pl.transpose(t, -1, 0)
                e = pl.tile.read(tt, [1, 2])
                pl.tile.write(tt, [0, 0], e)
                o = pl.store(tt, [0, 0], o)
                k_nat = pl.load(m, [0, 0], [16, 8], target_memory=pl.MemorySpace.Mat)
                k_t = pl.tile.transpose_view(k_nat)
                v = pl.store(pl.move(k_t, target_memory=pl.MemorySpace.Vec), [0, 0], v)
                c = pl.store(cols, [0, 0], c)
                return o
    """)
    x, m = rnd((8, 16), 18), rnd((16, 8), 19, dtype=np.float16)
    o, v, c = np.zeros((16, 8), np.float32), np.zeros((8, 16), np.float16), np.zeros((1, 16), np.float32)
    prog.run(x, m, o, v, c)
    tt = (x - x.min(axis=1, keepdims=True)).T.copy()
    tt[0, 0] = tt[1, 2]
    np.testing.assert_allclose(o, tt, rtol=1e-6)
    np.testing.assert_array_equal(v, m.T)
    np.testing.assert_allclose(c, x.sum(axis=0, keepdims=True), rtol=1e-5)


def test_scalar_cast_and_flat_read():
    prog = build("""
        @pl.program
        class P:
            @pl.function
            def main(self, cfg: pl.Tensor[[3], pl.INT32], f: pl.Scalar[pl.FP32]) -> pl.Tensor[[3], pl.FP32]:
                n = pl.cast(pl.read(cfg, 1), pl.INDEX)
                g = pl.cast(pl.read(cfg, n), pl.FP32, mode="round")
                i = pl.cast(f, pl.INT32)
                out = pl.create_tensor([3], pl.FP32)
                pl.write(out, [0], g)
                pl.write(out, [1], pl.cast(i, pl.FP32))
                pl.write(out, [2], pl.cast(n, pl.FP32))
                return out
    """)
    out = prog.run(np.array([5, 2, 9], np.int32), 3.75)
    np.testing.assert_array_equal(out, np.array([9.0, 3.0, 2.0], np.float32))


def test_typed_constants():
    """`pl.const(value, dtype)`: PyPTO's typed scalar constant."""
    prog = build("""
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[2], pl.INT64]) -> pl.Tensor[[2], pl.INT64]:
            one = pl.const(1, pl.INT64)
            pl.write(x, [0], one)
            pl.write(x, [1], pl.cast(pl.const(2.0, pl.FP32), pl.INT64))
            return x
    """)
    text = ir(prog)
    assert "arith.constant 1 : i64" in text and "arith.constant 2.000000e+00 : f32" in text
    np.testing.assert_array_equal(prog.run(np.zeros(2, np.int64)), np.array([1, 2], np.int64))


def test_a_scalar_of_another_dtype_is_converted_to_the_operands():
    """PyPTO's `pl.tile.subs(f32_tile, pl.const(2, pl.INT32))` subtracts 2.0 (the scalar
    converted as pl.cast converts: sitofp; fptosi truncates toward zero)."""
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
            t = pl.load(x, [0, 0], [8, 8])
            r = pl.tile.subs(t, pl.const(2, pl.INT32))
            return pl.store(r, [0, 0], y)
    """)
    assert "arith.sitofp" in ir(prog)
    x = rnd((8, 8))
    np.testing.assert_array_equal(prog.run(x, np.zeros((8, 8), np.float32)), x - 2.0)
    ints = build("""
    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[4, 8], pl.INT16]) -> pl.Tensor[[4, 8], pl.INT16]:
            return pl.tensor.subs(x, pl.const(2.7, pl.FP32))
    """)
    x16 = np.arange(32, dtype=np.int16).reshape(4, 8)
    np.testing.assert_array_equal(ints.run(x16), x16 - 2)


def test_a_tile_window_past_the_tensor_end_reads_only_its_valid_block():
    """PyPTO's `pl.load(t, [0, 0], [64, 64], valid_shape=[48, 64])` of a [48, 64] tensor (the
    reference's test_fillpad): a partial load of the valid block, padded by fillpad."""
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[6, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
            t = pl.load(x, offsets=[0, 0], shapes=[8, 8], valid_shape=[6, 8])
            p = pl.fillpad(t, pad_value=pl.PadValue.max)
            return pl.store(p, offsets=[0, 0], output_tensor=y)
    """)
    assert "valid[" in ir(prog)
    x = rnd((6, 8))
    want = np.full((8, 8), np.inf, np.float32)
    want[:6] = x
    np.testing.assert_array_equal(prog.run(x, np.zeros((8, 8), np.float32)), want)


# --------------------------------------------------------------------------- located errors


@pytest.mark.parametrize("body, message", [
    ("y = pl.row_max(x, x)", "pl.row_max takes no tmp_tile for a tensor"),
    ("c = pl.const(x, pl.INT32)", "the value of pl.const must be an int or float literal"),
    ("y = pl.rsqrt(x, high_precision=1)", "'high_precision' of pl.rsqrt must be True or False, got"),
    ("t = pl.load(x, [0, 0], [16, 8], valid_shape=[12, 8])", r"valid block \(12 at 0 on axis 0\) runs past the end of"),
    ("y = pl.transpose(x, 1, -1)", "axis1 and axis2 name the same axis 1"),
    ("y = pl.reshape(x, [3, 5])", "reshape changes the element count"),
    ("y = pl.cast(pl.read(x, [0, 0]), pl.INT32, mode='floor')", "scalar inputs take the default mode only"),
    ("y = pl.cast(x, pl.FP16, mode=7)", "is not a cast mode"),
    ("y = pl.cast(x, pl.FP16, mode='sideways')", "is not a cast mode"),
    ("y = pl.min(x, 1)", "pl.min takes scalars"),
    ("y = pl.matmul(x, x, c_matrix_nz=True)", "c_matrix_nz=True is not supported"),
    ("y = pl.fillpad(x)", "tensors carry no valid shape here"),
    ("y = pl.slice(x, [2, 2, 2], [0, 0])", "slice: rank 3 differs from the rank 2"),
    ("y = pl.slice(x, [2, 1.5], [0, 0])", "a dimension of 'shape' of pl.slice must be an int, pl.dynamic or an index"),
    ("y = pl.col_expand_mul(x, pl.load(x, [0, 0], [1, 8]))", "'rhs' of pl.col_expand_mul must be a tensor like 'lhs'"),
    ("t = pl.load(x, [0, 0], [8, 8])\n                y = pl.tile.fillpad(t, pad_value=3)", "pl.PadValue.zero/max/min"),
    ("t = pl.load(x, [0, 0], [8, 8])\n                y = pl.tile.assemble(t, t, [0, 0], atomic=pl.AtomicType.Add)", "has no parameter 'atomic'"),
    ("t = pl.load(x, [0, 0], [8, 8], clamp=\"yes\")", "'clamp' of pl.load must be True or False"),
])
def test_located_errors(body, message):
    with pytest.raises(ParserError, match=message):
        build(f"""
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
                {body}
                return x
        """)


def test_tensor_views_in_annotations():
    prog = build("""
        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4, 4], pl.FP32, pl.TensorView(layout=pl.TensorLayout.ND)]) -> pl.Tensor[[4, 4], pl.FP32]:
                return pl.neg(x)
    """)
    x = rnd((4, 4), 20)
    np.testing.assert_array_equal(prog.run(x), -x)
    for view, message in (("pl.TensorView(layout=pl.TensorLayout.DN)", "is not supported: tensors are row-major"),
                          ("pl.TensorView(valid_shape=[4, 8])", "exceeds the tensor's shape in dimension 1 (8 > 4)"),
                          ("pl.TensorView(valid_shape=[4])", "has 1 entries for a rank-2 tensor"),
                          ("pl.TensorView(stride=[4, 1])", "stride=...) is not supported")):
        with pytest.raises(ParserError, match=re_escape(message)):
            build(f"""
            @pl.program
            class Q:
                @pl.function
                def main(self, x: pl.Tensor[[4, 4], pl.FP32, {view}]) -> pl.Tensor[[4, 4], pl.FP32]:
                    return x
            """)


def re_escape(s: str) -> str:
    import re

    return re.escape(s)


def test_gelu_tanh_constant_folds_math():
    prog = build("""
        K = math.sqrt(2.0 / math.pi)

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
                return pl.mul(pl.mul(x, 0.5), pl.add(pl.tanh(pl.mul(x, K)), 1.0))
    """)
    x = rnd((4, 8), 21)
    np.testing.assert_allclose(prog.run(x), 0.5 * x * (1 + np.tanh(x * math.sqrt(2 / math.pi))), rtol=1e-6)
