// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers | filecheck %s
// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers | pypto-opt --split-input-file | filecheck %s
// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers --print-op-generic | pypto-opt --split-input-file | filecheck %s
// Vector kernels: loaded tiles get VECIN queues, a tile whose last use is its store a VECOUT
// queue, other compute results VECCALC TBufs.

pypto.func incore @fused(%a: !pypto.tensor<[16, 64], f32>, %b: !pypto.tensor<[16, 64], f32>, %c: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %m = pypto.tile.mul %ta, %tb : !pypto.tile<[16, 64], f32, vec>
  %tc = pypto.tile.load %c[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %s = pypto.tile.add %m, %tc : !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %s, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}

// CHECK-LABEL: pypto.func incore @fused
// CHECK-SAME: ascendc.buffers = [
// CHECK-SAME: {bytes = 4096 : i64, depth = 1 : i64, name = "inQ_ta", position = "VECIN", values = ["%ta !pypto.tile<[16, 64], f32, vec>"]},
// CHECK-SAME: {bytes = 4096 : i64, depth = 1 : i64, name = "inQ_tb", position = "VECIN", values = ["%tb !pypto.tile<[16, 64], f32, vec>"]},
// CHECK-SAME: {bytes = 4096 : i64, depth = 1 : i64, name = "buf_m", position = "VECCALC", values = ["%m !pypto.tile<[16, 64], f32, vec>"]},
// CHECK-SAME: {bytes = 4096 : i64, depth = 1 : i64, name = "inQ_tc", position = "VECIN", values = ["%tc !pypto.tile<[16, 64], f32, vec>"]},
// CHECK-SAME: {bytes = 4096 : i64, depth = 1 : i64, name = "outQ_s", position = "VECOUT", values = ["%s !pypto.tile<[16, 64], f32, vec>"]}]
// CHECK-SAME: ascendc.memory = {UB = {capacity = 196608 : i64, used = 20480 : i64}}
// CHECK: %ta = pypto.tile.load %a[%c0, %c0] {ascendc.buffer = "inQ_ta"}
// CHECK: %tb = pypto.tile.load %b[%c0, %c0] {ascendc.buffer = "inQ_tb"}
// CHECK: %m = pypto.tile.mul %ta, %tb {ascendc.buffer = "buf_m"}
// CHECK: %tc = pypto.tile.load %c[%c0, %c0] {ascendc.buffer = "inQ_tc"}
// CHECK: %s = pypto.tile.add %m, %tc {ascendc.buffer = "outQ_s"}
// The direct store needs no staging buffer:
// CHECK: %w = pypto.tile.store %s, %o[%c0, %c0] :
// CHECK-NOT: ascendc.

// -----

// Tiles defined in a loop: their queues are double-buffered while everything fits.

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

// CHECK-LABEL: pypto.func incore @loop
// CHECK-SAME: ascendc.buffers = [
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "inQ_t", position = "VECIN", values = ["%t !pypto.tile<[16, 128], f32, vec>"]},
// CHECK-SAME: {bytes = 8192 : i64, depth = 2 : i64, name = "outQ_e", position = "VECOUT", values = ["%e !pypto.tile<[16, 128], f32, vec>"]}]
// CHECK-SAME: ascendc.memory = {UB = {capacity = 196608 : i64, used = 32768 : i64}}
// CHECK: pypto.tile.load {{.*}} {ascendc.buffer = "inQ_t"}
// CHECK: pypto.tile.exp {{.*}} {ascendc.buffer = "outQ_e"}
// A loop carrying tensors holds no tile: no buffer on the scf.for.
// CHECK: scf.yield
// CHECK-NEXT: }{{$}}

// -----

// Temporaries whose live ranges do not overlap share one TBuf: %t1 is dead once %t2 is
// computed, so %t3 reuses its buffer; %t2 (still read by %t3) gets its own.

pypto.func incore @share(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %t1 = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %t2 = pypto.tile.abs %t1 : !pypto.tile<[8, 64], f32, vec>
  %t3 = pypto.tile.relu %t2 : !pypto.tile<[8, 64], f32, vec>
  %t4 = pypto.tile.sqrt %t3 : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %t4, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @share
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "calcBuf0", position = "VECCALC", values = ["%t1 !pypto.tile<[8, 64], f32, vec>", "%t3 !pypto.tile<[8, 64], f32, vec>"]}
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "buf_t2", position = "VECCALC", values = ["%t2 !pypto.tile<[8, 64], f32, vec>"]}
// CHECK-SAME: name = "outQ_t4", position = "VECOUT"
// CHECK-SAME: ascendc.memory = {UB = {capacity = 196608 : i64, used = 8192 : i64}}
// CHECK: %t1 = pypto.tile.exp %t {ascendc.buffer = "calcBuf0"}
// CHECK: %t2 = pypto.tile.abs %t1 {ascendc.buffer = "buf_t2"}
// CHECK: %t3 = pypto.tile.relu %t2 {ascendc.buffer = "calcBuf0"}
// CHECK: %t4 = pypto.tile.sqrt %t3 {ascendc.buffer = "outQ_t4"}

// -----

// A tile used after its store (and a loaded tile, which lives in a VECIN queue) is stored
// through a VECOUT staging queue recorded on the store.

