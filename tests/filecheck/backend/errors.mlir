// RUN: pypto-opt %s -t ascendc --split-input-file --verify-diagnostics | filecheck %s
// Unsupported input is rejected with a message naming the op (or function) and the reason.

pypto.func incore @mm(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, vec>
  %l = pypto.tile.move %ta : !pypto.tile<[16, 16], f16, vec> -> !pypto.tile<[16, 16], f16, left>
  pypto.return
}
// CHECK: ascendc: cannot lower @mm: it mixes vector ('vec') and cube (mat/left/right/acc) tiles; run expand-mixed-kernel (the last stage of pypto-default) to split it into an aic and an aiv kernel

// -----

pypto.func incore @tensor_level(%a: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %e = pypto.tensor.exp %a : !pypto.tensor<[16, 16], f32>
  pypto.return %o : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tensor.exp' in @tensor_level: tensor-level compute must be converted to tile ops first (convert-tensor-to-tile)

// -----

pypto.func incore @too_big(%a: !pypto.tensor<[256, 256], f32>, out %o: !pypto.tensor<[256, 256], f32>) -> !pypto.tensor<[256, 256], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[256, 256], f32> -> !pypto.tile<[256, 256], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[256, 256], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[256, 256], f32, vec>, !pypto.tensor<[256, 256], f32>
  pypto.return %w : !pypto.tensor<[256, 256], f32>
}
// CHECK: ascendc: cannot lower @too_big: its tiles need 524288 bytes of Unified Buffer but a core has 196608: %t !pypto.tile<[256, 256], f32, vec> (VECIN, 262144 B), %e !pypto.tile<[256, 256], f32, vec> (VECOUT, 262144 B). Use smaller tiles (loop over the tensor).

// -----

// Run-time row counts and row lengths are lowered (dynamic_rows.mlir); an unnamed extent is not.
pypto.func incore @dyn(%a: !pypto.tensor<[64, ?], f32>) {
  pypto.return
}
// CHECK: ascendc: cannot lower @dyn: tensor parameter %a has the dynamic shape [64, ?]: an unknown extent ('?') has no symbol to pass to the kernel (name it: pl.dynamic("N")) (docs/backend.md, "Dynamic shapes")

// -----

