// RUN: pypto-opt %s -t ascendc --verify-diagnostics | filecheck %s
// An f16 bias row in L1 of 48 halves is 96 bytes, not whole 64-byte blocks of the source the
// converting L1 -> bias table copy moves: the plan says so at the row's L1 tile.

pypto.func aic @linear(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f16>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f16> -> !pypto.tile<[1, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 48], f16, mat> -> !pypto.tile<[1, 48], f32, bias>
  %acc = pypto.tile.matmul_bias %l, %r, %bt : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>, !pypto.tile<[1, 48], f32, bias>
  %s = pypto.tile.store %acc, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %s : !pypto.tensor<[32, 48], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @linear: bias row %bm !pypto.tile<[1, 48], f16, mat> must be [1, N] f32 (or f16 in L1) with a static N that is a multiple of 16 (32 for f16; the L1 -> bias table copy moves 64-byte blocks of its source)
