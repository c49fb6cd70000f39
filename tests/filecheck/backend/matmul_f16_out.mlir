// RUN: pypto-opt %s -t ascendc | filecheck %s
// An f16 product in one cube kernel: the accumulator stays f32 in L0C; its conversion to f16
// (tile.cast of the acc tile) is no instruction, the Fixpipe that stores it converts on the way
// out of L0C (FixpipeParamsV220::quantPre = QuantMode_t::F322F16, CAST_RINT), into a half GM tensor.

pypto.func aic @matmul_f16(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 48], f16>, out %c: !pypto.tensor<[32, 48], f16>) -> !pypto.tensor<[32, 48], f16> {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[64, 48], f16> -> !pypto.tile<[64, 48], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[64, 48], f16, mat> -> !pypto.tile<[64, 48], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
  %h = pypto.tile.cast %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f16, acc>
  %r = pypto.tile.relu %h : !pypto.tile<[32, 48], f16, acc>
  %w = pypto.tile.store %r, %c[%c0, %c0] : !pypto.tile<[32, 48], f16, acc>, !pypto.tensor<[32, 48], f16>
  pypto.return %w : !pypto.tensor<[32, 48], f16>
}
pypto.func orchestration @main(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 48], f16>, out %c: !pypto.tensor<[32, 48], f16>) -> !pypto.tensor<[32, 48], f16> {
  %r = pypto.call @matmul_f16(%a, %b, %c) : (!pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 48], f16>, !pypto.tensor<[32, 48], f16>) -> !pypto.tensor<[32, 48], f16>
  pypto.return %r : !pypto.tensor<[32, 48], f16>
}

// CHECK-LABEL: // ===== file: kernels/matmul_f16.cpp =====
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CHECK: GlobalTensor<half> c_gm;
// CHECK: pipe.InitBuffer(qCO1_acc, 1, 6144);
// CHECK-NOT: Cast(
// CHECK: Mmad(acc, al, br, acc_mmad);
// CHECK-NOT: Cast(
// CHECK: FixpipeParamsV220 acc_fixpipe;
// CHECK-NEXT: acc_fixpipe.nSize = 48;
// CHECK-NEXT: acc_fixpipe.mSize = 32;
// CHECK-NEXT: acc_fixpipe.srcStride = 32;
// CHECK-NEXT: acc_fixpipe.dstStride = 48;
// CHECK-NEXT: acc_fixpipe.quantPre = QuantMode_t::F322F16;
// CHECK-NEXT: acc_fixpipe.reluEn = true;
// CHECK-NEXT: acc_fixpipe.ndNum = 1;
// CHECK-NEXT: Fixpipe(c_gm, acc, acc_fixpipe);
// CHECK-NEXT: qCO1_acc.FreeTensor(acc);
