import pypto_xdsl.language as pl

Full = pl.Tensor[[64, 32], pl.FP32]
Block = pl.Tensor[[16, 32], pl.FP32]


@pl.program
class CreateInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: Block, out: pl.Out[Block]) -> Block:
        t = pl.load(x, [0, 0], [16, 32])
        out = pl.store(pl.exp(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: Full, out: pl.Out[Full]) -> Full:
        for b in pl.range(4):
            blk = pl.create_tensor([16, 32], pl.FP32)
            blk = self.scale(pl.slice(x, [16, 32], [b * 16, 0]), blk)
            out = pl.assemble(out, blk, [b * 16, 0])
        return out
