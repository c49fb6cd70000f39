// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// tensor.read / tensor.write left inside a kernel: GlobalTensor GetValue/SetValue on the scalar
// unit. A read of a tensor the kernel never writes (the config) is a plain GetValue; a read of
// one it stores waits for MTE3 and invalidates the cache line first; a write cleans its line
// and makes later copies wait (S_MTE2, S_MTE3).

pypto.func incore @k(%cfg: !pypto.tensor<[4], i32>, %x: !pypto.tensor<[16, 64], f32>, out %y: !pypto.tensor<[16, 64], f32>, out %st: !pypto.tensor<[2], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = pypto.tensor.read %cfg[%c2] : !pypto.tensor<[4], i32>
  %nf = arith.sitofp %n : i32 to f32
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %s = pypto.tile.muls %t, %nf : !pypto.tile<[16, 64], f32, vec>, f32
  %o = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  %back = pypto.tensor.read %o[%c1, %c2] : !pypto.tensor<[16, 64], f32>
  %w = pypto.tensor.write %back into %st[%c1] : f32 into !pypto.tensor<[2], f32>
  %w2 = pypto.tensor.write %nf into %w[%c0] : f32 into !pypto.tensor<[2], f32>
  pypto.return %o, %w2 : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>
}
pypto.func orchestration @main(%cfg: !pypto.tensor<[4], i32>, %x: !pypto.tensor<[16, 64], f32>, out %y: !pypto.tensor<[16, 64], f32>, out %st: !pypto.tensor<[2], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>) {
  %r:2 = pypto.call @k(%cfg, %x, %y, %st) : (!pypto.tensor<[4], i32>, !pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[2], f32>
}

// CHECK:      int32_t n = cfg_gm.GetValue(2);
// CHECK-NEXT: const float nf = static_cast<float>(n);
// CHECK:      DataCopy(y_gm, s, 1024);
// CHECK:      WaitFlag<HardEvent::MTE3_S>(event_mte3_s);
// CHECK-NEXT: DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(y_gm[66]);
// CHECK-NEXT: float back = y_gm.GetValue(66);
// CHECK:      WaitFlag<HardEvent::MTE3_S>(event_mte3_s_1);
// CHECK-NEXT: st_gm.SetValue(1, back);
// CHECK-NEXT: DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(st_gm[1]);
// CHECK-NEXT: TEventID event_s_mte2 = pipe.FetchEventID<HardEvent::S_MTE2>();
// CHECK:      st_gm.SetValue(0, nf);
