// RUN: pypto-opt %s -t ascendc | filecheck %s
// A hand-written SPMD kernel with a kernel-local tensor, launched on 4 blocks: every block owns
// its part of the workspace (4 x 2048 bytes); block b handles row chunks b, b + 4, ... of x:
// e = exp(x_chunk) goes through the local tensor %tmp, y_chunk = tmp + x_chunk.

pypto.func incore @spmd_ws(%x: !pypto.tensor<[64, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %b = pypto.tile.get_block_idx : index
  %n = pypto.tile.get_block_num : index
  %tmp = pypto.tensor.create : !pypto.tensor<[8, 64], f32>
  %r, %tr = scf.for %k = %b to %c8 step %n iter_args(%acc = %y, %tc = %tmp) -> (!pypto.tensor<[64, 64], f32>, !pypto.tensor<[8, 64], f32>) {
    %row = arith.muli %k, %c8 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
    %tw = pypto.tile.store %e, %tc[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
    %back = pypto.tile.load %tw[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %s = pypto.tile.add %back, %t : !pypto.tile<[8, 64], f32, vec>
    %w = pypto.tile.store %s, %acc[%row, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
    scf.yield %w, %tw : !pypto.tensor<[64, 64], f32>, !pypto.tensor<[8, 64], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[64, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %r = pypto.call @spmd_ws(%x, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[64, 64], f32>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
  pypto.return %r : !pypto.tensor<[64, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/spmd_ws.cpp =====
// CHECK:      extern "C" __global__ __aicore__ void spmd_ws(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
// CHECK:        // Kernel-local GM tensors: 2048 bytes of workspace per block, this block's part.
// CHECK-NEXT:   GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 2048;
// CHECK-NEXT:   GlobalTensor<float> tmp_gm;  // %tmp !pypto.tensor<[8, 64], f32>, workspace bytes [0, 2048)
// CHECK-NEXT:   tmp_gm.SetGlobalBuffer((__gm__ float*)(block_ws), 512);
// CHECK-NEXT:   TPipe pipe;
// CHECK:        for (int64_t k = AscendC::GetBlockIdx(); k < 8; k += AscendC::GetBlockNum()) {
// CHECK:          DataCopy(tmp_gm, e, 512);
// CHECK-NEXT:     outQ_e.FreeTensor(e);
// CHECK-NEXT:     TEventID event_mte3_mte2 = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
// CHECK-NEXT:     SetFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CHECK-NEXT:     WaitFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CHECK-NEXT:     LocalTensor<float> back = inQ_back.AllocTensor<float>();
// CHECK-NEXT:     DataCopy(back, tmp_gm, 512);
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:        void*& spmd_ws_ws_dev = buffers.slot();  // workspace of @spmd_ws: kernel-local tensors, 4 block(s) x 2048 bytes
// CHECK-NEXT:   CHECK_ACL(aclrtMalloc(&spmd_ws_ws_dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:   CHECK_ACL(ACLRT_LAUNCH_KERNEL(spmd_ws)(4, stream, x_dev, y_dev, spmd_ws_ws_dev));
// CHECK: CHECK_ACL(buffers.free_all());
