// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A MIX kernel with two AIVs per AIC (task_ratio 2: KERNEL_TYPE_MIX_AIC_1_2): its AIC and AIV
// members (kernels with a `group`) and the entry that branches
// to them; cross-core flags in both members.

builtin.module {
  ascendc.kernel cube @k_aic(%a: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 512 : i64, group = "k"} {
    ascendc.cross_core_wait_flag PIPE_S mode 2 id 1
    ascendc.cross_core_set_flag PIPE_FIX mode 2 id 0
    ascendc.return
  }
  ascendc.kernel vector @k_aiv(%a: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 512 : i64, group = "k"} {
    ascendc.cross_core_set_flag PIPE_MTE2 mode 2 id 1
    ascendc.cross_core_wait_flag PIPE_S mode 2 id 0
    ascendc.cross_core_set_flag PIPE_MTE3 mode 2 id 2
    ascendc.return
  }
  ascendc.kernel mix @k(%a: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 512 : i64, task_ratio = 2 : i64} {
    ascendc.core_call aic @k_aic(%a, %workspace) : !ascendc.gm_addr, !ascendc.gm_addr
    ascendc.core_call aiv @k_aiv(%a, %workspace) : !ascendc.gm_addr, !ascendc.gm_addr
    ascendc.return
  }
}

// CHECK:      ascendc.kernel cube @k_aic(%a: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 512 : i64, group = "k"} {
// CHECK-NEXT:   ascendc.cross_core_wait_flag PIPE_S mode 2 id 1
// CHECK-NEXT:   ascendc.cross_core_set_flag PIPE_FIX mode 2 id 0
// CHECK:      ascendc.kernel vector @k_aiv(
// CHECK-NEXT:   ascendc.cross_core_set_flag PIPE_MTE2 mode 2 id 1
// CHECK-NEXT:   ascendc.cross_core_wait_flag PIPE_S mode 2 id 0
// CHECK-NEXT:   ascendc.cross_core_set_flag PIPE_MTE3 mode 2 id 2
// CHECK:      ascendc.kernel mix @k(%a: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {workspace = 512 : i64, task_ratio = 2 : i64} {
// CHECK-NEXT:   ascendc.core_call aic @k_aic(%a, %workspace) : !ascendc.gm_addr, !ascendc.gm_addr
// CHECK-NEXT:   ascendc.core_call aiv @k_aiv(%a, %workspace) : !ascendc.gm_addr, !ascendc.gm_addr
// CHECK-NEXT:   ascendc.return

// CHECK-GENERIC: "ascendc.cross_core_wait_flag"() <{pipe = #ascendc<pipe_kind PIPE_S>, mode = 2 : i64, id = 1 : i64}> : () -> ()
// CHECK-GENERIC: "ascendc.core_call"(%{{.*}}, %{{.*}}) <{core = "aic", callee = @k_aic}> : (!ascendc.gm_addr, !ascendc.gm_addr) -> ()
