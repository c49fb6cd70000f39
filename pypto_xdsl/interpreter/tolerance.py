"""Tolerances for comparing results that went through matmuls, derived from K and the dtype.

Two correct computations of a matmul differ by the order in which they sum the K products
(the interpreter's numpy/BLAS order, the cube's K blocks, the simulation's loops), so a
fixed `rtol = 1e-5` fails a correct K = 512 product while rejecting nothing a bug would
produce. The rule (docs/semantics.md, "Comparing matmul results"):

With `u = 2^-24` (f32, the accumulator), each f32 summation of `s = Σ_k a_k b_k` satisfies,
with high probability, `|ŝ - s| <= λ·√K·u·Σ_k |a_k b_k|` (Higham & Mary's probabilistic
bound; `λ = 4`), so two of them differ by at most twice that. Products of f16 or bf16 operands
are exact in f32 (11 + 11 and 8 + 8 significant bits); f32 operands round each product once
more, which doubles the bound. Hence, per compared array with largest magnitude `S`:

* `rtol = max(1e-5, 2λ·√K·u·p)`: elements whose terms do not cancel (`|s| = Σ|a_k b_k|`);
* `atol = max(1e-6, 2λ·√K·u·p·Σ|ab|)`, with `Σ|ab| ≈ √K/4 · S` for operands of random sign
  (the typical test input): `atol = λ/2·K·u·p·S = 2·K·u·p·S`;

where `p` is 2 for f32 operands and 1 otherwise. Two terms are added when they apply:

* an operand the program itself rounded to f16/bf16 (a `cast` before the matmul, as
  attention's probabilities or an FFN's activations): two computations may round one element
  to neighbouring values, one ulp of the dtype apart: `2·u_dtype·S` on `atol` (and `rtol`);
* a result stored in f16/bf16: one ulp of its dtype on `rtol` and `atol`.

`K` is the longest contraction of the program: the inner dimension of a `tensor.matmul`, or,
for tile matmuls, the extent of the tensor their operand tiles are loaded from (a K loop of
`matmul_acc` accumulates over the whole tensor).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

RTOL = 1e-5
ATOL = 1e-6
LAMBDA = 4.0
U_ACC = 2.0**-24
UNIT_ROUNDOFF = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}
_ORDER = {"f32": 0, "f16": 1, "bf16": 2}


@dataclass(frozen=True)
class MatmulPrecision:
    """What a program's matmuls imply for comparing its results."""

    k: int
    """The longest contraction."""
    dtype: str = "f32"
    """The narrowest float dtype of the matmul operands ('f32', 'f16', 'bf16')."""
    rounded_operands: bool = False
    """Some operand is a value the program computed and rounded to `dtype`."""


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float

    def close(self, expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
        return np.isclose(actual, expected, rtol=self.rtol, atol=self.atol, equal_nan=True)

    def __str__(self) -> str:
        return f"rtol {self.rtol:.3g}, atol {self.atol:.3g}"


def _dtype_name(t: Attribute) -> str | None:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    return None


def matmul_tolerance(
    k: int,
    dtype: str = "f32",
    *,
    scale: float = 1.0,
    rounded_operands: bool = False,
    out_dtype: str = "f32",
    rtol: float = RTOL,
    atol: float = ATOL,
) -> Tolerance:
    """The tolerance for results of a K-long contraction of `dtype` operands whose largest
    magnitude is `scale` (see the module docstring); `rtol`/`atol` are the floors."""
    p = 2.0 if dtype == "f32" else 1.0
    rel = 2 * LAMBDA * math.sqrt(max(k, 1)) * U_ACC * p
    abs_rel = (LAMBDA / 2) * max(k, 1) * U_ACC * p
    if rounded_operands and dtype != "f32":
        rel += 2 * UNIT_ROUNDOFF[dtype]
        abs_rel += 2 * UNIT_ROUNDOFF[dtype]
    if out_dtype != "f32" and out_dtype in UNIT_ROUNDOFF:
        rel += UNIT_ROUNDOFF[out_dtype]
        abs_rel += UNIT_ROUNDOFF[out_dtype]
    return Tolerance(max(rtol, rel), max(atol, abs_rel * scale))


def tolerance_for(
    expected: np.ndarray, precision: MatmulPrecision | None, rtol: float = RTOL, atol: float = ATOL
) -> Tolerance:
    """The tolerance for comparing against `expected` (the floors alone without matmuls)."""
    if precision is None or not np.issubdtype(expected.dtype, np.floating):
        return Tolerance(rtol, atol)
    finite = np.abs(expected[np.isfinite(expected)]) if expected.size else np.zeros(0)
    scale = float(finite.max()) if finite.size else 0.0
    out = {np.dtype(np.float16): "f16"}.get(expected.dtype, "f32")
    return matmul_tolerance(
        precision.k, precision.dtype, scale=scale, rounded_operands=precision.rounded_operands,
        out_dtype=out, rtol=rtol, atol=atol,
    )


# --------------------------------------------------------------------------- programs


def _loaded_extent(value: SSAValue, axis: int) -> tuple[int | None, bool]:
    """The extent along `axis` of the tensor a matmul operand tile was loaded from, and
    whether the operand is a value the program computed (not a plain load of a tensor)."""
    from pypto_xdsl.dialects import tile
    from pypto_xdsl.dialects.attributes import TensorType

    for _ in range(64):
        if isinstance(value, BlockArgument):
            return None, True
        op: Operation = value.owner
        if isinstance(op, tile.MoveOp):
            value = op.input
        elif isinstance(op, tile.TransposeViewOp | tile.TransposeOp):
            value, axis = op.operands[0], 1 - axis
        elif isinstance(op, tile.LoadOp):
            t = op.source.type
            if isinstance(t, TensorType):
                d = t.get_shape()[axis] if t.rank == 2 else None
                computed = not isinstance(op.source, BlockArgument)
                return (d if isinstance(d, int) else None), computed
            return None, True
        else:
            return None, True
    return None, True


def program_precision(module: Operation) -> MatmulPrecision | None:
    """The matmul precision of a module (None when it has no float matmul)."""
    from pypto_xdsl.dialects import tensor, tile

    k_max, dtype, rounded, found = 0, "f32", False, False
    for op in module.walk():
        if isinstance(op, tensor.MatmulOp | tensor.MatmulAccOp | tile.MatmulOp | tile.MatmulAccOp | tile.MatmulBiasOp):
            lhs, rhs = op.lhs, op.rhs  # type: ignore[attr-defined]
            name = _dtype_name(lhs.type.element_type)  # type: ignore[attr-defined]
            if name is None:
                continue
            found = True
            shape = lhs.type.get_shape()  # type: ignore[attr-defined]
            k = shape[-1] if isinstance(shape[-1], int) else 0
            if isinstance(op, tile.MatmulOp | tile.MatmulAccOp | tile.MatmulBiasOp):
                kl, cl = _loaded_extent(lhs, 1)
                kr, cr = _loaded_extent(rhs, 0)
                k = max(k, kl or 0, kr or 0)
                rounded |= (cl or cr) and name != "f32"
            else:
                rounded |= name != "f32" and not (isinstance(lhs, BlockArgument) and isinstance(rhs, BlockArgument))
            k_max = max(k_max, k)
            if _ORDER[name] > _ORDER[dtype]:
                dtype = name
    if not found:
        return None
    return MatmulPrecision(k_max, dtype, rounded)


def assert_close_to_reference(
    actual: np.ndarray, reference: np.ndarray, *, k: int, dtype: str = "f32", rounded_operands: bool = False
) -> Tolerance:
    """Check a result against a (float64) reference with the matmul rule; return the tolerance."""
    tol = tolerance_for(np.asarray(reference), MatmulPrecision(k, dtype, rounded_operands))
    close = tol.close(np.asarray(reference), np.asarray(actual, dtype=np.float64))
    if not close.all():
        bad = np.argwhere(~close)
        first = tuple(int(i) for i in bad[0])
        raise AssertionError(
            f"{len(bad)} of {close.size} elements differ beyond {tol} (K={k}, {dtype}), first at "
            f"{list(first)}: expected {reference[first]!r}, got {actual[first]!r}"
        )
    return tol
