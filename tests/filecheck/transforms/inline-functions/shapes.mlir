// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s
// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s --check-prefix=NOSYM
// NOSYM checks the whole output: no helper symbol N is left in any type of the callers.
// NOSYM-NOT: {{\[N[],]|, N[],]}}

// Symbols of the helper's signature are bound per call site: a local [N, 4] becomes
// [128, 4] at one site and [32, 4] at another; explicit types (slice, create, load) are
// substituted, inferred types re-derived, loop carries and branch results follow.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, %c: i1) -> !pypto.tensor<[N, 4], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %sq = pypto.tensor.mul %x, %x : !pypto.tensor<[N, 4], f32>
    %fresh = pypto.tensor.create : !pypto.tensor<[N, 4], f32>
    %half = pypto.tensor.slice %sq[%c0, %c0] : !pypto.tensor<[N, 4], f32> -> !pypto.tensor<[N, 2], f32>
    %loop = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %sq) -> (!pypto.tensor<[N, 4], f32>) {
      %s = pypto.tensor.add %acc, %x : !pypto.tensor<[N, 4], f32>
      scf.yield %s : !pypto.tensor<[N, 4], f32>
    }
    %pick = scf.if %c -> (!pypto.tensor<[N, 4], f32>) {
      scf.yield %loop : !pypto.tensor<[N, 4], f32>
    } else {
      %w = pypto.tensor.assemble %half into %fresh[%c0, %c0] : !pypto.tensor<[N, 2], f32> into !pypto.tensor<[N, 4], f32>
      scf.yield %w : !pypto.tensor<[N, 4], f32>
    }
    pypto.return %pick : !pypto.tensor<[N, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[32, 4], f32>, %c: i1) -> (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[32, 4], f32>) {
    %r = pypto.call @helper(%a, %c) : (!pypto.tensor<[128, 4], f32>, i1) -> !pypto.tensor<[128, 4], f32>
    %s = pypto.call @helper(%b, %c) : (!pypto.tensor<[32, 4], f32>, i1) -> !pypto.tensor<[32, 4], f32>
    pypto.return %r, %s : !pypto.tensor<[128, 4], f32>, !pypto.tensor<[32, 4], f32>
  }
}
// CHECK:      %sq_inline0 = pypto.tensor.mul %a, %a : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT: %fresh_inline0 = pypto.tensor.create : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT: %half_inline0 = pypto.tensor.slice %sq_inline0[%c0_inline0, %c0_inline0] : !pypto.tensor<[128, 4], f32> -> !pypto.tensor<[128, 2], f32>
// CHECK-NEXT: %loop_inline0 = scf.for %i_inline0 = %c0_inline0 to %c2_inline0 step %c1_inline0 iter_args(%acc_inline0 = %sq_inline0) -> (!pypto.tensor<[128, 4], f32>) {
// CHECK-NEXT:   %s_inline0 = pypto.tensor.add %acc_inline0, %a : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT:   scf.yield %s_inline0 : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT: }
// CHECK-NEXT: %pick_inline0 = scf.if %c -> (!pypto.tensor<[128, 4], f32>) {
// CHECK-NEXT:   scf.yield %loop_inline0 : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %w_inline0 = pypto.tensor.assemble %half_inline0 into %fresh_inline0[%c0_inline0, %c0_inline0] : !pypto.tensor<[128, 2], f32> into !pypto.tensor<[128, 4], f32>
// CHECK-NEXT:   scf.yield %w_inline0 : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT: }
// CHECK:      %sq_inline1 = pypto.tensor.mul %b, %b : !pypto.tensor<[32, 4], f32>
// CHECK:      %half_inline1 = pypto.tensor.slice %sq_inline1[%c0_inline1, %c0_inline1] : !pypto.tensor<[32, 4], f32> -> !pypto.tensor<[32, 2], f32>
// CHECK:      pypto.return %pick_inline0, %pick_inline1 : !pypto.tensor<[128, 4], f32>, !pypto.tensor<[32, 4], f32>

