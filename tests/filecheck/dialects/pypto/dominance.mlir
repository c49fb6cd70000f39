// RUN: PYPTO_VERIFY_DIAG

// SSA dominance and region scoping (pypto_xdsl/dialects/dominance.py), and the upstream-op
// checks the same walk makes: one case per message.

// A use before the definition, in one block.
pypto.func @use_before_def(%a: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %n = pypto.tensor.sqrt %e : !pypto.tensor<[16, 64], f32>
  %e = pypto.tensor.exp %a : !pypto.tensor<[16, 64], f32>
  pypto.return %n : !pypto.tensor<[16, 64], f32>
}

// CHECK: Operation does not verify: operand #0 (%e) is used before its definition (its definition does not dominate this use)

// -----

// A use in a loop body of a value defined after the loop.
pypto.func @nested_use_before_def(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c0) -> (index) {
    %y = arith.addi %x, %later : index
    scf.yield %y : index
  }
  %later = arith.constant 3 : index
  pypto.return %r : index
}

// CHECK: Operation does not verify: operand #1 (%later) is used before its definition (its definition does not dominate this use)

// -----

// A name defined inside a region is not visible outside it (the bound of the loop is
// defined in its own body): a parse error at the use.
pypto.func @scoped(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%x = %c0) -> (index) {
    %c64 = arith.constant 64 : index
    scf.yield %x : index
  }
  pypto.return %r : index
}

// CHECK: use of undefined SSA value %c64

// -----

// A loop's block argument used after the loop.
pypto.func @loop_arg_after_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c0) -> (index) {
    scf.yield %x : index
  }
  %z = arith.addi %r, %i : index
  pypto.return %z : index
}

// CHECK: use of undefined SSA value %i

// -----

// A submit using a value of a later loop's body.
pypto.func incore @k(%x: !pypto.tensor<[8], f32>, out %o: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
  pypto.return %o : !pypto.tensor<[8], f32>
}
pypto.func @submit_later_body(%a: !pypto.tensor<[8], f32>, out %o: !pypto.tensor<[8], f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r, %t = pypto.submit @k(%e, %o) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
  scf.for %i = %c0 to %n step %c1 {
    %e = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
  }
  pypto.return
}

// CHECK: use of undefined SSA value %e

// -----

// Forward references to one name from two regions must agree on its type.
pypto.func @two_types(%n: index, %c: i1) {
  scf.if %c {
    %u = arith.addi %v, %v : index
  }
  scf.if %c {
    %w = arith.addi %v, %v : i32
  }
  %v = arith.constant 1 : index
  pypto.return
}

// CHECK: %v is used with type i32 here but with type index before

// -----

pypto.func @huge_index_constant() -> index {
  %c = arith.constant 99999999999999999999999999 : index
  pypto.return %c : index
}

// CHECK: integer 99999999999999999999999999 is out of the range of index (64-bit signed)

// -----

pypto.func @huge_dim(%a: !pypto.tensor<[99999999999999999999, 4], f32>) {
  pypto.return
}

// CHECK: dimension 99999999999999999999 is larger than the largest extent, 2^63 - 1

// -----

pypto.func @huge_tile_dim(%a: !pypto.tile<[4, 9223372036854775808], f32, vec>) {
  pypto.return
}

// CHECK: dimension 9223372036854775808 is larger than the largest extent, 2^63 - 1

// -----

pypto.func @wrong_parameter_count(%t: !pypto.task_id<[64, 32], f32>) {
  pypto.return
}

// CHECK: invalid type 'pypto.task_id': wrong number of parameters: it takes 0

// -----

pypto.func @if_without_else(%a: index, %c: i1) -> index {
  %r = scf.if %c -> (index) {
    scf.yield %a : index
  }
  pypto.return %r : index
}

// CHECK: Operation does not verify: an scf.if with results needs an else region yielding (index)

// -----

pypto.func @if_else_yields_nothing(%a: index, %c: i1) -> index {
  %r = scf.if %c -> (index) {
    scf.yield %a : index
  } else {
  }
  pypto.return %r : index
}

// CHECK: Operation does not verify: the else region yields () but the scf.if has results (index)

// -----

