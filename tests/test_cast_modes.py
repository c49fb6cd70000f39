"""`pl.cast(..., mode=)`: PyPTO's rounding modes (none, rint, round, floor, ceil, trunc, odd;
a name or its index) on the cast ops, in the interpreter against numpy, through
convert-tensor-to-tile, and printed in the IR."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from xdsl.dialects.builtin import Float16Type, IntegerType

from pypto_xdsl.frontend.program import load_programs
from pypto_xdsl.interpreter import numerics
from pypto_xdsl.tools.pypto_compile import parse_program


def build(source: str):
    text = "import pypto_xdsl.language as pl\n\n" + textwrap.dedent(source)
    (prog,) = load_programs(text, "<test>")
    return prog


ROUNDING = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "none": np.trunc,
            "round": lambda v: np.trunc(v + np.copysign(0.5, v))}


def _ties(shape, seed=0):
    rng = np.random.default_rng(seed)
    return np.where(rng.integers(0, 2, size=shape) == 1, rng.integers(-40, 40, size=shape) / 2.0,
                    rng.uniform(-20, 20, size=shape)).astype(np.float32)


@pytest.mark.parametrize("mode", ["none", "rint", "round", "floor", "ceil", "trunc", 1, 3])
def test_float_to_int_modes_in_a_program(mode):
    """The tensor form in an InCore function (converted to tiles) and in orchestration."""
    spelled = repr(mode)
    prog = build(f"""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.INT32]]) -> pl.Tensor[[8, 64], pl.INT32]:
            t = pl.load(x, [0, 0], [8, 64])
            c = pl.cast(t, pl.INT32, mode={spelled})
            return pl.store(c, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.INT32]]) -> pl.Tensor[[8, 64], pl.INT32]:
            return self.k(x, y)
    """)
    name = mode if isinstance(mode, str) else numerics.CAST_MODES[mode]
    assert f'mode "{name}"' in str(prog.module)
    x = _ties((8, 64))
    out = prog.run(x, np.zeros((8, 64), np.int32))
    np.testing.assert_array_equal(out, ROUNDING[name](x.astype(np.float64)).astype(np.int32))


def test_tensor_cast_mode_survives_convert_tensor_to_tile():
    prog = build("""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.INT32]]) -> pl.Tensor[[8, 64], pl.INT32]:
            c = pl.cast(x, pl.INT32, mode="floor")
            return pl.assemble(y, c, [0, 0])

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.INT32]]) -> pl.Tensor[[8, 64], pl.INT32]:
            return self.k(x, y)
    """)
    from pypto_xdsl.runtime import apply_passes

    module = prog.module.clone()
    apply_passes(module, ["convert-tensor-to-tile"])
    assert 'pypto.tile.cast %' in str(module) and 'mode "floor"' in str(module)


@pytest.mark.parametrize("mode", ["floor", "ceil", "trunc", "round", "odd", "rint", "none"])
def test_narrowing_float_modes_pick_the_neighbour_numpy_names(mode):
    """f32 -> f16: the representable neighbours from numpy's nextafter; the mode's choice."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-100, 100, 500), rng.uniform(-1e-3, 1e-3, 100), [0.0, -0.0, 65504.0, 1.0]])
    x = x.astype(np.float32)
    # exact ties between two f16 values: 1 + 2^-11 lies between 1 and 1 + 2^-10
    x = np.concatenate([x, np.float32([1 + 2.0 ** -11, -(1 + 2.0 ** -11), 3 * 2.0 ** -11 + 1])])
    got = numerics.cast(x, Float16Type(), mode).astype(np.float64)
    near = x.astype(np.float16)
    n64 = near.astype(np.float64)
    xd = x.astype(np.float64)
    with np.errstate(over="ignore"):  # the neighbour above 65504 is inf
        lo = np.where(n64 > xd, np.nextafter(near, np.float16(-np.inf)), near).astype(np.float64)
        hi = np.where(n64 < xd, np.nextafter(near, np.float16(np.inf)), near).astype(np.float64)
    exact = n64 == xd
    if mode in ("rint", "none"):
        want = n64
    elif mode == "floor":
        want = lo
    elif mode == "ceil":
        want = hi
    elif mode == "trunc":
        want = np.where(xd > 0, lo, hi)
    elif mode == "round":
        want = np.where((xd - lo) == (hi - xd), np.where(xd > 0, hi, lo), n64)
    else:
        odd_lo = (lo.astype(np.float16).view(np.uint16) & 1) == 1
        want = np.where(odd_lo, lo, hi)
    np.testing.assert_array_equal(got, np.where(exact, n64, want))


def test_unknown_mode_is_a_verifier_error():
    text = """
    pypto.func @f(%x: !pypto.tensor<[4], f32>) -> !pypto.tensor<[4], i32> {
      %c = pypto.tensor.cast %x mode "sideways" : !pypto.tensor<[4], f32> -> !pypto.tensor<[4], i32>
      pypto.return %c : !pypto.tensor<[4], i32>
    }"""
    with pytest.raises(Exception, match='mode "sideways" is not one of none, rint, round, floor, ceil, trunc, odd'):
        parse_program(textwrap.dedent(text)).verify()


def test_mode_odd_does_not_apply_to_integers():
    with pytest.raises(ValueError, match="cast mode 'odd' does not apply"):
        numerics.cast(np.float32([1.5]), IntegerType(32), "odd")
