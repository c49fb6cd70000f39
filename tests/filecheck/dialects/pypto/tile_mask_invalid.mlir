// RUN: PYPTO_VERIFY_DIAG

// Every verifier (and parse) message of the comparison, selection and triangle ops
// (dialects/tile_mask.py), one case each.

pypto.func aiv @f(%a: !pypto.tile<[16, ?], f32, vec>) {
  %m = pypto.tile.cmp %a, %a cmp(lt) : !pypto.tile<[16, ?], f32, vec>, !pypto.tile<[16, ?], f32, vec> -> !pypto.tile<[16, 32], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: the last dimension of !pypto.tile<[16, ?], f32, vec> must be static to size its predicate mask

// -----

pypto.func aiv @f(%a: !pypto.tile<[], f32, vec>, %s: f32) {
  %m = pypto.tile.cmps %a, %s cmp(lt) : !pypto.tile<[], f32, vec>, f32 -> !pypto.tile<[32], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'lhs' must be a tile of rank 1 or more, got !pypto.tile<[], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[16, 16], f32, vec>) {
  %m = pypto.tile.cmp %a, %a cmp(lt) : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[16, 16], ui8, vec>, but the operands imply !pypto.tile<[16, 32], ui8, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[16, 16], f32, vec>) {
  %m = pypto.tile.cmp %a, %a cmp(less) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Expected `eq`, `ne`, `lt`, `le`, `gt`, or `ge`.

// -----

pypto.func aiv @f(%a: !pypto.tile<[16, 16], i1, vec>) {
  %m = pypto.tile.cmp %a, %a cmp(eq) : !pypto.tile<[16, 16], i1, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'lhs' must be an integer or float tile, got !pypto.tile<[16, 16], i1, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[16, 16], f32, vec>, %s: f16) {
  %m = pypto.tile.cmps %a, %s cmp(gt) : !pypto.tile<[16, 16], f32, vec>, f16
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type f16, expected the element type f32 of 'lhs'

// -----

pypto.func aiv @f(%m: !pypto.tile<[2, 32], ui8, vec>, %a: !pypto.tile<[2, 16], ui16, vec>, %t: !pypto.tile<[1, 32], ui8, vec>, %s: i32) {
  %r = pypto.tile.sels %m, %a, %t, %s : !pypto.tile<[2, 32], ui8, vec>, !pypto.tile<[2, 16], ui16, vec>, !pypto.tile<[1, 32], ui8, vec>, i32
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type i32, expected the element type ui16 of 'src' (or i16, its bit pattern)

// -----

pypto.func aiv @f(%m: !pypto.tile<[16, 32], f32, vec>, %a: !pypto.tile<[16, 16], f32, vec>, %t: !pypto.tile<[1, 32], ui8, vec>) {
  %r = pypto.tile.sel %m, %a, %a, %t : !pypto.tile<[16, 32], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'mask' must be an 8-, 16- or 32-bit integer tile, got !pypto.tile<[16, 32], f32, vec>

// -----

pypto.func aiv @f(%m: !pypto.tile<[16, 32], ui8, mat>, %a: !pypto.tile<[16, 16], f32, vec>, %t: !pypto.tile<[1, 32], ui8, vec>) {
  %r = pypto.tile.sel %m, %a, %a, %t : !pypto.tile<[16, 32], ui8, mat>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'mask' and 'lhs' are in different memory spaces mat and vec

// -----

pypto.func aiv @f(%m: !pypto.tile<[512], ui8, vec>, %a: !pypto.tile<[16, 16], f32, vec>, %t: !pypto.tile<[1, 32], ui8, vec>) {
  %r = pypto.tile.sel %m, %a, %a, %t : !pypto.tile<[512], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'mask' [512] must have the rank of 'lhs' [16, 16]

// -----

pypto.func aiv @f(%m: !pypto.tile<[2, 8], i32, vec>, %a: !pypto.tile<[2, 264], f32, vec>, %t: !pypto.tile<[1, 32], ui8, vec>, %s: f32) {
  %r = pypto.tile.sels %m, %a, %t, %s : !pypto.tile<[2, 8], i32, vec>, !pypto.tile<[2, 264], f32, vec>, !pypto.tile<[1, 32], ui8, vec>, f32
  pypto.return
}

// CHECK: Operation does not verify: operand 'mask' !pypto.tile<[2, 8], i32, vec> does not cover 'src' [2, 264]: it needs the rows of 'src' and ceil(264 / 8) bytes per row

// -----

pypto.func aiv @f(%m: !pypto.tile<[16, 32], ui8, vec>, %a: !pypto.tile<[16, 16], f32, vec>, %t: !pypto.tile<[1, 32], ui8, mat>) {
  %r = pypto.tile.sel %m, %a, %a, %t : !pypto.tile<[16, 32], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'tmp' is a mat tile, expected a vec tile like the selected ones

// -----

pypto.func aiv @f(%d: i32) {
  %t = pypto.tile.tri %d lower : i32 -> !pypto.tile<[16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result !pypto.tile<[16], f32, vec> must be a 2-D tile

// -----

pypto.func aiv @f(%d: i32) {
  %t = pypto.tile.tri %d lower : i32 -> !pypto.tile<[16, 16], i1, vec>
  pypto.return
}

// CHECK: Operation does not verify: result must be an integer or float tile, got !pypto.tile<[16, 16], i1, vec>

// -----

pypto.func aiv @f(%d: i32) {
  %t = pypto.tile.tri %d diagonal : i32 -> !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Expected 'lower' or 'upper'
