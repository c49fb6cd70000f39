// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers | filecheck %s
// The Unified Buffer reserve of dav-c220: Select (ascendc.select) uses hidden scratch at
// TMP_UB_OFFSET = 184 KiB, so a kernel using it may plan 188416 bytes, not 196608. A kernel
// without such an API plans the whole 192 KiB (the second case).

// CHECK-LABEL: ascendc.kernel vector @select
// CHECK-SAME: memory_plan = {UB = {capacity = 188416 : i64, used = 12288 : i64}}
ascendc.kernel vector @select() {
  %pipe = ascendc.tpipe "pipe"
  %b = ascendc.tbuf "b" : !ascendc.buffer<VECCALC>
  %m = ascendc.tbuf "m" : !ascendc.buffer<VECCALC>
  %d = ascendc.tbuf "d" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %m len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %d len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %bt = ascendc.get_buf "bt" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %mt = ascendc.get_buf "mt" %m : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %dt = ascendc.get_buf "dt" %d : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  ascendc.select %dt, %mt, %bt, %bt mode VSEL_TENSOR_TENSOR_MODE count 1024 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}

// -----

// CHECK-LABEL: ascendc.kernel vector @no_select
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 192512 : i64}}
ascendc.kernel vector @no_select() {
  %pipe = ascendc.tpipe "pipe"
  %b = ascendc.tbuf "b" {fixed} : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b len 192512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.return
}
