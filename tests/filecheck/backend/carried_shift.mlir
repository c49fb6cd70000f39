// RUN: pypto-opt %s -t ascendc | filecheck %s
// A shift register of carried tiles, as pipeline-cross-core-loops carries α over several
// iterations: each iteration yields the second carried tile in place of the first and a new
// block in place of the second. The yield copies in order, so the first buffer takes the
// second's value before the second is overwritten. (A swap, whose second copy would read a
// buffer the first overwrote, is still refused: errors.mlir.) o gets block 6 of 8 (the one
// before the last), s the sum of blocks 0..5.

pypto.func incore @shift_kernel(%x: !pypto.tensor<[256, 64], f32>, out %o: !pypto.tensor<[32, 64], f32>, out %s: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %z = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 64], f32, vec>
  %r:3 = scf.for %i = %c0 to %c256 step %c32 iter_args(%p = %z, %q = %z, %acc = %z) -> (!pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[256, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
    %acc1 = pypto.tile.add %acc, %p : !pypto.tile<[32, 64], f32, vec>
    scf.yield %q, %t, %acc1 : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>
  }
  %o1 = pypto.tile.store %r#0, %o[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  %s1 = pypto.tile.store %r#2, %s[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %o1, %s1 : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[256, 64], f32>, out %o: !pypto.tensor<[32, 64], f32>, out %s: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %o1, %s1 = pypto.call @shift_kernel(%x, %o, %s) : (!pypto.tensor<[256, 64], f32>, !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>)
  pypto.return %o1, %s1 : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: shift_kernel(
// CHECK:         for (int64_t i = 0; i < 256; i += 32) {
// CHECK:           LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK:           Add(acc1, [[ACC:r_2]], [[P:r]], 2048);
// CHECK:           DataCopy([[P]], [[Q:r_1]], 2048);
// CHECK-NEXT:      PipeBarrier<PIPE_V>();
// CHECK-NEXT:      DataCopy([[Q]], t, 2048);
// CHECK-NEXT:      DataCopy([[ACC]], acc1, 2048);
