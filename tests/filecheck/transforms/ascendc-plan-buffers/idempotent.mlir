// RUN: pypto-opt %s -p ascendc-plan-buffers > %t.once
// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-plan-buffers > %t.twice
// RUN: diff %t.once %t.twice
// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-insert-sync,ascendc-plan-buffers > %t.replanned
// RUN: diff %t.once %t.replanned
// RUN: filecheck %s < %t.twice
// Running the pass again replaces the plan (and drops the sync decisions made for the old one):
// the result equals one run.

pypto.func incore @k(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %t1 = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %t2 = pypto.tile.abs %t1 : !pypto.tile<[8, 64], f32, vec>
  %t3 = pypto.tile.relu %t2 : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %t3, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK: ascendc.buffers = [{{.*}}name = "inQ_t"{{.*}}name = "buf_t1"{{.*}}name = "buf_t2"{{.*}}name = "outQ_t3"{{.*}}]
// CHECK-NOT: ascendc.stage
// CHECK-NOT: ascendc.sync
