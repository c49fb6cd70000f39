// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the ascendc dialect, one case each.

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %t, %x_gm count 10 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: DataCopy count 10 moves 40 bytes, not a multiple of 32 bytes (use data_copy_pad)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.enque %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: ascendc.enque of a VECOUT tensor on a VECIN queue: positions must pair up

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: the tensor 't' allocated from a queue must be freed once on every path (FreeTensor), freed 0 times

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %c = arith.constant true
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  scf.if %c {
    ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  }
  ascendc.return
}

// CHECK: the tensor 't' allocated from a queue is freed in one branch of an scf.if but not the other

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  scf.for %i = %c0 to %c4 step %c1 {
    ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  }
  ascendc.return
}

// CHECK: the tensor 't' allocated from a queue is freed inside scf.for but allocated outside it

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  %t2 = ascendc.deque %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %inQ, %t2 : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: deque of a tensor that was not enqueued on this queue before it (in the same block)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.free_tensor of a VECIN tensor on a VECOUT queue: positions must pair up

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.set_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
  ascendc.return
}

// CHECK: SetFlag<MTE3_MTE2> needs a WaitFlag on the same event id later in its block

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.wait_flag MTE2_V %e : !ascendc.event<MTE3_MTE2>
  ascendc.return
}

// CHECK: ascendc.wait_flag MTE2_V takes an event id of !ascendc.event<MTE2_V>, got !ascendc.event<MTE3_MTE2>

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %e = ascendc.alloc_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.set_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
  ascendc.wait_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
  ascendc.return
}

// CHECK: an event id from AllocEventID is released (ReleaseEventID) once its flags are done

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %b = ascendc.tque "b" : !ascendc.queue<VECCALC, 1>
  ascendc.return
}

// CHECK: VECCALC is a TBuf position (ascendc.tbuf), not a queue's

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %inQ num 2 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: InitBuffer gives 2 buffers to a queue of depth 1

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %inQ num 1 len 100 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: buffers are whole 32-byte blocks; 100 bytes is not

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %q = ascendc.tque "q" : !ascendc.queue<A1, 1>
  ascendc.return
}

// CHECK: vector kernel @k declares cube buffers (A1); use kind cube or mix

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %q = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: kernel @k declares 'inQ' twice (ascendc.tque and ascendc.tque)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {memory_plan = {UB = {capacity = 196608 : i64, used = 262144 : i64}}} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %b = ascendc.tbuf "b" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b len 262144 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.return
}

// CHECK: kernel @k initialises 262144 bytes of UB buffers but its plan allows 196608

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.exp %t, %t mask 128 repeat 1 params(1, 1, 8, 8) : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: ascendc.exp: 'mask' is 128, more than the 64 the instruction encodes

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.exp %t, %t count 64 mask 64 repeat 1 params(1, 1, 8, 8) : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: ascendc.exp takes either 'count' or 'mask', 'repeat' and 'params'

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %x_gm ext(1, 40, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: DataCopyPad GM -> local takes pad parameters, local -> GM none

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %p = ascendc.params "p" MmadParams(m = 16, depth = 3)
  ascendc.return
}

