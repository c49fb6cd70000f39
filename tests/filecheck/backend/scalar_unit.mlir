// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// The scalar-unit and advanced-API lowerings as Ascend C: Sin/Cos include their advanced-API
// headers and take a uint8_t sharedTmpBuffer; element access is GetValue/SetValue between
// flags; row_prod ends in a scalar loop; an atomic store sits between SetAtomicAdd<T>() and
// SetAtomicNone(). tests/test_backend_tile_ops.py runs these ops on the simulation.

pypto.func incore @scalar_f32(%x: !pypto.tensor<[16, 80], f32>, out %y: !pypto.tensor<[16, 80], f32>, out %yc: !pypto.tensor<[16, 80], f32>, out %z: !pypto.tensor<[16, 1], f32>, out %w: !pypto.tensor<[80, 16], f32>, out %acc: !pypto.tensor<[16, 80], f32>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 80], f32> -> !pypto.tile<[16, 80], f32, vec>
  %s = pypto.tile.sin %t : !pypto.tile<[16, 80], f32, vec>
  %k = pypto.tile.cos %t : !pypto.tile<[16, 80], f32, vec>
  %e = pypto.tile.read %t[%c2, %c3] : !pypto.tile<[16, 80], f32, vec>
  %s2 = pypto.tile.write %e into %s[%c3, %c2] : f32 into !pypto.tile<[16, 80], f32, vec>
  %p = pypto.tile.row_prod %t : !pypto.tile<[16, 80], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
  %tr = pypto.tile.transpose %t, 0, 1 : !pypto.tile<[16, 80], f32, vec> -> !pypto.tile<[80, 16], f32, vec>
  %o1 = pypto.tile.store %s2, %y[%c0, %c0] : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  %o5 = pypto.tile.store %k, %yc[%c0, %c0] : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  %o2 = pypto.tile.store %p, %z[%c0, %c0] : !pypto.tile<[16, 1], f32, vec>, !pypto.tensor<[16, 1], f32>
  %o3 = pypto.tile.store %tr, %w[%c0, %c0] : !pypto.tile<[80, 16], f32, vec>, !pypto.tensor<[80, 16], f32>
  %o4 = pypto.tile.atomic_store %t, %acc[%c0, %c0] atomic(add) : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  pypto.return %o1, %o5, %o2, %o3, %o4 : !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>
}
pypto.func incore @scalar_f16(%x: !pypto.tensor<[10, 20], f16>, out %y: !pypto.tensor<[10, 20], f16>, out %yc: !pypto.tensor<[10, 20], f16>, out %z: !pypto.tensor<[10, 1], f16>, out %w: !pypto.tensor<[20, 10], f16>, out %acc: !pypto.tensor<[10, 20], f16>) -> (!pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[10, 20], f16> -> !pypto.tile<[10, 20], f16, vec>
  %s = pypto.tile.sin %t : !pypto.tile<[10, 20], f16, vec>
  %k = pypto.tile.cos %t : !pypto.tile<[10, 20], f16, vec>
  %e = pypto.tile.read %t[%c2, %c3] : !pypto.tile<[10, 20], f16, vec>
  %s2 = pypto.tile.write %e into %s[%c3, %c2] : f16 into !pypto.tile<[10, 20], f16, vec>
  %p = pypto.tile.row_prod %t : !pypto.tile<[10, 20], f16, vec> -> !pypto.tile<[10, 1], f16, vec>
  %tr = pypto.tile.transpose %t, 0, 1 : !pypto.tile<[10, 20], f16, vec> -> !pypto.tile<[20, 10], f16, vec>
  %o1 = pypto.tile.store %s2, %y[%c0, %c0] : !pypto.tile<[10, 20], f16, vec>, !pypto.tensor<[10, 20], f16>
  %o5 = pypto.tile.store %k, %yc[%c0, %c0] : !pypto.tile<[10, 20], f16, vec>, !pypto.tensor<[10, 20], f16>
  %o2 = pypto.tile.store %p, %z[%c0, %c0] : !pypto.tile<[10, 1], f16, vec>, !pypto.tensor<[10, 1], f16>
  %o3 = pypto.tile.store %tr, %w[%c0, %c0] : !pypto.tile<[20, 10], f16, vec>, !pypto.tensor<[20, 10], f16>
  %o4 = pypto.tile.atomic_store %t, %acc[%c0, %c0] atomic(add) : !pypto.tile<[10, 20], f16, vec>, !pypto.tensor<[10, 20], f16>
  pypto.return %o1, %o5, %o2, %o3, %o4 : !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>
}
pypto.func orchestration @main(%x_scalar_f32: !pypto.tensor<[16, 80], f32>, out %y_scalar_f32: !pypto.tensor<[16, 80], f32>, out %yc_scalar_f32: !pypto.tensor<[16, 80], f32>, out %z_scalar_f32: !pypto.tensor<[16, 1], f32>, out %w_scalar_f32: !pypto.tensor<[80, 16], f32>, out %acc_scalar_f32: !pypto.tensor<[16, 80], f32>, %x_scalar_f16: !pypto.tensor<[10, 20], f16>, out %y_scalar_f16: !pypto.tensor<[10, 20], f16>, out %yc_scalar_f16: !pypto.tensor<[10, 20], f16>, out %z_scalar_f16: !pypto.tensor<[10, 1], f16>, out %w_scalar_f16: !pypto.tensor<[20, 10], f16>, out %acc_scalar_f16: !pypto.tensor<[10, 20], f16>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>) {
  %r_scalar_f32:5 = pypto.call @scalar_f32(%x_scalar_f32, %y_scalar_f32, %yc_scalar_f32, %z_scalar_f32, %w_scalar_f32, %acc_scalar_f32) : (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>)
  %r_scalar_f16:5 = pypto.call @scalar_f16(%x_scalar_f16, %y_scalar_f16, %yc_scalar_f16, %z_scalar_f16, %w_scalar_f16, %acc_scalar_f16) : (!pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>) -> (!pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>)
  pypto.return %r_scalar_f32#0, %r_scalar_f32#1, %r_scalar_f32#2, %r_scalar_f32#3, %r_scalar_f32#4, %r_scalar_f16#0, %r_scalar_f16#1, %r_scalar_f16#2, %r_scalar_f16#3, %r_scalar_f16#4 : !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 1], f32>, !pypto.tensor<[80, 16], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 20], f16>, !pypto.tensor<[10, 1], f16>, !pypto.tensor<[20, 10], f16>, !pypto.tensor<[10, 20], f16>
}

