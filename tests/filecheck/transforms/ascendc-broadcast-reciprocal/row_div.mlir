// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-broadcast-reciprocal' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-broadcast-reciprocal,ascendc-broadcast-reciprocal' | filecheck %s
// A row-broadcast division of f32 rows: the Brcb'd row values are inverted once, in place,
// and every 64-column chunk is a Mul with the Div's mask, repeats and strides. Twice = once.
pypto.func incore @rows(%x: !pypto.tensor<[8, 128], f32>, %r: !pypto.tensor<[8, 1], f32>, out %y: !pypto.tensor<[8, 128], f32>) -> !pypto.tensor<[8, 128], f32> {
  %c0 = arith.constant 0 : index
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 128], f32> -> !pypto.tile<[8, 128], f32, vec>
  %tr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
  %q = pypto.tile.row_expand_div %tx, %tr : !pypto.tile<[8, 128], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %w = pypto.tile.store %q, %y[%c0, %c0] : !pypto.tile<[8, 128], f32, vec>, !pypto.tensor<[8, 128], f32>
  pypto.return %w : !pypto.tensor<[8, 128], f32>
}
// CHECK-LABEL: ascendc.kernel vector @rows
// CHECK:      ascendc.brcb %q_brcb, %tr repeat 1 params(1, 8)
// CHECK-NEXT: ascendc.reciprocal %q_brcb, %q_brcb count 64
// CHECK-NOT:  ascendc.reciprocal
// CHECK:      ascendc.mul %q, %tx, %q_brcb mask 64 repeat 8 params(1, 1, 0, 16, 16, 1)
// CHECK:      ascendc.mul %{{.*}}, %{{.*}}, %q_brcb mask 64 repeat 8 params(1, 1, 0, 16, 16, 1)
// CHECK-NOT:  ascendc.div

// -----

// f16 rows keep their Div (two roundings would cost up to 2 ulp: 2e-3 relative); a row
// broadcast other than a division is left alone.
pypto.func incore @kept(%x: !pypto.tensor<[8, 128], f16>, %r: !pypto.tensor<[8, 1], f16>, %s: !pypto.tensor<[8, 1], f32>, %z: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 128], f16>, out %o: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 128], f16>, !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 128], f16> -> !pypto.tile<[8, 128], f16, vec>
  %tr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], f16> -> !pypto.tile<[8, 1], f16, vec>
  %q = pypto.tile.row_expand_div %tx, %tr : !pypto.tile<[8, 128], f16, vec>, !pypto.tile<[8, 1], f16, vec>
  %w = pypto.tile.store %q, %y[%c0, %c0] : !pypto.tile<[8, 128], f16, vec>, !pypto.tensor<[8, 128], f16>
  %ts = pypto.tile.load %s[%c0, %c0] : !pypto.tensor<[8, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
  %tz = pypto.tile.load %z[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %m = pypto.tile.row_expand_mul %tz, %ts : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %wo = pypto.tile.store %m, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w, %wo : !pypto.tensor<[8, 128], f16>, !pypto.tensor<[8, 64], f32>
}
// CHECK-LABEL: ascendc.kernel vector @kept
// CHECK-NOT:  ascendc.reciprocal
// CHECK:      ascendc.div %q, %tx, %q_brcb mask 128 repeat 8
// CHECK-NOT:  ascendc.reciprocal
// CHECK:      ascendc.mul %m, %tz, %m_brcb mask 64 repeat 8
// CHECK-NOT:  ascendc.reciprocal
