// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The HCCL client of a rank's kernel: the rank, the group's size, a window of any rank.
ascendc.kernel vector @k(%off: i64, %p: index) {
  %h = ascendc.hccl "hccl"
  %r = ascendc.hccl_rank_id %h : !ascendc.hccl_client
  %n = ascendc.hccl_rank_dim %h : !ascendc.hccl_client
  %w = ascendc.hccl_window "w_gm" %h, %off, %p size 64 : !ascendc.hccl_client, i64, index -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK:      %h = ascendc.hccl "hccl"
// CHECK-NEXT: %r = ascendc.hccl_rank_id %h : !ascendc.hccl_client
// CHECK-NEXT: %n = ascendc.hccl_rank_dim %h : !ascendc.hccl_client
// CHECK-NEXT: %w = ascendc.hccl_window "w_gm" %h, %off, %p size 64 : !ascendc.hccl_client, i64, index -> !ascendc.gm_tensor<f32>

// CHECK-GENERIC: %h = "ascendc.hccl"() <{name = "hccl"}> : () -> !ascendc.hccl_client
// CHECK-GENERIC: %w = "ascendc.hccl_window"(%h, %off, %p) <{name = "w_gm", size = 64 : i64}> : (!ascendc.hccl_client, i64, index) -> !ascendc.gm_tensor<f32>
