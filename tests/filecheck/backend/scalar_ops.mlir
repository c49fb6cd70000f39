// RUN: pypto-opt %s -t ascendc | filecheck %s
// Scalar and unary tile ops on one [8, 64] f32 tile, with a runtime scalar parameter %alpha:
// y = relu(((x + alpha) * 2 - 0.5) / alpha), z = sqrt(abs(x)) + exp(-x) + recip(full(4)) + log(abs(x) + 1)
// and the elementwise max/min/sub/div of those.

pypto.func incore @scalar_kernel(%x: !pypto.tensor<[8, 64], f32>, %alpha: f32, out %y: !pypto.tensor<[8, 64], f32>, out %z: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %four = arith.constant 4.0 : f32
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %t1 = pypto.tile.adds %t, %alpha : !pypto.tile<[8, 64], f32, vec>, f32
  %t2 = pypto.tile.muls %t1, %two : !pypto.tile<[8, 64], f32, vec>, f32
  %t3 = pypto.tile.subs %t2, %half : !pypto.tile<[8, 64], f32, vec>, f32
  %t4 = pypto.tile.divs %t3, %alpha : !pypto.tile<[8, 64], f32, vec>, f32
  %yt = pypto.tile.relu %t4 : !pypto.tile<[8, 64], f32, vec>
  %wy = pypto.tile.store %yt, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  %ab = pypto.tile.abs %t : !pypto.tile<[8, 64], f32, vec>
  %sq = pypto.tile.sqrt %ab : !pypto.tile<[8, 64], f32, vec>
  %ng = pypto.tile.neg %t : !pypto.tile<[8, 64], f32, vec>
  %ex = pypto.tile.exp %ng : !pypto.tile<[8, 64], f32, vec>
  %f = pypto.tile.full %four : f32 -> !pypto.tile<[8, 64], f32, vec>
  %rc = pypto.tile.recip %f : !pypto.tile<[8, 64], f32, vec>
  %a1 = pypto.tile.adds %ab, %one : !pypto.tile<[8, 64], f32, vec>, f32
  %lg = pypto.tile.log %a1 : !pypto.tile<[8, 64], f32, vec>
  %s1 = pypto.tile.add %sq, %ex : !pypto.tile<[8, 64], f32, vec>
  %s2 = pypto.tile.add %s1, %rc : !pypto.tile<[8, 64], f32, vec>
  %s3 = pypto.tile.add %s2, %lg : !pypto.tile<[8, 64], f32, vec>
  %mx = pypto.tile.maximum %s3, %t : !pypto.tile<[8, 64], f32, vec>
  %mn = pypto.tile.minimum %s3, %t : !pypto.tile<[8, 64], f32, vec>
  %df = pypto.tile.sub %mx, %mn : !pypto.tile<[8, 64], f32, vec>
  %zt = pypto.tile.div %df, %a1 : !pypto.tile<[8, 64], f32, vec>
  %wz = pypto.tile.store %zt, %z[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %wy, %wz : !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[8, 64], f32>, %alpha: f32, out %y: !pypto.tensor<[8, 64], f32>, out %z: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>) {
  %r:2 = pypto.call @scalar_kernel(%x, %alpha, %y, %z) : (!pypto.tensor<[8, 64], f32>, f32, !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/scalar_kernel.cpp =====
// CHECK: // Unified Buffer plan: 18432 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void scalar_kernel(GM_ADDR x, float alpha, GM_ADDR y, GM_ADDR z) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 512);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 512);
// CHECK-NEXT: GlobalTensor<float> z_gm;
// CHECK-NEXT: z_gm.SetGlobalBuffer((__gm__ float*)z, 512);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t;  // %t !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %t1, %t3, %ab, %lg, %mx (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf1;  // %t2, %t4, %sq, %s2, %mn (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_yt;  // %yt !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf2;  // %ng, %f, %a1 (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf3;  // %ex, %s3, %df (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_rc;  // %rc !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_s1;  // %s1 !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_zt;  // %zt !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 2048);
// CHECK-NEXT: pipe.InitBuffer(calcBuf1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_yt, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(calcBuf2, 2048);
// CHECK-NEXT: pipe.InitBuffer(calcBuf3, 2048);
// CHECK-NEXT: pipe.InitBuffer(buf_rc, 2048);
// CHECK-NEXT: pipe.InitBuffer(buf_s1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_zt, 1, 2048);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t, x_gm, 512);
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> t1 = calcBuf0.Get<float>();
// CHECK-NEXT: Adds(t1, t, alpha, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> t2 = calcBuf1.Get<float>();
// CHECK-NEXT: Muls(t2, t1, 2.0f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> t3 = calcBuf0.Get<float>();
// CHECK-NEXT: Adds(t3, t2, -0.5f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> t4 = calcBuf1.Get<float>();
// CHECK-NEXT: Duplicate(t4, alpha, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Div(t4, t3, t4, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> yt = outQ_yt.AllocTensor<float>();
// CHECK-NEXT: Relu(yt, t4, 512);
// CHECK-NEXT: outQ_yt.EnQue(yt);
// CHECK-NEXT: yt = outQ_yt.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm, yt, 512);
// CHECK-NEXT: outQ_yt.FreeTensor(yt);
// CHECK-NEXT: LocalTensor<float> ab = calcBuf0.Get<float>();
// CHECK-NEXT: Abs(ab, t, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sq = calcBuf1.Get<float>();
// CHECK-NEXT: Sqrt(sq, ab, 512);
// CHECK-NEXT: LocalTensor<float> ng = calcBuf2.Get<float>();
// CHECK-NEXT: Muls(ng, t, static_cast<float>(-1), 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> ex = calcBuf3.Get<float>();
// CHECK-NEXT: Exp(ex, ng, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> f = calcBuf2.Get<float>();
// CHECK-NEXT: Duplicate(f, 4.0f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> rc = buf_rc.Get<float>();
// CHECK-NEXT: Reciprocal(rc, f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> a1 = calcBuf2.Get<float>();
// CHECK-NEXT: Adds(a1, ab, 1.0f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> lg = calcBuf0.Get<float>();
// CHECK-NEXT: Ln(lg, a1, 512);
// CHECK-NEXT: LocalTensor<float> s1 = buf_s1.Get<float>();
// CHECK-NEXT: Add(s1, sq, ex, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> s2 = calcBuf1.Get<float>();
// CHECK-NEXT: Add(s2, s1, rc, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> s3 = calcBuf3.Get<float>();
// CHECK-NEXT: Add(s3, s2, lg, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> mx = calcBuf0.Get<float>();
// CHECK-NEXT: Max(mx, s3, t, 512);
// CHECK-NEXT: LocalTensor<float> mn = calcBuf1.Get<float>();
// CHECK-NEXT: Min(mn, s3, t, 512);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> df = calcBuf3.Get<float>();
// CHECK-NEXT: Sub(df, mx, mn, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> zt = outQ_zt.AllocTensor<float>();
// CHECK-NEXT: Div(zt, df, a1, 512);
// CHECK-NEXT: outQ_zt.EnQue(zt);
// CHECK-NEXT: zt = outQ_zt.DeQue<float>();
// CHECK-NEXT: DataCopy(z_gm, zt, 512);
// CHECK-NEXT: outQ_zt.FreeTensor(zt);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_scalar_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float alpha, float* y_host, float* z_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 2048, x_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 2048, y_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&z_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_dev, 2048, z_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(scalar_kernel)(1, stream, x_dev, alpha, y_dev, z_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 2048, y_dev, 2048, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_host, 2048, z_dev, 2048, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
