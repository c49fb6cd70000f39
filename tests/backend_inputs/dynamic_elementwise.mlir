// A run-time row count N (pypto-default tiles it: a full-block loop, a partial tail, a balanced
// split over 4 cores); one build serves every N (pypto-compile --sim --dim N=0,1,17,64,1000).
pypto.func incore @k(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %c0 = arith.constant 0 : index
  %x = pypto.tensor.mul %a, %b : !pypto.tensor<[N, 128], f32>
  %y = pypto.tensor.adds %x, %s : !pypto.tensor<[N, 128], f32>, f32
  %e = pypto.tensor.exp %y : !pypto.tensor<[N, 128], f32>
  %w = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[N, 128], f32> into !pypto.tensor<[N, 128], f32>
  pypto.return %w : !pypto.tensor<[N, 128], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[N, 128], f32>, %b: !pypto.tensor<[N, 128], f32>, %s: f32, out %o: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %r = pypto.call @k(%a, %b, %s, %o) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32, !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32>
  pypto.return %r : !pypto.tensor<[N, 128], f32>
}
