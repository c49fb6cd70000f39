// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the batched matmuls, one case each.

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[2, 8, 4], f32>) {
  %r = "pypto.tensor.batch_matmul"(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[2, 8, 4], f32>) -> !pypto.tensor<[2, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' must have rank 2 or more, got !pypto.tensor<[8], f32> and !pypto.tensor<[2, 8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[2, 8, 16], f32>, %b: !pypto.tensor<[2, 8, 4], f32>) {
  %r = "pypto.tensor.batch_matmul"(%a, %b) : (!pypto.tensor<[2, 8, 16], f32>, !pypto.tensor<[2, 8, 4], f32>) -> !pypto.tensor<[2, 8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: contraction dimension mismatch: 'lhs' is !pypto.tensor<[2, 8, 16], f32> and 'rhs' is !pypto.tensor<[2, 8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[2, 8, 16], f32>, %b: !pypto.tensor<[2, 16, 4], f16>) {
  %r = "pypto.tensor.batch_matmul"(%a, %b) : (!pypto.tensor<[2, 8, 16], f32>, !pypto.tensor<[2, 16, 4], f16>) -> !pypto.tensor<[2, 8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' have different element types f32 and f16

// -----

pypto.func @f(%a: !pypto.tensor<[2, 8, 16], f32>, %b: !pypto.tensor<[3, 16, 4], f32>) {
  %r = "pypto.tensor.batch_matmul"(%a, %b) : (!pypto.tensor<[2, 8, 16], f32>, !pypto.tensor<[3, 16, 4], f32>) -> !pypto.tensor<[3, 8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs': batch dims [2] and [3] do not broadcast

// -----

pypto.func @f(%a: !pypto.tensor<[2, 8, 16], f32>, %b: !pypto.tensor<[2, 16, 4], f32>) {
  %r = "pypto.tensor.batch_matmul"(%a, %b) : (!pypto.tensor<[2, 8, 16], f32>, !pypto.tensor<[2, 16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 4], f32>, but the operands imply !pypto.tensor<[2, 8, 4], f32>

// -----

pypto.func @f(%acc: !pypto.tensor<[2, 8, 4], f16>, %a: !pypto.tensor<[2, 8, 16], f16>, %b: !pypto.tensor<[2, 16, 4], f16>) {
  %r = "pypto.tensor.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tensor<[2, 8, 4], f16>, !pypto.tensor<[2, 8, 16], f16>, !pypto.tensor<[2, 16, 4], f16>) -> !pypto.tensor<[2, 8, 4], f16>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' has element type f16, expected f32

// -----

// The accumulator is not broadcast: its batch dims are the product's.

pypto.func @f(%acc: !pypto.tensor<[1, 8, 4], f32>, %a: !pypto.tensor<[2, 8, 16], f32>, %b: !pypto.tensor<[16, 4], f32>) {
  %r = "pypto.tensor.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tensor<[1, 8, 4], f32>, !pypto.tensor<[2, 8, 16], f32>, !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[1, 8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' and the product of 'lhs' and 'rhs': shape mismatch, [1, 8, 4] vs [2, 8, 4]

// -----

pypto.func @f(%acc: !pypto.tensor<[8, 4], f32>, %a: !pypto.tensor<[1, 8, 16], f32>, %b: !pypto.tensor<[16, 4], f32>) {
  %r = "pypto.tensor.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tensor<[8, 4], f32>, !pypto.tensor<[1, 8, 16], f32>, !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' and the product of 'lhs' and 'rhs': rank mismatch, [8, 4] vs [1, 8, 4]

// -----

pypto.func aic @f(%a: !pypto.tile<[2, 16, 32], f16, mat>, %b: !pypto.tile<[2, 32, 16], f16, right>) {
  %c = "pypto.tile.batch_matmul"(%a, %b) : (!pypto.tile<[2, 16, 32], f16, mat>, !pypto.tile<[2, 32, 16], f16, right>) -> !pypto.tile<[2, 16, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'lhs' must be a 'left' tile, got !pypto.tile<[2, 16, 32], f16, mat>; move it there first

// -----

pypto.func aic @f(%a: !pypto.tile<[2, 16, 32], f16, left>, %b: !pypto.tile<[3, 32, 16], f16, right>) {
  %c = "pypto.tile.batch_matmul"(%a, %b) : (!pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[3, 32, 16], f16, right>) -> !pypto.tile<[2, 16, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs': batch dims [2] and [3] do not broadcast

// -----

pypto.func aic @f(%acc: !pypto.tile<[2, 16, 16], f32, mat>, %a: !pypto.tile<[2, 16, 32], f16, left>, %b: !pypto.tile<[2, 32, 16], f16, right>) {
  %c = "pypto.tile.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tile<[2, 16, 16], f32, mat>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 16], f16, right>) -> !pypto.tile<[2, 16, 16], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' must be an 'acc' tile, got !pypto.tile<[2, 16, 16], f32, mat>

// -----

pypto.func aic @f(%acc: !pypto.tile<[2, 16, 16], i32, acc>, %a: !pypto.tile<[2, 16, 32], f16, left>, %b: !pypto.tile<[2, 32, 16], f16, right>) {
  %c = "pypto.tile.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tile<[2, 16, 16], i32, acc>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 16], f16, right>) -> !pypto.tile<[2, 16, 16], i32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' has element type i32, expected f32

// -----

pypto.func aic @f(%acc: !pypto.tile<[1, 16, 16], f32, acc>, %a: !pypto.tile<[2, 16, 32], f16, left>, %b: !pypto.tile<[2, 32, 16], f16, right>) {
  %c = "pypto.tile.batch_matmul_acc"(%acc, %a, %b) : (!pypto.tile<[1, 16, 16], f32, acc>, !pypto.tile<[2, 16, 32], f16, left>, !pypto.tile<[2, 32, 16], f16, right>) -> !pypto.tile<[1, 16, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' and the product of 'lhs' and 'rhs': shape mismatch, [1, 16, 16] vs [2, 16, 16]
