// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes,verify-split-incore-orch 2>/dev/null | filecheck %s --check-prefix=OUTLINED
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes,verify-split-incore-orch 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p verify-split-incore-orch 2>/dev/null | filecheck %s

// verify-split-incore-orch (SplitIncoreOrch + NoNestedInCore): after outlining, no scope
// is left outside InCore functions. Tensor compute left in an orchestration function is a
// warning on stderr, not an error.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %y = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
    %z = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
      %a = pypto.tensor.neg %y : !pypto.tensor<[8], f32>
      pypto.yield %a : !pypto.tensor<[8], f32>
    }
    %d = pypto.tensor.dim %z, 0 : !pypto.tensor<[8], f32>
    pypto.return %z : !pypto.tensor<[8], f32>
  }
}

// The scope left in place is an error when the verifier runs without outlining:
// CHECK: verify-split-incore-orch: InCore scope (pypto.incore_scope) found in non-InCore function @main (should have been outlined)

// After outlining it passes; the exp in @main is only a warning (dim is metadata, no warning).
// WARN: warning: compute tensor op 'pypto.tensor.exp' found in orchestration function @main (should be inside InCore)
// WARN-NOT: pypto.tensor.dim
// OUTLINED: pypto.func orchestration @main
// OUTLINED: pypto.func incore @main_incore_0

// -----

// An orchestration function's tensor compute: warning only; the module is printed.

builtin.module {
  pypto.func orchestration @orch(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %y = pypto.tensor.add %x, %x : !pypto.tensor<[8], f32>
    pypto.return %y : !pypto.tensor<[8], f32>
  }
}

// CHECK: pypto.func orchestration @orch
// WARN-NEXT: warning: compute tensor op 'pypto.tensor.add' found in orchestration function @orch
// OUTLINED: pypto.func orchestration @orch
