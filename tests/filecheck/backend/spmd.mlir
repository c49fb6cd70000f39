// RUN: pypto-opt %s -t ascendc | filecheck %s
// SPMD: the kernel is launched on 4 blocks ({pypto.block_dim = 4}); the [128, 64] tensor is cut
// into 16 chunks of 8 rows and block b handles chunks b, b + 4, b + 8, ... (cyclic), writing relu(x) * 3.

pypto.func incore @spmd_kernel(%x: !pypto.tensor<[128, 64], f32>, out %y: !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[128, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %three = arith.constant 3.0 : f32
  %b = pypto.tile.get_block_idx : index
  %n = pypto.tile.get_block_num : index
  %r = scf.for %k = %b to %c16 step %n iter_args(%acc = %y) -> (!pypto.tensor<[128, 64], f32>) {
    %row = arith.muli %k, %c8 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %u = pypto.tile.relu %t : !pypto.tile<[8, 64], f32, vec>
    %v = pypto.tile.muls %u, %three : !pypto.tile<[8, 64], f32, vec>, f32
    %w = pypto.tile.store %v, %acc[%row, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[128, 64], f32>
    scf.yield %w : !pypto.tensor<[128, 64], f32>
  }
  pypto.return %r : !pypto.tensor<[128, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[128, 64], f32>, out %y: !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[128, 64], f32> {
  %r = pypto.call @spmd_kernel(%x, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[128, 64], f32>, !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[128, 64], f32>
  pypto.return %r : !pypto.tensor<[128, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/spmd_kernel.cpp =====
// CHECK: // Unified Buffer plan: 10240 of 196608 bytes.
// CHECK: extern "C" __global__ __aicore__ void spmd_kernel(GM_ADDR x, GM_ADDR y) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 8192);
// CHECK-NEXT: GlobalTensor<float> y_gm;
// CHECK-NEXT: y_gm.SetGlobalBuffer((__gm__ float*)y, 8192);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_t;  // %t !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TBuf<TPosition::VECCALC> buf_u;  // %u !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 2> outQ_v;  // %v !pypto.tile<[8, 64], f32, vec>
// CHECK-NEXT: pipe.InitBuffer(inQ_t, 2, 2048);
// CHECK-NEXT: pipe.InitBuffer(buf_u, 2048);
// CHECK-NEXT: pipe.InitBuffer(outQ_v, 2, 2048);
// CHECK-EMPTY:
// CHECK-NEXT: const bool has_first = AscendC::GetBlockIdx() < 16;
// CHECK-NEXT: if (has_first) {
// CHECK-NEXT: const int64_t row = AscendC::GetBlockIdx() * 8;
// CHECK-NEXT: LocalTensor<float> t_first = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_first, x_gm[row * 64], 512);
// CHECK-NEXT: inQ_t.EnQue(t_first);
// CHECK-NEXT: }
// CHECK-NEXT: for (int64_t k = AscendC::GetBlockIdx(); k < 16; k += AscendC::GetBlockNum()) {
// CHECK-NEXT: const int64_t k_next = k + AscendC::GetBlockNum();
// CHECK-NEXT: const bool has_next = k_next < 16;
// CHECK-NEXT: if (has_next) {
// CHECK-NEXT: const int64_t row_1 = k_next * 8;
// CHECK-NEXT: LocalTensor<float> t_next = inQ_t.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_next, x_gm[row_1 * 64], 512);
// CHECK-NEXT: inQ_t.EnQue(t_next);
// CHECK-NEXT: }
// CHECK-NEXT: const int64_t row_2 = k * 8;
// CHECK-NEXT: LocalTensor<float> t = inQ_t.DeQue<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> u = buf_u.Get<float>();
// CHECK-NEXT: Relu(u, t, 512);
// CHECK-NEXT: inQ_t.FreeTensor(t);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> v = outQ_v.AllocTensor<float>();
// CHECK-NEXT: Muls(v, u, 3.0f, 512);
// CHECK-NEXT: outQ_v.EnQue(v);
// CHECK-NEXT: v = outQ_v.DeQue<float>();
// CHECK-NEXT: DataCopy(y_gm[row_2 * 64], v, 512);
// CHECK-NEXT: outQ_v.FreeTensor(v);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_spmd_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const float* x_host, float* y_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&x_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(x_dev, 32768, x_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&y_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(y_dev, 32768, y_host, 32768, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(spmd_kernel)(4, stream, x_dev, y_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(y_host, 32768, y_dev, 32768, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
