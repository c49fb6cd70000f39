// RUN: pypto-opt %s -t ascendc | filecheck %s
// Cube path with f32 operands (dav-c220 Mmad takes float x float into a float L0C):
// C[32, 48] = A[32, 64] @ B[64, 48], K in two 32-wide steps. The left operand takes the f16 route
// with 16 x 8 fractals (C0 = 8 floats); both operands are plain NZ copies in L1 (one ND matrix,
// column blocks of 8 floats) and each reaches L0A/L0B in one LoadData with
// LoadData3DParamsV2<float>, which transposes into L0B (the 16 x 8 Zn fractals of B).

pypto.func aic @matmul_f32(%a: !pypto.tensor<[32, 64], f32>, %b: !pypto.tensor<[64, 48], f32>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %a0m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[32, 32], f32, mat>
  %b0m = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[64, 48], f32> -> !pypto.tile<[32, 48], f32, mat>
  %a0 = pypto.tile.move %a0m : !pypto.tile<[32, 32], f32, mat> -> !pypto.tile<[32, 32], f32, left>
  %b0 = pypto.tile.move %b0m : !pypto.tile<[32, 48], f32, mat> -> !pypto.tile<[32, 48], f32, right>
  %acc0 = pypto.tile.matmul %a0, %b0 : !pypto.tile<[32, 32], f32, left>, !pypto.tile<[32, 48], f32, right> -> !pypto.tile<[32, 48], f32, acc>
  %am = pypto.tile.load %a[%c0, %c32] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[32, 32], f32, mat>
  %bm = pypto.tile.load %b[%c32, %c0] : !pypto.tensor<[64, 48], f32> -> !pypto.tile<[32, 48], f32, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 32], f32, mat> -> !pypto.tile<[32, 32], f32, left>
  %br = pypto.tile.move %bm : !pypto.tile<[32, 48], f32, mat> -> !pypto.tile<[32, 48], f32, right>
  %acc = pypto.tile.matmul_acc %acc0, %al, %br : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], f32, left>, !pypto.tile<[32, 48], f32, right>
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %w : !pypto.tensor<[32, 48], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[32, 64], f32>, %b: !pypto.tensor<[64, 48], f32>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %r = pypto.call @matmul_f32(%a, %b, %c) : (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[64, 48], f32>, !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32>
  pypto.return %r : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: // ===== file: kernels/matmul_f32.cpp =====
// CHECK: extern "C" __global__ __aicore__ void matmul_f32(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// The left operand: one ND matrix, C0 = 8 floats per fractal row.
// CHECK: Nd2NzParams a0m_nd2nz;
// CHECK-NEXT: a0m_nd2nz.ndNum = 1;
// CHECK-NEXT: a0m_nd2nz.nValue = 32;
// CHECK-NEXT: a0m_nd2nz.dValue = 32;
// CHECK-NEXT: a0m_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: a0m_nd2nz.srcDValue = 64;
// CHECK-NEXT: a0m_nd2nz.dstNzC0Stride = 32;
// The right operand: one ND matrix too (no 16-row bands: the 3D load transposes it).
// CHECK: Nd2NzParams b0m_nd2nz;
// CHECK-NEXT: b0m_nd2nz.ndNum = 1;
// CHECK-NEXT: b0m_nd2nz.nValue = 32;
// CHECK-NEXT: b0m_nd2nz.dValue = 48;
// CHECK-NEXT: b0m_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: b0m_nd2nz.srcDValue = 48;
// CHECK-NEXT: b0m_nd2nz.dstNzC0Stride = 32;
// CHECK-NEXT: b0m_nd2nz.dstNzNStride = 1;
// CHECK-NEXT: b0m_nd2nz.dstNzMatrixStride = 0;
// CHECK-NEXT: DataCopy(b0m, b_gm, b0m_nd2nz);
// L0A: the [32, 32] tile as one feature map of 32 positions by 32 channels.
// CHECK: LoadData3DParamsV2<float> a0_load;
// CHECK-NEXT: a0_load.l1H = 1;
// CHECK-NEXT: a0_load.l1W = 32;
// CHECK-NEXT: a0_load.channelSize = 32;
// CHECK-NEXT: a0_load.kExtension = 32;
// CHECK-NEXT: a0_load.mExtension = 32;
// CHECK-NEXT: LoadData(a0, a0m, a0_load);
// L0B: K = 32 positions by N = 48 channels, transposed by the load.
// CHECK: LoadData3DParamsV2<float> b0_load;
// CHECK-NEXT: b0_load.l1H = 1;
// CHECK-NEXT: b0_load.l1W = 32;
// CHECK-NEXT: b0_load.channelSize = 48;
// CHECK-NEXT: b0_load.kExtension = 48;
// CHECK-NEXT: b0_load.mExtension = 32;
// CHECK-NEXT: b0_load.enTranspose = true;
// CHECK-NEXT: LoadData(b0, b0m, b0_load);
// CHECK-NOT: LoadDataWithTranspose
// CHECK: acc0_mmad.cmatrixInitVal = true;
// CHECK-NEXT: Mmad(acc0, a0, b0, acc0_mmad);
// CHECK-NOT: ifTranspose = true
// CHECK: acc0_mmad_1.cmatrixInitVal = false;
// CHECK-NEXT: Mmad(acc0, al, br, acc0_mmad_1);
// CHECK: Fixpipe(c_gm, acc0, acc0_fixpipe);
