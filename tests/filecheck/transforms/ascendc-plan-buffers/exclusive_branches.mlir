// RUN: pypto-opt %s -p ascendc-plan-buffers | filecheck %s
// Queues used only in one branch of an scf.if share with queues of the same type used only
// in the other branch (one execution runs one branch, which frees what it allocates): %thenQ
// and %elseQ become one VECIN queue sized for the larger (128 KiB): 143,360 bytes of UB,
// where the two apart (208,896) would not fit the 196,608. %outQ, used in both branches, and
// %afterQ, used after the if, are not branch-local and keep their own queues.

// CHECK-LABEL: ascendc.kernel vector @exclusive
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 143360 : i64}}
// CHECK:      %thenQ = ascendc.tque "thenQ" {values = ["%t", "%e"]} : !ascendc.queue<VECIN, 1>
// CHECK-NOT:  ascendc.tque "elseQ"
// CHECK:      ascendc.init_buffer %pipe, %thenQ num 1 len 131072
// CHECK-NOT:  ascendc.init_buffer %pipe, %elseQ
// CHECK:      scf.if
// CHECK:        ascendc.alloc_tensor "t" %thenQ
// CHECK:      } else {
// CHECK:        ascendc.alloc_tensor "e" %thenQ
ascendc.kernel vector @exclusive(%s: f32, %n: i64) {
  %pipe = ascendc.tpipe "pipe"
  %c0 = arith.constant 0 : i64
  %p = arith.cmpi sgt, %n, %c0 : i64
  %thenQ = ascendc.tque "thenQ" {values = ["%t"]} : !ascendc.queue<VECIN, 1>
  %elseQ = ascendc.tque "elseQ" {values = ["%e"]} : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" {values = ["%o", "%o2"]} : !ascendc.queue<VECOUT, 1>
  %afterQ = ascendc.tque "afterQ" {values = ["%f"]} : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %thenQ num 1 len 131072 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %elseQ num 1 len 65536 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %outQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %afterQ num 1 len 8192 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  scf.if %p {
    %t = ascendc.alloc_tensor "t" %thenQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
    ascendc.duplicate %t, %s count 1024 : !ascendc.local_tensor<f32, VECIN>, f32
    %o = ascendc.alloc_tensor "o" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.exp %o, %t count 1024 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECIN>
    ascendc.free_tensor %outQ, %o : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.free_tensor %thenQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  } else {
    %e = ascendc.alloc_tensor "e" %elseQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
    ascendc.duplicate %e, %s count 1024 : !ascendc.local_tensor<f32, VECIN>, f32
    %o2 = ascendc.alloc_tensor "o2" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.exp %o2, %e count 1024 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECIN>
    ascendc.free_tensor %outQ, %o2 : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.free_tensor %elseQ, %e : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  }
  %f = ascendc.alloc_tensor "f" %afterQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.duplicate %f, %s count 1024 : !ascendc.local_tensor<f32, VECIN>, f32
  ascendc.free_tensor %afterQ, %f : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}
