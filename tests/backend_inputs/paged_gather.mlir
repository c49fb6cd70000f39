// Paged-attention-shaped host code over run-time extents (tests/test_backend_dynamic_host.py,
// tests/filecheck/backend/host_dynamic.mlir). Each entry i of an `in` block table (B entries)
// picks a 16-row block of a pool of P rows of the run-time length C. The host reads the entry
// from the caller's copy and slices the block at that run-time row; @scale_block copies its
// first 64 columns, scaled by 2, into a buffer of a run-time width made inside the loop
// (`[16, ?]`); the host reads the buffer's first element back from the device (after the
// kernel that wrote it); @scale_block scales the buffer by it into row block i of the output
// (Q rows; a window of run-time width). @scale_block's tensors have run-time row lengths (W,
// V): its whole [16, 64] tiles are copied with run-time GM gaps.
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
