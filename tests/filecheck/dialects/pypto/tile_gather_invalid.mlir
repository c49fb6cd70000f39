// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of pypto.tile.mgather, gatherb and mscatter, one case each.

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], i64>, %i: !pypto.tile<[1, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], i64>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], i64, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'mem' has element type i64; expected an 8/16/32-bit integer, f16, bf16 or f32

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[1, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], f16, vec>
  pypto.return
}

// CHECK: Operation does not verify: result element type f16 differs from the table's f32

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tensor<[1, 16], i32>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[1, 16], i32> -> !pypto.tile<[16, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: a vec result takes operand 'idx' as a vec tile, got !pypto.tensor<[1, 16], i32>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[1, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: a mat result takes operand 'idx' as a GM tensor, got !pypto.tile<[1, 16], i32, vec>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tensor<[1, 16], i32>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[1, 16], i32> -> !pypto.tile<[16, 32], f32, left>
  pypto.return
}

// CHECK: Operation does not verify: the result must be a vec or mat tile, got !pypto.tile<[16, 32], f32, left>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[1, 16], i16, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i16, vec> -> !pypto.tile<[16, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'idx' must hold i32 indices, got !pypto.tile<[1, 16], i16, vec>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i elem : !pypto.tensor<[64, 32], f32>, !pypto.tile<[16], i32, vec> -> !pypto.tile<[16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'idx' must be 2-D with static extents, got !pypto.tile<[16], i32, vec>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64], f32>, %i: !pypto.tile<[1, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 64], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: a row gather needs a table of rank >= 2 (rows of elements), got !pypto.tensor<[64], f32>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[2, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[2, 16], i32, vec> -> !pypto.tile<[2, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: a row gather into a vec tile takes [1, R] or [R, 1] indices, got !pypto.tile<[2, 16], i32, vec>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[1, 16], i32, vec>, %s: !pypto.tensor<[1024], f32>) {
  %r = pypto.tile.mgather %m, %i scratch(%s : !pypto.tensor<[1024], f32>) row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'scratch' belongs to an elem gather into a mat tile only

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tile<[1, 16], i32, vec>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result shape [16, 16] should be [16, 32]

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tensor<[1, 8], i32>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[1, 8], i32> -> !pypto.tile<[8, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: a mat result has rows a multiple of 16 and columns a multiple of 8 (32 bytes), got !pypto.tile<[8, 32], f32, mat>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tensor<[16, 1], i32>) {
  %r = pypto.tile.mgather %m, %i row : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[16, 1], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: a row gather into a mat tile takes [1, R] indices, got !pypto.tensor<[16, 1], i32>

// -----

pypto.func aiv @f(%m: !pypto.tensor<[64, 32], f32>, %i: !pypto.tensor<[1, 16], i32>, %s: !pypto.tensor<[1024], f32>) {
  %r = pypto.tile.mgather %m, %i scratch(%s : !pypto.tensor<[1024], f32>) row : !pypto.tensor<[64, 32], f32>, !pypto.tensor<[1, 16], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'scratch' belongs to an elem gather into a mat tile only

// -----

pypto.func aiv @f(%m: !pypto.tensor<[1024], f32>, %i: !pypto.tensor<[16, 32], i32>) {
  %r = pypto.tile.mgather %m, %i elem : !pypto.tensor<[1024], f32>, !pypto.tensor<[16, 32], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: an elem gather into a mat tile needs a GM 'scratch' tensor

// -----

pypto.func aiv @f(%m: !pypto.tensor<[1024], f32>, %i: !pypto.tensor<[16, 32], i32>, %s: !pypto.tensor<[1024], f16>) {
  %r = pypto.tile.mgather %m, %i scratch(%s : !pypto.tensor<[1024], f16>) elem : !pypto.tensor<[1024], f32>, !pypto.tensor<[16, 32], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'scratch' has element type f16, expected the table's f32

// -----

pypto.func aiv @f(%m: !pypto.tensor<[1024], f32>, %i: !pypto.tensor<[16, 32], i32>, %s: !pypto.tensor<[256], f32>) {
  %r = pypto.tile.mgather %m, %i scratch(%s : !pypto.tensor<[256], f32>) elem : !pypto.tensor<[1024], f32>, !pypto.tensor<[16, 32], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'scratch' !pypto.tensor<[256], f32> must be static and hold at least 512 elements

// -----

pypto.func aiv @f(%m: !pypto.tensor<[1024], f32>, %i: !pypto.tensor<[16, 32], i32>) {
  %r = pypto.tile.mgather %m, %i scratch(%m : !pypto.tensor<[1024], f32>) elem : !pypto.tensor<[1024], f32>, !pypto.tensor<[16, 32], i32> -> !pypto.tile<[16, 32], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: operand 'scratch' must be a tensor of its own, not the table or the indices

// -----

pypto.func aiv @f(%s: !pypto.tile<[1, 64], i64, vec>, %o: !pypto.tile<[1, 8], ui32, vec>) {
  %r = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], i64, vec>, !pypto.tile<[1, 8], ui32, vec> -> !pypto.tile<[1, 32], i64, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has element type i64; expected an 8/16/32-bit integer, f16, bf16 or f32

// -----

pypto.func aiv @f(%s: !pypto.tile<[1, 64], f32, mat>, %o: !pypto.tile<[1, 8], ui32, vec>) {
  %r = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], f32, mat>, !pypto.tile<[1, 8], ui32, vec> -> !pypto.tile<[1, 64], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' must be a vec tile, got !pypto.tile<[1, 64], f32, mat>

// -----

pypto.func aiv @f(%s: !pypto.tile<[1, 64], f32, vec>, %o: !pypto.tile<[1, 8], i32, vec>) {
  %r = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], f32, vec>, !pypto.tile<[1, 8], i32, vec> -> !pypto.tile<[1, 64], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'offsets' must hold u32 byte offsets, got !pypto.tile<[1, 8], i32, vec>

// -----

pypto.func aiv @f(%s: !pypto.tile<[1, 64], f32, vec>, %o: !pypto.tile<[1, 4], ui32, vec>) {
  %r = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], f32, vec>, !pypto.tile<[1, 4], ui32, vec> -> !pypto.tile<[1, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: operand 'offsets' needs rows of a multiple of 8 offsets (32 bytes), got !pypto.tile<[1, 4], ui32, vec>

// -----

pypto.func aiv @f(%s: !pypto.tile<[1, 64], f32, vec>, %o: !pypto.tile<[1, 8], ui32, vec>) {
  %r = pypto.tile.gatherb %s, %o : !pypto.tile<[1, 64], f32, vec>, !pypto.tile<[1, 8], ui32, vec> -> !pypto.tile<[1, 32], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: result !pypto.tile<[1, 32], f32, vec> should be !pypto.tile<[1, 64], f32, vec>: one 32-byte block per offset

// -----

pypto.func aiv @f(%s: !pypto.tile<[8, 32], i8, vec>, %i: !pypto.tile<[8, 32], i32, vec>, %d: !pypto.tensor<[256], i8>) {
  %r = pypto.tile.mscatter %s, %i into %d : !pypto.tile<[8, 32], i8, vec>, !pypto.tile<[8, 32], i32, vec> into !pypto.tensor<[256], i8>
  pypto.return
}

// CHECK: Operation does not verify: operand 'source' has element type i8; expected f16, f32, i16 or i32

// -----

pypto.func aiv @f(%s: !pypto.tile<[8, 32], f32, vec>, %i: !pypto.tile<[8, 32], i32, mat>, %d: !pypto.tensor<[256], f32>) {
  %r = pypto.tile.mscatter %s, %i into %d : !pypto.tile<[8, 32], f32, vec>, !pypto.tile<[8, 32], i32, mat> into !pypto.tensor<[256], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'idx' must be a vec tile, got !pypto.tile<[8, 32], i32, mat>

// -----

pypto.func aiv @f(%s: !pypto.tile<[8, 32], f32, vec>, %i: !pypto.tile<[8, 16], i32, vec>, %d: !pypto.tensor<[256], f32>) {
  %r = pypto.tile.mscatter %s, %i into %d : !pypto.tile<[8, 32], f32, vec>, !pypto.tile<[8, 16], i32, vec> into !pypto.tensor<[256], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'idx' must be an i32 tile of the shape of 'source' !pypto.tile<[8, 32], f32, vec>, got !pypto.tile<[8, 16], i32, vec>

// -----

pypto.func aiv @f(%s: !pypto.tile<[8, 32], f32, vec>, %i: !pypto.tile<[8, 32], i32, vec>, %d: !pypto.tensor<[256], f16>) {
  %r = pypto.tile.mscatter %s, %i into %d : !pypto.tile<[8, 32], f32, vec>, !pypto.tile<[8, 32], i32, vec> into !pypto.tensor<[256], f16>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dest' has element type f16 but 'source' has f32

// -----

pypto.func aiv @f(%s: !pypto.tile<[8, 32], f32, vec>, %i: !pypto.tile<[8, 32], i32, vec>, %d: !pypto.tensor<[], f32>) {
  %r = pypto.tile.mscatter %s, %i into %d : !pypto.tile<[8, 32], f32, vec>, !pypto.tile<[8, 32], i32, vec> into !pypto.tensor<[], f32>
  pypto.return
}

// CHECK: Operation does not verify: operand 'dest' must have at least one dimension, got !pypto.tensor<[], f32>
