// RUN: pypto-opt %s -t ascendc | filecheck %s
// S = Q Kᵀ with the key block loaded once into L1 and read transposed (`tile.transpose_view`
// of the mat tile, as examples/mixed/flash_attention.py writes it). K [32, 64] is copied
// into L1 as NZ fractals (column blocks of 16, 32 rows each); those are already the L0B
// ("Zn") fractals of Kᵀ [64, 32], in order, so the L1 -> L0B LoadData runs without
// ifTranspose, one row of 2 fractals (srcStride 1) per call, 4 calls: no data is transposed.
// The 3D load (LoadData3DParamsV2), which Q takes and a right operand loaded as [K, N]
// takes (matmul.mlir), always transposes into L0B, so Kᵀ keeps the 2D one.

builtin.module {
  pypto.func aic @qk(%q: !pypto.tensor<[16, 64], f16>, %k: !pypto.tensor<[32, 64], f16>, out %s: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
    %c0 = arith.constant 0 : index
    %qm = pypto.tile.load %q[%c0, %c0] : !pypto.tensor<[16, 64], f16> -> !pypto.tile<[16, 64], f16, mat>
    %km = pypto.tile.load %k[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
    %kt = pypto.tile.transpose_view %km : !pypto.tile<[32, 64], f16, mat>
    %ql = pypto.tile.move %qm : !pypto.tile<[16, 64], f16, mat> -> !pypto.tile<[16, 64], f16, left>
    %kr = pypto.tile.move %kt : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, right>
    %acc = pypto.tile.matmul %ql, %kr : !pypto.tile<[16, 64], f16, left>, !pypto.tile<[64, 32], f16, right>
    %r = pypto.tile.store %acc, %s[%c0, %c0] : !pypto.tile<[16, 32], f32, acc>, !pypto.tensor<[16, 32], f32>
    pypto.return %r : !pypto.tensor<[16, 32], f32>
  }
}

// CHECK:      TQue<TPosition::B1, 1> qB1_km;  // %km !pypto.tile<[32, 64], f16, mat>
// CHECK-NOT:  %kt
// CHECK:      km_nd2nz.nValue = 32;
// CHECK-NEXT: km_nd2nz.dValue = 64;
// CHECK:      DataCopy(km, k_gm, km_nd2nz);
// CHECK:      LoadData3DParamsV2<half> ql_load;
// CHECK:      LoadData(ql, qm, ql_load);
// CHECK:      LoadData2DParams kr_load;
// CHECK-NEXT: kr_load.repeatTimes = 2;
// CHECK-NEXT: kr_load.srcStride = 1;
// CHECK-NEXT: kr_load.ifTranspose = false;
// CHECK-NEXT: for (int32_t blk = 0; blk < 4; ++blk) {
// CHECK-NEXT:   LoadData(kr[blk * 512], km[blk * 512], kr_load);
// CHECK:      Mmad(acc, ql, kr, acc_mmad);
