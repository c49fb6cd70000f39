// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// Kernel-local GM tensors: convert-tensor-to-tile materialises an intermediate that a slice
// reads as a `pypto.tensor.create` inside the kernel; the kernel keeps it in its workspace
// (a trailing `GM_ADDR workspace`, one buffer per launch allocated by the host).
//   @ws_slice: t = a * b (materialised), o = exp(t[16:48, :]), p = t (three loops, each
//              sized for a third of the UB)
//   @ws_odd:   m = c * c, t = m + c (both materialised, [10, 13]: not 32-byte aligned, at
//              workspace offsets 0 and 1024), q = m[0:4, 0:8] - t[2:6, 3:11]
//   @ws_loop:  per iteration i of a kernel loop: t = x[8i:8i+8] * 2 (materialised, the slot is
//              reused every iteration), z[4i:4i+4] = exp(t[2:6])

pypto.func @main(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, %c: !pypto.tensor<[10, 13], f32>, %x: !pypto.tensor<[32, 64], f32>, out %o: !pypto.tensor<[32, 128], f32>, out %p: !pypto.tensor<[64, 128], f32>, out %q: !pypto.tensor<[4, 8], f32>, out %z: !pypto.tensor<[16, 64], f32>) -> (!pypto.tensor<[32, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[4, 8], f32>, !pypto.tensor<[16, 64], f32>) {
  %r1, %r2 = pypto.incore_scope name("ws_slice") -> (!pypto.tensor<[32, 128], f32>, !pypto.tensor<[64, 128], f32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = pypto.tensor.mul %a, %b : !pypto.tensor<[64, 128], f32>
    %xs = pypto.tensor.slice %t[%c16, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[32, 128], f32>
    %u = pypto.tensor.exp %xs : !pypto.tensor<[32, 128], f32>
    %w = pypto.tensor.assemble %u into %o[%c0, %c0] : !pypto.tensor<[32, 128], f32> into !pypto.tensor<[32, 128], f32>
    %w2 = pypto.tensor.assemble %t into %p[%c0, %c0] : !pypto.tensor<[64, 128], f32> into !pypto.tensor<[64, 128], f32>
    pypto.yield %w, %w2 : !pypto.tensor<[32, 128], f32>, !pypto.tensor<[64, 128], f32>
  }
  %r3 = pypto.incore_scope name("ws_odd") -> (!pypto.tensor<[4, 8], f32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %m = pypto.tensor.mul %c, %c : !pypto.tensor<[10, 13], f32>
    %t = pypto.tensor.add %m, %c : !pypto.tensor<[10, 13], f32>
    %xs = pypto.tensor.slice %t[%c2, %c3] : !pypto.tensor<[10, 13], f32> -> !pypto.tensor<[4, 8], f32>
    %ms = pypto.tensor.slice %m[%c0, %c0] : !pypto.tensor<[10, 13], f32> -> !pypto.tensor<[4, 8], f32>
    %ng = pypto.tensor.neg %xs : !pypto.tensor<[4, 8], f32>
    %n = pypto.tensor.add %ng, %ms : !pypto.tensor<[4, 8], f32>
    %w = pypto.tensor.assemble %n into %q[%c0, %c0] : !pypto.tensor<[4, 8], f32> into !pypto.tensor<[4, 8], f32>
    pypto.yield %w : !pypto.tensor<[4, 8], f32>
  }
  %r4 = pypto.incore_scope name("ws_loop") -> (!pypto.tensor<[16, 64], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2.0 : f32
    %zr = scf.for %i = %c0 to %c4 step %c1 iter_args(%zc = %z) -> (!pypto.tensor<[16, 64], f32>) {
      %row = arith.muli %i, %c8 : index
      %xs = pypto.tensor.slice %x[%row, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tensor<[8, 64], f32>
      %t = pypto.tensor.muls %xs, %two : !pypto.tensor<[8, 64], f32>, f32
      %ts = pypto.tensor.slice %t[%c2, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tensor<[4, 64], f32>
      %e = pypto.tensor.exp %ts : !pypto.tensor<[4, 64], f32>
      %zrow = arith.muli %i, %c4 : index
      %zn = pypto.tensor.assemble %e into %zc[%zrow, %c0] : !pypto.tensor<[4, 64], f32> into !pypto.tensor<[16, 64], f32>
      scf.yield %zn : !pypto.tensor<[16, 64], f32>
    }
    pypto.yield %zr : !pypto.tensor<[16, 64], f32>
  }
  pypto.return %r1, %r2, %r3, %r4 : !pypto.tensor<[32, 128], f32>, !pypto.tensor<[64, 128], f32>, !pypto.tensor<[4, 8], f32>, !pypto.tensor<[16, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/ws_slice.cpp =====
// CHECK:      extern "C" __global__ __aicore__ void ws_slice(GM_ADDR a, GM_ADDR b, GM_ADDR o, GM_ADDR p, GM_ADDR workspace) {
// CHECK:        p_gm.SetGlobalBuffer((__gm__ float*)p, 8192);
// CHECK-NEXT:   // Kernel-local GM tensors: 32768 bytes of workspace per block, this block's part.
// CHECK-NEXT:   GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 32768;
// CHECK-NEXT:   GlobalTensor<float> t_gm;  // %t !pypto.tensor<[64, 128], f32>, workspace bytes [0, 32768)
// CHECK-NEXT:   t_gm.SetGlobalBuffer((__gm__ float*)(block_ws), 8192);
// CHECK-NEXT:   TPipe pipe;
// CHECK:        DataCopy(t_gm[row * 128], t_tile, 2048);
// CHECK-NEXT:   outQ_t_tile.FreeTensor(t_tile);
// CHECK-NEXT:   TEventID event_mte3_mte2 = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
// CHECK-NEXT:   SetFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CHECK-NEXT:   WaitFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CHECK:        DataCopy(xs_tile, t_gm[2048], 4096);
// CHECK:        DataCopy(t_tile_1, t_gm[row_1 * 128], 4096);
// CHECK:        DataCopy(p_gm[row_1 * 128], t_tile_1_out, 4096);
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_ws_slice.h =====
// CHECK:      inline uint32_t aclrtlaunch_ws_slice(uint32_t blockDim, aclrtStream stream, void* a, void* b, void* o, void* p, void* workspace) {
// CHECK:            static_cast<uint8_t*>(pypto_sim::device_arg("ws_slice", "workspace", workspace)));

// CHECK-LABEL: // ===== file: kernels/ws_odd.cpp =====
// CHECK:        // Kernel-local GM tensors: 2048 bytes of workspace per block, this block's part.
// CHECK-NEXT:   GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 2048;
// CHECK-NEXT:   GlobalTensor<float> m_gm;  // %m !pypto.tensor<[10, 13], f32>, workspace bytes [0, 520)
// CHECK-NEXT:   m_gm.SetGlobalBuffer((__gm__ float*)(block_ws), 130);
// CHECK-NEXT:   GlobalTensor<float> t_gm;  // %t !pypto.tensor<[10, 13], f32>, workspace bytes [1024, 1544)
// CHECK-NEXT:   t_gm.SetGlobalBuffer((__gm__ float*)(block_ws + 1024), 130);
// CHECK:        DataCopyPad(m_gm, m_tile, DataCopyExtParams(10, 52, 0, 0, 0));
// CHECK:        DataCopyPad(t_gm, t_tile, DataCopyExtParams(10, 52, 0, 0, 0));
// CHECK:        DataCopyPad(xs_tile, t_gm[29], DataCopyExtParams(4, 32, 20, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK:        DataCopyPad(ms_tile, m_gm, DataCopyExtParams(4, 32, 20, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));

// CHECK-LABEL: // ===== file: kernels/ws_loop.cpp =====
// CHECK:        GlobalTensor<float> t_gm;  // %t !pypto.tensor<[8, 64], f32>, workspace bytes [0, 2048)
// CHECK:        for (int64_t i = 0; i < 4; ++i) {
// CHECK:          DataCopy(t_gm, t_tile, 512);
// CHECK:          DataCopy(ts_tile, t_gm[128], 256);
// CHECK:          DataCopy(z_gm[zrow * 64], e_tile, 256);

// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:        void*& ws_slice_ws_dev = buffers.slot();  // workspace of @ws_slice: kernel-local tensors, 1 block(s) x 32768 bytes
// CHECK-NEXT:   CHECK_ACL(aclrtMalloc(&ws_slice_ws_dev, 32768, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:   void*& ws_odd_ws_dev = buffers.slot();  // workspace of @ws_odd: kernel-local tensors, 1 block(s) x 2048 bytes
// CHECK-NEXT:   CHECK_ACL(aclrtMalloc(&ws_odd_ws_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:   void*& ws_loop_ws_dev = buffers.slot();  // workspace of @ws_loop: kernel-local tensors, 1 block(s) x 2048 bytes
// CHECK-NEXT:   CHECK_ACL(aclrtMalloc(&ws_loop_ws_dev, 2048, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(ws_slice)(1, stream, a_dev, b_dev, o_dev, p_dev, ws_slice_ws_dev));
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(ws_odd)(1, stream, c_dev, q_dev, ws_odd_ws_dev));
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(ws_loop)(1, stream, z_dev, x_dev, ws_loop_ws_dev));
// CHECK: CHECK_ACL(buffers.free_all());
