// RUN: pypto-opt %s -p 'convert-tensor-to-tile{ub-bytes=32768}' | filecheck %s

// The kernel is launched on 4 cores (pypto.block_dim on the call): the 15 row blocks (14
// of 21 rows and a tail of 7) are dealt to the cores cyclically, starting at the core's
// index; the tail block goes to the core next in the cycle. On one block (the
// interpreter's pypto.call) the kernel still computes everything.

pypto.func incore @k(%a: !pypto.tensor<[301, 64], f32>, out %o: !pypto.tensor<[301, 64], f32>) -> !pypto.tensor<[301, 64], f32> {
  %c0 = arith.constant 0 : index
  %r = pypto.tensor.relu %a : !pypto.tensor<[301, 64], f32>
  %n = pypto.tensor.neg %r : !pypto.tensor<[301, 64], f32>
  %w = pypto.tensor.assemble %n into %o[%c0, %c0] : !pypto.tensor<[301, 64], f32> into !pypto.tensor<[301, 64], f32>
  pypto.return %w : !pypto.tensor<[301, 64], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[301, 64], f32>, out %o: !pypto.tensor<[301, 64], f32>) -> !pypto.tensor<[301, 64], f32> {
  %r = pypto.call @k(%a, %o) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[301, 64], f32>, !pypto.tensor<[301, 64], f32>) -> !pypto.tensor<[301, 64], f32>
  pypto.return %r : !pypto.tensor<[301, 64], f32>
}

// CHECK-LABEL: pypto.func incore @k(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %block_idx = pypto.tile.get_block_idx : index
// CHECK-NEXT:    %block_num = pypto.tile.get_block_num : index
// CHECK-NEXT:    %c14 = arith.constant 14 : index
// CHECK-NEXT:    %c21 = arith.constant 21 : index
// CHECK-NEXT:    %o_1 = scf.for %blk = %block_idx to %c14 step %block_num iter_args(%o_2 = %o) -> (!pypto.tensor<[301, 64], f32>) {
// CHECK-NEXT:      %row = arith.muli %blk, %c21 : index
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[301, 64], f32> -> !pypto.tile<[21, 64], f32, vec>
// CHECK-NEXT:      %r_tile = pypto.tile.relu %a_tile : !pypto.tile<[21, 64], f32, vec>
// CHECK-NEXT:      %n_tile = pypto.tile.neg %r_tile : !pypto.tile<[21, 64], f32, vec>
// CHECK-NEXT:      %o_3 = pypto.tile.store %n_tile, %o_2[%row, %c0] : !pypto.tile<[21, 64], f32, vec>, !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:      scf.yield %o_3 : !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %tail_core = arith.remsi %c14, %block_num : index
// CHECK-NEXT:    %on_tail_core = arith.cmpi eq, %block_idx, %tail_core : index
// CHECK-NEXT:    %c294 = arith.constant 294 : index
// CHECK-NEXT:    %o_4 = scf.if %on_tail_core -> (!pypto.tensor<[301, 64], f32>) {
// CHECK-NEXT:      %a_tile_1 = pypto.tile.load %a[%c294, %c0] : !pypto.tensor<[301, 64], f32> -> !pypto.tile<[7, 64], f32, vec>
// CHECK-NEXT:      %r_tile_1 = pypto.tile.relu %a_tile_1 : !pypto.tile<[7, 64], f32, vec>
// CHECK-NEXT:      %n_tile_1 = pypto.tile.neg %r_tile_1 : !pypto.tile<[7, 64], f32, vec>
// CHECK-NEXT:      %o_5 = pypto.tile.store %n_tile_1, %o_1[%c294, %c0] : !pypto.tile<[7, 64], f32, vec>, !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:      scf.yield %o_5 : !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %o_1 : !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_4 : !pypto.tensor<[301, 64], f32>
// CHECK-NEXT:  }
// CHECK:       pypto.call @k(%a, %o) {pypto.block_dim = 4 : i64}
