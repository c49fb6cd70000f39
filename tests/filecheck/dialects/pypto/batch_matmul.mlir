// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// pypto.tensor.batch_matmul / batch_matmul_acc and pypto.tile.batch_matmul / batch_matmul_acc:
// a matmul per batch, the batch dims of the operands broadcast (aligned at their ends).

pypto.func @tensors(%a: !pypto.tensor<[2, 16, 32], f32>, %b: !pypto.tensor<[2, 32, 48], f32>, %m: !pypto.tensor<[16, 32], f16>, %w: !pypto.tensor<[1, 32, 8], f16>, %x: !pypto.tensor<[4, 1, 16, 32], bf16>, %y: !pypto.tensor<[3, 32, 8], bf16>, %acc: !pypto.tensor<[1, 16, 8], f32>) {
  %c = pypto.tensor.batch_matmul %a, %b : !pypto.tensor<[2, 16, 32], f32>, !pypto.tensor<[2, 32, 48], f32> -> !pypto.tensor<[2, 16, 48], f32>
  %d = pypto.tensor.batch_matmul %m, %w : !pypto.tensor<[16, 32], f16>, !pypto.tensor<[1, 32, 8], f16> -> !pypto.tensor<[1, 16, 8], f32>
  %e = pypto.tensor.batch_matmul %x, %y : !pypto.tensor<[4, 1, 16, 32], bf16>, !pypto.tensor<[3, 32, 8], bf16> -> !pypto.tensor<[4, 3, 16, 8], f32>
  %f = pypto.tensor.batch_matmul_acc %acc, %m, %w : !pypto.tensor<[1, 16, 8], f32>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[1, 32, 8], f16>
  pypto.return
}

// CHECK-LABEL: @tensors
// CHECK:      %c = pypto.tensor.batch_matmul %a, %b : !pypto.tensor<[2, 16, 32], f32>, !pypto.tensor<[2, 32, 48], f32> -> !pypto.tensor<[2, 16, 48], f32>
// CHECK-NEXT: %d = pypto.tensor.batch_matmul %m, %w : !pypto.tensor<[16, 32], f16>, !pypto.tensor<[1, 32, 8], f16> -> !pypto.tensor<[1, 16, 8], f32>
// CHECK-NEXT: %e = pypto.tensor.batch_matmul %x, %y : !pypto.tensor<[4, 1, 16, 32], bf16>, !pypto.tensor<[3, 32, 8], bf16> -> !pypto.tensor<[4, 3, 16, 8], f32>
// CHECK-NEXT: %f = pypto.tensor.batch_matmul_acc %acc, %m, %w : !pypto.tensor<[1, 16, 8], f32>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[1, 32, 8], f16>
// CHECK-GENERIC: "pypto.tensor.batch_matmul"(%x, %y) : (!pypto.tensor<[4, 1, 16, 32], bf16>, !pypto.tensor<[3, 32, 8], bf16>) -> !pypto.tensor<[4, 3, 16, 8], f32>
// CHECK-GENERIC: "pypto.tensor.batch_matmul_acc"(%acc, %m, %w) : (!pypto.tensor<[1, 16, 8], f32>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[1, 32, 8], f16>) -> !pypto.tensor<[1, 16, 8], f32>

// Symbolic and unknown batch dims: a named dim broadcasts with 1, an unknown one takes the other's extent.

pypto.func @symbolic(%a: !pypto.tensor<[B, 16, 32], f32>, %b: !pypto.tensor<[1, 32, 16], f32>, %u: !pypto.tensor<[?, 16, 32], f32>, %v: !pypto.tensor<[2, 32, 16], f32>) {
  %c = pypto.tensor.batch_matmul %a, %b : !pypto.tensor<[B, 16, 32], f32>, !pypto.tensor<[1, 32, 16], f32> -> !pypto.tensor<[B, 16, 16], f32>
  %d = pypto.tensor.batch_matmul %u, %v : !pypto.tensor<[?, 16, 32], f32>, !pypto.tensor<[2, 32, 16], f32> -> !pypto.tensor<[2, 16, 16], f32>
  pypto.return
}

// CHECK-LABEL: @symbolic
// CHECK:      %c = pypto.tensor.batch_matmul %a, %b : !pypto.tensor<[B, 16, 32], f32>, !pypto.tensor<[1, 32, 16], f32> -> !pypto.tensor<[B, 16, 16], f32>
// CHECK-NEXT: %d = pypto.tensor.batch_matmul %u, %v : !pypto.tensor<[?, 16, 32], f32>, !pypto.tensor<[2, 32, 16], f32> -> !pypto.tensor<[2, 16, 16], f32>

pypto.func aic @tiles(%a: !pypto.tile<[2, 16, 32], f16, mat>, %b: !pypto.tile<[2, 48, 32], f16, mat>) {
  %l = pypto.tile.move %a : !pypto.tile<[2, 16, 32], f16, mat> -> !pypto.tile<[2, 16, 32], f16, left>
  %bt = pypto.tile.transpose_view %b : !pypto.tile<[2, 48, 32], f16, mat> -> !pypto.tile<[2, 32, 48], f16, mat>
  %r = pypto.tile.move %bt : !pypto.tile<[2, 32, 48], f16, mat> -> !pypto.tile<[2, 32, 48], f16, right>
  %c = pypto.tile.batch_matmul %l, %r : !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right> -> !pypto.tile<[2, 16, 48], f32, acc>
  %d = pypto.tile.batch_matmul_acc %c, %l, %r : !pypto.tile<[2, 16, 48], f32, acc>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right>
  pypto.return
}

// CHECK-LABEL: @tiles
// CHECK:      %c = pypto.tile.batch_matmul %l, %r : !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right>{{$}}
// CHECK-NEXT: %d = pypto.tile.batch_matmul_acc %c, %l, %r : !pypto.tile<[2, 16, 48], f32, acc>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right>
// CHECK-GENERIC: "pypto.tile.batch_matmul"(%l, %r) : (!pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right>) -> !pypto.tile<[2, 16, 48], f32, acc>
// CHECK-GENERIC: "pypto.tile.batch_matmul_acc"(%c, %l, %r) : (!pypto.tile<[2, 16, 48], f32, acc>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 48], f16, right>) -> !pypto.tile<[2, 16, 48], f32, acc>
