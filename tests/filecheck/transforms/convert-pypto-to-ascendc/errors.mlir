// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p convert-pypto-to-ascendc | filecheck %s
// Conversion errors name the op and the kernel, with the backend's messages.

pypto.func incore @tensor_level(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %e = pypto.tensor.exp %x : !pypto.tensor<[8, 64], f32>
  pypto.return %e : !pypto.tensor<[8, 64], f32>
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tensor.exp' in @tensor_level: tensor-level compute must be converted to tile ops first (convert-tensor-to-tile)

// -----

pypto.func incore @cube16(%a: !pypto.tensor<[24, 16], f16>) {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[24, 16], f16> -> !pypto.tile<[24, 16], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[24, 16], f16, mat> -> !pypto.tile<[24, 16], f16, left>
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.load' in @cube16: cube tile !pypto.tile<[24, 16], f16, mat> must be 2-D with static dims that are multiples of 16

// -----

pypto.func incore @col(%x: !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 1], f32, vec>
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.load' in @col: a [8, 1] column window of !pypto.tensor<[8, 64], f32> is strided; column loads are not supported

// -----

pypto.func incore @rows(%x: !pypto.tensor<[300, 8], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[300, 8], f32> -> !pypto.tile<[300, 8], f32, vec>
  %m = pypto.tile.row_max %t : !pypto.tile<[300, 8], f32, vec> -> !pypto.tile<[300, 1], f32, vec>
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.row_max' in @rows: !pypto.tile<[300, 8], f32, vec> has 300 rows; row reductions support at most 255 rows per tile

// -----

pypto.func incore @k(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 32], f32>) -> !pypto.tensor<[8, 32], f32> {
  pypto.return %y : !pypto.tensor<[8, 32], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 64], f32>, %z: !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %s = pypto.tensor.slice %z[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tensor<[8, 32], f32>
  %r = pypto.call @k(%x, %s) : (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 32], f32>) -> !pypto.tensor<[8, 32], f32>
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.call' in @main: kernel argument !pypto.tensor<[8, 32], f32> is a strided window of !pypto.tensor<[8, 64], f32>; kernels take contiguous tensors (pass the whole tensor and offsets, or full-row slices)

// -----

// Run-time extents (#16): named row counts and row lengths are lowered (dynamic.mlir); an
// unnamed extent is refused at the parameter, and a partial tile read by an op that does not
// keep valid shapes at the reader (what it would see past the valid block is unspecified).
pypto.func incore @dynamic_cols(%a: !pypto.tensor<[64, ?], f32>) {
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower @dynamic_cols: tensor parameter %a has the dynamic shape [64, ?]: an unknown extent ('?') has no symbol to pass to the kernel (name it: pl.dynamic("N")) (docs/backend.md, "Dynamic shapes")

// -----

pypto.func incore @partial(%a: !pypto.tensor<[16, 64], f32>, %n: index, out %o: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = pypto.tile.load %a[%c0, %c0] valid[%n, %c64] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %p = pypto.tile.set_validshape %t, %n, %c64 : !pypto.tile<[16, 64], f32, vec>, index, index
  %e = pypto.tile.move %p : !pypto.tile<[16, 64], f32, vec> -> !pypto.tile<[16, 64], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %w : !pypto.tensor<[16, 64], f32>
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.move' in @partial: it reads the partial tile %p (a valid shape); the Ascend C backend lowers a valid shape where a store, a fillpad, an elementwise op or a row reduction uses it

// -----

// A group (a mixed kernel split by expand-mixed-kernel) becomes a MIX kernel once its rings
// go through global memory; an L1 ('mat') tile has no path there on dav-c220.
pypto.func aic @m_aic(%a: !pypto.tensor<[16, 16], f16>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[16, 16], f16>) {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f16, vec>
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[16, 16], f16>) {
  pypto.call @m_aic(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.call @m_aiv(%a) : (!pypto.tensor<[16, 16], f16>) -> ()
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.cross_core.push' in @m_aic: a 'mat' (L1) tile has no path to global memory on dav-c220; push the 'acc' result or load the tile from its tensor

// -----

// An incore kernel expand-mixed-kernel cannot split: the conversion gives the pass's reason.
pypto.func incore @unsplittable(%a: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
  %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
  %f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>
  %o2 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
  pypto.return %o2 : !pypto.tensor<[16, 16], f32>
}
// CHECK: ascendc: cannot lower @unsplittable: it mixes cube and vector ops and expand-mixed-kernel cannot split it: 'pypto.tile.full' runs on the cube (AIC) core but uses %x

// -----

pypto.func incore @cmp_int_lt(%x: !pypto.tensor<[8, 64], i32>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i32> -> !pypto.tile<[8, 64], i32, vec>
  %m = pypto.tile.cmp %a, %a cmp(lt) : !pypto.tile<[8, 64], i32, vec>, !pypto.tile<[8, 64], i32, vec>
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.cmp' in @cmp_int_lt: Ascend C Compare compares int32_t elements with CMPMODE::EQ only (dav-c220), not LT; pypto.tile.cmp cmp(lt) on i32 tiles is not supported by the Ascend C backend

// -----

pypto.func incore @sels_i8(%x: !pypto.tensor<[8, 64], i8>, %m: !pypto.tensor<[8, 32], ui8>, %s: i8) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], i8> -> !pypto.tile<[8, 64], i8, vec>
  %k = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[8, 32], ui8> -> !pypto.tile<[8, 32], ui8, vec>
  %t = pypto.tile.create : !pypto.tile<[1, 32], i8, vec>
  %r = pypto.tile.sels %k, %a, %t, %s : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 64], i8, vec>, !pypto.tile<[1, 32], i8, vec>, i8
  pypto.return
}
// CHECK: convert-pypto-to-ascendc: cannot lower 'pypto.tile.sels' in @sels_i8: Ascend C Select exists for half and float only (dav-c220), and i8 elements are not 2 or 4 bytes wide to be selected as their bits; pypto.tile.sels on i8 tiles is not supported by the Ascend C backend
