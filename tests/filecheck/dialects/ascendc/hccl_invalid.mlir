// RUN: PYPTO_VERIFY_DIAG

// The verifier message of ascendc.hccl_window.

ascendc.kernel vector @k(%off: i64, %p: f32) {
  %h = ascendc.hccl "hccl"
  %w = ascendc.hccl_window "w_gm" %h, %off, %p size 64 : !ascendc.hccl_client, i64, f32 -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: Operation does not verify: the rank of ascendc.hccl_window is an integer scalar, got f32
