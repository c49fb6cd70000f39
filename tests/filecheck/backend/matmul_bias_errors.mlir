// RUN: pypto-opt %s -t ascendc --verify-diagnostics | filecheck %s
// The bias table of dav-c220 holds 1 KB: a bias row of 512 f32 does not fit, and the plan says
// so at the row's L1 tile (before any buffer is planned).

pypto.func aic @linear(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 512], f16>, %bias: !pypto.tensor<[1, 512], f32>, out %y: !pypto.tensor<[32, 512], f32>) -> !pypto.tensor<[32, 512], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 512], f16> -> !pypto.tile<[32, 512], f16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 512], f32> -> !pypto.tile<[1, 512], f32, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 512], f16, mat> -> !pypto.tile<[32, 512], f16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 512], f32, mat> -> !pypto.tile<[1, 512], f32, bias>
  %acc = pypto.tile.matmul_bias %l, %r, %bt : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 512], f16, right>, !pypto.tile<[1, 512], f32, bias>
  %s = pypto.tile.store %acc, %y[%c0, %c0] : !pypto.tile<[32, 512], f32, acc>, !pypto.tensor<[32, 512], f32>
  pypto.return %s : !pypto.tensor<[32, 512], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @linear: bias row %bm !pypto.tile<[1, 512], f32, mat> needs 2048 bytes of the bias table, which holds 1024 (at most 256 f32); split N
