// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of pypto.tile.matmul_bias, one case each.

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %b: !pypto.tile<[1, 64], f32, mat>) {
  %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, mat>) -> !pypto.tile<[16, 64], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'bias' must be a 'bias' tile (the bias table), got !pypto.tile<[1, 64], f32, mat>; move it there first

// -----

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %b: !pypto.tile<[1, 64], f16, bias>) {
  %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f16, bias>) -> !pypto.tile<[16, 64], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'bias' has element type f16, expected the accumulator's f32

// -----

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %b: !pypto.tile<[2, 64], f32, bias>) {
  %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[2, 64], f32, bias>) -> !pypto.tile<[16, 64], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'bias' must be one row [1, N], got !pypto.tile<[2, 64], f32, bias>

// -----

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %b: !pypto.tile<[1, 32], f32, bias>) {
  %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 32], f32, bias>) -> !pypto.tile<[16, 64], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'bias' and the product's columns

// -----

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, mat>, %r: !pypto.tile<[32, 64], f16, right>, %b: !pypto.tile<[1, 64], f32, bias>) {
  %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, mat>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>) -> !pypto.tile<[16, 64], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: operand 'lhs' must be a 'left' tile, got !pypto.tile<[16, 32], f16, mat>; move it there first

// -----

pypto.func aic @f(%m: !pypto.tile<[1, 64], bf16, mat>) {
  %b = "pypto.tile.move"(%m) : (!pypto.tile<[1, 64], bf16, mat>) -> !pypto.tile<[1, 64], f32, bias>
  pypto.return
}

// CHECK: Operation does not verify: a move to the bias table converts only an f16 'mat' tile to f32, not !pypto.tile<[1, 64], bf16, mat> to !pypto.tile<[1, 64], f32, bias>

// -----

pypto.func aic @f(%m: !pypto.tile<[1, 64], f16, vec>) {
  %b = "pypto.tile.move"(%m) : (!pypto.tile<[1, 64], f16, vec>) -> !pypto.tile<[1, 64], f32, bias>
  pypto.return
}

// CHECK: Operation does not verify: a move to the bias table converts only an f16 'mat' tile to f32, not !pypto.tile<[1, 64], f16, vec> to !pypto.tile<[1, 64], f32, bias>

// -----

pypto.func aic @f(%m: !pypto.tile<[1, 64], f16, mat>) {
  %b = "pypto.tile.move"(%m) : (!pypto.tile<[1, 64], f16, mat>) -> !pypto.tile<[1, 64], f32, left>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[1, 64], f32, left>, but the operands imply !pypto.tile<[1, 64], f16, left>
