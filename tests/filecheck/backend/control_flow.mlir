// RUN: pypto-opt %s -t ascendc | filecheck %s
// scf.for with an index step computed from a scalar parameter, scf.if on arith.cmpi inside the
// loop (even row blocks: exp, odd: relu, the branch also yields an index), an index iter_arg
// counting the even blocks, and arith.select on that count picking the scale of a last tile.
// The two branches' output tiles share one queue (ascendc-plan-buffers: exclusive branches).

pypto.func incore @cf_kernel(%x: !pypto.tensor<[64, 32], f32>, %rows: index, out %y: !pypto.tensor<[64, 32], f32>, out %tail: !pypto.tensor<[8, 32], f32>) -> (!pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %r:2 = scf.for %i = %c0 to %c64 step %rows iter_args(%acc = %y, %even = %c0) -> (!pypto.tensor<[64, 32], f32>, index) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 32], f32> -> !pypto.tile<[8, 32], f32, vec>
    %blk = arith.divsi %i, %rows : index
    %par = arith.remsi %blk, %c2 : index
    %is_even = arith.cmpi eq, %par, %c0 : index
    %w, %n = scf.if %is_even -> (!pypto.tensor<[64, 32], f32>, index) {
      %e = pypto.tile.exp %t : !pypto.tile<[8, 32], f32, vec>
      %w1 = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[8, 32], f32, vec>, !pypto.tensor<[64, 32], f32>
      %n1 = arith.addi %even, %c1 : index
      scf.yield %w1, %n1 : !pypto.tensor<[64, 32], f32>, index
    } else {
      %u = pypto.tile.relu %t : !pypto.tile<[8, 32], f32, vec>
      %w2 = pypto.tile.store %u, %acc[%i, %c0] : !pypto.tile<[8, 32], f32, vec>, !pypto.tensor<[64, 32], f32>
      scf.yield %w2, %even : !pypto.tensor<[64, 32], f32>, index
    }
    scf.yield %w, %n : !pypto.tensor<[64, 32], f32>, index
  }
  %c2f = arith.constant 2.5 : f32
  %c3f = arith.constant -0.25 : f32
  %many = arith.cmpi sgt, %r#1, %c2 : index
  %f = arith.select %many, %c2f, %c3f : f32
  %t0 = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 32], f32> -> !pypto.tile<[8, 32], f32, vec>
  %sc = pypto.tile.muls %t0, %f : !pypto.tile<[8, 32], f32, vec>, f32
  %wt = pypto.tile.store %sc, %tail[%c0, %c0] : !pypto.tile<[8, 32], f32, vec>, !pypto.tensor<[8, 32], f32>
  pypto.return %r#0, %wt : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[64, 32], f32>, %rows: index, out %y: !pypto.tensor<[64, 32], f32>, out %tail: !pypto.tensor<[8, 32], f32>) -> (!pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>) {
  %r:2 = pypto.call @cf_kernel(%x, %rows, %y, %tail) : (!pypto.tensor<[64, 32], f32>, index, !pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>) -> (!pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>)
  pypto.return %r#0, %r#1 : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[8, 32], f32>
}

// CHECK-LABEL: // ===== file: kernels/cf_kernel.cpp =====
// CHECK: // Unified Buffer plan: 6144 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void cf_kernel(GM_ADDR x, int64_t rows, GM_ADDR y, GM_ADDR tail) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 2048);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 2048);
// CHECK-NEXT: GlobalTensor<float> tail_gm;
// CHECK-NEXT: tail_gm.SetGlobalBuffer((__gm__ float*)tail, 256);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_e;  // %e, %u (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t0;  // %t0 !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_sc;  // %sc !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 1024);
// CHECK-NEXT: pipe.InitBuffer(outQ_e, 2, 1024);
// CHECK-NEXT: pipe.InitBuffer(inQ_t0, 1, 1024);
// CHECK-NEXT: pipe.InitBuffer(outQ_sc, 1, 1024);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[0], 256);
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: int64_t even = 0;
// CHECK-NEXT: for (int64_t i = 0; i < 64; i += rows) {
// CHECK-NEXT: const int64_t i_next = i + rows;
// CHECK-NEXT: const bool has_next = i_next < 64;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[i_next * 32], 256);
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: const int64_t blk = i / rows;
// CHECK-NEXT: const int64_t par = blk % 2;
// CHECK-NEXT: const bool is_even = par == 0;
// CHECK-NEXT: int64_t n{};
// CHECK-NEXT: if (is_even) {
// CHECK-NEXT: LocalTensor<float> e = outQ_e.AllocTensor<float>();
// CHECK-NEXT: Exp(e, t, 256);
// CHECK-NEXT: outQ_e.EnQue(e);
// CHECK-NEXT: e = outQ_e.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[i * 32], e, 256);
// CHECK-NEXT: outQ_e.FreeTensor(e);
// CHECK-NEXT: const int64_t n1 = even + 1;
// CHECK-NEXT: n = n1;
// CHECK-NEXT: } else {
// CHECK-NEXT: LocalTensor<float> u = outQ_e.AllocTensor<float>();
// CHECK-NEXT: Relu(u, t, 256);
// CHECK-NEXT: outQ_e.EnQue(u);
// CHECK-NEXT: u = outQ_e.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[i * 32], u, 256);
// CHECK-NEXT: outQ_e.FreeTensor(u);
// CHECK-NEXT: n = even;
// CHECK-NEXT: }
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: even = n;
// CHECK-NEXT: }
// CHECK-NEXT: const bool many = even > 2;
// CHECK-NEXT: const float f = many ? 2.5f : -0.25f;
// CHECK-NEXT: LocalTensor<float> t0 = inQ_t0.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t0, x_gm, 256);
// CHECK-NEXT: inQ_t0.EnQue(t0);
// CHECK-NEXT: t0 = inQ_t0.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> sc = outQ_sc.AllocTensor<float>();
// CHECK-NEXT: Muls(sc, t0, f, 256);
// CHECK-NEXT: inQ_t0.FreeTensor(t0);
// CHECK-NEXT: outQ_sc.EnQue(sc);
// CHECK-NEXT: sc = outQ_sc.DeQue<float>();
// CHECK-NEXT: DataCopy(tail_gm, sc, 256);
// CHECK-NEXT: outQ_sc.FreeTensor(sc);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_cf_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, int64_t rows, float* y_host, float* tail_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 8192, x_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 8192, y_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&tail_dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(tail_dev, 1024, tail_host, 1024, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(cf_kernel)(1, stream, x_dev, rows, y_dev, tail_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 8192, y_dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(tail_host, 1024, tail_dev, 1024, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
