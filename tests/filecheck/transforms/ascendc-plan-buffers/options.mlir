// RUN: pypto-opt %s -p ascendc-plan-buffers | filecheck %s --check-prefix=DOUBLE
// RUN: pypto-opt %s -p 'ascendc-plan-buffers{double-buffer=false}' | filecheck %s --check-prefix=SINGLE
// RUN: pypto-opt %s -p 'ascendc-plan-buffers{ub-bytes=30000}' | filecheck %s --check-prefix=SMALL
// RUN: not pypto-opt %s -p 'ascendc-plan-buffers{ub-bytes=8192}' 2>&1 | filecheck %s --check-prefix=TINY
// Double buffering is dropped (every queue single-buffered) when the plan would not fit.

pypto.func incore @loop(%x: !pypto.tensor<[64, 128], f32>, out %y: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %y) -> (!pypto.tensor<[64, 128], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[16, 128], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
    scf.yield %w : !pypto.tensor<[64, 128], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 128], f32>
}

// DOUBLE: depth = 2 : i64, name = "inQ_t"{{.*}}depth = 2 : i64, name = "outQ_e"
// DOUBLE-SAME: ascendc.memory = {UB = {capacity = 196608 : i64, used = 32768 : i64}}
// SINGLE: depth = 1 : i64, name = "inQ_t"{{.*}}depth = 1 : i64, name = "outQ_e"
// SINGLE-SAME: ascendc.memory = {UB = {capacity = 196608 : i64, used = 16384 : i64}}
// SMALL: depth = 1 : i64, name = "inQ_t"{{.*}}depth = 1 : i64, name = "outQ_e"
// SMALL-SAME: ascendc.memory = {UB = {capacity = 30000 : i64, used = 16384 : i64}}
// TINY: ascendc-plan-buffers: cannot lower @loop: its tiles need 16384 bytes of Unified Buffer but a core has 8192
