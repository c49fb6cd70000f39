// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the pypto.tile ops, one case each.

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %b: !pypto.tile<[8, 8], f32, mat>) {
  %r = "pypto.tile.add"(%a, %b) : (!pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 8], f32, mat>) -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs' are in different memory spaces vec and mat

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %b: !pypto.tile<[8, 4], f32, vec>) {
  %r = "pypto.tile.mul"(%a, %b) : (!pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 4], f32, vec>) -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'lhs' and 'rhs': shape mismatch, [8, 8] vs [8, 4]

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>) {
  %r = pypto.tile.neg %a : !pypto.tile<[8, 8], f32, vec> -> !pypto.tile<[8, 8], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[8, 8], f32, mat>, but the operands imply !pypto.tile<[8, 8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], i8, vec>) {
  %r = pypto.tile.sqrt %a : !pypto.tile<[8, 8], i8, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must have a float element type, got i8

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %s: i32) {
  %r = pypto.tile.muls %a, %s : !pypto.tile<[8, 8], f32, vec>, i32
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type i32, expected the element type f32 of 'lhs'

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>) {
  %r = pypto.tile.cast %a : !pypto.tile<[8, 8], f32, vec> -> !pypto.tile<[8, 8], f16, mat>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[8, 8], f16, mat>, but the operands imply !pypto.tile<[8, 8], f16, vec>

// -----

pypto.func aiv @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.load %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[8, 8], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result tile element type f16 differs from the source's f32

// -----

pypto.func aiv @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.load %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[8, 128], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: load: window [8, 128] exceeds !pypto.tensor<[64, 64], f32>

// -----

pypto.func aiv @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.load %t[%i] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has rank 2 but 1 offsets were given

// -----

pypto.func aiv @f(%t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.load %t[%i, %i] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: load: rank 1 differs from the rank 2 of !pypto.tensor<[64, 64], f32>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f16, vec>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.store %a, %t[%i, %i] : !pypto.tile<[8, 8], f16, vec>, !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'tile' has element type f16 but 'dest' has f32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 128], f32, vec>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = pypto.tile.store %a, %t[%i, %i] : !pypto.tile<[8, 128], f32, vec>, !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: store: window [8, 128] exceeds !pypto.tensor<[64, 64], f32>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %t: !pypto.tensor<[64, 64], f32>, %i: index) {
  %r = "pypto.tile.store"(%a, %t, %i, %i) : (!pypto.tile<[8, 8], f32, vec>, !pypto.tensor<[64, 64], f32>, index, index) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tensor<[8, 8], f32>, but the operands imply !pypto.tensor<[64, 64], f32>

// -----

pypto.func aiv @f(%v: f16) {
  %r = pypto.tile.full %v : f16 -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'value' has type f16, expected the element type f32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, mat>) {
  %r = pypto.tile.move %a : !pypto.tile<[8, 8], f32, mat> -> !pypto.tile<[8, 4], f32, left>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[8, 4], f32, left>, but the operands imply !pypto.tile<[8, 8], f32, left>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8], f32, vec>) {
  %r = pypto.tile.row_max %a : !pypto.tile<[8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a 2-D tile, got !pypto.tile<[8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>) {
  %r = pypto.tile.row_sum %a : !pypto.tile<[8, 8], f32, vec> -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[8, 8], f32, vec>, but the operands imply !pypto.tile<[8, 1], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %r: !pypto.tile<[8], f32, vec>) {
  %x = pypto.tile.row_expand_sub %a, %r : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' must be 2-D tiles, got !pypto.tile<[8, 8], f32, vec> and !pypto.tile<[8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %r: !pypto.tile<[8, 2], f32, vec>) {
  %x = pypto.tile.row_expand_mul %a, %r : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 2], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'row' must have shape [M, 1], got !pypto.tile<[8, 2], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %r: !pypto.tile<[4, 1], f32, vec>) {
  %x = pypto.tile.row_expand_div %a, %r : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[4, 1], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' (rows): shape mismatch, [8] vs [4]

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 8], f32, vec>, %r: !pypto.tile<[8, 1], f16, vec>) {
  %x = pypto.tile.row_expand_sub %a, %r : !pypto.tile<[8, 8], f32, vec>, !pypto.tile<[8, 1], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' have different element types f32 and f16

// -----

pypto.func aic @f(%a: !pypto.tile<[16, 32], f16, left>, %b: !pypto.tile<[16, 16], f16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[16, 16], f16, right>
  pypto.return
}

// CHECK: Operation does not verify: contraction dimension mismatch: 'lhs' is !pypto.tile<[16, 32], f16, left> and 'rhs' is !pypto.tile<[16, 16], f16, right>

// -----

pypto.func aic @f(%a: !pypto.tile<[16, 32], f16, left>, %b: !pypto.tile<[32, 16], f16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 16], f16, right> -> !pypto.tile<[16, 16], f16, acc>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[16, 16], f16, acc>, but the operands imply !pypto.tile<[16, 16], f32, acc>

// -----

pypto.func aic @f(%acc: !pypto.tile<[16, 16], i32, acc>, %a: !pypto.tile<[16, 32], f16, left>, %b: !pypto.tile<[32, 16], f16, right>) {
  %c = pypto.tile.matmul_acc %acc, %a, %b : !pypto.tile<[16, 16], i32, acc>, !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 16], f16, right>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' has element type i32, expected f32

// -----

pypto.func aic @f(%acc: !pypto.tile<[16, 8], f32, acc>, %a: !pypto.tile<[16, 32], f16, left>, %b: !pypto.tile<[32, 16], f16, right>) {
  %c = pypto.tile.matmul_acc %acc, %a, %b : !pypto.tile<[16, 8], f32, acc>, !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 16], f16, right>
  pypto.return
}

