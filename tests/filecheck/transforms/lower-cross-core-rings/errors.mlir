// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p lower-cross-core-rings | filecheck %s

// What the pass cannot lower names the op and the function: the slot of a transfer after an
// inner loop whose run-time bounds change with the enclosing loop's iteration (the count of
// the earlier iterations is not one product), or after a branch that transfers on one side
// only. A transfer after a loop with run-time bounds that do not change is fine
// (runtime_trips.mlir).

pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %bm = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    }
    %last = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %last to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  }
  pypto.return
}
pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    }
    %w = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  }
  pypto.return
}
pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, %n: index) {
  pypto.call @k_aic(%a, %n) : (!pypto.tensor<[16, 16], f16>, index) -> ()
  pypto.call @k_aiv(%a, %n) : (!pypto.tensor<[16, 16], f16>, index) -> ()
  pypto.return
}

// CHECK: lower-cross-core-rings: 'pypto.cross_core.push' in @k_aic: its slot depends on the run-time trip count of 'scf.for' in @k_aic, whose bounds change from one iteration of an enclosing loop to the next (or are not known there)
// -----

pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, %c: i1) {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %bm = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  scf.if %c {
    pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  }
  pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}
pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, %c: i1) {
  scf.if %c {
    %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  }
  %w = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}
pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, %c: i1) {
  pypto.call @k_aic(%a, %c) : (!pypto.tensor<[16, 16], f16>, i1) -> ()
  pypto.call @k_aiv(%a, %c) : (!pypto.tensor<[16, 16], f16>, i1) -> ()
  pypto.return
}

// CHECK: lower-cross-core-rings: 'scf.if' in @k_aic: its branches transfer on the c2v ring 1 and 0 times; both must transfer equally often

// -----

pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  pypto.cross_core.push %am to aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
  pypto.return
}
pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>) {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f16, vec>
  pypto.return
}
pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>) {
  pypto.call @k_aic(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.call @k_aiv(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.return
}

// CHECK: lower-cross-core-rings: 'pypto.cross_core.push' in @k_aic: a 'mat' (L1) tile has no path to global memory on dav-c220; push the 'acc' result or load the tile from its tensor

// -----

pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %bm = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  pypto.cross_core.push %acc to aiv slots(16) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}
pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>) {
  %v = pypto.cross_core.pop from aic slots(16) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}
pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>) {
  pypto.call @k_aic(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.call @k_aiv(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.return
}

// CHECK: lower-cross-core-rings: 'pypto.cross_core.push' in @k_aic: a ring of 16 slots needs 16 FREE credits at once, but a cross-core flag counts to 15; use at most slots(15)
