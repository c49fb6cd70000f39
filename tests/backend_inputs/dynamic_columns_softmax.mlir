// A run-time row count N and row length C (bounded by pypto.dim_bounds: tiles of 300 columns); every
// block is partial in its columns, the row reductions pad with their identity (pypto-compile --sim --dim N=17 --dim C=37).
pypto.func incore @k(%x: !pypto.tensor<[N, C], f32>, out %y: !pypto.tensor<[N, C], f32>) -> !pypto.tensor<[N, C], f32> attributes {pypto.dim_bounds = {C = 300 : i64}} {
  %c0 = arith.constant 0 : index
  %mx = pypto.tensor.row_max %x : !pypto.tensor<[N, C], f32>
  %sh = pypto.tensor.row_expand_sub %x, %mx : !pypto.tensor<[N, C], f32>, !pypto.tensor<[N, 1], f32>
  %e = pypto.tensor.exp %sh : !pypto.tensor<[N, C], f32>
  %s = pypto.tensor.row_sum %e : !pypto.tensor<[N, C], f32>
  %p = pypto.tensor.row_expand_div %e, %s : !pypto.tensor<[N, C], f32>, !pypto.tensor<[N, 1], f32>
  %w = pypto.tensor.assemble %p into %y[%c0, %c0] : !pypto.tensor<[N, C], f32> into !pypto.tensor<[N, C], f32>
  pypto.return %w : !pypto.tensor<[N, C], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[N, C], f32>, out %y: !pypto.tensor<[N, C], f32>) -> !pypto.tensor<[N, C], f32> {
  %r = pypto.call @k(%x, %y) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[N, C], f32>, !pypto.tensor<[N, C], f32>) -> !pypto.tensor<[N, C], f32>
  pypto.return %r : !pypto.tensor<[N, C], f32>
}
