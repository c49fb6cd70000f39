// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// tile.gatherb is Ascend C's Gatherb (8 offsets, 8 blocks of 32 bytes per repeat; at most 255
// repeats a call), on uint32_t (4-byte source elements) or uint16_t views of the tiles'
// bytes (ReinterpretCast); a partial offsets tile is zeroed past its valid block first.

// CHECK-LABEL: void same(GM_ADDR x, GM_ADDR off, GM_ADDR y)
// CHECK: Gatherb(t, s.ReinterpretCast<uint32_t>(), o, 4, GatherRepeatParams(1, 8));
// CHECK: DataCopy(y_gm, t, 256);
pypto.func incore @same(%x: !pypto.tensor<[1, 256], f32>, %off: !pypto.tensor<[4, 8], ui32>, out %y: !pypto.tensor<[4, 64], ui32>) -> !pypto.tensor<[4, 64], ui32> {
  %c0 = arith.constant 0 : index
  %s = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[1, 256], f32> -> !pypto.tile<[1, 256], f32, vec>
  %o = pypto.tile.load %off[%c0, %c0] : !pypto.tensor<[4, 8], ui32> -> !pypto.tile<[4, 8], ui32, vec>
  %t = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 64], ui32, vec>
  %w = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[4, 64], ui32, vec>, !pypto.tensor<[4, 64], ui32>
  pypto.return %w : !pypto.tensor<[4, 64], ui32>
}

// An i8 source gathered into an f16 result, valid in [3, 5] offsets: the offsets past that
// block are zeroed (the copy pads the valid rows' block with 3 zeros, a Duplicate the last
// row), and the valid [3, 80] halves are stored.
// CHECK-LABEL: void partial(GM_ADDR x, GM_ADDR off, GM_ADDR y)
// CHECK: DataCopyPad(o, off_gm, DataCopyExtParams(3, 20, 12, 0, 0), DataCopyPadExtParams<uint32_t>(true, 0, 3, 0));
// CHECK: Duplicate(o[24], static_cast<uint32_t>(0), 8);
// CHECK: PipeBarrier<PIPE_V>();
// CHECK: Gatherb(t.ReinterpretCast<uint16_t>(), s.ReinterpretCast<uint16_t>(), o, 4, GatherRepeatParams(1, 8));
// CHECK: DataCopyPad(y_gm, t, DataCopyExtParams(3, 160, 3, 96, 0));
pypto.func incore @partial(%x: !pypto.tensor<[1, 1024], i8>, %off: !pypto.tensor<[4, 8], ui32>, out %y: !pypto.tensor<[4, 128], f16>) -> !pypto.tensor<[4, 128], f16> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %s = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[1, 1024], i8> -> !pypto.tile<[1, 1024], i8, vec>
  %o = pypto.tile.load %off[%c0, %c0] valid[%c3, %c5] : !pypto.tensor<[4, 8], ui32> -> !pypto.tile<[4, 8], ui32, vec>
  %t = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 1024], i8, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 128], f16, vec>
  %w = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[4, 128], f16, vec>, !pypto.tensor<[4, 128], f16>
  pypto.return %w : !pypto.tensor<[4, 128], f16>
}

// 2560 offsets are 320 repeats: two calls, the second 255 repeats (65280 bytes) into the
// result and 2040 offsets into the offsets tile.
// CHECK-LABEL: void many(GM_ADDR x, GM_ADDR off, GM_ADDR y)
// CHECK: Gatherb(t.ReinterpretCast<uint16_t>(), s.ReinterpretCast<uint16_t>(), o, 255, GatherRepeatParams(1, 8));
// CHECK-NEXT: Gatherb(t.ReinterpretCast<uint16_t>()[32640], s.ReinterpretCast<uint16_t>(), o[2040], 65, GatherRepeatParams(1, 8));
pypto.func incore @many(%x: !pypto.tensor<[1, 64], i16>, %off: !pypto.tensor<[64, 40], ui32>, out %y: !pypto.tensor<[64, 1280], i8>) -> !pypto.tensor<[64, 1280], i8> {
  %c0 = arith.constant 0 : index
  %s = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[1, 64], i16> -> !pypto.tile<[1, 64], i16, vec>
  %o = pypto.tile.load %off[%c0, %c0] : !pypto.tensor<[64, 40], ui32> -> !pypto.tile<[64, 40], ui32, vec>
  %t = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], i16, vec>, !pypto.tile<[64, 40], ui32, vec> -> !pypto.tile<[64, 1280], i8, vec>
  %w = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[64, 1280], i8, vec>, !pypto.tensor<[64, 1280], i8>
  pypto.return %w : !pypto.tensor<[64, 1280], i8>
}

pypto.func orchestration @main(%x: !pypto.tensor<[1, 256], f32>, %off: !pypto.tensor<[4, 8], ui32>, out %y: !pypto.tensor<[4, 64], ui32>) -> !pypto.tensor<[4, 64], ui32> {
  %r = pypto.call @same(%x, %off, %y) : (!pypto.tensor<[1, 256], f32>, !pypto.tensor<[4, 8], ui32>, !pypto.tensor<[4, 64], ui32>) -> !pypto.tensor<[4, 64], ui32>
  pypto.return %r : !pypto.tensor<[4, 64], ui32>
}
