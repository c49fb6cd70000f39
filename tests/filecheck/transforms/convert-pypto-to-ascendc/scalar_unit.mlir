// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s
// Sin with the advanced API and its planned uint8 scratch; element access on the scalar unit
// between V_S/MTE2_S and S_V/S_MTE3 flags (one pair for the read and the write next to it);
// row_prod as a ones-filled scratch, level-0 Mul folds of the column chunks and of the halves
// down to one 32-byte block, then a scalar loop; a transpose as two scalar loops; an atomic
// store between SetAtomicAdd and SetAtomicNone.

pypto.func incore @k(%x: !pypto.tensor<[16, 80], f32>, out %y: !pypto.tensor<[16, 80], f32>, out %z: !pypto.tensor<[16, 1], f32>, out %w: !pypto.tensor<[80, 16], f32>, out %acc: !pypto.tensor<[16, 80], f32>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 80], f32> -> !pypto.tile<[16, 80], f32, vec>
  %s = pypto.tile.sin %t : !pypto.tile<[16, 80], f32, vec>
  %e = pypto.tile.read %t[%c2, %c3] : !pypto.tile<[16, 80], f32, vec>
  %s2 = pypto.tile.write %e into %s[%c3, %c2] : f32 into !pypto.tile<[16, 80], f32, vec>
  %p = pypto.tile.row_prod %t : !pypto.tile<[16, 80], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
  %tr = pypto.tile.transpose %t, 0, 1 : !pypto.tile<[16, 80], f32, vec> -> !pypto.tile<[80, 16], f32, vec>
  %o1 = pypto.tile.store %s2, %y[%c0, %c0] : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  %o2 = pypto.tile.store %p, %z[%c0, %c0] : !pypto.tile<[16, 1], f32, vec>, !pypto.tensor<[16, 1], f32>
  %o3 = pypto.tile.store %tr, %w[%c0, %c0] : !pypto.tile<[80, 16], f32, vec>, !pypto.tensor<[80, 16], f32>
  %o4 = pypto.tile.atomic_store %t, %acc[%c0, %c0] atomic(add) : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  pypto.return %o1, %o2, %o3, %o4 : !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>
}

// CHECK:      %buf_s_tmp = ascendc.tbuf "buf_s_tmp" {values = ["%s.scratch (sin sharedTmpBuffer)"]} : !ascendc.buffer<VECCALC>
// CHECK:      %s_tmp = ascendc.get_buf "s_tmp" %buf_s_tmp : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
// CHECK-NEXT: ascendc.sin %s, %t, %s_tmp count 1280 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>, !ascendc.local_tensor<ui8, VECCALC>
// CHECK:      ascendc.fetch_event_id "event_v_s" V_S
// CHECK:      ascendc.fetch_event_id "event_mte2_s" MTE2_S
// CHECK:      %e = ascendc.get_value "e" %t, %{{.*}} : !ascendc.local_tensor<f32, VECIN>, index
// CHECK-NOT:  fetch_event_id
// CHECK:      ascendc.set_value %s, %{{.*}}, %e : !ascendc.local_tensor<f32, VECCALC>, index, f32
// CHECK-NEXT: ascendc.fetch_event_id "event_s_v" S_V
// CHECK:      ascendc.fetch_event_id "event_s_mte3" S_MTE3
// CHECK:      ascendc.duplicate %p_tmp, %{{.*}} count 1024
// CHECK-NEXT: ascendc.mul %p_tmp, %p_tmp, %t mask 64 repeat 16 params(1, 1, 1, 8, 8, 10)
// CHECK:      ascendc.mul %p_tmp, %p_tmp, %{{.*}} mask 16 repeat 16 params(1, 1, 1, 8, 8, 10)
// CHECK:      ascendc.mul %p_tmp, %p_tmp, %{{.*}} mask 32 repeat 16 params(1, 1, 1, 8, 8, 8)
// CHECK:      ascendc.mul %p_tmp, %p_tmp, %{{.*}} mask 16 repeat 16 params(1, 1, 1, 8, 8, 8)
// CHECK:      ascendc.mul %p_tmp, %p_tmp, %{{.*}} mask 8 repeat 16 params(1, 1, 1, 8, 8, 8)
// CHECK:      scf.for
// CHECK:      ascendc.get_value "prod" %p_tmp
// CHECK-COUNT-7: ascendc.get_value "elem{{.*}}" %p_tmp
// CHECK:      ascendc.set_value %p, %{{.*}} : !ascendc.local_tensor<f32, VECOUT>, index, f32
// CHECK:      scf.for
// CHECK:      scf.for
// CHECK:      ascendc.get_value "elem_7" %t
// CHECK:      ascendc.set_value %tr
// CHECK:      ascendc.set_atomic_add f32
// CHECK-NOT:  ascendc.set_atomic_none
// CHECK:      ascendc.data_copy %acc_gm, %t_out count 1280
// CHECK-NEXT: ascendc.free_tensor %outQ_t_out_1, %t_out
// CHECK-NEXT: ascendc.set_atomic_none
