// RUN: pypto-opt %s -t ascendc | filecheck %s
// f16 and i32 tiles: half arithmetic (h = exp(a) * 2 + a), int32 elementwise (n = max(i * 3, j) - j),
// and casts f16 -> f32 and f32 -> i32 (truncation toward zero).

pypto.func incore @dtype_kernel(%a: !pypto.tensor<[16, 32], f16>, %i: !pypto.tensor<[8, 64], i32>, %j: !pypto.tensor<[8, 64], i32>, out %h: !pypto.tensor<[16, 32], f16>, out %hf: !pypto.tensor<[16, 32], f32>, out %n: !pypto.tensor<[8, 64], i32>, out %ti: !pypto.tensor<[16, 32], i32>) -> (!pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f16
  %three = arith.constant 3 : i32
  %two32 = arith.constant 2.75 : f32
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 32], f16> -> !pypto.tile<[16, 32], f16, vec>
  %e = pypto.tile.exp %ta : !pypto.tile<[16, 32], f16, vec>
  %e2 = pypto.tile.muls %e, %two : !pypto.tile<[16, 32], f16, vec>, f16
  %th = pypto.tile.add %e2, %ta : !pypto.tile<[16, 32], f16, vec>
  %w1 = pypto.tile.store %th, %h[%c0, %c0] : !pypto.tile<[16, 32], f16, vec>, !pypto.tensor<[16, 32], f16>
  %f = pypto.tile.cast %th : !pypto.tile<[16, 32], f16, vec> -> !pypto.tile<[16, 32], f32, vec>
  %w2 = pypto.tile.store %f, %hf[%c0, %c0] : !pypto.tile<[16, 32], f32, vec>, !pypto.tensor<[16, 32], f32>
  %f3 = pypto.tile.muls %f, %two32 : !pypto.tile<[16, 32], f32, vec>, f32
  %tr = pypto.tile.cast %f3 : !pypto.tile<[16, 32], f32, vec> -> !pypto.tile<[16, 32], i32, vec>
  %w4 = pypto.tile.store %tr, %ti[%c0, %c0] : !pypto.tile<[16, 32], i32, vec>, !pypto.tensor<[16, 32], i32>
  %ti0 = pypto.tile.load %i[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %tj = pypto.tile.load %j[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %m3 = pypto.tile.muls %ti0, %three : !pypto.tile<[8, 64], i32, vec>, i32
  %mx = pypto.tile.maximum %m3, %tj : !pypto.tile<[8, 64], i32, vec>
  %d = pypto.tile.sub %mx, %tj : !pypto.tile<[8, 64], i32, vec>
  %w3 = pypto.tile.store %d, %n[%c0, %c0] : !pypto.tile<[8, 64], i32, vec>, !pypto.tensor<[8, 64], i32>
  pypto.return %w1, %w2, %w3, %w4 : !pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[16, 32], f16>, %i: !pypto.tensor<[8, 64], i32>, %j: !pypto.tensor<[8, 64], i32>, out %h: !pypto.tensor<[16, 32], f16>, out %hf: !pypto.tensor<[16, 32], f32>, out %n: !pypto.tensor<[8, 64], i32>, out %ti: !pypto.tensor<[16, 32], i32>) -> (!pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>) {
  %r:4 = pypto.call @dtype_kernel(%a, %i, %j, %h, %hf, %n, %ti) : (!pypto.tensor<[16, 32], f16>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>) -> (!pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>)
  pypto.return %r#0, %r#1, %r#2, %r#3 : !pypto.tensor<[16, 32], f16>, !pypto.tensor<[16, 32], f32>, !pypto.tensor<[8, 64], i32>, !pypto.tensor<[16, 32], i32>
}

// CHECK-LABEL: // ===== file: kernels/dtype_kernel.cpp =====
// CHECK: // Unified Buffer plan: 16384 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void dtype_kernel(GM_ADDR a, GM_ADDR i, GM_ADDR j, GM_ADDR h, GM_ADDR hf, GM_ADDR n, GM_ADDR ti) {
// CHECK-NEXT: GlobalTensor<half> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ half*)a, 512);
// CHECK-NEXT: GlobalTensor<int32_t> i_gm;
// CHECK-NEXT: i_gm.SetGlobalBuffer((__gm__ int32_t*)i, 512);
// CHECK-NEXT: GlobalTensor<int32_t> j_gm;
// CHECK-NEXT: j_gm.SetGlobalBuffer((__gm__ int32_t*)j, 512);
// CHECK-NEXT: GlobalTensor<half> h_gm;
// CHECK-NEXT: h_gm.SetGlobalBuffer((__gm__ half*)h, 512);
// CHECK-NEXT: GlobalTensor<float> hf_gm;
// CHECK-NEXT: hf_gm.SetGlobalBuffer((__gm__ float*)hf, 512);
// CHECK-NEXT: GlobalTensor<int32_t> n_gm;
// CHECK-NEXT: n_gm.SetGlobalBuffer((__gm__ int32_t*)n, 512);
// CHECK-NEXT: GlobalTensor<int32_t> ti_gm;
// CHECK-NEXT: ti_gm.SetGlobalBuffer((__gm__ int32_t*)ti, 512);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_ta;  // %ta !pypto.tile<[16, 32], f16, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %e, %th, %f3, %m3 (disjoint live ranges)
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf1;  // %e2, %f, %mx (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_th_out;  // %th.out (store staging)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_f_out;  // %f.out (store staging)
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_tr;  // %tr !pypto.tile<[16, 32], i32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_ti0;  // %ti0 !pypto.tile<[8, 64], i32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_tj;  // %tj !pypto.tile<[8, 64], i32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_d;  // %d !pypto.tile<[8, 64], i32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_ta, 1, 1024);
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 2048);
// CHECK-NEXT: pipe.InitBuffer(calcBuf1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_th_out, 1, 1024);
// CHECK-NEXT: pipe.InitBuffer(outQ_f_out, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_tr, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(inQ_ti0, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(inQ_tj, 1, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_d, 1, 2048);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<half> ta = inQ_ta.AllocTensor<half>();
// CHECK-NEXT: DataCopy(ta, a_gm, 512);
// CHECK-NEXT: inQ_ta.EnQue(ta);
// CHECK-NEXT: ta = inQ_ta.DeQue<half>();
// CHECK-NEXT: LocalTensor<half> e = calcBuf0.Get<half>();
// CHECK-NEXT: Exp(e, ta, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<half> e2 = calcBuf1.Get<half>();
// CHECK-NEXT: Muls(e2, e, static_cast<half>(2.0f), 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<half> th = calcBuf0.Get<half>();
// CHECK-NEXT: Add(th, e2, ta, 512);
// CHECK-NEXT: inQ_ta.FreeTensor(ta);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<half> th_out = outQ_th_out.AllocTensor<half>();
// CHECK-NEXT: DataCopy(th_out, th, 512);
// CHECK-NEXT: outQ_th_out.EnQue(th_out);
// CHECK-NEXT: th_out = outQ_th_out.DeQue<half>();
// CHECK-NEXT: DataCopy(h_gm, th_out, 512);
// CHECK-NEXT: outQ_th_out.FreeTensor(th_out);
// CHECK-NEXT: LocalTensor<float> f = calcBuf1.Get<float>();
// CHECK-NEXT: Cast(f, th, RoundMode::CAST_NONE, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> f_out = outQ_f_out.AllocTensor<float>();
// CHECK-NEXT: DataCopy(f_out, f, 512);
// CHECK-NEXT: outQ_f_out.EnQue(f_out);
// CHECK-NEXT: f_out = outQ_f_out.DeQue<float>();
// CHECK-NEXT: DataCopy(hf_gm, f_out, 512);
// CHECK-NEXT: outQ_f_out.FreeTensor(f_out);
// CHECK-NEXT: LocalTensor<float> f3 = calcBuf0.Get<float>();
// CHECK-NEXT: Muls(f3, f, 2.75f, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<int32_t> tr = outQ_tr.AllocTensor<int32_t>();
// CHECK-NEXT: Cast(tr, f3, RoundMode::CAST_TRUNC, 512);
// CHECK-NEXT: outQ_tr.EnQue(tr);
// CHECK-NEXT: tr = outQ_tr.DeQue<int32_t>();
// CHECK-NEXT: DataCopy(ti_gm, tr, 512);
// CHECK-NEXT: outQ_tr.FreeTensor(tr);
// CHECK-NEXT: LocalTensor<int32_t> ti0 = inQ_ti0.AllocTensor<int32_t>();
// CHECK-NEXT: DataCopy(ti0, i_gm, 512);
// CHECK-NEXT: inQ_ti0.EnQue(ti0);
// CHECK-NEXT: ti0 = inQ_ti0.DeQue<int32_t>();
// CHECK-NEXT: LocalTensor<int32_t> tj = inQ_tj.AllocTensor<int32_t>();
// CHECK-NEXT: DataCopy(tj, j_gm, 512);
// CHECK-NEXT: inQ_tj.EnQue(tj);
// CHECK-NEXT: tj = inQ_tj.DeQue<int32_t>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<int32_t> m3 = calcBuf0.Get<int32_t>();
// CHECK-NEXT: Muls(m3, ti0, 3, 512);
// CHECK-NEXT: inQ_ti0.FreeTensor(ti0);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<int32_t> mx = calcBuf1.Get<int32_t>();
// CHECK-NEXT: Max(mx, m3, tj, 512);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<int32_t> d = outQ_d.AllocTensor<int32_t>();
// CHECK-NEXT: Sub(d, mx, tj, 512);
// CHECK-NEXT: inQ_tj.FreeTensor(tj);
// CHECK-NEXT: outQ_d.EnQue(d);
// CHECK-NEXT: d = outQ_d.DeQue<int32_t>();
// CHECK-NEXT: DataCopy(n_gm, d, 512);
// CHECK-NEXT: outQ_d.FreeTensor(d);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_dtype_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const aclFloat16* a_host, const int32_t* i_host, const int32_t* j_host, aclFloat16* h_host, float* hf_host, int32_t* n_host, int32_t* ti_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&a_dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(a_dev, 1024, a_host, 1024, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&i_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(i_dev, 2048, i_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&j_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(j_dev, 2048, j_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&h_dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(h_dev, 1024, h_host, 1024, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&hf_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(hf_dev, 2048, hf_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&n_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(n_dev, 2048, n_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&ti_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(ti_dev, 2048, ti_host, 2048, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(dtype_kernel)(1, stream, a_dev, i_dev, j_dev, h_dev, hf_dev, n_dev, ti_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(h_host, 1024, h_dev, 1024, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(hf_host, 2048, hf_dev, 2048, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(n_host, 2048, n_dev, 2048, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(ti_host, 2048, ti_dev, 2048, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
