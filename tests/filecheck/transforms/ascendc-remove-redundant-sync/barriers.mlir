// RUN: pypto-opt %s -p ascendc-remove-redundant-sync | filecheck %s
// A PipeBarrier<PIPE_V> before a vector instruction stays only if that instruction reads or
// writes UB blocks a vector instruction since the last kept barrier wrote (or writes blocks
// one read). Barriers that guard no instruction directly (here: before a loop) stay.

// CHECK-LABEL: ascendc.kernel vector @barriers
ascendc.kernel vector @barriers(%s: f32) attributes {memory_plan = {UB = {capacity = 196608 : i64, used = 12288 : i64}}, sync = "explicit"} {
  %pipe = ascendc.tpipe "pipe"
  %a_buf = ascendc.tbuf "a_buf" : !ascendc.buffer<VECCALC>
  %b_buf = ascendc.tbuf "b_buf" : !ascendc.buffer<VECCALC>
  %c_buf = ascendc.tbuf "c_buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %a_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %c_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = ascendc.get_buf "a" %a_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %b = ascendc.get_buf "b" %b_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %c = ascendc.get_buf "c" %c_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  // nothing pending: dropped
  ascendc.pipe_barrier PIPE_V
  ascendc.duplicate %a, %s count 1024 : !ascendc.local_tensor<f32, VECCALC>, f32
  // reads %a, which the duplicate wrote: kept, and only one of the two
  ascendc.pipe_barrier PIPE_V
  ascendc.pipe_barrier PIPE_V
  ascendc.exp %b, %a count 1024 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  // writes %c, which nothing touched since: dropped
  ascendc.pipe_barrier PIPE_V
  ascendc.duplicate %c, %s count 1024 : !ascendc.local_tensor<f32, VECCALC>, f32
  // writes the second half of %a, which the exp read (WAR): kept
  %a512 = ascendc.at %a[512] : !ascendc.local_tensor<f32, VECCALC>
  ascendc.pipe_barrier PIPE_V
  ascendc.duplicate %a512, %s count 512 : !ascendc.local_tensor<f32, VECCALC>, f32
  // before a loop: kept
  ascendc.pipe_barrier PIPE_V
  scf.for %k = %c0 to %c4 step %c1 {
    ascendc.pipe_barrier PIPE_V
    ascendc.abs %b, %b count 1024 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  }
  ascendc.return
}

// CHECK: %c = ascendc.get_buf "c" %c_buf
// CHECK-NEXT: ascendc.duplicate %a, %s count 1024
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.exp %b, %a count 1024
// CHECK-NEXT: ascendc.duplicate %c, %s count 1024
// CHECK-NEXT: %a512 = ascendc.at %a[512]
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.duplicate %a512, %s count 512
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: scf.for
// The loop body: the abs reads and writes %b in place; the next iteration's abs reads what
// this one wrote, so the barrier at the top of the body stays.
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.abs %b, %b
