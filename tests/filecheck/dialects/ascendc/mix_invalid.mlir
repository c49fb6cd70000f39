// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the MIX kernel ops (ascendc.core_call, the cross-core flags,
// a member's `group`), one case each.

ascendc.kernel cube @k() {
  ascendc.cross_core_set_flag PIPE_S mode 2 id 0
  ascendc.return
}

// CHECK: CrossCoreSetFlag is issued on the pipe of the work it publishes (PIPE_FIX, PIPE_MTE2, PIPE_MTE3, ...), not PIPE_S

// -----

ascendc.kernel cube @k() {
  ascendc.cross_core_wait_flag PIPE_S mode 3 id 0
  ascendc.return
}

// CHECK: ascendc.cross_core_wait_flag: modeId is 0, 1 or 2, got 3

// -----

ascendc.kernel vector @k() {
  ascendc.cross_core_set_flag PIPE_MTE3 mode 2 id 16
  ascendc.return
}

// CHECK: ascendc.cross_core_set_flag: flag id 16 is out of range 0-15

// -----

ascendc.kernel mix @k_aic() attributes {group = "k"} {
  ascendc.return
}

// CHECK: kernel @k_aic: a member of a MIX kernel runs on one core (kind cube or vector)

// -----

ascendc.kernel vector @k(%a: !ascendc.gm_addr) {
  ascendc.core_call aiv @k(%a) : !ascendc.gm_addr
  ascendc.return
}

// CHECK: ascendc.core_call branches to a member inside a MIX kernel (ascendc.kernel mix)

// -----

builtin.module {
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
    ascendc.core_call aix @k(%a) : !ascendc.gm_addr
    ascendc.return
  }
}

// CHECK: Expected one of 'aic', 'aiv'

// -----

builtin.module {
  ascendc.kernel vector @k_aic(%a: !ascendc.gm_addr) attributes {group = "k"} {
    ascendc.return
  }
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
    ascendc.core_call aic @k_aic(%a) : !ascendc.gm_addr
    ascendc.return
  }
}

// CHECK: the aic branch calls @k_aic, a vector kernel; it must be a cube kernel

// -----

builtin.module {
  ascendc.kernel cube @k_aic(%a: !ascendc.gm_addr) attributes {group = "other"} {
    ascendc.return
  }
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
    ascendc.core_call aic @k_aic(%a) : !ascendc.gm_addr
    ascendc.return
  }
}

// CHECK: @k_aic is not a member of this MIX kernel (its 'group' names another)

// -----

builtin.module {
  ascendc.kernel cube @k_aic(%a: !ascendc.gm_addr, %b: !ascendc.gm_addr) attributes {group = "k"} {
    ascendc.return
  }
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
    ascendc.core_call aic @k_aic(%a) : !ascendc.gm_addr
    ascendc.return
  }
}

// CHECK: @k_aic takes (!ascendc.gm_addr, !ascendc.gm_addr), the branch passes (!ascendc.gm_addr)

// -----

builtin.module {
  ascendc.kernel cube @k_aic(%a: !ascendc.gm_addr) attributes {group = "k"} {
    ascendc.return
  }
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
    ascendc.core_call aic @k_aic(%a) : !ascendc.gm_addr
    ascendc.pipe_barrier PIPE_V
    ascendc.return
  }
}

// CHECK: MIX kernel @k branches to its members (ascendc.core_call) and holds no other op, but holds 'ascendc.pipe_barrier'

// -----

builtin.module {
  ascendc.kernel vector @v(%a: !ascendc.gm_addr) attributes {task_ratio = 2 : i64} {
    ascendc.return
  }
}

// CHECK: kernel @v: 'task_ratio' (AIVs per AIC) belongs to MIX kernels only

// -----

builtin.module {
  ascendc.kernel mix @k(%a: !ascendc.gm_addr) attributes {task_ratio = 4 : i64} {
    ascendc.return
  }
}

// CHECK: kernel @k: 'task_ratio' is 1 (KERNEL_TYPE_MIX_AIC_1_1) or 2 (_1_2), got 4

// -----

builtin.module {
  ascendc.kernel vector @v(%a: !ascendc.gm_addr) {
    %idx = ascendc.get_block_idx task_ratio 3
    ascendc.return
  }
}

// CHECK: 'task_ratio' is the AIVs per AIC of a MIX kernel, 1 or 2; got 3
