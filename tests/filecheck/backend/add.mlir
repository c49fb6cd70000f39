// RUN: pypto-opt %s -t ascendc | filecheck %s
// Elementwise add of two [64, 128] f32 tensors in [32, 128] tiles: count-form DataCopy,
// double-buffered VECIN/VECOUT queues, and the host launch.

pypto.func incore @add_kernel(%x: !pypto.tensor<[64, 128], f32>, %y: !pypto.tensor<[64, 128], f32>, out %z: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c32 iter_args(%acc = %z) -> (!pypto.tensor<[64, 128], f32>) {
    %a = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %b = pypto.tile.load %y[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %s = pypto.tile.add %a, %b : !pypto.tile<[32, 128], f32, vec>
    %w = pypto.tile.store %s, %acc[%i, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[64, 128], f32>, %y: !pypto.tensor<[64, 128], f32>, out %z: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %r = pypto.call @add_kernel(%x, %y, %z) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/add_kernel.cpp =====
// CHECK: // Unified Buffer plan: 98304 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 8192);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 8192);
// CHECK-NEXT: GlobalTensor<float> z_gm;
// CHECK-NEXT: z_gm.SetGlobalBuffer((__gm__ float*)z, 8192);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_a;  // %a !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_b;  // %b !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_s;  // %s !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_a, 2, 16384);
// CHECK-NEXT: pipe.InitBuffer(inQ_b, 2, 16384);
// CHECK-NEXT: pipe.InitBuffer(outQ_s, 2, 16384);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> a_first = inQ_a.AllocTensor<float>();
// CHECK-NEXT: DataCopy(a_first, x_gm[0], 4096);
// CHECK-NEXT: inQ_a.EnQue(a_first);
// CHECK-NEXT: LocalTensor<float> b_first = inQ_b.AllocTensor<float>();
// CHECK-NEXT: DataCopy(b_first, y_gm[0], 4096);
// CHECK-NEXT: inQ_b.EnQue(b_first);
// CHECK-NEXT: for (int64_t i = 0; i < 64; i += 32) {
// CHECK-NEXT: const int64_t i_next = i + 32;
// CHECK-NEXT: const bool has_next = i_next < 64;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> a_next = inQ_a.AllocTensor<float>();
// CHECK-NEXT: DataCopy(a_next, x_gm[i_next * 128], 4096);
// CHECK-NEXT: inQ_a.EnQue(a_next);
// CHECK-NEXT: LocalTensor<float> b_next = inQ_b.AllocTensor<float>();
// CHECK-NEXT: DataCopy(b_next, y_gm[i_next * 128], 4096);
// CHECK-NEXT: inQ_b.EnQue(b_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> a = inQ_a.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> b = inQ_b.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> s = outQ_s.AllocTensor<float>();
// CHECK-NEXT: Add(s, a, b, 4096);
// CHECK-NEXT: inQ_a.FreeTensor(a);
// CHECK-NEXT: inQ_b.FreeTensor(b);
// CHECK-NEXT: outQ_s.EnQue(s);
// CHECK-NEXT: s = outQ_s.DeQue<float>();
// CHECK-NEXT: DataCopy(z_gm[i * 128], s, 4096);
// CHECK-NEXT: outQ_s.FreeTensor(s);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_add_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, const float* y_host, float* z_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 32768, x_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 32768, y_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&z_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_dev, 32768, z_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(add_kernel)(1, stream, x_dev, y_dev, z_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(z_host, 32768, z_dev, 32768, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
