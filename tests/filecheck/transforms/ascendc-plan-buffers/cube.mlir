// RUN: pypto-opt %s -p ascendc-plan-buffers | filecheck %s
// Cube kernel: mat tiles in A1/B1 (L1), left/right in A2/B2 (L0A/L0B), the accumulator in CO1
// (L0C). matmul_acc results and the scf.for-carried accumulator alias the CO1 buffer of the
// matmul that started the accumulation. Queues of the loop body are double-buffered.

pypto.func aic @mm(%a: !pypto.tensor<[64, 128], f16>, %b: !pypto.tensor<[128, 64], f16>, out %c: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a0m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
  %b0m = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
  %a0 = pypto.tile.move %a0m : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
  %b0 = pypto.tile.move %b0m : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
  %acc0 = pypto.tile.matmul %a0, %b0 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right> -> !pypto.tile<[64, 64], f32, acc>
  %acc = scf.for %k = %c64 to %c128 step %c64 iter_args(%part = %acc0) -> (!pypto.tile<[64, 64], f32, acc>) {
    %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
    %bm = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
    %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[64, 64], f32, acc>, !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
    scf.yield %next : !pypto.tile<[64, 64], f32, acc>
  }
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[64, 64], f32>
  pypto.return %w : !pypto.tensor<[64, 64], f32>
}

// CHECK-LABEL: pypto.func aic @mm
// CHECK-SAME: ascendc.buffers = [
// CHECK-SAME: {bytes = 8192 : i64, depth = 1 : i64, name = "qA1_a0m", position = "A1", values = ["%a0m !pypto.tile<[64, 64], f16, mat>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 1 : i64, name = "qB1_b0m", position = "B1", values = ["%b0m !pypto.tile<[64, 64], f16, mat>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 1 : i64, name = "qA2_a0", position = "A2", values = ["%a0 !pypto.tile<[64, 64], f16, left>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 1 : i64, name = "qB2_b0", position = "B2", values = ["%b0 !pypto.tile<[64, 64], f16, right>"]},
// CHECK-SAME: {bytes = 16384 : i64, depth = 1 : i64, name = "qCO1_acc0", position = "CO1", values = ["%acc0 !pypto.tile<[64, 64], f32, acc>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "qA1_am", position = "A1", values = ["%am !pypto.tile<[64, 64], f16, mat>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "qB1_bm", position = "B1", values = ["%bm !pypto.tile<[64, 64], f16, mat>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "qA2_al", position = "A2", values = ["%al !pypto.tile<[64, 64], f16, left>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "qB2_br", position = "B2", values = ["%br !pypto.tile<[64, 64], f16, right>"]}]
// CHECK-SAME: ascendc.memory = {L0A = {capacity = 65536 : i64, used = 24576 : i64}, L0B = {capacity = 65536 : i64, used = 24576 : i64}, L0C = {capacity = 131072 : i64, used = 16384 : i64}, L1 = {capacity = 524288 : i64, used = 49152 : i64}}
// CHECK: %a0m = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "qA1_a0m"}
// CHECK: %b0m = pypto.tile.load %b[%c0, %c0] {ascendc.buffer = "qB1_b0m"}
// CHECK: %a0 = pypto.tile.move %a0m {ascendc.buffer = "qA2_a0"}
// CHECK: %b0 = pypto.tile.move %b0m {ascendc.buffer = "qB2_b0"}
// CHECK: %acc0 = pypto.tile.matmul %a0, %b0 {ascendc.buffer = "qCO1_acc0"}
// CHECK: %acc = scf.for {{.*}} {
// CHECK: %next = pypto.tile.matmul_acc %part, %al, %br {ascendc.buffer = "qCO1_acc0"}
// CHECK: } {ascendc.buffer = "qCO1_acc0"}
// CHECK: %w = pypto.tile.store %acc, %c[%c0, %c0] :
