// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the cross-rank signal ops, one case each.

pypto.func incore @f(%sig: !pypto.dist_tensor<[2, 4], i32>, %i: index) {
  %one = arith.constant 1 : i32
  pypto.system.wait ge %sig[%i], %one : !pypto.dist_tensor<[2, 4], i32>, i32
  pypto.return
}

// CHECK: pypto.system.wait: the signal !pypto.dist_tensor<[2, 4], i32> has rank 2 but 1 offsets were given

// -----

pypto.func incore @f(%sig: !pypto.dist_tensor<[1], f32>, %i: index) {
  %one = arith.constant 1 : i32
  pypto.system.wait ge %sig[%i], %one : !pypto.dist_tensor<[1], f32>, i32
  pypto.return
}

// CHECK: pypto.system.wait: a signal matrix holds integers, got !pypto.dist_tensor<[1], f32>

// -----

pypto.func incore @f(%sig: !pypto.dist_tensor<[1], i32>, %i: index, %peer: i32) {
  %v = arith.constant 1.000000e+00 : f32
  pypto.system.notify set %sig[%i], %peer, %v : !pypto.dist_tensor<[1], i32>, i32, f32
  pypto.return
}

// CHECK: pypto.system.notify: operand 'value' must be an integer scalar, got f32

// -----

pypto.func orchestration @main(%sig: !pypto.dist_tensor<[1], i32>, %i: index) {
  %one = arith.constant 1 : i32
  pypto.system.wait ge %sig[%i], %one : !pypto.dist_tensor<[1], i32>, i32
  pypto.return
}

// CHECK: pypto.system.wait in orchestration function @main: signals are sent and waited for on a core; put it in a pl.at scope

// -----

pypto.func incore @f(%sig: !pypto.dist_tensor<[1], i32>, %i: index) {
  %one = arith.constant 1 : i32
  pypto.system.defer_wait eq %sig[%i], %one : !pypto.dist_tensor<[1], i32>, i32
  pypto.return
}

// CHECK: pypto.system.defer_wait registers 'signal >= expected' conditions only (pld.WaitCmp.Ge), got eq

// -----

pypto.func incore @f(%sig: !pypto.dist_tensor<[1], i64>, %i: index) {
  %one = arith.constant 1 : i32
  pypto.system.defer_wait ge %sig[%i], %one : !pypto.dist_tensor<[1], i64>, i32
  pypto.return
}

// CHECK: pypto.system.defer_wait waits on an i32 signal matrix, got !pypto.dist_tensor<[1], i64>
