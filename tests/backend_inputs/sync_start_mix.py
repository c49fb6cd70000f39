"""A MIX kernel launched with sync_start on every core group of the target: the host asks the
device for its AI cores before the launch. Its members each have a workspace tensor of their
own (the cube's staged product, the AIVs' exchanged partial column sums) beside the ring."""

import pypto_xdsl.language as pl

M, K, BN = 64, 64, 64


@pl.program
class SyncStartMix:
    @pl.function(type=pl.FunctionType.InCore)
    def chain(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, BN], pl.FP16], c: pl.Tensor[[BN, BN], pl.FP32],
              colsum: pl.Out[pl.Tensor[[1, BN], pl.FP32]]) -> pl.Tensor[[1, BN], pl.FP32]:
        staged = pl.create_tensor([M, BN], pl.FP32)
        am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [K, BN], target_memory=pl.Mem.Mat)
        first = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        staged = pl.store(first, [0, 0], staged)
        sm = pl.load(staged, [0, 0], [M, BN], target_memory=pl.Mem.Mat)
        cm = pl.load(c, [0, 0], [BN, BN], target_memory=pl.Mem.Mat)
        second = pl.matmul(pl.move(sm, target_memory=pl.Mem.Left), pl.move(cm, target_memory=pl.Mem.Right))
        return pl.store(pl.col_sum(pl.move(second, target_memory=pl.Mem.Vec)), [0, 0], colsum)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, BN], pl.FP16], c: pl.Tensor[[BN, BN], pl.FP32],
             colsum: pl.Out[pl.Tensor[[1, BN], pl.FP32]]) -> pl.Tensor[[1, BN], pl.FP32]:
        with pl.spmd(pl.system.available_cluster_count(), sync_start=True,
                     optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            colsum = self.chain(a, b, c, colsum)
        return colsum
