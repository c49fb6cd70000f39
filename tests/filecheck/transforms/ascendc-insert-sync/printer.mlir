// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-insert-sync -t ascendc | filecheck %s
// RUN: pypto-opt %s -p 'ascendc-plan-buffers{double-buffer=false},ascendc-insert-sync' -t ascendc | filecheck %s --check-prefix=SINGLE
// The kernel printer follows the recorded plan and sync decisions: queue names, depths,
// EnQue/DeQue on the recorded hand-off queues, FreeTensor where `ascendc.free` says.

pypto.func incore @k(%x: !pypto.tensor<[64, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %y) -> (!pypto.tensor<[64, 128], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[16, 128], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

// CHECK: // Unified Buffer plan: 32768 of 196608 bytes.
// CHECK: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_e;  // %e !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_e, 2, 8192);
// CHECK: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t, x_gm[i * 128], 2048);
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> e = outQ_e.AllocTensor<float>();
// CHECK-NEXT: Exp(e, t, 2048);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_e.EnQue(e);
// CHECK-NEXT: e = outQ_e.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[i * 128], e, 2048);
// CHECK-NEXT: outQ_e.FreeTensor(e);

// SINGLE: // Unified Buffer plan: 16384 of 196608 bytes.
// SINGLE: TQue<TPosition::VECIN, 1> inQ_t;
// SINGLE-NEXT: TQue<TPosition::VECOUT, 1> outQ_e;
