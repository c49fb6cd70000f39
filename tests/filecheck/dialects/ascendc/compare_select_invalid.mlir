// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of ascendc.compare / compares / select / select_scalar and
// ascendc.reinterpret_cast, one case each.

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  "ascendc.select"(%a, %m, %a, %a) <{mode = #ascendc<selmode VSEL_TENSOR_SCALAR_MODE>, count = 64 : i64}> : (!ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>) -> ()
  ascendc.return
}

// CHECK: ascendc.select selects between two tensors; VSEL_TENSOR_SCALAR_MODE takes a scalar src1 (ascendc.select_scalar)

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  "ascendc.select_scalar"(%a, %m, %a, %s) <{mode = #ascendc<selmode VSEL_TENSOR_TENSOR_MODE>, count = 64 : i64}> : (!ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32) -> ()
  ascendc.return
}

// CHECK: ascendc.select_scalar selects between a tensor and a scalar: its mode is VSEL_TENSOR_SCALAR_MODE, got VSEL_TENSOR_TENSOR_MODE

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i8, VECCALC>
  ascendc.select %a, %i, %a, %a mode VSEL_TENSOR_TENSOR_MODE count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<i8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: the selMask of ascendc.select is a LocalTensor of uint8_t, uint16_t, uint32_t and uint64_t elements (dav-c220), not i8

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.select %i, %m, %i, %i mode VSEL_TENSOR_TENSOR_MODE count 64 : !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<i32, VECCALC>, !ascendc.local_tensor<i32, VECCALC>
  ascendc.return
}

// CHECK: ascendc.select: Ascend C Select exists for half and float elements only (dav-c220), not i32

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.compare %a, %a, %a mode LT count 64 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// CHECK: the dst of ascendc.compare is a LocalTensor of uint8_t and int8_t (the result bits), not f32

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  ascendc.compare %m, %i, %i mode EQ count 128 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<i16, VECCALC>, !ascendc.local_tensor<i16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.compare: Ascend C Compare exists for half, float and int32_t elements only (dav-c220), not i16

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i32, VECCALC>
  ascendc.compares %m, %i, %n mode LT count 64 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<i32, VECCALC>, i32
  ascendc.return
}

// CHECK: ascendc.compares: Ascend C Compares compares int32_t elements with CMPMODE::EQ only (dav-c220), not LT

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.compares %m, %a, %s mode GT count 16 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.return
}

// CHECK: ascendc.compares: count 16 of f32 elements is 64 bytes, not whole 256-byte repeats

// -----

ascendc.kernel vector @k(%s: f32, %n: i32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  %h = ascendc.reinterpret_cast %i : !ascendc.local_tensor<i16, VECCALC> -> !ascendc.local_tensor<f16, VECOUT>
  ascendc.return
}

// CHECK: ascendc.reinterpret_cast keeps the tensor's position VECCALC, got !ascendc.local_tensor<f16, VECOUT>
