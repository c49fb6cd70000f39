// RUN: pypto-opt %s -t ascendc | filecheck %s
// Tiles carried through scf.for and yielded by scf.if: column sums of a [256, 64] tensor
// accumulated over 32-row blocks in a [32, 64] accumulator (then folded), and a per-block choice
// between the running max and the new block.

pypto.func incore @acc_kernel(%x: !pypto.tensor<[256, 64], f32>, %flag: index, out %s: !pypto.tensor<[32, 64], f32>, out %m: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 64], f32, vec>
  %first = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[256, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
  %sum, %mx = scf.for %i = %c0 to %c256 step %c32 iter_args(%acc = %init, %best = %first) -> (!pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[256, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
    %acc1 = pypto.tile.add %acc, %t : !pypto.tile<[32, 64], f32, vec>
    %use_max = arith.cmpi ne, %flag, %c0 : index
    %best1 = scf.if %use_max -> (!pypto.tile<[32, 64], f32, vec>) {
      %mm = pypto.tile.maximum %best, %t : !pypto.tile<[32, 64], f32, vec>
      scf.yield %mm : !pypto.tile<[32, 64], f32, vec>
    } else {
      scf.yield %t : !pypto.tile<[32, 64], f32, vec>
    }
    scf.yield %acc1, %best1 : !pypto.tile<[32, 64], f32, vec>, !pypto.tile<[32, 64], f32, vec>
  }
  %ws = pypto.tile.store %sum, %s[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  %wm = pypto.tile.store %mx, %m[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %ws, %wm : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[256, 64], f32>, %flag: index, out %s: !pypto.tensor<[32, 64], f32>, out %m: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %r:2 = pypto.call @acc_kernel(%x, %flag, %s, %m) : (!pypto.tensor<[256, 64], f32>, index, !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/acc_kernel.cpp =====
// CHECK: // Unified Buffer plan: 81920 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void acc_kernel(GM_ADDR x, int64_t flag, GM_ADDR s, GM_ADDR m) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 16384);
// CHECK-NEXT: GlobalTensor<float> s_gm;
// CHECK-NEXT: s_gm.SetGlobalBuffer((__gm__ float*)s, 2048);
// CHECK-NEXT: GlobalTensor<float> m_gm;
// CHECK-NEXT: m_gm.SetGlobalBuffer((__gm__ float*)m, 2048);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %init, %acc1 (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_first;  // %first !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_mm;  // %mm !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_best1;  // %best1 !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_sum;  // %sum !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_mx;  // %mx !pypto.tile<[32, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_sum_out;  // %sum.out (store staging)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_mx_out;  // %mx.out (store staging)
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 8192);
// CHECK-NEXT: pipe.InitBuffer(inQ_first, 1, 8192);
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(buf_mm, 8192);
// CHECK-NEXT: pipe.InitBuffer(buf_best1, 8192);
// CHECK-NEXT: pipe.InitBuffer(buf_sum, 8192);
// CHECK-NEXT: pipe.InitBuffer(buf_mx, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_sum_out, 1, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_mx_out, 1, 8192);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> init = calcBuf0.Get<float>();
// CHECK-NEXT: Duplicate(init, 0.0f, 2048);
// CHECK-NEXT: LocalTensor<float> first = inQ_first.AllocTensor<float>();
// CHECK-NEXT: DataCopy(first, x_gm, 2048);
// CHECK-NEXT: inQ_first.EnQue(first);
// CHECK-NEXT: first = inQ_first.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sum = buf_sum.Get<float>();
// CHECK-NEXT: DataCopy(sum, init, 2048);
// CHECK-NEXT: LocalTensor<float> mx = buf_mx.Get<float>();
// CHECK-NEXT: DataCopy(mx, first, 2048);
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[0], 2048);
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: for (int64_t i = 0; i < 256; i += 32) {
// CHECK-NEXT: const int64_t i_next = i + 32;
// CHECK-NEXT: const bool has_next = i_next < 256;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[i_next * 64], 2048);
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> acc1 = calcBuf0.Get<float>();
// CHECK-NEXT: Add(acc1, sum, t, 2048);
// CHECK-NEXT: const bool use_max = flag != 0;
// CHECK-NEXT: LocalTensor<float> best1 = buf_best1.Get<float>();
// CHECK-NEXT: if (use_max) {
// CHECK-NEXT: LocalTensor<float> mm = buf_mm.Get<float>();
// CHECK-NEXT: Max(mm, mx, t, 2048);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(best1, mm, 2048);
// CHECK-NEXT: } else {
// CHECK-NEXT: DataCopy(best1, t, 2048);
// CHECK-NEXT: }
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(sum, acc1, 2048);
// CHECK-NEXT: DataCopy(mx, best1, 2048);
// CHECK-NEXT: }
// CHECK-NEXT: inQ_first.FreeTensor(first);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sum_out = outQ_sum_out.AllocTensor<float>();
// CHECK-NEXT: DataCopy(sum_out, sum, 2048);
// CHECK-NEXT: outQ_sum_out.EnQue(sum_out);
// CHECK-NEXT: sum_out = outQ_sum_out.DeQue<float>();
// CHECK-NEXT: DataCopy(s_gm, sum_out, 2048);
// CHECK-NEXT: outQ_sum_out.FreeTensor(sum_out);
// CHECK-NEXT: LocalTensor<float> mx_out = outQ_mx_out.AllocTensor<float>();
// CHECK-NEXT: DataCopy(mx_out, mx, 2048);
// CHECK-NEXT: outQ_mx_out.EnQue(mx_out);
// CHECK-NEXT: mx_out = outQ_mx_out.DeQue<float>();
// CHECK-NEXT: DataCopy(m_gm, mx_out, 2048);
// CHECK-NEXT: outQ_mx_out.FreeTensor(mx_out);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_acc_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, int64_t flag, float* s_host, float* m_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 65536, x_host, 65536, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&s_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(s_dev, 8192, s_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&m_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(m_dev, 8192, m_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(acc_kernel)(1, stream, x_dev, flag, s_dev, m_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(s_host, 8192, s_dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(m_host, 8192, m_dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
