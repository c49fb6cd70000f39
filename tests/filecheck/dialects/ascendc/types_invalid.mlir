// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the ascendc types, one case each (a type is checked as it is parsed).

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 64 : !ascendc.gm_addr -> !ascendc.gm_tensor<i1>
  ascendc.return
}

// CHECK: !ascendc.gm_tensor has element type i1; expected f32, f16, bf16 or an 8/16/32/64-bit integer

// -----

ascendc.kernel vector @k() {
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 0>
  ascendc.return
}

// CHECK: a TQue has depth at least 1, got 0

// -----

ascendc.kernel vector @k() {
  %inQ = ascendc.tque "inQ" : !ascendc.queue<GM, 1>
  ascendc.return
}

// CHECK: a TQue cannot be at position GM (global memory)

// -----

ascendc.kernel vector @k(%p: !ascendc.struct<FooParams>) {
  ascendc.return
}

// CHECK: unknown parameter struct 'FooParams'; expected one of
