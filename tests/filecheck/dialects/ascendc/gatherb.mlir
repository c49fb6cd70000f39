// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP
// The basic API's Gatherb (32-byte blocks of src by u32 byte offset, 8 per repeat), on
// uint16_t/uint32_t tensors: data of other types through ReinterpretCast views.

ascendc.kernel vector @gatherb() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %s = ascendc.get_buf "s" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %o = ascendc.get_buf "o" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i8, VECCALC>
  %s32 = ascendc.reinterpret_cast %s : !ascendc.local_tensor<f32, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %d32 = ascendc.reinterpret_cast %d : !ascendc.local_tensor<i8, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
  %dst = ascendc.at %d32[256] : !ascendc.local_tensor<ui32, VECCALC>
  %src = ascendc.at %s32[512] : !ascendc.local_tensor<ui32, VECCALC>
  %off = ascendc.at %o[8] : !ascendc.local_tensor<ui32, VECCALC>
  ascendc.gatherb %dst, %src, %off repeat 2 params(1, 8) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  %h = ascendc.get_buf "h" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui16, VECCALC>
  %d16 = ascendc.reinterpret_cast %d : !ascendc.local_tensor<i8, VECCALC> -> !ascendc.local_tensor<ui16, VECCALC>
  ascendc.gatherb %d16, %h, %o repeat 1 params(0, 8) : !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
  ascendc.return
}

// CHECK: %s32 = ascendc.reinterpret_cast %s : !ascendc.local_tensor<f32, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
// CHECK: %d32 = ascendc.reinterpret_cast %d : !ascendc.local_tensor<i8, VECCALC> -> !ascendc.local_tensor<ui32, VECCALC>
// CHECK: ascendc.gatherb %dst, %src, %off repeat 2 params(1, 8) : !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
// CHECK: ascendc.gatherb %d16, %h, %o repeat 1 params(0, 8) : !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui16, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>
// CHECK-GENERIC: "ascendc.reinterpret_cast"(%s) : (!ascendc.local_tensor<f32, VECCALC>) -> !ascendc.local_tensor<ui32, VECCALC>
// CHECK-GENERIC: "ascendc.gatherb"(%dst, %src, %off) <{repeat = 2 : i64, params = [1 : i64, 8 : i64]}> : (!ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>, !ascendc.local_tensor<ui32, VECCALC>) -> ()
