// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p convert-tensor-to-tile,verify-convert-tensor-to-tile | filecheck %s --check-prefix=VERIFY

// tensor.matmul of f16 operands (an f32 product) inside an incore/aic function becomes blocked cube code:
// M/N loops carrying the destination, one K loop accumulating with tile.matmul_acc from a
// zero acc tile (tile.full 0: the backend's first Mmad initialises, cmatrixInitVal = (k == 0)),
// one store of the acc tile.

pypto.func aic @mm(%a: !pypto.tensor<[256, 192], f16>, %b: !pypto.tensor<[192, 128], f16>, out %o: !pypto.tensor<[256, 128], f32>) -> !pypto.tensor<[256, 128], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[256, 192], f16>, !pypto.tensor<[192, 128], f16> -> !pypto.tensor<[256, 128], f32>
  %w = pypto.tensor.assemble %p into %o[%c0, %c0] : !pypto.tensor<[256, 128], f32> into !pypto.tensor<[256, 128], f32>
  pypto.return %w : !pypto.tensor<[256, 128], f32>
}

// CHECK-LABEL: pypto.func aic @mm
// CHECK-NOT:     pypto.tensor.
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C192:.*]] = arith.constant 192 : index
// CHECK-DAG:     %[[C96:.*]] = arith.constant 96 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         %[[RES:.*]] = scf.for %[[M:.*]] = %[[C0]] to %[[C256]] step %[[C128]] iter_args(%[[DST:.*]] = %o) -> (!pypto.tensor<[256, 128], f32>) {
// CHECK-NEXT:      %[[ACC0:.*]] = pypto.tile.full %[[ZERO]] : f32 -> !pypto.tile<[128, 128], f32, acc>
// CHECK-NEXT:      %[[ACC:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C192]] step %[[C96]] iter_args(%[[PART:.*]] = %[[ACC0]]) -> (!pypto.tile<[128, 128], f32, acc>) {
// CHECK-NEXT:        %[[AMK:.*]] = pypto.tile.load %a[%[[M]], %[[K]]] : !pypto.tensor<[256, 192], f16> -> !pypto.tile<[128, 96], f16, mat>
// CHECK-NEXT:        %[[BMK:.*]] = pypto.tile.load %b[%[[K]], %[[C0]]] : !pypto.tensor<[192, 128], f16> -> !pypto.tile<[96, 128], f16, mat>
// CHECK-NEXT:        %[[ALK:.*]] = pypto.tile.move %[[AMK]]
// CHECK-NEXT:        %[[BRK:.*]] = pypto.tile.move %[[BMK]]
// CHECK-NEXT:        %[[NEXT:.*]] = pypto.tile.matmul_acc %[[PART]], %[[ALK]], %[[BRK]]
// CHECK-NEXT:        scf.yield %[[NEXT]] : !pypto.tile<[128, 128], f32, acc>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[ST:.*]] = pypto.tile.store %[[ACC]], %[[DST]][%[[M]], %[[C0]]] : !pypto.tile<[128, 128], f32, acc>, !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:      scf.yield %[[ST]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %[[RES]] : !pypto.tensor<[256, 128], f32>

// -----

// One block in every dim, stored into a window at a dynamic row offset: no loops, the
// store's row is the window's. The identity cast of the f32 product (what
// `pl.cast(pl.matmul(a, b), pl.FP32)` gives) folds away.

pypto.func incore @small(%a: !pypto.tensor<[32, 48], f16>, %b: !pypto.tensor<[48, 32], f16>, %r: index, out %o: !pypto.tensor<[96, 64], f32>) -> !pypto.tensor<[96, 64], f32> {
  %c32 = arith.constant 32 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 48], f16>, !pypto.tensor<[48, 32], f16> -> !pypto.tensor<[32, 32], f32>
  %q = pypto.tensor.cast %p : !pypto.tensor<[32, 32], f32> -> !pypto.tensor<[32, 32], f32>
  %w = pypto.tensor.assemble %q into %o[%r, %c32] : !pypto.tensor<[32, 32], f32> into !pypto.tensor<[96, 64], f32>
  pypto.return %w : !pypto.tensor<[96, 64], f32>
}

// CHECK-LABEL: pypto.func incore @small
// CHECK-NOT:     scf.for
// CHECK-NOT:     cast
// CHECK:         pypto.tile.load %a{{.*}} -> !pypto.tile<[32, 48], f16, mat>
// CHECK:         pypto.tile.load %b{{.*}} -> !pypto.tile<[48, 32], f16, mat>
// CHECK:         %[[ACC:.*]] = pypto.tile.matmul
// CHECK-NOT:     pypto.tile.matmul_acc
// CHECK:         %[[ST:.*]] = pypto.tile.store %[[ACC]], %o[%r, %c32] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[96, 64], f32>
// CHECK-NEXT:    pypto.return %[[ST]]

