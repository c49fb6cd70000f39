// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc -t ascendc | filecheck %s --check-prefix=CXX
// ascendc-prefetch-copy-in with a run-time lower bound and step (scalar parameters): the
// first copy-in is guarded by `start < 64` too (the loop may not run), and reads at `start`.

pypto.func incore @rows(%x: !pypto.tensor<[64, 32], f32>, %start: index, %step: index, out %y: !pypto.tensor<[64, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %start to %c64 step %step iter_args(%acc = %y) -> (!pypto.tensor<[64, 32], f32>) {
    %a = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 32], f32> -> !pypto.tile<[8, 32], f32, vec>
    %n = pypto.tile.neg %a : !pypto.tile<[8, 32], f32, vec>
    %w = pypto.tile.store %n, %acc[%i, %c0] : !pypto.tile<[8, 32], f32, vec>, !pypto.tensor<[64, 32], f32>
    scf.yield %w : !pypto.tensor<[64, 32], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 32], f32>
}

// CHECK-LABEL: ascendc.kernel vector @rows
// CHECK:       %has_first = arith.cmpi slt, %start, %[[UB:.*]] : index
// CHECK-NEXT:  scf.if %has_first {
// CHECK-NEXT:    %[[FIRST:.*]] = ascendc.at %x_gm[%start * 32]
// CHECK-NEXT:    %a_first = ascendc.alloc_tensor "a_first" %inQ_a
// CHECK-NEXT:    ascendc.data_copy %a_first, %[[FIRST]] count 256
// CHECK-NEXT:    ascendc.enque %inQ_a, %a_first
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %i = %start to %[[UB]] step %step {
// CHECK-NEXT:    %i_next = arith.addi %i, %step : index
// CHECK-NEXT:    %has_next = arith.cmpi slt, %i_next, %[[UB]] : index
// CHECK-NEXT:    scf.if %has_next {
// CHECK:         %a = ascendc.deque_head "a" %inQ_a

// CXX:         const bool has_first = start < 64;
// CXX-NEXT:    if (has_first) {
// CXX-NEXT:      LocalTensor<float> a_first = inQ_a.AllocTensor<float>();
// CXX-NEXT:      DataCopy(a_first, x_gm[start * 32], 256);
// CXX-NEXT:      inQ_a.EnQue(a_first);
// CXX-NEXT:    }
// CXX-NEXT:    for (int64_t i = start; i < 64; i += step) {
// CXX-NEXT:      const int64_t i_next = i + step;
// CXX-NEXT:      const bool has_next = i_next < 64;
// CXX-NEXT:      if (has_next) {
// CXX-NEXT:        LocalTensor<float> a_next = inQ_a.AllocTensor<float>();
// CXX-NEXT:        DataCopy(a_next, x_gm[i_next * 32], 256);
// CXX-NEXT:        inQ_a.EnQue(a_next);
// CXX-NEXT:      }
// CXX-NEXT:      LocalTensor<float> a = inQ_a.DeQue<float>();
