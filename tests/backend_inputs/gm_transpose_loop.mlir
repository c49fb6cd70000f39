// A transposed GM-to-GM assemble in a loop: run-time source rows and destination columns.
pypto.func incore @k(%x: !pypto.tensor<[32, 16], f32>, inout %o: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%acc = %o) -> (!pypto.tensor<[16, 32], f32>) {
    %s = pypto.tensor.slice %x[%i, %c0] : !pypto.tensor<[32, 16], f32> -> !pypto.tensor<[8, 16], f32>
    %t = pypto.tensor.transpose %s, 0, 1 : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[16, 8], f32>
    %a = pypto.tensor.assemble %t into %acc[%c0, %i] : !pypto.tensor<[16, 8], f32> into !pypto.tensor<[16, 32], f32>
    scf.yield %a : !pypto.tensor<[16, 32], f32>
  }
  pypto.return %r : !pypto.tensor<[16, 32], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[32, 16], f32>, inout %o: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %r = pypto.call @k(%x, %o) : (!pypto.tensor<[32, 16], f32>, !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32>
  pypto.return %r : !pypto.tensor<[16, 32], f32>
}