// CHECK: Operation does not verify: operand 'acc' and the product of 'lhs' and 'rhs': shape mismatch, [16, 8] vs [16, 16]

// -----

pypto.func aiv @f() {
  %i = "pypto.tile.get_block_idx"() : () -> i32
  pypto.return
}

// CHECK: Operation does not verify: result 'result' at position 0 does not verify:
// CHECK: i32 should be of base attribute index

// -----

pypto.func @k(%a: !pypto.tile<[16, 16], f16, vec>, %b: !pypto.tile<[16, 16], f16, right>) {
  %m = pypto.tile.matmul %a, %b : !pypto.tile<[16, 16], f16, vec>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
  pypto.return
}

// CHECK: operand 'lhs' must be a 'left' tile, got !pypto.tile<[16, 16], f16, vec>; move it there first

// -----

pypto.func @k(%a: !pypto.tile<[16, 16], f16, left>, %b: !pypto.tile<[16, 16], f16, mat>) {
  %m = pypto.tile.matmul %a, %b : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f32, acc>
  pypto.return
}

// CHECK: operand 'rhs' must be a 'right' tile, got !pypto.tile<[16, 16], f16, mat>; move it there first

// -----

pypto.func @k(%c: !pypto.tile<[16, 16], f32, vec>, %a: !pypto.tile<[16, 16], f16, left>, %b: !pypto.tile<[16, 16], f16, right>) {
  %m = pypto.tile.matmul_acc %c, %a, %b : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  pypto.return
}

// CHECK: operand 'acc' must be an 'acc' tile, got !pypto.tile<[16, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], i32, vec>) {
  %r = pypto.tile.row_argmax %a : !pypto.tile<[8, 16], i32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a float tile, got !pypto.tile<[8, 16], i32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.col_argmin %a : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[1, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[1, 16], f32, vec>, but the operands imply !pypto.tile<[1, 16], i32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tile<[8, 16], f16, vec>) {
  %r = pypto.tile.row_argmin %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'tmp' has element type f16, expected f32 like 'input'
