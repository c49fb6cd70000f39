// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-insert-sync | filecheck %s
// Cube kernels: MTE2 (GM -> L1) hands mat tiles to MTE1 through A1/B1, MTE1 (L1 -> L0A/L0B)
// hands left/right tiles to M through A2/B2, M hands the accumulator to FIX (Fixpipe) through
// CO1. Operand queues are freed after the matmul that reads them last.

pypto.func aic @mm(%a: !pypto.tensor<[32, 32], f16>, %b: !pypto.tensor<[32, 32], f16>, out %c: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 32], f16, right> -> !pypto.tile<[32, 32], f32, acc>
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

// CHECK-LABEL: pypto.func aic @mm
// CHECK-SAME: ascendc.sync = "cube"
// CHECK: %am = pypto.tile.load {{.*}}{ascendc.buffer = "qA1_am", ascendc.handoff = {from = "MTE2", queue = "qA1_am", to = "MTE1"}, ascendc.stage = "MTE2"}
// CHECK: %bm = pypto.tile.load {{.*}}{ascendc.buffer = "qB1_bm", ascendc.handoff = {from = "MTE2", queue = "qB1_bm", to = "MTE1"}, ascendc.stage = "MTE2"}
// CHECK: %al = pypto.tile.move %am {ascendc.buffer = "qA2_al", ascendc.handoff = {from = "MTE1", queue = "qA2_al", to = "M"}, ascendc.stage = "MTE1", ascendc.free = ["qA1_am"]}
// CHECK: %br = pypto.tile.move %bm {ascendc.buffer = "qB2_br", ascendc.handoff = {from = "MTE1", queue = "qB2_br", to = "M"}, ascendc.stage = "MTE1", ascendc.free = ["qB1_bm"]}
// CHECK: %acc = pypto.tile.matmul %al, %br {ascendc.buffer = "qCO1_acc", ascendc.stage = "M", ascendc.free = ["qA2_al", "qB2_br"]}
// CHECK: %w = pypto.tile.store %acc, {{.*}}{ascendc.handoff = {from = "M", queue = "qCO1_acc", to = "FIX"}, ascendc.store = "fixpipe", ascendc.stage = "FIX"}
