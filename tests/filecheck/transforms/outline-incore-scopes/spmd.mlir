// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes --print-op-generic | pypto-opt --split-input-file | filecheck %s

// An SPMD scope (`pypto.block_dim = N`, what `for i in pl.spmd(N)` builds) becomes a kernel
// launched on N cores: the block count moves to the call; the body keeps picking its rows
// by block index.

pypto.func @main(%a: !pypto.tensor<[64, 32], f32>, out %o: !pypto.tensor<[64, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
  %r = pypto.incore_scope name("rows") -> (!pypto.tensor<[64, 32], f32>) attributes {pypto.block_dim = 4 : i64} {
    %i = pypto.tile.get_block_idx : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %row = arith.muli %i, %c16 : index
    %x = pypto.tensor.slice %a[%row, %c0] : !pypto.tensor<[64, 32], f32> -> !pypto.tensor<[16, 32], f32>
    %e = pypto.tensor.exp %x : !pypto.tensor<[16, 32], f32>
    %w = pypto.tensor.assemble %e into %o[%row, %c0] : !pypto.tensor<[16, 32], f32> into !pypto.tensor<[64, 32], f32>
    pypto.yield %w : !pypto.tensor<[64, 32], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 32], f32>
}

// CHECK:      pypto.func orchestration @main(
// CHECK-NEXT:   %{{.*}} = pypto.call @rows(%a, %o) {pypto.block_dim = 4 : i64} : (
// CHECK:      pypto.func incore @rows(%a: {{.*}}, out %o: {{.*}})
// CHECK-NOT:  pypto.block_dim
// CHECK:        pypto.tile.get_block_idx : index

// -----

// With a task id, the launch is a pypto.submit on N cores.

pypto.func @main(%a: !pypto.tensor<[64, 32], f32>, out %o: !pypto.tensor<[64, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
  %r, %t = pypto.incore_scope -> (!pypto.tensor<[64, 32], f32>) task_id attributes {pypto.block_dim = 2 : i64} {
    %c0 = arith.constant 0 : index
    %w = pypto.tensor.assemble %a into %o[%c0, %c0] : !pypto.tensor<[64, 32], f32> into !pypto.tensor<[64, 32], f32>
    pypto.yield %w : !pypto.tensor<[64, 32], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 32], f32>
}

// CHECK:      pypto.submit @main_incore_0(%o, %a) {pypto.block_dim = 2 : i64}

// -----

// `pypto.sync_start` (PyPTO's `pl.spmd(..., sync_start=True)`) stays on the dispatch, as the
// core count does: the call carries it, the outlined kernel does not.

pypto.func @main(%a: !pypto.tensor<[64, 32], f32>, out %o: !pypto.tensor<[64, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
  %r = pypto.incore_scope -> (!pypto.tensor<[64, 32], f32>) attributes {pypto.block_dim = 4 : i64, pypto.sync_start} {
    %c0 = arith.constant 0 : index
    %w = pypto.tensor.assemble %a into %o[%c0, %c0] : !pypto.tensor<[64, 32], f32> into !pypto.tensor<[64, 32], f32>
    pypto.yield %w : !pypto.tensor<[64, 32], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 32], f32>
}

// CHECK:      pypto.func orchestration @main(
// CHECK-NEXT:   %r = pypto.call @main_incore_0(%o, %a) {pypto.block_dim = 4 : i64, pypto.sync_start} : (
// CHECK:      pypto.func incore
// CHECK-NOT:  pypto.sync_start
// CHECK:        pypto.return
