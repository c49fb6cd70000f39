// RUN: pypto-opt %s -p ascendc-remove-redundant-sync | filecheck %s
// RUN: pypto-opt %s -p ascendc-remove-redundant-sync,ascendc-remove-redundant-sync | filecheck %s
// SetFlag/WaitFlag<MTE3_MTE2> after a copy-out is needed only if a copy-in of the same
// GlobalTensor can follow: later in program order, or in a later iteration of a loop around
// the pair. The pair and its event id go otherwise.

// CHECK-LABEL: ascendc.kernel vector @flags
ascendc.kernel vector @flags(%x: !ascendc.gm_addr, %t: !ascendc.gm_addr) attributes {memory_plan = {UB = {capacity = 196608 : i64, used = 8192 : i64}}, sync = "explicit"} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %t_gm = ascendc.global_tensor "t_gm" %t size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %inQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %outQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // stored, then loaded back: kept
  %o = ascendc.alloc_tensor "o" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.data_copy %t_gm, %o count 1024 : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.free_tensor %outQ, %o : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  %kept = ascendc.fetch_event_id "kept" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.set_flag MTE3_MTE2 %kept : !ascendc.event<MTE3_MTE2>
  ascendc.wait_flag MTE3_MTE2 %kept : !ascendc.event<MTE3_MTE2>
  // CHECK: ascendc.free_tensor %outQ, %o
  // CHECK-NEXT: %kept = ascendc.fetch_event_id "kept" MTE3_MTE2 %pipe
  // CHECK-NEXT: ascendc.set_flag MTE3_MTE2 %kept
  // CHECK-NEXT: ascendc.wait_flag MTE3_MTE2 %kept
  %i = ascendc.alloc_tensor "i" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %i, %t_gm count 1024 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %inQ, %i : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  // in a loop whose body reads %t_gm before the store: the next iteration reads it, kept
  scf.for %k = %c0 to %c4 step %c1 {
    %a = ascendc.alloc_tensor "a" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
    ascendc.data_copy %a, %t_gm count 1024 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
    ascendc.free_tensor %inQ, %a : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
    %b = ascendc.alloc_tensor "b" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.data_copy %t_gm, %b count 1024 : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.free_tensor %outQ, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %loop = ascendc.fetch_event_id "loop" MTE3_MTE2 %pipe : !ascendc.pipe
    ascendc.set_flag MTE3_MTE2 %loop : !ascendc.event<MTE3_MTE2>
    ascendc.wait_flag MTE3_MTE2 %loop : !ascendc.event<MTE3_MTE2>
  }
  // CHECK: ascendc.free_tensor %outQ, %b
  // CHECK-NEXT: %loop = ascendc.fetch_event_id "loop" MTE3_MTE2 %pipe
  // CHECK-NEXT: ascendc.set_flag MTE3_MTE2 %loop
  // CHECK-NEXT: ascendc.wait_flag MTE3_MTE2 %loop
  // CHECK-NEXT: }
  // the last store: nothing reads %t_gm after it, dropped (an AllocEventID pair with its release)
  %c = ascendc.alloc_tensor "c" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.data_copy %t_gm, %c count 1024 : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.free_tensor %outQ, %c : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  %dropped = ascendc.alloc_event_id "dropped" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.set_flag MTE3_MTE2 %dropped : !ascendc.event<MTE3_MTE2>
  ascendc.wait_flag MTE3_MTE2 %dropped : !ascendc.event<MTE3_MTE2>
  ascendc.release_event_id MTE3_MTE2 %pipe, %dropped : !ascendc.pipe, !ascendc.event<MTE3_MTE2>
  // CHECK: ascendc.free_tensor %outQ, %c
  // CHECK-NEXT: ascendc.return
  ascendc.return
}
