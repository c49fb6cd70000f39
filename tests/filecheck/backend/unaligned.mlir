// RUN: pypto-opt %s -t ascendc | filecheck %s
// Shapes that are not 32-byte aligned: a [10, 13] f32 tensor (52-byte rows) moves with
// DataCopyPad into 64-byte UB rows; row_sum reduces 13 of 16 lanes; the [10, 1] result (40 bytes)
// and a [1, 13] row are stored with DataCopyPad too.

pypto.func incore @unaligned_kernel(%x: !pypto.tensor<[10, 13], f32>, out %y: !pypto.tensor<[10, 13], f32>, out %s: !pypto.tensor<[10, 1], f32>, out %first: !pypto.tensor<[1, 13], f32>) -> (!pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %k = arith.constant 1.5 : f32
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[10, 13], f32> -> !pypto.tile<[10, 13], f32, vec>
  %u = pypto.tile.muls %t, %k : !pypto.tile<[10, 13], f32, vec>, f32
  %wy = pypto.tile.store %u, %y[%c0, %c0] : !pypto.tile<[10, 13], f32, vec>, !pypto.tensor<[10, 13], f32>
  %rs = pypto.tile.row_sum %t : !pypto.tile<[10, 13], f32, vec> -> !pypto.tile<[10, 1], f32, vec>
  %ws = pypto.tile.store %rs, %s[%c0, %c0] : !pypto.tile<[10, 1], f32, vec>, !pypto.tensor<[10, 1], f32>
  %row = pypto.tile.load %x[%c2, %c0] : !pypto.tensor<[10, 13], f32> -> !pypto.tile<[1, 13], f32, vec>
  %wf = pypto.tile.store %row, %first[%c0, %c0] : !pypto.tile<[1, 13], f32, vec>, !pypto.tensor<[1, 13], f32>
  pypto.return %wy, %ws, %wf : !pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[10, 13], f32>, out %y: !pypto.tensor<[10, 13], f32>, out %s: !pypto.tensor<[10, 1], f32>, out %first: !pypto.tensor<[1, 13], f32>) -> (!pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>) {
  %r:3 = pypto.call @unaligned_kernel(%x, %y, %s, %first) : (!pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>) -> (!pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>)
  pypto.return %r#0, %r#1, %r#2 : !pypto.tensor<[10, 13], f32>, !pypto.tensor<[10, 1], f32>, !pypto.tensor<[1, 13], f32>
}

// CHECK-LABEL: // ===== file: kernels/unaligned_kernel.cpp =====
// CHECK: // Unified Buffer plan: 1472 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void unaligned_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR s, GM_ADDR first) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 130);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 130);
// CHECK-NEXT: GlobalTensor<float> s_gm;
// CHECK-NEXT: s_gm.SetGlobalBuffer((__gm__ float*)s, 10);
// CHECK-NEXT: GlobalTensor<float> first_gm;
// CHECK-NEXT: first_gm.SetGlobalBuffer((__gm__ float*)first, 13);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t;  // %t !pypto.tile<[10, 13], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_u;  // %u !pypto.tile<[10, 13], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_rs;  // %rs !pypto.tile<[10, 1], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_row;  // %row !pypto.tile<[1, 13], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_row_out;  // %row.out (store staging)
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 1, 640);
// CHECK-NEXT: pipe.InitBuffer(outQ_u, 1, 640);
// CHECK-NEXT: pipe.InitBuffer(outQ_rs, 1, 64);
// CHECK-NEXT: pipe.InitBuffer(inQ_row, 1, 64);
// CHECK-NEXT: pipe.InitBuffer(outQ_row_out, 1, 64);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopyPad(t, x_gm, DataCopyExtParams(10, 52, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> u = outQ_u.AllocTensor<float>();
// CHECK-NEXT: Muls(u, t, 1.5f, 160);
// CHECK-NEXT: outQ_u.EnQue(u);
// CHECK-NEXT: u = outQ_u.DeQue<float>();
// CHECK-NEXT: DataCopyPad(y_gm, u, DataCopyExtParams(10, 52, 0, 0, 0));
// CHECK-NEXT: outQ_u.FreeTensor(u);
// CHECK-NEXT: LocalTensor<float> rs = outQ_rs.AllocTensor<float>();
// CHECK-NEXT: WholeReduceSum(rs, t, 13, 10, 1, 1, 2);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_rs.EnQue(rs);
// CHECK-NEXT: rs = outQ_rs.DeQue<float>();
// CHECK-NEXT: DataCopyPad(s_gm, rs, DataCopyExtParams(1, 40, 0, 0, 0));
// CHECK-NEXT: outQ_rs.FreeTensor(rs);
// CHECK-NEXT: LocalTensor<float> row = inQ_row.AllocTensor<float>();
// CHECK-NEXT: DataCopyPad(row, x_gm[26], DataCopyExtParams(1, 52, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK-NEXT: inQ_row.EnQue(row);
// CHECK-NEXT: row = inQ_row.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> row_out = outQ_row_out.AllocTensor<float>();
// CHECK-NEXT: DataCopy(row_out, row, 16);
// CHECK-NEXT: outQ_row_out.EnQue(row_out);
// CHECK-NEXT: row_out = outQ_row_out.DeQue<float>();
// CHECK-NEXT: DataCopyPad(first_gm, row_out, DataCopyExtParams(1, 52, 0, 0, 0));
// CHECK-NEXT: outQ_row_out.FreeTensor(row_out);
// CHECK-NEXT: inQ_row.FreeTensor(row);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_unaligned_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host, float* s_host, float* first_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 520, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 520, x_host, 520, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 520, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 520, y_host, 520, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&s_dev, 40, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(s_dev, 40, s_host, 40, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&first_dev, 52, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(first_dev, 52, first_host, 52, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(unaligned_kernel)(1, stream, x_dev, y_dev, s_dev, first_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 520, y_dev, 520, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(s_host, 40, s_dev, 40, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(first_host, 52, first_dev, 52, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