pypto.func @step_zero(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c16 to %c64 step %c0 iter_args(%x = %a) -> (index) {
    scf.yield %x : index
  }
  pypto.return %r : index
}

// CHECK: Operation does not verify: constant step operand must be positive, got 0

// -----

pypto.func @load_negative_offset(%a: !pypto.tensor<[16, 64], f32>) {
  %c0 = arith.constant 0 : index
  %cm = arith.constant -64 : index
  pypto.incore_scope {
    %t = pypto.tile.load %a[%cm, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: the window [16, 64] at offsets [-64, 0] is out of the bounds [16, 64] of !pypto.tensor<[16, 64], f32>

// -----

pypto.func @read_past_the_end(%a: !pypto.tensor<[64], f32>) -> f32 {
  %c65 = arith.constant 65 : index
  %v = pypto.tensor.read %a[%c65] : !pypto.tensor<[64], f32> -> f32
  pypto.return %v : f32
}

// CHECK: Operation does not verify: the element at [65] is out of the bounds [64] of !pypto.tensor<[64], f32>

// -----

pypto.func @store_past_the_end(%t: !pypto.tile<[16, 64], f32, vec>, out %o: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %c17 = arith.constant 17 : index
  %w = pypto.tile.store %t, %o[%c17, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %w : !pypto.tensor<[32, 64], f32>
}

// CHECK: Operation does not verify: the window [16, 64] at offsets [17, 0] is out of the bounds [32, 64] of !pypto.tensor<[32, 64], f32>

// -----

// A window at a symbolic offset, or in a symbolic extent, is checked at run time only.
pypto.func @symbolic_ok(%a: !pypto.tensor<[N, 64], f32>, %i: index) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %s = pypto.tensor.slice %a[%c4096, %c0] : !pypto.tensor<[N, 64], f32> -> !pypto.tensor<[16, 64], f32>
  %u = pypto.tensor.slice %a[%i, %c0] : !pypto.tensor<[N, 64], f32> -> !pypto.tensor<[16, 64], f32>
  pypto.return %s : !pypto.tensor<[16, 64], f32>
}

// CHECK: pypto.func @symbolic_ok

// -----

// A write's window is its one element (its result names the destination's storage).
pypto.func @write_in_bounds(%a: !pypto.tensor<[16, 64], f32>, %v: f32) -> !pypto.tensor<[16, 64], f32> {
  %c15 = arith.constant 15 : index
  %c63 = arith.constant 63 : index
  %r = pypto.tensor.write %v into %a[%c15, %c63] : f32 into !pypto.tensor<[16, 64], f32>
  pypto.return %r : !pypto.tensor<[16, 64], f32>
}

// CHECK: pypto.func @write_in_bounds

// -----

pypto.func @write_past_the_end(%a: !pypto.tensor<[16, 64], f32>, %v: f32) -> !pypto.tensor<[16, 64], f32> {
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %r = pypto.tensor.write %v into %a[%c16, %c0] : f32 into !pypto.tensor<[16, 64], f32>
  pypto.return %r : !pypto.tensor<[16, 64], f32>
}

// CHECK: Operation does not verify: the element at [16, 0] is out of the bounds [16, 64] of !pypto.tensor<[16, 64], f32>

// -----

// An op using its own result (a forward reference the parser resolves to the op itself).
pypto.func @self_use(%a: index) -> index {
  %x = arith.addi %x, %a : index
  pypto.return %x : index
}

// CHECK: Operation does not verify: operand #0 (%x) is a result of the op itself

// -----

// A region using the result of the op that holds it.
pypto.func @enclosing_result(%a: index) -> index {
  %r = scf.execute_region -> (index) {
    %y = arith.addi %r, %a : index
    scf.yield %y : index
  }
  pypto.return %r : index
}

// CHECK: Operation does not verify: operand #0 (%r) is a result of the enclosing 'scf.execute_region', not visible inside its regions

// -----

// A function body using a value of the module: pypto.func is isolated from above.
%c = arith.constant 1 : index
pypto.func @outside(%a: index) -> index {
  %y = arith.addi %c, %a : index
  pypto.return %y : index
}

// CHECK: Operation does not verify: operand #0 (%c) is defined outside 'pypto.func' @outside, which is isolated from above