// CHECK: MmadParams has no field 'depth' (fields: m, n, k, unitFlag, cmatrixSource, cmatrixInitVal)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  %p = ascendc.params "p" MmadParams(m = 16, n = 16, k = 16)
  ascendc.mmad %t, %t, %t, %p : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECOUT>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: the destination of ascendc.mmad is a CO1 tensor, got !ascendc.local_tensor<f32, VECOUT>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %p = ascendc.params "p" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = false)
  ascendc.mmad %acc, %al, %br, %acc, %p : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.local_tensor<f32, CO1>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK: the bias of ascendc.mmad is a C2 tensor, got !ascendc.local_tensor<f32, CO1>

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>, %y: !pypto.tensor<[8, 8], f32>) {
  %r = ascendc.launch @k blocks 1 (%x, %y) : (!pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: @k takes 1 arguments, the launch passes 2

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %r = ascendc.launch @k blocks 0 (%x) : (!pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: a launch runs on at least one block, got 0

// -----

ascendc.kernel vector @k(%t: !pypto.tensor<[8, 8], f32>) {
  ascendc.return
}

// CHECK: parameter #0 of kernel @k is !pypto.tensor<[8, 8], f32>; kernel parameters are !ascendc.gm_addr or scalars

// -----

ascendc.kernel vector @k() attributes {memory_plan = {UB = {capacity = 196608 : i64, used = 4096 : i64}}} {
  %pipe = ascendc.tpipe "pipe"
  %b = ascendc.tbuf "b" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.select %t, %m, %t, %t mode VSEL_TENSOR_TENSOR_MODE count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: kernel @k uses an API with hidden UB scratch above TMP_UB_OFFSET (188416 bytes) but plans 196608 bytes of UB

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %b = ascendc.tbuf "b" : !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %one = arith.constant 1 : i32
  ascendc.muls %t, %t, %one count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, i32
  ascendc.return
}

// CHECK: the scalar operand of ascendc.muls is i32 but the tensors hold f32 (convert it with ascendc.scalar_cast)

// -----

// Element types: an instruction exists only for the types the devkit's SupportType lists.
ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.abs %t, %t count 64 : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.abs: Ascend C Abs exists for half and float elements only (dav-c220), not i32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  ascendc.relu %t, %t count 64 : !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.relu: Ascend C Relu exists for half, float and int32_t elements only (dav-c220), not i16

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  ascendc.div %t, %t, %t count 64 : !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.div: Ascend C Div exists for half and float elements only (dav-c220), not i16

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.whole_reduce_sum %t, %t mask 64 repeat 1 strides(1, 1, 8) : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.whole_reduce_sum: Ascend C WholeReduceSum exists for half and float elements only (dav-c220), not i32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.rsqrt %t, %t count 64 : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.rsqrt: Ascend C Rsqrt exists for half and float elements only (dav-c220), not i32

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f32, A1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1, ifTranspose = true)
  ascendc.load_data %al, %am, %ld : !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f32, A1>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f32, A1>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.return
}

// CHECK: LoadData with ifTranspose transposes 16 x 16 fractals of 2-byte types, not f32 (use ascendc.load_data_with_transpose)

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1)
  ascendc.load_data %al, %am, %ld : !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.return
}

// CHECK: ascendc.load_data operands must be tensors of one element type, got !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f16, A1>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f32, A1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1)
  ascendc.load_data_with_transpose %al, %am, %ld : !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f32, A1>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f32, A1>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_with_transpose takes LoadData2dTransposeParams, got !ascendc.struct<LoadData2DParams>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<i16, A1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<i16, A2>
  %ld = ascendc.params "ld" LoadData2dTransposeParams(repeatTimes = 1, srcStride = 1)
  ascendc.load_data_with_transpose %al, %am, %ld : !ascendc.local_tensor<i16, A2>, !ascendc.local_tensor<i16, A1>, !ascendc.struct<LoadData2dTransposeParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<i16, A1>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<i16, A2>
  ascendc.return
}

// CHECK: Ascend C LoadDataWithTranspose exists for float, int32_t, uint32_t, half, bfloat16_t, int8_t and uint8_t elements only (dav-c220), not i16

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16)
  ascendc.mmad %acc, %al, %br, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK: Ascend C Mmad on dav-c220 takes f16 x f16 -> f32, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32, not f32 x f16 -> f32

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  ascendc.set_atomic_add f64
  ascendc.set_atomic_none
  ascendc.return
}

// CHECK: SetAtomicAdd exists for f32, f16, bf16, i32, i16, i8 elements (dav-c220), not f64

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  %u = ascendc.get_buf "u" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  %tmp = ascendc.get_buf "tmp" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.sin %u, %t, %tmp count 64 : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
  ascendc.return
}

// CHECK: ascendc.sin: Ascend C Sin exists for half and float elements only (dav-c220), not i32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %u = ascendc.get_buf "u" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.cos %u, %t, %t count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: the scratch of ascendc.cos is a LocalTensor<uint8_t>, got !ascendc.local_tensor<f32, VECCALC>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %u = ascendc.get_buf "u" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.cast %u, %t round CAST_NONE count 64 : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.cast: Ascend C Cast from float to int32_t takes RoundMode CAST_RINT/CAST_FLOOR/CAST_CEIL/CAST_ROUND/CAST_TRUNC (dav-c220), not CAST_NONE

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  %u = ascendc.get_buf "u" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
  ascendc.cast %u, %t round CAST_NONE count 64 : !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.cast: Ascend C Cast from int32_t to half does not exist (dav-c220)

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %i = arith.constant 0 : index
  %v = arith.constant 1 : i32
  ascendc.set_value %t, %i, %v : !ascendc.local_tensor<f32, VECCALC>, index, i32
  ascendc.return
}

