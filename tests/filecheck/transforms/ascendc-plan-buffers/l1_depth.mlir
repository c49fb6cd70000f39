// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{double-buffer=false}' | filecheck %s --check-prefix=SINGLE
// An L1 queue refilled in a loop (a matmul's K-step copies of B) gets four buffers when L1
// holds them, two when only that fits, one without double buffering; the L0A/L0B queues
// stay at two and the resident A panel, copied once, at one.

// A [128, 1024] A panel (256 KiB) and a [128, 128] B tile per K step (32 KiB):
// 256 KiB + 4 x 32 KiB fits the 512 KiB of L1.
pypto.func incore @deep(%a: !pypto.tensor<[128, 1024], f16>, %b: !pypto.tensor<[1024, 128], f16>, out %c: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %cK = arith.constant 1024 : index
  %panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 1024], f16> -> !pypto.tile<[128, 1024], f16, mat>
  %0 = arith.constant 0.000000e+00 : f32
  %acc0 = pypto.tile.full %0 : f32 -> !pypto.tile<[128, 128], f32, acc>
  %acc = scf.for %k = %c0 to %cK step %c128 iter_args(%part = %acc0) -> (!pypto.tile<[128, 128], f32, acc>) {
    %am = pypto.tile.slice %panel[%c0, %k] : !pypto.tile<[128, 1024], f16, mat> -> !pypto.tile<[128, 128], f16, mat>
    %bm = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[1024, 128], f16> -> !pypto.tile<[128, 128], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
    %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[128, 128], f32, acc>, !pypto.tile<[128, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
    scf.yield %next : !pypto.tile<[128, 128], f32, acc>
  }
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[128, 128], f32, acc>, !pypto.tensor<[128, 128], f32>
  pypto.return %w : !pypto.tensor<[128, 128], f32>
}
// CHECK-LABEL: ascendc.kernel cube @deep
// CHECK-SAME: L1 = {capacity = 524288 : i64, used = 393216 : i64}
// CHECK: !ascendc.queue<A1, 1>
// CHECK: !ascendc.queue<B1, 4>
// CHECK: !ascendc.queue<A2, 2>
// CHECK: !ascendc.queue<B2, 2>
// CHECK: ascendc.init_buffer %pipe, %{{.*}} num 4 len 32768
// SINGLE-LABEL: ascendc.kernel cube @deep
// SINGLE-SAME: L1 = {capacity = 524288 : i64, used = 294912 : i64}
// SINGLE: !ascendc.queue<B1, 1>

// -----

// A [128, 1664] panel (416 KiB): four 32 KiB buffers more would need 544 KiB, two fit (480 KiB).
pypto.func incore @double(%a: !pypto.tensor<[128, 1664], f16>, %b: !pypto.tensor<[1664, 128], f16>, out %c: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %cK = arith.constant 1664 : index
  %panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 1664], f16> -> !pypto.tile<[128, 1664], f16, mat>
  %0 = arith.constant 0.000000e+00 : f32
  %acc0 = pypto.tile.full %0 : f32 -> !pypto.tile<[128, 128], f32, acc>
  %acc = scf.for %k = %c0 to %cK step %c128 iter_args(%part = %acc0) -> (!pypto.tile<[128, 128], f32, acc>) {
    %am = pypto.tile.slice %panel[%c0, %k] : !pypto.tile<[128, 1664], f16, mat> -> !pypto.tile<[128, 128], f16, mat>
    %bm = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[1664, 128], f16> -> !pypto.tile<[128, 128], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
    %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[128, 128], f32, acc>, !pypto.tile<[128, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
    scf.yield %next : !pypto.tile<[128, 128], f32, acc>
  }
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[128, 128], f32, acc>, !pypto.tensor<[128, 128], f32>
  pypto.return %w : !pypto.tensor<[128, 128], f32>
}
// CHECK-LABEL: ascendc.kernel cube @double
// CHECK-SAME: L1 = {capacity = 524288 : i64, used = 491520 : i64}
// CHECK-NOT: !ascendc.queue<B1, 4>
// CHECK: !ascendc.queue<B1, 2>
// CHECK-NOT: !ascendc.queue<B1, 4>
// CHECK: ascendc.init_buffer %pipe, %{{.*}} num 2 len 32768
// SINGLE-LABEL: ascendc.kernel cube @double
// SINGLE: !ascendc.queue<B1, 1>
