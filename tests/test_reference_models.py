"""PyPTO's examples/intermediate/01_fused_linear.py, examples/models/01_ffn.py and
examples/models/03_flash_attention.py, written as @pl.program classes (the reference uses
@pl.jit, which is another issue): they compile, run in the interpreter and match numpy,
before and after pypto-default.

Their kernels keep the reference's spellings: tile-level cube kernels of f32 operands,
vector kernels chaining `pl.mul(t, 1.702)`-style scalar ops, and, for attention, a
tensor-level scope with `pl.range(..., init_values=...)`, if/else branches yielding with
`pl.yield_`, `pl.matmul(..., b_trans=True)`, mixed-dtype matmuls (PyPTO promotes the
operands) and NumPy-style `[M, 1]` broadcasts (`pl.sub(s, row_max)`). The reference's
attention example does not verify as written (its product of an f16 `P` is assembled into
an f32 tensor; its running max starts from a fresh `create_tensor` in every iteration): the
version here keeps its structure and fixes those two points.
"""

from __future__ import annotations

import numpy as np

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import func_ops


@pl.program
class FusedLinear:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_kernel_64x64(
        self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a_l1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
        tile_b_l1 = pl.load(b, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
        tile_a_l0a = pl.move(tile_a_l1, target_memory=pl.MemorySpace.Left)
        tile_b_l0b = pl.move(tile_b_l1, target_memory=pl.MemorySpace.Right)
        tile_c_l0c = pl.matmul(tile_a_l0a, tile_b_l0b)
        output = pl.store(tile_c_l0c, [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.InCore)
    def add_bias_relu_kernel_64x64(
        self, x: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [64, 64])
        tile_bias = pl.load(bias, [0, 0], [64, 64])
        tile_y = pl.relu(pl.add(tile_x, tile_bias))
        output = pl.store(tile_y, [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.Orchestration)
    def fused_linear_relu(
        self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[64, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        mm_out = pl.create_tensor([64, 64], dtype=pl.FP32)
        mm_out = self.matmul_kernel_64x64(x, w, mm_out)
        y = self.add_bias_relu_kernel_64x64(mm_out, bias, y)
        return y


@pl.program
class FFN:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_kernel(
        self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a_l0a = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
        tile_b_l0b = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right)
        output = pl.store(pl.matmul(tile_a_l0a, tile_b_l0b), [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.InCore)
    def gelu_kernel(
        self, x: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_x = pl.load(x, [0, 0], [64, 64])
        x_scaled = pl.mul(tile_x, 1.702)
        x_neg = pl.mul(x_scaled, -1.0)
        exp_neg = pl.exp(x_neg)
        denom = pl.add(exp_neg, 1.0)
        sigmoid = pl.recip(denom)
        result = pl.mul(tile_x, sigmoid)
        output = pl.store(result, [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.InCore)
    def swiglu_kernel(
        self, gate: pl.Tensor[[64, 64], pl.FP32], up: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_gate = pl.load(gate, [0, 0], [64, 64])
        tile_up = pl.load(up, [0, 0], [64, 64])
        sigmoid = pl.recip(pl.add(pl.exp(pl.mul(tile_gate, -1.0)), 1.0))
        output = pl.store(pl.mul(pl.mul(tile_gate, sigmoid), tile_up), [0, 0], output)
        return output

    @pl.function(type=pl.FunctionType.Orchestration)
    def ffn_gelu(
        self, hidden_states: pl.Tensor[[64, 64], pl.FP32], gate_proj_weight: pl.Tensor[[64, 64], pl.FP32],
        down_proj_weight: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        gate = pl.create_tensor([64, 64], dtype=pl.FP32)
        gate = self.matmul_kernel(hidden_states, gate_proj_weight, gate)
        activated = pl.create_tensor([64, 64], dtype=pl.FP32)
        activated = self.gelu_kernel(gate, activated)
        output = self.matmul_kernel(activated, down_proj_weight, output)
        return output

    @pl.function(type=pl.FunctionType.Orchestration)
    def ffn_swiglu(
        self, hidden_states: pl.Tensor[[64, 64], pl.FP32], gate_proj_weight: pl.Tensor[[64, 64], pl.FP32],
        up_proj_weight: pl.Tensor[[64, 64], pl.FP32], down_proj_weight: pl.Tensor[[64, 64], pl.FP32],
        output: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        gate = pl.create_tensor([64, 64], dtype=pl.FP32)
        gate = self.matmul_kernel(hidden_states, gate_proj_weight, gate)
        up = pl.create_tensor([64, 64], dtype=pl.FP32)
        up = self.matmul_kernel(hidden_states, up_proj_weight, up)
        activated = pl.create_tensor([64, 64], dtype=pl.FP32)
        activated = self.swiglu_kernel(gate, up, activated)
        output = self.matmul_kernel(activated, down_proj_weight, output)
        return output


@pl.program
class FlashAttention:
    @pl.function
    def flash_attention(
        self, q_13: pl.Tensor[[64, 128], pl.FP32], k_16: pl.Tensor[[1024, 128], pl.FP32], v_19: pl.Tensor[[1024, 128], pl.FP32]
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            attn_initial = pl.create_tensor([64, 128], dtype=pl.FP32)
            oi_update_initial = pl.create_tensor([64, 128], dtype=pl.FP32)
            li_update_initial = pl.create_tensor([64, 1], dtype=pl.FP32)
            mi_update_initial = pl.create_tensor([64, 1], dtype=pl.FP32)
            for i, (mi_update, li_update, attn_update, oi_update) in pl.range(
                16, init_values=(mi_update_initial, li_update_initial, attn_initial, oi_update_initial)
            ):
                kj = pl.slice(k_16, [64, 128], [i * 64, 0])
                vj = pl.slice(v_19, [64, 128], [i * 64, 0])
                sij = pl.matmul(q_13, kj, out_dtype=pl.FP32, a_trans=False, b_trans=True, c_matrix_nz=False)
                sij_1 = pl.mul(sij, 0.0883883)
                row_max = pl.row_max(sij_1)
                if i == 0:
                    p_ij = pl.exp(pl.sub(sij_1, row_max))
                    l_ij = pl.row_sum(p_ij)
                    tilda_pij = pl.cast(p_ij, target_type=pl.FP16, mode="round")
                    oi_new = pl.matmul(tilda_pij, vj, out_dtype=pl.FP32)
                    oi_up = pl.assemble(oi_update, oi_new, offset=[0, 0])
                    if i == 15:
                        attn_new = pl.yield_(pl.div(oi_up, l_ij))
                    else:
                        attn_new = pl.yield_(attn_update)
                    li_up = pl.assemble(li_update, l_ij, offset=[0, 0])
                    mi_up = pl.assemble(mi_update, row_max, offset=[0, 0])
                    mi_next, li_next, attn_next, oi_next = pl.yield_(mi_up, li_up, attn_new, oi_up)
                else:
                    mi_new = pl.maximum(mi_update, row_max)
                    t2 = pl.exp(pl.sub(mi_update, mi_new))
                    p_ij = pl.exp(pl.sub(sij_1, mi_new))
                    l_ij = pl.row_sum(p_ij)
                    li_new = pl.add(pl.mul(t2, li_update), l_ij)
                    li_up = pl.assemble(li_update, li_new, offset=[0, 0])
                    tilda_pij = pl.cast(p_ij, target_type=pl.FP16, mode="round")
                    q1 = pl.matmul(tilda_pij, vj, out_dtype=pl.FP32, a_trans=False, b_trans=False, c_matrix_nz=False)
                    oi_new = pl.add(pl.mul(oi_update, t2), q1)
                    oi_up = pl.assemble(oi_update, oi_new, offset=[0, 0])
                    if i == 15:
                        attn_new = pl.yield_(pl.div(oi_up, li_up))
                    else:
                        attn_new = pl.yield_(attn_update)
                    mi_up = pl.assemble(mi_update, mi_new, offset=[0, 0])
                    mi_next, li_next, attn_next, oi_next = pl.yield_(mi_up, li_up, attn_new, oi_up)
                mi_final, li_final, attn_final, oi_final = pl.yield_(mi_next, li_next, attn_next, oi_next)
        return attn_final


def _uniform(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def test_fused_linear_matches_numpy_before_and_after_the_pipeline():
    rng = np.random.default_rng(0)
    x, w, bias = _uniform(rng, 64, 64), _uniform(rng, 64, 64), _uniform(rng, 64, 64)
    expected = np.maximum(x.astype(np.float64) @ w + bias, 0)
    for passes in ((), ("pypto-default",)):
        y = FusedLinear.run(x, w, bias, np.zeros((64, 64), np.float32), entry="fused_linear_relu", passes=passes)
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    kinds = {f.sym_name.data: f.func_kind for f in func_ops(FusedLinear.fresh_module())}
    assert kinds["matmul_kernel_64x64"] == FuncKind.INCORE


def test_the_pipeline_gives_the_reference_kernels_their_cores():
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.transforms.pipelines import PyptoDefaultPipeline

    module = FusedLinear.fresh_module()
    PyptoDefaultPipeline().apply(make_context(), module)
    kinds = {f.sym_name.data: f.func_kind for f in func_ops(module)}
    assert kinds == {
        "matmul_kernel_64x64": FuncKind.AIC,
        "add_bias_relu_kernel_64x64": FuncKind.AIV,
        "fused_linear_relu": FuncKind.ORCHESTRATION,
    }


def test_ffn_entries_match_numpy():
    rng = np.random.default_rng(1)
    h, g, u, d = (_uniform(rng, 64, 64) for _ in range(4))
    gate = h.astype(np.float64) @ g
    expected_gelu = (gate * _sigmoid(1.702 * gate)) @ d
    expected_swiglu = (gate * _sigmoid(gate) * (h.astype(np.float64) @ u)) @ d
    for passes in ((), ("pypto-default",)):
        out = FFN.run(h, g, d, np.zeros((64, 64), np.float32), entry="ffn_gelu", passes=passes)
        np.testing.assert_allclose(out, expected_gelu, rtol=1e-4, atol=1e-4)
        out = FFN.run(h, g, u, d, np.zeros((64, 64), np.float32), entry="ffn_swiglu", passes=passes)
        np.testing.assert_allclose(out, expected_swiglu, rtol=1e-4, atol=1e-4)


def test_flash_attention_in_the_reference_form_matches_numpy():
    from pypto_xdsl.interpreter.tolerance import assert_close_to_reference

    rng = np.random.default_rng(2)
    q, k, v = _uniform(rng, 64, 128), _uniform(rng, 1024, 128), _uniform(rng, 1024, 128)
    s = (q.astype(np.float64) @ k.T.astype(np.float64)) * 0.0883883
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p / p.sum(axis=1, keepdims=True)) @ v
    for passes in ((), ("pypto-default",)):
        attn = FlashAttention.run(q, k, v, passes=passes)
        assert_close_to_reference(attn, expected, k=1024, dtype="f16", rounded_operands=True)


# --------------------------------------------------------------------------- the DSL surface used above


def _ops(program) -> list[str]:
    return [op.name for op in program.fresh_module().walk() if op.name.startswith("pypto.")]


def test_binary_ops_broadcast_row_and_column_vectors_as_pypto_does():
    @pl.program
    class Broadcasts:
        @pl.function
        def main(
            self, x: pl.Tensor[[8, 16], pl.FP32], r: pl.Tensor[[8, 1], pl.FP32], c: pl.Tensor[[1, 16], pl.FP32],
            out: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
        ) -> pl.Tensor[[8, 16], pl.FP32]:
            a = pl.sub(x, r)  # row_expand_sub
            b = pl.mul(r, a)  # commutative: row_expand_mul(a, r)
            d = pl.div(b, c)  # col_expand_div
            e = pl.maximum(d, r) + c  # row_expand_max, then col_expand_add
            t = pl.load(out, [0, 0], [8, 16])
            tr = pl.load(r, [0, 0], [8, 1])
            out = pl.store(pl.minimum(t, tr) - tr, [0, 0], out)  # tiles broadcast too
            return pl.assemble(out, e, [0, 0])

    names = _ops(Broadcasts)
    for op in ("tensor.row_expand_sub", "tensor.row_expand_mul", "tensor.col_expand_div", "tensor.row_expand_max",
               "tensor.col_expand_add", "tile.row_expand_min", "tile.row_expand_sub"):
        assert f"pypto.{op}" in names, op
    rng = np.random.default_rng(3)
    x, r, c = _uniform(rng, 8, 16), _uniform(rng, 8, 1), _uniform(rng, 1, 16) + 2.0
    out = np.zeros((8, 16), np.float32)
    got = Broadcasts.run(x, r, c, out)
    np.testing.assert_allclose(got, np.maximum((r * (x - r)) / c, r) + c, rtol=1e-6)


def test_a_broadcast_the_dialect_has_no_op_for_is_an_error():
    import pytest

    from pypto_xdsl.frontend.errors import ParserError

    with pytest.raises(ParserError, match=r"operands 'lhs' and 'rhs': shape mismatch, \[8, 1\] vs \[8, 16\]"):
        @pl.program
        class Reversed:
            @pl.function
            def main(self, x: pl.Tensor[[8, 16], pl.FP32], r: pl.Tensor[[8, 1], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
                return pl.sub(r, x)  # [M, 1] - [M, N]: no op, as NumPy would broadcast it


def test_a_matmul_of_two_float_dtypes_promotes_like_pypto():
    @pl.program
    class Mixed:
        @pl.function
        def main(self, p: pl.Tensor[[8, 16], pl.FP16], v: pl.Tensor[[16, 4], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP32]:
            return pl.matmul(p, v)

    assert _ops(Mixed)[:2] == ["pypto.func", "pypto.tensor.cast"]
    rng = np.random.default_rng(4)
    p, v = _uniform(rng, 8, 16).astype(np.float16), _uniform(rng, 16, 4)
    np.testing.assert_allclose(Mixed.run(p, v), p.astype(np.float32) @ v, rtol=1e-6)
