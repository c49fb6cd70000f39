// RUN: pypto-opt %s -p split-vector-member | filecheck %s
// RUN: pypto-opt %s -p split-vector-member 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: pypto-opt %s -p split-vector-member | pypto-opt -p split-vector-member | filecheck %s

// Reductions across the split dimension (tests/test_split_vector_reductions.py, after
// pypto-default and lower-cross-core-rings): under split(up_down) a column sum and a column
// max in a loop, under split(left_right) a row sum in a loop. Each AIV reduces its half, stores
// the partial into its slot of a workspace made at the top of the member, meets the other AIV
// at a mode-1 flag (`among aiv`, an id the ring does not use), loads the other's partial and
// combines the two. Only the row sum, alone in its loop body, meets once more after the load;
// the column sum's and the column max's meetings keep each other's slots. No warning: both
// groups split. A second run leaves them alone.

builtin.module {
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, out %colsum: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, out %rowsum: !pypto.tensor<[64, 1], f32>) -> !pypto.tensor<[64, 128], f32> {
    %y_1, %colsum_1 = pypto.call @column_stats(%colsum, %y, %a, %b) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>)
    %rowsum_1 = pypto.call @row_stats(%rowsum, %a, %b) : (!pypto.tensor<[64, 1], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>) -> !pypto.tensor<[64, 1], f32>
    pypto.return %y_1 : !pypto.tensor<[64, 128], f32>
  }
  pypto.func aic @column_stats_aic(out %colsum: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) attributes {split = #pypto<split up_down>} {
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
  pypto.func aiv @column_stats_aiv(out %colsum: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>) attributes {split = #pypto<split up_down>} {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %colsum_1, %y_1 = scf.for %n = %1 to %0 step %2 iter_args(%colsum_2 = %colsum, %y_2 = %y) -> (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>) {
      %3 = arith.constant 0 : index
      %4 = arith.constant 64 : index
      %5 = arith.constant 2 : index
      %6 = arith.remui %n, %5 : index
      %7 = arith.constant 64 : index
      %8 = arith.muli %6, %7 : index
      %9 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aic id(0)
      %v = pypto.tile.load %c2v_ring[%8, %9] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
      pypto.cross_core.set_flag to aic id(1)
      %10 = pypto.tile.col_sum %v : !pypto.tile<[64, 64], f32, vec>
      %11 = arith.muli %n, %4 : index
      %colsum_3 = pypto.tile.store %10, %colsum_2[%3, %11] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 128], f32>
      %12 = pypto.tile.col_max %v : !pypto.tile<[64, 64], f32, vec>
      %13 = pypto.tile.col_expand_sub %v, %12 : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
      %14 = arith.muli %n, %4 : index
      %y_3 = pypto.tile.store %13, %y_2[%3, %14] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 128], f32>
      scf.yield %colsum_3, %y_3 : !pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>
    }
    pypto.return %y, %colsum : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>
  }
  pypto.func group @column_stats(out %colsum: !pypto.tensor<[1, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>) attributes {split = #pypto<split up_down>} {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[128, 64], f32>
    pypto.call @column_stats_aic(%colsum, %y, %a, %b, %c2v_ring) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[128, 64], f32>) -> ()
    %y_1, %colsum_1 = pypto.call @column_stats_aiv(%colsum, %y, %a, %b, %c2v_ring) : (!pypto.tensor<[1, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[128, 64], f32>) -> (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>)
    pypto.return %y_1, %colsum_1 : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[1, 128], f32>
  }
  pypto.func aic @row_stats_aic(out %rowsum: !pypto.tensor<[64, 1], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[64, 64], f32>) attributes {split = #pypto<split left_right>} {
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    scf.for %m = %1 to %0 step %2 {
      %3 = arith.constant 32 : index
      %4 = arith.muli %m, %3 : index
      %5 = arith.constant 0 : index
      %am = pypto.tile.load %a[%4, %5] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
      %bm = pypto.tile.load %b[%5, %5] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
      %6 = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
      %7 = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
      %acc = pypto.tile.matmul %6, %7 : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
      %8 = arith.constant 2 : index
      %9 = arith.remui %m, %8 : index
      %10 = arith.constant 32 : index
      %11 = arith.muli %9, %10 : index
      %12 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aiv id(1)
      %13 = pypto.tile.store %acc, %c2v_ring[%11, %12] : !pypto.tile<[32, 64], f32, acc>, !pypto.tensor<[64, 64], f32>
      pypto.cross_core.set_flag to aiv id(0)
    }
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.return
  }
  pypto.func aiv @row_stats_aiv(out %rowsum: !pypto.tensor<[64, 1], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>, inout %c2v_ring: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 1], f32> attributes {split = #pypto<split left_right>} {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %0 = arith.constant 2 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %rowsum_1 = scf.for %m = %1 to %0 step %2 iter_args(%rowsum_2 = %rowsum) -> (!pypto.tensor<[64, 1], f32>) {
      %3 = arith.constant 32 : index
      %4 = arith.constant 0 : index
      %5 = arith.constant 2 : index
      %6 = arith.remui %m, %5 : index
      %7 = arith.constant 32 : index
      %8 = arith.muli %6, %7 : index
      %9 = arith.constant 0 : index
      pypto.cross_core.wait_flag from aic id(0)
      %10 = pypto.tile.load %c2v_ring[%8, %9] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
      pypto.cross_core.set_flag to aic id(1)
      %11 = pypto.tile.row_sum %10 : !pypto.tile<[32, 64], f32, vec>
      %12 = arith.muli %m, %3 : index
      %rowsum_3 = pypto.tile.store %11, %rowsum_2[%12, %4] : !pypto.tile<[32, 1], f32, vec>, !pypto.tensor<[64, 1], f32>
      scf.yield %rowsum_3 : !pypto.tensor<[64, 1], f32>
    }
    pypto.return %rowsum : !pypto.tensor<[64, 1], f32>
  }
  pypto.func group @row_stats(out %rowsum: !pypto.tensor<[64, 1], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 128], f16>) -> !pypto.tensor<[64, 1], f32> attributes {split = #pypto<split left_right>} {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[64, 64], f32>
    pypto.call @row_stats_aic(%rowsum, %a, %b, %c2v_ring) : (!pypto.tensor<[64, 1], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[64, 64], f32>) -> ()
    %rowsum_1 = pypto.call @row_stats_aiv(%rowsum, %a, %b, %c2v_ring) : (!pypto.tensor<[64, 1], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 128], f16>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 1], f32>
    pypto.return %rowsum_1 : !pypto.tensor<[64, 1], f32>
  }
}

