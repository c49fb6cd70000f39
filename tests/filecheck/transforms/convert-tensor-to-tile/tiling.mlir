// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{ub-bytes=2048},verify-convert-tensor-to-tile' | filecheck %s

// With a 2048-byte UB a tile set may use 1024 bytes. [37, 13] f32: every tile row is padded
// to 64 bytes; 4 tiles -> 256 B per row -> at most 4 rows. 37 rows are 10 blocks: 9 blocks
// of 4 in the loop and a tail block of 1 row after it.

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

// Rank 1: blocks of elements; 2 f32 tiles -> 8 B per element -> 128 elements (a multiple of
// 32 bytes); 1000 = 7 * 128 + 104.

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
// CHECK-NEXT:    %c896 = arith.constant 896 : index
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %z_1 = scf.for %row = %c0 to %c896 step %c128 iter_args(%z_2 = %z) -> (!pypto.tensor<[1000], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row] : !pypto.tensor<[1000], f32> -> !pypto.tile<[128], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %x_tile : !pypto.tile<[128], f32, vec>
// CHECK-NEXT:      %z_3 = pypto.tile.store %e_tile, %z_2[%row] : !pypto.tile<[128], f32, vec>, !pypto.tensor<[1000], f32>
// CHECK-NEXT:      scf.yield %z_3 : !pypto.tensor<[1000], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %x_tile_1 = pypto.tile.load %x[%c896] : !pypto.tensor<[1000], f32> -> !pypto.tile<[104], f32, vec>
// CHECK-NEXT:    %e_tile_1 = pypto.tile.exp %x_tile_1 : !pypto.tile<[104], f32, vec>
// CHECK-NEXT:    %z_4 = pypto.tile.store %e_tile_1, %z_1[%c896] : !pypto.tile<[104], f32, vec>, !pypto.tensor<[1000], f32>
// CHECK-NEXT:    pypto.return %z_4 : !pypto.tensor<[1000], f32>

// -----

// A cast: tiles are sized by their own element widths (f32 row 256 B + f32 row 256 B + f16
// row 128 B = 640 B per row -> 1 row in 1024 B).

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
// CHECK:           %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[4, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:      %m_tile = pypto.tile.abs %x_tile : !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:      %c_tile = pypto.tile.cast %m_tile : !pypto.tile<[1, 64], f32, vec> -> !pypto.tile<[1, 64], f16, vec>
// CHECK-NEXT:      %h_3 = pypto.tile.store %c_tile, %h_2[%row, %c0] : !pypto.tile<[1, 64], f16, vec>, !pypto.tensor<[4, 64], f16>

// -----

// An assemble of a window of a parameter (nothing computed): a copy loop. 32 rows of 48 f32
// (192 B) with 1024 B -> 5 rows max -> 8 blocks of 4.

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
// CHECK:         %o_1 = scf.for %row = %c0 to %c32 step %c4 iter_args(%o_2 = %o) -> (!pypto.tensor<[64, 48], f32>) {
// CHECK-NEXT:      %v_tile = pypto.tile.load %v[%row, %c0] : !pypto.tensor<[32, 48], f32> -> !pypto.tile<[4, 48], f32, vec>
// CHECK-NEXT:      %dst_row = arith.addi %c32, %row : index
// CHECK-NEXT:      %o_3 = pypto.tile.store %v_tile, %o_2[%dst_row, %c0] : !pypto.tile<[4, 48], f32, vec>, !pypto.tensor<[64, 48], f32>
// CHECK-NEXT:      scf.yield %o_3
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_1
// CHECK-NOT:     pypto.tensor.assemble
