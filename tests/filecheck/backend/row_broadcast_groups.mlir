// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{ub-bytes=1048576}' -t ascendc | filecheck %s
// More rows than one Brcb covers (255 repeats of 8 rows): Brcb runs in groups of 254 repeats
// (2032 rows, so every later source offset stays 32-byte aligned for 2-byte types too), and the
// level-0 instruction in groups of 255 rows. No A2/A3 Unified Buffer holds such a tile with its
// operands; the plan here is made with a larger `ub-bytes`.

pypto.func incore @many_rows(%x: !pypto.tensor<[2100, 8], f32>, %r: !pypto.tensor<[2100, 1], f32>, out %y: !pypto.tensor<[2100, 8], f32>) -> !pypto.tensor<[2100, 8], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2100, 8], f32> -> !pypto.tile<[2100, 8], f32, vec>
  %v = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[2100, 1], f32> -> !pypto.tile<[2100, 1], f32, vec>
  %d = pypto.tile.row_expand_sub %t, %v : !pypto.tile<[2100, 8], f32, vec>, !pypto.tile<[2100, 1], f32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[2100, 8], f32, vec>, !pypto.tensor<[2100, 8], f32>
  pypto.return %w : !pypto.tensor<[2100, 8], f32>
}

// CHECK: pipe.InitBuffer(buf_d_brcb, 67328);
// CHECK: Brcb(d_brcb, v, 254, BrcbRepeatParams(1, 8));
// CHECK-NEXT: Brcb(d_brcb[16256], v[2032], 9, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Sub(d, t, d_brcb, 8, 255, BinaryRepeatParams(1, 1, 0, 1, 1, 1));
// CHECK-NEXT: Sub(d[2040], t[2040], d_brcb[2040], 8, 255, BinaryRepeatParams(1, 1, 0, 1, 1, 1));
// CHECK-COUNT-6: Sub(d[{{[0-9]+}}], t[{{[0-9]+}}], d_brcb[{{[0-9]+}}], 8, 255, BinaryRepeatParams(1, 1, 0, 1, 1, 1));
// CHECK-NEXT: Sub(d[16320], t[16320], d_brcb[16320], 8, 60, BinaryRepeatParams(1, 1, 0, 1, 1, 1));
// CHECK-NEXT: inQ_t.FreeTensor(t);
