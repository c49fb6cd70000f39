// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile,verify-convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | pypto-opt --split-input-file | filecheck %s
// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile --print-op-generic | pypto-opt --split-input-file | filecheck %s

// A fused chain: one loop, every operand loaded once per block, one store straight into
// the out parameter the chain is assembled into. Per row, 512 B f32 tiles: 3 loads and the
// stored %d in double-buffered queues (8 tiles), the intermediates %m %s %e %n in 2 shared
// VECCALC buffers (each dies at the next op): 10 tiles, 5120 B; the UB (196608 B) holds 38
// rows, so the 64 rows take 2 blocks of 32 (the fewest blocks of equal size).

builtin.module {
  pypto.func incore @fused(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, %c: !pypto.tensor<[64, 128], f32>, %k: f32, out %o: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
    %c0 = arith.constant 0 : index
    %m = pypto.tensor.mul %a, %b : !pypto.tensor<[64, 128], f32>
    %s = pypto.tensor.add %m, %c : !pypto.tensor<[64, 128], f32>
    %e = pypto.tensor.exp %s : !pypto.tensor<[64, 128], f32>
    %n = pypto.tensor.muls %e, %k : !pypto.tensor<[64, 128], f32>, f32
    %d = pypto.tensor.sub %n, %a : !pypto.tensor<[64, 128], f32>
    %w = pypto.tensor.assemble %d into %o[%c0, %c0] : !pypto.tensor<[64, 128], f32> into !pypto.tensor<[64, 128], f32>
    pypto.return %w : !pypto.tensor<[64, 128], f32>
  }
}

// CHECK-LABEL: pypto.func incore @fused(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %c32 = arith.constant 32 : index
// CHECK-NEXT:    %o_1 = scf.for %row = %c0 to %c64 step %c32 iter_args(%o_2 = %o) -> (!pypto.tensor<[64, 128], f32>) {
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %b_tile = pypto.tile.load %b[%row, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %c_tile = pypto.tile.load %c[%row, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %m_tile = pypto.tile.mul %a_tile, %b_tile : !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.add %m_tile, %c_tile : !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %s_tile : !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %n_tile = pypto.tile.muls %e_tile, %k : !pypto.tile<[32, 128], f32, vec>, f32
// CHECK-NEXT:      %d_tile = pypto.tile.sub %n_tile, %a_tile : !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:      %o_3 = pypto.tile.store %d_tile, %o_2[%row, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:      scf.yield %o_3 : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_1 : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:  }

// -----

// A tensor that fits whole: no loop. An intermediate read by another op (tensor.read) is
// stored into a tensor.create'd tensor, before that op; the rest is a second group.

builtin.module {
  pypto.func aiv @materialized(%a: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %e = pypto.tensor.exp %a : !pypto.tensor<[16, 64], f32>
    %v = pypto.tensor.read %e[%c3, %c3] : !pypto.tensor<[16, 64], f32>
    %m = pypto.tensor.muls %e, %v : !pypto.tensor<[16, 64], f32>, f32
    %w = pypto.tensor.assemble %m into %o[%c0, %c0] : !pypto.tensor<[16, 64], f32> into !pypto.tensor<[16, 64], f32>
    pypto.return %w : !pypto.tensor<[16, 64], f32>
  }
}

// CHECK-LABEL: pypto.func aiv @materialized(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %e = pypto.tensor.create : !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:    %a_tile = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %e_tile = pypto.tile.exp %a_tile : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %e_1 = pypto.tile.store %e_tile, %e[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:    %v = pypto.tensor.read %e_1[%c3, %c3] : !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:    %e_tile_1 = pypto.tile.load %e_1[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %m_tile = pypto.tile.muls %e_tile_1, %v : !pypto.tile<[16, 64], f32, vec>, f32
// CHECK-NEXT:    %o_1 = pypto.tile.store %m_tile, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:    pypto.return %o_1 : !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:  }

// -----

// Two outputs of one group, assembled into two parameters (the second at a row offset of
// a larger tensor): one load, two stores.

builtin.module {
  pypto.func incore @two_outputs(%a: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>, inout %p: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[32, 64], f32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %e = pypto.tensor.abs %a : !pypto.tensor<[16, 64], f32>
    %n = pypto.tensor.sqrt %e : !pypto.tensor<[16, 64], f32>
    %w = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[16, 64], f32> into !pypto.tensor<[16, 64], f32>
    %x = pypto.tensor.assemble %n into %p[%c8, %c0] : !pypto.tensor<[16, 64], f32> into !pypto.tensor<[32, 64], f32>
    pypto.return %w, %x : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[32, 64], f32>
  }
}

// CHECK-LABEL: pypto.func incore @two_outputs(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %a_tile = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %e_tile = pypto.tile.abs %a_tile : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %n_tile = pypto.tile.sqrt %e_tile : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %o_1 = pypto.tile.store %e_tile, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
// CHECK-NEXT:    %p_1 = pypto.tile.store %n_tile, %p[%c8, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
// CHECK-NEXT:    pypto.return %o_1, %p_1 : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[32, 64], f32>
// CHECK-NEXT:  }
