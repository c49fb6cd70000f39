// RUN: pypto-opt %s -t ascendc | filecheck %s
// d = a * b + c over [128, 128] f32 in [32, 64] windows: the windows are strided in GM
// (64 of 128 columns), so the copies use DataCopyParams.

pypto.func incore @fused_kernel(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, %c: !pypto.tensor<[128, 128], f32>, out %d: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r = scf.for %i = %c0 to %c128 step %c32 iter_args(%d0 = %d) -> (!pypto.tensor<[128, 128], f32>) {
    %r1 = scf.for %j = %c0 to %c128 step %c64 iter_args(%d1 = %d0) -> (!pypto.tensor<[128, 128], f32>) {
      %ta = pypto.tile.load %a[%i, %j] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[32, 64], f32, vec>
      %tb = pypto.tile.load %b[%i, %j] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[32, 64], f32, vec>
      %tc = pypto.tile.load %c[%i, %j] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[32, 64], f32, vec>
      %ab = pypto.tile.mul %ta, %tb : !pypto.tile<[32, 64], f32, vec>
      %sum = pypto.tile.add %ab, %tc : !pypto.tile<[32, 64], f32, vec>
      %w = pypto.tile.store %sum, %d1[%i, %j] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[128, 128], f32>
      scf.yield %w : !pypto.tensor<[128, 128], f32>
    }
    scf.yield %r1 : !pypto.tensor<[128, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[128, 128], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, %c: !pypto.tensor<[128, 128], f32>, out %d: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %r = pypto.call @fused_kernel(%a, %b, %c, %d) : (!pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>, !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32>
  pypto.return %r : !pypto.tensor<[128, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/fused_kernel.cpp =====
// CHECK: // Unified Buffer plan: 73728 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void fused_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR d) {
// CHECK-NEXT: GlobalTensor<float> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ float*)a, 16384);
// CHECK-NEXT: GlobalTensor<float> b_gm;
// CHECK-NEXT: b_gm.SetGlobalBuffer((__gm__ float*)b, 16384);
// CHECK-NEXT: GlobalTensor<float> c_gm;
// CHECK-NEXT: c_gm.SetGlobalBuffer((__gm__ float*)c, 16384);
// CHECK-NEXT: GlobalTensor<float> d_gm;
// CHECK-NEXT: d_gm.SetGlobalBuffer((__gm__ float*)d, 16384);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_ta;  // %ta !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_tb;  // %tb !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_tc;  // %tc !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_ab;  // %ab !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_sum;  // %sum !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(inQ_tb, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(inQ_tc, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(buf_ab, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_sum, 2, 8192);
// CHECK-EMPTY:
// CHECK-NEXT: for (int64_t i = 0; i < 128; i += 32) {
// CHECK-NEXT: LocalTensor<float> ta_first = inQ_ta.AllocTensor<float>();
// CHECK-NEXT: DataCopy(ta_first, a_gm[i * 128], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_ta.EnQue(ta_first);
// CHECK-NEXT: LocalTensor<float> tb_first = inQ_tb.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tb_first, b_gm[i * 128], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_tb.EnQue(tb_first);
// CHECK-NEXT: LocalTensor<float> tc_first = inQ_tc.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tc_first, c_gm[i * 128], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_tc.EnQue(tc_first);
// CHECK-NEXT: for (int64_t j = 0; j < 128; j += 64) {
// CHECK-NEXT: const int64_t j_next = j + 64;
// CHECK-NEXT: const bool has_next = j_next < 128;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> ta_next = inQ_ta.AllocTensor<float>();
// CHECK-NEXT: DataCopy(ta_next, a_gm[i * 128 + j_next], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_ta.EnQue(ta_next);
// CHECK-NEXT: LocalTensor<float> tb_next = inQ_tb.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tb_next, b_gm[i * 128 + j_next], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_tb.EnQue(tb_next);
// CHECK-NEXT: LocalTensor<float> tc_next = inQ_tc.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tc_next, c_gm[i * 128 + j_next], DataCopyParams(32, 8, 8, 0));
// CHECK-NEXT: inQ_tc.EnQue(tc_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> ta = inQ_ta.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> tb = inQ_tb.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> tc = inQ_tc.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> ab = buf_ab.Get<float>();
// CHECK-NEXT: Mul(ab, ta, tb, 2048);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: inQ_tb.FreeTensor(tb);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sum = outQ_sum.AllocTensor<float>();
// CHECK-NEXT: Add(sum, ab, tc, 2048);
// CHECK-NEXT: inQ_tc.FreeTensor(tc);
// CHECK-NEXT: outQ_sum.EnQue(sum);
// CHECK-NEXT: sum = outQ_sum.DeQue<float>();
// CHECK-NEXT: DataCopy(d_gm[i * 128 + j], sum, DataCopyParams(32, 8, 0, 8));
// CHECK-NEXT: outQ_sum.FreeTensor(sum);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_fused_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* a_host, const float* b_host, const float* c_host, float* d_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&a_dev, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(a_dev, 65536, a_host, 65536, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&b_dev, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(b_dev, 65536, b_host, 65536, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&c_dev, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(c_dev, 65536, c_host, 65536, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&d_dev, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(d_dev, 65536, d_host, 65536, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(fused_kernel)(1, stream, a_dev, b_dev, c_dev, d_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(d_host, 65536, d_dev, 65536, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
