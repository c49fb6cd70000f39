// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP
// The basic API's Transpose of one 16 x 16 block of 2-byte elements.

ascendc.kernel vector @transpose() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 1024 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
  %b = ascendc.at %a[256] : !ascendc.local_tensor<f16, VECCALC>
  ascendc.transpose %b, %a : !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<f16, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  %j = ascendc.at %i[256] : !ascendc.local_tensor<i16, VECCALC>
  ascendc.transpose %i, %j : !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.transpose %b, %a : !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<f16, VECCALC>
// CHECK: ascendc.transpose %i, %j : !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>
// CHECK-GENERIC: "ascendc.transpose"(%b, %a) : (!ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<f16, VECCALC>) -> ()
