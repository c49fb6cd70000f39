// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{default-dim-bound=512}' | filecheck %s --check-prefix=DEFAULT
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p 'convert-tensor-to-tile{default-dim-bound=512},verify-convert-tensor-to-tile' | filecheck %s --check-prefix=LEFT

// A dynamic number of columns sizes every tile of the group: without a bound (declared on
// the kernel or a caller, or the pass's default) the pass stops, naming the parameter and
// the symbol. A dynamic row count needs none (the block size comes from the UB).

pypto.func incore @cols(%x: !pypto.tensor<[N, C], f32>, out %y: !pypto.tensor<[N, C], f32>) -> !pypto.tensor<[N, C], f32> {
  %c0 = arith.constant 0 : index
  %e = pypto.tensor.exp %x : !pypto.tensor<[N, C], f32>
  %w = pypto.tensor.assemble %e into %y[%c0, %c0] : !pypto.tensor<[N, C], f32> into !pypto.tensor<[N, C], f32>
  pypto.return %w : !pypto.tensor<[N, C], f32>
}

// CHECK: convert-tensor-to-tile: in @cols: the tile of %x in the elementwise ops needs a static bound on the dynamic dimension C (dimension 1 of parameter %x: !pypto.tensor<[N, C], f32>), which has none: declare one with pl.dynamic("C", max=...), or {pypto.dim_bounds = {C = ...}} on @cols or a function calling it, or give a default: convert-tensor-to-tile{default-dim-bound=...}
// DEFAULT-LABEL: pypto.func incore @cols(
// DEFAULT:         pypto.tile.load %x[%row, %c0] valid[%c24, %C] : !pypto.tensor<[N, C], f32> -> !pypto.tile<[24, 512], f32, vec>

// -----

// The caller's bound does not reach the kernel when one call site is unbounded: @main
// calls @cols2 with a bounded and an unbounded column count.

pypto.func incore @cols2(%x: !pypto.tensor<[4, C], f32>, out %y: !pypto.tensor<[4, C], f32>) -> !pypto.tensor<[4, C], f32> {
  %c0 = arith.constant 0 : index
  %e = pypto.tensor.neg %x : !pypto.tensor<[4, C], f32>
  %w = pypto.tensor.assemble %e into %y[%c0, %c0] : !pypto.tensor<[4, C], f32> into !pypto.tensor<[4, C], f32>
  pypto.return %w : !pypto.tensor<[4, C], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[4, D], f32>, %b: !pypto.tensor<[4, E], f32>) -> !pypto.tensor<[4, E], f32> attributes {pypto.dim_bounds = {D = 64 : i64}} {
  %r = pypto.call @cols2(%a, %a) : (!pypto.tensor<[4, D], f32>, !pypto.tensor<[4, D], f32>) -> !pypto.tensor<[4, D], f32>
  %s = pypto.call @cols2(%b, %b) : (!pypto.tensor<[4, E], f32>, !pypto.tensor<[4, E], f32>) -> !pypto.tensor<[4, E], f32>
  pypto.return %s : !pypto.tensor<[4, E], f32>
}

// CHECK: convert-tensor-to-tile: in @cols2: the tile of %x in the elementwise ops needs a static bound on the dynamic dimension C (dimension 1 of parameter %x: !pypto.tensor<[4, C], f32>), which has none
// DEFAULT-LABEL: pypto.func incore @cols2(
// DEFAULT:         pypto.tile.load %x[%c0, %c0] valid[%c4, %C] : !pypto.tensor<[4, C], f32> -> !pypto.tile<[4, 512], f32, vec>

// -----

// Left, with the verifier's reason: a dynamic shape of rank 1 (a partial tile is 2-D), an
// unknown '?' dimension, a symbol that is no parameter dimension (the kernel could not read
// its extent), a matmul with a dynamic K.

pypto.func incore @left(%v: !pypto.tensor<[N], f32>, %u: !pypto.tensor<[?, 8], f32>, %a: !pypto.tensor<[16, K], f16>, %b: !pypto.tensor<[K, 16], f16>) -> (!pypto.tensor<[N], f32>, !pypto.tensor<[?, 8], f32>, !pypto.tensor<[M, 8], f32>, !pypto.tensor<[16, 16], f32>) {
  %e = pypto.tensor.exp %v : !pypto.tensor<[N], f32>
  %x = pypto.tensor.exp %u : !pypto.tensor<[?, 8], f32>
  %one = arith.constant 1.0 : f32
  %f = pypto.tensor.full %one : f32 -> !pypto.tensor<[M, 8], f32>
  %q = pypto.tensor.matmul %a, %b : !pypto.tensor<[16, K], f16>, !pypto.tensor<[K, 16], f16> -> !pypto.tensor<[16, 16], f32>
  pypto.return %e, %x, %f, %q : !pypto.tensor<[N], f32>, !pypto.tensor<[?, 8], f32>, !pypto.tensor<[M, 8], f32>, !pypto.tensor<[16, 16], f32>
}

// LEFT:      verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:
// LEFT-NEXT:   @left: 'pypto.tensor.exp' (%e) is left: a dynamic shape [N] of rank 1: only 2-D values tile dynamic dimensions (a partial tile is 2-D)
// LEFT-NEXT:   @left: 'pypto.tensor.exp' (%x) is left: its shape !pypto.tensor<[?, 8], f32> has an unknown dimension '?': name it (pl.dynamic) to tile it
// LEFT-NEXT:   @left: 'pypto.tensor.full' (%f) is left: the dynamic dimension M is no dimension of a tensor parameter, so the kernel cannot read its extent
// LEFT-NEXT:   @left: 'pypto.tensor.matmul' (%q) is left: only M may be dynamic on the cube path (static K and N), got [16, K] @ [K, 16]
