// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// tensor.reshape left inside a kernel: a reshape of a whole parameter is another GlobalTensor
// at the parameter's address, declared with the others; windows of it address rows of the new
// shape. The kernel still returns the parameter.

pypto.func incore @k(%x: !pypto.tensor<[4, 64], f32>, out %y: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %xr = pypto.tensor.reshape %x : !pypto.tensor<[4, 64], f32> -> !pypto.tensor<[16, 16], f32>
  %yr = pypto.tensor.reshape %y : !pypto.tensor<[16, 16], f32> -> !pypto.tensor<[256], f32>
  %t = pypto.tile.load %xr[%c8, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
  %u = pypto.tile.load %xr[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
  %s = pypto.tile.add %t, %u : !pypto.tile<[8, 16], f32, vec>
  %v = pypto.tile.reshape %s : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[128], f32, vec>
  %o = pypto.tile.store %v, %yr[%c0] : !pypto.tile<[128], f32, vec>, !pypto.tensor<[256], f32>
  %o2 = pypto.tile.store %s, %y[%c8, %c0] : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
  pypto.return %o2 : !pypto.tensor<[16, 16], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[4, 64], f32>, out %y: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %r = pypto.call @k(%x, %y) : (!pypto.tensor<[4, 64], f32>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}

// CHECK:      GlobalTensor<float> xr_gm;  // %xr !pypto.tensor<[16, 16], f32>, a reshape of !pypto.tensor<[4, 64], f32>
// CHECK-NEXT: xr_gm.SetGlobalBuffer((__gm__ float*)x, 256);
// CHECK-NEXT: GlobalTensor<float> yr_gm;  // %yr !pypto.tensor<[256], f32>, a reshape of !pypto.tensor<[16, 16], f32>
// CHECK-NEXT: yr_gm.SetGlobalBuffer((__gm__ float*)y, 256);
// CHECK:      DataCopy(t, xr_gm[128], 128);
// CHECK:      DataCopy(yr_gm, s_out, 128);
// CHECK:      DataCopy(y_gm[128], s_out_1, 128);
