// RUN: pypto-opt %s -p 'pypto-default,convert-pypto-to-ascendc,ascendc-tree-reductions,ascendc-plan-buffers,ascendc-insert-sync,ascendc-remove-redundant-sync' | filecheck %s
// RUN: pypto-opt %s -p 'pypto-default,convert-pypto-to-ascendc,ascendc-tree-reductions,ascendc-plan-buffers,ascendc-insert-sync,ascendc-remove-redundant-sync' -t ascendc | filecheck %s --check-prefix=CXX
// A double-buffered streaming loop, as IR: each iteration's input tiles are handed from
// MTE2 to V through their VECIN queues (enque/deque right after the copy-in), the result
// from V to MTE3 through its VECOUT queue (right before the copy-out); FreeTensor returns
// each buffer to its producer. The queues have depth 2, so the copy-in of iteration i+1 can
// run while V computes iteration i. No flags (nothing is stored and read back) and no
// barrier (one vector instruction per iteration, its buffers handed over by queues).

pypto.func incore @stream(%x: !pypto.tensor<[256, 128], f32>, %y: !pypto.tensor<[256, 128], f32>, out %z: !pypto.tensor<[256, 128], f32>) -> !pypto.tensor<[256, 128], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %i = %c0 to %c256 step %c32 iter_args(%acc = %z) -> (!pypto.tensor<[256, 128], f32>) {
    %a = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[256, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %b = pypto.tile.load %y[%i, %c0] : !pypto.tensor<[256, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %s = pypto.tile.add %a, %b : !pypto.tile<[32, 128], f32, vec>
    %w = pypto.tile.store %s, %acc[%i, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[256, 128], f32>
    scf.yield %w : !pypto.tensor<[256, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[256, 128], f32>
}

// CHECK-LABEL: ascendc.kernel vector @stream
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 98304 : i64}}
// CHECK: %inQ_a = ascendc.tque "inQ_a" {{.*}} : !ascendc.queue<VECIN, 2>
// CHECK: %inQ_b = ascendc.tque "inQ_b" {{.*}} : !ascendc.queue<VECIN, 2>
// CHECK: %outQ_s = ascendc.tque "outQ_s" {{.*}} : !ascendc.queue<VECOUT, 2>
// CHECK: ascendc.init_buffer %pipe, %inQ_a num 2 len 16384
// CHECK: scf.for %i = %c0 to %c256 step %c32 {
// CHECK-NEXT: %a = ascendc.alloc_tensor "a" %inQ_a
// CHECK-NEXT: %[[XA:.*]] = ascendc.at %x_gm[%i * 128]
// CHECK-NEXT: ascendc.data_copy %a, %[[XA]] count 4096
// CHECK-NEXT: ascendc.enque %inQ_a, %a
// CHECK-NEXT: %[[A:.*]] = ascendc.deque %inQ_a, %a
// CHECK-NEXT: %b = ascendc.alloc_tensor "b" %inQ_b
// CHECK-NEXT: %[[YB:.*]] = ascendc.at %y_gm[%i * 128]
// CHECK-NEXT: ascendc.data_copy %b, %[[YB]] count 4096
// CHECK-NEXT: ascendc.enque %inQ_b, %b
// CHECK-NEXT: %[[B:.*]] = ascendc.deque %inQ_b, %b
// CHECK-NEXT: %s = ascendc.alloc_tensor "s" %outQ_s
// CHECK-NEXT: ascendc.add %s, %[[A]], %[[B]] count 4096
// CHECK-NEXT: ascendc.free_tensor %inQ_a, %[[A]]
// CHECK-NEXT: ascendc.free_tensor %inQ_b, %[[B]]
// CHECK-NEXT: ascendc.enque %outQ_s, %s
// CHECK-NEXT: %[[S:.*]] = ascendc.deque %outQ_s, %s
// CHECK-NEXT: %[[ZS:.*]] = ascendc.at %z_gm[%i * 128]
// CHECK-NEXT: ascendc.data_copy %[[ZS]], %[[S]] count 4096
// CHECK-NEXT: ascendc.free_tensor %outQ_s, %[[S]]
// CHECK-NEXT: }
// CHECK-NOT: ascendc.pipe_barrier
// CHECK-NOT: ascendc.set_flag

// CXX-LABEL: void stream(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CXX: TQue<TPosition::VECIN, 2> inQ_a;
// CXX: for (int64_t i = 0; i < 256; i += 32) {
// CXX-NEXT: LocalTensor<float> a = inQ_a.AllocTensor<float>();
// CXX-NEXT: DataCopy(a, x_gm[i * 128], 4096);
// CXX-NEXT: inQ_a.EnQue(a);
// CXX-NEXT: a = inQ_a.DeQue<float>();
// CXX: Add(s, a, b, 4096);
// CXX-NEXT: inQ_a.FreeTensor(a);
// CXX-NEXT: inQ_b.FreeTensor(b);
// CXX-NEXT: outQ_s.EnQue(s);
// CXX-NEXT: s = outQ_s.DeQue<float>();
// CXX-NEXT: DataCopy(z_gm[i * 128], s, 4096);
// CXX-NEXT: outQ_s.FreeTensor(s);
// CXX-NEXT: }