// -----

// Shapes the backend cannot print are left, and the verifier says why.

pypto.func incore @odd(%a: !pypto.tensor<[40, 24], f16>, %b: !pypto.tensor<[24, 32], f16>, out %o: !pypto.tensor<[40, 32], f32>) -> !pypto.tensor<[40, 32], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[40, 24], f16>, !pypto.tensor<[24, 32], f16> -> !pypto.tensor<[40, 32], f32>
  %w = pypto.tensor.assemble %p into %o[%c0, %c0] : !pypto.tensor<[40, 32], f32> into !pypto.tensor<[40, 32], f32>
  pypto.return %w : !pypto.tensor<[40, 32], f32>
}

// CHECK-LABEL: pypto.func incore @odd
// CHECK:         pypto.tensor.matmul

// VERIFY-NOT:  @mm:
// VERIFY-NOT:  @small:
// VERIFY:      verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:
// VERIFY-NEXT:   @odd: 'pypto.tensor.matmul' (%p) is left: every dim must be a multiple of 16 for the cube path, got 40x24 @ 24x32

// -----

// f32 operands take the cube path too (float x float -> float Mmad). They take twice the bytes
// of f16, so the K block is halved: 64 instead of 128 for 64 x 128 output blocks. With two N
// blocks, the M block's A panel [64, 512] is loaded into L1 once, before the N loop, and every
// K step moves a window of it (tile.slice of the mat tile) instead of reloading A from GM.

pypto.func aic @mmf(%a: !pypto.tensor<[64, 512], f32>, %b: !pypto.tensor<[512, 256], f32>, out %o: !pypto.tensor<[64, 256], f32>) -> !pypto.tensor<[64, 256], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[64, 512], f32>, !pypto.tensor<[512, 256], f32> -> !pypto.tensor<[64, 256], f32>
  %w = pypto.tensor.assemble %p into %o[%c0, %c0] : !pypto.tensor<[64, 256], f32> into !pypto.tensor<[64, 256], f32>
  pypto.return %w : !pypto.tensor<[64, 256], f32>
}

// CHECK-LABEL: pypto.func aic @mmf
// CHECK-NOT:     pypto.tensor.
// CHECK:         %[[PANEL:.*]] = pypto.tile.load %a[%{{.*}}, %{{.*}}] : !pypto.tensor<[64, 512], f32> -> !pypto.tile<[64, 512], f32, mat>
// CHECK:         scf.for %[[N:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           scf.for %[[K:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:        %{{.*}} = pypto.tile.slice %[[PANEL]][%{{.*}}, %[[K]]] : !pypto.tile<[64, 512], f32, mat> -> !pypto.tile<[64, 64], f32, mat>
// CHECK-NEXT:        %{{.*}} = pypto.tile.load %b[%[[K]], %[[N]]] : !pypto.tensor<[512, 256], f32> -> !pypto.tile<[64, 128], f32, mat>
// CHECK-NOT:         pypto.tile.load %a
// CHECK:             pypto.tile.matmul_acc
// CHECK:         pypto.tile.store %{{.*}} : !pypto.tile<[64, 128], f32, acc>, !pypto.tensor<[64, 256], f32>

// -----

// An atomic assemble of the product (split-K partials) becomes an atomic store of each
// accumulator block into the destination (Fixpipe under SetAtomicAdd in the backend).

pypto.func incore @mma(%a: !pypto.tensor<[64, 64], f32>, %b: !pypto.tensor<[64, 64], f32>, out %o: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[64, 64], f32>, !pypto.tensor<[64, 64], f32> -> !pypto.tensor<[64, 64], f32>
  %w = pypto.tensor.assemble %p into %o[%c0, %c0] atomic(add) : !pypto.tensor<[64, 64], f32> into !pypto.tensor<[64, 64], f32>
  pypto.return %w : !pypto.tensor<[64, 64], f32>
}

// CHECK-LABEL: pypto.func incore @mma
// CHECK-NOT:     pypto.tensor.
// CHECK:         %[[ACC:.*]] = pypto.tile.matmul
// CHECK-NOT:     pypto.tile.store
// CHECK:         pypto.tile.atomic_store %[[ACC]], %o[%{{.*}}, %{{.*}}] atomic(add) : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[64, 64], f32>

// -----

// relu of the product, assembled: folded into the cube code as tile.relu of the accumulator
// right before its store (the backend's Fixpipe reluEn); no vector tile. Under an atomic
// assemble the relu is not folded (tile.atomic_store has no relu), it stays tensor code here.

