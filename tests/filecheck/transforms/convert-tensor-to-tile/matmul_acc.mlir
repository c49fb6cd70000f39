// RUN: pypto-opt %s -p convert-tensor-to-tile | filecheck %s

// A tensor-level matmul_acc: the product a @ b is the cube path's blocked matmul (stored to
// a workspace tensor, as for tensor.matmul), and the accumulator joins it in a vector loop:
// L0C cannot be loaded from GM, so acc + a @ b is an add after the product's Fixpipe. The
// add is the f32 add the interpreter does.

pypto.func incore @mm_acc(%acc: !pypto.tensor<[64, 64], f32>, %a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %d = pypto.tensor.matmul_acc %acc, %a, %b : !pypto.tensor<[64, 64], f32>, !pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>
  %r = pypto.tensor.assemble %d into %y[%c0, %c0] : !pypto.tensor<[64, 64], f32> into !pypto.tensor<[64, 64], f32>
  pypto.return %r : !pypto.tensor<[64, 64], f32>
}

// CHECK-LABEL: pypto.func incore @mm_acc(
// CHECK-NOT:     pypto.tensor.matmul_acc
// CHECK:         %d_product = pypto.tensor.create : !pypto.tensor<[64, 64], f32>
// CHECK:         %acc_1 = pypto.tile.matmul %a_left, %b_right : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
// CHECK-NEXT:    %d_product_1 = pypto.tile.store %acc_1, %d_product[%c0, %c0] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[64, 64], f32>
// CHECK-NEXT:    %acc_tile = pypto.tile.load %acc[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:    %d_product_tile = pypto.tile.load %d_product_1[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:    %d_tile = pypto.tile.add %acc_tile, %d_product_tile : !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:    %y_1 = pypto.tile.store %d_tile, %y[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
// CHECK-NOT:     pypto.tensor.matmul_acc
// CHECK-NEXT:    pypto.return %y_1
