// RUN: pypto-opt %s -p "pipeline-cross-core-loops{depth=1}" | filecheck %s
// RUN: pypto-opt %s -p "pipeline-cross-core-loops{depth=1},pipeline-cross-core-loops{depth=1}" | filecheck %s

// Flash attention over 4 key blocks. The AIC pushes S_j, then pops P_j and pushes P_j V_j;
// the AIV pops S_j and pushes P_j, then pops P_j V_j. Rotated by one block: the AIC pushes
// S_{j+1} before it waits for P_j, the AIV pushes P_{j+1} before it waits for P_j V_j; the
// AIV's loop carries α_j to the next iteration's update. The c2v ring carries two tiles per
// block, so it gets 4 slots; the v2c ring keeps 2.

pypto.func aic @attn_aic(%q: !pypto.tensor<[16, 16], f16>, %kt: !pypto.tensor<[16, 64], f16>, %v: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %qm = pypto.tile.load %q[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %ql = pypto.tile.move %qm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  scf.for %j = %c0 to %c4 step %c1 {
    %col = arith.muli %j, %c16 : index
    %km = pypto.tile.load %kt[%c0, %col] : !pypto.tensor<[16, 64], f16> -> !pypto.tile<[16, 16], f16, mat>
    %kr = pypto.tile.move %km : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %s = pypto.tile.matmul %ql, %kr : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %s to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    %vm = pypto.tile.load %v[%col, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %vr = pypto.tile.move %vm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %pm = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
    %pl = pypto.tile.move %pm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %pv = pypto.tile.matmul %pl, %vr : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %pv to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  }
  pypto.return
}

pypto.func aiv @attn_aiv(%q: !pypto.tensor<[16, 16], f16>, %kt: !pypto.tensor<[16, 64], f16>, %v: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %low = arith.constant -1.000000e+30 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %m0 = pypto.tile.full %low : f32 -> !pypto.tile<[16, 1], f32, vec>
  %o0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, vec>
  %m_end, %o_end = scf.for %j = %c0 to %c4 step %c1 iter_args(%m = %m0, %acc = %o0) -> (!pypto.tile<[16, 1], f32, vec>, !pypto.tile<[16, 16], f32, vec>) {
    %s = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %rm = pypto.tile.row_max %s : !pypto.tile<[16, 16], f32, vec>
    %m_new = pypto.tile.maximum %m, %rm : !pypto.tile<[16, 1], f32, vec>
    %p = pypto.tile.row_expand_expdif %s, %m_new : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 1], f32, vec>
    %d = pypto.tile.sub %m, %m_new : !pypto.tile<[16, 1], f32, vec>
    %alpha = pypto.tile.exp %d : !pypto.tile<[16, 1], f32, vec>
    %ph = pypto.tile.cast %p : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.push %ph to aic slots(2) : !pypto.tile<[16, 16], f16, vec>
    %pv = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %scaled = pypto.tile.row_expand_mul %acc, %alpha : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 1], f32, vec>
    %acc_next = pypto.tile.add %scaled, %pv : !pypto.tile<[16, 16], f32, vec>
    scf.yield %m_new, %acc_next : !pypto.tile<[16, 1], f32, vec>, !pypto.tile<[16, 16], f32, vec>
  }
  %o1 = pypto.tile.store %o_end, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
  pypto.return %o : !pypto.tensor<[16, 16], f32>
}

pypto.func group @attn(%q: !pypto.tensor<[16, 16], f16>, %kt: !pypto.tensor<[16, 64], f16>, %v: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  pypto.call @attn_aic(%q, %kt, %v, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 64], f16>, !pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
  %r = pypto.call @attn_aiv(%q, %kt, %v, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 64], f16>, !pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}

