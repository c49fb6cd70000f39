// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p verify-expand-mixed-kernel | filecheck %s

// What verify-expand-mixed-kernel reports: functions still incore, kernels using the other
// core's tiles, cross-core ops without a peer, a function in two groups.

builtin.module {
  pypto.func incore @left(%a: !pypto.tensor<[8], f32>) {
    pypto.return
  }
}

// CHECK: verify-expand-mixed-kernel:
// CHECK-NEXT: @left is still an incore function: it was not given a core (aic/aiv)

// -----

builtin.module {
  pypto.func aic @wrong(%a: !pypto.tensor<[8, 8], f32>) {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[8, 8], f32> -> !pypto.tile<[8, 8], f32, vec>
    pypto.return
  }
  pypto.func aiv @lonely(%t: !pypto.tile<[8, 8], f32, vec>) {
    pypto.cross_core.push %t to aic slots(2) : !pypto.tile<[8, 8], f32, vec>
    pypto.return
  }
}

// CHECK: verify-expand-mixed-kernel:
// CHECK-NEXT: @wrong is an aic kernel but 'pypto.tile.load' runs on the vector (AIV) core
// CHECK-NEXT: @lonely uses cross-core rings or flags but no group launches it with a peer

// -----

builtin.module {
  pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) {
    pypto.return
  }
  pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
    pypto.return
  }
  pypto.func group @g1(%a: !pypto.tensor<[8], f32>) {
    pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
    pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
    pypto.return
  }
  pypto.func group @g2(%a: !pypto.tensor<[8], f32>) {
    pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
    pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
    pypto.return
  }
}

// CHECK: verify-expand-mixed-kernel:
// CHECK-NEXT: @m_aic is a member of both group @g1 and group @g2
// CHECK-NEXT: @m_aiv is a member of both group @g1 and group @g2

// -----

builtin.module {
  pypto.func incore @stuck(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %v = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
      %k = arith.addi %j, %c1 : index
      scf.yield %k : index
    }
    pypto.return
  }
  pypto.func aiv @cube_in_aiv(%m: !pypto.tensor<[16, 16], f16>) {
    %c0 = arith.constant 0 : index
    %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    pypto.return
  }
}

// CHECK: verify-expand-mixed-kernel:
// CHECK-NEXT: @stuck is still an incore function: it mixes cube and vector ops and cannot be split: an scf.while holds ops of both cores: only scf.for loops and scf.if branches are split; at `%r = scf.while (%i = %c0) : (index) -> index { ... }`
// CHECK-NEXT: @cube_in_aiv is an aiv kernel but 'pypto.tile.load' runs on the cube (AIC) core

// -----

builtin.module {
  pypto.func incore @not_split_yet(%a: !pypto.tensor<[16, 16], f16>, out %y: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %v = pypto.tile.move %acc : !pypto.tile<[16, 16], f32, acc> -> !pypto.tile<[16, 16], f32, vec>
    %y2 = pypto.tile.store %v, %y[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    pypto.return %y2 : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK: verify-expand-mixed-kernel:
// CHECK-NEXT: @not_split_yet is still an incore function: it mixes cube and vector ops
// CHECK-NOT: cannot be split
