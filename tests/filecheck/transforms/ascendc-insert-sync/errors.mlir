// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p ascendc-insert-sync | filecheck %s
// The synchronisation follows the buffer plan: without one the pass stops and says so.

pypto.func incore @unplanned(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc-insert-sync: @unplanned has no buffer plan ('ascendc.buffers'); run ascendc-plan-buffers before ascendc-insert-sync

// -----

// A plan naming a buffer it does not declare is rejected, naming the op.

pypto.func incore @bad_plan(%a: !pypto.tensor<[8, 64], f32>) attributes {ascendc.buffers = [], ascendc.memory = {}} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t"} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  pypto.return
}
// CHECK: ascendc-insert-sync: cannot lower 'pypto.tile.load' in @bad_plan: 'ascendc.buffer' names buffer 'inQ_t', which the kernel's 'ascendc.buffers' does not declare
