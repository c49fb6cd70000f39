// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc,ascendc-prefetch-copy-in | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc -t ascendc | filecheck %s --check-prefix=CXX
// RUN: pypto-opt %s -p 'pypto-default,convert-pypto-to-ascendc,ascendc-plan-buffers{double-buffer=false},ascendc-insert-sync,ascendc-remove-redundant-sync,ascendc-prefetch-copy-in' | filecheck %s --check-prefix=SINGLE
// ascendc-prefetch-copy-in: the first iteration's copy-in moves before the loop (the bounds
// are constants and the loop runs, so unguarded), every iteration first copies in the next
// tile (`i + 32 < 64`) and then takes its own from the queue head (deque_head). Running it
// again changes nothing. The loop over @inplace reads and writes %io, so its copy-in stays
// (a prefetch would overtake the store); a single-buffered queue has no second buffer to
// prefetch into.

pypto.func incore @stream(%x: !pypto.tensor<[64, 128], f32>, out %z: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c32 iter_args(%acc = %z) -> (!pypto.tensor<[64, 128], f32>) {
    %a = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %e = pypto.tile.exp %a : !pypto.tile<[32, 128], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

pypto.func incore @inplace(%io: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c32 iter_args(%acc = %io) -> (!pypto.tensor<[64, 128], f32>) {
    %a = pypto.tile.load %acc[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %e = pypto.tile.exp %a : !pypto.tile<[32, 128], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

// CHECK-LABEL: ascendc.kernel vector @stream
// CHECK:       %[[FIRST:.*]] = ascendc.at %x_gm[0]
// CHECK-NEXT:  %a_first = ascendc.alloc_tensor "a_first" %inQ_a
// CHECK-NEXT:  ascendc.data_copy %a_first, %[[FIRST]] count 4096
// CHECK-NEXT:  ascendc.enque %inQ_a, %a_first
// CHECK-NEXT:  scf.for %i = %{{.*}} to %{{.*}} step %[[STEP:.*]] {
// CHECK-NEXT:    %i_next = arith.addi %i, %[[STEP]] : index
// CHECK-NEXT:    %has_next = arith.cmpi slt, %i_next, %{{.*}} : index
// CHECK-NEXT:    scf.if %has_next {
// CHECK-NEXT:      %[[SRC:.*]] = ascendc.at %x_gm[%i_next * 128]
// CHECK-NEXT:      %a_next = ascendc.alloc_tensor "a_next" %inQ_a
// CHECK-NEXT:      ascendc.data_copy %a_next, %[[SRC]] count 4096
// CHECK-NEXT:      ascendc.enque %inQ_a, %a_next
// CHECK-NEXT:    }
// CHECK-NEXT:    %a = ascendc.deque_head "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
// CHECK-NOT:     ascendc.alloc_tensor "a"
// CHECK:         ascendc.exp
// CHECK:         ascendc.free_tensor %inQ_a, %a
// CHECK:       ascendc.kernel vector @inplace
// CHECK-NOT:   deque_head
// CHECK:         %a = ascendc.alloc_tensor "a" %inQ_a
// CHECK:         ascendc.enque %inQ_a, %a
// CHECK-NEXT:    %a_1 = ascendc.deque %inQ_a, %a
// CHECK-NOT:   deque_head

// CXX-LABEL:   void stream(GM_ADDR x, GM_ADDR z) {
// CXX:           LocalTensor<float> a_first = inQ_a.AllocTensor<float>();
// CXX-NEXT:      DataCopy(a_first, x_gm[0], 4096);
// CXX-NEXT:      inQ_a.EnQue(a_first);
// CXX-NEXT:      for (int64_t i = 0; i < 64; i += 32) {
// CXX-NEXT:        const int64_t i_next = i + 32;
// CXX-NEXT:        const bool has_next = i_next < 64;
// CXX-NEXT:        if (has_next) {
// CXX-NEXT:          LocalTensor<float> a_next = inQ_a.AllocTensor<float>();
// CXX-NEXT:          DataCopy(a_next, x_gm[i_next * 128], 4096);
// CXX-NEXT:          inQ_a.EnQue(a_next);
// CXX-NEXT:        }
// CXX-NEXT:        LocalTensor<float> a = inQ_a.DeQue<float>();
// CXX-NEXT:        LocalTensor<float> e = outQ_e.AllocTensor<float>();
// CXX-NEXT:        Exp(e, a, 4096);
// CXX-NEXT:        inQ_a.FreeTensor(a);

// SINGLE-LABEL: ascendc.kernel vector @stream
// SINGLE-NOT:   deque_head
// SINGLE:       ascendc.tque "inQ_a" {{.*}} : !ascendc.queue<VECIN, 1>
// SINGLE-NOT:   deque_head
// SINGLE:       %a_1 = ascendc.deque %inQ_a, %a
// SINGLE-NOT:   deque_head
