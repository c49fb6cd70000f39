// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the device-level window ops, one case each.

pypto.func incore @k(%off: i32) {
  %w = pypto.dist.window_at %off : i32 -> !pypto.tensor<[1, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: the offset of pypto.dist.window_at is a byte offset (i64), got i32

// -----

pypto.func incore @k(%off: i64, %p: f32) {
  %w = pypto.dist.window_at %off rank %p : i64, f32 -> !pypto.tensor<[1, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: the rank of pypto.dist.window_at is an integer scalar, got f32

// -----

pypto.func incore @k(%off: i64) {
  %w = pypto.dist.window_at %off : i64 -> !pypto.tensor<[?, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: a window has a static shape, got !pypto.tensor<[?, 64], f32>

// -----

pypto.func orchestration @o() {
  %r = pypto.dist.device_rank : index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.device_rank in orchestration function @o: signals are sent and waited for on a core; put it in a pl.at scope
