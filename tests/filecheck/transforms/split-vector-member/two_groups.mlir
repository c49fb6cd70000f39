// RUN: pypto-opt %s -p split-vector-member | filecheck %s
// RUN: pypto-opt %s -p split-vector-member | pypto-opt | filecheck %s

// Two mixed scopes after expand-mixed-kernel and lower-cross-core-rings, each a group whose aiv
// member is split over both AIVs of the core group (task_ratio = 2 on the group):
// * split(up_down): every [64, 64] tile becomes [32, 64], and its loads and stores (the ring
//   slot included) move down by GetSubBlockIdx() * 32 rows; the [1, 64] bias row stays whole on
//   both AIVs, and its store (`scale`, a whole tile) is done by sub-block 0 only;
// * split(left_right): tiles keep their rows and lose half their columns; the bias row is
//   halved too (64 columns), and every offset moves right by GetSubBlockIdx() * 32.
// The aic members and the flags are unchanged (mode 2: one AIC setting releases both AIVs).

builtin.module {
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, out %scale: !pypto.tensor<[1, 128], f32>, out %z: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
    %y_1, %scale_1 = pypto.call @mixed_up_down(%scale, %y, %a, %b, %bias) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>)
    %z_1 = pypto.call @mixed_left_right(%z, %a, %b, %bias) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>) -> !pypto.tensor<[64, 128], f32>
    pypto.return %y_1 : !pypto.tensor<[64, 128], f32>
  }
  pypto.func aic @mixed_up_down_aic(out %scale: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) attributes {split = #pypto<split up_down>} {
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    scf.for %n = %1 to %0 step %2 {
      %3 = arith.constant 0 : index
      %am = pypto.tile.load %a[%3, %3] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %bm = pypto.tile.load %b[%3, %5] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
      %6 = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
      %7 = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
      %acc = pypto.tile.matmul %6, %7 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
      %8 = arith.constant 2 : index
      %9 = arith.remui %n, %8 : index
      %10 = arith.constant 64 : index
      %11 = arith.muli %9, %10 : index
      %12 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aiv id(1)
      %13 = pypto.tile.store %acc, %c2v_ring[%11, %12] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[128, 64], f32>
      pypto.cross_core.set_flag to aiv id(0)
    }
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.return
  }
  pypto.func aiv @mixed_up_down_aiv(out %scale: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>) attributes {split = #pypto<split up_down>} {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %scale_1, %y_1 = scf.for %n = %1 to %0 step %2 iter_args(%scale_2 = %scale, %y_2 = %y) -> (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>) {
      %3 = arith.constant 0 : index
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %6 = pypto.tile.load %bias[%3, %5] : !pypto.tensor<[1, 128], f32> -> !pypto.tile<[1, 64], f32, vec>
      %row = pypto.tile.exp %6 : !pypto.tile<[1, 64], f32, vec>
      %7 = arith.muli %n, %4 : index
      %scale_3 = pypto.tile.store %row, %scale_2[%3, %7] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 128], f32>
      %8 = arith.constant 2 : index
      %9 = arith.remui %n, %8 : index
      %10 = arith.constant 64 : index
      %11 = arith.muli %9, %10 : index
      %12 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aic id(0)
      %13 = pypto.tile.load %c2v_ring[%11, %12] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
      pypto.cross_core.set_flag to aic id(1)
      %14 = pypto.tile.col_expand_mul %13, %row : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
      %15 = arith.muli %n, %4 : index
      %y_3 = pypto.tile.store %14, %y_2[%3, %15] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 128], f32>
      scf.yield %scale_3, %y_3 : !pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>
    }
    pypto.return %y, %scale : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>
  }
  pypto.func group @mixed_up_down(out %scale: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>) attributes {split = #pypto<split up_down>} {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[128, 64], f32>
    pypto.call @mixed_up_down_aic(%scale, %y, %a, %b, %bias, %c2v_ring) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>, !pypto.tensor<[128, 64], f32>) -> ()
    %y_1, %scale_1 = pypto.call @mixed_up_down_aiv(%scale, %y, %a, %b, %bias, %c2v_ring) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>, !pypto.tensor<[128, 64], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>)
    pypto.return %y_1, %scale_1 : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>
  }
  pypto.func aic @mixed_left_right_aic(out %z: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) attributes {split = #pypto<split left_right>} {
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    scf.for %n = %1 to %0 step %2 {
      %3 = arith.constant 0 : index
      %am = pypto.tile.load %a[%3, %3] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %bm = pypto.tile.load %b[%3, %5] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
      %6 = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
      %7 = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
      %acc = pypto.tile.matmul %6, %7 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
      %8 = arith.constant 2 : index
      %9 = arith.remui %n, %8 : index
      %10 = arith.constant 64 : index
      %11 = arith.muli %9, %10 : index
      %12 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aiv id(1)
      %13 = pypto.tile.store %acc, %c2v_ring[%11, %12] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[128, 64], f32>
      pypto.cross_core.set_flag to aiv id(0)
    }
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.return
  }
  pypto.func aiv @mixed_left_right_aiv(out %z: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[64, 128], f32> attributes {split = #pypto<split left_right>} {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %z_1 = scf.for %n = %1 to %0 step %2 iter_args(%z_2 = %z) -> (!pypto.tensor<[64, 128], f32>) {
      %3 = arith.constant 0 : index
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %bias_row = pypto.tile.load %bias[%3, %5] : !pypto.tensor<[1, 128], f32> -> !pypto.tile<[1, 64], f32, vec>
      %6 = arith.constant 2 : index
      %7 = arith.remui %n, %6 : index
      %8 = arith.constant 64 : index
      %9 = arith.muli %7, %8 : index
      %10 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aic id(0)
      %11 = pypto.tile.load %c2v_ring[%9, %10] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
      pypto.cross_core.set_flag to aic id(1)
      %12 = pypto.tile.col_expand_add %11, %bias_row : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
      %13 = pypto.tile.relu %12 : !pypto.tile<[64, 64], f32, vec>
      %14 = arith.muli %n, %4 : index
      %z_3 = pypto.tile.store %13, %z_2[%3, %14] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 128], f32>
      scf.yield %z_3 : !pypto.tensor<[64, 128], f32>
    }
    pypto.return %z : !pypto.tensor<[64, 128], f32>
  }
  pypto.func group @mixed_left_right(out %z: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, %bias: !pypto.tensor<[1, 128], f32>) -> !pypto.tensor<[64, 128], f32> attributes {split = #pypto<split left_right>} {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[128, 64], f32>
    pypto.call @mixed_left_right_aic(%z, %a, %b, %bias, %c2v_ring) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>, !pypto.tensor<[128, 64], f32>) -> ()
    %z_1 = pypto.call @mixed_left_right_aiv(%z, %a, %b, %bias, %c2v_ring) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[1, 128], f32>, !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[64, 128], f32>
    pypto.return %z_1 : !pypto.tensor<[64, 128], f32>
  }
}

