// RUN: pypto-opt %s -p convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync | filecheck %s --check-prefix=SYNC
// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// A row reduction followed by a row broadcast, as IR: the two-stage row_max (Muls copies the
// first 64-column chunk into scratch, Max folds the second chunk in, WholeReduceMax reduces)
// then row_expand_sub (Brcb spreads the row maxima into one block per row, two level-0 Subs
// cover the two column chunks). Every instruction that reads what an earlier one wrote needs
// PipeBarrier<PIPE_V> (the V pipe may overlap instructions). ascendc-insert-sync puts one
// before each dependent instruction (conservative: the second Sub reads the Brcb scratch
// too); ascendc-remove-redundant-sync drops the one the barrier before the first Sub already
// implies. The two Subs write disjoint 32-byte blocks of %d: no barrier between them. In the
// full pipeline ascendc-tree-reductions makes the copy and fold one Max of the two chunks.

pypto.func incore @center(%x: !pypto.tensor<[16, 128], f32>, out %y: !pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
  %m = pypto.tile.row_max %t : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
  %d = pypto.tile.row_expand_sub %t, %m : !pypto.tile<[16, 128], f32, vec>, !pypto.tile<[16, 1], f32, vec>
  %w = pypto.tile.store %d, %y[%c0, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
  pypto.return %w : !pypto.tensor<[16, 128], f32>
}

// SYNC-LABEL: ascendc.kernel vector @center
// SYNC: %t_1 = ascendc.deque %inQ_t, %t
// SYNC-NEXT: %m = ascendc.get_buf "m" %buf_m
// SYNC-NEXT: %m_tmp = ascendc.get_buf "m_tmp" %calcBuf1
// SYNC: ascendc.muls %m_tmp, %t_1, %{{.*}} mask 64 repeat 16 params(1, 1, 8, 16)
// SYNC-NEXT: ascendc.pipe_barrier PIPE_V
// SYNC-NEXT: %[[T64:.*]] = ascendc.at %t_1[64]
// SYNC-NEXT: ascendc.max %m_tmp, %m_tmp, %[[T64]] mask 64 repeat 16 params(1, 1, 1, 8, 8, 16)
// SYNC-NEXT: ascendc.pipe_barrier PIPE_V
// SYNC-NEXT: ascendc.whole_reduce_max %m, %m_tmp mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE
// SYNC-NEXT: ascendc.pipe_barrier PIPE_V
// SYNC-NEXT: %d = ascendc.alloc_tensor "d" %outQ_d
// SYNC-NEXT: %d_brcb = ascendc.get_buf "d_brcb" %calcBuf1
// SYNC-NEXT: ascendc.brcb %d_brcb, %m repeat 2 params(1, 8)
// SYNC-NEXT: ascendc.pipe_barrier PIPE_V
// SYNC-NEXT: ascendc.sub %d, %t_1, %d_brcb mask 64 repeat 16 params(1, 1, 0, 16, 16, 1)
// SYNC-NEXT: ascendc.pipe_barrier PIPE_V
// SYNC-NEXT: %[[D64:.*]] = ascendc.at %d[64]
// SYNC-NEXT: %[[S64:.*]] = ascendc.at %t_1[64]
// SYNC-NEXT: ascendc.sub %[[D64]], %[[S64]], %d_brcb mask 64 repeat 16
// SYNC-NEXT: ascendc.free_tensor %inQ_t, %t_1
// SYNC-NEXT: ascendc.enque %outQ_d, %d

// CHECK-LABEL: ascendc.kernel vector @center
// CHECK-NOT: ascendc.muls
// CHECK: ascendc.max %m_tmp, %t_1
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.whole_reduce_max %m, %m_tmp
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %d = ascendc.alloc_tensor "d" %outQ_d
// CHECK-NEXT: %d_brcb = ascendc.get_buf "d_brcb" %calcBuf1
// CHECK-NEXT: ascendc.brcb %d_brcb, %m
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.sub %d, %t_1, %d_brcb
// CHECK-NOT: ascendc.pipe_barrier
// CHECK: ascendc.sub
// CHECK-NEXT: ascendc.free_tensor %inQ_t, %t_1
