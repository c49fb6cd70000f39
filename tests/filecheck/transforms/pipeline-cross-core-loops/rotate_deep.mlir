// RUN: pypto-opt %s -p pipeline-cross-core-loops | filecheck %s
// RUN: pypto-opt %s -p pipeline-cross-core-loops,pipeline-cross-core-loops | filecheck %s
// RUN: pypto-opt %s -p "pipeline-cross-core-loops{depth=2}" | filecheck %s --check-prefix=DEPTH2

// Flash attention over 4 key blocks (rotate.mlir's), rotated by the default depth, 3: the AIC
// pushes S_{j+3} before it waits for P_j, the AIV pushes P_{j+3} before it waits for P_j V_j.
// Prologue and epilogue are loops of 3 iterations around a main loop of 4 - 3 = 1; the AIV
// carries α of three iterations in a shift register (it uses the oldest, yields the newest
// last), whose first slots start as a placeholder the prologue shifts out. The c2v ring gets
// (3 + 1) x 2 = 8 slots, the v2c ring (3 + 1) x 1 = 4. Running the pass again changes nothing.

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
// CHECK:         %ql = pypto.tile.move
// CHECK-NEXT:    %[[P0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[P3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[P1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %j = %[[P0]] to %[[P3]] step %[[P1]] {
// CHECK:           pypto.tile.load %kt
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(8)
// CHECK-NEXT:    }
// CHECK:         %[[AHEAD:.*]] = arith.constant 3 : index
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[J]], %[[AHEAD]] : index
// CHECK-NEXT:      %[[COL:.*]] = arith.muli %[[NEXT]], %c16 : index
// CHECK-NEXT:      pypto.tile.load %kt[%c0, %[[COL]]]
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(8)
// CHECK-NEXT:      %[[VCOL:.*]] = arith.muli %[[J]], %c16 : index
// CHECK-NEXT:      pypto.tile.load %v[%[[VCOL]], %c0]
// CHECK:           pypto.cross_core.pop from aiv slots(4)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(8)
// CHECK-NEXT:    }
// CHECK:         %[[E1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[E4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    scf.for %{{.*}} = %[[E1]] to %[[E4]] step %{{.*}} {
// CHECK-NOT:       pypto.tile.load %kt
// CHECK:           pypto.tile.load %v
// CHECK:           pypto.cross_core.pop from aiv slots(4)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(8)
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return

// CHECK-LABEL: pypto.func aiv @attn_aiv
// CHECK:         %o0 = pypto.tile.full
// CHECK:         %[[HOLE:.*]] = pypto.tile.full %{{.*}} : f32 -> !pypto.tile<[16, 1], f32, vec>
// CHECK:         %[[M:.*]], %[[A0:.*]], %[[A1:.*]], %[[A2:.*]] = scf.for %j = %{{.*}} iter_args(%[[MA:.*]] = %m0, %[[S0:.*]] = %[[HOLE]], %[[S1:.*]] = %[[HOLE]], %[[S2:.*]] = %[[HOLE]])
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(8)
// CHECK:           %[[ALPHA:.*]] = pypto.tile.exp
// CHECK:           pypto.cross_core.push %{{.*}} to aic slots(4)
// CHECK-NEXT:      scf.yield %{{.*}}, %[[S1]], %[[S2]], %[[ALPHA]]
// CHECK-NEXT:    }
// CHECK:         %{{.*}}, %[[ACC_END:.*]], %[[B0:.*]], %[[B1:.*]], %[[B2:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[M]], %[[ACC:.*]] = %o0, %[[T0:.*]] = %[[A0]], %[[T1:.*]] = %[[A1]], %[[T2:.*]] = %[[A2]])
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(8)
// CHECK:           %[[ALPHA_NEXT:.*]] = pypto.tile.exp
// CHECK:           pypto.cross_core.push %{{.*}} to aic slots(4)
// CHECK-NEXT:      %[[SCALED:.*]] = pypto.tile.row_expand_mul %[[ACC]], %[[T0]]
// CHECK-NEXT:      %[[PV:.*]] = pypto.cross_core.pop from aic slots(8)
// CHECK-NEXT:      %[[SUM:.*]] = pypto.tile.add %[[SCALED]], %[[PV]]
// CHECK-NEXT:      scf.yield %{{.*}}, %[[SUM]], %[[T1]], %[[T2]], %[[ALPHA_NEXT]]
// CHECK-NEXT:    }
// CHECK:         %[[LAST:.*]], %{{.*}}, %{{.*}}, %{{.*}} = scf.for %{{.*}} iter_args(%[[EACC:.*]] = %[[ACC_END]], %[[U0:.*]] = %[[B0]], %[[U1:.*]] = %[[B1]], %[[U2:.*]] = %[[B2]])
// CHECK-NEXT:      %[[ESCALED:.*]] = pypto.tile.row_expand_mul %[[EACC]], %[[U0]]
// CHECK-NEXT:      %[[EPV:.*]] = pypto.cross_core.pop from aic slots(8)
// CHECK-NEXT:      %[[ESUM:.*]] = pypto.tile.add %[[ESCALED]], %[[EPV]]
// CHECK-NEXT:      scf.yield %[[ESUM]], %[[U1]], %[[U2]], %[[U2]]
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.tile.store %[[LAST]], %o
// CHECK-NOT:     pypto.cross_core
// CHECK:         pypto.return

// Two blocks ahead: 6 and 3 slots, α of two iterations.
// DEPTH2-LABEL: pypto.func aic @attn_aic
// DEPTH2:         pypto.cross_core.push %{{.*}} to aiv slots(6)
// DEPTH2:         pypto.cross_core.pop from aiv slots(3)
// DEPTH2-LABEL: pypto.func aiv @attn_aiv
// DEPTH2:         %{{.*}}, %[[A0:.*]], %[[A1:.*]] = scf.for %j = %{{.*}} iter_args(%{{.*}} = %m0, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) ->
// DEPTH2:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %acc = %o0, %{{.*}} = %[[A0]], %{{.*}} = %[[A1]]) ->
