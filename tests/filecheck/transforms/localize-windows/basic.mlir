// RUN: pypto-opt %s --split-input-file -p localize-windows | filecheck %s

// A rank's program as one device's: window parameters become inout tensors, the local
// views of them the parameters themselves; calls follow their callees' new signatures.

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
  %c0 = arith.constant 0 : index
  %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
  %t = pypto.tile.load %l[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
  %r = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
  pypto.return %r : !pypto.tensor<[1, 64], f32>
}
pypto.func orchestration @o(%w: !pypto.dist_tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
  %r = pypto.call @k(%w, %y) : (!pypto.dist_tensor<[1, 64], f32>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
  pypto.return %r : !pypto.tensor<[1, 64], f32>
}

// CHECK:      pypto.func incore @k(inout %w: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NOT:    pypto.dist.local
// CHECK-NEXT:   %t = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK:      pypto.func orchestration @o(inout %w: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>)
// CHECK-NEXT:   %r = pypto.call @k(%w, %y) : (!pypto.tensor<[1, 64], f32>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
