// RUN: pypto-opt %s -t ascendc | filecheck %s
// A [1024, 256] f32 tensor (1 MiB, five times the 192 KiB UB) processed in [32, 256] tiles:
// y = x * x - x, with double-buffered queues.

pypto.func incore @big_kernel(%x: !pypto.tensor<[1024, 256], f32>, out %y: !pypto.tensor<[1024, 256], f32>) -> !pypto.tensor<[1024, 256], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %r = scf.for %i = %c0 to %c1024 step %c32 iter_args(%acc = %y) -> (!pypto.tensor<[1024, 256], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[1024, 256], f32> -> !pypto.tile<[32, 256], f32, vec>
    %sq = pypto.tile.mul %t, %t : !pypto.tile<[32, 256], f32, vec>
    %d = pypto.tile.sub %sq, %t : !pypto.tile<[32, 256], f32, vec>
    %w = pypto.tile.store %d, %acc[%i, %c0] : !pypto.tile<[32, 256], f32, vec>, !pypto.tensor<[1024, 256], f32>
    scf.yield %w : !pypto.tensor<[1024, 256], f32>
  }
  pypto.return %r : !pypto.tensor<[1024, 256], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[1024, 256], f32>, out %y: !pypto.tensor<[1024, 256], f32>) -> !pypto.tensor<[1024, 256], f32> {
  %r = pypto.call @big_kernel(%x, %y) : (!pypto.tensor<[1024, 256], f32>, !pypto.tensor<[1024, 256], f32>) -> !pypto.tensor<[1024, 256], f32>
  pypto.return %r : !pypto.tensor<[1024, 256], f32>
}

// CHECK-LABEL: // ===== file: kernels/big_kernel.cpp =====
// CHECK: // Unified Buffer plan: 163840 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void big_kernel(GM_ADDR x, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 262144);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 262144);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[32, 256], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_sq;  // %sq !pypto.tile<[32, 256], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_d;  // %d !pypto.tile<[32, 256], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 32768);
// CHECK-NEXT: pipe.InitBuffer(buf_sq, 32768);
// CHECK-NEXT: pipe.InitBuffer(outQ_d, 2, 32768);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[0], 8192);
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: for (int64_t i = 0; i < 1024; i += 32) {
// CHECK-NEXT: const int64_t i_next = i + 32;
// CHECK-NEXT: const bool has_next = i_next < 1024;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[i_next * 256], 8192);
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> sq = buf_sq.Get<float>();
// CHECK-NEXT: Mul(sq, t, t, 8192);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> d = outQ_d.AllocTensor<float>();
// CHECK-NEXT: Sub(d, sq, t, 8192);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_d.EnQue(d);
// CHECK-NEXT: d = outQ_d.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[i * 256], d, 8192);
// CHECK-NEXT: outQ_d.FreeTensor(d);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_big_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 1048576, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 1048576, x_host, 1048576, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 1048576, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 1048576, y_host, 1048576, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(big_kernel)(1, stream, x_dev, y_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 1048576, y_dev, 1048576, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
