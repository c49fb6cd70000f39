// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Host functions, window buffers, per-rank dispatch and a rank's window ops round-trip.

pypto.func orchestration @per_rank(%x: !pypto.tensor<[1, 64], f32>, %w: !pypto.dist_tensor<[1, 64], f32>, %s: !pypto.dist_tensor<[2, 1], i32>) {
  pypto.return
}
pypto.func incore @k(%w: !pypto.dist_tensor<[1, 64], f32>, %s: !pypto.dist_tensor<[2, 1], i32>, %x: !pypto.tensor<[1, 64], f32>) {
  %c0 = arith.constant 0 : index
  %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 64], f32> -> index
  %n = pypto.dist.nranks %w : !pypto.dist_tensor<[1, 64], f32> -> index
  %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
  %t = pypto.dist.remote_load %w[%c0, %c0], %r : !pypto.dist_tensor<[1, 64], f32>, index -> !pypto.tile<[1, 64], f32, vec>
  pypto.dist.remote_store %t, %w[%c0, %c0], %n : !pypto.tile<[1, 64], f32, vec>, !pypto.dist_tensor<[1, 64], f32>, index
  pypto.dist.put none %w, %r, %w : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
  pypto.dist.put add %w, %r, %x : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.tensor<[1, 64], f32>
  pypto.dist.get %w, %r, %w : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
  pypto.dist.barrier %s : !pypto.dist_tensor<[2, 1], i32>
  pypto.return
}
pypto.func host @main(%xr: !pypto.tensor<[1, 64], f32>) {
  %n = pypto.dist.world_size : index
  %buf = pypto.dist.alloc_window : !pypto.window_buffer<[1, 64], f32>
  %sb = pypto.dist.alloc_window : !pypto.window_buffer<[2, 1], i32>
  %c0 = arith.constant 0 : index
  %w = pypto.dist.window %buf : !pypto.window_buffer<[1, 64], f32> -> !pypto.dist_tensor<[1, 64], f32>
  %s = pypto.dist.window %sb : !pypto.window_buffer<[2, 1], i32> -> !pypto.dist_tensor<[2, 1], i32>
  pypto.dist.dispatch @per_rank(%xr, %w, %s) device %c0 : (!pypto.tensor<[1, 64], f32>, !pypto.dist_tensor<[1, 64], f32>, !pypto.dist_tensor<[2, 1], i32>), index
  pypto.return
}

// CHECK:      pypto.func incore @k(
// CHECK:        %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 64], f32> -> index
// CHECK-NEXT:   %n = pypto.dist.nranks %w : !pypto.dist_tensor<[1, 64], f32> -> index
// CHECK-NEXT:   %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
// CHECK-NEXT:   %t = pypto.dist.remote_load %w[%c0, %c0], %r : !pypto.dist_tensor<[1, 64], f32>, index -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:   pypto.dist.remote_store %t, %w[%c0, %c0], %n : !pypto.tile<[1, 64], f32, vec>, !pypto.dist_tensor<[1, 64], f32>, index
// CHECK-NEXT:   pypto.dist.put none %w, %r, %w : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
// CHECK-NEXT:   pypto.dist.put add %w, %r, %x : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.tensor<[1, 64], f32>
// CHECK-NEXT:   pypto.dist.get %w, %r, %w : !pypto.dist_tensor<[1, 64], f32>, index, !pypto.dist_tensor<[1, 64], f32>
// CHECK-NEXT:   pypto.dist.barrier %s : !pypto.dist_tensor<[2, 1], i32>
// CHECK:      pypto.func host @main(%xr: !pypto.tensor<[1, 64], f32>) {
// CHECK-NEXT:   %n = pypto.dist.world_size : index
// CHECK-NEXT:   %buf = pypto.dist.alloc_window : !pypto.window_buffer<[1, 64], f32>
// CHECK-NEXT:   %sb = pypto.dist.alloc_window : !pypto.window_buffer<[2, 1], i32>
// CHECK:        %w = pypto.dist.window %buf : !pypto.window_buffer<[1, 64], f32> -> !pypto.dist_tensor<[1, 64], f32>
// CHECK-NEXT:   %s = pypto.dist.window %sb : !pypto.window_buffer<[2, 1], i32> -> !pypto.dist_tensor<[2, 1], i32>
// CHECK-NEXT:   pypto.dist.dispatch @per_rank(%xr, %w, %s) device %c0 : (!pypto.tensor<[1, 64], f32>, !pypto.dist_tensor<[1, 64], f32>, !pypto.dist_tensor<[2, 1], i32>), index

// CHECK-GENERIC: "pypto.dist.put"(%{{.*}}, %{{.*}}, %{{.*}}) <{atomic = #pypto<atomic add>}>
// CHECK-GENERIC: "pypto.dist.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{callee = @per_rank}>
