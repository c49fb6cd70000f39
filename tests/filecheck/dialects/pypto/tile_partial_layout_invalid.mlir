// RUN: PYPTO_VERIFY_DIAG

// Every verifier (and parse) message of the pypto.tile ops for scratch operands, partial
// tiles, windows of tiles, column families and layout, one case each.

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tile<[8, 8], f32, vec>) {
  %r = pypto.tile.row_max %a tmp(%t : !pypto.tile<[8, 8], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'tmp' [8, 8] must have the rank of 'input' [8, 16] and be at least as large in every dimension

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tile<[8, 16], f16, vec>) {
  %r = pypto.tile.row_sum %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'tmp' has element type f16, expected f32 like 'input'

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tile<[8, 16], f32, mat>) {
  %r = pypto.tile.rsqrt %a tmp(%t : !pypto.tile<[8, 16], f32, mat>) : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'tmp' are in different memory spaces vec and mat

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.fillpad %a pad(nope) : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Expected `zero`, `max`, or `min`.

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tensor<[8, 16], f32>, %i: index) {
  %r = pypto.tile.atomic_store %a, %t[%i, %i] atomic(sub) : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Expected `none`, or `add`.

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16, 2], f32, vec>, %n: index) {
  %r = pypto.tile.set_validshape %a, %n, %n : !pypto.tile<[8, 16, 2], f32, vec>, index, index
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a 2-D tile, got !pypto.tile<[8, 16, 2], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.fillpad_expand %a pad(zero) : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[4, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result shape [4, 32] must have the rank of 'input' [8, 16] and be at least as large in every dimension

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.fillpad_expand %a pad(zero) : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result !pypto.tile<[16, 16], f16, vec> must have the element type and memory space of operand 'input' !pypto.tile<[8, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.slice %a[%i, %i] : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: slice: window [16, 16] exceeds !pypto.tile<[8, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.slice %a[%i] : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[1, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has rank 2 but 1 offsets were given

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.slice %a[%i, %i] : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[1, 16], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result element type f16 differs from the source's f32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %d: !pypto.tile<[8, 16], f32, mat>, %i: index) {
  %r = pypto.tile.assemble %a into %d[%i, %i] : !pypto.tile<[8, 16], f32, vec> into !pypto.tile<[8, 16], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' is a vec tile and 'dest' a mat tile: assemble within one memory space, or an acc tile into a mat tile

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f16, vec>, %d: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.assemble %a into %d[%i, %i] : !pypto.tile<[8, 16], f16, vec> into !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has element type f16 but 'dest' has f32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 32], f32, vec>, %d: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.assemble %a into %d[%i, %i] : !pypto.tile<[8, 32], f32, vec> into !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: assemble: window [8, 32] exceeds !pypto.tile<[8, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %i: index) {
  %r = pypto.tile.read %a[%i] : !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has rank 2 but 1 offsets were given

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %v: f16, %i: index) {
  %r = pypto.tile.write %v into %a[%i, %i] : f16 into !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'value' has type f16, expected the element type f32 of 'dest'

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %v: f32, %i: index) {
  %r = pypto.tile.write %v into %a[%i] : f32 into !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dest' has rank 2 but 1 offsets were given

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %s: f16) {
  %r = pypto.tile.expands %a, %s : !pypto.tile<[8, 16], f32, vec>, f16
  pypto.return
}

// CHECK: Operation does not verify: operand 'scalar' has type f16, expected the element type f32 of 'target'

// -----

pypto.func aiv @f(%a: !pypto.tile<[8], f32, vec>) {
  %r = pypto.tile.col_sum %a : !pypto.tile<[8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a 2-D tile, got !pypto.tile<[8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %c: !pypto.tile<[2, 16], f32, vec>) {
  %r = pypto.tile.col_expand_mul %a, %c : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[2, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'col' must have shape [1, N], got !pypto.tile<[2, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %c: !pypto.tile<[1, 8], f32, vec>) {
  %r = pypto.tile.col_expand_sub %a, %c : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'col' (columns): shape mismatch, [16] vs [8]

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %c: !pypto.tile<[16], f32, vec>) {
  %r = pypto.tile.col_expand %a, %c : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'col' must be 2-D tiles, got !pypto.tile<[8, 16], f32, vec> and !pypto.tile<[16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %c: !pypto.tile<[1, 16], f16, vec>) {
  %r = pypto.tile.col_expand_add %a, %c : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'col' have different element types f32 and f16

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %c: !pypto.tile<[1, 16], f32, mat>) {
  %r = pypto.tile.col_expand_div %a, %c : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'col' are in different memory spaces vec and mat

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %r: !pypto.tile<[8, 1], f32, mat>) {
  %e = pypto.tile.row_expand_add %a, %r : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operands 'input' and 'row' are in different memory spaces vec and mat

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.reshape %a : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[8, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: reshape changes the element count: [8, 16] has 128 elements, [8, 8] has 64

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.reshape %a : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[128], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result element type f16 differs from the element type f32 of 'input'

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.reshape %a : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[128], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[128], f32, mat>, but the operands imply !pypto.tile<[128], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.transpose %a, 0, 2 : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[16, 8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: axis2 2 is out of range for the rank-2 tile !pypto.tile<[8, 16], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.transpose %a, 1, 1 : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: axis1 and axis2 are both 1: a transpose exchanges two different axes

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>) {
  %r = pypto.tile.transpose %a, 0, 1 : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result #0 has type !pypto.tile<[8, 16], f32, vec>, but the operands imply !pypto.tile<[16, 8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[16], f32, mat>) {
  %r = pypto.tile.transpose_view %a : !pypto.tile<[16], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a tile of rank 2 or more, got !pypto.tile<[16], f32, mat>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %b: !pypto.tile<[4, 16], f32, vec>) {
  %r = pypto.tile.concat %a, %b : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[4, 16], f32, vec> -> !pypto.tile<[8, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'src0' and 'src1' (rows): shape mismatch, [8] vs [4]

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %b: !pypto.tile<[8, 16], f32, mat>) {
  %r = pypto.tile.concat %a, %b : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, mat> -> !pypto.tile<[8, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'src0' and 'src1' are in different memory spaces vec and mat

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %b: !pypto.tile<[8, 16], i32, vec>) {
  %r = pypto.tile.concat %a, %b : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], i32, vec> -> !pypto.tile<[8, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'src0' and 'src1' have different element types f32 and i32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8], f32, vec>, %b: !pypto.tile<[8], f32, vec>) {
  %r = pypto.tile.concat %a, %b : !pypto.tile<[8], f32, vec>, !pypto.tile<[8], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operands 'src0' and 'src1' must be 2-D tiles, got !pypto.tile<[8], f32, vec> and !pypto.tile<[8], f32, vec>

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], i32, vec>) {
  %r = pypto.tile.tanh %a : !pypto.tile<[8, 16], i32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must have a float element type, got i32

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tensor<[8, 16], f32>, %i: index) {
  %r = pypto.tile.atomic_store %a, %t[%i, %i] atomic(none) : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: Operation does not verify: an atomic_store needs a combining kind (add); a plain write is pypto.tile.store

// -----

pypto.func aiv @f(%a: !pypto.tile<[8, 16], f32, vec>, %t: !pypto.tensor<[8, 16], f32>, %i: index) {
  %r = pypto.tile.atomic_store %a, %t[%i, %i] : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[8, 16], f32>
  pypto.return
}

// CHECK: expected 'atomic(add)' after the offsets of pypto.tile.atomic_store

// -----

pypto.func aiv @f(%x: !pypto.tensor<[N, 16], f32>, %n: index) {
  %r = pypto.tile.load %x[%n, %n] valid[%n] : !pypto.tensor<[N, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: valid shape has 1 extents for the rank-2 tile !pypto.tile<[8, 16], f32, vec>

// -----

pypto.func aiv @f(%x: !pypto.tensor<[N], f32>, %n: index) {
  %r = pypto.tile.load %x[%n] valid[%n, %n] : !pypto.tensor<[N], f32> -> !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: load: rank 2 differs from the rank 1 of !pypto.tensor<[N], f32>

// -----

pypto.func aiv @f(%x: !pypto.tensor<[N, 16], f32>, %n: index, %v: f32) {
  %r = "pypto.tile.load"(%x, %n, %n, %n, %v) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!pypto.tensor<[N, 16], f32>, index, index, index, f32) -> !pypto.tile<[8, 16], f32, vec>
  pypto.return
}

// CHECK: operand 'valid_shape' at positions 3 to 4 does not verify:
