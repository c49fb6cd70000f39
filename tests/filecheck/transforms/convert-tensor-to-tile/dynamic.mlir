// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | filecheck %s

// Run-time extents (named dynamic dimensions). The tiles are static: a dynamic row count
// tiles with the largest block that fits the UB (here 38 rows of five [R, 128] f32 tiles);
// the loop runs over the full blocks of the run-time count (tensor.dim of a parameter), and
// the remaining rows, if any, are one partial block: its loads read `valid[rows, cols]`
// only, its stored tile is marked with tile.set_validshape (the store writes that block).

pypto.func incore @chain(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %c0 = arith.constant 0 : index
  %x = pypto.tensor.mul %a, %b : !pypto.tensor<[N, 128], f32>
  %y = pypto.tensor.adds %x, %s : !pypto.tensor<[N, 128], f32>, f32
  %e = pypto.tensor.exp %y : !pypto.tensor<[N, 128], f32>
  %w = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[N, 128], f32> into !pypto.tensor<[N, 128], f32>
  pypto.return %w : !pypto.tensor<[N, 128], f32>
}

// CHECK-LABEL: pypto.func incore @chain(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    %c38 = arith.constant 38 : index
// CHECK-NEXT:    %full_blocks = arith.divui %N, %c38 : index
// CHECK-NEXT:    %full_rows = arith.muli %full_blocks, %c38 : index
// CHECK-NEXT:    %o_1 = scf.for %row = %c0 to %full_rows step %c38 iter_args(%o_2 = %o) -> (!pypto.tensor<[N, 128], f32>) {
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %b_tile = pypto.tile.load %b[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %x_tile = pypto.tile.mul %a_tile, %b_tile : !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %y_tile = pypto.tile.adds %x_tile, %s : !pypto.tile<[38, 128], f32, vec>, f32
// CHECK-NEXT:      %e_tile = pypto.tile.exp %y_tile : !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %o_3 = pypto.tile.store %e_tile, %o_2[%row, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:      scf.yield %o_3 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %tail_rows = arith.subi %N, %full_rows : index
// CHECK-NEXT:    %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %o_4 = scf.if %has_tail -> (!pypto.tensor<[N, 128], f32>) {
// CHECK-NEXT:      %a_tile_1 = pypto.tile.load %a[%full_rows, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %b_tile_1 = pypto.tile.load %b[%full_rows, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %x_tile_1 = pypto.tile.mul %a_tile_1, %b_tile_1 : !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %y_tile_1 = pypto.tile.adds %x_tile_1, %s : !pypto.tile<[38, 128], f32, vec>, f32
// CHECK-NEXT:      %e_tile_1 = pypto.tile.exp %y_tile_1 : !pypto.tile<[38, 128], f32, vec>
// CHECK-NEXT:      %e_valid = pypto.tile.set_validshape %e_tile_1, %tail_rows, %c128 : !pypto.tile<[38, 128], f32, vec>, index, index
// CHECK-NEXT:      %o_5 = pypto.tile.store %e_valid, %o_1[%full_rows, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:      scf.yield %o_5 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %o_1 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_4 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:  }

// -----

// A bound no larger than the block: every extent fits one (partial) block, so there is no
// loop, only the guarded block of N rows. The bound also sizes the block: 20 rows.

pypto.func incore @bounded(%a: !pypto.tensor<[N, 128], f32>, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> attributes {pypto.dim_bounds = {N = 20 : i64}} {
  %c0 = arith.constant 0 : index
  %e = pypto.tensor.exp %a : !pypto.tensor<[N, 128], f32>
  %w = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[N, 128], f32> into !pypto.tensor<[N, 128], f32>
  pypto.return %w : !pypto.tensor<[N, 128], f32>
}

// CHECK-LABEL: pypto.func incore @bounded(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    %has_rows = arith.cmpi sgt, %N, %c0 : index
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %o_1 = scf.if %has_rows -> (!pypto.tensor<[N, 128], f32>) {
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%c0, %c0] valid[%N, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[20, 128], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %a_tile : !pypto.tile<[20, 128], f32, vec>
// CHECK-NEXT:      %e_valid = pypto.tile.set_validshape %e_tile, %N, %c128 : !pypto.tile<[20, 128], f32, vec>, index, index
// CHECK-NEXT:      %o_2 = pypto.tile.store %e_valid, %o[%c0, %c0] : !pypto.tile<[20, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:      scf.yield %o_2 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %o : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_1 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:  }

// -----

// SPMD on 4 cores: core b of B takes the contiguous rows [b*N/B, (b+1)*N/B) (balanced to
// one row, every row on one core, nothing when N = 0) and tiles its share as above.

pypto.func incore @spmd(%a: !pypto.tensor<[N, 64], f32>, out %o: !pypto.tensor<[N, 64], f32>) -> !pypto.tensor<[N, 64], f32> {
  %c0 = arith.constant 0 : index
  %r = pypto.tensor.relu %a : !pypto.tensor<[N, 64], f32>
  %w = pypto.tensor.assemble %r into %o[%c0, %c0] : !pypto.tensor<[N, 64], f32> into !pypto.tensor<[N, 64], f32>
  pypto.return %w : !pypto.tensor<[N, 64], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[N, 64], f32>, out %o: !pypto.tensor<[N, 64], f32>) -> !pypto.tensor<[N, 64], f32> {
  %r = pypto.call @spmd(%a, %o) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 64], f32>, !pypto.tensor<[N, 64], f32>) -> !pypto.tensor<[N, 64], f32>
  pypto.return %r : !pypto.tensor<[N, 64], f32>
}

// CHECK-LABEL: pypto.func incore @spmd(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:    %block_idx = pypto.tile.get_block_idx : index
// CHECK-NEXT:    %block_num = pypto.tile.get_block_num : index
// CHECK-NEXT:    %first_scaled = arith.muli %block_idx, %N : index
// CHECK-NEXT:    %first_row = arith.divui %first_scaled, %block_num : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %next_block = arith.addi %block_idx, %c1 : index
// CHECK-NEXT:    %end_scaled = arith.muli %next_block, %N : index
// CHECK-NEXT:    %end_row = arith.divui %end_scaled, %block_num : index
// CHECK-NEXT:    %core_rows = arith.subi %end_row, %first_row : index
// CHECK-NEXT:    %c192 = arith.constant 192 : index
// CHECK-NEXT:    %full_blocks = arith.divui %core_rows, %c192 : index
// CHECK-NEXT:    %full_rows = arith.muli %full_blocks, %c192 : index
// CHECK-NEXT:    %full_end = arith.addi %first_row, %full_rows : index
// CHECK-NEXT:    %o_1 = scf.for %row = %first_row to %full_end step %c192 iter_args(%o_2 = %o) -> (!pypto.tensor<[N, 64], f32>) {
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[N, 64], f32> -> !pypto.tile<[192, 64], f32, vec>
// CHECK-NEXT:      %r_tile = pypto.tile.relu %a_tile : !pypto.tile<[192, 64], f32, vec>
// CHECK-NEXT:      %o_3 = pypto.tile.store %r_tile, %o_2[%row, %c0] : !pypto.tile<[192, 64], f32, vec>, !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:      scf.yield %o_3 : !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %tail_rows = arith.subi %end_row, %full_end : index
// CHECK-NEXT:    %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %o_4 = scf.if %has_tail -> (!pypto.tensor<[N, 64], f32>) {
// CHECK-NEXT:      %a_tile_1 = pypto.tile.load %a[%full_end, %c0] valid[%tail_rows, %c64] : !pypto.tensor<[N, 64], f32> -> !pypto.tile<[192, 64], f32, vec>
// CHECK-NEXT:      %r_tile_1 = pypto.tile.relu %a_tile_1 : !pypto.tile<[192, 64], f32, vec>
// CHECK-NEXT:      %r_valid = pypto.tile.set_validshape %r_tile_1, %tail_rows, %c64 : !pypto.tile<[192, 64], f32, vec>, index, index
// CHECK-NEXT:      %o_5 = pypto.tile.store %r_valid, %o_1[%full_end, %c0] : !pypto.tile<[192, 64], f32, vec>, !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:      scf.yield %o_5 : !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %o_1 : !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_4 : !pypto.tensor<[N, 64], f32>
// CHECK-NEXT:  }

// -----

// Dynamic columns need a bound (here declared on the kernel): the tiles are [R, 200] and
// every block is partial in its columns (valid[.., %C]); row reductions reduce the valid
// columns.

pypto.func incore @softmax_cols(%x: !pypto.tensor<[N, C], f32>, out %y: !pypto.tensor<[N, C], f32>) -> !pypto.tensor<[N, C], f32> attributes {pypto.dim_bounds = {C = 200 : i64}} {
  %c0 = arith.constant 0 : index
  %mx = pypto.tensor.row_max %x : !pypto.tensor<[N, C], f32>
  %sh = pypto.tensor.row_expand_sub %x, %mx : !pypto.tensor<[N, C], f32>, !pypto.tensor<[N, 1], f32>
  %e = pypto.tensor.exp %sh : !pypto.tensor<[N, C], f32>
  %s = pypto.tensor.row_sum %e : !pypto.tensor<[N, C], f32>
  %p = pypto.tensor.row_expand_div %e, %s : !pypto.tensor<[N, C], f32>, !pypto.tensor<[N, 1], f32>
  %w = pypto.tensor.assemble %p into %y[%c0, %c0] : !pypto.tensor<[N, C], f32> into !pypto.tensor<[N, C], f32>
  pypto.return %w : !pypto.tensor<[N, C], f32>
}

// CHECK-LABEL: pypto.func incore @softmax_cols(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %N = pypto.tensor.dim %x, 0 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:    %c25 = arith.constant 25 : index
// CHECK-NEXT:    %full_blocks = arith.divui %N, %c25 : index
// CHECK-NEXT:    %full_rows = arith.muli %full_blocks, %c25 : index
// CHECK-NEXT:    %C = pypto.tensor.dim %x, 1 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:    %y_1 = scf.for %row = %c0 to %full_rows step %c25 iter_args(%y_2 = %y) -> (!pypto.tensor<[N, C], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row, %c0] valid[%c25, %C] : !pypto.tensor<[N, C], f32> -> !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %mx_tile = pypto.tile.row_max %x_tile : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %sh_tile = pypto.tile.row_expand_sub %x_tile, %mx_tile : !pypto.tile<[25, 200], f32, vec>, !pypto.tile<[25, 1], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %sh_tile : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.row_sum %e_tile : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %p_tile = pypto.tile.row_expand_div %e_tile, %s_tile : !pypto.tile<[25, 200], f32, vec>, !pypto.tile<[25, 1], f32, vec>
// CHECK-NEXT:      %p_valid = pypto.tile.set_validshape %p_tile, %c25, %C : !pypto.tile<[25, 200], f32, vec>, index, index
// CHECK-NEXT:      %y_3 = pypto.tile.store %p_valid, %y_2[%row, %c0] : !pypto.tile<[25, 200], f32, vec>, !pypto.tensor<[N, C], f32>
// CHECK-NEXT:      scf.yield %y_3 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %tail_rows = arith.subi %N, %full_rows : index
// CHECK-NEXT:    %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
// CHECK-NEXT:    %y_4 = scf.if %has_tail -> (!pypto.tensor<[N, C], f32>) {
// CHECK-NEXT:      %x_tile_1 = pypto.tile.load %x[%full_rows, %c0] valid[%tail_rows, %C] : !pypto.tensor<[N, C], f32> -> !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %mx_tile_1 = pypto.tile.row_max %x_tile_1 : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %sh_tile_1 = pypto.tile.row_expand_sub %x_tile_1, %mx_tile_1 : !pypto.tile<[25, 200], f32, vec>, !pypto.tile<[25, 1], f32, vec>
// CHECK-NEXT:      %e_tile_1 = pypto.tile.exp %sh_tile_1 : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %s_tile_1 = pypto.tile.row_sum %e_tile_1 : !pypto.tile<[25, 200], f32, vec>
// CHECK-NEXT:      %p_tile_1 = pypto.tile.row_expand_div %e_tile_1, %s_tile_1 : !pypto.tile<[25, 200], f32, vec>, !pypto.tile<[25, 1], f32, vec>
// CHECK-NEXT:      %p_valid_1 = pypto.tile.set_validshape %p_tile_1, %tail_rows, %C : !pypto.tile<[25, 200], f32, vec>, index, index
// CHECK-NEXT:      %y_5 = pypto.tile.store %p_valid_1, %y_1[%full_rows, %c0] : !pypto.tile<[25, 200], f32, vec>, !pypto.tensor<[N, C], f32>
// CHECK-NEXT:      scf.yield %y_5 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %y_1 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %y_4 : !pypto.tensor<[N, C], f32>
// CHECK-NEXT:  }

// -----

// The bound of a kernel's dimension can come from its callers: @main bounds D by 96, and
// @fill_cols's C is D at its only call site. A fill in a partial block is marked partial
// like a load.

pypto.func incore @fill_cols(%x: !pypto.tensor<[8, C], f32>, out %y: !pypto.tensor<[8, C], f32>) -> !pypto.tensor<[8, C], f32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %f = pypto.tensor.expands %x, %one : !pypto.tensor<[8, C], f32>, f32
  %a = pypto.tensor.add %f, %x : !pypto.tensor<[8, C], f32>
  %w = pypto.tensor.assemble %a into %y[%c0, %c0] : !pypto.tensor<[8, C], f32> into !pypto.tensor<[8, C], f32>
  pypto.return %w : !pypto.tensor<[8, C], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, D], f32>, out %y: !pypto.tensor<[8, D], f32>) -> !pypto.tensor<[8, D], f32> attributes {pypto.dim_bounds = {D = 96 : i64}} {
  %r = pypto.call @fill_cols(%x, %y) : (!pypto.tensor<[8, D], f32>, !pypto.tensor<[8, D], f32>) -> !pypto.tensor<[8, D], f32>
  pypto.return %r : !pypto.tensor<[8, D], f32>
}

