// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// An incore scope whose result is an intermediate it computes (t = a * b; u = exp(t);
// r = t + u, no out parameter): the kernel @twice keeps r in a kernel-local tensor, returns it,
// and the host hands the workspace region holding it to the next kernel (@use: o = r * 3).

pypto.func @main(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, out %o: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %r = pypto.incore_scope name("twice") -> (!pypto.tensor<[64, 128], f32>) {
    %t = pypto.tensor.mul %a, %b : !pypto.tensor<[64, 128], f32>
    %u = pypto.tensor.exp %t : !pypto.tensor<[64, 128], f32>
    %s = pypto.tensor.add %t, %u : !pypto.tensor<[64, 128], f32>
    pypto.yield %s : !pypto.tensor<[64, 128], f32>
  }
  %k = arith.constant 3.0 : f32
  %q = pypto.incore_scope name("use") -> (!pypto.tensor<[64, 128], f32>) {
    %c0 = arith.constant 0 : index
    %v = pypto.tensor.muls %r, %k : !pypto.tensor<[64, 128], f32>, f32
    %w = pypto.tensor.assemble %v into %o[%c0, %c0] : !pypto.tensor<[64, 128], f32> into !pypto.tensor<[64, 128], f32>
    pypto.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %q : !pypto.tensor<[64, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/twice.cpp =====
// CHECK:      extern "C" __global__ __aicore__ void twice(GM_ADDR a, GM_ADDR b, GM_ADDR workspace) {
// CHECK:        // Kernel-local GM tensors: 32768 bytes of workspace per block, this block's part.
// CHECK-NEXT:   GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 32768;
// CHECK-NEXT:   GlobalTensor<float> s_gm;  // %s !pypto.tensor<[64, 128], f32>, workspace bytes [0, 32768)
// CHECK-NEXT:   s_gm.SetGlobalBuffer((__gm__ float*)(block_ws), 8192);
// CHECK:        for (int64_t row = 0; row < 64; row += 32) {
// CHECK:          Add(s_tile, t_tile, u_tile, 4096);
// CHECK:          DataCopy(s_gm[row * 128], s_tile, 4096);
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_twice.h =====
// CHECK:      inline uint32_t aclrtlaunch_twice(uint32_t blockDim, aclrtStream stream, void* a, void* b, void* workspace) {
// CHECK-LABEL: // ===== file: kernels/use.cpp =====
// CHECK:      extern "C" __global__ __aicore__ void use(GM_ADDR r, GM_ADDR o) {
// CHECK-NOT:  workspace
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:        void*& twice_ws_dev = buffers.slot();  // workspace of @twice: kernel-local tensors, 1 block(s) x 32768 bytes
// CHECK-NEXT:   CHECK_ACL(aclrtMalloc(&twice_ws_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:   void* r_dev = twice_ws_dev;  // %r: kernel-local tensor of @twice, in its workspace
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(twice)(1, stream, a_dev, b_dev, twice_ws_dev));
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(use)(1, stream, r_dev, o_dev));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-NEXT:   return 0;