// A partial tile (here 32 valid columns of 64) read by an op that does not keep valid shapes
// is refused, not printed as a copy of the whole tile.
pypto.func incore @partial(%a: !pypto.tensor<[16, 64], f32>, %n: index, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %t = pypto.tile.load %a[%c0, %c0] valid[%n, %c32] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %m = pypto.tile.move %t : !pypto.tile<[16, 64], f32, vec> -> !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %m, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.move' in @partial: it reads the partial tile %t (a valid shape); the Ascend C backend lowers a valid shape where a store, a fillpad, an elementwise op or a row reduction uses it

// -----

pypto.func incore @carried(%a: !pypto.tensor<[8, 64], f32>, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %u = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%p = %t, %q = %u) -> (!pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>) {
    scf.yield %q, %p : !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>
  }
  %w = pypto.tile.store %r#0, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc: cannot lower 'scf.for' in @carried: yielding one carried tile in place of another (a swap) is not supported

// -----

pypto.func incore @col(%a: !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 1], f32, vec>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @col: a [8, 1] column window of !pypto.tensor<[8, 64], f32> is strided; column loads are not supported

// -----

pypto.func incore @k(%a: !pypto.tensor<[8, 64], f32>) {
  pypto.return
}
pypto.func @helper(%a: !pypto.tensor<[8, 64], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8, 64], f32>) {
  pypto.call @helper(%a) : (!pypto.tensor<[8, 64], f32>) -> ()
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.call' in @main: @helper has kind 'opaque'; orchestration code can only launch incore kernels (inline or outline it first)

// -----

pypto.func incore @k2(%a: !pypto.tensor<[8, 32], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %s = pypto.tensor.slice %a[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tensor<[8, 32], f32>
  pypto.call @k2(%s) : (!pypto.tensor<[8, 32], f32>) -> ()
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.call' in @main: kernel argument !pypto.tensor<[8, 32], f32> is a strided window of !pypto.tensor<[8, 64], f32>; kernels take contiguous tensors (pass the whole tensor and offsets, or full-row slices)

// -----

pypto.func aic @odd(%a: !pypto.tensor<[24, 16], f16>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[24, 16], f16> -> !pypto.tile<[24, 16], f16, mat>
  %l = pypto.tile.move %m : !pypto.tile<[24, 16], f16, mat> -> !pypto.tile<[24, 16], f16, left>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @odd: cube tile !pypto.tile<[24, 16], f16, mat> must be 2-D with static dims that are multiples of 16

// -----

pypto.func aic @i8mat(%a: !pypto.tensor<[16, 32], i8>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 32], i8> -> !pypto.tile<[16, 32], i8, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 32], i8, mat> -> !pypto.tile<[16, 32], i8, left>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.load' in @i8mat: cube operand tile !pypto.tile<[16, 32], i8, mat> must be f16, bf16 or f32 (int8 matmul is not supported yet)

// -----

// Tiles carried through scf.while are copied into fixed buffers one position at a time, so one
// carried tile cannot be yielded in place of another (the second copy would read an overwritten
// buffer).
pypto.func incore @while_swap(%x: !pypto.tensor<[8, 64], f32>, %n: index, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %u = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %i, %r, %s = scf.while (%j = %c0, %p = %t, %q = %u) : (index, !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>) -> (index, !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %p, %q : index, !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>
  } do {
  ^bb0(%jj: index, %a: !pypto.tile<[8, 64], f32, vec>, %b: !pypto.tile<[8, 64], f32, vec>):
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %b, %a : index, !pypto.tile<[8, 64], f32, vec>, !pypto.tile<[8, 64], f32, vec>
  }
  %d = pypto.tile.sub %r, %s : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %d, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc: cannot lower 'scf.while' in @while_swap: yielding one carried tile in place of another (a swap) is not supported

// -----

// An incore kernel expand-mixed-kernel cannot split: the backend gives the pass's reason.
pypto.func incore @unsplittable(%a: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
  %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
  %f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>
  %o2 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return %o2 : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc: cannot lower @unsplittable: it mixes cube and vector ops and expand-mixed-kernel cannot split it: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move); at `%f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>`

// -----

pypto.func aic @relu_acc_atomic(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
  %r = pypto.tile.relu %acc : !pypto.tile<[16, 16], f32, acc>
  %w = pypto.tile.atomic_store %r, %o[%c0, %c0] atomic(add) : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return %w : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.relu' in @relu_acc_atomic: relu of an accumulator !pypto.tile<[16, 16], f32, acc> is folded into its Fixpipe (reluEn): it must be the accumulator's only use, and a plain tile.store its only use

// -----

pypto.func aic @mat_window_rows(%a: !pypto.tensor<[32, 32], f16>, %b: !pypto.tensor<[32, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
  %aw = pypto.tile.slice %am[%c16, %c0] : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[16, 32], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 16], f16> -> !pypto.tile<[32, 16], f16, mat>
  %al = pypto.tile.move %aw : !pypto.tile<[16, 32], f16, mat> -> !pypto.tile<[16, 32], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[32, 16], f16, mat> -> !pypto.tile<[32, 16], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 32], f16, left>, !pypto.tile<[32, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
  %w = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return %w : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.slice' in @mat_window_rows: a window !pypto.tile<[16, 32], f16, mat> of the mat tile !pypto.tile<[32, 32], f16, mat> must take all its rows, at a column offset that is a multiple of 16

// -----

// Batched matmuls: refused at the op (the backend's tensors and tiles are 1-D and 2-D).

pypto.func incore @batched(%a: !pypto.tensor<[32, 16], f32>, %b: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[32, 16], f32>) -> !pypto.tensor<[32, 16], f32> {
  %a3 = pypto.tensor.reshape %a : !pypto.tensor<[32, 16], f32> -> !pypto.tensor<[2, 16, 16], f32>
  %c = pypto.tensor.batch_matmul %a3, %b : !pypto.tensor<[2, 16, 16], f32>, !pypto.tensor<[16, 16], f32> -> !pypto.tensor<[2, 16, 16], f32>
  pypto.return %o : !pypto.tensor<[32, 16], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tensor.batch_matmul' in @batched: batched matmuls are not lowered by the Ascend C backend (its tensors and tiles are 1-D and 2-D): write a loop of 2-D matmuls over the batch

// -----

pypto.func aic @batched_tiles(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %tb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %l = pypto.tile.move %ta : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %r = pypto.tile.move %tb : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %c = pypto.tile.batch_matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.batch_matmul' in @batched_tiles: batched matmuls are not lowered by the Ascend C backend (its tensors and tiles are 1-D and 2-D): write a loop of 2-D matmuls over the batch

// -----

// A window of a mat tile is read in place by the LoadData that moves it: all its moves go to
// one side (left, or right: pair-cube-blocks' halves of a merged B tile).
pypto.func aic @window_both_sides(%a: !pypto.tensor<[32, 64], f16>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %w = pypto.tile.slice %m[%c0, %c0] : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 32], f16, mat>
  %l = pypto.tile.move %w : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
  %r = pypto.tile.move %w : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, right>
  pypto.return
}
// CHECK: ascendc: cannot lower 'pypto.tile.slice' in @window_both_sides: a window of a mat tile is only moved, all to left or all to right (%w is used otherwise)
