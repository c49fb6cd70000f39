// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the pypto.tensor ops of the broadcast/layout set that the tile
// cases (tile_partial_layout_invalid.mlir) do not already show, one case each.

pypto.func @f(%s: f16) {
  %r = pypto.tensor.full %s : f16 -> !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'value' has type f16, expected the element type f32

// -----

pypto.func @f(%acc: !pypto.tensor<[8, 4], f16>, %a: !pypto.tensor<[8, 16], f16>, %b: !pypto.tensor<[16, 4], f16>) {
  %r = pypto.tensor.matmul_acc %acc, %a, %b : !pypto.tensor<[8, 4], f16>, !pypto.tensor<[8, 16], f16>, !pypto.tensor<[16, 4], f16>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' has element type f16, expected f32

// -----

pypto.func @f(%acc: !pypto.tensor<[8, 8], f32>, %a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[16, 4], f32>) {
  %r = pypto.tensor.matmul_acc %acc, %a, %b : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' and the product of 'lhs' and 'rhs': shape mismatch, [8, 8] vs [8, 4]

// -----

pypto.func @f(%acc: !pypto.tensor<[8, 4], f32>, %a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[8, 4], f32>) {
  %r = pypto.tensor.matmul_acc %acc, %a, %b : !pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: contraction dimension mismatch: 'lhs' is !pypto.tensor<[8, 16], f32> and 'rhs' is !pypto.tensor<[8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[N, 16], f32>) {
  %r = pypto.tensor.reshape %a : !pypto.tensor<[N, 16], f32> -> !pypto.tensor<[16, N], f32>
  pypto.return
}

// CHECK: Operation does not verify: reshape from !pypto.tensor<[N, 16], f32> to !pypto.tensor<[16, N], f32> needs static shapes (only unit dimensions may be added or removed around symbolic ones)

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>) {
  %r = pypto.tensor.transpose %a, 3, 0 : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[16, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: axis1 3 is out of range for the rank-2 tensor !pypto.tensor<[8, 16], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[8, 16], f16>) {
  %r = pypto.tensor.concat %a, %b : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], f16> -> !pypto.tensor<[8, 32], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'src0' and 'src1' have different element types f32 and f16

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>) {
  %r = pypto.tensor.col_max %a : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[8, 1], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 1], f32>, but the operands imply !pypto.tensor<[1, 16], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %c: !pypto.tensor<[8, 1], f32>) {
  %r = pypto.tensor.col_expand_mul %a, %c : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'col' must have shape [1, N], got !pypto.tensor<[8, 1], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %v: f32, %i: index) {
  %r = pypto.tensor.write %v into %a[%i] : f32 into !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dest' has rank 2 but 1 offsets were given

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %v: i32, %i: index) {
  %r = pypto.tensor.write %v into %a[%i, %i] : i32 into !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'value' has type i32, expected the element type f32 of 'dest'

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], i32>) {
  %r = pypto.tensor.rsqrt %a : !pypto.tensor<[8, 16], i32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must have a float element type, got i32

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %s: i32) {
  %r = pypto.tensor.maximums %a, %s : !pypto.tensor<[8, 16], f32>, i32
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type i32, expected the element type f32 of 'lhs'
