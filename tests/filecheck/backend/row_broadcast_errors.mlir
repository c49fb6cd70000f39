// RUN: pypto-opt %s -t ascendc --split-input-file --verify-diagnostics | filecheck %s
// Row broadcasts the Brcb + level-0 form cannot express are rejected, naming the op and why.

// The vector unit divides half and float only.
pypto.func incore @int_div(%x: !pypto.tensor<[8, 64], i32>, %r: !pypto.tensor<[8, 1], i32>, out %y: !pypto.tensor<[8, 64], i32>) -> !pypto.tensor<[8, 64], i32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %v = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], i32> -> !pypto.tile<[8, 1], i32, vec>
  %d = pypto.tile.row_expand_div %t, %v : !pypto.tile<[8, 64], i32, vec>, !pypto.tile<[8, 1], i32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[8, 64], i32, vec>, !pypto.tensor<[8, 64], i32>
  pypto.return %w : !pypto.tensor<[8, 64], i32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.row_expand_div' in @int_div: Ascend C Div exists for half and float only; pypto.tile.row_expand_div on i32 tiles is not supported by the Ascend C backend

// -----

// Brcb has 2- and 4-byte forms only.
pypto.func incore @bytes(%x: !pypto.tensor<[8, 64], i8>, %r: !pypto.tensor<[8, 1], i8>, out %y: !pypto.tensor<[8, 64], i8>) -> !pypto.tensor<[8, 64], i8> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i8> -> !pypto.tile<[8, 64], i8, vec>
  %v = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], i8> -> !pypto.tile<[8, 1], i8, vec>
  %d = pypto.tile.row_expand_sub %t, %v : !pypto.tile<[8, 64], i8, vec>, !pypto.tile<[8, 1], i8, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[8, 64], i8, vec>, !pypto.tensor<[8, 64], i8>
  pypto.return %w : !pypto.tensor<[8, 64], i8>
}
// CHECK: ascendc: cannot lower 'pypto.tile.row_expand_sub' in @bytes: Brcb broadcasts 2- and 4-byte elements only, not the elements of !pypto.tile<[8, 64], i8, vec>

// -----

// One repeat per row: rows more than 255 blocks (8160 bytes) apart exceed the 8-bit repeat stride.
pypto.func incore @long_rows(%x: !pypto.tensor<[2, 2048], f32>, %r: !pypto.tensor<[2, 1], f32>, out %y: !pypto.tensor<[2, 2048], f32>) -> !pypto.tensor<[2, 2048], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2, 2048], f32> -> !pypto.tile<[2, 2048], f32, vec>
  %v = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[2, 1], f32> -> !pypto.tile<[2, 1], f32, vec>
  %d = pypto.tile.row_expand_mul %t, %v : !pypto.tile<[2, 2048], f32, vec>, !pypto.tile<[2, 1], f32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[2, 2048], f32, vec>, !pypto.tensor<[2, 2048], f32>
  pypto.return %w : !pypto.tensor<[2, 2048], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.row_expand_mul' in @long_rows: rows of !pypto.tile<[2, 2048], f32, vec> are longer than 255 blocks of 32 bytes (the repeat stride limit)
