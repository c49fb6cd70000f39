// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{ub-bytes=2048},verify-convert-tensor-to-tile' | filecheck %s

// A 2048-byte UB. [37, 13] f32: every tile row is padded to 64 bytes; the loads of %x and %y
// and the stored %r are double-buffered queues, %s a VECCALC buffer -> 448 B per row -> at
// most 4 rows (1792 B). 37 rows are 10 blocks: 9 blocks of 4 in the loop and a tail block of
// 1 row after it, whose own single-buffered queues (192 B) still fit.

builtin.module {
  pypto.func incore @tail(%x: !pypto.tensor<[37, 13], f32>, %y: !pypto.tensor<[37, 13], f32>, out %z: !pypto.tensor<[37, 13], f32>) -> !pypto.tensor<[37, 13], f32> {
    %c0 = arith.constant 0 : index
    %s = pypto.tensor.div %x, %y : !pypto.tensor<[37, 13], f32>
    %r = pypto.tensor.relu %s : !pypto.tensor<[37, 13], f32>
    %w = pypto.tensor.assemble %r into %z[%c0, %c0] : !pypto.tensor<[37, 13], f32> into !pypto.tensor<[37, 13], f32>
    pypto.return %w : !pypto.tensor<[37, 13], f32>
  }
}

// CHECK-LABEL: pypto.func incore @tail(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c36 = arith.constant 36 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %z_1 = scf.for %row = %c0 to %c36 step %c4 iter_args(%z_2 = %z) -> (!pypto.tensor<[37, 13], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[37, 13], f32> -> !pypto.tile<[4, 13], f32, vec>
// CHECK-NEXT:      %y_tile = pypto.tile.load %y[%row, %c0] : !pypto.tensor<[37, 13], f32> -> !pypto.tile<[4, 13], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.div %x_tile, %y_tile : !pypto.tile<[4, 13], f32, vec>
// CHECK-NEXT:      %r_tile = pypto.tile.relu %s_tile : !pypto.tile<[4, 13], f32, vec>
// CHECK-NEXT:      %z_3 = pypto.tile.store %r_tile, %z_2[%row, %c0] : !pypto.tile<[4, 13], f32, vec>, !pypto.tensor<[37, 13], f32>
// CHECK-NEXT:      scf.yield %z_3 : !pypto.tensor<[37, 13], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %x_tile_1 = pypto.tile.load %x[%c36, %c0] : !pypto.tensor<[37, 13], f32> -> !pypto.tile<[1, 13], f32, vec>
// CHECK-NEXT:    %y_tile_1 = pypto.tile.load %y[%c36, %c0] : !pypto.tensor<[37, 13], f32> -> !pypto.tile<[1, 13], f32, vec>
// CHECK-NEXT:    %s_tile_1 = pypto.tile.div %x_tile_1, %y_tile_1 : !pypto.tile<[1, 13], f32, vec>
// CHECK-NEXT:    %r_tile_1 = pypto.tile.relu %s_tile_1 : !pypto.tile<[1, 13], f32, vec>
// CHECK-NEXT:    %z_4 = pypto.tile.store %r_tile_1, %z_1[%c36, %c0] : !pypto.tile<[1, 13], f32, vec>, !pypto.tensor<[37, 13], f32>
// CHECK-NEXT:    pypto.return %z_4 : !pypto.tensor<[37, 13], f32>
// CHECK-NEXT:  }

// -----

// Rank 1: blocks of elements; 2 double-buffered f32 queues -> 16 B per element -> 128
// elements (a multiple of 32 bytes), but 7 * 128 leaves a tail of 104 whose own queues
// (832 B) do not fit beside them, nor do 8 * 112 + 104 or 9 * 104 + 64: 10 * 96 + 40.

builtin.module {
  pypto.func incore @vector(%x: !pypto.tensor<[1000], f32>, out %z: !pypto.tensor<[1000], f32>) -> !pypto.tensor<[1000], f32> {
    %c0 = arith.constant 0 : index
    %e = pypto.tensor.exp %x : !pypto.tensor<[1000], f32>
    %w = pypto.tensor.assemble %e into %z[%c0] : !pypto.tensor<[1000], f32> into !pypto.tensor<[1000], f32>
    pypto.return %w : !pypto.tensor<[1000], f32>
  }
}

