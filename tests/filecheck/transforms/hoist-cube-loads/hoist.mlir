// RUN: pypto-opt %s -p hoist-cube-loads | filecheck %s

// The AIC loads V_j (an `in` parameter) into L1 and moves it into L0B before it waits for P_j,
// with the index arithmetic the load needs; the pop, the popped tile's move and the matmul
// keep their order.

pypto.func aic @attn_aic(%kt: !pypto.tensor<[64, 128], f16>, %v: !pypto.tensor<[128, 64], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %qm = pypto.tile.load %kt[%c0, %c0] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
  %ql = pypto.tile.move %qm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
  scf.for %j = %c0 to %c2 step %c1 {
    %pm = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[64, 64], f16, mat>
    %pl = pypto.tile.move %pm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
    %row = arith.muli %j, %c64 : index
    %vm = pypto.tile.load %v[%row, %c0] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
    %vr = pypto.tile.move %vm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
    %o = pypto.tile.matmul %pl, %vr : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
    pypto.cross_core.push %o to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
  }
  pypto.return
}

// CHECK-LABEL: pypto.func aic @attn_aic
// CHECK:         scf.for %j
// CHECK-NEXT:      %row = arith.muli %j, %c64 : index
// CHECK-NEXT:      %vm = pypto.tile.load %v[%row, %c0]
// CHECK-NEXT:      %vr = pypto.tile.move %vm
// CHECK-NEXT:      %pm = pypto.cross_core.pop from aiv slots(2)
// CHECK-NEXT:      %pl = pypto.tile.move %pm
// CHECK-NEXT:      %o = pypto.tile.matmul %pl, %vr
// CHECK-NEXT:      pypto.cross_core.push %o to aiv slots(2)

// What stays: a load of an `out` parameter (the kernel may write it), an AIV member's load
// into UB.

pypto.func aic @stay_aic(%w: !pypto.tensor<[64, 64], f16>, out %o: !pypto.tensor<[64, 64], f16>) {
  %c0 = arith.constant 0 : index
  %pm = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[64, 64], f16, mat>
  %om = pypto.tile.load %o[%c0, %c0] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
  %pl = pypto.tile.move %pm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
  %or = pypto.tile.move %om : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
  %acc = pypto.tile.matmul %pl, %or : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
  pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
  pypto.return
}

// CHECK-LABEL: pypto.func aic @stay_aic
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %pm = pypto.cross_core.pop from aiv slots(2)
// CHECK-NEXT:    %om = pypto.tile.load %o[%c0, %c0]

pypto.func aiv @stay_aiv(%x: !pypto.tensor<[64, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) {
  %c0 = arith.constant 0 : index
  %s = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
  %u = pypto.tile.add %s, %t : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[64, 64], f32, vec> -> !pypto.tile<[64, 64], f32, vec>
  %y1 = pypto.tile.store %u, %y[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[64, 64], f32>
  pypto.return
}

// CHECK-LABEL: pypto.func aiv @stay_aiv
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %s = pypto.cross_core.pop from aic slots(2)
// CHECK-NEXT:    %t = pypto.tile.load %x[%c0, %c0]
