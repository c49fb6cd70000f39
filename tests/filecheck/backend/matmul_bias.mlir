// RUN: pypto-opt %s -t ascendc | filecheck %s
// A @ B + bias with the [1, N] bias row in the bias table: GM -> L1 (C1) -> bias table (C2);
// the 5-argument Mmad starts its product from the row (cmatrixInitVal = false: the bias
// table, not zero, is the initial matrix). @linear (f16) also folds a relu into the
// Fixpipe's reluEn; @linear_bf16 takes bf16 operands. One program: one simulation build.

pypto.func aic @linear(%x: !pypto.tensor<[32, 64], f16>, %w: !pypto.tensor<[64, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %xm = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %wm = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[64, 48], f16> -> !pypto.tile<[64, 48], f16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, mat>
  %xl = pypto.tile.move %xm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
  %wr = pypto.tile.move %wm : !pypto.tile<[64, 48], f16, mat> -> !pypto.tile<[64, 48], f16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
  %acc = pypto.tile.matmul_bias %xl, %wr, %bt : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 48], f16, right>, !pypto.tile<[1, 48], f32, bias>
  %r = pypto.tile.relu %acc : !pypto.tile<[32, 48], f32, acc>
  %s = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %s : !pypto.tensor<[32, 48], f32>
}
pypto.func aic @linear_bf16(%x: !pypto.tensor<[32, 64], bf16>, %w: !pypto.tensor<[64, 48], bf16>, %bias: !pypto.tensor<[1, 48], f32>, out %z: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %xm = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 64], bf16> -> !pypto.tile<[32, 64], bf16, mat>
  %wm = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[64, 48], bf16> -> !pypto.tile<[64, 48], bf16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, mat>
  %xl = pypto.tile.move %xm : !pypto.tile<[32, 64], bf16, mat> -> !pypto.tile<[32, 64], bf16, left>
  %wr = pypto.tile.move %wm : !pypto.tile<[64, 48], bf16, mat> -> !pypto.tile<[64, 48], bf16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
  %acc = pypto.tile.matmul_bias %xl, %wr, %bt : !pypto.tile<[32, 64], bf16, left>, !pypto.tile<[64, 48], bf16, right>, !pypto.tile<[1, 48], f32, bias>
  %s = pypto.tile.store %acc, %z[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %s : !pypto.tensor<[32, 48], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[32, 64], f16>, %w: !pypto.tensor<[64, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, %xb: !pypto.tensor<[32, 64], bf16>, %wb: !pypto.tensor<[64, 48], bf16>, out %y: !pypto.tensor<[32, 48], f32>, out %z: !pypto.tensor<[32, 48], f32>) -> (!pypto.tensor<[32, 48], f32>, !pypto.tensor<[32, 48], f32>) {
  %r = pypto.call @linear(%x, %w, %bias, %y) : (!pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 48], f16>, !pypto.tensor<[1, 48], f32>, !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32>
  %q = pypto.call @linear_bf16(%xb, %wb, %bias, %z) : (!pypto.tensor<[32, 64], bf16>, !pypto.tensor<[64, 48], bf16>, !pypto.tensor<[1, 48], f32>, !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32>
  pypto.return %r, %q : !pypto.tensor<[32, 48], f32>, !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: // ===== file: kernels/linear.cpp =====
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CHECK: TQue<TPosition::C1, 1> qC1_bm;  // %bm !pypto.tile<[1, 48], f32, mat>
// CHECK: TQue<TPosition::C2, 1> qC2_bt;  // %bt !pypto.tile<[1, 48], f32, bias>
// CHECK: pipe.InitBuffer(qC1_bm, 1, 192);
// CHECK: pipe.InitBuffer(qC2_bt, 1, 192);
// CHECK: LocalTensor<float> bm = qC1_bm.AllocTensor<float>();
// CHECK-NEXT: DataCopy(bm, bias_gm, 48);
// CHECK-NEXT: qC1_bm.EnQue(bm);
// CHECK: LocalTensor<float> bt = qC2_bt.AllocTensor<float>();
// CHECK-NEXT: bm = qC1_bm.DeQue<float>();
// CHECK-NEXT: DataCopy(bt, bm, 48);
// CHECK-NEXT: qC2_bt.EnQue(bt);
// CHECK-NEXT: qC1_bm.FreeTensor(bm);
// CHECK: bt = qC2_bt.DeQue<float>();
// CHECK: acc_mmad.cmatrixInitVal = false;
// CHECK-NEXT: Mmad(acc, xl, wr, bt, acc_mmad);
// CHECK: qC2_bt.FreeTensor(bt);
// CHECK-NOT: Relu(
// CHECK: acc_fixpipe.reluEn = true;
// CHECK: Fixpipe(y_gm, acc, acc_fixpipe);
// CHECK-LABEL: // ===== file: kernels/linear_bf16.cpp =====
// CHECK: LocalTensor<bfloat16_t> xl
// CHECK: Mmad(acc, xl, wr, bt, acc_mmad);
// CHECK-NOT: reluEn
// CHECK: Fixpipe(z_gm, acc, acc_fixpipe);