// CHECK: the value ascendc.set_value stores is i32 but the tensor holds f32 (convert it with ascendc.scalar_cast)

// -----

ascendc.kernel vector @k() {
  ascendc.set_atomic_add ui16
  ascendc.return
}

// CHECK: SetAtomicAdd exists for f32, f16, bf16, i32, i16, i8 elements (dav-c220), not ui16

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 2048 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %u = ascendc.get_buf "u" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.transpose %u, %t : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.transpose: Ascend C Transpose exists for {{.*}} elements only (dav-c220), not f32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
  ascendc.transpose %t, %t : !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<f16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.transpose: dst and src are two different 16 x 16 blocks (an out-of-place transpose)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 2>
  %t = ascendc.deque_head "t" %inQ : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: deque_head on a queue that no enque leaves a tensor in (every enque has its deque)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 2>
  %a = ascendc.alloc_tensor "a" %inQ : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %a, %x_gm count 1024 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.enque %inQ, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
  %t = ascendc.deque_head "t" %inQ : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: the tensor 't' dequeued from a queue must be freed once on every path (FreeTensor), freed 0 times

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 2>
  %a = ascendc.alloc_tensor "a" %inQ : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.enque %inQ, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
  %t = ascendc.deque_head "t" %inQ : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: a tensor dequeued from a VECIN queue is at that position, not VECOUT

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %n: index) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %x_gm, %n ext(1, 64, 0, 0, 0) pad(true, 0, 0, 0) {runtime_fields = ["blockWidth"]} : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: 'blockWidth' is not a run-time field of DataCopyPad (one of blockCount, blockLen, srcStride, dstStride, rightPadding, paddingValue)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %n: index) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  %p = arith.constant 0 : i32
  ascendc.data_copy_pad %t, %x_gm, %p ext(1, 64, 0, 0, 0) pad(true, 0, 0, 0) {runtime_fields = ["paddingValue"]} : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, i32
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: the run-time paddingValue is i32 but the tensors hold f32

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %n: index) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.data_copy_pad %x_gm, %t, %n ext(1, 64, 0, 0, 0) {runtime_fields = ["rightPadding"]} : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: the run-time rightPadding is a pad parameter: only DataCopyPad GM -> local has them

// -----

ascendc.kernel vector @k(%n: index) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %s = arith.constant 1.0 : f32
  ascendc.duplicate %t, %s, %n count 64 : !ascendc.local_tensor<f32, VECCALC>, f32, index
  ascendc.return
}

// CHECK: ascendc.duplicate takes 'count' or one run-time count operand (or the level-0 form)

// -----

ascendc.kernel vector @k(%n: index) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %t = ascendc.get_buf "t" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %s = arith.constant 1.0 : f32
  ascendc.duplicate %t, %s, %n params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, f32, index
  ascendc.return
}

// CHECK: the level-0 form of ascendc.duplicate takes 'params' and either 'mask' and 'repeat' or two run-time operands (mask, repeat)

// -----

ascendc.kernel cube @k(%n: i64) {
  %p = ascendc.params "p" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = %n) : i64
  ascendc.return
}

// CHECK: field 'cmatrixInitVal' of MmadParams is a bool: its run-time value must be i1, got i64

// -----

ascendc.kernel cube @k(%n: i64) {
  %p = ascendc.params "p" MmadParams(m = %n, m = 16) : i64
  ascendc.return
}

// CHECK: field 'm' of MmadParams is set twice

// -----

ascendc.kernel cube @k(%b: i1) {
  %p = ascendc.params "p" Nd2NzParams(ndNum = 1, nValue = %b) : i1
  ascendc.return
}

// CHECK: field 'nValue' of Nd2NzParams takes an integer or index value, got i1

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" Nd2NzParams(nValue = 16, ndNum = 1)
  ascendc.return
}

