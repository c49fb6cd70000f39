// RUN: pypto-opt %s -t ascendc | filecheck %s
// relu(A @ B) in one cube kernel: the relu of the accumulator is no instruction, the Fixpipe
// that stores it rectifies on the way out of L0C (FixpipeParamsV220::reluEn).

pypto.func aic @matmul_relu(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 48], f16>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[64, 48], f16> -> !pypto.tile<[64, 48], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[64, 48], f16, mat> -> !pypto.tile<[64, 48], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
  %r = pypto.tile.relu %acc : !pypto.tile<[32, 48], f32, acc>
  %w = pypto.tile.store %r, %c[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %w : !pypto.tensor<[32, 48], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 48], f16>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %r = pypto.call @matmul_relu(%a, %b, %c) : (!pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 48], f16>, !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32>
  pypto.return %r : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: // ===== file: kernels/matmul_relu.cpp =====
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CHECK-NOT: Relu(
// CHECK: Mmad(acc, al, br, acc_mmad);
// CHECK-NOT: Relu(
// CHECK: FixpipeParamsV220 acc_fixpipe;
// CHECK-NEXT: acc_fixpipe.nSize = 48;
// CHECK-NEXT: acc_fixpipe.mSize = 32;
// CHECK-NEXT: acc_fixpipe.srcStride = 32;
// CHECK-NEXT: acc_fixpipe.dstStride = 48;
// CHECK-NEXT: acc_fixpipe.reluEn = true;
// CHECK-NEXT: acc_fixpipe.ndNum = 1;
// CHECK-NEXT: Fixpipe(c_gm, acc, acc_fixpipe);
// CHECK-NEXT: qCO1_acc.FreeTensor(acc);

