// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s
// RUN: pypto-opt %s -p convert-pypto-to-ascendc --print-op-generic | pypto-opt | filecheck %s
// A run-time row count N, as convert-tensor-to-tile leaves it (a balanced split over the
// cores, a loop of full 38-row blocks, a partial tail). N becomes an `index` parameter of the
// kernel after its own (`arg_names` N); each GlobalTensor holds `%N * 128` elements; the
// tail's partial loads and its store (through set_validshape, which prints nothing) are
// data_copy_pad with the run-time blockCount %tail_rows, bounded by the tile's 38 rows. The
// host reads N from the first parameter that has it (`pypto.tensor.dim %a, 0`) and passes it.

pypto.func incore @k(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %c0 = arith.constant 0 : index
  %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 128], f32>
  %block_idx = pypto.tile.get_block_idx : index
  %block_num = pypto.tile.get_block_num : index
  %first_scaled = arith.muli %block_idx, %N : index
  %first_row = arith.divui %first_scaled, %block_num : index
  %c1 = arith.constant 1 : index
  %next_block = arith.addi %block_idx, %c1 : index
  %end_scaled = arith.muli %next_block, %N : index
  %end_row = arith.divui %end_scaled, %block_num : index
  %core_rows = arith.subi %end_row, %first_row : index
  %c38 = arith.constant 38 : index
  %full_blocks = arith.divui %core_rows, %c38 : index
  %full_rows = arith.muli %full_blocks, %c38 : index
  %full_end = arith.addi %first_row, %full_rows : index
  %o_1 = scf.for %row = %first_row to %full_end step %c38 iter_args(%o_2 = %o) -> (!pypto.tensor<[N, 128], f32>) {
    %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %b_tile = pypto.tile.load %b[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %x_tile = pypto.tile.mul %a_tile, %b_tile : !pypto.tile<[38, 128], f32, vec>
    %y_tile = pypto.tile.adds %x_tile, %s : !pypto.tile<[38, 128], f32, vec>, f32
    %e_tile = pypto.tile.exp %y_tile : !pypto.tile<[38, 128], f32, vec>
    %o_3 = pypto.tile.store %e_tile, %o_2[%row, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
    scf.yield %o_3 : !pypto.tensor<[N, 128], f32>
  }
  %tail_rows = arith.subi %end_row, %full_end : index
  %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
  %c128 = arith.constant 128 : index
  %o_4 = scf.if %has_tail -> (!pypto.tensor<[N, 128], f32>) {
    %a_tile_1 = pypto.tile.load %a[%full_end, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %b_tile_1 = pypto.tile.load %b[%full_end, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %x_tile_1 = pypto.tile.mul %a_tile_1, %b_tile_1 : !pypto.tile<[38, 128], f32, vec>
    %y_tile_1 = pypto.tile.adds %x_tile_1, %s : !pypto.tile<[38, 128], f32, vec>, f32
    %e_tile_1 = pypto.tile.exp %y_tile_1 : !pypto.tile<[38, 128], f32, vec>
    %e_valid = pypto.tile.set_validshape %e_tile_1, %tail_rows, %c128 : !pypto.tile<[38, 128], f32, vec>, index, index
    %o_5 = pypto.tile.store %e_valid, %o_1[%full_end, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
    scf.yield %o_5 : !pypto.tensor<[N, 128], f32>
  } else {
    scf.yield %o_1 : !pypto.tensor<[N, 128], f32>
  }
  pypto.return %o_4 : !pypto.tensor<[N, 128], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %r = pypto.call @k(%a, %b, %s, %o) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32, !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32>
  pypto.return %r : !pypto.tensor<[N, 128], f32>
}

// CHECK:      ascendc.kernel vector @k(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr, %s: f32, %o: !ascendc.gm_addr, %N: index) attributes {arg_names = ["a", "b", "s", "o", "N"], results = [#ascendc.result<param 3>]} {
// CHECK-NEXT:   %a_gm = ascendc.global_tensor "a_gm" %a, %N size 128 : !ascendc.gm_addr, index -> !ascendc.gm_tensor<f32>
// CHECK-NEXT:   %b_gm = ascendc.global_tensor "b_gm" %b, %N size 128 : !ascendc.gm_addr, index -> !ascendc.gm_tensor<f32>
// CHECK-NEXT:   %o_gm = ascendc.global_tensor "o_gm" %o, %N size 128 : !ascendc.gm_addr, index -> !ascendc.gm_tensor<f32>
// CHECK:        %first_scaled = arith.muli %block_idx, %N : index
// CHECK:        %end_scaled = arith.muli %next_block, %N : index
// CHECK:        scf.for %row = %first_row to %full_end step %c38 {
// CHECK:          ascendc.data_copy %a_tile, %{{.*}} count 4864
// CHECK-NOT:      data_copy_pad
// CHECK:          ascendc.data_copy %{{.*}}, %e_tile count 4864
// CHECK:        }
// CHECK:        %tail_rows = arith.subi %end_row, %full_end : index
// CHECK:        scf.if %has_tail {
// CHECK:          %[[A:.*]] = ascendc.at %a_gm[%full_end * 128]
// CHECK-NEXT:     ascendc.data_copy_pad %a_tile_1, %[[A]], %tail_rows ext(38, 512, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index
// CHECK:          ascendc.data_copy_pad %b_tile_1, %{{.*}}, %tail_rows ext(38, 512, 0, 0, 0) pad(false, 0, 0, 0)
// CHECK:          ascendc.exp %e_tile_1, %y_tile_1 count 4864
// CHECK-NOT:      set_validshape
// CHECK:          %[[O:.*]] = ascendc.at %o_gm[%full_end * 128]
// CHECK-NEXT:     ascendc.data_copy_pad %[[O]], %e_tile_1, %tail_rows ext(38, 512, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index
// CHECK:      pypto.func orchestration @main
// CHECK-NEXT:   %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:   %r = ascendc.launch @k blocks 4 (%a, %b, %s, %o, %N) : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32, !pypto.tensor<[N, 128], f32>, index) -> !pypto.tensor<[N, 128], f32>
