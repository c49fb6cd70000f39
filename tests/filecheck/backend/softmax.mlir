// RUN: pypto-opt %s -t ascendc | filecheck %s
// Row softmax over [64, 128] f32 in 16-row tiles: row_max, row_expand_sub, exp, row_sum, row_expand_div.

pypto.func incore @softmax_kernel(%x: !pypto.tensor<[64, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %y) -> (!pypto.tensor<[64, 128], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
    %m = pypto.tile.row_max %t : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
    %sh = pypto.tile.row_expand_sub %t, %m : !pypto.tile<[16, 128], f32, vec>, !pypto.tile<[16, 1], f32, vec>
    %e = pypto.tile.exp %sh : !pypto.tile<[16, 128], f32, vec>
    %s = pypto.tile.row_sum %e : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
    %p = pypto.tile.row_expand_div %e, %s : !pypto.tile<[16, 128], f32, vec>, !pypto.tile<[16, 1], f32, vec>
    %w = pypto.tile.store %p, %acc[%i, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[64, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %r = pypto.call @softmax_kernel(%x, %y) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/softmax_kernel.cpp =====
// CHECK: // Unified Buffer plan: 49216 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void softmax_kernel(GM_ADDR x, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 8192);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 8192);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %m, %s (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf1;  // %m.scratch, %sh, %s.scratch, %p.scratch (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf2;  // %sh.scratch, %e (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_p;  // %p !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 64);
// CHECK-NEXT: pipe.InitBuffer(calcBuf1, 8192);
// CHECK-NEXT: pipe.InitBuffer(calcBuf2, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_p, 2, 8192);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[0], 2048);
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: for (int64_t i = 0; i < 64; i += 16) {
// CHECK-NEXT: const int64_t i_next = i + 16;
// CHECK-NEXT: const bool has_next = i_next < 64;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[i_next * 128], 2048);
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> m = calcBuf0.Get<float>();
// CHECK-NEXT: LocalTensor<float> m_tmp = calcBuf1.Get<float>();
// CHECK-NEXT: Max(m_tmp, t, t[64], 64, 16, BinaryRepeatParams(1, 1, 1, 8, 16, 16));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: WholeReduceMax(m, m_tmp, 64, 16, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sh = calcBuf1.Get<float>();
// CHECK-NEXT: LocalTensor<float> sh_brcb = calcBuf2.Get<float>();
// CHECK-NEXT: Brcb(sh_brcb, m, 2, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Sub(sh, t, sh_brcb, 64, 16, BinaryRepeatParams(1, 1, 0, 16, 16, 1));
// CHECK-NEXT: Sub(sh[64], t[64], sh_brcb, 64, 16, BinaryRepeatParams(1, 1, 0, 16, 16, 1));
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> e = calcBuf2.Get<float>();
// CHECK-NEXT: Exp(e, sh, 2048);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> s = calcBuf0.Get<float>();
// CHECK-NEXT: LocalTensor<float> s_tmp = calcBuf1.Get<float>();
// CHECK-NEXT: Add(s_tmp, e, e[64], 64, 16, BinaryRepeatParams(1, 1, 1, 8, 16, 16));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: WholeReduceSum(s, s_tmp, 64, 16, 1, 1, 8);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> p = outQ_p.AllocTensor<float>();
// CHECK-NEXT: LocalTensor<float> p_brcb = calcBuf1.Get<float>();
// CHECK-NEXT: Brcb(p_brcb, s, 2, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Div(p, e, p_brcb, 64, 16, BinaryRepeatParams(1, 1, 0, 16, 16, 1));
// CHECK-NEXT: Div(p[64], e[64], p_brcb, 64, 16, BinaryRepeatParams(1, 1, 0, 16, 16, 1));
// CHECK-NEXT: outQ_p.EnQue(p);
// CHECK-NEXT: p = outQ_p.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[i * 128], p, 2048);
// CHECK-NEXT: outQ_p.FreeTensor(p);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_softmax_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 32768, x_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 32768, y_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(softmax_kernel)(1, stream, x_dev, y_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 32768, y_dev, 32768, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