// CHECK-LABEL: // ===== file: kernels/scalar_f32.cpp =====
// CHECK:      #include "kernel_operator.h"
// CHECK-NEXT: #include "math/cos.h"
// CHECK-NEXT: #include "math/sin.h"
// CHECK:      LocalTensor<uint8_t> s_tmp = calcBuf1.Get<uint8_t>();
// CHECK-NEXT: Sin(s, t, s_tmp, 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK:      Cos(k, t, k_tmp, 1280);
// CHECK-NEXT: TEventID event_v_s = pipe.FetchEventID<HardEvent::V_S>();
// CHECK-NEXT: SetFlag<HardEvent::V_S>(event_v_s);
// CHECK-NEXT: WaitFlag<HardEvent::V_S>(event_v_s);
// CHECK:      WaitFlag<HardEvent::MTE2_S>(event_mte2_s);
// CHECK-NEXT: float e = t.GetValue(163);
// CHECK-NEXT: s.SetValue(242, e);
// CHECK-NEXT: TEventID event_s_v = pipe.FetchEventID<HardEvent::S_V>();
// CHECK:      WaitFlag<HardEvent::S_MTE3>(event_s_mte3);
// CHECK:      Duplicate(p_tmp, static_cast<float>(1), 1024);
// CHECK:      Mul(p_tmp, p_tmp, p_tmp[8], 8, 16, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
// CHECK:      for (int64_t i = 0; i < 16; ++i) {
// CHECK:        float prod = p_tmp.GetValue(
// CHECK:        p.SetValue(i,
// CHECK:      tr.SetValue(
// CHECK:      SetAtomicAdd<float>();
// CHECK-NOT:  SetAtomicNone();
// CHECK:      DataCopy(acc_gm, t_out, 1280);
// CHECK-NEXT: outQ_t_out_1.FreeTensor(t_out);
// CHECK-NEXT: SetAtomicNone();
// CHECK-LABEL: // ===== file: kernels/scalar_f16.cpp =====
// CHECK:      Sin(s, t, s_tmp, 320);
// CHECK:      half e = t.GetValue(67);
// CHECK-NEXT: s.SetValue(98, e);
// CHECK:      Duplicate(p_tmp, static_cast<half>(1), 1280);
// CHECK:      Mul(p_tmp, p_tmp, p_tmp[16], 16, 10, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
// CHECK:      SetAtomicAdd<half>();
// CHECK-NOT:  SetAtomicNone();
// CHECK:      DataCopyPad(acc_gm, t_out, DataCopyExtParams(10, 40, 0, 0, 0));
// CHECK-NEXT: outQ_t_out_1.FreeTensor(t_out);
// CHECK-NEXT: SetAtomicNone();
