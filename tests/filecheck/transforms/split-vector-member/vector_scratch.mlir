// RUN: pypto-opt %s -p split-vector-member | filecheck %s --check-prefix=SPLIT
// RUN: pypto-opt %s -p split-vector-member,convert-pypto-to-ascendc | filecheck %s --check-prefix=LOWER

// A GM tensor only the vector member creates (%scratch: the epilogue stages exp(v) through it
// and reads it back), in a kernel launched on two blocks. The member is split over both AIVs
// and %scratch stays ONE [64, 64] tensor, at one offset of the block's part of the workspace:
// both AIVs address the same bytes, and that is right because each stores and loads only its
// own 32 rows of it (offset GetSubBlockIdx() * 32), as it does for the ring slot and the
// output. The block's part is GetBlockIdx() / GetTaskRatio() on the AIVs, GetBlockIdx() on the
// AIC, so two blocks never share it.

// SPLIT-LABEL: pypto.func aiv @scratch_aiv(
// SPLIT:         %sub_block = pypto.tile.get_subblock_idx : index
// SPLIT:         %scratch = pypto.tensor.create : !pypto.tensor<[64, 64], f32>
// SPLIT-NOT:     pypto.tensor.create
// SPLIT:         %v = pypto.tile.load %c2v_ring[{{.*}}] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
// SPLIT:         [[HALF:%.*]] = arith.constant 32 : index
// SPLIT-NEXT:    [[MINE:%.*]] = arith.muli %sub_block, [[HALF]] : index
// SPLIT-NEXT:    %scratch_3 = pypto.tile.store %{{.*}}, %scratch_2[[[MINE]], %{{.*}}] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
// SPLIT-NEXT:    [[HALF2:%.*]] = arith.constant 32 : index
// SPLIT-NEXT:    [[MINE2:%.*]] = arith.muli %sub_block, [[HALF2]] : index
// SPLIT-NEXT:    %w = pypto.tile.load %scratch_3[[[MINE2]], %{{.*}}] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
// SPLIT-LABEL: pypto.func group @scratch(
// SPLIT-SAME:    task_ratio = 2 : i64

// LOWER-LABEL: ascendc.kernel cube @scratch_aic(
// LOWER:         ascendc.block_workspace "block_ws" %workspace bytes 49152 :
// LOWER-NEXT:    ascendc.global_tensor "c2v_ring_gm" %block_ws offset 0 size 8192
// LOWER-NOT:     scratch_gm
// LOWER-LABEL: ascendc.kernel vector @scratch_aiv(
// LOWER:         ascendc.block_workspace "block_ws" %workspace bytes 49152 task_ratio 2 :
// LOWER-NEXT:    ascendc.global_tensor "c2v_ring_gm" %block_ws offset 0 size 8192
// LOWER-NEXT:    ascendc.global_tensor "scratch_gm" %block_ws offset 32768 size 4096 {comment = "%scratch !pypto.tensor<[64, 64], f32>, workspace bytes [32768, 49152)"}
// LOWER-NOT:     ascendc.global_tensor
// LOWER:         %sub_block = ascendc.get_sub_block_idx
// LOWER:         ascendc.exp
// LOWER:         [[ROWS:%.*]] = arith.muli %sub_block, %{{.*}} : index
// LOWER-NEXT:    [[OUT:%.*]] = ascendc.at %scratch_gm[[[ROWS]] * 64]
// LOWER-NEXT:    ascendc.data_copy [[OUT]], %{{.*}} count 2048
// LOWER:         [[ROWS2:%.*]] = arith.muli %sub_block, %{{.*}} : index
// LOWER:         [[IN:%.*]] = ascendc.at %scratch_gm[[[ROWS2]] * 64]
// LOWER-NEXT:    ascendc.data_copy %{{.*}}, [[IN]] count 2048
// LOWER-LABEL: ascendc.kernel mix @scratch(
// LOWER-SAME:    workspace = 49152 : i64
// LOWER-SAME:    task_ratio = 2 : i64

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
      %w = pypto.tile.load %scratch_3[%5, %5] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
      %13 = pypto.tile.add %w, %v : !pypto.tile<[64, 64], f32, vec>
      %y_3 = pypto.tile.store %13, %y_2[%4, %6] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[128, 128], f32>
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
