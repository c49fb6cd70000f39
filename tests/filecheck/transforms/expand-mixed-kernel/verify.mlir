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
