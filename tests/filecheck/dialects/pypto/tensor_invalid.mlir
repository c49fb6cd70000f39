// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the pypto.tensor ops (and of the shared op machinery), one case each.

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8, 8], f32>) {
  %r = "pypto.tensor.add"(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs': rank mismatch, [8] vs [8, 8]

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[4], f32>) {
  %r = "pypto.tensor.sub"(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[4], f32>) -> !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs': shape mismatch, [8] vs [4]

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f16>) {
  %r = "pypto.tensor.mul"(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f16>) -> !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' have different element types f32 and f16

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) {
  %r = pypto.tensor.div %a, %b : !pypto.tensor<[8], f32>, !pypto.tensor<[8], f32> -> !pypto.tensor<[4], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[4], f32>, but the operands imply !pypto.tensor<[8], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %t: !pypto.tile<[8], f32, vec>) {
  %r = "pypto.tensor.maximum"(%a, %t) : (!pypto.tensor<[8], f32>, !pypto.tile<[8], f32, vec>) -> !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'rhs' at position 1 does not verify:
// CHECK: !pypto.tile<[8], f32, vec> should be of base attribute pypto.tensor

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %s: f16) {
  %r = pypto.tensor.adds %a, %s : !pypto.tensor<[8], f32>, f16
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type f16, expected the element type f32 of 'lhs'

// -----

pypto.func @f(%a: !pypto.tensor<[8], i32>) {
  %r = pypto.tensor.exp %a : !pypto.tensor<[8], i32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must have a float element type, got i32

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>) {
  %r = "pypto.tensor.cast"(%a) : (!pypto.tensor<[8], f32>) -> !pypto.tile<[8], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result 'result' at position 0 does not verify:
// CHECK: !pypto.tile<[8], f16, vec> should be of base attribute pypto.tensor

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>) {
  %r = pypto.tensor.cast %a : !pypto.tensor<[8], f32> -> !pypto.tensor<[4], f16>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[4], f16>, but the operands imply !pypto.tensor<[8], f16>

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8, 4], f32>) {
  %r = "pypto.tensor.matmul"(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' must be 2-D, got !pypto.tensor<[8], f32> and !pypto.tensor<[8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[8, 4], f32>) {
  %r = "pypto.tensor.matmul"(%a, %b) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: contraction dimension mismatch: 'lhs' is !pypto.tensor<[8, 16], f32> and 'rhs' is !pypto.tensor<[8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[16, 4], f16>) {
  %r = "pypto.tensor.matmul"(%a, %b) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f16>) -> !pypto.tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' have different element types f32 and f16

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], f32>, %b: !pypto.tensor<[16, 4], f32>) {
  %r = pypto.tensor.matmul %a, %b : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32> -> !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 16], f32>, but the operands imply !pypto.tensor<[8, 4], f32>

// -----

// The product of f16 tensors is f32 (the accumulator's type), as for pypto.tile.matmul.
pypto.func @f(%a: !pypto.tensor<[8, 16], f16>, %b: !pypto.tensor<[16, 4], f16>) {
  %r = pypto.tensor.matmul %a, %b : !pypto.tensor<[8, 16], f16>, !pypto.tensor<[16, 4], f16> -> !pypto.tensor<[8, 4], f16>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 4], f16>, but the operands imply !pypto.tensor<[8, 4], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 16], i8>, %b: !pypto.tensor<[16, 4], i8>) {
  %r = pypto.tensor.matmul %a, %b : !pypto.tensor<[8, 16], i8>, !pypto.tensor<[16, 4], i8> -> !pypto.tensor<[8, 4], i8>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 4], i8>, but the operands imply !pypto.tensor<[8, 4], i32>

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>) {
  %r = pypto.tensor.row_max %a : !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a 2-D tensor, got !pypto.tensor<[8], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>) {
  %r = pypto.tensor.row_sum %a : !pypto.tensor<[8, 8], f32> -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 8], f32>, but the operands imply !pypto.tensor<[8, 1], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>, %r: !pypto.tensor<[8], f32>) {
  %x = pypto.tensor.row_expand_sub %a, %r : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' must be 2-D tensors, got !pypto.tensor<[8, 8], f32> and !pypto.tensor<[8], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>, %r: !pypto.tensor<[8, 2], f32>) {
  %x = pypto.tensor.row_expand_mul %a, %r : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 2], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'row' must have shape [M, 1], got !pypto.tensor<[8, 2], f32>

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>, %r: !pypto.tensor<[4, 1], f32>) {
  %x = pypto.tensor.row_expand_div %a, %r : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[4, 1], f32>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' (rows): shape mismatch, [8] vs [4]

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>, %r: !pypto.tensor<[8, 1], f16>) {
  %x = pypto.tensor.row_expand_sub %a, %r : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 1], f16>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' have different element types f32 and f16

