// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the launch attributes of pypto.call, pypto.submit and
// pypto.incore_scope (core count, sync start, no-dep slots), and of a function's
// pypto.dim_bounds and scalar write-backs, that invalid.mlir does not hold, one case each.

pypto.func incore @k(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>, %n: index) {
  pypto.call @k(%a) cores(%n) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: pypto.call: the core count is given twice: 'pypto.block_dim' and a cores(...) operand

// -----

pypto.func @f() {
  pypto.incore_scope attributes {pypto.block_dim = 4 : i64, pypto.sync_start = true} {
    pypto.yield
  }
  pypto.return
}

// CHECK: pypto.incore_scope: 'pypto.sync_start' is a unit attribute, got true

// -----

pypto.func incore @k(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
  pypto.call @k(%a) {pypto.no_dep = [0]} : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: pypto.call: 'pypto.no_dep' must be an array<i64: ...> of argument positions, got [0 : i64]

// -----

pypto.func incore @k(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
  pypto.call @k(%a, %a) {pypto.no_dep = array<i64: 1, 0>} : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: pypto.call: 'pypto.no_dep' must list distinct argument positions in ascending order, got [1, 0]

// -----

pypto.func incore @k(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
  pypto.call @k(%a) {pypto.no_dep = array<i64: 1>} : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: pypto.call: 'pypto.no_dep' names argument #1, but there are 1 arguments

// -----

pypto.func @f(%a: !pypto.tensor<[N], f32>) attributes {pypto.dim_bounds = [4096]} {
  pypto.return
}

// CHECK: 'pypto.dim_bounds' must be a dictionary {symbol = bound}, got [4096 : i64]

// -----

pypto.func @f(%a: !pypto.tensor<[N], f32>) attributes {pypto.dim_bounds = {M = 4096 : i64}} {
  pypto.return
}

// CHECK: 'pypto.dim_bounds' bounds M, which is no dimension of the signature of @f

// -----

pypto.func @f(%a: !pypto.tensor<[N], f32>) attributes {pypto.dim_bounds = {N = 0 : i64}} {
  pypto.return
}

// CHECK: 'pypto.dim_bounds': the bound of N must be a positive integer, got 0 : i64

// -----

pypto.func incore @f(inout %n: index) {
  pypto.return
}

// CHECK: @f has scalar out/inout parameter #0 (inout index): it returns its final value after its own results, so its results must end with (index), got ()
