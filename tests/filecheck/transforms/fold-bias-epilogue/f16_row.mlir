// RUN: pypto-opt %s -p fold-bias-epilogue | filecheck %s
// RUN: pypto-opt %s -p fold-bias-epilogue | pypto-opt | filecheck %s

// An f16 bias row cast to f32 for the add: it is loaded f16 into mat and the move to the
// bias table converts it (f16 -> f32, exact); the cast is gone. With N = 48 (not whole
// 64-byte blocks of f16) the row stays on the vector side.

pypto.func incore @linear_f16_row(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f16>, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 64], f16, right> -> !pypto.tile<[32, 64], f32, acc>
  %t = pypto.tile.move %acc : !pypto.tile<[32, 64], f32, acc> -> !pypto.tile<[32, 64], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f16> -> !pypto.tile<[1, 64], f16, vec>
  %rowf = pypto.tile.cast %row : !pypto.tile<[1, 64], f16, vec> -> !pypto.tile<[1, 64], f32, vec>
  %s = pypto.tile.col_expand_add %t, %rowf : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
  %st = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %st : !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: pypto.func incore @linear_f16_row
// CHECK:      %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f16> -> !pypto.tile<[1, 64], f16, mat>
// CHECK-NEXT: %{{.*}} = pypto.tile.move %row : !pypto.tile<[1, 64], f16, mat> -> !pypto.tile<[1, 64], f32, bias>
// CHECK-NEXT: %acc = pypto.tile.matmul_bias %l, %r, %{{.*}} : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
// CHECK-NEXT: %st = pypto.tile.store %acc, %y[%c0, %c0]
// CHECK-NOT:  pypto.tile.cast
// CHECK:      pypto.return

pypto.func incore @linear_f16_row_48(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f16>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
  %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f16> -> !pypto.tile<[1, 48], f16, vec>
  %rowf = pypto.tile.cast %row : !pypto.tile<[1, 48], f16, vec> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %rowf : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %st = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  pypto.return %st : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @linear_f16_row_48
// CHECK:      %acc = pypto.tile.matmul %l, %r
// CHECK:      %rowf = pypto.tile.cast %row
// CHECK-NEXT: %s = pypto.tile.col_expand_add %t, %rowf
// CHECK-NOT:  pypto.tile.matmul_bias
// CHECK:      pypto.return
