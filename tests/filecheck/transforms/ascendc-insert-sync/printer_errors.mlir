// RUN: pypto-opt %s -t ascendc --split-input-file --verify-diagnostics | filecheck %s
// Annotations the printer cannot follow are rejected with a message naming the op (or the
// function) and what is inconsistent; the printer never re-plans an annotated kernel.

pypto.func incore @missing_buffer(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "outQ_t_out", position = "VECOUT", values = ["%t.out (store staging)"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 2048 : i64}}, ascendc.sync = "vector"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.handoff = {from = "MTE2", queue = "inQ_t", to = "V"}, ascendc.stage = "MTE2"} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %t, %o[%c0, %c0] {ascendc.staging = "outQ_t_out", ascendc.handoff = {from = "V", queue = "outQ_t_out", to = "MTE3"}, ascendc.store = "staged", ascendc.stage = "MTE3", ascendc.free = ["inQ_t"]} : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @missing_buffer: 'ascendc.buffer' names buffer 'inQ_t', which the kernel's 'ascendc.buffers' does not declare

// -----

pypto.func incore @direct_from_calc(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[8, 64], f32, vec>"]}, {bytes = 2048 : i64, depth = 1 : i64, name = "buf_e", position = "VECCALC", values = ["%e !pypto.tile<[8, 64], f32, vec>"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 4096 : i64}}, ascendc.sync = "vector"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.handoff = {from = "MTE2", queue = "inQ_t", to = "V"}, ascendc.stage = "MTE2"} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t {ascendc.buffer = "buf_e", ascendc.stage = "V", ascendc.free = ["inQ_t"]} : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] {ascendc.handoff = {from = "V", queue = "buf_e", to = "MTE3"}, ascendc.store = "direct", ascendc.stage = "MTE3"} : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.store' in @direct_from_calc: 'ascendc.store' is 'direct' but the stored tile lives in VECCALC buffer 'buf_e' (run ascendc-insert-sync after ascendc-plan-buffers)

// -----

pypto.func incore @no_handoff(%a: !pypto.tensor<[8, 64], f32>) attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[8, 64], f32, vec>"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 2048 : i64}}, ascendc.sync = "vector"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.stage = "MTE2", ascendc.free = ["inQ_t"]} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @no_handoff: it has no 'ascendc.handoff' {from, queue, to} (run ascendc-insert-sync)

// -----

pypto.func incore @free_unknown(%a: !pypto.tensor<[8, 64], f32>) attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[8, 64], f32, vec>"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 2048 : i64}}, ascendc.sync = "vector"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.handoff = {from = "MTE2", queue = "inQ_t", to = "V"}, ascendc.stage = "MTE2", ascendc.free = ["inQ_u"]} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @free_unknown: 'ascendc.free' frees 'inQ_u', which is not a planned input queue

// -----

pypto.func incore @bad_entry(%a: !pypto.tensor<[8, 64], f32>) attributes {ascendc.buffers = [{bytes = 2048 : i64, name = "inQ_t", position = "VECIN", values = ["%t"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 2048 : i64}}, ascendc.sync = "vector"} {
  pypto.return
}
// CHECK: ascendc: @bad_entry has an inconsistent ascendc.buffers entry {{.*}}: missing key 'depth'

// -----

pypto.func incore @bad_barrier(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[8, 64], f32, vec>"]}, {bytes = 2048 : i64, depth = 1 : i64, name = "outQ_e", position = "VECOUT", values = ["%e !pypto.tile<[8, 64], f32, vec>"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 4096 : i64}}, ascendc.sync = "vector"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.handoff = {from = "MTE2", queue = "inQ_t", to = "V"}, ascendc.stage = "MTE2"} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t {ascendc.buffer = "outQ_e", ascendc.stage = "V", ascendc.barrier = "MTE2", ascendc.free = ["inQ_t"]} : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] {ascendc.handoff = {from = "V", queue = "outQ_e", to = "MTE3"}, ascendc.store = "direct", ascendc.stage = "MTE3"} : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK: ascendc: cannot lower 'pypto.tile.exp' in @bad_barrier: 'ascendc.barrier' must be "V" (a PipeBarrier<PIPE_V> before the op), got "MTE2"

// -----

pypto.func incore @bad_kernel_barrier(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> attributes {ascendc.buffers = [{bytes = 2048 : i64, depth = 1 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[8, 64], f32, vec>"]}, {bytes = 2048 : i64, depth = 1 : i64, name = "outQ_e", position = "VECOUT", values = ["%e !pypto.tile<[8, 64], f32, vec>"]}], ascendc.memory = {UB = {capacity = 196608 : i64, used = 4096 : i64}}, ascendc.sync = "vector", ascendc.barrier = "none"} {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_t", ascendc.handoff = {from = "MTE2", queue = "inQ_t", to = "V"}, ascendc.stage = "MTE2"} : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t {ascendc.buffer = "outQ_e", ascendc.stage = "V", ascendc.free = ["inQ_t"]} : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] {ascendc.handoff = {from = "V", queue = "outQ_e", to = "MTE3"}, ascendc.store = "direct", ascendc.stage = "MTE3"} : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK: ascendc: @bad_kernel_barrier: the kernel's 'ascendc.barrier' must be "auto" (PIPE_V barriers left to the toolchain), got "none"
