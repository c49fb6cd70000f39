// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// Transposes of 2-byte tiles whose extents are multiples of 16 run on the vector unit with
// Ascend C's Transpose (one 16 x 16 block of 2-byte elements): a [16, 16] tile directly;
// a larger one block by block, each gathered into a 1 KiB scratch (level-0 Muls by 1, one
// repeat per row), transposed there and scattered into its transposed place.

// CHECK-LABEL: void square(GM_ADDR x, GM_ADDR y)
// CHECK-NOT: GetValue
// CHECK: Transpose(r, t);
// CHECK-NOT: GetValue
// CHECK: DataCopy(y_gm, r, 256);
pypto.func incore @square(%x: !pypto.tensor<[16, 16], f16>, out %y: !pypto.tensor<[16, 16], f16>) -> !pypto.tensor<[16, 16], f16> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, vec>
  %r = pypto.tile.transpose %t, 0, 1 : !pypto.tile<[16, 16], f16, vec> -> !pypto.tile<[16, 16], f16, vec>
  %w = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[16, 16], f16, vec>, !pypto.tensor<[16, 16], f16>
  pypto.return %w : !pypto.tensor<[16, 16], f16>
}

// Block (0, 1) of a [32, 48] tile (rows 48 halves = 3 blocks apart) goes to block (1, 0) of
// the [48, 32] result (rows 2 blocks apart).
// CHECK-LABEL: void blocks(GM_ADDR x, GM_ADDR y)
// CHECK: TBuf<TPosition::VECCALC> buf_r_tmp;  // %r.scratch (16 x 16 blocks of a transpose)
// CHECK: pipe.InitBuffer(buf_r_tmp, 1024);
// CHECK: LocalTensor<half> tr_tmp = buf_r_tmp.Get<half>();
// CHECK: Muls(tr_tmp, t, {{.*}}, 16, 16, UnaryRepeatParams(1, 1, 1, 3));
// CHECK: Transpose(tr_tmp[256], tr_tmp);
// CHECK: Muls(r, tr_tmp[256], {{.*}}, 16, 16, UnaryRepeatParams(1, 1, 2, 1));
// CHECK: Muls(tr_tmp, t[16], {{.*}}, 16, 16, UnaryRepeatParams(1, 1, 1, 3));
// CHECK: Transpose(tr_tmp[256], tr_tmp);
// CHECK: Muls(r[512], tr_tmp[256], {{.*}}, 16, 16, UnaryRepeatParams(1, 1, 2, 1));
// CHECK-NOT: GetValue
// CHECK: DataCopy(y_gm, r, 1536);
pypto.func incore @blocks(%x: !pypto.tensor<[32, 48], f16>, out %y: !pypto.tensor<[48, 32], f16>) -> !pypto.tensor<[48, 32], f16> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, vec>
  %r = pypto.tile.transpose %t, 0, 1 : !pypto.tile<[32, 48], f16, vec> -> !pypto.tile<[48, 32], f16, vec>
  %w = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[48, 32], f16, vec>, !pypto.tensor<[48, 32], f16>
  pypto.return %w : !pypto.tensor<[48, 32], f16>
}

pypto.func orchestration @main(%x: !pypto.tensor<[16, 16], f16>, out %y: !pypto.tensor<[16, 16], f16>, %a: !pypto.tensor<[32, 48], f16>, out %b: !pypto.tensor<[48, 32], f16>) -> (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[48, 32], f16>) {
  %r = pypto.call @square(%x, %y) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>) -> !pypto.tensor<[16, 16], f16>
  %q = pypto.call @blocks(%a, %b) : (!pypto.tensor<[32, 48], f16>, !pypto.tensor<[48, 32], f16>) -> !pypto.tensor<[48, 32], f16>
  pypto.return %r, %q : !pypto.tensor<[16, 16], f16>, !pypto.tensor<[48, 32], f16>
}
