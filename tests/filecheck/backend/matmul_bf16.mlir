// RUN: pypto-opt %s -t ascendc | filecheck %s
// Cube path with bf16 operands (dav-c220 Mmad takes bfloat16_t x bfloat16_t into a float L0C):
// the f16 route (16 x 16 fractals, one LoadData with LoadData3DParamsV2<bfloat16_t> per operand)
// on bfloat16_t tensors.

pypto.func aic @matmul_bf16(%a: !pypto.tensor<[32, 64], bf16>, %b: !pypto.tensor<[64, 48], bf16>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %a0m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], bf16> -> !pypto.tile<[32, 32], bf16, mat>
  %b0m = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[64, 48], bf16> -> !pypto.tile<[32, 48], bf16, mat>
  %a0 = pypto.tile.move %a0m : !pypto.tile<[32, 32], bf16, mat> -> !pypto.tile<[32, 32], bf16, left>
  %b0 = pypto.tile.move %b0m : !pypto.tile<[32, 48], bf16, mat> -> !pypto.tile<[32, 48], bf16, right>
  %acc0 = pypto.tile.matmul %a0, %b0 : !pypto.tile<[32, 32], bf16, left>, !pypto.tile<[32, 48], bf16, right> -> !pypto.tile<[32, 48], f32, acc>
  %am = pypto.tile.load %a[%c0, %c32] : !pypto.tensor<[32, 64], bf16> -> !pypto.tile<[32, 32], bf16, mat>
  %bm = pypto.tile.load %b[%c32, %c0] : !pypto.tensor<[64, 48], bf16> -> !pypto.tile<[32, 48], bf16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 32], bf16, mat> -> !pypto.tile<[32, 32], bf16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[32, 48], bf16, mat> -> !pypto.tile<[32, 48], bf16, right>
  %acc = pypto.tile.matmul_acc %acc0, %al, %br : !pypto.tile<[32, 48], f32, acc>, !pypto.tile<[32, 32], bf16, left>, !pypto.tile<[32, 48], bf16, right>
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>, !pypto.tensor<[32, 48], f32>
  pypto.return %w : !pypto.tensor<[32, 48], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[32, 64], bf16>, %b: !pypto.tensor<[64, 48], bf16>, out %c: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %r = pypto.call @matmul_bf16(%a, %b, %c) : (!pypto.tensor<[32, 64], bf16>, !pypto.tensor<[64, 48], bf16>, !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32>
  pypto.return %r : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: // ===== file: kernels/matmul_bf16.cpp =====
// CHECK:      GlobalTensor<bfloat16_t> a_gm;
// CHECK:      LocalTensor<bfloat16_t> b0m = qB1_b0m.AllocTensor<bfloat16_t>();
// CHECK:      b0m_nd2nz.ndNum = 1;
// CHECK:      LoadData3DParamsV2<bfloat16_t> a0_load;
// CHECK:      LoadData(a0, a0m, a0_load);
// CHECK:      LoadData3DParamsV2<bfloat16_t> b0_load;
// CHECK:      b0_load.enTranspose = true;
// CHECK-NEXT: LoadData(b0, b0m, b0_load);
// CHECK-NOT:  LoadDataWithTranspose
// CHECK:      Mmad(acc0, a0, b0, acc0_mmad);
// CHECK:      Mmad(acc0, al, br, acc0_mmad_1);
// CHECK:      Fixpipe(c_gm, acc0, acc0_fixpipe);
