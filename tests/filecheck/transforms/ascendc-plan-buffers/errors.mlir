// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p ascendc-plan-buffers | filecheck %s
// RUN: not pypto-opt %s --split-input-file -p 'ascendc-plan-buffers{ub-bytes=0}' 2>&1 | filecheck %s --check-prefix=OPTION
// A plan that does not fit even single-buffered names the function, every tile and its size.

pypto.func incore @too_big(%a: !pypto.tensor<[256, 256], f32>, out %o: !pypto.tensor<[256, 256], f32>) -> !pypto.tensor<[256, 256], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[256, 256], f32> -> !pypto.tile<[256, 256], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[256, 256], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[256, 256], f32, vec>, !pypto.tensor<[256, 256], f32>
  pypto.return %w : !pypto.tensor<[256, 256], f32>
}
// CHECK: ascendc-plan-buffers: cannot lower @too_big: its tiles need 524288 bytes of Unified Buffer but a core has 196608: %t !pypto.tile<[256, 256], f32, vec> (VECIN, 262144 B), %e !pypto.tile<[256, 256], f32, vec> (VECOUT, 262144 B). Use smaller tiles (loop over the tensor).
// OPTION: ascendc-plan-buffers: ub-bytes must be positive, got 0

// -----

pypto.func aic @f32mat(%a: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 16], f32, mat> -> !pypto.tile<[16, 16], f32, left>
  pypto.return
}
// CHECK: ascendc-plan-buffers: cannot lower 'pypto.tile.load' in @f32mat: cube operand tile !pypto.tile<[16, 16], f32, mat> must be f16 (bf16, f32 and int8 matmul are not supported yet)

// -----

// A tile carried through scf.while keeps one buffer, so it must stay at one position.
pypto.func incore @while_moves_tile(%x: !pypto.tensor<[8, 64], f32>, %n: index, out %o: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %r, %i = scf.while (%j = %c0, %acc = %t) : (index, !pypto.tile<[8, 64], f32, vec>) -> (!pypto.tile<[8, 64], f32, vec>, index) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %acc, %j : !pypto.tile<[8, 64], f32, vec>, index
  } do {
  ^bb0(%a: !pypto.tile<[8, 64], f32, vec>, %jj: index):
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %a : index, !pypto.tile<[8, 64], f32, vec>
  }
  %w = pypto.tile.store %r, %o[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}
// CHECK: ascendc-plan-buffers: cannot lower 'scf.while' in @while_moves_tile: a tile carried through scf.while keeps its position: the initial value at position 0 is index, not !pypto.tile<[8, 64], f32, vec> (the initial values, 'before' arguments and results must line up)

// -----

// Only scf.for carries an accumulator (updated in place by matmul_acc).
pypto.func aic @while_acc(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, %n: index, out %c: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ma = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %mb = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %l = pypto.tile.move %ma : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %r = pypto.tile.move %mb : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc0 = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
  %i, %acc = scf.while (%j = %c0, %p = %acc0) : (index, !pypto.tile<[16, 16], f32, acc>) -> (index, !pypto.tile<[16, 16], f32, acc>) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %p : index, !pypto.tile<[16, 16], f32, acc>
  } do {
  ^bb0(%jj: index, %q: !pypto.tile<[16, 16], f32, acc>):
    %q1 = pypto.tile.matmul_acc %q, %l, %r : !pypto.tile<[16, 16], f32, acc>, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %q1 : index, !pypto.tile<[16, 16], f32, acc>
  }
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return %w : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc-plan-buffers: cannot lower 'scf.while' in @while_acc: cube tile !pypto.tile<[16, 16], f32, acc> cannot be yielded from a region (only an accumulator carried by scf.for)
