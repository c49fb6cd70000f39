// RUN: pypto-opt %s -p convert-tensor-to-tile -t ascendc | filecheck %s
// 128 x 128 output blocks dealt over 4 cube cores the way the 1024^3 benchmark deals them over
// 24: core i owns row block i % 2 and every second column block from i // 2. Its A rows are one
// L1 panel allocated before its column loop (the rows' view is loop-invariant and in bounds
// for every block id) and copied in K chunks during the loop's first iteration (j == j0),
// each K step's one LoadData (LoadData3DParamsV2) reads its window of that panel, and the two
// accumulators in L0C let one block's Fixpipe overlap the next block's Mmads.
// tests/test_convert_tensor_to_tile.py checks it against the interpreter before the pass.

pypto.func incore @strip(out %c: !pypto.tensor<[256, 512], f32>, %a: !pypto.tensor<[256, 256], f16>, %b: !pypto.tensor<[256, 512], f16>) -> !pypto.tensor<[256, 512], f32> {
  %i = pypto.tile.get_block_idx : index
  %c2 = arith.constant 2 : index
  %r = arith.remsi %i, %c2 : index
  %j0 = arith.floordivsi %i, %c2 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %j = %j0 to %c4 step %c2 iter_args(%cc = %c) -> (!pypto.tensor<[256, 512], f32>) {
    %c128 = arith.constant 128 : index
    %row = arith.muli %r, %c128 : index
    %c0 = arith.constant 0 : index
    %rows = pypto.tensor.slice %a[%row, %c0] : !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[128, 256], f16>
    %col = arith.muli %j, %c128 : index
    %cols = pypto.tensor.slice %b[%c0, %col] : !pypto.tensor<[256, 512], f16> -> !pypto.tensor<[256, 128], f16>
    %p = pypto.tensor.matmul %rows, %cols : !pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 128], f16> -> !pypto.tensor<[128, 128], f32>
    %w = pypto.tensor.assemble %p into %cc[%row, %col] : !pypto.tensor<[128, 128], f32> into !pypto.tensor<[256, 512], f32>
    scf.yield %w : !pypto.tensor<[256, 512], f32>
  }
  pypto.return %out : !pypto.tensor<[256, 512], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[256, 256], f16>, %b: !pypto.tensor<[256, 512], f16>, out %c: !pypto.tensor<[256, 512], f32>) -> !pypto.tensor<[256, 512], f32> {
  %r = pypto.call @strip(%c, %a, %b) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[256, 512], f32>, !pypto.tensor<[256, 256], f16>, !pypto.tensor<[256, 512], f16>) -> !pypto.tensor<[256, 512], f32>
  pypto.return %r : !pypto.tensor<[256, 512], f32>
}

// CHECK-LABEL: void strip(
// CHECK:         TQue<TPosition::A1, 1> qA1_rows_panel;
// CHECK:         TQue<TPosition::CO1, 2> qCO1_acc;
// CHECK:         pipe.InitBuffer(qA1_rows_panel, 1, 65536);
// CHECK:         pipe.InitBuffer(qCO1_acc, 2, 65536);
// CHECK:         LocalTensor<half> rows_panel = qA1_rows_panel.AllocTensor<half>();
// CHECK-NEXT:    for (int64_t j = j0; j < 4; j += 2) {
// CHECK-NOT:       DataCopy(rows_panel
// CHECK:           for (int64_t k = 0; k < 256; k += 128) {
// CHECK-NEXT:        const bool rows_panel_first = j == j0;
// CHECK-NEXT:        if (rows_panel_first) {
// CHECK:               rows_panel_chunk_nd2nz.dValue = 128;
// CHECK:               DataCopy(rows_panel[k * 128], a_gm[row * 256 + k], rows_panel_chunk_nd2nz);
// CHECK:               SetFlag<HardEvent::MTE2_MTE1>(
// CHECK-NEXT:          WaitFlag<HardEvent::MTE2_MTE1>(
// CHECK-NEXT:        }
// CHECK:             DataCopy(cols_mat, b_gm[
// CHECK:             LoadData3DParamsV2<half> rows_left_load;
// CHECK:             LoadData(rows_left, rows_panel[k * 128], rows_left_load);
// CHECK:             LoadData3DParamsV2<half> cols_right_load;
// CHECK:             LoadData(cols_right, cols_mat, cols_right_load);
// CHECK:           Fixpipe(c_gm[
// CHECK:         qA1_rows_panel.FreeTensor(rows_panel);