// CHECK-LABEL: pypto.func incore @vector(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c960 = arith.constant 960 : index
// CHECK-NEXT:    %c96 = arith.constant 96 : index
// CHECK-NEXT:    %z_1 = scf.for %row = %c0 to %c960 step %c96 iter_args(%z_2 = %z) -> (!pypto.tensor<[1000], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row] : !pypto.tensor<[1000], f32> -> !pypto.tile<[96], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %x_tile : !pypto.tile<[96], f32, vec>
// CHECK-NEXT:      %z_3 = pypto.tile.store %e_tile, %z_2[%row] : !pypto.tile<[96], f32, vec>, !pypto.tensor<[1000], f32>
// CHECK-NEXT:      scf.yield %z_3 : !pypto.tensor<[1000], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %x_tile_1 = pypto.tile.load %x[%c960] : !pypto.tensor<[1000], f32> -> !pypto.tile<[40], f32, vec>
// CHECK-NEXT:    %e_tile_1 = pypto.tile.exp %x_tile_1 : !pypto.tile<[40], f32, vec>
// CHECK-NEXT:    %z_4 = pypto.tile.store %e_tile_1, %z_1[%c960] : !pypto.tile<[40], f32, vec>, !pypto.tensor<[1000], f32>
// CHECK-NEXT:    pypto.return %z_4 : !pypto.tensor<[1000], f32>

// -----

// A cast: tiles are sized by their own element widths (the f32 load, double-buffered, 512 B
// + the f32 abs 256 B + the stored f16 cast, double-buffered, 256 B = 1024 B per row -> 2
// rows in 2048 B).

builtin.module {
  pypto.func incore @cast(%x: !pypto.tensor<[4, 64], f32>, out %h: !pypto.tensor<[4, 64], f16>) -> !pypto.tensor<[4, 64], f16> {
    %c0 = arith.constant 0 : index
    %m = pypto.tensor.abs %x : !pypto.tensor<[4, 64], f32>
    %c = pypto.tensor.cast %m : !pypto.tensor<[4, 64], f32> -> !pypto.tensor<[4, 64], f16>
    %w = pypto.tensor.assemble %c into %h[%c0, %c0] : !pypto.tensor<[4, 64], f16> into !pypto.tensor<[4, 64], f16>
    pypto.return %w : !pypto.tensor<[4, 64], f16>
  }
}

// CHECK-LABEL: pypto.func incore @cast(
// CHECK:           %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[4, 64], f32> -> !pypto.tile<[2, 64], f32, vec>
// CHECK-NEXT:      %m_tile = pypto.tile.abs %x_tile : !pypto.tile<[2, 64], f32, vec>
// CHECK-NEXT:      %c_tile = pypto.tile.cast %m_tile : !pypto.tile<[2, 64], f32, vec> -> !pypto.tile<[2, 64], f16, vec>
// CHECK-NEXT:      %h_3 = pypto.tile.store %c_tile, %h_2[%row, %c0] : !pypto.tile<[2, 64], f16, vec>, !pypto.tensor<[4, 64], f16>

// -----

// An assemble of a window of a parameter (nothing computed): a copy loop. 32 rows of 48 f32
// (192 B): the load's queue and the store's staging queue, both double-buffered, 768 B per
// row in 2048 B -> 2 rows max -> 16 blocks of 2.

builtin.module {
  pypto.func incore @copy(%a: !pypto.tensor<[64, 48], f32>, inout %o: !pypto.tensor<[64, 48], f32>) -> !pypto.tensor<[64, 48], f32> {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %v = pypto.tensor.slice %a[%c8, %c0] : !pypto.tensor<[64, 48], f32> -> !pypto.tensor<[32, 48], f32>
    %w = pypto.tensor.assemble %v into %o[%c32, %c0] : !pypto.tensor<[32, 48], f32> into !pypto.tensor<[64, 48], f32>
    pypto.return %w : !pypto.tensor<[64, 48], f32>
  }
}

// CHECK-LABEL: pypto.func incore @copy(
// CHECK:         %v = pypto.tensor.slice %a[%c8, %c0]
// CHECK:         %o_1 = scf.for %row = %c0 to %c32 step %c2 iter_args(%o_2 = %o) -> (!pypto.tensor<[64, 48], f32>) {
// CHECK-NEXT:      %v_tile = pypto.tile.load %v[%row, %c0] : !pypto.tensor<[32, 48], f32> -> !pypto.tile<[2, 48], f32, vec>
// CHECK-NEXT:      %dst_row = arith.addi %c32, %row : index
// CHECK-NEXT:      %o_3 = pypto.tile.store %v_tile, %o_2[%dst_row, %c0] : !pypto.tile<[2, 48], f32, vec>, !pypto.tensor<[64, 48], f32>
// CHECK-NEXT:      scf.yield %o_3
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_1
// CHECK-NOT:     pypto.tensor.assemble
