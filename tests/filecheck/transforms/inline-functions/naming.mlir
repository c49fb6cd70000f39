// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s

// Fresh names: `<name>_inline<N>`, one N per spliced call site, counted per pass run in
// module order (nested sites right after the site that spliced them). Auto-names with a role
// or version get `inline<N>` as their first qualifier; a trailing `_` is trimmed before
// joining so no reserved `__` is created; unnamed values stay unnamed, except that an
// unnamed returned value takes the name of the call result it replaces.
builtin.module {
  pypto.func inline @names(%x: index) -> index {
    %t__inline_arg_v0 = arith.addi %x, %x : index
    %u__tmp = arith.addi %t__inline_arg_v0, %x : index
    %w__co_ssa_v3 = arith.addi %u__tmp, %x : index
    %_ = arith.addi %w__co_ssa_v3, %x : index
    %y_ = arith.addi %_, %x : index
    %0 = arith.addi %y_, %x : index
    %1 = arith.addi %0, %x : index
    pypto.return %1 : index
  }
  pypto.func @main(%a: index) -> index {
    %r = pypto.call @names(%a) : (index) -> index
    pypto.return %r : index
  }
}
// CHECK:      %t__inline0_inline_arg_v0 = arith.addi %a, %a : index
// CHECK-NEXT: %u__inline0_tmp = arith.addi %t__inline0_inline_arg_v0, %a : index
// CHECK-NEXT: %w__inline0_co_ssa_v3 = arith.addi %u__inline0_tmp, %a : index
// CHECK-NEXT: %_inline0 = arith.addi %w__inline0_co_ssa_v3, %a : index
// CHECK-NEXT: %y_inline0 = arith.addi %_inline0, %a : index
// CHECK-NEXT: %0 = arith.addi %y_inline0, %a : index
// CHECK-NEXT: %r = arith.addi %0, %a : index
// CHECK-NEXT: pypto.return %r : index

// -----

// Counter order with nesting: @outer's site is 0, its two @inner sites 1 and 2, the second
// top-level site 3 and its nested sites 4 and 5.
builtin.module {
  pypto.func inline @inner(%x: index) -> index {
    %i = arith.muli %x, %x : index
    pypto.return %i : index
  }
  pypto.func inline @outer(%x: index) -> index {
    %o = arith.addi %x, %x : index
    %p = pypto.call @inner(%o) : (index) -> index
    %q = pypto.call @inner(%p) : (index) -> index
    pypto.return %q : index
  }
  pypto.func @main(%a: index, %b: index) -> index {
    %r = pypto.call @outer(%a) : (index) -> index
    %s = pypto.call @outer(%b) : (index) -> index
    %t = arith.addi %r, %s : index
    pypto.return %t : index
  }
}
// CHECK:      %o_inline0 = arith.addi %a, %a : index
// CHECK-NEXT: %i_inline1 = arith.muli %o_inline0, %o_inline0 : index
// CHECK-NEXT: %i_inline2 = arith.muli %i_inline1, %i_inline1 : index
// CHECK-NEXT: %o_inline3 = arith.addi %b, %b : index
// CHECK-NEXT: %i_inline4 = arith.muli %o_inline3, %o_inline3 : index
// CHECK-NEXT: %i_inline5 = arith.muli %i_inline4, %i_inline4 : index
// CHECK-NEXT: %t = arith.addi %i_inline2, %i_inline5 : index

// -----

// @outer's call of @inner has exactly @inner's parameter types, so it is part of @outer's
// expanded body (site 1 after @outer's site 0); its call of @gen passes [M] for [N] and is
// spliced at the final site, with the next number (2).
builtin.module {
  pypto.func inline @inner(%x: index) -> index {
    %i = arith.muli %x, %x : index
    pypto.return %i : index
  }
  pypto.func inline @gen(%t: !pypto.tensor<[N], f32>) -> !pypto.tensor<[N], f32> {
    %e = pypto.tensor.exp %t : !pypto.tensor<[N], f32>
    pypto.return %e : !pypto.tensor<[N], f32>
  }
  pypto.func inline @outer(%x: index, %t: !pypto.tensor<[M], f32>) -> (index, !pypto.tensor<[M], f32>) {
    %o = arith.addi %x, %x : index
    %g = pypto.call @gen(%t) : (!pypto.tensor<[M], f32>) -> !pypto.tensor<[M], f32>
    %p = pypto.call @inner(%o) : (index) -> index
    pypto.return %p, %g : index, !pypto.tensor<[M], f32>
  }
  pypto.func @main(%a: index, %b: !pypto.tensor<[8], f32>) -> (index, !pypto.tensor<[8], f32>) {
    %r:2 = pypto.call @outer(%a, %b) : (index, !pypto.tensor<[8], f32>) -> (index, !pypto.tensor<[8], f32>)
    pypto.return %r#0, %r#1 : index, !pypto.tensor<[8], f32>
  }
}
// CHECK:      %o_inline0 = arith.addi %a, %a : index
// CHECK-NEXT: %e_inline2 = pypto.tensor.exp %b : !pypto.tensor<[8], f32>
// CHECK-NEXT: %i_inline1 = arith.muli %o_inline0, %o_inline0 : index
// CHECK-NEXT: pypto.return %i_inline1, %e_inline2 : index, !pypto.tensor<[8], f32>

// -----

// An unnamed value returned through a nested helper takes the fresh name of the nested call
// result it replaces (%r of @outer, site 0): `r_inline0`, not the final call's `%z` nor no
// name at all.
builtin.module {
  pypto.func inline @inner(%x: index) -> index {
    %0 = arith.muli %x, %x : index
    pypto.return %0 : index
  }
  pypto.func inline @outer(%x: index) -> index {
    %r = pypto.call @inner(%x) : (index) -> index
    pypto.return %r : index
  }
  pypto.func @main(%a: index) -> index {
    %z = pypto.call @outer(%a) : (index) -> index
    %w = arith.addi %z, %a : index
    pypto.return %w : index
  }
}
// CHECK:      pypto.func @main(%a: index) -> index {
// CHECK-NEXT:   %r_inline0 = arith.muli %a, %a : index
// CHECK-NEXT:   %w = arith.addi %r_inline0, %a : index
