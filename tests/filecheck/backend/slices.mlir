// RUN: pypto-opt %s -t ascendc | filecheck %s
// tensor.slice views in a kernel (a window of a parameter; loads and stores address the
// parameter with its row length) and in the orchestration (a contiguous row block passed to a
// kernel as a device pointer offset), tensor.assemble in the orchestration (a 2-D
// device-to-device copy on the stream) and tensor.dim.

pypto.func incore @window_kernel(%x: !pypto.tensor<[32, 96], f32>, out %y: !pypto.tensor<[32, 96], f32>) -> !pypto.tensor<[32, 96], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // the [16, 64] window at (8, 32) of x and y, processed in [8, 64] tiles
  %xv = pypto.tensor.slice %x[%c8, %c32] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[16, 64], f32>
  %yv = pypto.tensor.slice %y[%c8, %c32] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[16, 64], f32>
  %rows = pypto.tensor.dim %xv, 0 : !pypto.tensor<[16, 64], f32>
  %r = scf.for %i = %c0 to %rows step %c8 iter_args(%acc = %yv) -> (!pypto.tensor<[16, 64], f32>) {
    %t = pypto.tile.load %xv[%i, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %e = pypto.tile.abs %t : !pypto.tile<[8, 64], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
    scf.yield %w : !pypto.tensor<[16, 64], f32>
  }
  pypto.return %y : !pypto.tensor<[32, 96], f32>
}

pypto.func incore @neg_kernel(%x: !pypto.tensor<[8, 96], f32>, out %y: !pypto.tensor<[8, 96], f32>) -> !pypto.tensor<[8, 96], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 96], f32> -> !pypto.tile<[8, 96], f32, vec>
  %n = pypto.tile.neg %t : !pypto.tile<[8, 96], f32, vec>
  %w = pypto.tile.store %n, %y[%c0, %c0] : !pypto.tile<[8, 96], f32, vec>, !pypto.tensor<[8, 96], f32>
  pypto.return %w : !pypto.tensor<[8, 96], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[32, 96], f32>, inout %y: !pypto.tensor<[32, 96], f32>, out %z: !pypto.tensor<[16, 128], f32>) -> (!pypto.tensor<[32, 96], f32>, !pypto.tensor<[16, 128], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c24 = arith.constant 24 : index
  %c96 = arith.constant 96 : index
  %y1 = pypto.call @window_kernel(%x, %y) : (!pypto.tensor<[32, 96], f32>, !pypto.tensor<[32, 96], f32>) -> !pypto.tensor<[32, 96], f32>
  // rows 24..31 of x and y (contiguous): y[24:32] = -x[24:32]
  %xs = pypto.tensor.slice %x[%c24, %c0] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[8, 96], f32>
  %ys = pypto.tensor.slice %y1[%c24, %c0] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[8, 96], f32>
  %ys1 = pypto.call @neg_kernel(%xs, %ys) : (!pypto.tensor<[8, 96], f32>, !pypto.tensor<[8, 96], f32>) -> !pypto.tensor<[8, 96], f32>
  // z[:, 0:96] = y[0:16, :] (contiguous source); z[:, 96:128] = x[4:20, 0:32] (strided source)
  %top = pypto.tensor.slice %y1[%c0, %c0] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[16, 96], f32>
  %z1 = pypto.tensor.assemble %top into %z[%c0, %c0] : !pypto.tensor<[16, 96], f32> into !pypto.tensor<[16, 128], f32>
  %x8 = pypto.tensor.slice %x[%c4, %c0] : !pypto.tensor<[32, 96], f32> -> !pypto.tensor<[16, 96], f32>
  %xw = pypto.tensor.slice %x8[%c0, %c0] : !pypto.tensor<[16, 96], f32> -> !pypto.tensor<[16, 32], f32>
  %z2 = pypto.tensor.assemble %xw into %z1[%c0, %c96] : !pypto.tensor<[16, 32], f32> into !pypto.tensor<[16, 128], f32>
  pypto.return %y1, %z2 : !pypto.tensor<[32, 96], f32>, !pypto.tensor<[16, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/window_kernel.cpp =====
// CHECK: // Unified Buffer plan: 8192 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void window_kernel(GM_ADDR x, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 3072);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 3072);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_e;  // %e !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_e, 2, 2048);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[800], DataCopyParams(8, 8, 4, 0));
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: for (int64_t i = 0; i < 16; i += 8) {
// CHECK-NEXT: const int64_t i_next = i + 8;
// CHECK-NEXT: const bool has_next = i_next < 16;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[i_next * 96 + 800], DataCopyParams(8, 8, 4, 0));
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> e = outQ_e.AllocTensor<float>();
// CHECK-NEXT: Abs(e, t, 512);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_e.EnQue(e);
// CHECK-NEXT: e = outQ_e.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[800 + i * 96], e, DataCopyParams(8, 8, 0, 4));
// CHECK-NEXT: outQ_e.FreeTensor(e);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_window_kernel.h =====
// CHECK-LABEL: // ===== file: kernels/neg_kernel.cpp =====
// CHECK: // Unified Buffer plan: 6144 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void neg_kernel(GM_ADDR x, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 768);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 768);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 1> inQ_t;  // %t !pypto.tile<[8, 96], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_n;  // %n !pypto.tile<[8, 96], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 1, 3072);
// CHECK-NEXT: pipe.InitBuffer(outQ_n, 1, 3072);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t, x_gm, 768);
// CHECK-NEXT: inQ_t.EnQue(t);
// CHECK-NEXT: t = inQ_t.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> n = outQ_n.AllocTensor<float>();
// CHECK-NEXT: Muls(n, t, static_cast<float>(-1), 768);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: outQ_n.EnQue(n);
// CHECK-NEXT: n = outQ_n.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm, n, 768);
// CHECK-NEXT: outQ_n.FreeTensor(n);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_neg_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host, float* z_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 12288, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 12288, x_host, 12288, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 12288, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 12288, y_host, 12288, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&z_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_dev, 8192, z_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(window_kernel)(1, stream, x_dev, y_dev));
// CHECK: void* xs_dev = static_cast<uint8_t*>(x_dev) + 9216;  // %xs: !pypto.tensor<[8, 96], f32>
// CHECK: void* ys_dev = static_cast<uint8_t*>(y_dev) + 9216;  // %ys: !pypto.tensor<[8, 96], f32>
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(neg_kernel)(1, stream, xs_dev, ys_dev));
// CHECK: CHECK_ACL(aclrtMemcpy2dAsync(z_dev, 512, y_dev, 384, 384, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));  // %z1
// CHECK: CHECK_ACL(aclrtMemcpy2dAsync(static_cast<uint8_t*>(z_dev) + 384, 512, static_cast<uint8_t*>(x_dev) + 1536, 384, 128, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));  // %z2
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 12288, y_dev, 12288, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(aclrtMemcpy(z_host, 8192, z_dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
