// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s
// Tiles carried by scf.for or yielded by scf.if live in one `fixed` TBuf for the whole
// region (never shared): the initial value is copied in before the loop, every yielded tile
// at the end of its block (UB -> UB DataCopy). The loop and the branch keep only their
// scalar values; a loaded tile yielded as its last use is freed after the copy.
// The input of tests/filecheck/backend/carried_tiles.mlir (sum and running max over row blocks).

pypto.func incore @acc_kernel(%x: !pypto.tensor<[256, 64], f32>, %flag: index, out %s: !pypto.tensor<[32, 64], f32>, out %m: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 64], f32, vec>
  %first = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[256, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
  %sum, %mx = scf.for %i = %c0 to %c256 step %c32 iter_args(%acc = %init, %best = %first) -> (!pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[256, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
    %acc1 = pypto.tile.add %acc, %t : !pypto.tile<[32, 64], f32, vec>
    %use_max = arith.cmpi ne, %flag, %c0 : index
    %best1 = scf.if %use_max -> (!pypto.tile<[32, 64], f32, vec>) {
      %mm = pypto.tile.maximum %best, %t : !pypto.tile<[32, 64], f32, vec>
      scf.yield %mm : !pypto.tile<[32, 64], f32, vec>
    } else {
      scf.yield %t : !pypto.tile<[32, 64], f32, vec>
    }
    scf.yield %acc1, %best1 : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>
  }
  %ws = pypto.tile.store %sum, %s[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  %wm = pypto.tile.store %mx, %m[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %ws, %wm : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[256, 64], f32>, %flag: index, out %s: !pypto.tensor<[32, 64], f32>, out %m: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %r:2 = pypto.call @acc_kernel(%x, %flag, %s, %m) : (!pypto.tensor<[256, 64], f32>, index, !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: ascendc.kernel vector @acc_kernel(%x: !ascendc.gm_addr, %flag: index, %s: !ascendc.gm_addr, %m: !ascendc.gm_addr)
// CHECK-SAME: results = [#ascendc.result<param 2>, #ascendc.result<param 3>]
// CHECK: %buf_best1 = ascendc.tbuf "buf_best1" {values = ["%best1 !pypto.tile<[32, 64], f32, vec>"], fixed}
// CHECK-NEXT: %buf_sum = ascendc.tbuf "buf_sum" {{.*}}, fixed}
// CHECK-NEXT: %buf_mx = ascendc.tbuf "buf_mx" {{.*}}, fixed}
// CHECK-NEXT: %outQ_sum_out = ascendc.tque "outQ_sum_out" {values = ["%sum.out (store staging)"]}
// CHECK: %init = ascendc.get_buf "init" %buf_init
// CHECK-NEXT: ascendc.duplicate %init, %zero count 2048
// CHECK: %sum = ascendc.get_buf "sum" %buf_sum
// CHECK-NEXT: ascendc.data_copy %sum, %init count 2048
// CHECK-NEXT: %mx = ascendc.get_buf "mx" %buf_mx
// CHECK-NEXT: ascendc.data_copy %mx, %first count 2048
// CHECK-NEXT: scf.for %i = %c0 to %c256 step %c32 {
// CHECK: ascendc.add %acc1, %sum, %t count 2048
// CHECK-NEXT: %use_max = arith.cmpi ne, %flag, %c0 : index
// CHECK-NEXT: %best1 = ascendc.get_buf "best1" %buf_best1
// CHECK-NEXT: scf.if %use_max {
// CHECK-NEXT: %mm = ascendc.get_buf "mm" %buf_mm
// CHECK-NEXT: ascendc.max %mm, %mx, %t count 2048
// CHECK-NEXT: ascendc.data_copy %best1, %mm count 2048
// CHECK-NEXT: } else {
// CHECK-NEXT: ascendc.data_copy %best1, %t count 2048
// CHECK-NEXT: }
// CHECK-NEXT: ascendc.free_tensor %inQ_t, %t
// CHECK-NEXT: ascendc.data_copy %sum, %acc1 count 2048
// CHECK-NEXT: ascendc.data_copy %mx, %best1 count 2048
// CHECK-NEXT: }
// CHECK-NEXT: ascendc.free_tensor %inQ_first, %first
// The stores of the carried tiles go through staging queues (UB -> UB, then the copy-out).
// CHECK-NEXT: %sum_out = ascendc.alloc_tensor "sum_out" %outQ_sum_out
// CHECK-NEXT: ascendc.data_copy %sum_out, %sum count 2048
// CHECK-NEXT: ascendc.data_copy %s_gm, %sum_out count 2048
// CHECK-NEXT: ascendc.free_tensor %outQ_sum_out, %sum_out
