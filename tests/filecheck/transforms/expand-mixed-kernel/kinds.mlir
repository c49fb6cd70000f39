// RUN: pypto-opt %s -p expand-mixed-kernel,verify-expand-mixed-kernel | filecheck %s

// Kernels that use one core only are not split: they become aic (cube tiles or a matmul)
// or aiv (vector tiles, or nothing core-specific at all); views (slices, valid shapes) are neither. Functions that already have a
// core, and host functions, are left alone. A mixed SPMD kernel keeps its block count on
// the group (the launch); new member names avoid existing symbols.

builtin.module {
  pypto.func incore @vector(%a: !pypto.tensor<[8, 8], f32>, out %o: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[8, 8], f32> -> !pypto.tile<[8, 8], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[8, 8], f32, vec>
    %o2 = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[8, 8], f32, vec>, !pypto.tensor<[8, 8], f32>
    pypto.return %o2 : !pypto.tensor<[8, 8], f32>
  }
  pypto.func incore @cube(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %o2 = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func incore @cube_partial_operand(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 32], f16>, %w: index, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %bs = pypto.tensor.slice %b[%c0, %c16] : !pypto.tensor<[16, 32], f16> -> !pypto.tensor<[16, 16], f16>
    %bv = pypto.tensor.set_validshape %bs, %c16, %w : !pypto.tensor<[16, 16], f16>, index, index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %bm = pypto.tile.load %bv[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %o2 = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func incore @tensor_matmul(%a: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
    %p = pypto.tensor.matmul %a, %a : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32> -> !pypto.tensor<[8, 8], f32>
    pypto.return %p : !pypto.tensor<[8, 8], f32>
  }
  pypto.func incore @scalars(%a: !pypto.tensor<[8, 8], f32>) -> index {
    %n = pypto.tensor.dim %a, 0 : !pypto.tensor<[8, 8], f32>
    %m = arith.addi %n, %n : index
    pypto.return %m : index
  }
  pypto.func aiv @already(%a: !pypto.tensor<[8, 8], f32>) {
    pypto.return
  }
  pypto.func @spmd_aic() {
    pypto.return
  }
  pypto.func incore @spmd(%a: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> attributes {pypto.block_dim = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %b = pypto.tile.get_block_idx : index
    %row = arith.muli %b, %c16 : index
    %m = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %v = pypto.tile.move %acc : !pypto.tile<[16, 16], f32, acc> -> !pypto.tile<[16, 16], f32, vec>
    %e = pypto.tile.exp %v : !pypto.tile<[16, 16], f32, vec>
    %o2 = pypto.tile.store %e, %o[%row, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[64, 16], f32>
    pypto.return %o2 : !pypto.tensor<[64, 16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[8, 8], f32>, out %o: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
    %r = pypto.call @vector(%a, %o) : (!pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
    pypto.return %r : !pypto.tensor<[8, 8], f32>
  }
}

// CHECK: pypto.func aiv @vector(
// CHECK: pypto.func aic @cube(
// A tensor view with a valid shape is a view like tensor.slice: it names GM storage on both
// cores, so a cube kernel reading B through one is still a cube kernel, not a mixed one.
// CHECK: pypto.func aic @cube_partial_operand(
// CHECK-NOT: pypto.func aiv @cube_partial_operand
// CHECK: pypto.func aic @tensor_matmul(
// CHECK: pypto.func aiv @scalars(
// CHECK: pypto.func aiv @already(
// CHECK: pypto.func @spmd_aic()
// CHECK: pypto.func aic @spmd_aic_1(%a: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>) {
// CHECK-NEXT:  %c0 = arith.constant 0 : index
// CHECK-NEXT:  %c16 = arith.constant 16 : index
// CHECK-NEXT:  %b = pypto.tile.get_block_idx : index
// CHECK-NEXT:  %row = arith.muli %b, %c16 : index
// CHECK:       pypto.cross_core.push %acc to aiv slots(2)
// CHECK:     pypto.func aiv @spmd_aiv(%a: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> {
// CHECK-NEXT:  %c0 = arith.constant 0 : index
// CHECK-NEXT:  %c16 = arith.constant 16 : index
// CHECK-NEXT:  %b = pypto.tile.get_block_idx : index
// CHECK:     pypto.func group @spmd(%a: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> attributes {pypto.block_dim = 4 : i64} {
// CHECK-NEXT:  pypto.call @spmd_aic_1(%a, %o)
// CHECK-NEXT:  %o2 = pypto.call @spmd_aiv(%a, %o)
// CHECK:     pypto.func orchestration @main(
// CHECK-NEXT:  %r = pypto.call @vector(%a, %o)
