// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p inline-functions --split-input-file | filecheck %s
// RUN: pypto-opt %s -p inline-functions --split-input-file | filecheck %s --check-prefix=GONE
// GONE checks the whole output: no helper @square (printed first if it survived) and no call to it.
// GONE-NOT: @square

// Single call site: the body is spliced with fresh names, the helper is gone.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %y = pypto.tensor.mul %x, %x : !pypto.tensor<[64], f32>
    pypto.return %y : !pypto.tensor<[64], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %z = pypto.call @helper(%a) : (!pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32>
    pypto.return %z : !pypto.tensor<[64], f32>
  }
}
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @main(%a: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
// CHECK-NEXT:     %y_inline0 = pypto.tensor.mul %a, %a : !pypto.tensor<[64], f32>
// CHECK-NEXT:     pypto.return %y_inline0 : !pypto.tensor<[64], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Multiple call sites: each clone gets its own number, in module order.
builtin.module {
  pypto.func inline @square(%x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %y = pypto.tensor.mul %x, %x : !pypto.tensor<[64], f32>
    pypto.return %y : !pypto.tensor<[64], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[64], f32>, %b: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %a2 = pypto.call @square(%a) : (!pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32>
    %b2 = pypto.call @square(%b) : (!pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32>
    %s = pypto.tensor.add %a2, %b2 : !pypto.tensor<[64], f32>
    pypto.return %s : !pypto.tensor<[64], f32>
  }
  pypto.func @other(%c: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %c2 = pypto.call @square(%c) : (!pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32>
    pypto.return %c2 : !pypto.tensor<[64], f32>
  }
}
// CHECK:      pypto.func @main(%a: !pypto.tensor<[64], f32>, %b: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
// CHECK-NEXT:   %y_inline0 = pypto.tensor.mul %a, %a : !pypto.tensor<[64], f32>
// CHECK-NEXT:   %y_inline1 = pypto.tensor.mul %b, %b : !pypto.tensor<[64], f32>
// CHECK-NEXT:   %s = pypto.tensor.add %y_inline0, %y_inline1 : !pypto.tensor<[64], f32>
// CHECK-NEXT:   pypto.return %s : !pypto.tensor<[64], f32>
// CHECK-NEXT: }
// CHECK-NEXT: pypto.func @other(%c: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
// CHECK-NEXT:   %y_inline2 = pypto.tensor.mul %c, %c : !pypto.tensor<[64], f32>
// CHECK-NEXT:   pypto.return %y_inline2 : !pypto.tensor<[64], f32>
// CHECK-NEXT: }

// -----

// No inline functions: the module is unchanged.
builtin.module {
  pypto.func @k(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %b = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
    pypto.return %b : !pypto.tensor<[8], f32>
  }
  pypto.func @main(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %r = pypto.call @k(%a) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
    pypto.return %r : !pypto.tensor<[8], f32>
  }
}
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @k(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:     %b = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
// CHECK-NEXT:     pypto.return %b : !pypto.tensor<[8], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @main(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:     %r = pypto.call @k(%a) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:     pypto.return %r : !pypto.tensor<[8], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Inline functions without callers (also one that only an unused helper calls, and an
// inline "entry") are removed; calls of other kinds of functions stay.
builtin.module {
  pypto.func inline @unused(%x: index) -> index {
    %y = pypto.call @leaf(%x) : (index) -> index
    pypto.return %y : index
  }
  pypto.func inline @leaf(%x: index) -> index {
    pypto.return %x : index
  }
  pypto.func inline @main(%x: index) -> index {
    pypto.return %x : index
  }
  pypto.func @keep(%x: index) -> index {
    pypto.return %x : index
  }
}
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @keep(%x: index) -> index {
// CHECK-NEXT:     pypto.return %x : index
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Results unused: nothing observable of the body is dropped. The store is the helper's
// return value and the caller discards it; the store, the nested dispatch of @k and the
// pure ops all survive (the pass deletes only the call and the inline function).
builtin.module {
  pypto.func incore @k(%a: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    pypto.return %a : !pypto.tensor<[64, 64], f32>
  }
  pypto.func inline @writeout(%t: !pypto.tile<[64, 64], f32, vec>, out %o: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %c0 = arith.constant 0 : index
    %dead = pypto.tile.exp %t : !pypto.tile<[64, 64], f32, vec>
    %side = pypto.call @k(%o) : (!pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
    %w = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
    pypto.return %w : !pypto.tensor<[64, 64], f32>
  }
  pypto.func @kernel(%a: !pypto.tensor<[64, 64], f32>, out %out: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
    %unused = pypto.call @writeout(%t, %out) : (!pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
    pypto.return %out : !pypto.tensor<[64, 64], f32>
  }
}
// CHECK:      pypto.func @kernel(%a: !pypto.tensor<[64, 64], f32>, out %out: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:   %c0_inline0 = arith.constant 0 : index
// CHECK-NEXT:   %dead_inline0 = pypto.tile.exp %t : !pypto.tile<[64, 64], f32, vec>
// CHECK-NEXT:   %side_inline0 = pypto.call @k(%out) : (!pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
// CHECK-NEXT:   %w_inline0 = pypto.tile.store %t, %out[%c0_inline0, %c0_inline0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
// CHECK-NEXT:   pypto.return %out : !pypto.tensor<[64, 64], f32>
// CHECK-NEXT: }

// -----

// Multi-result helper; a passthrough result is the caller's own value (no copy).
builtin.module {
  pypto.func inline @pair(%x: index, %y: index) -> (index, index) {
    %s = arith.addi %x, %y : index
    pypto.return %s, %x : index, index
  }
  pypto.func @main(%a: index, %b: index) -> index {
    %p:2 = pypto.call @pair(%a, %b) : (index, index) -> (index, index)
    %r = arith.muli %p#0, %p#1 : index
    pypto.return %r : index
  }
}
// CHECK:      pypto.func @main(%a: index, %b: index) -> index {
// CHECK-NEXT:   %s_inline0 = arith.addi %a, %b : index
// CHECK-NEXT:   %r = arith.muli %s_inline0, %a : index
// CHECK-NEXT:   pypto.return %r : index
// CHECK-NEXT: }
