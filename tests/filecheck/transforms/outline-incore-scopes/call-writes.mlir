// RUN: pypto-opt %s -p outline-incore-scopes | filecheck %s
// A call inside a scope that writes through an `out`/`inout` parameter of its callee writes
// the captured tensor: the outlined parameter gets that direction, and the callee's returned
// parameter makes the output the outlined function's own parameter.

pypto.func @fill(%x: !pypto.tensor<[4, 4], f32>, out %o: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32> {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.assemble %x into %o[%c0, %c0] : !pypto.tensor<[4, 4], f32> into !pypto.tensor<[4, 4], f32>
  pypto.return %w : !pypto.tensor<[4, 4], f32>
}

pypto.func @bump(inout %t: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32> {
  pypto.return %t : !pypto.tensor<[4, 4], f32>
}

pypto.func @main(%a: !pypto.tensor<[4, 4], f32>, out %o: !pypto.tensor<[4, 4], f32>, %acc: !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32> {
  %r = pypto.incore_scope -> (!pypto.tensor<[4, 4], f32>) {
    %w = pypto.call @fill(%a, %o) : (!pypto.tensor<[4, 4], f32>, !pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32>
    %b = pypto.call @bump(%acc) : (!pypto.tensor<[4, 4], f32>) -> !pypto.tensor<[4, 4], f32>
    pypto.yield %w : !pypto.tensor<[4, 4], f32>
  }
  pypto.return %r : !pypto.tensor<[4, 4], f32>
}

// CHECK:      pypto.func orchestration @main(
// CHECK-NEXT:   %r, %acc_1 = pypto.call @main_incore_0(%a, %o, %acc)
// CHECK:      pypto.func incore @main_incore_0(%a: !pypto.tensor<[4, 4], f32>, out %o: !pypto.tensor<[4, 4], f32>, inout %acc: !pypto.tensor<[4, 4], f32>) -> (!pypto.tensor<[4, 4], f32>, !pypto.tensor<[4, 4], f32>) {
// CHECK:        %w = pypto.call @fill(%a, %o)
// CHECK-NEXT:   %b = pypto.call @bump(%acc)
// CHECK-NEXT:   pypto.return %o, %acc : !pypto.tensor<[4, 4], f32>, !pypto.tensor<[4, 4], f32>
