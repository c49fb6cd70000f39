// RUN: pypto-opt %s -p expand-mixed-kernel,verify-expand-mixed-kernel | filecheck %s
// RUN: pypto-opt %s -p expand-mixed-kernel | pypto-opt | filecheck %s

// matmul + bias + relu in one kernel: the product crosses from the cube to the vector core
// through the c2v ring (the acc -> vec move becomes a push and a pop), the group keeps the
// kernel's name, and the caller is unchanged.

builtin.module {
  pypto.func incore @linear(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
    %v = pypto.tile.move %acc : !pypto.tile<[64, 64], f32, acc> -> !pypto.tile<[64, 64], f32, vec>
    %bt = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
    %s = pypto.tile.col_expand_add %v, %bt : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
    %r = pypto.tile.relu %s : !pypto.tile<[64, 64], f32, vec>
    %y2 = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
    pypto.return %y2 : !pypto.tensor<[64, 64], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %r = pypto.call @linear(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
    pypto.return %r : !pypto.tensor<[64, 64], f32>
  }
}

// CHECK:      pypto.func aic @linear_aic(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
// CHECK-NEXT:   %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
// CHECK-NEXT:   %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
// CHECK-NEXT:   %br = pypto.tile.move %bm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
// CHECK-NEXT:   %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
// CHECK-NEXT:   pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
// CHECK-NEXT:   pypto.return
// CHECK-NEXT: }
// CHECK-NEXT: pypto.func aiv @linear_aiv(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:   %bt = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:   %s = pypto.tile.col_expand_add %v, %bt : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:   %r = pypto.tile.relu %s : !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:   %y2 = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
// CHECK-NEXT:   pypto.return %y2 : !pypto.tensor<[64, 64], f32>
// CHECK-NEXT: }
// CHECK-NEXT: pypto.func group @linear(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
// CHECK-NEXT:   pypto.call @linear_aic(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> ()
// CHECK-NEXT:   %y2 = pypto.call @linear_aiv(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
// CHECK-NEXT:   pypto.return %y2 : !pypto.tensor<[64, 64], f32>
// CHECK-NEXT: }
// CHECK-NEXT: pypto.func orchestration @main(
// CHECK-NEXT:   %r = pypto.call @linear(%a, %b, %bias, %y)
