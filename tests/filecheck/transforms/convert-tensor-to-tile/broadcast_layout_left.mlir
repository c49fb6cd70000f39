// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p convert-tensor-to-tile,verify-convert-tensor-to-tile | filecheck %s --check-prefix=VERIFY

// Left as tensor ops: a column reduction (it combines the row blocks the loop iterates
// over), a tensor-level matmul_acc whose product the cube path does not block (4 columns) and views
// (transpose, reshape: no compute). The verifier names each compute op and why.

pypto.func incore @left(%x: !pypto.tensor<[8, 16], f32>, %acc: !pypto.tensor<[8, 4], f32>, %w: !pypto.tensor<[16, 4], f32>) -> (!pypto.tensor<[1, 16], f32>, !pypto.tensor<[8, 4], f32>, !pypto.tensor<[16, 8], f32>) {
  %cs = pypto.tensor.col_sum %x : !pypto.tensor<[8, 16], f32>
  %d = pypto.tensor.matmul_acc %acc, %x, %w : !pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>
  %t = pypto.tensor.transpose %x, 0, 1 : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[16, 8], f32>
  pypto.return %cs, %d, %t : !pypto.tensor<[1, 16], f32>, !pypto.tensor<[8, 4], f32>, !pypto.tensor<[16, 8], f32>
}

// CHECK-LABEL: pypto.func incore @left(
// CHECK-NEXT:    %cs = pypto.tensor.col_sum %x
// CHECK-NEXT:    %d = pypto.tensor.matmul_acc %acc, %x, %w
// CHECK-NEXT:    %t = pypto.tensor.transpose %x, 0, 1
// CHECK-NEXT:    pypto.return %cs, %d, %t

// VERIFY:      verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:
// VERIFY-NEXT:   @left: 'pypto.tensor.col_sum' (%cs) is left: column reductions combine the row blocks the pass tiles over: not converted yet
// VERIFY-NEXT:   @left: 'pypto.tensor.matmul_acc' (%d) is left: it is converted as a tensor.matmul plus an add of its accumulator, and the cube path does not convert that product (see tensor.matmul's conditions)
// VERIFY-NOT:    pypto.tensor.transpose

// -----

// A reshape between two groups ([8, 1] row sums read as a [1, 8] row): the first group's
// value is stored into a created tensor, the reshape stays a view of it, the second group
// loads the view.

pypto.func incore @reshape_between_groups(%x: !pypto.tensor<[8, 32], f32>, %b: !pypto.tensor<[1, 8], f32>) -> !pypto.tensor<[1, 8], f32> {
  %s = pypto.tensor.row_sum %x : !pypto.tensor<[8, 32], f32>
  %r = pypto.tensor.reshape %s : !pypto.tensor<[8, 1], f32> -> !pypto.tensor<[1, 8], f32>
  %a = pypto.tensor.add %r, %b : !pypto.tensor<[1, 8], f32>
  pypto.return %a : !pypto.tensor<[1, 8], f32>
}

// CHECK-LABEL: pypto.func incore @reshape_between_groups(
// CHECK-NEXT:    %s = pypto.tensor.create : !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %x_tile = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 32], f32> -> !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT:    %s_tile = pypto.tile.row_sum %x_tile : !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT:    %s_1 = pypto.tile.store %s_tile, %s[%c0, %c0] : !pypto.tile<[8, 1], f32, vec>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:    %r = pypto.tensor.reshape %s_1 : !pypto.tensor<[8, 1], f32> -> !pypto.tensor<[1, 8], f32>
// CHECK-NEXT:    %a = pypto.tensor.create : !pypto.tensor<[1, 8], f32>
// CHECK-NEXT:    %r_tile = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[1, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
// CHECK-NEXT:    %b_tile = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[1, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
// CHECK-NEXT:    %a_tile = pypto.tile.add %r_tile, %b_tile : !pypto.tile<[1, 8], f32, vec>
// CHECK-NEXT:    %a_1 = pypto.tile.store %a_tile, %a[%c0, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[1, 8], f32>
// CHECK-NEXT:    pypto.return %a_1 : !pypto.tensor<[1, 8], f32>

// VERIFY-LABEL: pypto.func incore @reshape_between_groups(
