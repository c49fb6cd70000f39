// RUN: pypto-opt %s -p split-vector-member 2>&1 | filecheck %s

// The vector member's scratch %scratch is stored as a whole [64, 64] tile and read back as its
// lower [32, 64] half. Split, sub-block 0 would read rows 32-63, which sub-block 1 writes, with
// nothing ordering the two (both AIVs address the one tensor): the member stays on one AIV,
// with the reason, although the scope asks for the split.

// CHECK: warning: split-vector-member: group @scratch asks for split(up_down), but its vector member runs on one AIV (KERNEL_TYPE_MIX_AIC_1_1): the member accesses one tensor with tiles of [32, 64] along the split dimension: one sub-block would touch elements the other writes
// CHECK-LABEL: pypto.func aiv @scratch_aiv(
// CHECK-NOT:     get_subblock_idx
// CHECK:         %w = pypto.tile.load %scratch_3[%c32, %{{.*}}] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
// CHECK-LABEL: pypto.func group @scratch(
// CHECK-SAME:    task_ratio = 1 : i64

builtin.module {
  pypto.func orchestration @main(%a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, out %y: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
    %y_1 = pypto.call @scratch(%y, %a, %b) {pypto.block_dim = 2 : i64} : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 128], f16>) -> !pypto.tensor<[128, 128], f32>
    pypto.return %y_1 : !pypto.tensor<[128, 128], f32>
  }
  pypto.func aic @scratch_aic(out %y: !pypto.tensor<[128, 128], f32>, %a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) attributes {split = #pypto<split up_down>} {
    %blk = pypto.tile.get_block_idx : index
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    scf.for %n = %1 to %0 step %2 {
      %3 = arith.constant 64 : index
      %4 = arith.muli %blk, %3 : index
      %5 = arith.constant 0 : index
      %am = pypto.tile.load %a[%4, %5] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
      %6 = arith.muli %n, %3 : index
      %bm = pypto.tile.load %b[%5, %6] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
      %7 = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
      %8 = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
      %acc = pypto.tile.matmul %7, %8 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
      %9 = arith.constant 2 : index
      %10 = arith.remui %n, %9 : index
      %11 = arith.constant 64 : index
      %12 = arith.muli %10, %11 : index
      %13 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aiv id(1)
      %14 = pypto.tile.store %acc, %c2v_ring[%12, %13] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[128, 64], f32>
      pypto.cross_core.set_flag to aiv id(0)
    }
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.return
  }
  pypto.func aiv @scratch_aiv(out %y: !pypto.tensor<[128, 128], f32>, %a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[128, 128], f32> attributes {split = #pypto<split up_down>} {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %blk = pypto.tile.get_block_idx : index
    %scratch = pypto.tensor.create : !pypto.tensor<[64, 64], f32>
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %scratch_1, %y_1 = scf.for %n = %1 to %0 step %2 iter_args(%scratch_2 = %scratch, %y_2 = %y) -> (!pypto.tensor<[64, 64], f32>, !pypto.tensor<[128, 128], f32>) {
      %3 = arith.constant 64 : index
      %4 = arith.muli %blk, %3 : index
      %5 = arith.constant 0 : index
      %6 = arith.muli %n, %3 : index
      %7 = arith.constant 2 : index
      %8 = arith.remui %n, %7 : index
      %9 = arith.constant 64 : index
      %10 = arith.muli %8, %9 : index
      %11 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aic id(0)
      %v = pypto.tile.load %c2v_ring[%10, %11] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
      pypto.cross_core.set_flag to aic id(1)
      %12 = pypto.tile.exp %v : !pypto.tile<[64, 64], f32, vec>
      %scratch_3 = pypto.tile.store %12, %scratch_2[%5, %5] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
      %c32 = arith.constant 32 : index
      %w = pypto.tile.load %scratch_3[%c32, %5] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
      %13 = pypto.tile.neg %w : !pypto.tile<[32, 64], f32, vec>
      %y_3 = pypto.tile.store %13, %y_2[%4, %6] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[128, 128], f32>
      scf.yield %scratch_3, %y_3 : !pypto.tensor<[64, 64], f32>, !pypto.tensor<[128, 128], f32>
    }
    pypto.return %y : !pypto.tensor<[128, 128], f32>
  }
  pypto.func group @scratch(out %y: !pypto.tensor<[128, 128], f32>, %a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 128], f16>) -> !pypto.tensor<[128, 128], f32> attributes {split = #pypto<split up_down>} {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[128, 64], f32>
    pypto.call @scratch_aic(%y, %a, %b, %c2v_ring) : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[128, 64], f32>) -> ()
    %y_1 = pypto.call @scratch_aiv(%y, %a, %b, %c2v_ring) : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[128, 128], f32>
    pypto.return %y_1 : !pypto.tensor<[128, 128], f32>
  }
}
