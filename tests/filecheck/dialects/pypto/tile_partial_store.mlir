// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A partial tile may be larger than the window it is stored to: the store writes its valid
// block (PyPTO's clamped tail loads, a gemv's [1, N] row with N padded). The tile's valid
// shape comes from a partial load, through a move and a cube op.

builtin.module {
  pypto.func aic @tail(%a: !pypto.tensor<[1, 64], f32>, %b: !pypto.tensor<[64, 30], f32>, out %o: !pypto.tensor<[1, 30], f32>) -> !pypto.tensor<[1, 30], f32> {
    %c0 = arith.constant 0 : index
    %c30 = arith.constant 30 : index
    %c64 = arith.constant 64 : index
    %x = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, left>
    %m = pypto.tile.load %b[%c0, %c0] valid[%c64, %c30] : !pypto.tensor<[64, 30], f32> -> !pypto.tile<[64, 32], f32, mat>
    %y = pypto.tile.move %m : !pypto.tile<[64, 32], f32, mat> -> !pypto.tile<[64, 32], f32, right>
    %acc = pypto.tile.matmul %x, %y : !pypto.tile<[1, 64], f32, left>, !pypto.tile<[64, 32], f32, right>
    %r = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[1, 32], f32, acc>, !pypto.tensor<[1, 30], f32>
    pypto.return %r : !pypto.tensor<[1, 30], f32>
  }
}

// CHECK:      %m = pypto.tile.load %b[%c0, %c0] valid[%c64, %c30] : !pypto.tensor<[64, 30], f32> -> !pypto.tile<[64, 32], f32, mat>
// CHECK:      %r = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[1, 32], f32, acc>, !pypto.tensor<[1, 30], f32>
// CHECK-GENERIC: %r = "pypto.tile.store"(%acc, %o, %c0, %c0) : (!pypto.tile<[1, 32], f32, acc>, !pypto.tensor<[1, 30], f32>, index, index) -> !pypto.tensor<[1, 30], f32>