// CHECK-LABEL: pypto.func aic @attn_aic
// CHECK:         %[[S0:.*]] = pypto.tile.matmul %ql, %{{.*}}
// CHECK-NEXT:    pypto.cross_core.push %[[S0]] to aiv slots(4)
// CHECK:         scf.for %j = %{{.*}} to %[[N1:.*]] step %[[STEP:.*]] {
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %j, %[[STEP]] : index
// CHECK:           %[[COL:.*]] = arith.muli %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = pypto.tile.load %kt[%{{.*}}, %[[COL]]]
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK:           %[[VCOL:.*]] = arith.muli %j, %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = pypto.tile.load %v[%[[VCOL]], %{{.*}}]
// CHECK:           pypto.cross_core.pop from aiv slots(2)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:    }
// CHECK:         pypto.tile.load %v
// CHECK:         pypto.cross_core.pop from aiv slots(2)
// CHECK:         pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:    pypto.return

// CHECK-LABEL: pypto.func aiv @attn_aiv
// CHECK:         %{{.*}} = pypto.cross_core.pop from aic slots(4)
// CHECK:         %[[ALPHA0:.*]] = pypto.tile.exp
// CHECK:         pypto.cross_core.push %{{.*}} to aic slots(2)
// CHECK-NEXT:    %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[UB:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[ST:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[M:.*]], %[[ACC:.*]], %[[ALPHA_END:.*]] = scf.for %j = %[[LB]] to %[[UB]] step %[[ST]] iter_args(%m = %m_new, %acc = %o0, %[[ALPHA_J:.*]] = %[[ALPHA0]])
// CHECK-NEXT:      arith.addi %j, %[[ST]] : index
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(4)
// CHECK:           %[[ALPHA_NEXT:.*]] = pypto.tile.exp
// CHECK:           pypto.cross_core.push %{{.*}} to aic slots(2)
// CHECK-NEXT:      %[[SCALED:.*]] = pypto.tile.row_expand_mul %acc, %[[ALPHA_J]]
// CHECK-NEXT:      %[[PV:.*]] = pypto.cross_core.pop from aic slots(4)
// CHECK-NEXT:      %[[SUM:.*]] = pypto.tile.add %[[SCALED]], %[[PV]]
// CHECK-NEXT:      scf.yield %{{.*}}, %[[SUM]], %[[ALPHA_NEXT]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = pypto.tile.row_expand_mul %[[ACC]], %[[ALPHA_END]]
// CHECK-NEXT:    pypto.cross_core.pop from aic slots(4)
// CHECK-NEXT:    %[[LAST:.*]] = pypto.tile.add
// CHECK-NEXT:    pypto.tile.store %[[LAST]], %o
// CHECK-NOT:     pypto.cross_core
// CHECK:         pypto.return


// An FFN: only the AIC waits for its own push to come back (the activation of h_j), so only
// its loop rotates; the AIV's pops and pushes keep their order, and so do both rings.

