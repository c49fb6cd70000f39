// RUN: pypto-opt %s -t ascendc | filecheck %s
// The A panel stays in L1 (the tile form convert-tensor-to-tile gives): C[32, 256] = A[32, 256] @ B[256, 256] has two 128-column N blocks,
// so A's rows go into one A1 tensor allocated before the N loop, copied chunk by chunk in the
// first N block: K step k's columns just before B's tile k (not the whole panel ahead of
// it), each followed by SetFlag/WaitFlag<MTE2_MTE1> instead of a queue hand-off, and each K
// step's LoadData into L0A (one, LoadData3DParamsV2) reads its window in place: column k of the
// NZ panel starts k * 32 elements in (32 rows x C0 per column block), and the window's 128
// columns are the feature map's channels. B is copied per K step. One K loop: the
// accumulator is allocated before it, not filled, and the Mmad initialises L0C on the first
// step (cmatrixInitVal = (k == 0), a run-time field of the MmadParams).

pypto.func incore @k(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 256], f16>, out %o: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %c0 = arith.constant 0 : index
  %a_panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 256], f16> -> !pypto.tile<[32, 256], f16, mat>
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %o_1 = scf.for %n = %c0 to %c256 step %c128 iter_args(%o_2 = %o) -> (!pypto.tensor<[32, 256], f32>) {
    %0 = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %0 : f32 -> !pypto.tile<[32, 128], f32, acc>
    %acc_1 = scf.for %k = %c0 to %c256 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %a_mat = pypto.tile.slice %a_panel[%c0, %k] : !pypto.tile<[32, 256], f16, mat> -> !pypto.tile<[32, 128], f16, mat>
      %b_mat = pypto.tile.load %b[%k, %n] : !pypto.tensor<[256, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
      %a_left = pypto.tile.move %a_mat : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, left>
      %b_right = pypto.tile.move %b_mat : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
      %part_1 = pypto.tile.matmul_acc %part, %a_left, %b_right : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
      scf.yield %part_1 : !pypto.tile<[32, 128], f32, acc>
    }
    %o_3 = pypto.tile.store %acc_1, %o_2[%c0, %n] : !pypto.tile<[32, 128], f32, acc>, !pypto.tensor<[32, 256], f32>
    scf.yield %o_3 : !pypto.tensor<[32, 256], f32>
  }
  pypto.return %o_1 : !pypto.tensor<[32, 256], f32>
}
// A single K step (K = Kb): the window is not a K loop's, so the panel is one copy before
// the N loop, handed to MTE1 through its queue.
pypto.func incore @one_step(%a: !pypto.tensor<[32, 128], f16>, %b: !pypto.tensor<[128, 256], f16>, out %o: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %c0 = arith.constant 0 : index
  %a_panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 128], f16> -> !pypto.tile<[32, 128], f16, mat>
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %o_1 = scf.for %n = %c0 to %c256 step %c128 iter_args(%o_2 = %o) -> (!pypto.tensor<[32, 256], f32>) {
    %a_mat = pypto.tile.slice %a_panel[%c0, %c0] : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, mat>
    %b_mat = pypto.tile.load %b[%c0, %n] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
    %a_left = pypto.tile.move %a_mat : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, left>
    %b_right = pypto.tile.move %b_mat : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
    %acc = pypto.tile.matmul %a_left, %b_right : !pypto.tile<[32, 128], f16, left>, !pypto.tile<[128, 128], f16, right> -> !pypto.tile<[32, 128], f32, acc>
    %o_3 = pypto.tile.store %acc, %o_2[%c0, %n] : !pypto.tile<[32, 128], f32, acc>, !pypto.tensor<[32, 256], f32>
    scf.yield %o_3 : !pypto.tensor<[32, 256], f32>
  }
  pypto.return %o_1 : !pypto.tensor<[32, 256], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 256], f16>, out %o: !pypto.tensor<[32, 256], f32>,
                               %a2: !pypto.tensor<[32, 128], f16>, %b2: !pypto.tensor<[128, 256], f16>, out %o2: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %r = pypto.call @k(%a, %b, %o) : (!pypto.tensor<[32, 256], f16>, !pypto.tensor<[256, 256], f16>, !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32>
  %r2 = pypto.call @one_step(%a2, %b2, %o2) : (!pypto.tensor<[32, 128], f16>, !pypto.tensor<[128, 256], f16>, !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32>
  pypto.return %r : !pypto.tensor<[32, 256], f32>
}

// CHECK-LABEL: // ===== file: kernels/k.cpp =====
// CHECK: TQue<TPosition::A1, 1> qA1_a_panel;  // %a_panel !pypto.tile<[32, 256], f16, mat>
// CHECK-NOT: TPosition::A1
// CHECK: LocalTensor<half> a_panel = qA1_a_panel.AllocTensor<half>();
// CHECK-NEXT: for (int64_t n = 0; n < 256; n += 128) {
// CHECK-NEXT: LocalTensor<float> acc = qCO1_acc.AllocTensor<float>();
// CHECK-NEXT: for (int64_t k_1 = 0; k_1 < 256; k_1 += 128) {
// CHECK-NEXT: const bool a_panel_first = n == 0;
// CHECK-NEXT: if (a_panel_first) {
// CHECK: a_panel_chunk_nd2nz.nValue = 32;
// CHECK-NEXT: a_panel_chunk_nd2nz.dValue = 128;
// CHECK-NEXT: a_panel_chunk_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: a_panel_chunk_nd2nz.srcDValue = 256;
// CHECK-NEXT: a_panel_chunk_nd2nz.dstNzC0Stride = 32;
// CHECK: DataCopy(a_panel[k_1 * 32], a_gm[k_1], a_panel_chunk_nd2nz);
// CHECK-NEXT: TEventID event_mte2_mte1 = pipe.FetchEventID<HardEvent::MTE2_MTE1>();
// CHECK-NEXT: SetFlag<HardEvent::MTE2_MTE1>(event_mte2_mte1);
// CHECK-NEXT: WaitFlag<HardEvent::MTE2_MTE1>(event_mte2_mte1);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<half> b_mat = qB1_b_mat.AllocTensor<half>();
// CHECK-NOT: qA1_a_panel.EnQue
// CHECK: DataCopy(b_mat, b_gm[k_1 * 256 + n], b_mat_nd2nz);
// CHECK-NOT: qA1_a_panel.EnQue
// CHECK: LoadData3DParamsV2<half> a_left_load;
// CHECK-NEXT: a_left_load.l1H = 1;
// CHECK-NEXT: a_left_load.l1W = 32;
// CHECK-NEXT: a_left_load.channelSize = 128;
// CHECK-NEXT: a_left_load.kExtension = 128;
// CHECK-NEXT: a_left_load.mExtension = 32;
// CHECK-NEXT: LoadData(a_left, a_panel[k_1 * 32], a_left_load);
// CHECK: const bool first_k = k_1 == 0;
// CHECK: MmadParams acc_mmad;
// CHECK-NEXT: acc_mmad.m = 32;
// CHECK-NEXT: acc_mmad.n = 128;
// CHECK-NEXT: acc_mmad.k = 128;
// CHECK-NEXT: acc_mmad.cmatrixInitVal = first_k;
// CHECK-NEXT: Mmad(acc, a_left, b_right, acc_mmad);
// CHECK: }
// CHECK-NEXT: qCO1_acc.EnQue(acc);
// CHECK: Fixpipe(o_gm[n], acc, acc_fixpipe);
// CHECK-NEXT: qCO1_acc.FreeTensor(acc);
// CHECK-NEXT: }
// CHECK-NEXT: qA1_a_panel.FreeTensor(a_panel);

// CHECK-LABEL: // ===== file: kernels/one_step.cpp =====
// CHECK: LocalTensor<half> a_panel = qA1_a_panel.AllocTensor<half>();
// CHECK: DataCopy(a_panel, a_gm, a_panel_nd2nz);
// CHECK-NEXT: qA1_a_panel.EnQue(a_panel);
// CHECK: for (int64_t n = 0; n < 256; n += 128) {
// CHECK-NOT: MTE2_MTE1
// CHECK: qA1_a_panel.FreeTensor(a_panel);
