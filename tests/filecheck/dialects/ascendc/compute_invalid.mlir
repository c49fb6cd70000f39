// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the instruction, scalar-unit and event-id ops that
// invalid.mlir does not hold, one case each.

ascendc.kernel mix @k() {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %a = ascendc.alloc_tensor "a" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f32, A1>
  %one = arith.constant 1.000000e+00 : f32
  ascendc.adds %a, %a, %one count 64 : !ascendc.local_tensor<f32, A1>, !ascendc.local_tensor<f32, A1>, f32
  ascendc.free_tensor %qA1, %a : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f32, A1>
  ascendc.return
}

// CHECK: ascendc.adds operands are Unified Buffer tensors (VECIN/VECOUT/VECCALC), got !ascendc.local_tensor<f32, A1>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.adds %c, %c, %c count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: the scalar operand of ascendc.adds is a scalar, got !ascendc.local_tensor<f32, VECCALC>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %one = arith.constant 1.000000e+00 : f32
  ascendc.adds %c, %c, %one mask 64 repeat 1 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.return
}

// CHECK: the level-0 form of ascendc.adds takes 'mask', 'repeat' and 'params'

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %tbuf = ascendc.tbuf "tbuf" : !ascendc.buffer<VECCALC>
  %tmp = ascendc.get_buf "tmp" %tbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.sin %c, %c, %tmp count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
  ascendc.return
}

// CHECK: ascendc.sin: the devkit's Sin does not allow its operands to overlap

// -----

ascendc.kernel cube @k() {
  %pipe = ascendc.tpipe "pipe"
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qC2 = ascendc.tque "qC2" : !ascendc.queue<C2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
  %bt = ascendc.alloc_tensor "bt" %qC2 : !ascendc.queue<C2, 1> -> !ascendc.local_tensor<f16, C2>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = false)
  ascendc.mmad %acc, %al, %br, %bt, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.local_tensor<f16, C2>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
  ascendc.free_tensor %qC2, %bt : !ascendc.queue<C2, 1>, !ascendc.local_tensor<f16, C2>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK: the bias row of Mmad has the destination's element type f32, got !ascendc.local_tensor<f16, C2>

// -----

ascendc.kernel vector @k(%s: f32) {
  %n = ascendc.unary_minus %s : f32 -> f16
  ascendc.return
}

// CHECK: ascendc.unary_minus keeps its operand's type f32, got f16

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %v = ascendc.scalar_cast %c : !ascendc.local_tensor<f32, VECCALC> -> f32
  ascendc.return
}

// CHECK: ascendc.scalar_cast converts scalars, not !ascendc.local_tensor<f32, VECCALC>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %i = arith.constant 1.000000e+00 : f32
  %v = ascendc.get_value "v" %c, %i : !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.return
}

// CHECK: the index of ascendc.get_value is an integer, got f32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %i = arith.constant 3 : index
  %v = ascendc.get_value "v" %c, %i : !ascendc.local_tensor<f32, VECCALC>, index -> f16
  ascendc.return
}

// CHECK: ascendc.get_value returns the tensor's element type f32, got f16

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe -> !ascendc.event<V_S>
  ascendc.return
}

// CHECK: ascendc.fetch_event_id: the event id's type names the op's HardEvent MTE3_MTE2, got !ascendc.event<V_S>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
  ascendc.release_event_id MTE3_MTE2 %pipe, %e : !ascendc.pipe, !ascendc.event<MTE3_MTE2>
  ascendc.return
}

// CHECK: ascendc.release_event_id: ReleaseEventID releases an id taken with AllocEventID
