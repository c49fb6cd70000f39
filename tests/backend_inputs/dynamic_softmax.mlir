// A run-time row count N (pypto-default tiles it: a full-block loop, a partial tail, a balanced
// split over 4 cores); one build serves every N (pypto-compile --sim --dim N=0,1,17,64,1000).
pypto.func incore @k(%x: !pypto.tensor<[N, 128], f32>, out %y: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %c0 = arith.constant 0 : index
  %mx = pypto.tensor.row_max %x : !pypto.tensor<[N, 128], f32>
  %sh = pypto.tensor.row_expand_sub %x, %mx : !pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 1], f32>
  %e = pypto.tensor.exp %sh : !pypto.tensor<[N, 128], f32>
  %s = pypto.tensor.row_sum %e : !pypto.tensor<[N, 128], f32>
  %p = pypto.tensor.row_expand_div %e, %s : !pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 1], f32>
  %w = pypto.tensor.assemble %p into %y[%c0, %c0] : !pypto.tensor<[N, 128], f32> into !pypto.tensor<[N, 128], f32>
  pypto.return %w : !pypto.tensor<[N, 128], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[N, 128], f32>, out %y: !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32> {
  %r = pypto.call @k(%x, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>) -> !pypto.tensor<[N, 128], f32>
  pypto.return %r : !pypto.tensor<[N, 128], f32>
}
