// A small PyPTO program: an inline helper (row softmax on a tile) called inside an
// incore scope of an opaque host function, followed by a second, dependent scope.
// `make demo` runs it through the default pipeline (inline-functions,
// outline-incore-scopes) and, where the backend is available, lowers it to Ascend C.

pypto.func inline @row_softmax(%x: !pypto.tile<[16, 64], f32, vec>) -> !pypto.tile<[16, 64], f32, vec> {
  %row_max = pypto.tile.row_max %x : !pypto.tile<[16, 64], f32, vec>
  %shifted = pypto.tile.row_expand_sub %x, %row_max : !pypto.tile<[16, 64], f32, vec>, !pypto.tile<[16, 1], f32, vec>
  %exp = pypto.tile.exp %shifted : !pypto.tile<[16, 64], f32, vec>
  %row_sum = pypto.tile.row_sum %exp : !pypto.tile<[16, 64], f32, vec>
  %probs = pypto.tile.row_expand_div %exp, %row_sum : !pypto.tile<[16, 64], f32, vec>, !pypto.tile<[16, 1], f32, vec>
  pypto.return %probs : !pypto.tile<[16, 64], f32, vec>
}

pypto.func @main(%a: !pypto.tensor<[16, 64], f32>, %b: !pypto.tensor<[16, 64], f32>, out %out: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %scale = arith.constant 0.5 : f32
  %stored = pypto.incore_scope name("fused_softmax") -> (!pypto.tensor<[16, 64], f32>) {
    %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
    %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
    %sum = pypto.tile.add %ta, %tb : !pypto.tile<[16, 64], f32, vec>
    %scaled = pypto.tile.muls %sum, %scale : !pypto.tile<[16, 64], f32, vec>, f32
    %probs = pypto.call @row_softmax(%scaled) : (!pypto.tile<[16, 64], f32, vec>) -> !pypto.tile<[16, 64], f32, vec>
    %written = pypto.tile.store %probs, %out[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
    pypto.yield %written : !pypto.tensor<[16, 64], f32>
  }
  pypto.return %stored : !pypto.tensor<[16, 64], f32>
}
