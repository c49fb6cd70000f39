// RUN: pypto-opt %s -p fold-bias-epilogue | filecheck %s

// A K loop's product, moved to vec only to add a bias row and rectify it before the store:
// the first matmul starts from the row in the bias table (its load, with the offset it
// needs, moves above it), the relu stays on the accumulator (Fixpipe's reluEn) and the store
// takes the accumulator; no vector op is left.

pypto.func incore @linear(%x: !pypto.tensor<[32, 64], f16>, %w: !pypto.tensor<[64, 96], f16>, %bias: !pypto.tensor<[1, 96], f32>, out %y: !pypto.tensor<[32, 96], f32>) -> !pypto.tensor<[32, 96], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %y2 = scf.for %n = %c0 to %c2 step %c1 iter_args(%yn = %y) -> (!pypto.tensor<[32, 96], f32>) {
    %col = arith.muli %n, %c48 : index
    %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 32], f16, mat>
    %b = pypto.tile.load %w[%c0, %col] : !pypto.tensor<[64, 96], f16> -> !pypto.tile<[32, 48], f16, mat>
    %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
    %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
    %acc2 = scf.for %k = %c1 to %c2 step %c1 iter_args(%ak = %acc) -> (!pypto.tile<[32, 48], f32, acc>) {
      %a1 = pypto.tile.load %x[%c0, %c32] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 32], f16, mat>
      %b1 = pypto.tile.load %w[%c32, %col] : !pypto.tensor<[64, 96], f16> -> !pypto.tile<[32, 48], f16, mat>
      %l1 = pypto.tile.move %a1 : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
      %r1 = pypto.tile.move %b1 : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
      %next = pypto.tile.matmul_acc %ak, %l1, %r1 : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
      scf.yield %next : !pypto.tile<[32, 48], f32, acc>
    }
    %t = pypto.tile.move %acc2 : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
    %bcol = arith.muli %n, %c48 : index
    %row = pypto.tile.load %bias[%c0, %bcol] : !pypto.tensor<[1, 96], f32> -> !pypto.tile<[1, 48], f32, vec>
    %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
    %rl = pypto.tile.relu %s : !pypto.tile<[32, 48], f32, vec>
    %st = pypto.tile.store %rl, %yn[%c0, %col] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 96], f32>
    scf.yield %st : !pypto.tensor<[32, 96], f32>
  }
  pypto.return %y2 : !pypto.tensor<[32, 96], f32>
}

// CHECK-LABEL: pypto.func incore @linear
// CHECK:       %bcol = arith.muli %n, %c48 : index
// CHECK-NEXT:  %row = pypto.tile.load %bias[%c0, %bcol] : !pypto.tensor<[1, 96], f32> -> !pypto.tile<[1, 48], f32, mat>
// CHECK-NEXT:  %{{.*}} = pypto.tile.move %row : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
// CHECK-NEXT:  %acc = pypto.tile.matmul_bias %l, %r, %{{.*}} :
// CHECK:       scf.for %k
// CHECK:         pypto.tile.matmul_acc
// CHECK:       }
// CHECK-NOT:   vec>
// CHECK:       %[[R:.*]] = pypto.tile.relu %acc2 : !pypto.tile<[32, 48], f32, acc>
// CHECK-NEXT:  %st = pypto.tile.store %[[R]], %yn[%c0, %col] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 96], f32>
// CHECK-NOT:   col_expand_add

// Not folded: the vector sum is also read elsewhere (here: stored twice), so the product must
// reach the vector cores anyway.

pypto.func incore @kept(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>, out %z: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
  %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %s1 = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  %s2 = pypto.tile.store %s, %z[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  pypto.return %s1 : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @kept
// CHECK-NOT:   matmul_bias
// CHECK:       pypto.tile.col_expand_add

// Not folded: the accumulator itself is stored too, and must stay without the bias.

pypto.func incore @acc_also_stored(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>, out %z: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
  %acc2 = scf.for %k = %c0 to %c1 step %c1 iter_args(%ak = %acc) -> (!pypto.tile<[32, 48], f32, acc>) {
    %next = pypto.tile.matmul_acc %ak, %l, %r : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
    scf.yield %next : !pypto.tile<[32, 48], f32, acc>
  }
  %t = pypto.tile.move %acc2 : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %s1 = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  %s2 = pypto.tile.store %acc2, %z[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %s1 : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @acc_also_stored
// CHECK-NOT:   matmul_bias
// CHECK:       pypto.tile.col_expand_add
