// RUN: pypto-opt %s -p inline-functions --split-input-file --verify-diagnostics | filecheck %s

// Each chunk prints exactly one message. Cycles, submits, reserved names, leaking symbols
// and the arguments of top-level call sites are checked before anything changes; nested
// sites and explicit uses of an ambiguous symbol are checked when the site is spliced.

// Self recursion.
builtin.module {
  pypto.func inline @loop(%x: index) -> index {
    %y = pypto.call @loop(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func @main(%a: index) -> index {
    %r = pypto.call @loop(%a) : (index) -> index
    pypto.return %r : index
  }
}
// CHECK: cycle detected in the inline call graph: loop -> loop

// -----

// Mutual recursion; the cycle starts at the first inline function in module order.
builtin.module {
  pypto.func inline @a(%x: index) -> index {
    %y = pypto.call @b(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @b(%x: index) -> index {
    %y = pypto.call @a(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func @main(%v: index) -> index {
    pypto.return %v : index
  }
}
// CHECK: cycle detected in the inline call graph: a -> b -> a

// -----

// A longer cycle reached through an acyclic prefix names only the cycle.
builtin.module {
  pypto.func inline @entry(%x: index) -> index {
    %y = pypto.call @p(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @p(%x: index) -> index {
    %y = pypto.call @q(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @q(%x: index) -> index {
    %y = pypto.call @r(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @r(%x: index) -> index {
    %y = pypto.call @p(%x) : (index) -> index
    pypto.return %y : index
  }
}
// CHECK: cycle detected in the inline call graph: p -> q -> r -> p

// -----

// pypto.submit of an inline function.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    pypto.return %x : !pypto.tensor<[8], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
    %r, %t = pypto.submit @helper(%a) : (!pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>)
    pypto.return
  }
}
// CHECK: dangling submit to @helper in @main: pypto.submit of an inline function cannot be spliced (an inline function has no body of its own to launch as a task), and removing @helper would leave the submit with no such function in the module (likely a former inline callee that was not spliced); call it with pypto.call or make @helper an incore function

// -----

// An author-written name with the reserved '__' delimiter is reported, not normalised.
builtin.module {
  pypto.func inline @helper(%x: index) -> index {
    %a__b = arith.addi %x, %x : index
    pypto.return %a__b : index
  }
  pypto.func @main(%v: index) -> index {
    %r = pypto.call @helper(%v) : (index) -> index
    pypto.return %r : index
  }
}
// CHECK: in inline function @helper: name 'a__b' contains the reserved auto-name delimiter '__' but is not an auto-name '<base>__<qualifier>_<role>_v<N>'; rename it

// -----

// A symbol only the body uses would leak into the caller.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
    %k = pypto.tensor.create : !pypto.tensor<[K, 4], f32>
    pypto.return %x : !pypto.tensor<[N, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
    %r = pypto.call @helper(%a) : (!pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32>
    pypto.return %r : !pypto.tensor<[8, 4], f32>
  }
}
// CHECK: inline function @helper uses symbol 'K' that none of its parameter types binds; inlining would leak it into its callers (bind it through a parameter type)

// -----

// A symbol bound to two extents is fine while only inferred types use it ...
// (see shapes.mlir) ... but an op that spells it out in its type is an error.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, %y: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
    %k = pypto.tensor.create : !pypto.tensor<[N, 4], f32>
    pypto.return %k : !pypto.tensor<[N, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8, 4], f32>, %b: !pypto.tensor<[16, 4], f32>) {
    %r = pypto.call @helper(%a, %b) : (!pypto.tensor<[8, 4], f32>, !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
    pypto.return
  }
}
// CHECK: inlining the call to @helper in @main: symbol 'N' is bound to different extents (8 by parameter #0 (%x), 16 by parameter #1 (%y)) and pypto.tensor.create uses it explicitly in its type; give the parameters distinct symbols

// -----

// Argument validation at a nested site: @wrap accepts any row count, @fixed only 8; the
// call site of @wrap passes 16 rows, so the spliced call of @fixed is rejected with the
// callee, the parameter and both types.
builtin.module {
  pypto.func inline @fixed(%t: !pypto.tensor<[8, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
    pypto.return %t : !pypto.tensor<[8, 4], f32>
  }
  pypto.func inline @wrap(%x: !pypto.tensor<[?, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
    %r = pypto.call @fixed(%x) : (!pypto.tensor<[?, 4], f32>) -> !pypto.tensor<[8, 4], f32>
    pypto.return %r : !pypto.tensor<[8, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32> {
    %r = pypto.call @wrap(%a) : (!pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
    pypto.return %r : !pypto.tensor<[8, 4], f32>
  }
}
// CHECK: inlining the call to @fixed in @main: argument #0 has type !pypto.tensor<[16, 4], f32>, which does not match parameter #0 (%t) of type !pypto.tensor<[8, 4], f32> (shape differs)

// -----

// The splice refines a `?` result to [16, 4]; the caller returns it from a function whose
// signature says [?, 4], which cannot take the refined type (and the pass does not change
// the caller's signature).
builtin.module {
  pypto.func inline @dyn(%x: !pypto.tensor<[?, 4], f32>) -> !pypto.tensor<[?, 4], f32> {
    %e = pypto.tensor.exp %x : !pypto.tensor<[?, 4], f32>
    pypto.return %e : !pypto.tensor<[?, 4], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[?, 4], f32> {
    %r = pypto.call @dyn(%a) : (!pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[?, 4], f32>
    pypto.return %r : !pypto.tensor<[?, 4], f32>
  }
}
// CHECK: inlining the call to @dyn in @main: the inlined body gives %e_inline0 the more precise type !pypto.tensor<[16, 4], f32>, which its use by pypto.return cannot take; use the same shapes (or symbols) in the call and in @dyn's signature
