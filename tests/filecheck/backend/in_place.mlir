// RUN: pypto-opt %s -t ascendc | filecheck %s
// Kernels shaped like the reference's beginner examples 03_scalar_ops and 04_activation
// (fused_add_relu): two [128, 128] f32 tiles loaded, added, scaled or rectified, stored.
// One buffer per tile needs 4 x 64 KiB; ascendc-plan-buffers computes the sum in place over
// the first loaded tile (dead after the Add), which fills the 192 KiB exactly. The third
// kernel does the same in a loop (its queues stay single-buffered: two buffers would not fit).
// tests/test_backend_e2e.py runs this program in the simulation.

pypto.func incore @add_scale(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, out %c: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %ts = pypto.tile.add %ta, %tb : !pypto.tile<[128, 128], f32, vec>, !pypto.tile<[128, 128], f32, vec>
  %tc = pypto.tile.muls %ts, %two : !pypto.tile<[128, 128], f32, vec>, f32
  %w = pypto.tile.store %tc, %c[%c0, %c0] : !pypto.tile<[128, 128], f32, vec>, !pypto.tensor<[128, 128], f32>
  pypto.return %w : !pypto.tensor<[128, 128], f32>
}
pypto.func incore @add_relu(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, out %c: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %ts = pypto.tile.add %ta, %tb : !pypto.tile<[128, 128], f32, vec>, !pypto.tile<[128, 128], f32, vec>
  %tc = pypto.tile.relu %ts : !pypto.tile<[128, 128], f32, vec>
  %w = pypto.tile.store %tc, %c[%c0, %c0] : !pypto.tile<[128, 128], f32, vec>, !pypto.tensor<[128, 128], f32>
  pypto.return %w : !pypto.tensor<[128, 128], f32>
}
pypto.func incore @add_relu_rows(%a: !pypto.tensor<[256, 128], f32>, %b: !pypto.tensor<[256, 128], f32>, out %c: !pypto.tensor<[256, 128], f32>) -> !pypto.tensor<[256, 128], f32> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %i = %c0 to %c256 step %c128 iter_args(%acc = %c) -> (!pypto.tensor<[256, 128], f32>) {
    %ta = pypto.tile.load %a[%i, %c0] : !pypto.tensor<[256, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
    %tb = pypto.tile.load %b[%i, %c0] : !pypto.tensor<[256, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
    %ts = pypto.tile.add %ta, %tb : !pypto.tile<[128, 128], f32, vec>, !pypto.tile<[128, 128], f32, vec>
    %tc = pypto.tile.relu %ts : !pypto.tile<[128, 128], f32, vec>
    %w = pypto.tile.store %tc, %acc[%i, %c0] : !pypto.tile<[128, 128], f32, vec>, !pypto.tensor<[256, 128], f32>
    scf.yield %w : !pypto.tensor<[256, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[256, 128], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, %x: !pypto.tensor<[256, 128], f32>, %y: !pypto.tensor<[256, 128], f32>, out %scaled: !pypto.tensor<[128, 128], f32>, out %rectified: !pypto.tensor<[128, 128], f32>, out %rows: !pypto.tensor<[256, 128], f32>) -> (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[256, 128], f32>) {
  %s = pypto.call @add_scale(%a, %b, %scaled) : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32>
  %r = pypto.call @add_relu(%a, %b, %rectified) : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32>
  %w = pypto.call @add_relu_rows(%x, %y, %rows) : (!pypto.tensor<[256, 128], f32>, !pypto.tensor<[256, 128], f32>, !pypto.tensor<[256, 128], f32>) -> !pypto.tensor<[256, 128], f32>
  pypto.return %s, %r, %w : !pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[256, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/add_scale.cpp =====
// CHECK: // Unified Buffer plan: 196608 of 196608 bytes.
// CHECK: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta, %ts (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_tb;
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_tc;
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 1, 65536);
// CHECK-NEXT: pipe.InitBuffer(inQ_tb, 1, 65536);
// CHECK-NEXT: pipe.InitBuffer(outQ_tc, 1, 65536);
// CHECK-NOT: TBuf
// CHECK: tb = inQ_tb.DeQue<float>();
// CHECK-NEXT: Add(ta, ta, tb, 16384);
// CHECK-NEXT: inQ_tb.FreeTensor(tb);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> tc = outQ_tc.AllocTensor<float>();
// CHECK-NEXT: Muls(tc, ta, 2.0f, 16384);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: outQ_tc.EnQue(tc);
// CHECK-LABEL: // ===== file: kernels/add_relu.cpp =====
// CHECK: // Unified Buffer plan: 196608 of 196608 bytes.
// CHECK: Add(ta, ta, tb, 16384);
// CHECK: Relu(tc, ta, 16384);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-LABEL: // ===== file: kernels/add_relu_rows.cpp =====
// CHECK: // Unified Buffer plan: 196608 of 196608 bytes.
// CHECK: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta, %ts (disjoint live ranges)
// CHECK: for (int64_t i = 0; i < 256; i += 128) {
// CHECK-NEXT: LocalTensor<float> ta = inQ_ta.AllocTensor<float>();
// CHECK: Add(ta, ta, tb, 16384);
// CHECK-NEXT: inQ_tb.FreeTensor(tb);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> tc = outQ_tc.AllocTensor<float>();
// CHECK-NEXT: Relu(tc, ta, 16384);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK: outQ_tc.FreeTensor(tc);
// CHECK-NEXT: }
// CHECK-NEXT: }
