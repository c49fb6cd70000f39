// RUN: pypto-opt %s -t ascendc | filecheck %s
// A run-time row count N through the printers (the tile-level program is what
// convert-tensor-to-tile makes of `o = exp(a * b + s)` over [N, 128] on 4 cores). The kernel
// takes N as an int64_t after its own parameters; its GM buffers hold N * 128 elements; the
// full blocks copy with DataCopy, the partial tail with DataCopyPad and the run-time
// blockCount. The host takes each dynamic
// tensor with its extents, derives N from 'a', checks every other dimension before any
// device work, sizes the buffers from N (an empty tensor gets a 32-byte block and no copy),
// and passes N to the launch. The driver takes N on its command line.

pypto.func incore @k(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %c0 = arith.constant 0 : index
  %N = pypto.tensor.dim %a, 0 : !pypto.tensor<[N, 128], f32>
  %block_idx = pypto.tile.get_block_idx : index
  %block_num = pypto.tile.get_block_num : index
  %first_scaled = arith.muli %block_idx, %N : index
  %first_row = arith.divui %first_scaled, %block_num : index
  %c1 = arith.constant 1 : index
  %next_block = arith.addi %block_idx, %c1 : index
  %end_scaled = arith.muli %next_block, %N : index
  %end_row = arith.divui %end_scaled, %block_num : index
  %core_rows = arith.subi %end_row, %first_row : index
  %c38 = arith.constant 38 : index
  %full_blocks = arith.divui %core_rows, %c38 : index
  %full_rows = arith.muli %full_blocks, %c38 : index
  %full_end = arith.addi %first_row, %full_rows : index
  %o_1 = scf.for %row = %first_row to %full_end step %c38 iter_args(%o_2 = %o) -> (!pypto.tensor<[N, 128], f32>) {
    %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %b_tile = pypto.tile.load %b[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %x_tile = pypto.tile.mul %a_tile, %b_tile : !pypto.tile<[38, 128], f32, vec>
    %y_tile = pypto.tile.adds %x_tile, %s : !pypto.tile<[38, 128], f32, vec>, f32
    %e_tile = pypto.tile.exp %y_tile : !pypto.tile<[38, 128], f32, vec>
    %o_3 = pypto.tile.store %e_tile, %o_2[%row, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
    scf.yield %o_3 : !pypto.tensor<[N, 128], f32>
  }
  %tail_rows = arith.subi %end_row, %full_end : index
  %has_tail = arith.cmpi sgt, %tail_rows, %c0 : index
  %c128 = arith.constant 128 : index
  %o_4 = scf.if %has_tail -> (!pypto.tensor<[N, 128], f32>) {
    %a_tile_1 = pypto.tile.load %a[%full_end, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %b_tile_1 = pypto.tile.load %b[%full_end, %c0] valid[%tail_rows, %c128] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[38, 128], f32, vec>
    %x_tile_1 = pypto.tile.mul %a_tile_1, %b_tile_1 : !pypto.tile<[38, 128], f32, vec>
    %y_tile_1 = pypto.tile.adds %x_tile_1, %s : !pypto.tile<[38, 128], f32, vec>, f32
    %e_tile_1 = pypto.tile.exp %y_tile_1 : !pypto.tile<[38, 128], f32, vec>
    %e_valid = pypto.tile.set_validshape %e_tile_1, %tail_rows, %c128 : !pypto.tile<[38, 128], f32, vec>, index, index
    %o_5 = pypto.tile.store %e_valid, %o_1[%full_end, %c0] : !pypto.tile<[38, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
    scf.yield %o_5 : !pypto.tensor<[N, 128], f32>
  } else {
    scf.yield %o_1 : !pypto.tensor<[N, 128], f32>
  }
  pypto.return %o_4 : !pypto.tensor<[N, 128], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %r = pypto.call @k(%a, %b, %s, %o) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32, !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32>
  pypto.return %r : !pypto.tensor<[N, 128], f32>
}

// CHECK-LABEL: // ===== file: kernels/k.cpp =====
// CHECK:       extern "C" __global__ __aicore__ void k(GM_ADDR a, GM_ADDR b, float s, GM_ADDR o, int64_t N) {
// CHECK-NEXT:    GlobalTensor<float> a_gm;
// CHECK-NEXT:    a_gm.SetGlobalBuffer((__gm__ float*)a, N * 128);
// CHECK:         o_gm.SetGlobalBuffer((__gm__ float*)o, N * 128);
// The tail takes the loop's queues (ascendc-plan-buffers' share_queues): three queues, not six.
// CHECK:         TQue<TPosition::VECIN, 2> inQ_a_tile;
// CHECK-NEXT:    TQue<TPosition::VECIN, 2> inQ_b_tile;
// CHECK-NOT:     TQue<TPosition::VECIN
// CHECK:         TQue<TPosition::VECOUT, 2> outQ_e_tile;
// CHECK-NOT:     TQue<
// CHECK:         pipe.InitBuffer(inQ_a_tile, 2, 19456);
// CHECK:         const int64_t first_scaled = AscendC::GetBlockIdx() * N;
// CHECK-NEXT:    const int64_t first_row = first_scaled / AscendC::GetBlockNum();
// CHECK:         const int64_t full_end = first_row + full_rows;
// CHECK-NEXT:    const bool has_first = first_row < full_end;
// CHECK-NEXT:    if (has_first) {
// CHECK-NEXT:      LocalTensor<float> a_tile_first = inQ_a_tile.AllocTensor<float>();
// CHECK-NEXT:      DataCopy(a_tile_first, a_gm[first_row * 128], 4864);
// CHECK:         for (int64_t row = first_row; row < full_end; row += 38) {
// CHECK-NEXT:      const int64_t row_next = row + 38;
// CHECK-NEXT:      const bool has_next = row_next < full_end;
// CHECK-NEXT:      if (has_next) {
// CHECK-NEXT:        LocalTensor<float> a_tile_next = inQ_a_tile.AllocTensor<float>();
// CHECK-NEXT:        DataCopy(a_tile_next, a_gm[row_next * 128], 4864);
// CHECK:           LocalTensor<float> a_tile = inQ_a_tile.DeQue<float>();
// CHECK-NOT:       DataCopyPad
// CHECK:           DataCopy(o_gm[row * 128], e_tile, 4864);
// CHECK:         const int64_t tail_rows = end_row - full_end;
// CHECK-NEXT:    const bool has_tail = tail_rows > 0;
// CHECK-NEXT:    if (has_tail) {
// CHECK-NEXT:      LocalTensor<float> a_tile_1 = inQ_a_tile.AllocTensor<float>();
// CHECK-NEXT:      DataCopyPad(a_tile_1, a_gm[full_end * 128], DataCopyExtParams(static_cast<uint16_t>(tail_rows), 512, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK:           LocalTensor<float> b_tile_1 = inQ_b_tile.AllocTensor<float>();
// CHECK-NEXT:      DataCopyPad(b_tile_1, b_gm[full_end * 128], DataCopyExtParams(static_cast<uint16_t>(tail_rows), 512, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK:           LocalTensor<float> e_tile_1 = outQ_e_tile.AllocTensor<float>();
// CHECK-NEXT:      Exp(e_tile_1, y_tile_1, 4864);
// CHECK:           DataCopyPad(o_gm[full_end * 128], e_tile_1, DataCopyExtParams(static_cast<uint16_t>(tail_rows), 512, 0, 0, 0));
// CHECK-NEXT:      outQ_e_tile.FreeTensor(e_tile_1);
// CHECK-NEXT:    }
// CHECK-NOT:     else
// CHECK-NEXT:  }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_k.h =====
// CHECK:       inline uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* a, void* b, float s, void* o, int64_t N) {
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK:       int run_main(aclrtStream stream, const float* a_host, const int64_t* a_dims, const float* b_host, const int64_t* b_dims, float s, float* o_host, const int64_t* o_dims);
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:         const int64_t N = a_dims[0];
// CHECK-NEXT:    if (a_dims[1] != 128) {
// CHECK-NEXT:      std::fprintf(stderr, "run_main: dimension 1 of 'a' is %lld but its type !pypto.tensor<[N, 128], f32> has 128\n", static_cast<long long>(a_dims[1]));
// CHECK-NEXT:      return ACL_ERROR_INVALID_PARAM;
// CHECK-NEXT:    }
// CHECK-NEXT:    if (b_dims[0] != N) {
// CHECK-NEXT:      std::fprintf(stderr, "run_main: the dynamic dimension N is %lld in dimension 0 of 'a' but %lld in dimension 0 of 'b'; parameters sharing a dimension must agree\n", static_cast<long long>(N), static_cast<long long>(b_dims[0]));
// CHECK:         if (o_dims[0] != N) {
// CHECK:         if (N < 0) {
// CHECK:         DeviceBuffers buffers(stream);
// CHECK-NEXT:    const size_t a_bytes = static_cast<size_t>(N) * 128 * 4;
// CHECK-NEXT:    void*& a_dev = buffers.slot();
// CHECK-NEXT:    // an empty tensor still gets one 32-byte block: aclrtMalloc refuses a size of 0
// CHECK-NEXT:    CHECK_ACL(aclrtMalloc(&a_dev, a_bytes > 0 ? a_bytes : 32, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:    if (a_bytes > 0) CHECK_ACL(aclrtMemcpy(a_dev, a_bytes, a_host, a_bytes, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK:         CHECK_ACL(ACLRT_LAUNCH_KERNEL(k)(4, stream, a_dev, b_dev, s, o_dev, N));
// CHECK-NEXT:    CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK-NEXT:    if (o_bytes > 0) CHECK_ACL(aclrtMemcpy(o_host, o_bytes, o_dev, o_bytes, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK:       // usage: <program> <input-dir> <output-dir> N=<extent>; tensors are raw little-endian <param>.bin files.
// CHECK:         if (argc != 4) {
// CHECK:         const int64_t N = read_extent(argv[3], "N");
// CHECK:         std::vector<float> a_host(static_cast<size_t>(N) * 128);
// CHECK:         const int64_t a_dims[] = {N, 128};
// CHECK:         CHECK_ACL(run_main(stream, a_host.data(), a_dims, b_host.data(), b_dims, s, o_host.data(), o_dims));
// CHECK:         if (!write_file(out_dir + "/o.bin", o_host.data(), static_cast<size_t>(N) * 128 * sizeof(float))) return 3;
