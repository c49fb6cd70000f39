// RUN: pypto-opt %s --split-input-file -p convert-pypto-to-ascendc,ascendc-tree-reductions | filecheck %s
// RUN: pypto-opt %s --split-input-file -p convert-pypto-to-ascendc,ascendc-tree-reductions,ascendc-tree-reductions | filecheck %s
// RUN: pypto-opt %s --split-input-file -t ascendc | filecheck %s --check-prefix=SYNC

// [8, 1024] f32: 16 chunks of 64 lanes per row. Level 1 writes the 8 chunks of a [8, 512]
// scratch (chunk c + chunk c + 8 of every row, one repeat per row), then 4, 2 and 1 in
// place; the WholeReduceSum reads the scratch rows 64 blocks apart. Barriers only between
// the levels (SYNC).

pypto.func incore @sum_rows(%x: !pypto.tensor<[8, 1024], f32>, out %y: !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 1], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 1024], f32> -> !pypto.tile<[8, 1024], f32, vec>
  %s = pypto.tile.row_sum %t : !pypto.tile<[8, 1024], f32, vec> -> !pypto.tile<[8, 1], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[8, 1], f32, vec>, !pypto.tensor<[8, 1], f32>
  pypto.return %w : !pypto.tensor<[8, 1], f32>
}


// CHECK-LABEL: ascendc.kernel vector @sum_rows
// CHECK:         ascendc.init_buffer %pipe, %buf_s_tmp len 16384
// CHECK-NOT:     ascendc.muls
// CHECK:         ascendc.add %s_tmp, %t, %{{.*}} mask 64 repeat 8 params(1, 1, 1, 64, 128, 128)
// CHECK-COUNT-7: ascendc.add %{{.*}}, %{{.*}}, %{{.*}} mask 64 repeat 8 params(1, 1, 1, 64, 128, 128)
// CHECK:         ascendc.add %s_tmp, %s_tmp, %{{.*}} mask 64 repeat 8 params(1, 1, 1, 64, 64, 64)
// CHECK-COUNT-3: ascendc.add %{{.*}} params(1, 1, 1, 64, 64, 64)
// CHECK:         ascendc.add %s_tmp, %s_tmp, %{{.*}} params(1, 1, 1, 64, 64, 64)
// CHECK:         ascendc.add %{{.*}} params(1, 1, 1, 64, 64, 64)
// CHECK:         ascendc.add %s_tmp, %s_tmp, %{{.*}} params(1, 1, 1, 64, 64, 64)
// CHECK:         ascendc.whole_reduce_sum %s, %s_tmp mask 64 repeat 8 strides(1, 1, 64)

// SYNC-LABEL:    void sum_rows(
// SYNC:          pipe.InitBuffer(buf_s_tmp, 16384);
// SYNC:          Add(s_tmp, t, t[512], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 128, 128));
// SYNC-NEXT:     Add(s_tmp[64], t[64], t[576], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 128, 128));
// SYNC:          Add(s_tmp[448], t[448], t[960], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 128, 128));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     Add(s_tmp, s_tmp, s_tmp[256], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     Add(s_tmp[64], s_tmp[64], s_tmp[320], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     Add(s_tmp[128], s_tmp[128], s_tmp[384], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     Add(s_tmp[192], s_tmp[192], s_tmp[448], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     Add(s_tmp, s_tmp, s_tmp[128], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     Add(s_tmp[64], s_tmp[64], s_tmp[192], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     Add(s_tmp, s_tmp, s_tmp[64], 64, 8, BinaryRepeatParams(1, 1, 1, 64, 64, 64));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     WholeReduceSum(s, s_tmp, 64, 8, 1, 1, 64);

// -----

// [4, 200] f32: 3 whole chunks and 8 more columns. Level 1: chunk 0 + chunk 2 and a copy of
// chunk 1 into a 2-chunk scratch; then chunk 0 + chunk 1; then the partial chunk (mask 8).

pypto.func incore @max_partial(%x: !pypto.tensor<[4, 200], f32>, out %y: !pypto.tensor<[4, 1], f32>) -> !pypto.tensor<[4, 1], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[4, 200], f32> -> !pypto.tile<[4, 200], f32, vec>
  %m = pypto.tile.row_max %t : !pypto.tile<[4, 200], f32, vec> -> !pypto.tile<[4, 1], f32, vec>
  %w = pypto.tile.store %m, %y[%c0, %c0] : !pypto.tile<[4, 1], f32, vec>, !pypto.tensor<[4, 1], f32>
  pypto.return %w : !pypto.tensor<[4, 1], f32>
}


