// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A rank's windows as its device reaches them (localize-windows): byte offsets of the rank's
// communication region, its own window and a peer's, and the rank queries.

pypto.func incore @k(%off: i64, %p: index) {
  %w = pypto.dist.window_at %off : i64 -> !pypto.tensor<[1, 64], f32>
  %q = pypto.dist.window_at %off rank %p : i64, index -> !pypto.tensor<[1, 64], f32>
  %r = pypto.dist.device_rank : index
  %n = pypto.dist.device_nranks : index
  pypto.return
}

// CHECK:      %w = pypto.dist.window_at %off : i64 -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT: %q = pypto.dist.window_at %off rank %p : i64, index -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT: %r = pypto.dist.device_rank : index
// CHECK-NEXT: %n = pypto.dist.device_nranks : index

// CHECK-GENERIC: %w = "pypto.dist.window_at"(%off) : (i64) -> !pypto.tensor<[1, 64], f32>
// CHECK-GENERIC: "pypto.dist.device_rank"() : () -> index
