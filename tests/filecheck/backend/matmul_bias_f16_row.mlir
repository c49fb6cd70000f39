// RUN: pypto-opt %s -t ascendc | filecheck %s
// An f16 bias row: GM -> L1 (C1) as half, then L1 -> bias table (C2) converting to float with
// the devkit's DataCopy<float, half> (DataCopyParams: blockLen in 64-byte blocks of the half
// source, 64 halves = 2 blocks); the L1 buffer holds 128 bytes, the bias table 256.

pypto.func aic @linear(%x: !pypto.tensor<[32, 64], f16>, %w: !pypto.tensor<[64, 64], f16>, %bias: !pypto.tensor<[1, 64], f16>, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %xm = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %wm = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
  %bm = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f16> -> !pypto.tile<[1, 64], f16, mat>
  %xl = pypto.tile.move %xm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
  %wr = pypto.tile.move %wm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
  %bt = pypto.tile.move %bm : !pypto.tile<[1, 64], f16, mat> -> !pypto.tile<[1, 64], f32, bias>
  %acc = pypto.tile.matmul_bias %xl, %wr, %bt : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 64], f16, right>, !pypto.tile<[1, 64], f32, bias>
  %s = pypto.tile.store %acc, %y[%c0, %c0] : !pypto.tile<[32, 64], f32, acc>, !pypto.tensor<[32, 64], f32>
  pypto.return %s : !pypto.tensor<[32, 64], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[32, 64], f16>, %w: !pypto.tensor<[64, 64], f16>, %bias: !pypto.tensor<[1, 64], f16>, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %r = pypto.call @linear(%x, %w, %bias, %y) : (!pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[1, 64], f16>, !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32>
  pypto.return %r : !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/linear.cpp =====
// CHECK: TQue<TPosition::C1, 1> qC1_bm;  // %bm !pypto.tile<[1, 64], f16, mat>
// CHECK: TQue<TPosition::C2, 1> qC2_bt;  // %bt !pypto.tile<[1, 64], f32, bias>
// CHECK: pipe.InitBuffer(qC1_bm, 1, 128);
// CHECK: pipe.InitBuffer(qC2_bt, 1, 256);
// CHECK: LocalTensor<half> bm = qC1_bm.AllocTensor<half>();
// CHECK-NEXT: DataCopy(bm, bias_gm, 64);
// CHECK: LocalTensor<float> bt = qC2_bt.AllocTensor<float>();
// CHECK-NEXT: bm = qC1_bm.DeQue<half>();
// CHECK-NEXT: DataCopy(bt, bm, DataCopyParams(1, 2, 0, 0));
// CHECK-NEXT: qC2_bt.EnQue(bt);
// CHECK: Mmad(acc, xl, wr, bt, acc_mmad);
