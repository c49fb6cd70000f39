// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Compare / Compares into a uint8 mask (count form, whole 256-byte repeats), Select between
// two tensors or a tensor and a scalar, and an int16 tile seen as half (ReinterpretCast).
ascendc.kernel vector @masks(%s: f32) {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %mbuf = ascendc.tbuf "mbuf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %mbuf len 256 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %mbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %b = ascendc.at %a[512] : !ascendc.local_tensor<f32, VECCALC>
  ascendc.compare %m, %a, %b mode LT count 512 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.compares %m, %a, %s mode GE count 64 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.select %a, %m, %a, %b mode VSEL_TENSOR_TENSOR_MODE count 16 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.select_scalar %a, %m, %a, %s mode VSEL_TENSOR_SCALAR_MODE count 16 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  %i = ascendc.get_buf "i" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<i16, VECCALC>
  %h = ascendc.reinterpret_cast %i : !ascendc.local_tensor<i16, VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
  ascendc.select %h, %m, %h, %h mode VSEL_CMPMASK_SPR count 128 : !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f16, VECCALC>, !ascendc.local_tensor<f16, VECCALC>
  ascendc.return
}

// CHECK: ascendc.compare %m, %a, %b mode LT count 512 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.compares %m, %a, %s mode GE count 64 : !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: ascendc.select %a, %m, %a, %b mode VSEL_TENSOR_TENSOR_MODE count 16
// CHECK-NEXT: ascendc.select_scalar %a, %m, %a, %s mode VSEL_TENSOR_SCALAR_MODE count 16 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: %i = ascendc.get_buf "i" %buf
// CHECK-NEXT: %h = ascendc.reinterpret_cast %i : !ascendc.local_tensor<i16, VECCALC> -> !ascendc.local_tensor<f16, VECCALC>
// CHECK-NEXT: ascendc.select %h, %m, %h, %h mode VSEL_CMPMASK_SPR count 128
// CHECK-GENERIC: "ascendc.compare"(%m, %a, %b) <{mode = #ascendc<cmpmode LT>, count = 512 : i64}>
// CHECK-GENERIC: "ascendc.compares"(%m, %a, %s) <{mode = #ascendc<cmpmode GE>, count = 64 : i64}>
// CHECK-GENERIC: "ascendc.select_scalar"(%a, %m, %a, %s) <{mode = #ascendc<selmode VSEL_TENSOR_SCALAR_MODE>, count = 16 : i64}>
// CHECK-GENERIC: %h = "ascendc.reinterpret_cast"(%i) : (!ascendc.local_tensor<i16, VECCALC>) -> !ascendc.local_tensor<f16, VECCALC>