// CHECK-LABEL: pypto.func incore @fill_cols(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %C = pypto.tensor.dim %x, 1 : !pypto.tensor<[8, C], f32>
// CHECK-NEXT:    %x_tile = pypto.tile.load %x[%c0, %c0] valid[%c8, %C] : !pypto.tensor<[8, C], f32> -> !pypto.tile<[8, 96], f32, vec>
// CHECK-NEXT:    %f_tile = pypto.tile.full %one : f32 -> !pypto.tile<[8, 96], f32, vec>
// CHECK-NEXT:    %f_tile_1 = pypto.tile.set_validshape %f_tile, %c8, %C : !pypto.tile<[8, 96], f32, vec>, index, index
// CHECK-NEXT:    %a_tile = pypto.tile.add %f_tile_1, %x_tile : !pypto.tile<[8, 96], f32, vec>
// CHECK-NEXT:    %a_valid = pypto.tile.set_validshape %a_tile, %c8, %C : !pypto.tile<[8, 96], f32, vec>, index, index
// CHECK-NEXT:    %y_1 = pypto.tile.store %a_valid, %y[%c0, %c0] : !pypto.tile<[8, 96], f32, vec>, !pypto.tensor<[8, C], f32>
// CHECK-NEXT:    pypto.return %y_1 : !pypto.tensor<[8, C], f32>
// CHECK-NEXT:  }

