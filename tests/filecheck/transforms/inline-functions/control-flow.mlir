// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s
// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s --check-prefix=NOCALL
// NOCALL checks the whole output: every call site (loop, branch, while condition, scope, operand) was spliced.
// NOCALL-NOT: pypto.call

// Call sites anywhere: in scf.for / scf.if bodies, in the `before` region of scf.while (the
// spliced body then runs per iteration), in an incore scope (kept verbatim), and as the
// operand of another op.
builtin.module {
  pypto.func inline @bump(%n: index) -> index {
    %c1 = arith.constant 1 : index
    %m = arith.addi %n, %c1 : index
    pypto.return %m : index
  }
  pypto.func @main(%k: index, %c: i1) -> index {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %sum = scf.for %i = %c0 to %c4 step %c4 iter_args(%acc = %k) -> (index) {
      %next = pypto.call @bump(%acc) : (index) -> index
      scf.yield %next : index
    }
    %sel = scf.if %c -> (index) {
      %b = pypto.call @bump(%sum) : (index) -> index
      scf.yield %b : index
    } else {
      scf.yield %sum : index
    }
    %w = scf.while (%v = %sel) : (index) -> index {
      %vb = pypto.call @bump(%v) : (index) -> index
      %go = arith.cmpi slt, %vb, %c4 : index
      scf.condition(%go) %vb : index
    } do {
    ^bb0(%u: index):
      scf.yield %u : index
    }
    %r = pypto.call @bump(%w) : (index) -> index
    %z = arith.muli %r, %k : index
    pypto.return %z : index
  }
}
// CHECK:      %sum = scf.for %i = %c0 to %c4 step %c4 iter_args(%acc = %k) -> (index) {
// CHECK-NEXT:   %c1_inline0 = arith.constant 1 : index
// CHECK-NEXT:   %m_inline0 = arith.addi %acc, %c1_inline0 : index
// CHECK-NEXT:   scf.yield %m_inline0 : index
// CHECK-NEXT: }
// CHECK-NEXT: %sel = scf.if %c -> (index) {
// CHECK-NEXT:   %c1_inline1 = arith.constant 1 : index
// CHECK-NEXT:   %m_inline1 = arith.addi %sum, %c1_inline1 : index
// CHECK-NEXT:   scf.yield %m_inline1 : index
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %sum : index
// CHECK-NEXT: }
// CHECK-NEXT: %w = scf.while (%v = %sel) : (index) -> index {
// CHECK-NEXT:   %c1_inline2 = arith.constant 1 : index
// CHECK-NEXT:   %m_inline2 = arith.addi %v, %c1_inline2 : index
// CHECK-NEXT:   %go = arith.cmpi slt, %m_inline2, %c4 : index
// CHECK-NEXT:   scf.condition(%go) %m_inline2 : index
// CHECK-NEXT: } do {
// `pl.mul(bump(w), k)`: the nested call is spliced right before its user.
// CHECK:      %c1_inline3 = arith.constant 1 : index
// CHECK-NEXT: %m_inline3 = arith.addi %w, %c1_inline3 : index
// CHECK-NEXT: %z = arith.muli %m_inline3, %k : index

// -----

// An incore scope inside the helper is spliced verbatim (outline-incore-scopes runs later),
// and a call inside a caller's incore scope is spliced inside that scope.
builtin.module {
  pypto.func inline @twice(%x: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %r, %tid = pypto.incore_scope name("dbl") -> (!pypto.tensor<[16], f32>) task_id {
      %y = pypto.tensor.add %x, %x : !pypto.tensor<[16], f32>
      pypto.yield %y : !pypto.tensor<[16], f32>
    }
    pypto.return %r : !pypto.tensor<[16], f32>
  }
  pypto.func inline @neg(%x: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %n = pypto.tensor.neg %x : !pypto.tensor<[16], f32>
    pypto.return %n : !pypto.tensor<[16], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %d = pypto.call @twice(%a) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    %s = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
      %e = pypto.call @neg(%d) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
      pypto.yield %e : !pypto.tensor<[16], f32>
    }
    pypto.return %s : !pypto.tensor<[16], f32>
  }
}
// CHECK:      pypto.func @main(%a: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
// CHECK-NEXT:   %r_inline0, %tid_inline0 = pypto.incore_scope name("dbl") -> (!pypto.tensor<[16], f32>) task_id {
// CHECK-NEXT:     %y_inline0 = pypto.tensor.add %a, %a : !pypto.tensor<[16], f32>
// CHECK-NEXT:     pypto.yield %y_inline0 : !pypto.tensor<[16], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   %s = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
// CHECK-NEXT:     %n_inline1 = pypto.tensor.neg %r_inline0 : !pypto.tensor<[16], f32>
// CHECK-NEXT:     pypto.yield %n_inline1 : !pypto.tensor<[16], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.return %s : !pypto.tensor<[16], f32>
// CHECK-NEXT: }

// -----

// A helper with loops and branches of its own: region block arguments are renamed too.
builtin.module {
  pypto.func inline @accumulate(%x: !pypto.tensor<[16], f32>, %n: index) -> !pypto.tensor<[16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (!pypto.tensor<[16], f32>) {
      %s = pypto.tensor.add %acc, %x : !pypto.tensor<[16], f32>
      scf.yield %s : !pypto.tensor<[16], f32>
    }
    pypto.return %r : !pypto.tensor<[16], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[16], f32>, %k: index) -> !pypto.tensor<[16], f32> {
    %r = pypto.call @accumulate(%a, %k) : (!pypto.tensor<[16], f32>, index) -> !pypto.tensor<[16], f32>
    pypto.return %r : !pypto.tensor<[16], f32>
  }
}
// CHECK:      %r_inline0 = scf.for %i_inline0 = %c0_inline0 to %k step %c1_inline0 iter_args(%acc_inline0 = %a) -> (!pypto.tensor<[16], f32>) {
// CHECK-NEXT:   %s_inline0 = pypto.tensor.add %acc_inline0, %a : !pypto.tensor<[16], f32>
// CHECK-NEXT:   scf.yield %s_inline0 : !pypto.tensor<[16], f32>
// CHECK-NEXT: }
// CHECK-NEXT: pypto.return %r_inline0 : !pypto.tensor<[16], f32>
