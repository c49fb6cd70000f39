// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | pypto-opt --split-input-file | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes --print-op-generic | pypto-opt --split-input-file | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s --check-prefix=NOSCOPE
// NOSCOPE checks the whole output: no chunk keeps a scope.
// NOSCOPE-NOT: pypto.incore_scope

// Seed example "Basic Outlining": the store target %x is returned as the parameter itself.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %y = pypto.tensor.adds %x, %one : !pypto.tensor<[64], f32>, f32
    %result = pypto.incore_scope -> (!pypto.tensor<[64], f32>) {
      %c0 = arith.constant 0 : index
      %tile = pypto.tile.load %y[%c0] : !pypto.tensor<[64], f32> -> !pypto.tile<[64], f32, vec>
      %sq = pypto.tile.mul %tile, %tile : !pypto.tile<[64], f32, vec>
      %rt = pypto.tile.adds %sq, %one : !pypto.tile<[64], f32, vec>, f32
      %r = pypto.tile.store %rt, %x[%c0] : !pypto.tile<[64], f32, vec>, !pypto.tensor<[64], f32>
      pypto.yield %r : !pypto.tensor<[64], f32>
    }
    %z = pypto.tensor.adds %result, %two : !pypto.tensor<[64], f32>, f32
    pypto.return %z : !pypto.tensor<[64], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(%x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %y = pypto.tensor.adds %x, %one
// CHECK-NEXT:    %result = pypto.call @main_incore_0(%y, %x) : (!pypto.tensor<[64], f32>, !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32>
// CHECK-NEXT:    %z = pypto.tensor.adds %result, %two
// CHECK-NEXT:    pypto.return %z
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @main_incore_0(%y: !pypto.tensor<[64], f32>, out %x: !pypto.tensor<[64], f32>) -> !pypto.tensor<[64], f32> {
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %tile = pypto.tile.load %y[%c0]
// CHECK-NEXT:    %sq = pypto.tile.mul %tile, %tile
// CHECK-NEXT:    %rt = pypto.tile.adds %sq, %one
// CHECK-NEXT:    %r = pypto.tile.store %rt, %x[%c0]
// CHECK-NEXT:    pypto.return %x : !pypto.tensor<[64], f32>
// CHECK-NEXT:  }

// -----

// Seed example "Multiple Outputs": outputs in yield order; the store result returns the
// parameter %out, the kernel-local tile is returned as is.

builtin.module {
  pypto.func @main(%a: !pypto.tensor<[64], f32>, %b: !pypto.tensor<[64], f32>, %out: !pypto.tensor<[64], f32>) -> !pypto.tile<[64], f32, vec> {
    %r:2 = pypto.incore_scope -> (!pypto.tensor<[64], f32>, !pypto.tile<[64], f32, vec>) {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2.0 : f32
      %a_tile = pypto.tile.load %a[%c0] : !pypto.tensor<[64], f32> -> !pypto.tile<[64], f32, vec>
      %b_tile = pypto.tile.load %b[%c0] : !pypto.tensor<[64], f32> -> !pypto.tile<[64], f32, vec>
      %c_tile = pypto.tile.add %a_tile, %b_tile : !pypto.tile<[64], f32, vec>
      %out_a = pypto.tile.store %c_tile, %out[%c0] : !pypto.tile<[64], f32, vec>, !pypto.tensor<[64], f32>
      %out_b = pypto.tile.muls %c_tile, %two : !pypto.tile<[64], f32, vec>, f32
      pypto.yield %out_a, %out_b : !pypto.tensor<[64], f32>, !pypto.tile<[64], f32, vec>
    }
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %r#0[%c0] : !pypto.tensor<[64], f32> -> !pypto.tile<[64], f32, vec>
    %x = pypto.tile.add %t, %r#1 : !pypto.tile<[64], f32, vec>
    pypto.return %x : !pypto.tile<[64], f32, vec>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = pypto.call @main_incore_0(%a, %b, %out) : (!pypto.tensor<[64], f32>, !pypto.tensor<[64], f32>, !pypto.tensor<[64], f32>) -> (!pypto.tensor<[64], f32>, !pypto.tile<[64], f32, vec>)
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %t = pypto.tile.load %[[A]][%c0]
// CHECK-NEXT:    %x = pypto.tile.add %t, %[[B]]
// CHECK:       pypto.func incore @main_incore_0(%a: !pypto.tensor<[64], f32>, %b: !pypto.tensor<[64], f32>, out %out: !pypto.tensor<[64], f32>) -> (!pypto.tensor<[64], f32>, !pypto.tile<[64], f32, vec>) {
// CHECK:         %out_a = pypto.tile.store %c_tile, %out[%c0]
// CHECK-NEXT:    %out_b = pypto.tile.muls %c_tile, %two
// CHECK-NEXT:    pypto.return %out, %out_b : !pypto.tensor<[64], f32>, !pypto.tile<[64], f32, vec>

// -----

// Two scopes in sequence: a per-function counter; the second scope reads the first's
// result. A function without scopes stays opaque and unchanged; an orchestration parent
// stays orchestration. Only values used inside become parameters (%b, not %a); values
// computed inside and not yielded stay inside (%c).

builtin.module {
  pypto.func @helper(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %y = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
    pypto.return %y : !pypto.tensor<[8], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %b = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
    %d = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
      %c = pypto.tensor.neg %b : !pypto.tensor<[8], f32>
      %d0 = pypto.tensor.add %c, %c : !pypto.tensor<[8], f32>
      pypto.yield %d0 : !pypto.tensor<[8], f32>
    }
    %e = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
      %e0 = pypto.tensor.mul %d, %b : !pypto.tensor<[8], f32>
      pypto.yield %e0 : !pypto.tensor<[8], f32>
    }
    %f = pypto.tensor.abs %e : !pypto.tensor<[8], f32>
    pypto.return %f : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func @helper(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %y = pypto.tensor.exp %x
// CHECK-NEXT:    pypto.return %y
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func orchestration @main(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %b = pypto.tensor.exp %a
// CHECK-NEXT:    %d = pypto.call @main_incore_0(%b) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    %e = pypto.call @main_incore_1(%d, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    %f = pypto.tensor.abs %e
// CHECK-NEXT:    pypto.return %f
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @main_incore_0(%b: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %c = pypto.tensor.neg %b
// CHECK-NEXT:    %d0 = pypto.tensor.add %c, %c
// CHECK-NEXT:    pypto.return %d0 : !pypto.tensor<[8], f32>
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @main_incore_1(%d: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %e0 = pypto.tensor.mul %d, %b
// CHECK-NEXT:    pypto.return %e0 : !pypto.tensor<[8], f32>
// CHECK-NEXT:  }

// -----

// Numbering is per parent function; outlined functions follow their parent. A scope with
// no results and nothing written becomes a call without results and a function without
// outputs. Scalars are captured like tensors; cheap constants are cloned, not passed.

builtin.module {
  pypto.func @func1(%x: !pypto.tensor<[8], f32>, %s: f32) {
    %k = arith.constant 3 : index
    pypto.incore_scope {
      %c0 = arith.constant 0 : index
      %v = pypto.tensor.read %x[%k] : !pypto.tensor<[8], f32>
      %w = arith.addf %v, %s : f32
      pypto.yield
    }
    pypto.return
  }
  pypto.func @func2(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope {
      %n = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK-LABEL: pypto.func orchestration @func1(%x: !pypto.tensor<[8], f32>, %s: f32) {
// CHECK-NEXT:    %k = arith.constant 3 : index
// CHECK-NEXT:    pypto.call @func1_incore_0(%x, %s) : (!pypto.tensor<[8], f32>, f32) -> ()
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @func1_incore_0(%x: !pypto.tensor<[8], f32>, %s: f32) {
// CHECK-NEXT:    %k = arith.constant 3 : index
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %v = pypto.tensor.read %x[%k]
// CHECK-NEXT:    %w = arith.addf %v, %s : f32
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func orchestration @func2(%x: !pypto.tensor<[8], f32>) {
// CHECK-NEXT:    pypto.call @func2_incore_0(%x) : (!pypto.tensor<[8], f32>) -> ()
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @func2_incore_0(%x: !pypto.tensor<[8], f32>) {

// -----

// A scope's level picks the kind of its function: aic and aiv scopes become aic and aiv
// functions (core_group, the default, incore).

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %a = pypto.incore_scope level(aic) -> (!pypto.tensor<[8], f32>) {
      %y = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield %y : !pypto.tensor<[8], f32>
    }
    %b = pypto.incore_scope level(aiv) -> (!pypto.tensor<[8], f32>) {
      %z = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
      pypto.yield %z : !pypto.tensor<[8], f32>
    }
    %c = pypto.incore_scope level(core_group) -> (!pypto.tensor<[8], f32>) {
      %w = pypto.tensor.exp %b : !pypto.tensor<[8], f32>
      pypto.yield %w : !pypto.tensor<[8], f32>
    }
    pypto.return %c : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:       pypto.func aic @main_incore_0(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK:       pypto.func aiv @main_incore_1(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK:       pypto.func incore @main_incore_2(%b: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
