// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// The A panel stays in L1: C[32, 256] = A[32, 256] @ B[256, 256] has two 128-column N blocks,
// so A's rows are one Nd2Nz copy into an A1 tensor before the N loop, and each K step's
// LoadData into L0A reads its window in place: column k of the NZ panel starts k * 32
// elements in (32 rows x C0 per column block). B is copied per K step. One K loop: the
// accumulator is allocated before it, not filled, and the Mmad initialises L0C on the first
// step (cmatrixInitVal = (k == 0), a run-time field of the MmadParams).

pypto.func incore @k(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 256], f16>, out %o: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 256], f16>, !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[32, 256], f32>
  %w = pypto.tensor.assemble %p into %o[%c0, %c0] : !pypto.tensor<[32, 256], f32> into !pypto.tensor<[32, 256], f32>
  pypto.return %w : !pypto.tensor<[32, 256], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 256], f16>, out %o: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %r = pypto.call @k(%a, %b, %o) : (!pypto.tensor<[32, 256], f16>, !pypto.tensor<[256, 256], f16>, !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32>
  pypto.return %r : !pypto.tensor<[32, 256], f32>
}

// CHECK-LABEL: // ===== file: kernels/k.cpp =====
// CHECK: TQue<TPosition::A1, 1> qA1_a_panel;  // %a_panel !pypto.tile<[32, 256], f16, mat>
// CHECK-NOT: TPosition::A1
// CHECK: LocalTensor<half> a_panel = qA1_a_panel.AllocTensor<half>();
// CHECK: a_panel_nd2nz.nValue = 32;
// CHECK-NEXT: a_panel_nd2nz.dValue = 256;
// CHECK: DataCopy(a_panel, a_gm, a_panel_nd2nz);
// CHECK-NEXT: qA1_a_panel.EnQue(a_panel);
// CHECK-NEXT: a_panel = qA1_a_panel.DeQue<half>();
// CHECK-NEXT: for (int64_t n = 0; n < 256; n += 128) {
// CHECK-NEXT: LocalTensor<float> acc = qCO1_acc.AllocTensor<float>();
// CHECK-NEXT: for (int64_t k_1 = 0; k_1 < 256; k_1 += 128) {
// CHECK-NOT: DataCopy({{.*}}, a_gm
// CHECK: LoadData(a_left[blk * 2048], a_panel[blk * 256 + k_1 * 32], a_left_load);
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
