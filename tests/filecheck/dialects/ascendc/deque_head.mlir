// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A software-pipelined copy-in (ascendc-prefetch-copy-in's form): `a_first` and `a_next` are
// enqueued and left in the queue (no paired deque, no free: the queue owns them), and each
// iteration takes the oldest tensor with `deque_head`, which it frees.
ascendc.kernel vector @pipelined(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 4096 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ_a = ascendc.tque "inQ_a" : !ascendc.queue<VECIN, 2>
  ascendc.init_buffer %pipe, %inQ_a num 2 len 8192 : !ascendc.pipe, !ascendc.queue<VECIN, 2>
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %a_first = ascendc.alloc_tensor "a_first" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %a_first, %x_gm count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.enque %inQ_a, %a_first : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
  scf.for %i = %c0 to %c4096 step %c2048 {
    %i_next = arith.addi %i, %c2048 : index
    %has_next = arith.cmpi slt, %i_next, %c4096 : index
    scf.if %has_next {
      %src = ascendc.at %x_gm[%i_next] : !ascendc.gm_tensor<f32>, index
      %a_next = ascendc.alloc_tensor "a_next" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
      ascendc.data_copy %a_next, %src count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
      ascendc.enque %inQ_a, %a_next : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    }
    %a = ascendc.deque_head "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
    ascendc.exp %a, %a count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.local_tensor<f32, VECIN>
    ascendc.free_tensor %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
  }
  ascendc.return
}

// CHECK:      %a_first = ascendc.alloc_tensor "a_first" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
// CHECK:      ascendc.enque %inQ_a, %a_first : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK:        scf.if %has_next {
// CHECK:          ascendc.enque %inQ_a, %a_next : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT:   }
// CHECK-NEXT:   %a = ascendc.deque_head "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
// CHECK:        ascendc.free_tensor %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK-GENERIC: %a = "ascendc.deque_head"(%inQ_a) <{name = "a"}> : (!ascendc.queue<VECIN, 2>) -> !ascendc.local_tensor<f32, VECIN>
