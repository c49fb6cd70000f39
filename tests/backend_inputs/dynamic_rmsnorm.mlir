// A run-time row count N (pypto-default tiles it: a full-block loop, a partial tail, a balanced
// split over 4 cores); one build serves every N (pypto-compile --sim --dim N=0,1,17,64,1000).
pypto.func incore @k(%x: !pypto.tensor<[N, 256], f32>, %g: !pypto.tensor<[1, 256], f32>, out %y: !pypto.tensor<[N, 256], f32>) -> !pypto.tensor<[N, 256], f32> {
  %c0 = arith.constant 0 : index
  %inv_n = arith.constant 3.906250e-03 : f32
  %eps = arith.constant 1.0e-06 : f32
  %sq = pypto.tensor.mul %x, %x : !pypto.tensor<[N, 256], f32>
  %ss = pypto.tensor.row_sum %sq : !pypto.tensor<[N, 256], f32>
  %ms = pypto.tensor.muls %ss, %inv_n : !pypto.tensor<[N, 1], f32>, f32
  %me = pypto.tensor.adds %ms, %eps : !pypto.tensor<[N, 1], f32>, f32
  %rs = pypto.tensor.rsqrt %me : !pypto.tensor<[N, 1], f32>
  %n = pypto.tensor.row_expand_mul %x, %rs : !pypto.tensor<[N, 256], f32>, !pypto.tensor<[N, 1], f32>
  %o = pypto.tensor.col_expand_mul %n, %g : !pypto.tensor<[N, 256], f32>, !pypto.tensor<[1, 256], f32>
  %w = pypto.tensor.assemble %o into %y[%c0, %c0] : !pypto.tensor<[N, 256], f32> into !pypto.tensor<[N, 256], f32>
  pypto.return %w : !pypto.tensor<[N, 256], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[N, 256], f32>, %g: !pypto.tensor<[1, 256], f32>, out %y: !pypto.tensor<[N, 256], f32>) -> !pypto.tensor<[N, 256], f32> {
  %r = pypto.call @k(%x, %g, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, 256], f32>, !pypto.tensor<[1, 256], f32>, !pypto.tensor<[N, 256], f32>) -> !pypto.tensor<[N, 256], f32>
  pypto.return %r : !pypto.tensor<[N, 256], f32>
}