// CHECK:      pypto.func aic @mixed_up_down_aic(
// CHECK-NOT:    get_subblock_idx
// CHECK:      pypto.func aiv @mixed_up_down_aiv(
// CHECK-NEXT:   %sub_block = pypto.tile.get_subblock_idx : index
// CHECK:          %row = pypto.tile.exp %{{.*}} : !pypto.tile<[1, 64], f32, vec>
// CHECK:          %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[FIRST:.*]] = arith.cmpi eq, %sub_block, %[[ZERO]] : index
// CHECK-NEXT:     scf.if %[[FIRST]] {
// CHECK-NEXT:       pypto.tile.store %row, %{{.*}} : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 128], f32>
// CHECK-NEXT:     }
// CHECK:          pypto.cross_core.wait_flag from aic id(0)
// CHECK-NEXT:     %[[H:.*]] = arith.constant 32 : index
// CHECK-NEXT:     %[[D:.*]] = arith.muli %sub_block, %[[H]] : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK-NEXT:     %{{.*}} = pypto.tile.load %c2v_ring[%[[SLOT]], %{{.*}}] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT:     pypto.cross_core.set_flag to aic id(1)
// CHECK-NEXT:     pypto.tile.col_expand_mul %{{.*}}, %row : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
// CHECK:          %[[YR:.*]] = arith.muli %sub_block, %{{.*}} : index
// CHECK-NEXT:     %y_3 = pypto.tile.store %{{.*}}, %y_2[%[[YR]], %{{.*}}] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     scf.yield %scale_2, %y_3
// CHECK:      pypto.func group @mixed_up_down({{.*}} attributes {split = #pypto<split up_down>, task_ratio = 2 : i64} {

// CHECK:      pypto.func aiv @mixed_left_right_aiv(
// CHECK-NEXT:   %sub_block = pypto.tile.get_subblock_idx : index
// CHECK:          %[[B:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:     %bias_row = pypto.tile.load %bias[%{{.*}}, %[[B]]] : !pypto.tensor<[1, 128], f32> -> !pypto.tile<[1, 32], f32, vec>
// CHECK:          pypto.tile.load %c2v_ring[%{{.*}}, %{{.*}}] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 32], f32, vec>
// CHECK:          pypto.tile.relu %{{.*}} : !pypto.tile<[64, 32], f32, vec>
// CHECK:          pypto.tile.store %{{.*}} : !pypto.tile<[64, 32], f32, vec>, !pypto.tensor<[64, 128], f32>
// CHECK:      pypto.func group @mixed_left_right({{.*}} attributes {split = #pypto<split left_right>, task_ratio = 2 : i64} {