// -----

// A matmul with a run-time M (static K, N): M blocks of 128 rows, the last one partial (its
// A tiles loaded valid[rows, 128], its acc tile stored through tile.set_validshape); each
// block one K loop from a zero accumulator.

pypto.func incore @mm(%a: !pypto.tensor<[M, 256], f16>, %b: !pypto.tensor<[256, 64], f16>, out %c: !pypto.tensor<[M, 64], f32>) -> !pypto.tensor<[M, 64], f32> {
  %c0 = arith.constant 0 : index
  %q = pypto.tensor.matmul %a, %b : !pypto.tensor<[M, 256], f16>, !pypto.tensor<[256, 64], f16> -> !pypto.tensor<[M, 64], f32>
  %w = pypto.tensor.assemble %q into %c[%c0, %c0] : !pypto.tensor<[M, 64], f32> into !pypto.tensor<[M, 64], f32>
  pypto.return %w : !pypto.tensor<[M, 64], f32>
}

// CHECK-LABEL: pypto.func incore @mm(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %M = pypto.tensor.dim %a, 0 : !pypto.tensor<[M, 256], f16>
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %full_blocks = arith.divui %M, %c128 : index
// CHECK-NEXT:    %full_rows = arith.muli %full_blocks, %c128 : index
// CHECK-NEXT:    %0 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %c256 = arith.constant 256 : index
// CHECK-NEXT:    %c_1 = scf.for %m = %c0 to %full_rows step %c128 iter_args(%c_2 = %c) -> (!pypto.tensor<[M, 64], f32>) {
// CHECK-NEXT:      %acc = pypto.tile.full %0 : f32 -> !pypto.tile<[128, 64], f32, acc>
// CHECK-NEXT:      %acc_1 = scf.for %k = %c0 to %c256 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[128, 64], f32, acc>) {
// CHECK-NEXT:        %a_mat = pypto.tile.load %a[%m, %k] : !pypto.tensor<[M, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NEXT:        %b_mat = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[256, 64], f16> -> !pypto.tile<[128, 64], f16, mat>
// CHECK-NEXT:        %a_left = pypto.tile.move %a_mat : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, left>
// CHECK-NEXT:        %b_right = pypto.tile.move %b_mat : !pypto.tile<[128, 64], f16, mat> -> !pypto.tile<[128, 64], f16, right>
// CHECK-NEXT:        %part_1 = pypto.tile.matmul_acc %part, %a_left, %b_right : !pypto.tile<[128, 64], f32, acc>, !pypto.tile<[128, 128], f16, left>, !pypto.tile<[128, 64], f16, right>
// CHECK-NEXT:        scf.yield %part_1 : !pypto.tile<[128, 64], f32, acc>
// CHECK-NEXT:      }
// CHECK-NEXT:      %c_3 = pypto.tile.store %acc_1, %c_2[%m, %c0] : !pypto.tile<[128, 64], f32, acc>, !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:      scf.yield %c_3 : !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %tail_rows = arith.subi %M, %full_rows : index
// CHECK-NEXT:    %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %c_4 = scf.if %has_tail -> (!pypto.tensor<[M, 64], f32>) {
// CHECK-NEXT:      %acc_2 = pypto.tile.full %0 : f32 -> !pypto.tile<[128, 64], f32, acc>
// CHECK-NEXT:      %acc_3 = scf.for %k_1 = %c0 to %c256 step %c128 iter_args(%part_2 = %acc_2) -> (!pypto.tile<[128, 64], f32, acc>) {
// CHECK-NEXT:        %a_mat_1 = pypto.tile.load %a[%full_rows, %k_1] valid[%tail_rows, %c128] : !pypto.tensor<[M, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NEXT:        %b_mat_1 = pypto.tile.load %b[%k_1, %c0] : !pypto.tensor<[256, 64], f16> -> !pypto.tile<[128, 64], f16, mat>
// CHECK-NEXT:        %a_left_1 = pypto.tile.move %a_mat_1 : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, left>
// CHECK-NEXT:        %b_right_1 = pypto.tile.move %b_mat_1 : !pypto.tile<[128, 64], f16, mat> -> !pypto.tile<[128, 64], f16, right>
// CHECK-NEXT:        %part_3 = pypto.tile.matmul_acc %part_2, %a_left_1, %b_right_1 : !pypto.tile<[128, 64], f32, acc>, !pypto.tile<[128, 128], f16, left>, !pypto.tile<[128, 64], f16, right>
// CHECK-NEXT:        scf.yield %part_3 : !pypto.tile<[128, 64], f32, acc>
// CHECK-NEXT:      }
// CHECK-NEXT:      %acc_valid = pypto.tile.set_validshape %acc_3, %tail_rows, %c64 : !pypto.tile<[128, 64], f32, acc>, index, index
// CHECK-NEXT:      %c_5 = pypto.tile.store %acc_valid, %c_1[%full_rows, %c0] : !pypto.tile<[128, 64], f32, acc>, !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:      scf.yield %c_5 : !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %c_1 : !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %c_4 : !pypto.tensor<[M, 64], f32>
// CHECK-NEXT:  }

