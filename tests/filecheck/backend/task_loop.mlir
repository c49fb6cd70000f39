// RUN: pypto-opt %s -t ascendc | filecheck %s
// A host loop that submits a kernel per row block, each task depending on the previous one
// through a task id carried by scf.for (no code: launches on one stream run in order).

pypto.func incore @step(%x: !pypto.tensor<[32, 64], f32>, %row: index, inout %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %u = pypto.tile.load %y[%row, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %s = pypto.tile.add %t, %u : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %s, %y[%row, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %w : !pypto.tensor<[32, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[32, 64], f32>, inout %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %y0, %t0 = pypto.submit @step(%x, %c0, %y) : (!pypto.tensor<[32, 64], f32>, index, !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>)
  %r:2 = scf.for %i = %c8 to %c32 step %c8 iter_args(%cur = %y0, %prev = %t0) -> (!pypto.tensor<[32, 64], f32>, !pypto.task_id) {
    %n, %t = pypto.submit @step(%x, %i, %cur) deps(%prev) : (!pypto.tensor<[32, 64], f32>, index, !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>)
    scf.yield %n, %t : !pypto.tensor<[32, 64], f32>, !pypto.task_id
  }
  pypto.return %r#0 : !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/step.cpp =====
// CHECK: // Unified Buffer plan: 6144 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void step(GM_ADDR x, int64_t row, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 2048);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 2048);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t;  // %t !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_u;  // %u !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_s;  // %s !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(inQ_u, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_s, 1, 2048);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t, x_gm[row * 64], 512);
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> u = inQ_u.AllocTensor<float>();
// CHECK-NEXT: DataCopy(u, y_gm[row * 64], 512);
// CHECK-NEXT: inQ_u.EnQue(u);
// CHECK-NEXT: u = inQ_u.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> s = outQ_s.AllocTensor<float>();
// CHECK-NEXT: Add(s, t, u, 512);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: inQ_u.FreeTensor(u);
// CHECK-NEXT: outQ_s.EnQue(s);
// CHECK-NEXT: s = outQ_s.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[row * 64], s, 512);
// CHECK-NEXT: outQ_s.FreeTensor(s);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_step.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 8192, x_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 8192, y_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: // task t0: @step (launches on one stream run in order)
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(step)(1, stream, x_dev, 0, y_dev));
// CHECK: for (int64_t i = 8; i < 32; i += 8) {
// CHECK: // task t: @step after %prev (launches on one stream run in order)
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(step)(1, stream, x_dev, i, y_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 8192, y_dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
