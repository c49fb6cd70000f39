// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{in-place=always}' | filecheck %s --check-prefix=ALWAYS
// RUN: not pypto-opt %s --split-input-file -p 'convert-pypto-to-ascendc,ascendc-plan-buffers{in-place=never}' 2>&1 | filecheck %s --check-prefix=NEVER
// RUN: not pypto-opt %s -p 'ascendc-plan-buffers{in-place=sometimes}' 2>&1 | filecheck %s --check-prefix=OPTION
// In-place results: a VECCALC tile first written by an elementwise instruction takes the
// buffer of a source tile that dies there, read where the instruction writes (same element
// type, a buffer at least as big, defined in the same block), and the source's FreeTensor
// moves after the result's last use. By default (`auto`) only in a kernel whose
// double-buffered plan does not fit otherwise (in_place_double_buffer.mlir).

// Four 64 KiB tiles (a, b, their sum, the scaled sum) need 256 KiB; with the sum computed
// over %ta (dead after the Add) three buffers fill the 192 KiB exactly.
pypto.func incore @add_scale(%a: !pypto.tensor<[128, 128], f32>, %b: !pypto.tensor<[128, 128], f32>, out %c: !pypto.tensor<[128, 128], f32>) -> !pypto.tensor<[128, 128], f32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[128, 128], f32> -> !pypto.tile<[128, 128], f32, vec>
  %ts = pypto.tile.add %ta, %tb : !pypto.tile<[128, 128], f32, vec>, !pypto.tile<[128, 128], f32, vec>
  %tc = pypto.tile.muls %ts, %two : !pypto.tile<[128, 128], f32, vec>, f32
  %w = pypto.tile.store %tc, %c[%c0, %c0] : !pypto.tile<[128, 128], f32, vec>, !pypto.tensor<[128, 128], f32>
  pypto.return %w : !pypto.tensor<[128, 128], f32>
}
// CHECK-LABEL: ascendc.kernel vector @add_scale
// CHECK-SAME: memory_plan = {UB = {capacity = 196608 : i64, used = 196608 : i64}}
// CHECK: %inQ_ta = ascendc.tque "inQ_ta" {values = ["%ta !pypto.tile<[128, 128], f32, vec>", "%ts !pypto.tile<[128, 128], f32, vec>"]}
// CHECK-NOT: ascendc.tbuf
// CHECK: ascendc.add %ta, %ta, %tb count 16384
// CHECK-NEXT: ascendc.free_tensor %inQ_tb, %tb
// CHECK-NEXT: %tc = ascendc.alloc_tensor "tc" %outQ_tc
// CHECK-NEXT: ascendc.muls %tc, %ta, %two count 16384
// CHECK-NEXT: ascendc.free_tensor %inQ_ta, %ta
// CHECK-NEXT: ascendc.data_copy %c_gm, %tc count 16384
// NEVER: error: ascendc-plan-buffers: cannot lower @add_scale: its tiles need 262144 bytes of Unified Buffer but a core has 196608
// OPTION: error: ascendc-plan-buffers: in-place must be one of auto, always, never, got 'sometimes'

// -----

// A kernel that fits keeps its buffers under `auto`. The sum takes the buffer of %tb, the
// source that dies at the Add (%ta is read again by the Mul), and keeps it through the
// Exp and the Mul (chained in place over one VECIN buffer, the Exp's result too).
pypto.func incore @fits(%a: !pypto.tensor<[32, 128], f32>, %b: !pypto.tensor<[32, 128], f32>, out %c: !pypto.tensor<[32, 128], f32>) -> !pypto.tensor<[32, 128], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
  %ts = pypto.tile.add %ta, %tb : !pypto.tile<[32, 128], f32, vec>, !pypto.tile<[32, 128], f32, vec>
  %te = pypto.tile.exp %ts : !pypto.tile<[32, 128], f32, vec>
  %tm = pypto.tile.mul %te, %ta : !pypto.tile<[32, 128], f32, vec>, !pypto.tile<[32, 128], f32, vec>
  %w = pypto.tile.store %tm, %c[%c0, %c0] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[32, 128], f32>
  pypto.return %w : !pypto.tensor<[32, 128], f32>
}
// CHECK-LABEL: ascendc.kernel vector @fits
// CHECK-SAME: used = 81920
// CHECK: %buf_ts = ascendc.tbuf "buf_ts"
// CHECK-NEXT: %buf_te = ascendc.tbuf "buf_te"
// CHECK: ascendc.add %ts, %ta, %tb count 4096
// CHECK: ascendc.exp %te, %ts count 4096
// ALWAYS-LABEL: ascendc.kernel vector @fits
// ALWAYS-SAME: used = 49152
// ALWAYS: %inQ_tb = ascendc.tque "inQ_tb" {values = ["%tb {{.*}}", "%ts {{.*}}", "%te {{.*}}"]}
// ALWAYS-NOT: ascendc.tbuf
// ALWAYS: ascendc.add %tb, %ta, %tb count 4096
// ALWAYS-NEXT: ascendc.exp %tb, %tb count 4096
// ALWAYS-NEXT: %tm = ascendc.alloc_tensor "tm" %outQ_tm
// ALWAYS-NEXT: ascendc.mul %tm, %tb, %ta count 4096
// ALWAYS-NEXT: ascendc.free_tensor %inQ_tb, %tb
// ALWAYS-NEXT: ascendc.free_tensor %inQ_ta, %ta

