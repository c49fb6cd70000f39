// RUN: pypto-opt %s --disable-verify -p verify-inline-functions-eliminated --split-input-file --verify-diagnostics | filecheck %s
// RUN: pypto-opt %s --disable-verify -p inline-functions,verify-inline-functions-eliminated --split-input-file --verify-diagnostics | filecheck %s --check-prefix=AFTER

// The InlineFunctionsEliminated verifier, standalone: one chunk per message. (The module
// verifier is disabled so that a dangling call can be parsed at all.) After the pass the
// verifier is silent (AFTER) except for a dangling call, which the pass does not create
// and does not hide.

builtin.module {
  pypto.func inline @helper(%x: index) -> index {
    pypto.return %x : index
  }
  pypto.func @main(%a: index) -> index {
    pypto.return %a : index
  }
}
// CHECK:      InlineFunctionsEliminated violated:
// CHECK-NEXT:   inline function @helper survived the inline-functions pass (it should have been spliced and removed)
// AFTER:      builtin.module {
// AFTER-NEXT:   pypto.func @main(%a: index) -> index {

// -----

builtin.module {
  pypto.func inline @helper(%x: index) -> index {
    pypto.return %x : index
  }
  pypto.func @main(%a: index) -> index {
    %r = pypto.call @helper(%a) : (index) -> index
    pypto.return %r : index
  }
}
// CHECK:      InlineFunctionsEliminated violated:
// CHECK-NEXT:   inline function @helper survived the inline-functions pass (it should have been spliced and removed)
// CHECK-NEXT:   call to inline function @helper in @main survived the inline-functions pass
// AFTER:      pypto.func @main(%a: index) -> index {
// AFTER-NEXT:   pypto.return %a : index

// -----

builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    pypto.return %x : !pypto.tensor<[8], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
    %r, %t = pypto.submit @helper(%a) : (!pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>)
    pypto.return
  }
}
// CHECK:      InlineFunctionsEliminated violated:
// CHECK-NEXT:   inline function @helper survived the inline-functions pass (it should have been spliced and removed)
// CHECK-NEXT:   submit to inline function @helper in @main survived the inline-functions pass
// AFTER:      dangling submit to @helper in @main: pypto.submit of an inline function cannot be spliced

// -----

builtin.module {
  pypto.func @main(%a: index) -> index {
    %r = pypto.call @gone(%a) : (index) -> index
    pypto.return %r : index
  }
}
// CHECK:      InlineFunctionsEliminated violated:
// CHECK-NEXT:   dangling call to @gone in @main: no such function in the module (likely a former inline callee that was not spliced)
// AFTER:      InlineFunctionsEliminated violated:
// AFTER-NEXT:   dangling call to @gone in @main: no such function in the module (likely a former inline callee that was not spliced)

// -----

builtin.module {
  pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) {
    %r, %t = pypto.submit @gone(%a) : (!pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>)
    pypto.return
  }
}
// CHECK:      InlineFunctionsEliminated violated:
// CHECK-NEXT:   dangling submit to @gone in @main: no such function in the module (likely a former inline callee that was not spliced)
// AFTER:      dangling submit to @gone in @main

// -----

// A clean module passes the verifier and prints unchanged.
builtin.module {
  pypto.func @main(%a: index) -> index {
    pypto.return %a : index
  }
}
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @main(%a: index) -> index {
// CHECK-NEXT:     pypto.return %a : index
// CHECK-NEXT:   }
// CHECK-NEXT: }
