// RUN: pypto-opt %s -t ascendc --verify-diagnostics | filecheck %s
// tile.matmul_bias runs in the interpreter; the Ascend C backend does not lower the bias table
// yet (L1 -> C2 and the 5-argument Mmad), and says so at the bias row's L1 tile instead of
// naming its [1, N] shape as a bad fractal matrix.

pypto.func aic @linear(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 64], f32, mat> -> !pypto.tile<[1, 64], f32, bias>
  %acc = pypto.tile.matmul_bias %l, %r, %bt : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
  %s = pypto.tile.store %acc, %y[%c0, %c0] : !pypto.tile<[32, 64], f32, acc>, !pypto.tensor<[32, 64], f32>
  pypto.return %s : !pypto.tensor<[32, 64], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @linear: the bias table (tile.matmul_bias: L1 -> C2 and the 5-argument Mmad) is not lowered by the Ascend C backend yet; add the bias row to the accumulator on the vector cores (pl.col_expand_add after a move to Vec) instead
