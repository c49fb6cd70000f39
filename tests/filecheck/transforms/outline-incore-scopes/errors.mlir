// RUN: pypto-opt %s --split-input-file --disable-verify --verify-diagnostics -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=DIALECT

// The dialect verifier rejects each of these on parse (DIALECT); with --disable-verify the
// pass's own check reports them before changing anything, naming the function.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope {
      pypto.incore_scope {
        %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
        pypto.yield
      }
      pypto.yield
    }
    pypto.return
  }
}

// CHECK: outline-incore-scopes: in @main: nested InCore scope detected: InCore scopes must not contain other InCore scopes
// DIALECT: pypto.incore_scope cannot be nested inside another pypto.incore_scope

// -----

builtin.module {
  pypto.func incore @kernel(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK: outline-incore-scopes: in @kernel: pypto.incore_scope inside incore function: an InCore function already runs on a core
// DIALECT: pypto.incore_scope inside incore function @kernel: the function already runs on a core

// -----

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope split(up_down) {
      pypto.split_aiv up_down (%i : index) {
        %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      }
      pypto.yield
    }
    pypto.return
  }
}

// CHECK: outline-incore-scopes: in @main: scope combines a function-level split (up_down, pl.split(...)) with pl.split_aiv region(s); these are mutually exclusive AIV-split mechanisms. Remove the scope's split(...) or the pypto.split_aiv region(s): the function-level split would otherwise be silently dropped (the per-region split governs the lanes). To pin a custom cross-core slot count, use slots(N), which is orthogonal to splitting.
// DIALECT: scope combines a function-level split (up_down, pl.split(...)) with pl.split_aiv region(s); these are mutually exclusive AIV-split mechanisms.

// -----

// split(none) counts as a split too.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope split(none) slots(2) {
      pypto.split_aiv none (%i : index) {
        %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      }
      pypto.yield
    }
    pypto.return
  }
}

// CHECK: outline-incore-scopes: in @main: scope combines a function-level split (none, pl.split(...)) with pl.split_aiv region(s); these are mutually exclusive
// DIALECT: scope combines a function-level split (none, pl.split(...)) with pl.split_aiv region(s); these are mutually exclusive
