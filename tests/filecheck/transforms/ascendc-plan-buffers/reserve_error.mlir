// RUN: not pypto-opt %s -p ascendc-plan-buffers 2>&1 | filecheck %s
// 188 KiB of buffers and a Select: over the reserve.
ascendc.kernel vector @too_big() {
  %pipe = ascendc.tpipe "pipe"
  %b = ascendc.tbuf "b" {values = ["%b"], fixed} : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %b len 192512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %bt = ascendc.get_buf "bt" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %mt = ascendc.get_buf "mt" %b : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  ascendc.select %bt, %mt, %bt, %bt mode VSEL_TENSOR_TENSOR_MODE count 1024 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.return
}
// CHECK: ascendc-plan-buffers: cannot lower @too_big: its tiles need 192512 bytes of Unified Buffer but a core has 188416: %b (VECCALC, 192512 B). Use smaller tiles (loop over the tensor).
