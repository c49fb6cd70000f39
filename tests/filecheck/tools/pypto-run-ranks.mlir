// RUN: pypto-run %s --entry main --ranks 3 --print-values | filecheck %s
// RUN: not pypto-run %s --entry main 2>&1 | filecheck %s --check-prefix=NOGROUP

// A host function on a group of 3 ranks: each rank writes its number into row r of the
// host's out tensor; without --ranks the group is missing, named at the op.

pypto.func incore @k(out %y: !pypto.tensor<[1, 4], f32>, %r: index) -> !pypto.tensor<[1, 4], f32> {
  %c0 = arith.constant 0 : index
  %ri = arith.index_cast %r : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  %t = pypto.tile.full %rf : f32 -> !pypto.tile<[1, 4], f32, vec>
  %w = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[1, 4], f32, vec>, !pypto.tensor<[1, 4], f32>
  pypto.return %w : !pypto.tensor<[1, 4], f32>
}
pypto.func orchestration @per_rank(out %y: !pypto.tensor<[1, 4], f32>, %r: index) -> !pypto.tensor<[1, 4], f32> {
  %w = pypto.call @k(%y, %r) : (!pypto.tensor<[1, 4], f32>, index) -> !pypto.tensor<[1, 4], f32>
  pypto.return %w : !pypto.tensor<[1, 4], f32>
}
pypto.func host @main(out %y: !pypto.tensor<[3, 4], f32>) {
  %n = pypto.dist.world_size : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %r = %c0 to %n step %c1 {
    %row = pypto.tensor.slice %y[%r, %c0] : !pypto.tensor<[3, 4], f32> -> !pypto.tensor<[1, 4], f32>
    pypto.dist.dispatch @per_rank(%row, %r) device %r : (!pypto.tensor<[1, 4], f32>, index), index
  }
  pypto.return
}

// CHECK: out argument #0 %y: [3, 4] float32 sum=12 min=0 max=2 mean=1
// CHECK-NEXT: {{\[\[}}0. 0. 0. 0.]
// CHECK-NEXT:  [1. 1. 1. 1.]
// CHECK-NEXT:  [2. 2. 2. 2.]{{\]}}

// NOGROUP: error: pypto.dist.world_size in @main: pypto.dist.world_size needs a group of ranks
