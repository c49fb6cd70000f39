// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p localize-windows | filecheck %s

// What a device of its own cannot do: reach another rank, or be a rank group's host.

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>) {
  %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 64], f32> -> index
  pypto.return
}

// CHECK: pypto.dist.rank in @k addresses the windows of other ranks: a rank built as a device of its own (the sim target) reaches only its own window; run the program on the interpreter target

// -----

pypto.func incore @k(%s: !pypto.dist_tensor<[1, 1], i32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  pypto.system.notify set %s[%c0, %c0], %c0, %one : !pypto.dist_tensor<[1, 1], i32>, index, i32
  pypto.return
}

// CHECK: pypto.system.notify in @k addresses the windows of other ranks

// -----

pypto.func host @h() {
  pypto.return
}

// CHECK: @h is a host function: the program of a rank group, not of one device
