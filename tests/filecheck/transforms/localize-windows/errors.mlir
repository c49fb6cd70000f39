// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p localize-windows | filecheck %s

// What a device of its own cannot do: register a deferred completion, use a window as a
// value, copy a whole window larger than a tile, or be a rank group's host.

pypto.func incore @k(%s: !pypto.dist_tensor<[1, 1], i32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  pypto.system.defer_wait ge %s[%c0, %c0], %one : !pypto.dist_tensor<[1, 1], i32>, i32
  pypto.return
}

// CHECK: pypto.system.defer_wait in @k: a deferred completion needs the task runtime of a device, which the sim target does not model; use pld.system.wait

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>) -> !pypto.dist_tensor<[1, 64], f32> {
  pypto.return %w : !pypto.dist_tensor<[1, 64], f32>
}

// CHECK: pypto.return in @k uses a window as a value: on a device a window is reached through its rank's communication region, by the window ops of a core

// -----

pypto.func incore @k(%d: !pypto.dist_tensor<[256, 128], f32>, %s: !pypto.dist_tensor<[256, 128], f32>, %p: index) {
  pypto.dist.get %d, %p, %s : !pypto.dist_tensor<[256, 128], f32>, index, !pypto.dist_tensor<[256, 128], f32>
  pypto.return
}

// CHECK: pypto.dist.get copies the whole window !pypto.tensor<[256, 128], f32> through one tile: at most 65536 bytes on the sim target (use pld.tile.remote_load / remote_store of parts)

// -----

pypto.func incore @k(%s: !pypto.dist_tensor<[4], i32>) {
  pypto.dist.barrier %s : !pypto.dist_tensor<[4], i32>
  pypto.return
}

// CHECK: pypto.dist.barrier synchronises through an [N, C] integer signal, got !pypto.dist_tensor<[4], i32>

// -----

pypto.func host @h() {
  pypto.return
}

// CHECK: @h is a host function: the program of a rank group, not of one device
