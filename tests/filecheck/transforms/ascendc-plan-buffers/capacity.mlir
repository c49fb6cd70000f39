// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{double-buffer=false}' | filecheck %s --check-prefix=SINGLE
// RUN: not pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{ub-bytes=65536}' 2>&1 | filecheck %s --check-prefix=SMALL
// RUN: not pypto-opt %s -p 'ascendc-plan-buffers{ub-bytes=0}' 2>&1 | filecheck %s --check-prefix=OPTION
// Double buffering when everything fits, depth 1 for every queue of the memory otherwise,
// and a listing of the buffers when even that does not fit.

// Two 16 KiB queues in a loop: 2 x 2 x 16 KiB fits 192 KiB.
pypto.func incore @fits(%x: !pypto.tensor<[1024, 1024], f32>, out %y: !pypto.tensor<[1024, 1024], f32>) -> !pypto.tensor<[1024, 1024], f32> {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c1024 step %c4 iter_args(%acc = %y) -> (!pypto.tensor<[1024, 1024], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[1024, 1024], f32> -> !pypto.tile<[4, 1024], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[4, 1024], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[4, 1024], f32, vec>, !pypto.tensor<[1024, 1024], f32>
    scf.yield %w : !pypto.tensor<[1024, 1024], f32>
  }
  pypto.return %r : !pypto.tensor<[1024, 1024], f32>
}
// CHECK-LABEL: ascendc.kernel vector @fits
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 65536 : i64}}
// CHECK: %inQ_t = ascendc.tque "inQ_t" {{.*}} : !ascendc.queue<VECIN, 2>
// CHECK: %outQ_e = ascendc.tque "outQ_e" {{.*}} : !ascendc.queue<VECOUT, 2>
// CHECK: ascendc.init_buffer %pipe, %inQ_t num 2 len 16384
// SINGLE-LABEL: ascendc.kernel vector @fits
// SINGLE-SAME: used = 32768
// SINGLE: !ascendc.queue<VECIN, 1>
// SINGLE: ascendc.init_buffer %pipe, %inQ_t num 1 len 16384
// With 64 KiB of UB the second kernel does not fit even single-buffered.
// SMALL: ascendc-plan-buffers: cannot lower @single: its tiles need 131072 bytes of Unified Buffer but a core has 65536: %t !pypto.tile<[16, 1024], f32, vec> (VECIN, 65536 B), %e !pypto.tile<[16, 1024], f32, vec> (VECOUT, 65536 B). Use smaller tiles (loop over the tensor).

// -----

// Two 64 KiB queues in a loop: 2 x 2 x 64 KiB does not fit, 2 x 1 x 64 KiB does.
pypto.func incore @single(%x: !pypto.tensor<[1024, 1024], f32>, out %y: !pypto.tensor<[1024, 1024], f32>) -> !pypto.tensor<[1024, 1024], f32> {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %y) -> (!pypto.tensor<[1024, 1024], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[1024, 1024], f32> -> !pypto.tile<[16, 1024], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[16, 1024], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[16, 1024], f32, vec>, !pypto.tensor<[1024, 1024], f32>
    scf.yield %w : !pypto.tensor<[1024, 1024], f32>
  }
  pypto.return %r : !pypto.tensor<[1024, 1024], f32>
}
// CHECK-LABEL: ascendc.kernel vector @single
// CHECK-SAME: used = 131072
// CHECK: !ascendc.queue<VECIN, 1>
// CHECK: !ascendc.queue<VECOUT, 1>

// OPTION: ascendc-plan-buffers: ub-bytes must be positive, got 0