// CHECK: fields of Nd2NzParams are listed in declaration order (ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride)

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = 2)
  ascendc.return
}

// CHECK: field 'cmatrixInitVal' of MmadParams is a bool: its static value is 0 or 1, got 2

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" Nd2NzParams(ndNum = 1, nValue = -16)
  ascendc.return
}

// CHECK: field 'nValue' of Nd2NzParams is negative

// -----

ascendc.kernel cube @k(%n: index) {
  %p = "ascendc.params"() <{name = "p", fields = ["m", "n", "k"], static_values = array<i64: 16, 16>}> : () -> !ascendc.struct<MmadParams>
  ascendc.return
}

// CHECK: 2 'static_values' for the 3 'fields' ['m', 'n', 'k']

// -----

ascendc.kernel cube @k(%n: index) {
  %p = "ascendc.params"(%n) <{name = "p", fields = ["m", "n", "k"], static_values = array<i64: 16, 16, 16>}> : (index) -> !ascendc.struct<MmadParams>
  ascendc.return
}

// CHECK: 1 run-time values for the 0 fields that 'static_values' marks as set at run time

// -----

ascendc.kernel cube @k(%n: index) {
  %p = "ascendc.params"() <{name = "p", fields = ["m"], static_values = array<i32: 16>}> : () -> !ascendc.struct<MmadParams>
  ascendc.return
}

// CHECK: 'static_values' is an array<i64>, got i32

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %n: index, %m: index) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %outQ = ascendc.tque "outQ" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %outQ : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  ascendc.data_copy_pad %x_gm, %t, %n, %m ext(4, 64, 0, 0, 0) {runtime_fields = ["blockLen", "blockCount"]} : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index, index
  ascendc.free_tensor %outQ, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: 'runtime_fields' are listed in the structs' field order (blockCount, blockLen, srcStride, dstStride, rightPadding, paddingValue), got blockLen, blockCount

// -----

ascendc.kernel cube @k(%c: !ascendc.gm_addr) {
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %c_gm = ascendc.global_tensor "c_gm" %c size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %fp = ascendc.params "fp" FixpipeParamsV220(nSize = 16, mSize = 16, srcStride = 16, dstStride = 16, quantPre = F322F16, ndNum = 1)
  ascendc.fixpipe %c_gm, %acc, %fp : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, CO1>, !ascendc.struct<FixpipeParamsV220>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK: ascendc.fixpipe: quantPre F322F16 moves f32 from L0C to f16 in GM, got f32 to f32

// -----

ascendc.kernel cube @k(%n: index) {
  %fp = ascendc.params "fp" FixpipeParamsV220(nSize = 16, mSize = 16, quantPre = 7, ndNum = 1)
  ascendc.return
}

// CHECK: field 'quantPre' of FixpipeParamsV220 is a QuantMode_t: one of NoQuant, F322F16, got 7

// -----

// A kernel-local tensor reaching past its block's part of the workspace: the next block's bytes.
ascendc.kernel vector @k(%x: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 1024 : i64} {
  %block_ws = ascendc.block_workspace "block_ws" %workspace bytes 1024 : !ascendc.gm_addr
  %m_gm = ascendc.global_tensor "m_gm" %block_ws offset 512 size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: ascendc.global_tensor: global tensor 'm_gm' ends at byte 1536 of a block's part of the workspace, which has 1024 bytes: the rest is the next block's part, which that block uses at the same time

// -----

// Parts of the workspace smaller than the kernel's per-block bytes: a block's tensors would
// overlap the next block's (the host allocates blocks x 'workspace' bytes).
ascendc.kernel vector @k(%x: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 2048 : i64} {
  %block_ws = ascendc.block_workspace "block_ws" %workspace bytes 1024 : !ascendc.gm_addr
  ascendc.return
}

// CHECK: kernel @k: its block's part of the workspace is 2048 bytes ('workspace'), but 'block_ws' takes parts of 1024

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<B1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<B2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<B1, 1> -> !ascendc.local_tensor<i8, B1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<i8, B2>
  %p = ascendc.params "p" LoadData3DParamsV2<i8>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<i8, B2>, !ascendc.local_tensor<i8, B1>, !ascendc.struct<LoadData3DParamsV2, i8>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<B1, 1>, !ascendc.local_tensor<i8, B1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<B2, 1>, !ascendc.local_tensor<i8, B2>
  ascendc.return
}

// CHECK: Ascend C LoadData with LoadData3DParamsV2 into L0B exists for half, bfloat16_t, float, int32_t and uint32_t elements only (dav-c220), not i8

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<i16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<i16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<i16>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<i16, A2>, !ascendc.local_tensor<i16, A1>, !ascendc.struct<LoadData3DParamsV2, i16>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<i16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<i16, A2>
  ascendc.return
}

