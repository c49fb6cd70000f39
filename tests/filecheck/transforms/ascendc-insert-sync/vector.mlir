// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers,ascendc-insert-sync | filecheck %s
// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers,ascendc-insert-sync --print-op-generic | pypto-opt --split-input-file | filecheck %s
// Vector kernels: MTE2 loads hand their tile to V through its VECIN queue, V hands stored
// tiles to MTE3 through a VECOUT queue (the tile's own for a direct store, the staging queue
// otherwise); a loaded tile is freed after its last use in the block defining it.

pypto.func incore @fused(%a: !pypto.tensor<[16, 64], f32>, %b: !pypto.tensor<[16, 64], f32>, out %o: !pypto.tensor<[16, 64], f32>, out %p: !pypto.tensor<[16, 64], f32>) -> (!pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>) {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %m = pypto.tile.mul %ta, %tb : !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %m, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  %e = pypto.tile.exp %ta : !pypto.tile<[16, 64], f32, vec>
  %x = pypto.tile.store %e, %p[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w, %x : !pypto.tensor<[16, 64], f32>, !pypto.tensor<[16, 64], f32>
}

// CHECK-LABEL: pypto.func incore @fused
// CHECK-SAME: ascendc.sync = "vector"
// CHECK: %ta = pypto.tile.load {{.*}}{ascendc.buffer = "inQ_ta", ascendc.handoff = {from = "MTE2", queue = "inQ_ta", to = "V"}, ascendc.stage = "MTE2"}
// CHECK: %tb = pypto.tile.load {{.*}}{ascendc.buffer = "inQ_tb", ascendc.handoff = {from = "MTE2", queue = "inQ_tb", to = "V"}, ascendc.stage = "MTE2"}
// %tb's last use is the mul; %ta is read again by the exp.
// CHECK: %m = pypto.tile.mul %ta, %tb {ascendc.buffer = "outQ_m", ascendc.stage = "V", ascendc.free = ["inQ_tb"]}
// CHECK: %w = pypto.tile.store %m, {{.*}}{ascendc.handoff = {from = "V", queue = "outQ_m", to = "MTE3"}, ascendc.store = "direct", ascendc.stage = "MTE3"}
// CHECK: %e = pypto.tile.exp %ta {ascendc.buffer = "outQ_e", ascendc.stage = "V", ascendc.free = ["inQ_ta"]}
// CHECK: %x = pypto.tile.store %e, {{.*}}{ascendc.handoff = {from = "V", queue = "outQ_e", to = "MTE3"}, ascendc.store = "direct", ascendc.stage = "MTE3"}

// -----

// A staged store hands over through its staging queue. Storing into a tensor this kernel
// also loads orders the MTE3 write before later MTE2 reads with an MTE3_MTE2 flag.

pypto.func incore @inout(inout %x: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %t, %x[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @inout
// CHECK: %w = pypto.tile.store %t, %x[%c0, %c0] {ascendc.staging = "outQ_t_out", ascendc.handoff = {from = "V", queue = "outQ_t_out", to = "MTE3"}, ascendc.flags = ["MTE3_MTE2"], ascendc.store = "staged", ascendc.stage = "MTE3", ascendc.free = ["inQ_t"]}

// -----

// Row broadcasts run on the vector pipe (Brcb into a scratch buffer, then level-0 ops): a
// loaded row tile is handed over by its queue like any operand and no scalar code reads the
// row values, so there are no SetFlag/WaitFlag pairs.

pypto.func incore @rows(%x: !pypto.tensor<[8, 64], f32>, %r: !pypto.tensor<[8, 1], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %lr = pypto.tile.load %r[%c0, %c0] : !pypto.tensor<[8, 1], f32> -> !pypto.tile<[8, 1], f32, vec>
  %a = pypto.tile.row_expand_mul %t, %lr : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %m = pypto.tile.row_max %a : !pypto.tile<[8, 64], f32, vec>
  %b = pypto.tile.row_expand_sub %a, %m : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 1], f32, vec>
  %w = pypto.tile.store %b, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @rows
// CHECK-NOT: ascendc.flags
// CHECK: %a = pypto.tile.row_expand_mul %t, %lr {ascendc.buffer = "buf_a", ascendc.scratch = "calcBuf1", ascendc.stage = "V", ascendc.free = ["inQ_t", "inQ_lr"]}
// CHECK: %m = pypto.tile.row_max %a {ascendc.buffer = "calcBuf1", ascendc.stage = "V", ascendc.barrier = "V"}
// CHECK: %b = pypto.tile.row_expand_sub %a, %m {ascendc.buffer = "outQ_b", ascendc.scratch = "buf_b_brcb", ascendc.stage = "V", ascendc.barrier = "V"}
// CHECK-NOT: ascendc.flags

// -----

// A loaded tile used in a nested region is freed after the op containing that use, in the
// block that defines it; a tile loaded in a loop body is freed in the body.

pypto.func incore @nested(%x: !pypto.tensor<[32, 64], f32>, out %y: !pypto.tensor<[32, 64], f32>, %flag: i1) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %r = scf.for %i = %c8 to %c32 step %c8 iter_args(%acc = %y) -> (!pypto.tensor<[32, 64], f32>) {
    %u = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %s = pypto.tile.add %t, %u : !pypto.tile<[8, 64], f32, vec>
    %w = pypto.tile.store %s, %acc[%i, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
    scf.yield %w : !pypto.tensor<[32, 64], f32>
  }
  pypto.return %r : !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: pypto.func incore @nested
// CHECK: %s = pypto.tile.add %t, %u {ascendc.buffer = "outQ_s", ascendc.stage = "V", ascendc.free = ["inQ_u"]}
// CHECK: scf.yield
// CHECK-NEXT: } {ascendc.free = ["inQ_t"]}

// -----

// The 'before' and 'do' arguments of an scf.while carrying a tile name the loop result's fixed
// buffer, so storing one goes through a staging queue like any VECCALC tile; a loaded tile
// whose last use is the scf.yield is freed after it (the printer frees it after the copy).

pypto.func incore @while_store(%x: !pypto.tensor<[8, 64], f32>, %n: index, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %i, %r, %yr = scf.while (%j = %c0, %acc = %t, %yc = %y) : (index, !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>) -> (index, !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %acc, %yc : index, !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  } do {
  ^bb0(%jj: index, %a: !pypto.tile<[8, 64], f32, vec>, %ya: !pypto.tensor<[8, 64], f32>):
    %w = pypto.tile.store %a, %ya[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
    %u = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %u, %w : index, !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  }
  pypto.return %yr : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @while_store
// CHECK: %w = pypto.tile.store %a, %ya[%c0, %c0] {ascendc.staging = "outQ_a_out", ascendc.handoff = {from = "V", queue = "outQ_a_out", to = "MTE3"}, ascendc.store = "staged", ascendc.stage = "MTE3", ascendc.barrier = "V"}
// CHECK: scf.yield {ascendc.free = ["inQ_u"], ascendc.barrier = "V"} %j1, %u, %w
// CHECK: } attributes {ascendc.buffer = ["", "buf_r", ""], ascendc.free = ["inQ_t"]}