pypto.func aic @ffn_aic(%x: !pypto.tensor<[16, 16], f16>, %w1: !pypto.tensor<[16, 32], f16>, %w2: !pypto.tensor<[32, 16], f16>, out %out: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  %xm = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %xl = pypto.tile.move %xm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %acc0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, acc>
  %acc_end = scf.for %f = %c0 to %c2 step %c1 iter_args(%acc = %acc0) -> (!pypto.tile<[16, 16], f32, acc>) {
    %col = arith.muli %f, %c16 : index
    %w1m = pypto.tile.load %w1[%c0, %col] : !pypto.tensor<[16, 32], f16> -> !pypto.tile<[16, 16], f16, mat>
    %w1r = pypto.tile.move %w1m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %h = pypto.tile.matmul %xl, %w1r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %h to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    %w2m = pypto.tile.load %w2[%col, %c0] : !pypto.tensor<[32, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %w2r = pypto.tile.move %w2m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %am = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %acc_next = pypto.tile.matmul_acc %acc, %al, %w2r : !pypto.tile<[16, 16], f32, acc>, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    scf.yield %acc_next : !pypto.tile<[16, 16], f32, acc>
  }
  %out1 = pypto.tile.store %acc_end, %out[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return
}

pypto.func aiv @ffn_aiv(%x: !pypto.tensor<[16, 16], f16>, %w1: !pypto.tensor<[16, 32], f16>, %w2: !pypto.tensor<[32, 16], f16>, out %out: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %f = %c0 to %c2 step %c1 {
    %h = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %a = pypto.tile.relu %h : !pypto.tile<[16, 16], f32, vec>
    %ah = pypto.tile.cast %a : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.push %ah to aic slots(2) : !pypto.tile<[16, 16], f16, vec>
  }
  pypto.return %out : !pypto.tensor<[16, 16], f32>
}

pypto.func group @ffn(%x: !pypto.tensor<[16, 16], f16>, %w1: !pypto.tensor<[16, 32], f16>, %w2: !pypto.tensor<[32, 16], f16>, out %out: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  pypto.call @ffn_aic(%x, %w1, %w2, %out) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[32, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
  %r = pypto.call @ffn_aiv(%x, %w1, %w2, %out) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 32], f16>, !pypto.tensor<[32, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}

// CHECK-LABEL: pypto.func aic @ffn_aic
// CHECK:         %[[H0:.*]] = pypto.tile.matmul %xl
// CHECK-NEXT:    pypto.cross_core.push %[[H0]] to aiv slots(2)
// CHECK:         %[[ACC:.*]] = scf.for %f = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%acc = %acc0)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(2)
// CHECK:           pypto.cross_core.pop from aiv slots(2)
// CHECK:           pypto.tile.matmul_acc %acc
// CHECK:         }
// CHECK:         pypto.cross_core.pop from aiv slots(2)
// CHECK:         %[[LAST:.*]] = pypto.tile.matmul_acc %[[ACC]]
// CHECK-NEXT:    pypto.tile.store %[[LAST]], %out
// CHECK-LABEL: pypto.func aiv @ffn_aiv
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    scf.for %f = %c0 to %c2 step %c1 {
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(2)
// CHECK:           pypto.cross_core.push %{{.*}} to aic slots(2)
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return


// Left alone: a loop whose cores order a shared tensor with flags (stage 2's store and the
// next iteration's load would change order). (Loops with run-time bounds: runtime_bounds.mlir.)

pypto.func aic @ws_aic(%a: !pypto.tensor<[16, 16], f16>, %ws: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %ar = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  scf.for %i = %c0 to %c2 step %c1 {
    %s = pypto.tile.matmul %al, %ar : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %s to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    pypto.cross_core.wait_flag from aiv id(0)
    %wm = pypto.tile.load %ws[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    pypto.cross_core.set_flag to aiv id(0)
    %wl = pypto.tile.move %wm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %t = pypto.tile.matmul %wl, %ar : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  }
  pypto.return
}

pypto.func aiv @ws_aiv(%a: !pypto.tensor<[16, 16], f16>, %ws: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.cross_core.set_flag to aic id(0)
  scf.for %i = %c0 to %c2 step %c1 {
    %s = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %h = pypto.tile.cast %s : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.wait_flag from aic id(0)
    %w = pypto.tile.store %h, %ws[%c0, %c0] : !pypto.tile<[16, 16], f16, vec>, !pypto.tensor<[16, 16], f16>
    pypto.cross_core.set_flag to aic id(0)
    %t = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  }
  pypto.cross_core.wait_flag from aic id(0)
  pypto.return
}

pypto.func group @ws(%a: !pypto.tensor<[16, 16], f16>) {
  %ws = pypto.tensor.create : !pypto.tensor<[16, 16], f16>
  pypto.call @ws_aic(%a, %ws) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>) -> ()
  pypto.call @ws_aiv(%a, %ws) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>) -> ()
  pypto.return
}

// CHECK-LABEL: pypto.func aic @ws_aic
// CHECK:         %ar = pypto.tile.move %am
// CHECK-NEXT:    scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      pypto.tile.matmul %al, %ar
// CHECK-NEXT:      pypto.cross_core.push %{{.*}} to aiv slots(2)
// CHECK-NEXT:      pypto.cross_core.wait_flag from aiv id(0)
// CHECK-LABEL: pypto.func aiv @ws_aiv
// CHECK:         pypto.cross_core.set_flag to aic id(0)
// CHECK-NEXT:    scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(2)