pypto.func incore @staged(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>, out %z: !pypto.tensor<[8, 64], f32>, out %v: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %wy = pypto.tile.store %e, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  %a = pypto.tile.abs %e : !pypto.tile<[8, 64], f32, vec>
  %wz = pypto.tile.store %a, %z[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  %wv = pypto.tile.store %t, %v[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %wy, %wz, %wv : !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @staged
// CHECK-SAME: name = "buf_e", position = "VECCALC"
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "outQ_e_out", position = "VECOUT", values = ["%e.out (store staging)"]}
// CHECK-SAME: name = "outQ_a", position = "VECOUT"
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "outQ_t_out", position = "VECOUT", values = ["%t.out (store staging)"]}
// CHECK: %e = pypto.tile.exp %t {ascendc.buffer = "buf_e"}
// CHECK: %wy = pypto.tile.store %e, %y[%c0, %c0] {ascendc.staging = "outQ_e_out"}
// CHECK: %a = pypto.tile.abs %e {ascendc.buffer = "outQ_a"}
// CHECK: %wz = pypto.tile.store %a, %z[%c0, %c0] :
// CHECK: %wv = pypto.tile.store %t, %v[%c0, %c0] {ascendc.staging = "outQ_t_out"}

// -----

// A row reduction over rows wider than one 256-byte repeat (128 f32 > 64 lanes) folds the
// column chunks into a [rows, 64] scratch TBuf first.

pypto.func incore @reduce(%x: !pypto.tensor<[8, 128], f32>, out %y: !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 1], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 128], f32> -> !pypto.tile<[8, 128], f32, vec>
  %s = pypto.tile.row_sum %t : !pypto.tile<[8, 128], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[8, 1], f32, vec>, !pypto.tensor<[8, 1], f32>
  pypto.return %w : !pypto.tensor<[8, 1], f32>
}

// CHECK-LABEL: pypto.func incore @reduce
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "buf_s_tmp", position = "VECCALC", values = ["%s.scratch (two-stage reduction)"]}
// CHECK: %s = pypto.tile.row_sum %t {ascendc.buffer = "outQ_s", ascendc.scratch = "buf_s_tmp"}

// -----

// A row broadcast (`row_expand_*`, [R, C] with [R, 1]) gets a VECCALC scratch buffer for the
// Brcb of its row values: one 32-byte block per row, rows rounded up to the 8 rows of one
// Brcb repeat (20 rows -> 24 blocks = 768 bytes). [R, 1] with [R, 1] needs none.

pypto.func incore @broadcast(%x: !pypto.tensor<[20, 64], f32>, %r: !pypto.tensor<[20, 1], f32>, out %y: !pypto.tensor<[20, 64], f32>, out %z: !pypto.tensor<[20, 1], f32>) -> (!pypto.tensor<[20, 64], f32>, !pypto.tensor<[20, 1], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[20, 64], f32> -> !pypto.tile<[20, 64], f32, vec>
  %lr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[20, 1], f32> -> !pypto.tile<[20, 1], f32, vec>
  %b = pypto.tile.row_expand_div %t, %lr : !pypto.tile<[20, 64], f32, vec>, !pypto.tile<[20, 1], f32, vec>
  %q = pypto.tile.row_expand_mul %lr, %lr : !pypto.tile<[20, 1], f32, vec>, !pypto.tile<[20, 1], f32, vec>
  %wy = pypto.tile.store %b, %y[%c0, %c0] : !pypto.tile<[20, 64], f32, vec>, !pypto.tensor<[20, 64], f32>
  %wz = pypto.tile.store %q, %z[%c0, %c0] : !pypto.tile<[20, 1], f32, vec>, !pypto.tensor<[20, 1], f32>
  pypto.return %wy, %wz : !pypto.tensor<[20, 64], f32>, !pypto.tensor<[20, 1], f32>
}

// CHECK-LABEL: pypto.func incore @broadcast
// CHECK-SAME: {bytes = 768 : i64, depth = 1 : i64, name = "buf_b_brcb", position = "VECCALC", values = ["%b.scratch (row broadcast)"]}
// CHECK-NOT: q.scratch
// CHECK: %b = pypto.tile.row_expand_div %t, %lr {ascendc.buffer = "outQ_b", ascendc.scratch = "buf_b_brcb"}
// CHECK: %q = pypto.tile.row_expand_mul %lr, %lr {ascendc.buffer = "outQ_q"} :

// -----

// A tile carried through scf.while keeps one fixed VECCALC buffer (never shared), named after
// the loop result; the initial value's range ends where the loop starts.

pypto.func incore @while_tile(%x: !pypto.tensor<[8, 64], f32>, %n: index, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %i, %r = scf.while (%j = %c0, %acc = %t) : (index, !pypto.tile<[8, 64], f32, vec>) -> (index, !pypto.tile<[8, 64], f32, vec>) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %acc : index, !pypto.tile<[8, 64], f32, vec>
  } do {
  ^bb0(%jj: index, %a: !pypto.tile<[8, 64], f32, vec>):
    %e = pypto.tile.exp %a : !pypto.tile<[8, 64], f32, vec>
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %e : index, !pypto.tile<[8, 64], f32, vec>
  }
  %w = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @while_tile
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "buf_e", position = "VECCALC", values = ["%e !pypto.tile<[8, 64], f32, vec>"]}
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "buf_r", position = "VECCALC", values = ["%r !pypto.tile<[8, 64], f32, vec>"]}
// CHECK-SAME: {bytes = 2048 : i64, depth = 1 : i64, name = "outQ_r_out", position = "VECOUT", values = ["%r.out (store staging)"]}
// CHECK: scf.while
// CHECK: %e = pypto.tile.exp %a {ascendc.buffer = "buf_e"}
// CHECK: } attributes {ascendc.buffer = ["", "buf_r"]}
// CHECK: %w = pypto.tile.store %r, %y[%c0, %c0] {ascendc.staging = "outQ_r_out"}
