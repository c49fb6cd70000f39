// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// pypto.tile.matmul_bias: the product starts from a [1, N] row of the bias table.

pypto.func aic @f(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %m: !pypto.tile<[1, 64], f32, mat>) {
  %b = pypto.tile.move %m : !pypto.tile<[1, 64], f32, mat> -> !pypto.tile<[1, 64], f32, bias>
  %c = pypto.tile.matmul_bias %l, %r, %b : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
  pypto.return
}

// CHECK:      %b = pypto.tile.move %m : !pypto.tile<[1, 64], f32, mat> -> !pypto.tile<[1, 64], f32, bias>
// CHECK-NEXT: %c = pypto.tile.matmul_bias %l, %r, %b : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
// CHECK-GENERIC: %c = "pypto.tile.matmul_bias"(%l, %r, %b) : (!pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>) -> !pypto.tile<[16, 64], f32, acc>

// An f16 row in L1 moves to the bias table as f32 (the copy converts it).

pypto.func aic @f16_row(%l: !pypto.tile<[16, 32], f16, left>, %r: !pypto.tile<[32, 64], f16, right>, %m: !pypto.tile<[1, 64], f16, mat>) {
  %b = pypto.tile.move %m : !pypto.tile<[1, 64], f16, mat> -> !pypto.tile<[1, 64], f32, bias>
  %c = pypto.tile.matmul_bias %l, %r, %b : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
  pypto.return
}

// CHECK-LABEL: @f16_row
// CHECK:      %b = pypto.tile.move %m : !pypto.tile<[1, 64], f16, mat> -> !pypto.tile<[1, 64], f32, bias>
// CHECK-GENERIC: "pypto.tile.move"(%m) : (!pypto.tile<[1, 64], f16, mat>) -> !pypto.tile<[1, 64], f32, bias>
