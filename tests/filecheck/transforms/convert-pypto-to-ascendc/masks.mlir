// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s
// Predicate masks (pypto.tile.cmp / cmps / sel / sels) on the vector unit. A cmp of [8, 16]
// f32 tiles (a mask row of 32 bytes holds the bits of 256 elements): the operands are
// copied into rows of 256 elements of a scratch whose tails hold a pad for which LT is false
// (0 < 0), then one Compare over the 8 x 256 elements writes the [8, 32] mask, padding bits
// 0. A cmps of a [2, 256] tile is one Compare straight from the tile. The sel of [8, 16]
// selects row by row (16 elements of a row, their bits at the start of a mask row); the
// sels of an i16 tile selects, as half bits, against a row of the scalar.

pypto.func incore @k(%x: !pypto.tensor<[8, 16], f32>, %w: !pypto.tensor<[2, 256], f32>, %v: !pypto.tensor<[8, 16], i16>, %s: f32, %t: i16, out %y: !pypto.tensor<[8, 16], f32>, out %z: !pypto.tensor<[8, 16], i16>, out %u: !pypto.tensor<[2, 32], ui8>) -> (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], i16>, !pypto.tensor<[2, 32], ui8>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
  %tmp = pypto.tile.create : !pypto.tile<[1, 32], ui8, vec>
  %m = pypto.tile.cmp %a, %a cmp(lt) : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>
  %r = pypto.tile.sel %m, %a, %a, %tmp : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
  %y1 = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[8, 16], f32>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[2, 256], f32> -> !pypto.tile<[2, 256], f32, vec>
  %n = pypto.tile.cmps %b, %s cmp(ge) : !pypto.tile<[2, 256], f32, vec>, f32
  %u1 = pypto.tile.store %n, %u[%c0, %c0] : !pypto.tile<[2, 32], ui8, vec>, !pypto.tensor<[2, 32], ui8>
  %i = pypto.tile.load %v[%c0, %c0] : !pypto.tensor<[8, 16], i16> -> !pypto.tile<[8, 16], i16, vec>
  %q = pypto.tile.sels %m, %i, %tmp, %t : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 16], i16, vec>, !pypto.tile<[1, 32], ui8, vec>, i16
  %z1 = pypto.tile.store %q, %z[%c0, %c0] : !pypto.tile<[8, 16], i16, vec>, !pypto.tensor<[8, 16], i16>
  pypto.return %y1, %z1, %u1 : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], i16>, !pypto.tensor<[2, 32], ui8>
}

// CHECK-LABEL: ascendc.kernel vector @k
// CHECK: %m_tmp = ascendc.get_buf "m_tmp" %buf_m_pad : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: %[[B:.*]] = ascendc.at %m_tmp[2048]
// CHECK-NEXT: ascendc.duplicate %m_tmp, %{{.*}} count 2048
// CHECK-NEXT: ascendc.duplicate %[[B]], %{{.*}} count 2048
// CHECK-NEXT: %m = ascendc.get_buf "m" %buf_m : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
// CHECK: ascendc.muls %m_tmp, %a, %{{.*}} mask 16 repeat 8 params(1, 1, 32, 2)
// CHECK: ascendc.muls %[[B]], %a, %{{.*}} mask 16 repeat 8 params(1, 1, 32, 2)
// CHECK-NEXT: ascendc.compare %m, %m_tmp, %[[B]] mode LT count 2048 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK: ascendc.select %r, %m, %a, %a mode VSEL_TENSOR_TENSOR_MODE count 16
// CHECK: %[[M7:.*]] = ascendc.at %m[224]
// CHECK: ascendc.select %{{.*}}, %[[M7]], %{{.*}}, %{{.*}} mode VSEL_TENSOR_TENSOR_MODE count 16
// CHECK: ascendc.compares %n, %b, %s mode GE count 512 : !ascendc.local_tensor<ui8, VECOUT>, !ascendc.local_tensor<f32, VECIN>, f32
// CHECK: %q_tmp = ascendc.get_buf "q_tmp" %buf_q_row : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
// CHECK-NEXT: ascendc.duplicate %q_tmp, %t count 16
// CHECK-NEXT: %[[QH:.*]] = ascendc.reinterpret_cast %q_tmp : !ascendc.local_tensor<i16, VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
// CHECK: ascendc.select %{{.*}}, %m, %{{.*}}, %[[QH]] mode VSEL_TENSOR_TENSOR_MODE count 16 : !ascendc.local_tensor<f16, VECOUT>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f16, VECIN>, !ascendc.local_tensor<f16, VECCALC>
