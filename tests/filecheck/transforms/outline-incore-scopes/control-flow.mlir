// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | pypto-opt --split-input-file | filecheck %s

// A scope inside an scf.if branch: the call takes its place in the branch.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %cond: i1) -> !pypto.tensor<[8], f32> {
    %y = scf.if %cond -> (!pypto.tensor<[8], f32>) {
      %y0 = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
        %t = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
        pypto.yield %t : !pypto.tensor<[8], f32>
      }
      scf.yield %y0 : !pypto.tensor<[8], f32>
    } else {
      %y1 = pypto.tensor.neg %x : !pypto.tensor<[8], f32>
      scf.yield %y1 : !pypto.tensor<[8], f32>
    }
    pypto.return %y : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(%x: !pypto.tensor<[8], f32>, %cond: i1) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %y = scf.if %cond -> (!pypto.tensor<[8], f32>) {
// CHECK-NEXT:      %y0 = pypto.call @main_incore_0(%x) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:      scf.yield %y0
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %y1 = pypto.tensor.neg %x
// CHECK-NEXT:      scf.yield %y1
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %y
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @main_incore_0(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %t = pypto.tensor.exp %x
// CHECK-NEXT:    pypto.return %t

// -----

// A scope holding an scf.if: the condition is read first, so it is the first parameter;
// values used in nested regions are captured too. The if's result is returned.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %cond: i1) -> !pypto.tensor<[8], f32> {
    %z = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
      %z0 = scf.if %cond -> (!pypto.tensor<[8], f32>) {
        %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
        scf.yield %a : !pypto.tensor<[8], f32>
      } else {
        scf.yield %x : !pypto.tensor<[8], f32>
      }
      pypto.yield %z0 : !pypto.tensor<[8], f32>
    }
    pypto.return %z : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %z = pypto.call @main_incore_0(%cond, %x) : (i1, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    pypto.return %z
// CHECK:       pypto.func incore @main_incore_0(%cond: i1, %x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %z0 = scf.if %cond
// CHECK:         pypto.return %z0

// -----

// A scope inside an scf.for captures the loop's iteration argument %acc, not its init
// %init. Inside, an inner loop stores through its carry %inner, whose init is %acc: the
// inner loop's result names %acc's storage, so the function returns the parameter %acc
// (param-explicit return), which is read and written: inout.

builtin.module {
  pypto.func @main(%init: !pypto.tensor<[16, 8], f32>, %y: !pypto.tensor<[16, 8], f32>) -> !pypto.tensor<[16, 8], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (!pypto.tensor<[16, 8], f32>) {
      %s = pypto.incore_scope -> (!pypto.tensor<[16, 8], f32>) {
        %inner_rv = scf.for %j = %c0 to %c2 step %c1 iter_args(%inner = %acc) -> (!pypto.tensor<[16, 8], f32>) {
          %off = arith.muli %j, %c2 : index
          %t = pypto.tile.load %y[%off, %c0] : !pypto.tensor<[16, 8], f32> -> !pypto.tile<[2, 8], f32, vec>
          %u = pypto.tile.load %inner[%off, %c0] : !pypto.tensor<[16, 8], f32> -> !pypto.tile<[2, 8], f32, vec>
          %v = pypto.tile.add %t, %u : !pypto.tile<[2, 8], f32, vec>
          %w = pypto.tile.store %v, %inner[%off, %c0] : !pypto.tile<[2, 8], f32, vec>, !pypto.tensor<[16, 8], f32>
          scf.yield %w : !pypto.tensor<[16, 8], f32>
        }
        pypto.yield %inner_rv : !pypto.tensor<[16, 8], f32>
      }
      scf.yield %s : !pypto.tensor<[16, 8], f32>
    }
    pypto.return %r : !pypto.tensor<[16, 8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:         %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (!pypto.tensor<[16, 8], f32>) {
// CHECK-NEXT:      %s = pypto.call @main_incore_0(%acc, %y) : (!pypto.tensor<[16, 8], f32>, !pypto.tensor<[16, 8], f32>) -> !pypto.tensor<[16, 8], f32>
// CHECK-NEXT:      scf.yield %s
// CHECK-NEXT:    }
// CHECK:       pypto.func incore @main_incore_0(inout %acc: !pypto.tensor<[16, 8], f32>, %y: !pypto.tensor<[16, 8], f32>) -> !pypto.tensor<[16, 8], f32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %inner_rv = scf.for %j = %c0 to %c2 step %c1 iter_args(%inner = %acc)
// CHECK:           %w = pypto.tile.store %v, %inner[%off, %c0]
// CHECK-NEXT:      scf.yield %w
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %acc : !pypto.tensor<[16, 8], f32>

// -----

// A scope in the body of an scf.while captures the body's block argument %acc2, not the
// loop's init %x. A value computed by the scope (not written through a parameter) is
// returned as is.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %r:2 = scf.while (%acc = %x, %n = %c0) : (!pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index) {
      %go = arith.cmpi slt, %n, %c3 : index
      scf.condition(%go) %acc, %n : !pypto.tensor<[8], f32>, index
    } do {
    ^bb0(%acc2: !pypto.tensor<[8], f32>, %n2: index):
      %updated = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
        %s = pypto.tensor.add %acc2, %y : !pypto.tensor<[8], f32>
        pypto.yield %s : !pypto.tensor<[8], f32>
      }
      %c1 = arith.constant 1 : index
      %n3 = arith.addi %n2, %c1 : index
      scf.yield %updated, %n3 : !pypto.tensor<[8], f32>, index
    }
    pypto.return %r#0 : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:         ^bb0(%acc2: !pypto.tensor<[8], f32>, %n2: index):
// CHECK-NEXT:      %updated = pypto.call @main_incore_0(%acc2, %y) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK:       pypto.func incore @main_incore_0(%acc2: !pypto.tensor<[8], f32>, %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %s = pypto.tensor.add %acc2, %y
// CHECK-NEXT:    pypto.return %s
