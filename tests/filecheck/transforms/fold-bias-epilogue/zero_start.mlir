// RUN: pypto-opt %s -p fold-bias-epilogue | filecheck %s
// RUN: pypto-opt %s -p fold-bias-epilogue | pypto-opt | filecheck %s

// A K loop whose accumulator starts from a zero fill (as convert-tensor-to-tile writes a
// blocked matmul): its first step is peeled off in front of the loop, with the product
// starting from the bias row (tile.matmul_bias), and the loop runs from the second step on.

pypto.func incore @zero_start(%x: !pypto.tensor<[32, 96], f16>, %w: !pypto.tensor<[96, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 48], f32, acc>
  %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%ak = %init) -> (!pypto.tile<[32, 48], f32, acc>) {
    %kk = arith.muli %k, %c32 : index
    %a = pypto.tile.load %x[%c0, %kk] : !pypto.tensor<[32, 96], f16> -> !pypto.tile<[32, 32], f16, mat>
    %b = pypto.tile.load %w[%kk, %c0] : !pypto.tensor<[96, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
    %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
    %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
    %next = pypto.tile.matmul_acc %ak, %l, %r : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
    scf.yield %next : !pypto.tile<[32, 48], f32, acc>
  }
  %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %st = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  pypto.return %st : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @zero_start
// CHECK-NOT:   pypto.tile.full
// CHECK:       %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, mat>
// CHECK-NEXT:  %[[BT:.*]] = pypto.tile.move %row : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
// CHECK-NEXT:  %[[K0:.*]] = arith.muli %c0, %c32 : index
// CHECK-NEXT:  %[[A0:.*]] = pypto.tile.load %x[%c0, %[[K0]]]
// CHECK-NEXT:  %[[B0:.*]] = pypto.tile.load %w[%[[K0]], %c0]
// CHECK-NEXT:  %[[L0:.*]] = pypto.tile.move %[[A0]]
// CHECK-NEXT:  %[[R0:.*]] = pypto.tile.move %[[B0]]
// CHECK-NEXT:  %[[FIRST:.*]] = pypto.tile.matmul_bias %[[L0]], %[[R0]], %[[BT]] :
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %acc = scf.for %k = %[[C1]] to %c3 step %c1 iter_args(%ak = %[[FIRST]]) -> (!pypto.tile<[32, 48], f32, acc>) {
// CHECK:         pypto.tile.matmul_acc %ak
// CHECK:       }
// CHECK-NOT:   vec>
// CHECK:       %st = pypto.tile.store %acc, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>

// One K step from a zero fill: the loop is gone, its one step is the tile.matmul_bias; a
// tile.matmul_acc of a zero fill outside any loop becomes one too.

pypto.func incore @one_step(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>, out %z: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 48], f32, acc>
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%ak = %init) -> (!pypto.tile<[32, 48], f32, acc>) {
    %next = pypto.tile.matmul_acc %ak, %l, %r : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
    scf.yield %next : !pypto.tile<[32, 48], f32, acc>
  }
  %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %rl = pypto.tile.relu %s : !pypto.tile<[32, 48], f32, vec>
  %st = pypto.tile.store %rl, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  %init2 = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 48], f32, acc>
  %acc2 = pypto.tile.matmul_acc %init2, %l, %r : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
  %t2 = pypto.tile.move %acc2 : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row2 = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s2 = pypto.tile.col_expand_add %t2, %row2 : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %st2 = pypto.tile.store %s2, %z[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  pypto.return %st : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @one_step
// CHECK-NOT:   scf.for
// CHECK-NOT:   pypto.tile.full
// CHECK:       %[[BT:.*]] = pypto.tile.move %row : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
// CHECK-NEXT:  %[[P:.*]] = pypto.tile.matmul_bias %l, %r, %[[BT]] :
// CHECK-NEXT:  %[[RL:.*]] = pypto.tile.relu %[[P]] : !pypto.tile<[32, 48], f32, acc>
// CHECK-NEXT:  %st = pypto.tile.store %[[RL]], %y[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>
// CHECK:       %[[BT2:.*]] = pypto.tile.move %row2 : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
// CHECK-NEXT:  %acc2 = pypto.tile.matmul_bias %l, %r, %[[BT2]] :
// CHECK-NEXT:  %st2 = pypto.tile.store %acc2, %z[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>
// CHECK-NOT:   pypto.tile.full
// CHECK-NOT:   col_expand_add
// CHECK:       pypto.return

// Not folded: the loop has no step, so no product the bias could join.

pypto.func incore @no_step(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 48], f32, acc>
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
  %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
  %acc = scf.for %k = %c1 to %c1 step %c1 iter_args(%ak = %init) -> (!pypto.tile<[32, 48], f32, acc>) {
    %next = pypto.tile.matmul_acc %ak, %l, %r : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right>
    scf.yield %next : !pypto.tile<[32, 48], f32, acc>
  }
  %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
  %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
  %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
  %st = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
  pypto.return %st : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func incore @no_step
// CHECK-NOT:   matmul_bias
// CHECK:       pypto.tile.col_expand_add
