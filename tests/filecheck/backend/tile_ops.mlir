// RUN: pypto-opt %s -t ascendc | filecheck %s
// The tile ops of the op-surface work (#12) in Ascend C, as a layernorm-like f32 kernel and an
// i16 kernel on unaligned rows:
// * `tile.create` only used as a reduction's `tmp` needs no buffer (the reduction plans its own);
// * `reshape` between unpadded layouts ([16, 1] <-> [1, 16]) is a view: no copy, the same tensor;
// * `rsqrt` is Rsqrt; `row_expand_mul` Brcb + level-0 Mul; `col_expand_mul/add` level-0 Mul/Add
//   with one repeat per row and the [1, 80] row re-read by every repeat (src1 repeat stride 0),
//   in two 64-lane column chunks;
// * `tanh` is 1 - 2 / (exp(2x) + 1) in the result's buffer; `maximums` is Maxs;
// * `concat` copies each operand's rows into its columns (level-0 Muls by 1);
// * i16: `abs` is max(x, -x) (Abs is half/float only), `relu` Maxs(x, 0) (Relu has no int16),
//   `subs` of a constant adds static_cast<int16_t>(-c) (-c of an int16_t would be an int).

pypto.func incore @norm(%x: !pypto.tensor<[16, 80], f32>, %g: !pypto.tensor<[1, 80], f32>, %b: !pypto.tensor<[1, 80], f32>, out %y: !pypto.tensor<[16, 80], f32>, out %z: !pypto.tensor<[16, 160], f32>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant 0.0125 : f32
  %lo = arith.constant -0.5 : f32
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 80], f32> -> !pypto.tile<[16, 80], f32, vec>
  %gt = pypto.tile.load %g[%c0, %c0] : !pypto.tensor<[1, 80], f32> -> !pypto.tile<[1, 80], f32, vec>
  %bt = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[1, 80], f32> -> !pypto.tile<[1, 80], f32, vec>
  %tmp = pypto.tile.create : !pypto.tile<[16, 80], f32, vec>
  %sq = pypto.tile.mul %t, %t : !pypto.tile<[16, 80], f32, vec>
  %ss = pypto.tile.row_sum %sq tmp(%tmp : !pypto.tile<[16, 80], f32, vec>) : !pypto.tile<[16, 80], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
  %st = pypto.tile.reshape %ss : !pypto.tile<[16, 1], f32, vec> -> !pypto.tile<[1, 16], f32, vec>
  %ms = pypto.tile.muls %st, %k : !pypto.tile<[1, 16], f32, vec>, f32
  %m = pypto.tile.reshape %ms : !pypto.tile<[1, 16], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
  %rs = pypto.tile.rsqrt %m : !pypto.tile<[16, 1], f32, vec>
  %n = pypto.tile.row_expand_mul %t, %rs : !pypto.tile<[16, 80], f32, vec>, !pypto.tile<[16, 1], f32, vec>
  %ng = pypto.tile.col_expand_mul %n, %gt : !pypto.tile<[16, 80], f32, vec>, !pypto.tile<[1, 80], f32, vec>
  %nb = pypto.tile.col_expand_add %ng, %bt : !pypto.tile<[16, 80], f32, vec>, !pypto.tile<[1, 80], f32, vec>
  %th = pypto.tile.tanh %nb : !pypto.tile<[16, 80], f32, vec>
  %mx = pypto.tile.maximums %th, %lo : !pypto.tile<[16, 80], f32, vec>, f32
  %wy = pypto.tile.store %mx, %y[%c0, %c0] : !pypto.tile<[16, 80], f32, vec>, !pypto.tensor<[16, 80], f32>
  %cc = pypto.tile.concat %t, %nb : !pypto.tile<[16, 80], f32, vec>, !pypto.tile<[16, 80], f32, vec>
  %wz = pypto.tile.store %cc, %z[%c0, %c0] : !pypto.tile<[16, 160], f32, vec>, !pypto.tensor<[16, 160], f32>
  pypto.return %wy, %wz : !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>
}