// QUIET-NOT: warning

// CHECK:      pypto.func aiv @column_stats_aiv(
// CHECK-NEXT:   %sub_block = pypto.tile.get_subblock_idx : index
// CHECK-NEXT:   %[[SUM_WS:.*]] = pypto.tensor.create : !pypto.tensor<[2, 64], f32>
// CHECK-NEXT:   %[[MAX_WS:.*]] = pypto.tensor.create : !pypto.tensor<[2, 64], f32>
// CHECK:        scf.for
// CHECK:          %[[SUM:.*]] = pypto.tile.col_sum %{{.*}} : !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[ROWS:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[MINE:.*]] = arith.muli %sub_block, %[[ROWS]] : index
// CHECK-NEXT:     %[[THEIRS:.*]] = arith.subi %[[ROWS]], %[[MINE]] : index
// CHECK-NEXT:     %[[STORED:.*]] = pypto.tile.store %[[SUM]], %[[SUM_WS]][%[[MINE]], %[[C0]]] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[2, 64], f32>
// CHECK-NEXT:     pypto.cross_core.set_flag among aiv id(2)
// CHECK-NEXT:     pypto.cross_core.wait_flag among aiv id(2)
// CHECK-NEXT:     %[[OTHER:.*]] = pypto.tile.load %[[STORED]][%[[THEIRS]], %[[C0]]] : !pypto.tensor<[2, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:     %[[TOTAL:.*]] = pypto.tile.add %[[SUM]], %[[OTHER]] : !pypto.tile<[1, 64], f32, vec>
// CHECK-NOT:      among aiv
// CHECK:          scf.if
// CHECK-NEXT:       pypto.tile.store %[[TOTAL]], %{{.*}} : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 128], f32>
// CHECK:          %[[MAX:.*]] = pypto.tile.col_max %{{.*}} : !pypto.tile<[32, 64], f32, vec>
// CHECK:          pypto.tile.store %[[MAX]], %[[MAX_WS]][
// CHECK-NEXT:     pypto.cross_core.set_flag among aiv id(2)
// CHECK-NEXT:     pypto.cross_core.wait_flag among aiv id(2)
// CHECK-NEXT:     %[[OTHER_MAX:.*]] = pypto.tile.load
// CHECK-NEXT:     %[[WHOLE_MAX:.*]] = pypto.tile.maximum %[[MAX]], %[[OTHER_MAX]] : !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:     pypto.tile.col_expand_sub %{{.*}}, %[[WHOLE_MAX]] : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
// CHECK-NOT:      among aiv
// CHECK:          scf.yield
// CHECK:      pypto.func group @column_stats({{.*}} attributes {split = #pypto<split up_down>, task_ratio = 2 : i64} {
// CHECK:      pypto.func aiv @row_stats_aiv(
// CHECK:        pypto.tensor.create : !pypto.tensor<[64, 1], f32>
// CHECK:          %[[ROW_SUM:.*]] = pypto.tile.row_sum %{{.*}} : !pypto.tile<[32, 32], f32, vec>
// CHECK:          pypto.tile.store %[[ROW_SUM]], %{{.*}} : !pypto.tile<[32, 1], f32, vec>, !pypto.tensor<[64, 1], f32>
// CHECK-NEXT:     pypto.cross_core.set_flag among aiv id(2)
// CHECK-NEXT:     pypto.cross_core.wait_flag among aiv id(2)
// CHECK-NEXT:     pypto.tile.load {{.*}} -> !pypto.tile<[32, 1], f32, vec>
// CHECK-NEXT:     pypto.tile.add %[[ROW_SUM]], %{{.*}} : !pypto.tile<[32, 1], f32, vec>
// CHECK-NEXT:     pypto.cross_core.set_flag among aiv id(2)
// CHECK-NEXT:     pypto.cross_core.wait_flag among aiv id(2)
// CHECK:      pypto.func group @row_stats({{.*}} attributes {split = #pypto<split left_right>, task_ratio = 2 : i64} {