// CHECK-LABEL: ascendc.kernel vector @max_partial
// CHECK:         ascendc.init_buffer %pipe, %buf_m_tmp len 2048
// CHECK:         ascendc.max %m_tmp, %t, %{{.*}} mask 64 repeat 4 params(1, 1, 1, 16, 25, 25)
// CHECK-NEXT:    %[[S1:.*]] = ascendc.at %m_tmp[64]
// CHECK-NEXT:    %[[C1:.*]] = ascendc.at %t[64]
// CHECK-NEXT:    ascendc.muls %[[S1]], %[[C1]], %{{.*}} mask 64 repeat 4 params(1, 1, 16, 25)
// CHECK-NEXT:    %[[S2:.*]] = ascendc.at %m_tmp[64]
// CHECK-NEXT:    ascendc.max %m_tmp, %m_tmp, %[[S2]] mask 64 repeat 4 params(1, 1, 1, 16, 16, 16)
// CHECK-NEXT:    %[[C3:.*]] = ascendc.at %t[192]
// CHECK-NEXT:    ascendc.max %m_tmp, %m_tmp, %[[C3]] mask 8 repeat 4 params(1, 1, 1, 16, 16, 25)
// CHECK-NEXT:    ascendc.whole_reduce_max %m, %m_tmp mask 64 repeat 4 strides(1, 1, 16)

// SYNC-LABEL:    void max_partial(
// SYNC:          Max(m_tmp, t, t[128], 64, 4, BinaryRepeatParams(1, 1, 1, 16, 25, 25));
// SYNC-NEXT:     Muls(m_tmp[64], t[64], static_cast<float>(1), 64, 4, UnaryRepeatParams(1, 1, 16, 25));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     Max(m_tmp, m_tmp, m_tmp[64], 64, 4, BinaryRepeatParams(1, 1, 1, 16, 16, 16));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     Max(m_tmp, m_tmp, t[192], 8, 4, BinaryRepeatParams(1, 1, 1, 16, 16, 25));
// SYNC-NEXT:     PipeBarrier<PIPE_V>();
// SYNC-NEXT:     WholeReduceMax(m, m_tmp, 64, 4, 1, 1, 16, ReduceOrder::ORDER_ONLY_VALUE);

// -----

// [2, 1984] f32, the widest rows a level-0 repeat stride reaches (248 blocks): 31 chunks.
// Level 1 folds chunk c + 16 into chunk c for c < 15 and copies chunk 15, then 16 -> 8 -> 4
// -> 2 -> 1 in place.

pypto.func incore @wide(%x: !pypto.tensor<[2, 1984], f32>, out %y: !pypto.tensor<[2, 1], f32>) -> !pypto.tensor<[2, 1], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2, 1984], f32> -> !pypto.tile<[2, 1984], f32, vec>
  %s = pypto.tile.row_sum %t : !pypto.tile<[2, 1984], f32, vec> -> !pypto.tile<[2, 1], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[2, 1], f32, vec>, !pypto.tensor<[2, 1], f32>
  pypto.return %w : !pypto.tensor<[2, 1], f32>
}


// CHECK-LABEL: ascendc.kernel vector @wide
// CHECK:          ascendc.init_buffer %pipe, %buf_s_tmp len 8192
// CHECK-COUNT-15: ascendc.add %{{.*}} mask 64 repeat 2 params(1, 1, 1, 128, 248, 248)
// CHECK:          %[[C15:.*]] = ascendc.at %t[960]
// CHECK-NEXT:     ascendc.muls %{{.*}}, %[[C15]], %{{.*}} mask 64 repeat 2 params(1, 1, 128, 248)
// CHECK-COUNT-15: ascendc.add %{{.*}} mask 64 repeat 2 params(1, 1, 1, 128, 128, 128)
// CHECK:          ascendc.whole_reduce_sum %s, %s_tmp mask 64 repeat 2 strides(1, 1, 128)

// SYNC-LABEL:    void wide(
// SYNC-COUNT-5:  PipeBarrier<PIPE_V>();
// SYNC-NEXT:     WholeReduceSum(s, s_tmp, 64, 2, 1, 1, 128);

// -----

// One chunk per row: a single WholeReduceSum, nothing to fold, left alone.

pypto.func incore @narrow(%x: !pypto.tensor<[4, 64], f32>, out %y: !pypto.tensor<[4, 1], f32>) -> !pypto.tensor<[4, 1], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[4, 64], f32> -> !pypto.tile<[4, 64], f32, vec>
  %s = pypto.tile.row_sum %t : !pypto.tile<[4, 64], f32, vec> -> !pypto.tile<[4, 1], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[4, 1], f32, vec>, !pypto.tensor<[4, 1], f32>
  pypto.return %w : !pypto.tensor<[4, 1], f32>
}

// CHECK-LABEL: ascendc.kernel vector @narrow
// CHECK-NOT:     ascendc.init_buffer %pipe, %buf_s_tmp
// CHECK:         ascendc.whole_reduce_sum %s, %t mask 64 repeat 4 strides(1, 1, 8)
