// RUN: pypto-opt %s --split-input-file -p localize-windows | filecheck %s

// A rank's program as one device's: window parameters become byte offsets (i64) of the
// rank's communication region; local views are `pypto.dist.window_at`, calls follow their
// callees' new signatures.

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
  %c0 = arith.constant 0 : index
  %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
  %t = pypto.tile.load %l[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
  %r = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
  pypto.return %r : !pypto.tensor<[1, 64], f32>
}
pypto.func orchestration @o(%w: !pypto.dist_tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
  %r = pypto.call @k(%w, %y) : (!pypto.dist_tensor<[1, 64], f32>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
  pypto.return %r : !pypto.tensor<[1, 64], f32>
}

// CHECK:      pypto.func incore @k(%w: i64, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %w_1 = pypto.dist.window_at %w : i64 -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT:   %t = pypto.tile.load %w_1[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK:      pypto.func orchestration @o(%w: i64, out %y: !pypto.tensor<[1, 64], f32>)
// CHECK-NEXT:   %r = pypto.call @k(%w, %y) : (i64, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>

// -----

// Rank queries, a remote load and store: the peer's window is `window_at ... rank %peer`.

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 64], f32> -> index
  %n = pypto.dist.nranks %w : !pypto.dist_tensor<[1, 64], f32> -> index
  %a = arith.addi %r, %c1 : index
  %p = arith.remsi %a, %n : index
  %t = pypto.dist.remote_load %w[%c0, %c0], %p : !pypto.dist_tensor<[1, 64], f32>, index -> !pypto.tile<[1, 64], f32, vec>
  pypto.dist.remote_store %t, %w[%c0, %c0], %p : !pypto.tile<[1, 64], f32, vec>, !pypto.dist_tensor<[1, 64], f32>, index
  pypto.return
}

// CHECK:      %r = pypto.dist.device_rank : index
// CHECK-NEXT: %n = pypto.dist.device_nranks : index
// CHECK:      %w_peer = pypto.dist.window_at %w rank %p : i64, index -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT: %t = pypto.tile.load %w_peer[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT: %w_peer_1 = pypto.dist.window_at %w rank %p : i64, index -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT: %{{.*}} = pypto.tile.store %t, %w_peer_1[%c0, %c0]

// -----

// put (atomic add) / get: the whole window through one tile.

pypto.func incore @k(%d: !pypto.dist_tensor<[1, 64], f32>, %s: !pypto.dist_tensor<[1, 64], f32>, %p: index) {
  pypto.dist.put add %d, %p, %s : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
  pypto.dist.get %d, %p, %s : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
  pypto.return
}

// CHECK:      %d_peer = pypto.dist.window_at %d rank %p : i64, index -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT: %s_1 = pypto.dist.window_at %s : i64 -> !pypto.tensor<[1, 64], f32>
// CHECK:      %[[T:.*]] = pypto.tile.load %s_1[%{{.*}}, %{{.*}}] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT: pypto.tile.atomic_store %[[T]], %d_peer[%{{.*}}, %{{.*}}] atomic(add)
// CHECK:      %s_peer = pypto.dist.window_at %s rank %p
// CHECK:      pypto.tile.store %{{.*}}, %d_1[

// -----

// notify (atomic add: a 1x1 tile stored atomically; set: one element written) and wait (a
// loop reading the local signal element until it compares).

pypto.func incore @k(%s: !pypto.dist_tensor<[1, 1], i32>, %p: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  pypto.system.notify atomic_add %s[%c0, %c0], %p, %one : !pypto.dist_tensor<[1, 1], i32>, index, i32
  pypto.system.notify set %s[%c0, %c0], %p, %one : !pypto.dist_tensor<[1, 1], i32>, index, i32
  pypto.system.wait ge %s[%c0, %c0], %one : !pypto.dist_tensor<[1, 1], i32>, i32
  pypto.return
}

// CHECK:      %s_peer = pypto.dist.window_at %s rank %p : i64, index -> !pypto.tensor<[1, 1], i32>
// CHECK-NEXT: %[[C:.*]] = pypto.tile.full %one : i32 -> !pypto.tile<[1, 1], i32, vec>
// CHECK-NEXT: pypto.tile.atomic_store %[[C]], %s_peer[%c0, %c0] atomic(add)
// CHECK:      pypto.tensor.write %one into %s_peer_1[%c0, %c0]
// CHECK:      %s_1 = pypto.dist.window_at %s : i64 -> !pypto.tensor<[1, 1], i32>
// CHECK-NEXT: scf.while () : () -> () {
// CHECK-NEXT:   %signal_value = pypto.tensor.read %s_1[%c0, %c0] : !pypto.tensor<[1, 1], i32>
// CHECK-NEXT:   %{{.*}} = arith.cmpi sge, %signal_value, %one : i32

// -----

// barrier: +1 into row `rank` of every peer's signal, wait for every peer's row >= 1, take
// the credits back.

pypto.func incore @k(%s: !pypto.dist_tensor<[2, 1], i32>) {
  pypto.dist.barrier %s : !pypto.dist_tensor<[2, 1], i32>
  pypto.return
}

// CHECK:      %[[ME:.*]] = pypto.dist.device_rank : index
// CHECK-NEXT: %[[N:.*]] = pypto.dist.device_nranks : index
// CHECK:      arith.constant -1 : i32
// CHECK:      scf.for %[[P:.*]] = %{{.*}} to %[[N]]
// CHECK:        pypto.dist.window_at %s rank %[[P]]
// CHECK:        pypto.tile.atomic_store %{{.*}}[%[[ME]], %{{.*}}] atomic(add)
// CHECK:      scf.for
// CHECK:        scf.while
// CHECK:      scf.for
// CHECK:        pypto.tile.atomic_store
// CHECK-NOT:  pypto.dist.barrier