pypto.func incore @ints(%x: !pypto.tensor<[10, 20], i16>, out %y: !pypto.tensor<[10, 20], i16>) -> !pypto.tensor<[10, 20], i16> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2 : i16
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[10, 20], i16> -> !pypto.tile<[10, 20], i16, vec>
  %a = pypto.tile.abs %t : !pypto.tile<[10, 20], i16, vec>
  %s = pypto.tile.subs %a, %two : !pypto.tile<[10, 20], i16, vec>, i16
  %r = pypto.tile.relu %s : !pypto.tile<[10, 20], i16, vec>
  %w = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[10, 20], i16, vec>, !pypto.tensor<[10, 20], i16>
  pypto.return %w : !pypto.tensor<[10, 20], i16>
}

pypto.func orchestration @main(%x: !pypto.tensor<[16, 80], f32>, %g: !pypto.tensor<[1, 80], f32>, %b: !pypto.tensor<[1, 80], f32>, out %y: !pypto.tensor<[16, 80], f32>, out %z: !pypto.tensor<[16, 160], f32>, %xi: !pypto.tensor<[10, 20], i16>, out %yi: !pypto.tensor<[10, 20], i16>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>, !pypto.tensor<[10, 20], i16>) {
  %r:2 = pypto.call @norm(%x, %g, %b, %y, %z) : (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[1, 80], f32>, !pypto.tensor<[1, 80], f32>, !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>) -> (!pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>)
  %ri = pypto.call @ints(%xi, %yi) : (!pypto.tensor<[10, 20], i16>, !pypto.tensor<[10, 20], i16>) -> !pypto.tensor<[10, 20], i16>
  pypto.return %r#0, %r#1, %ri : !pypto.tensor<[16, 80], f32>, !pypto.tensor<[16, 160], f32>, !pypto.tensor<[10, 20], i16>
}

// CHECK-LABEL: // ===== file: kernels/norm.cpp =====
// CHECK: TQue<TPosition::VECIN, 1> inQ_t;
// CHECK-NOT: tmp !pypto.tile
// CHECK: pipe.InitBuffer(outQ_cc, 1, 10240);
// CHECK: LocalTensor<float> ss_tmp = calcBuf2.Get<float>();
// CHECK: WholeReduceSum(ss, ss_tmp, 64, 16, 1, 1, 8);
// CHECK: Muls(ms, ss, 0.0125000002f, 16);
// CHECK-NOT: DataCopy
// CHECK: Rsqrt(rs, ms, 16);
// CHECK: Brcb(n_brcb, rs, 2, BrcbRepeatParams(1, 8));
// CHECK: Mul(n, t, n_brcb, 64, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));
// CHECK-NEXT: Mul(n[64], t[64], n_brcb, 16, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));
// CHECK: Mul(ng, n, gt, 64, 16, BinaryRepeatParams(1, 1, 1, 10, 10, 0));
// CHECK-NEXT: Mul(ng[64], n[64], gt[64], 16, 16, BinaryRepeatParams(1, 1, 1, 10, 10, 0));
// CHECK: Add(nb, ng, bt, 64, 16, BinaryRepeatParams(1, 1, 1, 10, 10, 0));
// CHECK-NEXT: Add(nb[64], ng[64], bt[64], 16, 16, BinaryRepeatParams(1, 1, 1, 10, 10, 0));
// CHECK: Muls(th, nb, static_cast<float>(2), 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Exp(th, th, 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Adds(th, th, static_cast<float>(1), 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Reciprocal(th, th, 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Muls(th, th, static_cast<float>(-2), 1280);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Adds(th, th, static_cast<float>(1), 1280);
// CHECK: Maxs(mx, th, -0.5f, 1280);
// CHECK: Muls(cc, t, static_cast<float>(1), 64, 16, UnaryRepeatParams(1, 1, 20, 10));
// CHECK-NEXT: Muls(cc[64], t[64], static_cast<float>(1), 16, 16, UnaryRepeatParams(1, 1, 20, 10));
// CHECK-NEXT: Muls(cc[80], nb, static_cast<float>(1), 64, 16, UnaryRepeatParams(1, 1, 20, 10));
// CHECK-NEXT: Muls(cc[144], nb[64], static_cast<float>(1), 16, 16, UnaryRepeatParams(1, 1, 20, 10));

// CHECK-LABEL: // ===== file: kernels/ints.cpp =====
// CHECK-NOT: Abs(
// CHECK: Muls(a, t, static_cast<int16_t>(-1), 320);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Max(a, t, a, 320);
// CHECK: Adds(s, a, static_cast<int16_t>(-2), 320);
// CHECK-NOT: Relu(
// CHECK: Maxs(r, s, static_cast<int16_t>(0), 320);
