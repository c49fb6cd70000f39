pypto.func incore @fill(%x: !pypto.tensor<[16, 32], f32>, out %o: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 32], f32> -> !pypto.tile<[16, 32], f32, vec>
  %w = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[16, 32], f32, vec>, !pypto.tensor<[16, 32], f32>
  pypto.return %o : !pypto.tensor<[16, 32], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[16, 32], f32>, %init: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (!pypto.tensor<[16, 32], f32>) {
    %blk = pypto.tensor.create : !pypto.tensor<[16, 32], f32>
    %r = pypto.call @fill(%prev, %blk) : (!pypto.tensor<[16, 32], f32>, !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32>
    scf.yield %r : !pypto.tensor<[16, 32], f32>
  }
  pypto.return %last : !pypto.tensor<[16, 32], f32>
}