// -----

// Never in place: a source loaded before the loop (it lives for every iteration) inside the
// loop, and a cast (another element size). After the loop %tx dies at the row broadcast,
// whose level-0 instruction reads it where it writes %e: %e, then %m, are computed over %tx.
pypto.func incore @kept(%x: !pypto.tensor<[8, 64], f32>, %r: !pypto.tensor<[8, 1], f32>, out %y: !pypto.tensor<[8, 64], f16>, out %z: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f16>, !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f16
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %tr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
  %yr = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %y) -> (!pypto.tensor<[8, 64], f16>) {
    %s = pypto.tile.adds %tx, %one : !pypto.tile<[8, 64], f32, vec>, f32
    %h = pypto.tile.cast %s : !pypto.tile<[8, 64], f32, vec> -> !pypto.tile<[8, 64], f16, vec>
    %g = pypto.tile.adds %h, %half : !pypto.tile<[8, 64], f16, vec>, f16
    %w = pypto.tile.store %g, %acc[%c0, %c0] : !pypto.tile<[8, 64], f16, vec>, !pypto.tensor<[8, 64], f16>
    scf.yield %w : !pypto.tensor<[8, 64], f16>
  }
  %e = pypto.tile.row_expand_sub %tx, %tr : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %m = pypto.tile.muls %e, %one : !pypto.tile<[8, 64], f32, vec>, f32
  %n = pypto.tile.adds %m, %one : !pypto.tile<[8, 64], f32, vec>, f32
  %wz = pypto.tile.store %n, %z[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %yr, %wz : !pypto.tensor<[8, 64], f16>, !pypto.tensor<[8, 64], f32>
}
// ALWAYS-LABEL: ascendc.kernel vector @kept
// ALWAYS: scf.for
// ALWAYS-NEXT: %s = ascendc.get_buf "s"
// ALWAYS-NEXT: ascendc.adds %s, %tx, %one count 512
// ALWAYS-NEXT: %h = ascendc.get_buf "h"
// ALWAYS-NEXT: ascendc.cast %h, %s round CAST_NONE count 512
// ALWAYS-NEXT: %g = ascendc.alloc_tensor "g"
// ALWAYS-NEXT: ascendc.adds %g, %h, %half count 512
// ALWAYS-NOT: ascendc.get_buf "e"
// ALWAYS: ascendc.sub %tx, %tx, %e_brcb mask 64 repeat 8 params(1, 1, 0, 8, 8, 1)
// ALWAYS-NEXT: ascendc.free_tensor %inQ_tr, %tr
// ALWAYS-NEXT: ascendc.muls %tx, %tx, %one count 512
// ALWAYS-NEXT: %n = ascendc.alloc_tensor "n"
// ALWAYS-NEXT: ascendc.adds %n, %tx, %one count 512
// ALWAYS-NEXT: ascendc.free_tensor %inQ_tx, %tx

// -----

// Not in place: %tx is read again after the row broadcast (by the Add), so it does not die
// there; %e then dies at the Exp, whose result is computed over it.
pypto.func incore @alive(%x: !pypto.tensor<[8, 1024], f32>, %r: !pypto.tensor<[8, 1], f32>, out %y: !pypto.tensor<[8, 1024], f32>) -> !pypto.tensor<[8, 1024], f32> {
  %c0 = arith.constant 0 : index
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 1024], f32> -> !pypto.tile<[8, 1024], f32, vec>
  %tr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
  %e = pypto.tile.row_expand_sub %tx, %tr : !pypto.tile<[8, 1024], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %f = pypto.tile.exp %e : !pypto.tile<[8, 1024], f32, vec>
  %g = pypto.tile.add %f, %tx : !pypto.tile<[8, 1024], f32, vec>, !pypto.tile<[8, 1024], f32, vec>
  %w = pypto.tile.store %g, %y[%c0, %c0] : !pypto.tile<[8, 1024], f32, vec>, !pypto.tensor<[8, 1024], f32>
  pypto.return %w : !pypto.tensor<[8, 1024], f32>
}
// ALWAYS-LABEL: ascendc.kernel vector @alive
// ALWAYS: %e = ascendc.get_buf "e"
// ALWAYS: ascendc.sub %e, %tx, %e_brcb mask 64 repeat 8
// ALWAYS-NOT: ascendc.get_buf "f"
// ALWAYS: ascendc.exp %e, %e count 8192
// ALWAYS: ascendc.add %g, %e, %tx count 8192

// -----

// Not in place: the Mul reads the dying %tx twice (as both sources), so its result keeps a
// buffer of its own.
pypto.func incore @square(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %tx = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %sq = pypto.tile.mul %tx, %tx : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %sq : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %e, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// ALWAYS-LABEL: ascendc.kernel vector @square
// ALWAYS: %sq = ascendc.get_buf "sq"
// ALWAYS: ascendc.mul %sq, %tx, %tx count 512