pypto.func incore @mmr(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 32], f16> -> !pypto.tensor<[32, 32], f32>
  %r = pypto.tensor.relu %p : !pypto.tensor<[32, 32], f32>
  %w = pypto.tensor.assemble %r into %o[%c0, %c0] : !pypto.tensor<[32, 32], f32> into !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

// CHECK-LABEL: pypto.func incore @mmr
// CHECK-NOT:     pypto.tensor.
// CHECK-NOT:     , vec>
// CHECK:         %[[ACC:.*]] = pypto.tile.matmul
// CHECK-NEXT:    %[[R:.*]] = pypto.tile.relu %[[ACC]] : !pypto.tile<[32, 32], f32, acc>
// CHECK-NEXT:    pypto.tile.store %[[R]], %o[%{{.*}}, %{{.*}}] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
// CHECK-NOT:     pypto.tensor.relu
// CHECK:         pypto.return

// -----

pypto.func incore @mmra(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 32], f16> -> !pypto.tensor<[32, 32], f32>
  %r = pypto.tensor.relu %p : !pypto.tensor<[32, 32], f32>
  %w = pypto.tensor.assemble %r into %o[%c0, %c0] atomic(add) : !pypto.tensor<[32, 32], f32> into !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

// CHECK-LABEL: pypto.func incore @mmra
// CHECK-NOT:     pypto.tile.relu %{{.*}} : !pypto.tile<[32, 32], f32, acc>
// CHECK:         pypto.tile.relu %{{.*}} : !pypto.tile<[{{.*}}], f32, vec>
// CHECK:         pypto.return

// -----

// An f16 product (`pl.matmul(a, b, out_dtype=pl.FP16)`: a cast of the f32 product), assembled:
// the cast is folded into the cube code as tile.cast of the f32 accumulator to an f16 acc tile
// right before its store (the backend's Fixpipe quantPre F322F16); no vector tile. A relu after
// it follows the cast. Under an atomic assemble the cast is not folded.

pypto.func incore @mmq(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %o: !pypto.tensor<[32, 32], f16>) -> !pypto.tensor<[32, 32], f16> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 32], f16> -> !pypto.tensor<[32, 32], f32>
  %h = pypto.tensor.cast %p : !pypto.tensor<[32, 32], f32> -> !pypto.tensor<[32, 32], f16>
  %r = pypto.tensor.relu %h : !pypto.tensor<[32, 32], f16>
  %w = pypto.tensor.assemble %r into %o[%c0, %c0] : !pypto.tensor<[32, 32], f16> into !pypto.tensor<[32, 32], f16>
  pypto.return %w : !pypto.tensor<[32, 32], f16>
}

// CHECK-LABEL: pypto.func incore @mmq
// CHECK-NOT:     pypto.tensor.
// CHECK-NOT:     , vec>
// CHECK:         %[[ACC:.*]] = pypto.tile.matmul
// CHECK-NEXT:    %[[H:.*]] = pypto.tile.cast %[[ACC]] : !pypto.tile<[32, 32], f32, acc> -> !pypto.tile<[32, 32], f16, acc>
// CHECK-NEXT:    %[[R:.*]] = pypto.tile.relu %[[H]] : !pypto.tile<[32, 32], f16, acc>
// CHECK-NEXT:    pypto.tile.store %[[R]], %o[%{{.*}}, %{{.*}}] : !pypto.tile<[32, 32], f16, acc>, !pypto.tensor<[32, 32], f16>
// CHECK-NOT:     pypto.tensor.cast
// CHECK:         pypto.return

// -----

pypto.func incore @mmqa(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %o: !pypto.tensor<[32, 32], f16>) -> !pypto.tensor<[32, 32], f16> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[32, 64], f16>, !pypto.tensor<[64, 32], f16> -> !pypto.tensor<[32, 32], f32>
  %h = pypto.tensor.cast %p : !pypto.tensor<[32, 32], f32> -> !pypto.tensor<[32, 32], f16>
  %w = pypto.tensor.assemble %h into %o[%c0, %c0] atomic(add) : !pypto.tensor<[32, 32], f16> into !pypto.tensor<[32, 32], f16>
  pypto.return %w : !pypto.tensor<[32, 32], f16>
}

// CHECK-LABEL: pypto.func incore @mmqa
// CHECK-NOT:     pypto.tile.cast %{{.*}} : !pypto.tile<[32, 32], f32, acc>
// CHECK:         pypto.tile.cast %{{.*}} : !pypto.tile<[{{.*}}], f32, vec>
// CHECK:         pypto.return
