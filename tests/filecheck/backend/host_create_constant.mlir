// RUN: pypto-opt %s -t ascendc | filecheck %s
// A `[?, 32]` tensor.create whose extent is a constant on the host: its device buffer is the
// constant byte count (4 x 32 x 4 bytes), not a run-time one (the fuzzer found the printer
// asking the `?` type for its size).

pypto.func incore @copy(%a: !pypto.tensor<[N, 32], f32>, out %o: !pypto.tensor<[N, 32], f32>) -> !pypto.tensor<[N, 32], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[N, 32], f32> -> !pypto.tile<[4, 32], f32, vec>
  %w = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[4, 32], f32, vec>, !pypto.tensor<[N, 32], f32>
  pypto.return %w : !pypto.tensor<[N, 32], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[4, 32], f32>, out %y: !pypto.tensor<[4, 32], f32>) -> !pypto.tensor<[4, 32], f32> {
  %c4 = arith.constant 4 : index
  %tmp = pypto.tensor.create(%c4) : !pypto.tensor<[?, 32], f32>
  %e = pypto.call @copy(%x, %tmp) : (!pypto.tensor<[4, 32], f32>, !pypto.tensor<[?, 32], f32>) -> !pypto.tensor<[4, 32], f32>
  %r = pypto.call @copy(%e, %y) : (!pypto.tensor<[4, 32], f32>, !pypto.tensor<[4, 32], f32>) -> !pypto.tensor<[4, 32], f32>
  pypto.return %r : !pypto.tensor<[4, 32], f32>
}

// CHECK-LABEL: int run_main(
// CHECK:       void*& tmp_dev = buffers.slot();
// CHECK-NEXT:  CHECK_ACL(aclrtMalloc(&tmp_dev, 512, ACL_MEM_MALLOC_HUGE_FIRST));
