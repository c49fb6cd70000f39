// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers' | filecheck %s
// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{in-place=never}' | filecheck %s --check-prefix=NEVER
// `in-place=auto` computes results in place when only the double-buffered plan overflows:
// without in-place results this loop's queues fall back to depth 1 (NEVER); with them (the
// default) they stay double-buffered. Per iteration an [8, 1024] f32 tile (32 KiB) is loaded,
// row-broadcast (16 level-0 Subs of 64 columns, each reading %tx where it writes %e),
// exponentiated, and row-broadcast again into the stored tile.
pypto.func incore @rows(%x: !pypto.tensor<[16, 1024], f32>, %r: !pypto.tensor<[16, 1], f32>, out %y: !pypto.tensor<[16, 1024], f32>) -> !pypto.tensor<[16, 1024], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %yr = scf.for %i = %c0 to %c16 step %c8 iter_args(%acc = %y) -> (!pypto.tensor<[16, 1024], f32>) {
    %tx = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[16, 1024], f32> -> !pypto.tile<[8, 1024], f32, vec>
    %tr = pypto.tile.load %r[%i, %c0] : !pypto.tensor<[16, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
    %e = pypto.tile.row_expand_sub %tx, %tr : !pypto.tile<[8, 1024], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %f = pypto.tile.exp %e : !pypto.tile<[8, 1024], f32, vec>
    %g = pypto.tile.row_expand_mul %f, %tr : !pypto.tile<[8, 1024], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %w = pypto.tile.store %g, %acc[%i, %c0] : !pypto.tile<[8, 1024], f32, vec>, !pypto.tensor<[16, 1024], f32>
    scf.yield %w : !pypto.tensor<[16, 1024], f32>
  }
  pypto.return %yr : !pypto.tensor<[16, 1024], f32>
}
// CHECK-LABEL: ascendc.kernel vector @rows
// CHECK-SAME: used = 131392
// CHECK: %inQ_tx = ascendc.tque "inQ_tx" {values = ["%tx {{.*}}", "%e {{.*}}", "%f {{.*}}"]} : !ascendc.queue<VECIN, 2>
// CHECK-NOT: ascendc.get_buf "e"
// CHECK: %outQ_g = ascendc.tque "outQ_g" {{.*}} : !ascendc.queue<VECOUT, 2>
// CHECK: ascendc.sub %tx, %tx, %e_brcb mask 64 repeat 8 params(1, 1, 0, 128, 128, 1)
// CHECK: %[[X64:.*]] = ascendc.at %tx[64]
// CHECK-NEXT: %[[S64:.*]] = ascendc.at %tx[64]
// CHECK-NEXT: ascendc.sub %[[X64]], %[[S64]], %e_brcb mask 64 repeat 8 params(1, 1, 0, 128, 128, 1)
// CHECK: ascendc.exp %tx, %tx count 8192
// CHECK: %g = ascendc.alloc_tensor "g" %outQ_g
// CHECK: ascendc.mul %g, %tx, %g_brcb mask 64 repeat 8
// CHECK: ascendc.free_tensor %inQ_tx, %tx
// NEVER-LABEL: ascendc.kernel vector @rows
// NEVER-SAME: used = 131104
// NEVER: ascendc.tque "inQ_tx" {{.*}} : !ascendc.queue<VECIN, 1>
// NEVER: ascendc.tque "outQ_g" {{.*}} : !ascendc.queue<VECOUT, 1>
// NEVER: ascendc.sub %e, %tx, %e_brcb
