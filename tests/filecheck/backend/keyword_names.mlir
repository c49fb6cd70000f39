// RUN: pypto-opt %s -t ascendc | filecheck %s
// A kernel named @main and an orchestration named @int: C++ names stay valid (main_kernel,
// run_int); a single-row [1, 200] reduction folds its 64-lane chunks as a tree (ascendc-tree-reductions:
// chunks 0 + 2 and a copy of 1, then 0 + 1, then the partial chunk 3) before the WholeReduce.

pypto.func incore @main(%x: !pypto.tensor<[1, 200], f32>, out %y: !pypto.tensor<[1, 1], f32>, out %z: !pypto.tensor<[1, 1], f32>) -> (!pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[1, 200], f32> -> !pypto.tile<[1, 200], f32, vec>
  %s = pypto.tile.row_sum %t : !pypto.tile<[1, 200], f32, vec> -> !pypto.tile<[1, 1], f32, vec>
  %m = pypto.tile.row_max %t : !pypto.tile<[1, 200], f32, vec> -> !pypto.tile<[1, 1], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[1, 1], f32, vec>, !pypto.tensor<[1, 1], f32>
  %w2 = pypto.tile.store %m, %z[%c0, %c0] : !pypto.tile<[1, 1], f32, vec>, !pypto.tensor<[1, 1], f32>
  pypto.return %w, %w2 : !pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>
}
pypto.func orchestration @int(%x: !pypto.tensor<[1, 200], f32>, out %y: !pypto.tensor<[1, 1], f32>, out %z: !pypto.tensor<[1, 1], f32>) -> (!pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>) {
  %r:2 = pypto.call @main(%x, %y, %z) : (!pypto.tensor<[1, 200], f32>, !pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>) -> (!pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[1, 1], f32>, !pypto.tensor<[1, 1], f32>
}

// CHECK-LABEL: // ===== file: kernels/main_kernel.cpp =====
// CHECK: // Unified Buffer plan: 1376 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void main_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 200);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 1);
// CHECK-NEXT: GlobalTensor<float> z_gm;
// CHECK-NEXT: z_gm.SetGlobalBuffer((__gm__ float*)z, 1);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t;  // %t !pypto.tile<[1, 200], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_s;  // %s !pypto.tile<[1, 1], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %s.scratch, %m.scratch (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_m;  // %m !pypto.tile<[1, 1], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 1, 800);
// CHECK-NEXT: pipe.InitBuffer(outQ_s, 1, 32);
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 512);
// CHECK-NEXT: pipe.InitBuffer(outQ_m, 1, 32);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t, x_gm, 200);
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> s = outQ_s.AllocTensor<float>();
// CHECK-NEXT: LocalTensor<float> s_tmp = calcBuf0.Get<float>();
// CHECK-NEXT: Add(s_tmp, t, t[128], 64, 1, BinaryRepeatParams(1, 1, 1, 16, 8, 8));
// CHECK-NEXT: Muls(s_tmp[64], t[64], static_cast<float>(1), 64, 1, UnaryRepeatParams(1, 1, 16, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Add(s_tmp, s_tmp, s_tmp[64], 64, 1, BinaryRepeatParams(1, 1, 1, 16, 16, 16));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Add(s_tmp, s_tmp, t[192], 8, 1, BinaryRepeatParams(1, 1, 1, 16, 16, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: WholeReduceSum(s, s_tmp, 64, 1, 1, 1, 16);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> m = outQ_m.AllocTensor<float>();
// CHECK-NEXT: LocalTensor<float> m_tmp = calcBuf0.Get<float>();
// CHECK-NEXT: Max(m_tmp, t, t[128], 64, 1, BinaryRepeatParams(1, 1, 1, 16, 8, 8));
// CHECK-NEXT: Muls(m_tmp[64], t[64], static_cast<float>(1), 64, 1, UnaryRepeatParams(1, 1, 16, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Max(m_tmp, m_tmp, m_tmp[64], 64, 1, BinaryRepeatParams(1, 1, 1, 16, 16, 16));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Max(m_tmp, m_tmp, t[192], 8, 1, BinaryRepeatParams(1, 1, 1, 16, 16, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: WholeReduceMax(m, m_tmp, 64, 1, 1, 1, 16, ReduceOrder::ORDER_ONLY_VALUE);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_s.EnQue(s);
// CHECK-NEXT: s = outQ_s.DeQue<float>();
// CHECK-NEXT: DataCopyPad(y_gm, s, DataCopyExtParams(1, 4, 0, 0, 0));
// CHECK-NEXT: outQ_s.FreeTensor(s);
// CHECK-NEXT: outQ_m.EnQue(m);
// CHECK-NEXT: m = outQ_m.DeQue<float>();
// CHECK-NEXT: DataCopyPad(z_gm, m, DataCopyExtParams(1, 4, 0, 0, 0));
// CHECK-NEXT: outQ_m.FreeTensor(m);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_main_kernel.h =====
// CHECK-LABEL: // ===== file: host/int_orch.h =====
// CHECK-LABEL: // ===== file: host/int_orch.cpp =====
// CHECK: int run_int(aclrtStream stream, const float* x_host, float* y_host, float* z_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 800, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 800, x_host, 800, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 4, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 4, y_host, 4, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&z_dev, 4, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_dev, 4, z_host, 4, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(main_kernel)(1, stream, x_dev, y_dev, z_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 4, y_dev, 4, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_host, 4, z_dev, 4, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
