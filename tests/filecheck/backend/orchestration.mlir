// RUN: pypto-opt %s -t ascendc | filecheck %s
// Orchestration with two kernels, an intermediate device tensor (tensor.create) and task deps:
// tmp = x + y (task t0); z = exp(tmp) * x after t0 (task t1), and a scaled copy in a host loop.

pypto.func incore @add_k(%a: !pypto.tensor<[16, 64], f32>, %b: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %s = pypto.tile.add %ta, %tb : !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %s, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}

pypto.func incore @exp_mul_k(%a: !pypto.tensor<[16, 64], f32>, %b: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %e = pypto.tile.exp %ta : !pypto.tile<[16, 64], f32, vec>
  %m = pypto.tile.mul %e, %tb : !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %m, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}

pypto.func incore @scale_k(%a: !pypto.tensor<[16, 64], f32>, %k: f32, inout %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %to = pypto.tile.load %o[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %s = pypto.tile.muls %ta, %k : !pypto.tile<[16, 64], f32, vec>, f32
  %acc = pypto.tile.add %to, %s : !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[16, 64], f32>, %y: !pypto.tensor<[16, 64], f32>, out %z: !pypto.tensor<[16, 64], f32>, inout %acc: !pypto.tensor<[16, 64], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>) {
  %tmp = pypto.tensor.create : !pypto.tensor<[16, 64], f32>
  %t1, %t0 = pypto.submit @add_k(%x, %y, %tmp) : (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>) -> (!pypto.tensor<[16, 64], f32>)
  %z1, %tz = pypto.submit @exp_mul_k(%t1, %x, %z) deps(%t0) : (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>) -> (!pypto.tensor<[16, 64], f32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %a = scf.for %i = %c0 to %c3 step %c1 iter_args(%cur = %acc) -> (!pypto.tensor<[16, 64], f32>) {
    %n = pypto.call @scale_k(%z1, %half, %cur) : (!pypto.tensor<[16, 64], f32>, f32, !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32>
    scf.yield %n : !pypto.tensor<[16, 64], f32>
  }
  pypto.return %z1, %a : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/add_k.cpp =====
// CHECK: // Unified Buffer plan: 12288 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void add_k(GM_ADDR a, GM_ADDR b, GM_ADDR o) {
// CHECK-NEXT: GlobalTensor<float> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ float*)a, 1024);
// CHECK-NEXT: GlobalTensor<float> b_gm;
// CHECK-NEXT: b_gm.SetGlobalBuffer((__gm__ float*)b, 1024);
// CHECK-NEXT: GlobalTensor<float> o_gm;
// CHECK-NEXT: o_gm.SetGlobalBuffer((__gm__ float*)o, 1024);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_tb;  // %tb !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_s;  // %s !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(inQ_tb, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(outQ_s, 1, 4096);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> ta = inQ_ta.AllocTensor<float>();
// CHECK-NEXT: DataCopy(ta, a_gm, 1024);
// CHECK-NEXT: inQ_ta.EnQue(ta);
// CHECK-NEXT: ta = inQ_ta.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> tb = inQ_tb.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tb, b_gm, 1024);
// CHECK-NEXT: inQ_tb.EnQue(tb);
// CHECK-NEXT: tb = inQ_tb.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> s = outQ_s.AllocTensor<float>();
// CHECK-NEXT: Add(s, ta, tb, 1024);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: inQ_tb.FreeTensor(tb);
// CHECK-NEXT: outQ_s.EnQue(s);
// CHECK-NEXT: s = outQ_s.DeQue<float>();
// CHECK-NEXT: DataCopy(o_gm, s, 1024);
// CHECK-NEXT: outQ_s.FreeTensor(s);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_add_k.h =====
// CHECK-LABEL: // ===== file: kernels/exp_mul_k.cpp =====
// CHECK: // Unified Buffer plan: 16384 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void exp_mul_k(GM_ADDR a, GM_ADDR b, GM_ADDR o) {
// CHECK-NEXT: GlobalTensor<float> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ float*)a, 1024);
// CHECK-NEXT: GlobalTensor<float> b_gm;
// CHECK-NEXT: b_gm.SetGlobalBuffer((__gm__ float*)b, 1024);
// CHECK-NEXT: GlobalTensor<float> o_gm;
// CHECK-NEXT: o_gm.SetGlobalBuffer((__gm__ float*)o, 1024);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_tb;  // %tb !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_e;  // %e !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_m;  // %m !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(inQ_tb, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(buf_e, 4096);
// CHECK-NEXT: pipe.InitBuffer(outQ_m, 1, 4096);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> ta = inQ_ta.AllocTensor<float>();
// CHECK-NEXT: DataCopy(ta, a_gm, 1024);
// CHECK-NEXT: inQ_ta.EnQue(ta);
// CHECK-NEXT: ta = inQ_ta.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> tb = inQ_tb.AllocTensor<float>();
// CHECK-NEXT: DataCopy(tb, b_gm, 1024);
// CHECK-NEXT: inQ_tb.EnQue(tb);
// CHECK-NEXT: tb = inQ_tb.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> e = buf_e.Get<float>();
// CHECK-NEXT: Exp(e, ta, 1024);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> m = outQ_m.AllocTensor<float>();
// CHECK-NEXT: Mul(m, e, tb, 1024);
// CHECK-NEXT: inQ_tb.FreeTensor(tb);
// CHECK-NEXT: outQ_m.EnQue(m);
// CHECK-NEXT: m = outQ_m.DeQue<float>();
// CHECK-NEXT: DataCopy(o_gm, m, 1024);
// CHECK-NEXT: outQ_m.FreeTensor(m);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_exp_mul_k.h =====
// CHECK-LABEL: // ===== file: kernels/scale_k.cpp =====
// CHECK: // Unified Buffer plan: 16384 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void scale_k(GM_ADDR a, float k, GM_ADDR o) {
// CHECK-NEXT: GlobalTensor<float> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ float*)a, 1024);
// CHECK-NEXT: GlobalTensor<float> o_gm;
// CHECK-NEXT: o_gm.SetGlobalBuffer((__gm__ float*)o, 1024);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_to;  // %to !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_s;  // %s !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_acc;  // %acc !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(inQ_to, 1, 4096);
// CHECK-NEXT: pipe.InitBuffer(buf_s, 4096);
// CHECK-NEXT: pipe.InitBuffer(outQ_acc, 1, 4096);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> ta = inQ_ta.AllocTensor<float>();
// CHECK-NEXT: DataCopy(ta, a_gm, 1024);
// CHECK-NEXT: inQ_ta.EnQue(ta);
// CHECK-NEXT: ta = inQ_ta.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> to = inQ_to.AllocTensor<float>();
// CHECK-NEXT: DataCopy(to, o_gm, 1024);
// CHECK-NEXT: inQ_to.EnQue(to);
// CHECK-NEXT: to = inQ_to.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> s = buf_s.Get<float>();
// CHECK-NEXT: Muls(s, ta, k, 1024);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> acc = outQ_acc.AllocTensor<float>();
// CHECK-NEXT: Add(acc, to, s, 1024);
// CHECK-NEXT: inQ_to.FreeTensor(to);
// CHECK-NEXT: outQ_acc.EnQue(acc);
// CHECK-NEXT: acc = outQ_acc.DeQue<float>();
// CHECK-NEXT: DataCopy(o_gm, acc, 1024);
// CHECK-NEXT: outQ_acc.FreeTensor(acc);
// The kernel's only store is its last copy: no copy-in follows, so no MTE3_MTE2 flag pair.
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_scale_k.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, const float* y_host, float* z_host, float* acc_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 4096, x_host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 4096, y_host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&z_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_dev, 4096, z_host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&acc_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(acc_dev, 4096, acc_host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&tmp_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: // task t0: @add_k (launches on one stream run in order)
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(add_k)(1, stream, x_dev, y_dev, tmp_dev));
// CHECK: // task tz: @exp_mul_k after t0 (launches on one stream run in order)
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(exp_mul_k)(1, stream, tmp_dev, x_dev, z_dev));
// CHECK: for (int64_t i = 0; i < 3; ++i) {
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(scale_k)(1, stream, z_dev, 0.5f, acc_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(z_host, 4096, z_dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(acc_host, 4096, acc_dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
