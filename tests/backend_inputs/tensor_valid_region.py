"""A tensor view with a run-time valid region (`pl.slice(..., valid_shape=[16, n])`): its load reads
the valid block, the store writes only that."""
import pypto_xdsl.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        v = pl.slice(a, [16, 64], [0, 0], valid_shape=[16, n])
        e = pl.exp(v)
        o = pl.assemble(o, e, [0, 0])
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        o = self.k(a, n, o)
        return o