// -----

// A caller's own symbol replaces the helper's; no helper symbol survives.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, K], f32>) -> !pypto.tensor<[N, K], f32> {
    %y = pypto.tensor.exp %x : !pypto.tensor<[N, K], f32>
    %z = pypto.tensor.create : !pypto.tensor<[K, N], f32>
    pypto.return %y : !pypto.tensor<[N, K], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[M, 8], f32>) -> !pypto.tensor<[M, 8], f32> {
    %r = pypto.call @helper(%a) : (!pypto.tensor<[M, 8], f32>) -> !pypto.tensor<[M, 8], f32>
    pypto.return %r : !pypto.tensor<[M, 8], f32>
  }
}
// CHECK:      pypto.func @main(%a: !pypto.tensor<[M, 8], f32>) -> !pypto.tensor<[M, 8], f32> {
// CHECK-NEXT:   %y_inline0 = pypto.tensor.exp %a : !pypto.tensor<[M, 8], f32>
// CHECK-NEXT:   %z_inline0 = pypto.tensor.create : !pypto.tensor<[8, M], f32>
// CHECK-NEXT:   pypto.return %y_inline0 : !pypto.tensor<[M, 8], f32>

// -----

// Two parameters may bind one symbol differently (a logical and a padded buffer); ops whose
// types are inferred from their operands are fine, each from its own operands. The call
// declared its results with the first binding (N = 60); the spliced value is [64, 4], and
// the caller's users of it are re-inferred.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, %p: !pypto.tensor<[N, 4], f32>) -> (!pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 4], f32>) {
    %a = pypto.tensor.exp %x : !pypto.tensor<[N, 4], f32>
    %b = pypto.tensor.neg %p : !pypto.tensor<[N, 4], f32>
    pypto.return %a, %b : !pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 4], f32>
  }
  pypto.func @main(%l: !pypto.tensor<[60, 4], f32>, %pad: !pypto.tensor<[64, 4], f32>) -> !pypto.tensor<[60, 4], f32> {
    %r:2 = pypto.call @helper(%l, %pad) : (!pypto.tensor<[60, 4], f32>, !pypto.tensor<[64, 4], f32>) -> (!pypto.tensor<[60, 4], f32>, !pypto.tensor<[60, 4], f32>)
    %q = pypto.tensor.abs %r#1 : !pypto.tensor<[60, 4], f32>
    %e = pypto.tensor.exp %q : !pypto.tensor<[60, 4], f32>
    pypto.return %r#0 : !pypto.tensor<[60, 4], f32>
  }
}
// CHECK:      %a_inline0 = pypto.tensor.exp %l : !pypto.tensor<[60, 4], f32>
// CHECK-NEXT: %b_inline0 = pypto.tensor.neg %pad : !pypto.tensor<[64, 4], f32>
// CHECK-NEXT: %q = pypto.tensor.abs %b_inline0 : !pypto.tensor<[64, 4], f32>
// CHECK-NEXT: %e = pypto.tensor.exp %q : !pypto.tensor<[64, 4], f32>

// -----

