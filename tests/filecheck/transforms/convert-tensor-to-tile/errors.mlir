// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p 'convert-tensor-to-tile{double-buffer=false}' | filecheck %s --check-prefix=SINGLE

// One row of each of the three [*, 16384] f32 tiles is 64 KiB, each in a queue: 384 KiB for
// one row when double-buffered, twice the UB. Without double buffering it fits exactly.

builtin.module {
  pypto.func incore @wide(%a: !pypto.tensor<[4, 16384], f32>, %b: !pypto.tensor<[4, 16384], f32>, out %o: !pypto.tensor<[4, 16384], f32>) -> !pypto.tensor<[4, 16384], f32> {
    %c0 = arith.constant 0 : index
    %x = pypto.tensor.add %a, %b : !pypto.tensor<[4, 16384], f32>
    %w = pypto.tensor.assemble %x into %o[%c0, %c0] : !pypto.tensor<[4, 16384], f32> into !pypto.tensor<[4, 16384], f32>
    pypto.return %w : !pypto.tensor<[4, 16384], f32>
  }
}

// CHECK: convert-tensor-to-tile: in @wide: the tiles of the elementwise ops over !pypto.tensor<[4, 16384], f32> need 393216 bytes for one row (double-buffered queues and shared VECCALC buffers) but may use 196608 of the 196608 bytes of Unified Buffer: load of %a !pypto.tile<[1, 16384], f32, vec> (65536 B, queue), load of %b !pypto.tile<[1, 16384], f32, vec> (65536 B, queue), pypto.tile.add %x !pypto.tile<[1, 16384], f32, vec> (65536 B, queue)
// SINGLE: pypto.tile.add %a_tile, %b_tile : !pypto.tile<[1, 16384], f32, vec>

// -----

// f16 rows are padded to 32 bytes: [2, 50000] f16 -> 100000 B per tile row; 2 queues.

builtin.module {
  pypto.func aiv @wide_f16(%a: !pypto.tensor<[2, 50000], f16>, out %o: !pypto.tensor<[2, 50000], f16>) -> !pypto.tensor<[2, 50000], f16> {
    %c0 = arith.constant 0 : index
    %x = pypto.tensor.exp %a : !pypto.tensor<[2, 50000], f16>
    %w = pypto.tensor.assemble %x into %o[%c0, %c0] : !pypto.tensor<[2, 50000], f16> into !pypto.tensor<[2, 50000], f16>
    pypto.return %w : !pypto.tensor<[2, 50000], f16>
  }
}

// CHECK: convert-tensor-to-tile: in @wide_f16: the tiles of the elementwise ops over !pypto.tensor<[2, 50000], f16> need 400000 bytes for one row (double-buffered queues and shared VECCALC buffers) but may use 196608 of the 196608 bytes of Unified Buffer: load of %a !pypto.tile<[1, 50000], f16, vec> (100000 B, queue), pypto.tile.exp %x !pypto.tile<[1, 50000], f16, vec> (100000 B, queue)
// SINGLE: convert-tensor-to-tile: in @wide_f16: {{.*}} need 200000 bytes for one row (queues and shared VECCALC buffers) but may use 196608 of the 196608 bytes

// -----

// Row-wise ops: the listing names every tile, the [1, 1] row values (32 B: one 32-byte
// block) and the two-stage reductions' scratch tiles included, and marks the queues. The
// load and the stored %y double-buffered and %x take 253728 B for one row (the reduction
// scratches are 31 chunks wide, for ascendc-tree-reductions), 204576 B with %x computed in
// place over the loaded %a; single-buffered they fit.

builtin.module {
  pypto.func incore @wide_rows(%a: !pypto.tensor<[4, 12288], f32>, out %o: !pypto.tensor<[4, 12288], f32>) -> !pypto.tensor<[4, 12288], f32> {
    %c0 = arith.constant 0 : index
    %m = pypto.tensor.row_max %a : !pypto.tensor<[4, 12288], f32>
    %x = pypto.tensor.row_expand_sub %a, %m : !pypto.tensor<[4, 12288], f32>, !pypto.tensor<[4, 1], f32>
    %s = pypto.tensor.row_sum %x : !pypto.tensor<[4, 12288], f32>
    %y = pypto.tensor.row_expand_div %x, %s : !pypto.tensor<[4, 12288], f32>, !pypto.tensor<[4, 1], f32>
    %w = pypto.tensor.assemble %y into %o[%c0, %c0] : !pypto.tensor<[4, 12288], f32> into !pypto.tensor<[4, 12288], f32>
    pypto.return %w : !pypto.tensor<[4, 12288], f32>
  }
}

// CHECK: convert-tensor-to-tile: in @wide_rows: the tiles of the row-wise ops over 4 rows need 204576 bytes for one row (double-buffered queues, shared VECCALC buffers and in-place results) but may use 196608 of the 196608 bytes of Unified Buffer: load of %a !pypto.tile<[1, 12288], f32, vec> (49152 B, queue), pypto.tile.row_max %m !pypto.tile<[1, 1], f32, vec> (32 B), scratch of pypto.tile.row_max %m !pypto.tile<[1, 1984], f32, vec> (7936 B), pypto.tile.row_expand_sub %x !pypto.tile<[1, 12288], f32, vec> (49152 B), broadcast scratch of pypto.tile.row_expand_sub %x !pypto.tile<[1, 8], f32, vec> (256 B), pypto.tile.row_sum %s !pypto.tile<[1, 1], f32, vec> (32 B), scratch of pypto.tile.row_sum %s !pypto.tile<[1, 1984], f32, vec> (7936 B), pypto.tile.row_expand_div %y !pypto.tile<[1, 12288], f32, vec> (49152 B, queue), broadcast scratch of pypto.tile.row_expand_div %y !pypto.tile<[1, 8], f32, vec> (256 B)
// SINGLE-LABEL: pypto.func incore @wide_rows
// SINGLE:         pypto.tile.row_max %a_tile : !pypto.tile<[1, 12288], f32, vec>

// -----

// tanh lowers to an Ascend C math API whose temporary buffer counts in the tile set: for f16
// at least 1024 bytes (four float temporaries of one 256-byte repeat), whatever the block:
// with the two double-buffered 48 KiB queues, 1024 B over the UB.

builtin.module {
  pypto.func incore @tanh_scratch(%x: !pypto.tensor<[4, 24576], f16>, out %o: !pypto.tensor<[4, 24576], f16>) -> !pypto.tensor<[4, 24576], f16> {
    %c0 = arith.constant 0 : index
    %t = pypto.tensor.tanh %x : !pypto.tensor<[4, 24576], f16>
    %w = pypto.tensor.assemble %t into %o[%c0, %c0] : !pypto.tensor<[4, 24576], f16> into !pypto.tensor<[4, 24576], f16>
    pypto.return %w : !pypto.tensor<[4, 24576], f16>
  }
}

// CHECK: convert-tensor-to-tile: in @tanh_scratch: the tiles of the elementwise ops over !pypto.tensor<[4, 24576], f16> need 197632 bytes for one row (double-buffered queues and shared VECCALC buffers) but may use 196608 of the 196608 bytes of Unified Buffer: load of %x !pypto.tile<[1, 24576], f16, vec> (49152 B, queue), pypto.tile.tanh %t !pypto.tile<[1, 24576], f16, vec> (49152 B, queue), math scratch of pypto.tile.tanh %t !pypto.tile<[512], f16, vec> (1024 B)
// SINGLE: pypto.tile.tanh %x_tile : !pypto.tile<[1, 24576], f16, vec>