// -----

// A copy of a dynamic window into a larger static tensor: the block fits the destination
// (at most 64 rows) and the rows past N are not touched.

pypto.func incore @copy(%a: !pypto.tensor<[N, 32], f32>, inout %o: !pypto.tensor<[64, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.assemble %a into %o[%c0, %c0] : !pypto.tensor<[N, 32], f32> into !pypto.tensor<[64, 32], f32>
  pypto.return %w : !pypto.tensor<[64, 32], f32>
}

// CHECK-LABEL: pypto.func incore @copy(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 32], f32>
// CHECK-NEXT:    %has_rows = arith.cmpi sgt, %N, %c0 : index
// CHECK-NEXT:    %c32 = arith.constant 32 : index
// CHECK-NEXT:    %o_1 = scf.if %has_rows -> (!pypto.tensor<[64, 32], f32>) {
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%c0, %c0] valid[%N, %c32] : !pypto.tensor<[N, 32], f32> -> !pypto.tile<[64, 32], f32, vec>
// CHECK-NEXT:      %a_valid = pypto.tile.set_validshape %a_tile, %N, %c32 : !pypto.tile<[64, 32], f32, vec>, index, index
// CHECK-NEXT:      %o_2 = pypto.tile.store %a_valid, %o[%c0, %c0] : !pypto.tile<[64, 32], f32, vec>, !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:      scf.yield %o_2 : !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %o : !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_1 : !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:  }
