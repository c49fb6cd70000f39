// PyPTO's ragged-tail idiom: a load with a run-time valid shape [rl, vl], pl.tile.fillpad(pad_value=min),
// a row max; the padded tile and the row values stored (pypto-compile --sim --scalar vl=37 --scalar rl=50).
pypto.func incore @k(%a: !pypto.tensor<[64, 64], f32>, %vl: index, %rl: index, out %o: !pypto.tensor<[64, 64], f32>, out %m: !pypto.tensor<[64, 1], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
  %p = pypto.tile.set_validshape %t, %rl, %vl : !pypto.tile<[64, 64], f32, vec>, index, index
  %f = pypto.tile.fillpad %p pad(min) : !pypto.tile<[64, 64], f32, vec>
  %mx = pypto.tile.row_max %f : !pypto.tile<[64, 64], f32, vec> -> !pypto.tile<[64, 1], f32, vec>
  %w = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
  %w2 = pypto.tile.store %mx, %m[%c0, %c0] : !pypto.tile<[64, 1], f32, vec>, !pypto.tensor<[64, 1], f32>
  pypto.return %w : !pypto.tensor<[64, 64], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[64, 64], f32>, %vl: index, %rl: index, out %o: !pypto.tensor<[64, 64], f32>, out %m: !pypto.tensor<[64, 1], f32>) -> !pypto.tensor<[64, 64], f32> {
  %r = pypto.call @k(%a, %vl, %rl, %o, %m) : (!pypto.tensor<[64, 64], f32>, index, index, !pypto.tensor<[64, 64], f32>, !pypto.tensor<[64, 1], f32>) -> !pypto.tensor<[64, 64], f32>
  pypto.return %r : !pypto.tensor<[64, 64], f32>
}