// CHECK: Ascend C LoadData with LoadData3DParamsV2 into L0A exists for half, bfloat16_t, float, int32_t, uint32_t, int8_t and uint8_t elements only (dav-c220), not i16

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f32>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f32>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2 moves f16 elements: its parameters are LoadData3DParamsV2<f16>, got LoadData3DParamsV2<f32>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData2DParams(repeatTimes = 1)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2 takes LoadData3DParamsV2, got !ascendc.struct<LoadData2DParams>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<VECIN, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f16, VECIN>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f16>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, VECIN>, !ascendc.struct<LoadData3DParamsV2, f16>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f16, VECIN>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: the source of ascendc.load_data_3d_v2 is a A1/B1 tensor, got !ascendc.local_tensor<f16, VECIN>

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f32, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f32>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 12, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f32, A1>, !ascendc.struct<LoadData3DParamsV2, f32>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f32, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2: kExtension of f32 elements is a multiple of 8, got 12

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f16>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32, kStartPt = 8)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2: kStartPt of f16 elements is a multiple of 16, got 8

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f16>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 24)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2: mExtension of f16 elements is a multiple of 16, got 24

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<f16>(l1H = 1, l1W = 40000, channelSize = 32, kExtension = 32, mExtension = 32)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2: l1W is at most 32767, got 40000

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %q1 = ascendc.tque "q1" : !ascendc.queue<A1, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<A2, 1>
  %l1 = ascendc.alloc_tensor "l1" %q1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<i8, A1>
  %l0 = ascendc.alloc_tensor "l0" %q2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<i8, A2>
  %p = ascendc.params "p" LoadData3DParamsV2<i8>(l1H = 1, l1W = 32, channelSize = 32, kExtension = 32, mExtension = 32, enTranspose = true)
  ascendc.load_data_3d_v2 %l0, %l1, %p : !ascendc.local_tensor<i8, A2>, !ascendc.local_tensor<i8, A1>, !ascendc.struct<LoadData3DParamsV2, i8>
  ascendc.free_tensor %q1, %l1 : !ascendc.queue<A1, 1>, !ascendc.local_tensor<i8, A1>
  ascendc.free_tensor %q2, %l0 : !ascendc.queue<A2, 1>, !ascendc.local_tensor<i8, A2>
  ascendc.return
}

// CHECK: ascendc.load_data_3d_v2: enTranspose into L0A exists for 2- and 4-byte elements, not i8

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" LoadData3DParamsV2<f16>(l1H = 1, padList = 0)
  ascendc.return
}

// CHECK: LoadData3DParamsV2 has no field 'padList' (fields: l1H, l1W, channelSize, kExtension, mExtension, kStartPt, mStartPt, strideW, strideH, filterW, filterH, dilationFilterW, dilationFilterH, enTranspose, enSmallK, filterSizeW, filterSizeH, fMatrixCtrl)

// -----

ascendc.kernel cube @k(%n: index) {
  %p = "ascendc.params"() <{name = "p", fields = ["l1H"], static_values = array<i64: 1>}> : () -> !ascendc.struct<LoadData3DParamsV2>
  ascendc.return
}

// CHECK: LoadData3DParamsV2 is a template on the element type: !ascendc.struct<LoadData3DParamsV2, f16>

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" MmadParams<f16>(m = 16)
  ascendc.return
}

// CHECK: MmadParams is not a template: !ascendc.struct<MmadParams> takes no element type

// -----

ascendc.kernel cube @k(%n: index) {
  %p = ascendc.params "p" LoadData3DParamsV2<f64>(l1H = 1)
  ascendc.return
}

// CHECK: !ascendc.struct has element type f64; expected f32, f16, bf16 or an 8/16/32/64-bit integer
