// RUN: pypto-opt %s -t ascendc | filecheck %s
// The host printer over run-time extents (paged attention's orchestration, small): an element of an
// `in` tensor is read from the caller's copy, one a kernel wrote from the device after the stream
// has run it; a `[16, ?]` tensor made in a loop has a slot at entry and grows where it is made;
// windows at run-time offsets are checked against their source; a window whose contiguity
// depends on a run-time width is checked before the launch. The kernel's tensors have run-time
// row lengths (W, V): its whole [16, 64] tiles are copied with run-time GM gaps.

pypto.func incore @scale_block(%a: !pypto.tensor<[16, W], f32>, %s: f32, out %o: !pypto.tensor<[16, V], f32>) -> !pypto.tensor<[16, V], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, W], f32> -> !pypto.tile<[16, 64], f32, vec>
  %r = pypto.tile.muls %t, %s : !pypto.tile<[16, 64], f32, vec>, f32
  %w = pypto.tile.store %r, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, V], f32>
  pypto.return %w : !pypto.tensor<[16, V], f32>
}
pypto.func orchestration @main(%table: !pypto.tensor<[B], i32>, %pool: !pypto.tensor<[P, C], f32>, out %o: !pypto.tensor<[Q, 64], f32>) -> !pypto.tensor<[Q, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %nb = pypto.tensor.dim %table, 0 : !pypto.tensor<[B], i32>
  %res = scf.for %i = %c0 to %nb step %c1 iter_args(%acc = %o) -> (!pypto.tensor<[Q, 64], f32>) {
    %blk = pypto.tensor.read %table[%i] : !pypto.tensor<[B], i32>
    %bi = arith.index_cast %blk : i32 to index
    %row = arith.muli %bi, %c16 : index
    %cols = pypto.tensor.dim %pool, 1 : !pypto.tensor<[P, C], f32>
    %w = pypto.tensor.slice %pool[%row, %c0] sizes(%cols) : !pypto.tensor<[P, C], f32> -> !pypto.tensor<[16, ?], f32>
    %width = arith.addi %c64, %c0 : index
    %tmp = pypto.tensor.create(%width) : !pypto.tensor<[16, ?], f32>
    %one = arith.constant 2.0 : f32
    %e = pypto.call @scale_block(%w, %one, %tmp) : (!pypto.tensor<[16, ?], f32>, f32, !pypto.tensor<[16, ?], f32>) -> !pypto.tensor<[16, ?], f32>
    %s = pypto.tensor.read %e[%c0, %c0] : !pypto.tensor<[16, ?], f32>
    %orow = arith.muli %i, %c16 : index
    %ow = pypto.tensor.slice %acc[%orow, %c0] sizes(%width) : !pypto.tensor<[Q, 64], f32> -> !pypto.tensor<[16, ?], f32>
    %r = pypto.call @scale_block(%e, %s, %ow) : (!pypto.tensor<[16, ?], f32>, f32, !pypto.tensor<[16, ?], f32>) -> !pypto.tensor<[16, ?], f32>
    scf.yield %acc : !pypto.tensor<[Q, 64], f32>
  }
  pypto.return %res : !pypto.tensor<[Q, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/scale_block.cpp =====
// CHECK:       extern "C" __global__ __aicore__ void scale_block(GM_ADDR a, float s, GM_ADDR o, int64_t W, int64_t V) {
// CHECK:         const int64_t row_gap = W - 64;
// CHECK-NEXT:    const int64_t row_gap_bytes = row_gap * 4;
// CHECK-NEXT:    DataCopyPad(t, a_gm, DataCopyExtParams(16, 256, static_cast<uint32_t>(row_gap_bytes), 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK:         const int64_t row_gap_1 = V - 64;
// CHECK-NEXT:    const int64_t row_gap_bytes_1 = row_gap_1 * 4;
// CHECK:         DataCopyPad(o_gm, r, DataCopyExtParams(16, 256, 0, static_cast<uint32_t>(row_gap_bytes_1), 0));
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:       int run_main(aclrtStream stream, const int32_t* table_host, const int64_t* table_dims, const float* pool_host, const int64_t* pool_dims, float* o_host, const int64_t* o_dims) {
// CHECK:         void*& tmp_dev = buffers.slot();  // %tmp: !pypto.tensor<[16, ?], f32>, grown where it is created
// CHECK-NEXT:    size_t tmp_capacity = 0;
// CHECK-NEXT:    for (int64_t i = 0; i < B; ++i) {
// CHECK-NEXT:      if (i < 0 || i + 1 > B) {
// CHECK-NEXT:        std::fprintf(stderr, "run_main: 'pypto.tensor.read' %%blk is out of bounds: dimension 0 takes %lld at %lld of %lld\n", static_cast<long long>(1), static_cast<long long>(i), static_cast<long long>(B));
// CHECK-NEXT:        return ACL_ERROR_INVALID_PARAM;
// CHECK-NEXT:      }
// CHECK-NEXT:      const int32_t blk = table_host[i];  // an `in` tensor: the caller's copy
// CHECK:           if (row < 0 || row + 16 > P) {
// CHECK:           void* w_dev = static_cast<uint8_t*>(pool_dev) + ((row) * C) * 4;  // %w: !pypto.tensor<[16, ?], f32>
// CHECK-NEXT:      const int64_t width = 64 + 0;
// CHECK-NEXT:      const size_t tmp_bytes = static_cast<size_t>(width) * 16 * 4;
// CHECK-NEXT:      if (tmp_bytes > tmp_capacity) {
// CHECK-NEXT:        CHECK_ACL(aclrtSynchronizeStream(stream));  // kernels in flight may still use the smaller buffer
// CHECK-NEXT:        if (tmp_dev != nullptr) CHECK_ACL(aclrtFree(tmp_dev));
// CHECK-NEXT:        tmp_dev = nullptr;
// CHECK-NEXT:        CHECK_ACL(aclrtMalloc(&tmp_dev, tmp_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK-NEXT:        tmp_capacity = tmp_bytes;
// CHECK-NEXT:      }
// CHECK-NEXT:      CHECK_ACL(ACLRT_LAUNCH_KERNEL(scale_block)(1, stream, w_dev, 2.0f, tmp_dev, C, width));
// CHECK-NEXT:      if (1 > width) {
// CHECK:           float s = 0;  // %e as its kernels left it
// CHECK-NEXT:      CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK-NEXT:      CHECK_ACL(aclrtMemcpy(&s, 4, tmp_dev, 4, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK-NEXT:      const int64_t orow = i * 16;
// CHECK-NEXT:      if ((orow < 0 || orow + 16 > Q) || (width > 64)) {
// CHECK:           if (width != 64) {
// CHECK-NEXT:        std::fprintf(stderr, "run_main: kernel argument %%ow of @scale_block is %lld x %lld, a strided window of rows of %lld; kernels take contiguous tensors\n", static_cast<long long>(16), static_cast<long long>(width), static_cast<long long>(64));
// CHECK-NEXT:        return ACL_ERROR_INVALID_PARAM;
// CHECK-NEXT:      }
// CHECK-NEXT:      CHECK_ACL(ACLRT_LAUNCH_KERNEL(scale_block)(1, stream, tmp_dev, s, static_cast<uint8_t*>(o_dev) + ((orow) * 64) * 4, width, width));
// CHECK-NEXT:    }
// CHECK-NEXT:    CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK-NOT:     aclrtMalloc
// CHECK:         CHECK_ACL(buffers.free_all());
