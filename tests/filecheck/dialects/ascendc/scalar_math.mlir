// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP
// The advanced-API math functions with their sharedTmpBuffer, element access on the scalar
// unit (and the data-cache flush of a GM element), the bit-mask Duplicate, and the atomic
// mode of copies to GM.

ascendc.kernel vector @scalar_math(%x: !ascendc.gm_addr) attributes {arg_names = ["x"]} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 128 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %dbuf = ascendc.tbuf "dbuf" : !ascendc.buffer<VECCALC>
  %tbuf = ascendc.tbuf "tbuf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf len 512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %dbuf len 512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %tbuf len 2048 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %a = ascendc.get_buf "a" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %d = ascendc.get_buf "d" %dbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %tmp = ascendc.get_buf "tmp" %tbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.sin %d, %a, %tmp count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
  ascendc.cos %d, %a, %tmp count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
  %i = arith.constant 3 : index
  %v = ascendc.get_value "v" %d, %i : !ascendc.local_tensor<f32, VECCALC>, index
  ascendc.set_value %a, %i, %v : !ascendc.local_tensor<f32, VECCALC>, index, f32
  %g = ascendc.get_value "g" %x_gm, %i : !ascendc.gm_tensor<f32>, index
  ascendc.data_cache_clean_and_invalid %x_gm : !ascendc.gm_tensor<f32>
  %zero = arith.constant 0.000000e+00 : f32
  %lo = arith.constant 4294967295 : index
  %hi = arith.constant 0 : index
  %rep = arith.constant 2 : index
  ascendc.duplicate_bits "bits" %a, %zero, %lo, %hi, %rep params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, f32, index, index, index
  ascendc.set_atomic_add f32
  ascendc.set_atomic_none
  ascendc.return
}

// CHECK: ascendc.sin %d, %a, %tmp count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
// CHECK-NEXT: ascendc.cos %d, %a, %tmp count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>
// CHECK: %v = ascendc.get_value "v" %d, %i : !ascendc.local_tensor<f32, VECCALC>, index
// CHECK-NEXT: ascendc.set_value %a, %i, %v : !ascendc.local_tensor<f32, VECCALC>, index, f32
// CHECK-NEXT: %g = ascendc.get_value "g" %x_gm, %i : !ascendc.gm_tensor<f32>, index
// CHECK-NEXT: ascendc.data_cache_clean_and_invalid %x_gm : !ascendc.gm_tensor<f32>
// CHECK: ascendc.duplicate_bits "bits" %a, %zero, %lo, %hi, %rep params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, f32, index, index, index
// CHECK-NEXT: ascendc.set_atomic_add f32
// CHECK-NEXT: ascendc.set_atomic_none
// CHECK-GENERIC: "ascendc.sin"(%d, %a, %tmp) <{count = 128 : i64}>
// CHECK-GENERIC: "ascendc.data_cache_clean_and_invalid"(%x_gm) : (!ascendc.gm_tensor<f32>) -> ()
// CHECK-GENERIC: "ascendc.duplicate_bits"(%a, %zero, %lo, %hi, %rep) <{name = "bits", params = [1 : i64, 8 : i64]}> : (!ascendc.local_tensor<f32, VECCALC>, f32, index, index, index) -> ()
// CHECK-GENERIC: "ascendc.set_atomic_add"() <{element = f32}> : () -> ()
