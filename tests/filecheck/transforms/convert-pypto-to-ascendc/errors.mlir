// RUN: not pypto-opt %s --split-input-file -p convert-pypto-to-ascendc 2>&1 | filecheck %s
// Conversion errors name the op and the kernel, with the backend's messages.

pypto.func incore @tensor_level(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %e = pypto.tensor.exp %x : !pypto.tensor<[8, 64], f32>
  pypto.return %e : !pypto.tensor<[8, 64], f32>
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tensor.exp' in @tensor_level: tensor-level compute must be converted to tile ops first (convert-tensor-to-tile)
