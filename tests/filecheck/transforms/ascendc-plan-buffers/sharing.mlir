// RUN: pypto-opt %s -p ascendc-plan-buffers | filecheck %s
// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-plan-buffers | filecheck %s
// TBufs share when their tensors' live ranges (get_buf to the last use in its block) do not
// overlap: %a and %c (the first is dead before the second is taken) become calcBuf0, sized
// for the larger. %b overlaps both. %d is `fixed` (a tile carried through a loop): never
// shared. Queues in a loop get depth 2; the plan is recorded on the kernel.

// CHECK-LABEL: ascendc.kernel vector @share
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 24576 : i64}}
// CHECK: %calcBuf0 = ascendc.tbuf "calcBuf0" {values = ["%a", "%c"]} : !ascendc.buffer<VECCALC>
// CHECK-NEXT: %b_buf = ascendc.tbuf "b_buf" {values = ["%b"]}
// CHECK-NEXT: %d_buf = ascendc.tbuf "d_buf" {values = ["%d"], fixed}
// CHECK-NEXT: %outQ = ascendc.tque "outQ" {values = ["%o"]} : !ascendc.queue<VECOUT, 2>
// CHECK-NEXT: ascendc.init_buffer %pipe, %calcBuf0 len 8192
// CHECK-NEXT: ascendc.init_buffer %pipe, %b_buf len 4096
// CHECK-NEXT: ascendc.init_buffer %pipe, %d_buf len 4096
// CHECK-NEXT: ascendc.init_buffer %pipe, %outQ num 2 len 4096
// CHECK: %a = ascendc.get_buf "a" %calcBuf0
// CHECK: %c = ascendc.get_buf "c" %calcBuf0
ascendc.kernel vector @share(%s: f32) {
  %pipe = ascendc.tpipe "pipe"
  %a_buf = ascendc.tbuf "a_buf" {values = ["%a"]} : !ascendc.buffer<VECCALC>
  %b_buf = ascendc.tbuf "b_buf" {values = ["%b"]} : !ascendc.buffer<VECCALC>
  %c_buf = ascendc.tbuf "c_buf" {values = ["%c"]} : !ascendc.buffer<VECCALC>
  %d_buf = ascendc.tbuf "d_buf" {values = ["%d"], fixed} : !ascendc.buffer<VECCALC>
  %outQ = ascendc.tque "outQ" {values = ["%o"]} : !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %a_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %c_buf len 8192 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %d_buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %outQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = ascendc.get_buf "a" %a_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.duplicate %a, %s count 1024 : !ascendc.local_tensor<f32, VECCALC>, f32
  %b = ascendc.get_buf "b" %b_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.exp %b, %a count 1024 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  %c = ascendc.get_buf "c" %c_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.exp %c, %b count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  %d = ascendc.get_buf "d" %d_buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  scf.for %k = %c0 to %c4 step %c1 {
    %o = ascendc.alloc_tensor "o" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.exp %o, %d count 1024 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.free_tensor %outQ, %o : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  }
  ascendc.return
}
