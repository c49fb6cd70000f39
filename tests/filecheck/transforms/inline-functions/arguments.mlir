// RUN: pypto-opt %s --disable-verify -p inline-functions --split-input-file --verify-diagnostics | filecheck %s

// Argument validation at every inline call site, before anything changes. The module
// verifier rejects these calls too, so it is disabled here to show the pass's own check
// (it is what guards call sites the pass itself creates; see errors.mlir).

builtin.module {
  pypto.func inline @h(%x: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
    pypto.return %x : !pypto.tensor<[8, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8, 4], f16>) {
    %r = pypto.call @h(%a) : (!pypto.tensor<[8, 4], f16>) -> !pypto.tensor<[8, 4], f32>
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type !pypto.tensor<[8, 4], f16>, which does not match parameter #0 (%x) of type !pypto.tensor<[8, 4], f32> (dtype differs)

// -----

builtin.module {
  pypto.func inline @h(%x: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
    pypto.return %x : !pypto.tensor<[N, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8, 4, 2], f32>) {
    %r = pypto.call @h(%a) : (!pypto.tensor<[8, 4, 2], f32>) -> !pypto.tensor<[8, 4], f32>
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type !pypto.tensor<[8, 4, 2], f32>, which does not match parameter #0 (%x) of type !pypto.tensor<[N, 4], f32> (rank differs)

// -----

builtin.module {
  pypto.func inline @h(%x: !pypto.tile<[16, 16], f32, left>) -> !pypto.tile<[16, 16], f32, left> {
    pypto.return %x : !pypto.tile<[16, 16], f32, left>
  }
  pypto.func incore @main(%a: !pypto.tile<[16, 16], f32, vec>) {
    %r = pypto.call @h(%a) : (!pypto.tile<[16, 16], f32, vec>) -> !pypto.tile<[16, 16], f32, left>
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type !pypto.tile<[16, 16], f32, vec>, which does not match parameter #0 (%x) of type !pypto.tile<[16, 16], f32, left> (memory space differs)

// -----

builtin.module {
  pypto.func inline @h(%x: !pypto.tensor<[N, N], f32>) -> !pypto.tensor<[N, N], f32> {
    pypto.return %x : !pypto.tensor<[N, N], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8, 4], f32>) {
    %r = pypto.call @h(%a) : (!pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 8], f32>
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type !pypto.tensor<[8, 4], f32>, which does not match parameter #0 (%x) of type !pypto.tensor<[N, N], f32> (shape differs: symbol 'N' bound to both 8 and 4)

// -----

builtin.module {
  pypto.func inline @h(%x: !pypto.tensor<[8], f32>, %n: index) -> index {
    pypto.return %n : index
  }
  pypto.func @main(%a: !pypto.tile<[8], f32, vec>, %n: i32) {
    %r = pypto.call @h(%a, %n) : (!pypto.tile<[8], f32, vec>, i32) -> index
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type !pypto.tile<[8], f32, vec>, which does not match parameter #0 (%x) of type !pypto.tensor<[8], f32> (kind differs)

// -----

builtin.module {
  pypto.func inline @h(%n: index) -> index {
    pypto.return %n : index
  }
  pypto.func @main(%n: i32) {
    %r = pypto.call @h(%n) : (i32) -> index
    pypto.return
  }
}
// CHECK: inlining the call to @h in @main: argument #0 has type i32, which does not match parameter #0 (%n) of type index (type differs)
