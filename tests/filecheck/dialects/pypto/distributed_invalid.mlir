// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the host, window and rank-window ops, one case each.

pypto.func orchestration @f() {
  %n = pypto.dist.world_size : index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.world_size in orchestration function @f: it runs on the host of a rank group, in a host function (@pl.jit.host)

// -----

pypto.func host @h() {
  %b = pypto.dist.alloc_window : !pypto.window_buffer<[4, 4], f32>
  %w = pypto.dist.window %b : !pypto.window_buffer<[4, 4], f32> -> !pypto.dist_tensor<[4, 4], i32>
  pypto.return
}

// CHECK: Operation does not verify: the window !pypto.dist_tensor<[4, 4], i32> has element type i32 but its buffer !pypto.window_buffer<[4, 4], f32> holds f32

// -----

pypto.func host @h() {
  %b = pypto.dist.alloc_window : !pypto.window_buffer<[4, 4], f32>
  %w = pypto.dist.window %b : !pypto.window_buffer<[4, 4], f32> -> !pypto.dist_tensor<[8, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: the window !pypto.dist_tensor<[8, 4], f32> has 32 elements, more than its buffer !pypto.window_buffer<[4, 4], f32> (16)

// -----

pypto.func host @h() {
  %b = pypto.dist.alloc_window : !pypto.window_buffer<[4, 4], f32>
  %w = pypto.dist.window %b : !pypto.window_buffer<[4, 4], f32> -> !pypto.dist_tensor<[N, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: a window has a static shape, got !pypto.dist_tensor<[N, 4], f32>

// -----

pypto.func host @h() {
  %b = pypto.dist.alloc_window : !pypto.window_buffer<[N, 4], f32>
  pypto.return
}

// CHECK: a window buffer has a static shape, got [N, 4]

// -----

pypto.func incore @k() {
  pypto.return
}
pypto.func host @h() {
  %c0 = arith.constant 0 : index
  pypto.dist.dispatch @k() device %c0 : (), index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.dispatch launches an orchestration function on a rank; @k is a incore function

// -----

pypto.func orchestration @o(%x: !pypto.tensor<[4], f32>) {
  pypto.return
}
pypto.func host @h(%y: !pypto.tensor<[8], f32>) {
  %c0 = arith.constant 0 : index
  pypto.dist.dispatch @o(%y) device %c0 : (!pypto.tensor<[8], f32>), index
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @o has type !pypto.tensor<[8], f32>, which does not match parameter type !pypto.tensor<[4], f32> (shape differs)

// -----

pypto.func orchestration @o() {
  pypto.return
}
pypto.func host @h() {
  %f = arith.constant 0.0 : f32
  pypto.dist.dispatch @o() device %f : (), f32
  pypto.return
}

// CHECK: Operation does not verify: the device of pypto.dist.dispatch is a rank (an integer scalar), got f32

// -----

pypto.func orchestration @o() {
  pypto.return
}
pypto.func orchestration @p() {
  %c0 = arith.constant 0 : index
  pypto.dist.dispatch @o() device %c0 : (), index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.dispatch in orchestration function @p: it runs on the host of a rank group, in a host function (@pl.jit.host)

// -----

pypto.func host @h() {
  %b = pypto.dist.alloc_window : !pypto.window_buffer<[1, 4], f32>
  %w = pypto.dist.window %b : !pypto.window_buffer<[1, 4], f32> -> !pypto.dist_tensor<[1, 4], f32>
  %r = pypto.dist.rank %w : !pypto.dist_tensor<[1, 4], f32> -> index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.rank in host function @h: a window belongs to a rank only inside a function dispatched to it (pypto.dist.dispatch)

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>) {
  %l = pypto.dist.local %w : !pypto.dist_tensor<[1, 4], f32> -> !pypto.tensor<[1, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: the local view of the window !pypto.dist_tensor<[1, 4], f32> is !pypto.tensor<[1, 4], f32>, got !pypto.tensor<[1, 8], f32>

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.dist.remote_load %w[%c0], %c0 : !pypto.dist_tensor<[1, 4], f32>, index -> !pypto.tile<[1, 4], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: the window !pypto.dist_tensor<[1, 4], f32> has rank 2 but 1 offsets were given

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %t = pypto.dist.remote_load %w[%c0, %c0], %p : !pypto.dist_tensor<[1, 4], f32>, f32 -> !pypto.tile<[1, 4], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: the peer of pypto.dist.remote_load is a rank (an integer scalar), got f32

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.dist.remote_load %w[%c0, %c0], %c0 : !pypto.dist_tensor<[1, 4], f32>, index -> !pypto.tile<[1, 4], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.remote_load: the tile !pypto.tile<[1, 4], f16, vec> and the window !pypto.dist_tensor<[1, 4], f32> have different element types

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>, %t: !pypto.tile<[4], f32, vec>) {
  %c0 = arith.constant 0 : index
  pypto.dist.remote_store %t, %w[%c0, %c0], %c0 : !pypto.tile<[4], f32, vec>, !pypto.dist_tensor<[1, 4], f32>, index
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.remote_store: the tile !pypto.tile<[4], f32, vec> and the window !pypto.dist_tensor<[1, 4], f32> have different ranks

// -----

pypto.func orchestration @o(%w: !pypto.dist_tensor<[1, 4], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.dist.remote_load %w[%c0, %c0], %c0 : !pypto.dist_tensor<[1, 4], f32>, index -> !pypto.tile<[1, 4], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.remote_load in orchestration function @o: signals are sent and waited for on a core; put it in a pl.at scope

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>, %x: !pypto.tensor<[1, 8], f32>) {
  %c0 = arith.constant 0 : index
  pypto.dist.put none %w, %c0, %x : !pypto.dist_tensor<[1, 4], f32>, index, !pypto.tensor<[1, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: pypto.dist.put copies a whole window: the source !pypto.tensor<[1, 8], f32> does not match the destination !pypto.dist_tensor<[1, 4], f32>

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>, %t: !pypto.tile<[1, 4], f32, vec>) {
  %c0 = arith.constant 0 : index
  pypto.dist.put none %w, %c0, %t : !pypto.dist_tensor<[1, 4], f32>, index, !pypto.tile<[1, 4], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: the source of pypto.dist.put is a window or a tensor, got !pypto.tile<[1, 4], f32, vec>

// -----

pypto.func incore @k(%w: !pypto.dist_tensor<[1, 4], f32>) {
  pypto.dist.barrier %w : !pypto.dist_tensor<[1, 4], f32>
  pypto.return
}

// CHECK: Operation does not verify: a barrier synchronises through a signal matrix of integers, got !pypto.dist_tensor<[1, 4], f32>
