// RUN: pypto-opt %s -t ascendc --split-input-file --verify-diagnostics | filecheck %s
// Tile ops of #12 in element types or layouts the Ascend C API cannot express are rejected,
// naming the op and why (no code that would not compile or would compute something else).

// Integer division: Ascend C has no integer Div.
pypto.func incore @int_divs(%x: !pypto.tensor<[8, 64], i32>, out %y: !pypto.tensor<[8, 64], i32>) -> !pypto.tensor<[8, 64], i32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %s = arith.constant 3 : i32
  %d = pypto.tile.divs %t, %s : !pypto.tile<[8, 64], i32, vec>, i32
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[8, 64], i32, vec>, !pypto.tensor<[8, 64], i32>
  pypto.return %w : !pypto.tensor<[8, 64], i32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.divs' in @int_divs: Ascend C Div exists for half and float elements only (dav-c220), not i32; pypto.tile.divs on i32 tiles is not supported by the Ascend C backend

// -----

// WholeReduceSum is half/float only on dav-c220.
pypto.func incore @int_row_sum(%x: !pypto.tensor<[8, 64], i16>, out %y: !pypto.tensor<[8, 1], i16>) -> !pypto.tensor<[8, 1], i16> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i16> -> !pypto.tile<[8, 64], i16, vec>
  %d = pypto.tile.row_sum %t : !pypto.tile<[8, 64], i16, vec> -> !pypto.tile<[8, 1], i16, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[8, 1], i16, vec>, !pypto.tensor<[8, 1], i16>
  pypto.return %w : !pypto.tensor<[8, 1], i16>
}
// CHECK: ascendc: cannot lower 'pypto.tile.row_sum' in @int_row_sum: Ascend C WholeReduceSum exists for half and float elements only (dav-c220), not i16; pypto.tile.row_sum on i16 tiles is not supported by the Ascend C backend

// -----

// WholeReduceMax likewise.
pypto.func incore @int_row_max(%x: !pypto.tensor<[8, 64], i32>, out %y: !pypto.tensor<[8, 1], i32>) -> !pypto.tensor<[8, 1], i32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %d = pypto.tile.row_max %t : !pypto.tile<[8, 64], i32, vec> -> !pypto.tile<[8, 1], i32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[8, 1], i32, vec>, !pypto.tensor<[8, 1], i32>
  pypto.return %w : !pypto.tensor<[8, 1], i32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.row_max' in @int_row_max: Ascend C WholeReduceMax exists for half and float elements only (dav-c220), not i32; pypto.tile.row_max on i32 tiles is not supported by the Ascend C backend

// -----

// A reshape between padded layouts would move elements: not a view.
pypto.func incore @padded_reshape(%x: !pypto.tensor<[8, 12], f32>, out %y: !pypto.tensor<[12, 8], f32>) -> !pypto.tensor<[12, 8], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 12], f32> -> !pypto.tile<[8, 12], f32, vec>
  %d = pypto.tile.reshape %t : !pypto.tile<[8, 12], f32, vec> -> !pypto.tile<[12, 8], f32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[12, 8], f32, vec>, !pypto.tensor<[12, 8], f32>
  pypto.return %w : !pypto.tensor<[12, 8], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.reshape' in @padded_reshape: reshaping !pypto.tile<[8, 12], f32, vec> to !pypto.tile<[12, 8], f32, vec> moves elements between padded UB rows (rows are padded to 32 bytes); only reshapes between unpadded layouts (one row, one column, or rows of a multiple of 32 bytes on both sides) are views
