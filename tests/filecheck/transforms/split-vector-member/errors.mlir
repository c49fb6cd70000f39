// RUN: pypto-opt %s --verify-diagnostics -p split-vector-member | filecheck %s

// The pass splits members whose rings are in global memory: a push or pop (before
// lower-cross-core-rings) is an error naming the op, the member and the group.

builtin.module {
  pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    pypto.return
  }
  pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %o2 = pypto.tile.store %v, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    pypto.call @k_aic(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
    %r = pypto.call @k_aiv(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
    pypto.return %r : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK: split-vector-member: 'pypto.cross_core.pop' in @k_aiv: the rings of group @k are lowered to global memory first (lower-cross-core-rings)