// -----

pypto.func @f(%a: !pypto.tensor<[8, 8], f32>, %r: !pypto.tile<[8, 1], f32, vec>) {
  %x = "pypto.tensor.row_expand_sub"(%a, %r) : (!pypto.tensor<[8, 8], f32>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'row' at position 1 does not verify:

// -----

pypto.func @f(%n: index) {
  %r = pypto.tensor.create(%n) : !pypto.tensor<[?, ?], f32>
  pypto.return
}

// CHECK: Operation does not verify: !pypto.tensor<[?, ?], f32> has 2 dynamic dimensions but 1 sizes were given

// -----

pypto.func @f(%n: i32) {
  %r = "pypto.tensor.create"(%n) : (i32) -> !pypto.tensor<[?], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dynamic_sizes' at position 0 does not verify:
// CHECK: i32 should be of base attribute index

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.slice %t[%i] : !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has rank 2 but 1 offsets were given

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.slice %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[8, 8], f16>
  pypto.return
}

// CHECK: Operation does not verify: result element type f16 differs from the source's f32

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.slice %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[8], f32>
  pypto.return
}

// CHECK: Operation does not verify: slice: rank 1 differs from the rank 2 of !pypto.tensor<[64, 64], f32>

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.slice %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[128, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: slice: window [128, 8] exceeds !pypto.tensor<[64, 64], f32>

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: i32) {
  %r = "pypto.tensor.slice"(%t, %i, %i) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[64, 64], f32>, i32, i32) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'offsets' at positions 1 to 2 does not verify:
// CHECK: i32 should be of base attribute index

// -----

pypto.func @f(%s: !pypto.tensor<[8, 8], f16>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.assemble %s into %t[%i, %i] : !pypto.tensor<[8, 8], f16> into !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has element type f16 but 'dest' has f32

// -----

pypto.func @f(%s: !pypto.tensor<[8, 128], f32>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.assemble %s into %t[%i, %i] : !pypto.tensor<[8, 128], f32> into !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: assemble: window [8, 128] exceeds !pypto.tensor<[64, 64], f32>

// -----

pypto.func @f(%s: !pypto.tensor<[8, 8], f32>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.assemble %s into %t[%i, %i, %i] : !pypto.tensor<[8, 8], f32> into !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dest' has rank 2 but 3 offsets were given

// -----

pypto.func @f(%s: !pypto.tensor<[8, 8], f32>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = "pypto.tensor.assemble"(%t, %s, %i, %i) : (!pypto.tensor<[64, 64], f32>, !pypto.tensor<[8, 8], f32>, index, index) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 8], f32>, but the operands imply !pypto.tensor<[64, 64], f32>

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>) {
  %r = pypto.tensor.dim %t, 2 : !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: axis 2 is out of range for !pypto.tensor<[64, 64], f32>

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.read %t[%i] : !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has rank 2 but 1 offsets were given

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = "pypto.tensor.read"(%t, %i, %i) : (!pypto.tensor<[64, 64], f32>, index, index) -> f16
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type f16, but the operands imply f32

// -----

pypto.func @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tensor.frobnicate %t : !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation pypto.tensor.frobnicate is not registered

// -----

pypto.func @f(%a: !pypto.tensor<[8], f32>) {
  %r = pypto.tensor.cast %a mode "sideways" : !pypto.tensor<[8], f32> -> !pypto.tensor<[8], i32>
  pypto.return
}

// CHECK: pypto.tensor.cast: mode "sideways" is not one of none, rint, round, floor, ceil, trunc, odd
