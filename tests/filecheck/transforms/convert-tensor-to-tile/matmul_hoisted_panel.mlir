// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile -t ascendc | filecheck %s --check-prefix=CPP

// A single-M-block matmul in a user loop whose A rows do not change (row block i % 2, in bounds
// for every block id) and which writes only other tensors: the rows' view and its index
// arithmetic move before the loop, the [128, 256] panel is loaded there once, and every
// iteration's K steps slice it. The accumulator queue is double-buffered (two L0C tensors:
// one block's Fixpipe overlaps the next block's Mmads).

pypto.func incore @strip(out %c: !pypto.tensor<[256, 512], f32>, %a: !pypto.tensor<[256, 256], f16>, %b: !pypto.tensor<[256, 512], f16>) -> !pypto.tensor<[256, 512], f32> {
  %i = pypto.tile.get_block_idx : index
  %c2 = arith.constant 2 : index
  %r = arith.remsi %i, %c2 : index
  %j0 = arith.floordivsi %i, %c2 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %j = %j0 to %c4 step %c2 iter_args(%cc = %c) -> (!pypto.tensor<[256, 512], f32>) {
    %c128 = arith.constant 128 : index
    %row = arith.muli %r, %c128 : index
    %c0 = arith.constant 0 : index
    %rows = pypto.tensor.slice %a[%row, %c0] : !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[128, 256], f16>
    %col = arith.muli %j, %c128 : index
    %cols = pypto.tensor.slice %b[%c0, %col] : !pypto.tensor<[256, 512], f16> -> !pypto.tensor<[256, 128], f16>
    %p = pypto.tensor.matmul %rows, %cols : !pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 128], f16> -> !pypto.tensor<[128, 128], f32>
    %w = pypto.tensor.assemble %p into %cc[%row, %col] : !pypto.tensor<[128, 128], f32> into !pypto.tensor<[256, 512], f32>
    scf.yield %w : !pypto.tensor<[256, 512], f32>
  }
  pypto.return %out : !pypto.tensor<[256, 512], f32>
}

// CHECK-LABEL: pypto.func incore @strip
// CHECK:         %[[ROW:.*]] = arith.muli %r, %{{.*}} : index
// CHECK:         %[[ROWS:.*]] = pypto.tensor.slice %a[%[[ROW]], %{{.*}}] : !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[128, 256], f16>
// CHECK:         %[[PANEL:.*]] = pypto.tile.load %[[ROWS]][%[[Z:.*]], %[[Z]]] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[128, 256], f16, mat>
// CHECK-NEXT:    scf.for %j =
// CHECK-NOT:       pypto.tile.load %[[ROWS]]
// CHECK:           scf.for %k =
// CHECK-NEXT:        pypto.tile.slice %[[PANEL]][%{{.*}}, %k] : !pypto.tile<[128, 256], f16, mat> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NOT:       pypto.tile.load %[[ROWS]]
// CHECK:         pypto.return

// CPP-LABEL: void strip(
// CPP:         TQue<TPosition::A1, 1> qA1_{{.*}}panel;
// CPP:         TQue<TPosition::CO1, 2> qCO1_acc;
// CPP:         LocalTensor<half> [[P:.*panel]] = qA1_{{.*}}panel.AllocTensor<half>();
// CPP-NEXT:    for (int64_t j =
// CPP:           for (int64_t k =
// CPP-NEXT:        const bool [[P]]_first = j ==
// CPP-NEXT:        if ([[P]]_first) {
// CPP:               DataCopy([[P]][k * 128], a_gm[
// CPP:             }
// CPP-NOT:         DataCopy([[P]]
// CPP:         Fixpipe(

// -----

// Not hoisted: the rows follow the loop (row block j), so each K step loads its A tile.

pypto.func incore @moving(out %c: !pypto.tensor<[256, 128], f32>, %a: !pypto.tensor<[256, 256], f16>, %b: !pypto.tensor<[256, 128], f16>) -> !pypto.tensor<[256, 128], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %out = scf.for %j = %c0 to %c2 step %c1 iter_args(%cc = %c) -> (!pypto.tensor<[256, 128], f32>) {
    %c128 = arith.constant 128 : index
    %row = arith.muli %j, %c128 : index
    %rows = pypto.tensor.slice %a[%row, %c0] : !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[128, 256], f16>
    %p = pypto.tensor.matmul %rows, %b : !pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 128], f16> -> !pypto.tensor<[128, 128], f32>
    %w = pypto.tensor.assemble %p into %cc[%row, %c0] : !pypto.tensor<[128, 128], f32> into !pypto.tensor<[256, 128], f32>
    scf.yield %w : !pypto.tensor<[256, 128], f32>
  }
  pypto.return %out : !pypto.tensor<[256, 128], f32>
}

// CHECK-LABEL: pypto.func incore @moving
// CHECK-NOT:     f16, mat>
// CHECK:         scf.for %j =
// CHECK:           scf.for %k =
// CHECK-NEXT:        pypto.tile.load %{{.*}}[%{{.*}}, %k] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[128, 128], f16, mat>

// -----

// Not hoisted: a row offset with no upper bound (block id * 128) could be out of bounds when
// the loop runs no iteration, so the load stays inside.

pypto.func incore @unbounded(out %c: !pypto.tensor<[256, 128], f32>, %a: !pypto.tensor<[256, 256], f16>, %b: !pypto.tensor<[256, 128], f16>, %n: index) -> !pypto.tensor<[256, 128], f32> {
  %i = pypto.tile.get_block_idx : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %i, %c128 : index
  %out = scf.for %j = %c0 to %n step %c1 iter_args(%cc = %c) -> (!pypto.tensor<[256, 128], f32>) {
    %rows = pypto.tensor.slice %a[%row, %c0] : !pypto.tensor<[256, 256], f16> -> !pypto.tensor<[128, 256], f16>
    %p = pypto.tensor.matmul %rows, %b : !pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 128], f16> -> !pypto.tensor<[128, 128], f32>
    %w = pypto.tensor.assemble %p into %cc[%row, %c0] : !pypto.tensor<[128, 128], f32> into !pypto.tensor<[256, 128], f32>
    scf.yield %w : !pypto.tensor<[256, 128], f32>
  }
  pypto.return %out : !pypto.tensor<[256, 128], f32>
}

// CHECK-LABEL: pypto.func incore @unbounded
// CHECK-NOT:     f16, mat>
// CHECK:         scf.for %j =
// CHECK:           scf.for %k =
// CHECK-NEXT:        pypto.tile.load %{{.*}}[%{{.*}}, %k] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
