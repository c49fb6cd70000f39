// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{ub-bytes=61600}' | filecheck %s
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p 'convert-tensor-to-tile{ub-bytes=61600},verify-convert-tensor-to-tile' | filecheck %s --check-prefix=VERIFY

// A tensor-level softmax is one fusion group: its values have 44 rows ([44, 128] and
// [44, 1] alike), so the whole chain becomes ONE loop over row blocks, with [R, 128] tiles and
// [R, 1] tiles for the row max and sum.
// Sizing (ub-bytes=61600, the backend's buffer plan: the load and the stored values in
// double-buffered queues, the rest in VECCALC buffers shared by live range): R = 22 needs
// 67872 B with every tile in its own buffer, 50976 B with %sh and %e computed in place over
// the loaded %x tile, as ascendc-plan-buffers does when the double-buffered plan overflows
// (each row adds 2304 B: R = 27 would not fit); 2 blocks of 22.
// The row sum is also returned: it is stored block by block into a created [44, 1] tensor.

pypto.func incore @softmax(%x: !pypto.tensor<[44, 128], f32>, out %y: !pypto.tensor<[44, 128], f32>) -> (!pypto.tensor<[44, 128], f32>, !pypto.tensor<[44, 1], f32>) {
  %c0 = arith.constant 0 : index
  %mx = pypto.tensor.row_max %x : !pypto.tensor<[44, 128], f32>
  %sh = pypto.tensor.row_expand_sub %x, %mx : !pypto.tensor<[44, 128], f32>, !pypto.tensor<[44, 1], f32>
  %e = pypto.tensor.exp %sh : !pypto.tensor<[44, 128], f32>
  %s = pypto.tensor.row_sum %e : !pypto.tensor<[44, 128], f32>
  %p = pypto.tensor.row_expand_div %e, %s : !pypto.tensor<[44, 128], f32>, !pypto.tensor<[44, 1], f32>
  %w = pypto.tensor.assemble %p into %y[%c0, %c0] : !pypto.tensor<[44, 128], f32> into !pypto.tensor<[44, 128], f32>
  pypto.return %w, %s : !pypto.tensor<[44, 128], f32>, !pypto.tensor<[44, 1], f32>
}

// CHECK-LABEL: pypto.func incore @softmax
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %s = pypto.tensor.create : !pypto.tensor<[44, 1], f32>
// CHECK-NEXT:    %c44 = arith.constant 44 : index
// CHECK-NEXT:    %c22 = arith.constant 22 : index
// CHECK-NEXT:    %s_1, %y_1 = scf.for %row = %c0 to %c44 step %c22 iter_args(%s_2 = %s, %y_2 = %y) -> (!pypto.tensor<[44, 1], f32>, !pypto.tensor<[44, 128], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[44, 128], f32> -> !pypto.tile<[22, 128], f32, vec>
// CHECK-NEXT:      %mx_tile = pypto.tile.row_max %x_tile : !pypto.tile<[22, 128], f32, vec>
// CHECK-NEXT:      %sh_tile = pypto.tile.row_expand_sub %x_tile, %mx_tile : !pypto.tile<[22, 128], f32, vec>, !pypto.tile<[22, 1], f32, vec>
// CHECK-NEXT:      %e_tile = pypto.tile.exp %sh_tile : !pypto.tile<[22, 128], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.row_sum %e_tile : !pypto.tile<[22, 128], f32, vec>
// CHECK-NEXT:      %p_tile = pypto.tile.row_expand_div %e_tile, %s_tile : !pypto.tile<[22, 128], f32, vec>, !pypto.tile<[22, 1], f32, vec>
// CHECK-NEXT:      %s_3 = pypto.tile.store %s_tile, %s_2[%row, %c0] : !pypto.tile<[22, 1], f32, vec>, !pypto.tensor<[44, 1], f32>
// CHECK-NEXT:      %y_3 = pypto.tile.store %p_tile, %y_2[%row, %c0] : !pypto.tile<[22, 128], f32, vec>, !pypto.tensor<[44, 128], f32>
// CHECK-NEXT:      scf.yield %s_3, %y_3 : !pypto.tensor<[44, 1], f32>, !pypto.tensor<[44, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %y_1, %s_1 : !pypto.tensor<[44, 128], f32>, !pypto.tensor<[44, 1], f32>
// CHECK-NEXT:  }

// -----

// Row-local ops over different column counts fuse too: the row sums of %x scale the rows of
// %z, and the [16, 1] sums are loaded/computed as [16, 1] tiles (one block: no loop).

pypto.func aiv @widths(%x: !pypto.tensor<[16, 64], f32>, %z: !pypto.tensor<[16, 32], f32>, %b: !pypto.tensor<[16, 1], f32>, out %o: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %c0 = arith.constant 0 : index
  %s = pypto.tensor.row_sum %x : !pypto.tensor<[16, 64], f32>
  %t = pypto.tensor.add %s, %b : !pypto.tensor<[16, 1], f32>
  %q = pypto.tensor.row_expand_mul %z, %t : !pypto.tensor<[16, 32], f32>, !pypto.tensor<[16, 1], f32>
  %w = pypto.tensor.assemble %q into %o[%c0, %c0] : !pypto.tensor<[16, 32], f32> into !pypto.tensor<[16, 32], f32>
  pypto.return %w : !pypto.tensor<[16, 32], f32>
}

// CHECK-LABEL: pypto.func aiv @widths
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %x_tile = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %b_tile = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 1], f32> -> !pypto.tile<[16, 1], f32, vec>
// CHECK-NEXT:    %z_tile = pypto.tile.load %z[%c0, %c0] : !pypto.tensor<[16, 32], f32> -> !pypto.tile<[16, 32], f32, vec>
// CHECK-NEXT:    %s_tile = pypto.tile.row_sum %x_tile : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT:    %t_tile = pypto.tile.add %s_tile, %b_tile : !pypto.tile<[16, 1], f32, vec>
// CHECK-NEXT:    %q_tile = pypto.tile.row_expand_mul %z_tile, %t_tile : !pypto.tile<[16, 32], f32, vec>, !pypto.tile<[16, 1], f32, vec>
// CHECK-NEXT:    %o_1 = pypto.tile.store %q_tile, %o[%c0, %c0] : !pypto.tile<[16, 32], f32, vec>, !pypto.tensor<[16, 32], f32>
// CHECK-NEXT:    pypto.return %o_1 : !pypto.tensor<[16, 32], f32>
// CHECK-NEXT:  }

// -----

// Unknown ('?') dimensions are left, and the verifier says why (named dynamic dimensions
// are converted: dynamic.mlir).

pypto.func incore @dynamic(%x: !pypto.tensor<[?, 64], f32>) -> !pypto.tensor<[?, 1], f32> {
  %m = pypto.tensor.row_max %x : !pypto.tensor<[?, 64], f32>
  pypto.return %m : !pypto.tensor<[?, 1], f32>
}

// CHECK-LABEL: pypto.func incore @dynamic
// CHECK-NEXT:    pypto.tensor.row_max %x

// VERIFY-NOT:  @softmax:
// VERIFY-NOT:  @widths:
// VERIFY:      verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:
// VERIFY-NEXT:   @dynamic: 'pypto.tensor.row_max' (%m) is left: its shape !pypto.tensor<[?, 1], f32> has an unknown dimension '?': name it (pl.dynamic) to tile it
