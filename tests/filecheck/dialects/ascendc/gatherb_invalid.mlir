// RUN: PYPTO_VERIFY_DIAG

// The verifier messages of ascendc.gatherb and ascendc.reinterpret_cast.

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.gatherb %d, %s, %o repeat 1 params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb: Ascend C Gatherb exists for uint16_t and uint32_t elements only (dav-c220), not f32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui16, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui16, VECCALC>
  ascendc.gatherb %d, %s, %o repeat 1 params(1, 8) : !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: the offset operand of ascendc.gatherb is a LocalTensor<uint32_t> of byte offsets, got !ascendc.local_tensor<i32, VECCALC>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui16, VECCALC>
  ascendc.gatherb %d, %s, %o repeat 1 params(1, 8) : !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb operands must be tensors of one element type

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  ascendc.gatherb %s, %s, %o repeat 256 params(1, 8) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb: 'repeat' is 256, more than the 255 the instruction encodes

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  ascendc.gatherb %d, %s, %o repeat 1 params(1, 256) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb: GatherRepeatParams(dstBlkStride, dstRepStride) value 256 is outside [0, 255]

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %v = ascendc.reinterpret_cast %s : !ascendc.local_tensor<f32, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  ascendc.gatherb %v, %s, %o repeat 1 params(1, 8) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb operands must be tensors of one element type

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %v = ascendc.reinterpret_cast %s : !ascendc.local_tensor<f32, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  ascendc.gatherb %v, %v, %o repeat 1 params(1, 8) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.gatherb: dst and src are different memory (Gatherb does not work in place)

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %a = ascendc.alloc_tensor "a" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<ui32, A1>
  %s = ascendc.alloc_tensor "s" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<ui32, A1>
  %o = ascendc.alloc_tensor "o" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<ui32, A1>
  ascendc.gatherb %a, %s, %o repeat 1 params(1, 8) : !ascendc.local_tensor<ui32, A1>, !ascendc.local_tensor<ui32, A1>, !ascendc.local_tensor<ui32, A1>
  ascendc.free_tensor %qA1, %a : !ascendc.queue<A1, 1>, !ascendc.local_tensor<ui32, A1>
  ascendc.free_tensor %qA1, %s : !ascendc.queue<A1, 1>, !ascendc.local_tensor<ui32, A1>
  ascendc.free_tensor %qA1, %o : !ascendc.queue<A1, 1>, !ascendc.local_tensor<ui32, A1>
  ascendc.return
}

// CHECK: ascendc.gatherb operands are Unified Buffer tensors (VECIN/VECOUT/VECCALC), got !ascendc.local_tensor<ui32, A1>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %v = "ascendc.reinterpret_cast"(%s) : (!ascendc.local_tensor<f32, VECCALC>) -> !ascendc.local_tensor<ui32, VECIN>
  ascendc.return
}

// CHECK: ascendc.reinterpret_cast keeps the tensor's position VECCALC, got !ascendc.local_tensor<ui32, VECIN>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %v = ascendc.reinterpret_cast %s : !ascendc.local_tensor<f32, VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.reinterpret_cast to the element type the tensor has (f32)
