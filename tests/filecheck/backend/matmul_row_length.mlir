// RUN: pypto-opt %s -t ascendc | filecheck %s
// Cube copies of GM tensors whose rows have a run-time length (paged attention's
// `[Q_HEADS, HEAD_DIM_DYN]` kernel parameters): the tiles are static, the rows they are cut
// from are a dimension symbol long. The Nd2Nz copy into L1 takes that symbol as its
// `srcDValue` (an f32 right operand too: one ND matrix, as every operand the LoadData 3D v2
// reads), the Fixpipe out of L0C as its `dstStride`, and a window's origin is
// `i * C + j`. tests/test_backend_cube_rows.py runs one build at two sets of extents against
// the interpreter.

// S[16, 32] = Q Kᵀ from bf16 rows of length D (the key block read transposed from L1)
pypto.func aic @qk(%q: !pypto.tensor<[16, D], bf16>, %k: !pypto.tensor<[B, D], bf16>, out %s: !pypto.tensor<[16, B], f32>) -> !pypto.tensor<[16, B], f32> {
  %c0 = arith.constant 0 : index
  %qm = pypto.tile.load %q[%c0, %c0] : !pypto.tensor<[16, D], bf16> -> !pypto.tile<[16, 64], bf16, mat>
  %km = pypto.tile.load %k[%c0, %c0] : !pypto.tensor<[B, D], bf16> -> !pypto.tile<[32, 64], bf16, mat>
  %kt = pypto.tile.transpose_view %km : !pypto.tile<[32, 64], bf16, mat>
  %ql = pypto.tile.move %qm : !pypto.tile<[16, 64], bf16, mat> -> !pypto.tile<[16, 64], bf16, left>
  %kr = pypto.tile.move %kt : !pypto.tile<[64, 32], bf16, mat> -> !pypto.tile<[64, 32], bf16, right>
  %acc = pypto.tile.matmul %ql, %kr : !pypto.tile<[16, 64], bf16, left>, !pypto.tile<[64, 32], bf16, right> -> !pypto.tile<[16, 32], f32, acc>
  %r = pypto.tile.store %acc, %s[%c0, %c0] : !pypto.tile<[16, 32], f32, acc>, !pypto.tensor<[16, B], f32>
  pypto.return %r : !pypto.tensor<[16, B], f32>
}

// C[:, 16:48] = A[:, :32] @ B[:, 16:48] in f32, from rows of lengths K and N
pypto.func aic @mm(%a: !pypto.tensor<[16, K], f32>, %b: !pypto.tensor<[32, N], f32>, out %c: !pypto.tensor<[16, N], f32>) -> !pypto.tensor<[16, N], f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, K], f32> -> !pypto.tile<[16, 32], f32, mat>
  %bm = pypto.tile.load %b[%c0, %c16] : !pypto.tensor<[32, N], f32> -> !pypto.tile<[32, 32], f32, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 32], f32, mat> -> !pypto.tile<[16, 32], f32, left>
  %br = pypto.tile.move %bm : !pypto.tile<[32, 32], f32, mat> -> !pypto.tile<[32, 32], f32, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 32], f32, left>, !pypto.tile<[32, 32], f32, right> -> !pypto.tile<[16, 32], f32, acc>
  %r = pypto.tile.store %acc, %c[%c0, %c16] : !pypto.tile<[16, 32], f32, acc>, !pypto.tensor<[16, N], f32>
  pypto.return %r : !pypto.tensor<[16, N], f32>
}

pypto.func orchestration @main(%q: !pypto.tensor<[16, D], bf16>, %k: !pypto.tensor<[B, D], bf16>, %a: !pypto.tensor<[16, K], f32>, %b: !pypto.tensor<[32, N], f32>, out %s: !pypto.tensor<[16, B], f32>, out %c: !pypto.tensor<[16, N], f32>) -> (!pypto.tensor<[16, B], f32>, !pypto.tensor<[16, N], f32>) {
  %s1 = pypto.call @qk(%q, %k, %s) : (!pypto.tensor<[16, D], bf16>, !pypto.tensor<[B, D], bf16>, !pypto.tensor<[16, B], f32>) -> !pypto.tensor<[16, B], f32>
  %c1 = pypto.call @mm(%a, %b, %c) : (!pypto.tensor<[16, K], f32>, !pypto.tensor<[32, N], f32>, !pypto.tensor<[16, N], f32>) -> !pypto.tensor<[16, N], f32>
  pypto.return %s1, %c1 : !pypto.tensor<[16, B], f32>, !pypto.tensor<[16, N], f32>
}

// CHECK-LABEL: void qk(GM_ADDR q, GM_ADDR k, GM_ADDR s, int64_t D, int64_t B)
// CHECK:       k_gm.SetGlobalBuffer((__gm__ bfloat16_t*)k, B * D);
// CHECK:       qm_nd2nz.srcDValue = D;
// CHECK:       km_nd2nz.nValue = 32;
// CHECK:       km_nd2nz.srcDValue = D;
// CHECK:       DataCopy(km, k_gm, km_nd2nz);
// CHECK:       acc_fixpipe.dstStride = B;
// CHECK-NEXT:  acc_fixpipe.ndNum = 1;
// CHECK-NEXT:  Fixpipe(s_gm, acc, acc_fixpipe);

// CHECK-LABEL: void mm(GM_ADDR a, GM_ADDR b, GM_ADDR c, int64_t K, int64_t N)
// CHECK:       am_nd2nz.srcDValue = K;
// CHECK-NOT:   band_stride
// CHECK:       bm_nd2nz.ndNum = 1;
// CHECK:       bm_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT:  bm_nd2nz.srcDValue = N;
// CHECK:       DataCopy(bm, b_gm[16], bm_nd2nz);
// CHECK:       acc_fixpipe.dstStride = N;
// CHECK:       Fixpipe(c_gm[16], acc, acc_fixpipe);
