// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the program-structure ops and of the types, one case each.
// Messages that embed type lists are matched up to the list.


"pypto.func"() <{sym_name = "f", function_type = (index) -> (), kind = #pypto<kind opaque>}> ({
^bb0(%x: i32):
  "pypto.return"() : () -> ()
}) : () -> ()

// CHECK: Operation does not verify: entry block argument types {{.*}} do not match the signature of @f

// -----

"pypto.func"() <{sym_name = "f", function_type = (index, index) -> (), kind = #pypto<kind opaque>, arg_dirs = [#pypto<dir out>]}> ({
^bb0(%x: index, %y: index):
  "pypto.return"() : () -> ()
}) : () -> ()

// CHECK: Operation does not verify: @f has 2 parameters but 1 directions

// -----

pypto.func incore @tile_out(out %t: !pypto.tile<[16, 16], f32, vec>) {
  pypto.return
}

// CHECK: Operation does not verify: parameter #0 of @tile_out is !pypto.tile<[16, 16], f32, vec> and cannot be 'out': only tensors and scalars are written through

// -----

pypto.func @tid_inout(inout %t: !pypto.task_id) {
  pypto.return
}

// CHECK: Operation does not verify: parameter #0 of @tid_inout is !pypto.task_id and cannot be 'inout': only tensors and scalars are written through

// -----

pypto.func bogus @f() {
  pypto.return
}

// CHECK: Expected `opaque`, `inline`, `incore`, `aic`, `aiv`, `orchestration`, `group`, `graph`, or `host`.

// -----

// ---- pypto.return

pypto.func @f(%x: index) -> i32 {
  pypto.return %x : index
}

// CHECK: Operation does not verify: returns {{.*}} but @f is declared to return

// -----

"pypto.return"() : () -> ()

// CHECK: Operation does not verify: 'pypto.return' expects parent op 'pypto.func'

// -----

// ---- pypto.call / pypto.submit