// A `?` parameter: the spliced ops are re-inferred from the caller's static argument, the
// loop carry follows its initial value, and the caller's users of the result follow too.
builtin.module {
  pypto.func inline @dyn(%x: !pypto.tensor<[?, 4], f32>, %n: index) -> !pypto.tensor<[?, 4], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (!pypto.tensor<[?, 4], f32>) {
      %s = pypto.tensor.add %acc, %x : !pypto.tensor<[?, 4], f32>
      scf.yield %s : !pypto.tensor<[?, 4], f32>
    }
    pypto.return %r : !pypto.tensor<[?, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16, 4], f32>, %n: index) -> !pypto.tensor<[16, 4], f32> {
    %r = pypto.call @dyn(%a, %n) : (!pypto.tensor<[16, 4], f32>, index) -> !pypto.tensor<[?, 4], f32>
    %e = pypto.tensor.exp %r : !pypto.tensor<[?, 4], f32>
    pypto.return %a : !pypto.tensor<[16, 4], f32>
  }
}
// CHECK:      %r_inline0 = scf.for %i_inline0 = %c0_inline0 to %n step %c1_inline0 iter_args(%acc_inline0 = %a) -> (!pypto.tensor<[16, 4], f32>) {
// CHECK-NEXT:   %s_inline0 = pypto.tensor.add %acc_inline0, %a : !pypto.tensor<[16, 4], f32>
// CHECK-NEXT:   scf.yield %s_inline0 : !pypto.tensor<[16, 4], f32>
// CHECK-NEXT: }
// CHECK-NEXT: %e = pypto.tensor.exp %r_inline0 : !pypto.tensor<[16, 4], f32>

// -----

// Tiles: a load with a symbolic window, elementwise and row ops follow the caller's shape.
builtin.module {
  pypto.func inline @rowmax(%t: !pypto.tensor<[R, 64], f32>) -> !pypto.tile<[R, 1], f32, vec> {
    %c0 = arith.constant 0 : index
    %x = pypto.tile.load %t[%c0, %c0] : !pypto.tensor<[R, 64], f32> -> !pypto.tile<[R, 64], f32, vec>
    %e = pypto.tile.exp %x : !pypto.tile<[R, 64], f32, vec>
    %m = pypto.tile.row_max %e : !pypto.tile<[R, 64], f32, vec> -> !pypto.tile<[R, 1], f32, vec>
    pypto.return %m : !pypto.tile<[R, 1], f32, vec>
  }
  pypto.func incore @k(%a: !pypto.tensor<[16, 64], f32>) -> !pypto.tile<[16, 1], f32, vec> {
    %m = pypto.call @rowmax(%a) : (!pypto.tensor<[16, 64], f32>) -> !pypto.tile<[16, 1], f32, vec>
    pypto.return %m : !pypto.tile<[16, 1], f32, vec>
  }
}
// CHECK:      %x_inline0 = pypto.tile.load %a[%c0_inline0, %c0_inline0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: %e_inline0 = pypto.tile.exp %x_inline0 : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: %m_inline0 = pypto.tile.row_max %e_inline0 : !pypto.tile<[16, 64], f32, vec>
// CHECK-NEXT: pypto.return %m_inline0 : !pypto.tile<[16, 1], f32, vec>

// -----

// Sites are bound when they are spliced: the second call's argument was refined to
// [16, 4] by splicing the first, so the second clone is specialised to [16, 4] as well.
builtin.module {
  pypto.func inline @dyn(%x: !pypto.tensor<[?, 4], f32>) -> !pypto.tensor<[?, 4], f32> {
    %e = pypto.tensor.exp %x : !pypto.tensor<[?, 4], f32>
    pypto.return %e : !pypto.tensor<[?, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16, 4], f32>) {
    %r = pypto.call @dyn(%a) : (!pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[?, 4], f32>
    %s = pypto.call @dyn(%r) : (!pypto.tensor<[?, 4], f32>) -> !pypto.tensor<[?, 4], f32>
    %t = pypto.tensor.neg %s : !pypto.tensor<[?, 4], f32>
    pypto.return
  }
}
// CHECK:      pypto.func @main(%a: !pypto.tensor<[16, 4], f32>) {
// CHECK-NEXT:   %e_inline0 = pypto.tensor.exp %a : !pypto.tensor<[16, 4], f32>
// CHECK-NEXT:   %e_inline1 = pypto.tensor.exp %e_inline0 : !pypto.tensor<[16, 4], f32>
// CHECK-NEXT:   %t = pypto.tensor.neg %e_inline1 : !pypto.tensor<[16, 4], f32>
