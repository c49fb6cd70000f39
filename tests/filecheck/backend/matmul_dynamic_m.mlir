// RUN: pypto-opt %s -p convert-tensor-to-tile | filecheck %s --check-prefix=TILE
// RUN: pypto-opt %s -p convert-tensor-to-tile -t ascendc | filecheck %s
// A run-time M on 4 cube cores: core b takes rows [b*M/4, (b+1)*M/4) (balanced, contiguous),
// loops over its full 128-row blocks, then computes a partial block of its remaining rows:
// the A copy's Nd2Nz `nValue` and the Fixpipe's `mSize` are that run-time tail (the other
// rows of the block compute product rows nobody stores). B, one [K, N] tile, is copied into L1
// once, before the M loop, and every block (the partial one too) moves it into L0B from there.
// tests/test_backend_dynamic.py runs
// one build at M = 0, 1, 17, 64, 1000, 1500 against the interpreter.

pypto.func incore @k(%a: !pypto.tensor<[M, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %c: !pypto.tensor<[M, 32], f32>) -> !pypto.tensor<[M, 32], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[M, 64], f16>, !pypto.tensor<[64, 32], f16> -> !pypto.tensor<[M, 32], f32>
  %w = pypto.tensor.assemble %p into %c[%c0, %c0] : !pypto.tensor<[M, 32], f32> into !pypto.tensor<[M, 32], f32>
  pypto.return %w : !pypto.tensor<[M, 32], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[M, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %c: !pypto.tensor<[M, 32], f32>) -> !pypto.tensor<[M, 32], f32> {
  %r = pypto.call @k(%a, %b, %c) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[M, 64], f16>, !pypto.tensor<[64, 32], f16>, !pypto.tensor<[M, 32], f32>) -> !pypto.tensor<[M, 32], f32>
  pypto.return %r : !pypto.tensor<[M, 32], f32>
}

// TILE-LABEL: pypto.func incore @k
// TILE:         %b_mat = pypto.tile.load %b[%{{.*}}, %{{.*}}] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
// TILE-NOT:     pypto.tile.load %b
// TILE:         %M = pypto.tensor.dim %a, 0
// TILE:         %block_idx = pypto.tile.get_block_idx : index
// TILE-NEXT:    %block_num = pypto.tile.get_block_num : index
// TILE-NEXT:    %first_scaled = arith.muli %block_idx, %M : index
// TILE-NEXT:    %first_row = arith.divui %first_scaled, %block_num : index
// TILE:         %end_row = arith.divui %end_scaled, %block_num : index
// TILE-NEXT:    %core_rows = arith.subi %end_row, %first_row : index
// TILE:         %full_blocks = arith.divui %core_rows, %{{.*}} : index
// TILE:         %full_end = arith.addi %first_row, %full_rows : index
// TILE-NEXT:    %{{.*}} = scf.for %m = %first_row to %full_end step %{{.*}} iter_args
// TILE-NOT:     pypto.tile.load %b
// TILE:         pypto.tile.move %b_mat
// TILE-NOT:     pypto.tile.load %b
// TILE:         %tail_rows = arith.subi %core_rows, %full_rows : index
// TILE:         scf.if %has_tail
// TILE:           pypto.tile.load %a[%full_end, %{{.*}}] valid[%tail_rows, %{{.*}}]
// TILE-NOT:       pypto.tile.load %b
// TILE:           pypto.tile.move %b_mat
// TILE:           pypto.tile.set_validshape %{{.*}}, %tail_rows, %{{.*}}

// CHECK-LABEL: void k(GM_ADDR a, GM_ADDR b, GM_ADDR c, int64_t M) {
// CHECK:         TQue<TPosition::CO1, 2> qCO1_acc;
// CHECK:         DataCopy(b_mat, b_gm, b_mat_nd2nz);
// CHECK:         const int64_t first_row = first_scaled / AscendC::GetBlockNum();
// CHECK-NOT:     DataCopy(b_mat
// CHECK:         for (int64_t m = first_row; m < full_end; m += 128) {
// CHECK:           a_mat_nd2nz.nValue = 128;
// CHECK:           acc_fixpipe.mSize = 128;
// CHECK:         if (has_tail) {
// CHECK:           a_mat_1_nd2nz.nValue = tail_rows;
// CHECK:           DataCopy(a_mat_1, a_gm[full_end * 64], a_mat_1_nd2nz);
// CHECK:           acc_1_mmad.m = 128;
// CHECK:           acc_1_fixpipe.mSize = tail_rows;
// CHECK:           Fixpipe(c_gm[full_end * 32], acc_1, acc_1_fixpipe);