pypto.func @g(%x: index) {
  pypto.call @nope(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: '@nope' does not refer to a function in this module

// -----

func.func @not_pypto(%x: index) {
  func.return
}
pypto.func @g(%x: index) {
  pypto.call @not_pypto(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: '@not_pypto' refers to func.func, not a pypto.func

// -----

pypto.func @f(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  pypto.call @f(%x, %x) : (index, index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: @f takes 1 arguments, got 2

// -----

pypto.func @f(%x: index, %y: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  pypto.call @f(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: @f takes 2 arguments, got 1

// -----

pypto.func @f(%x: index, out %o: !pypto.tensor<[8], f32>, %y: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  %t = pypto.submit @f(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: @f takes 3 arguments, got 1; only trailing 'out' parameters may be omitted

// -----

pypto.func @f(%x: i32) {
  pypto.return
}
pypto.func @g(%x: index) {
  pypto.call @f(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type index, expected i32

// -----

pypto.func @f(%x: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func @g(%x: !pypto.tile<[8], f32, vec>) {
  pypto.call @f(%x) : (!pypto.tile<[8], f32, vec>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type !pypto.tile<[8], f32, vec>, which does not match parameter type !pypto.tensor<[8], f32> (kind differs)

// -----

pypto.func @f(%x: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func @g(%x: !pypto.tensor<[8], f16>) {
  pypto.call @f(%x) : (!pypto.tensor<[8], f16>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type !pypto.tensor<[8], f16>, which does not match parameter type !pypto.tensor<[8], f32> (dtype differs)

// -----

pypto.func aiv @f(%x: !pypto.tile<[8], f32, vec>) {
  pypto.return
}
pypto.func aiv @g(%x: !pypto.tile<[8], f32, mat>) {
  pypto.call @f(%x) : (!pypto.tile<[8], f32, mat>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type !pypto.tile<[8], f32, mat>, which does not match parameter type !pypto.tile<[8], f32, vec> (memory space differs)

// -----

pypto.func @f(%x: !pypto.tensor<[8, 4], f32>) {
  pypto.return
}
pypto.func @g(%x: !pypto.tensor<[8, 5], f32>) {
  pypto.call @f(%x) : (!pypto.tensor<[8, 5], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type !pypto.tensor<[8, 5], f32>, which does not match parameter type !pypto.tensor<[8, 4], f32> (shape differs)

// -----

pypto.func @f(%x: !pypto.tensor<[8, 4], f32>) {
  pypto.return
}
pypto.func @g(%x: !pypto.tensor<[8], f32>) {
  pypto.call @f(%x) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #0 of the call to @f has type !pypto.tensor<[8], f32>, which does not match parameter type !pypto.tensor<[8, 4], f32> (rank differs)

// -----

pypto.func @f(%x: !pypto.tensor<[N, 4], f32>, %y: !pypto.tensor<[N, 4], f32>) {
  pypto.return
}
pypto.func @g(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[64, 4], f32>) {
  pypto.call @f(%a, %b) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[64, 4], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: argument #1 of the call to @f: symbol 'N' bound to both 128 and 64 (!pypto.tensor<[64, 4], f32> passed for !pypto.tensor<[N, 4], f32>)

// -----

pypto.func @f(%x: index) -> index {
  pypto.return %x : index
}
pypto.func @g(%x: index) {
  pypto.call @f(%x) : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: @f returns 1 values, but the call has 0 results

// -----

pypto.func @f(%x: !pypto.tensor<[N], f32>) -> !pypto.tensor<[N], f32> {
  pypto.return %x : !pypto.tensor<[N], f32>
}
pypto.func @g(%x: !pypto.tensor<[8], f32>) {
  %r = pypto.call @f(%x) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[N], f32>
  pypto.return
}

// CHECK: Operation does not verify: result #0 of the call to @f has type !pypto.tensor<[N], f32>, expected !pypto.tensor<[8], f32>

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  "pypto.submit"(%x) <{callee = @k, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (index) -> ()
  pypto.return
}

// CHECK: Operation does not verify: Expected at least 1 result, but got 0

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  "pypto.submit"(%x, %x) <{callee = @k, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (index, index) -> !pypto.task_id
  pypto.return
}

// CHECK: Operation does not verify: operand 'deps' at position 1 does not verify:
// CHECK: index should be of base attribute pypto.task_id

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  %t = pypto.submit @k(%x) : (index, index) -> ()
  pypto.return
}

// CHECK: pypto.submit has 1 arguments but 2 types

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  pypto.call @k(%x) dumps(%x, %x : index) : (index) -> ()
  pypto.return
}

// CHECK: dumps lists 2 values but 1 types

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  pypto.call @k(%x, %x) : (index) -> ()
  pypto.return
}

// CHECK: pypto.call has 2 arguments but 1 types

// -----

pypto.func @k(%x: index) {
  pypto.return
}
pypto.func @g(%x: index) {
  %t = pypto.submit @k(%x) dumps(%x, %x : index) : (index) -> ()
  pypto.return
}

// CHECK: dumps lists 2 values but 1 types

// -----

// ---- pypto.incore_scope / pypto.yield

pypto.func @f(%x: index) {
  %r = pypto.incore_scope -> (index) {
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.yield yields {{.*}} but the scope declares results

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope {
    "test.termop"() : () -> ()
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope body must end with pypto.yield

// -----

pypto.func @f(%x: index) {
  "pypto.incore_scope"() <{level = #pypto<level core_group>, operandSegmentSizes = array<i32: 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0>}> ({
  ^bb0(%a: index):
    "pypto.yield"() : () -> ()
  }) : () -> ()
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope body takes no block arguments

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope {
    pypto.incore_scope {
      pypto.yield
    }
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope cannot be nested inside another pypto.incore_scope

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope {
    scf.execute_region {
      pypto.incore_scope {
        pypto.yield
      }
      scf.yield
    }
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope cannot be nested inside another pypto.incore_scope

// -----

pypto.func incore @k(%x: index) {
  pypto.incore_scope {
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope inside incore function @k: the function already runs on a core

// -----

pypto.func aic @k(%x: index, %c: i1) {
  scf.if %c {
    pypto.incore_scope {
      pypto.yield
    }
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope inside aic function @k: the function already runs on a core

// -----

pypto.func @f(%x: index) {
  pypto.yield %x : index
}

// CHECK: Operation does not verify: 'pypto.yield' expects parent op to be one of 'pypto.incore_scope', 'pypto.manual_scope'

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope level(everywhere) {
    pypto.yield
  }
  pypto.return
}

// CHECK: Expected `aiv`, `aic`, or `core_group`.

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope split(diagonal) {
    pypto.yield
  }
  pypto.return
}

// CHECK: Expected `none`, `up_down`, or `left_right`.

// -----

pypto.func @f(%x: index) {
  pypto.incore_scope deps(%x) {
    pypto.yield
  }
  pypto.return
}

// CHECK: operand is used with type !pypto.task_id, but has been previously used or defined with type index

// -----

// ---- types and enum attributes

pypto.func @f(%x: !pypto.tensor<[8], f64>) {
  pypto.return
}

// CHECK: tensor element type must be one of f32, f16, bf16, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, got f64

// -----

pypto.func @f(%x: !pypto.tile<[8], index, vec>) {
  pypto.return
}

// CHECK: tile element type must be one of f32, f16, bf16, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, got index

// -----

pypto.func @f(%x: !pypto.tile<[8], f32, gm>) {
  pypto.return
}

// CHECK: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.

// -----

pypto.func @f(%x: !pypto.tile<[8], f32>) {
  pypto.return
}

// CHECK: Expected ','

// -----

pypto.func @f(%x: !pypto.tensor<[-4], f32>) {
  pypto.return
}

// CHECK: Expected integer literal

// -----

pypto.func @f(%x: !pypto.tensor<64x64xf32>) {
  pypto.return
}

// CHECK: '[' expected

// -----

pypto.func @f(%x: !pypto.tile<[0x40], f32, vec>) {
  pypto.return
}

// CHECK: dimension must be a decimal integer

// -----

pypto.func @f() attributes {k = #pypto<kind gpu>} {
  pypto.return
}

// CHECK: Expected `opaque`, `inline`, `incore`, `aic`, `aiv`, `orchestration`, `group`, `graph`, or `host`.

// -----

pypto.func @f() attributes {d = #pypto<dir sideways>} {
  pypto.return
}

// CHECK: Expected `in`, `out`, or `inout`.

// -----

pypto.func @f() attributes {m = #pypto<mem gm>} {
  pypto.return
}

// CHECK: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.

// -----

// ---- pypto.split_aiv

pypto.func @f() {
  pypto.incore_scope {
    "pypto.split_aiv"() <{mode = #pypto<split up_down>}> ({
    ^bb0(%a: i32):
    }) : () -> ()
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.split_aiv body takes exactly one 'index' argument (the lane id)

// -----

pypto.func @f() {
  pypto.incore_scope split(up_down) {
    pypto.split_aiv up_down (%lane: index) {
    }
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: scope combines a function-level split (up_down, pl.split(...)) with pl.split_aiv region(s); these are mutually exclusive

// -----

pypto.func orchestration @f() {
  pypto.split_aiv up_down (%lane: index) {
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.split_aiv must be inside a pypto.incore_scope or an InCore function

// -----

pypto.func @f() {
  pypto.incore_scope {
    pypto.split_aiv sideways (%lane: index) {
    }
    pypto.yield
  }
  pypto.return
}

// CHECK: Expected `none`, `up_down`, or `left_right`.

// -----

pypto.func @spmd_scope() {
  pypto.incore_scope attributes {pypto.block_dim = 0 : i64} {
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: 'pypto.block_dim' must be a positive integer, got 0 : i64

// -----

pypto.func @sync_start_without_cores() {
  pypto.incore_scope attributes {pypto.sync_start} {
    pypto.yield
  }
  pypto.return
}

// CHECK: Operation does not verify: pypto.incore_scope: 'pypto.sync_start' needs the launch's core count ('pypto.block_dim' or cores(...))
