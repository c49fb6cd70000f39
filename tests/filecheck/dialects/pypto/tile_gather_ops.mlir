// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The indexed data movement ops (pypto_xdsl/dialects/tile_gather.py): mgather by row and by
// element into vec and mat tiles (each out-of-bounds policy, the elem form's scratch),
// gatherb with and without a change of element type, mscatter; custom and generic forms.

builtin.module {
  pypto.func aiv @g(%mem: !pypto.tensor<[64, 32], f32>, %row: !pypto.tile<[1, 16], i32, vec>, %col: !pypto.tile<[16, 1], i32, vec>, %flat: !pypto.tensor<[256], bf16>, %ie: !pypto.tile<[8, 32], i32, vec>) -> (!pypto.tile<[16, 32], f32, vec>, !pypto.tile<[16, 32], f32, vec>, !pypto.tile<[8, 32], bf16, vec>, !pypto.tile<[8, 32], bf16, vec>) {
    %a = pypto.tile.mgather %mem, %row row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], f32, vec>
    %b = pypto.tile.mgather %mem, %col row oob(clamp) : !pypto.tensor<[64, 32], f32>, !pypto.tile<[16, 1], i32, vec> -> !pypto.tile<[16, 32], f32, vec>
    %c = pypto.tile.mgather %flat, %ie elem oob(wrap) : !pypto.tensor<[256], bf16>, !pypto.tile<[8, 32], i32, vec> -> !pypto.tile<[8, 32], bf16, vec>
    %d = pypto.tile.mgather %flat, %ie elem oob(zero) : !pypto.tensor<[256], bf16>, !pypto.tile<[8, 32], i32, vec> -> !pypto.tile<[8, 32], bf16, vec>
    pypto.return %a, %b, %c, %d : !pypto.tile<[16, 32], f32, vec>, !pypto.tile<[16, 32], f32, vec>, !pypto.tile<[8, 32], bf16, vec>, !pypto.tile<[8, 32], bf16, vec>
  }
  pypto.func aic @m(%mem: !pypto.tensor<[64, 32], f16>, %row: !pypto.tensor<[1, 32], i32>, %flat: !pypto.tensor<[1024], i8>, %ie: !pypto.tensor<[32, 32], i32>, %s: !pypto.tensor<[1056], i8>) -> (!pypto.tile<[32, 32], f16, mat>, !pypto.tile<[32, 32], i8, mat>) {
    %a = pypto.tile.mgather %mem, %row row : !pypto.tensor<[64, 32], f16>, !pypto.tensor<[1, 32], i32> -> !pypto.tile<[32, 32], f16, mat>
    %b = pypto.tile.mgather %flat, %ie scratch(%s : !pypto.tensor<[1056], i8>) elem oob(zero) : !pypto.tensor<[1024], i8>, !pypto.tensor<[32, 32], i32> -> !pypto.tile<[32, 32], i8, mat>
    pypto.return %a, %b : !pypto.tile<[32, 32], f16, mat>, !pypto.tile<[32, 32], i8, mat>
  }
  pypto.func aiv @b(%src: !pypto.tile<[1, 256], f32, vec>, %off: !pypto.tile<[4, 8], ui32, vec>) -> (!pypto.tile<[4, 64], f32, vec>, !pypto.tile<[4, 128], ui16, vec>) {
    %a = pypto.tile.gatherb %src, %off : !pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 64], f32, vec>
    %b = pypto.tile.gatherb %src, %off : !pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 128], ui16, vec>
    pypto.return %a, %b : !pypto.tile<[4, 64], f32, vec>, !pypto.tile<[4, 128], ui16, vec>
  }
  pypto.func aiv @s(%v: !pypto.tile<[8, 32], f16, vec>, %i: !pypto.tile<[8, 32], i32, vec>, %d: !pypto.tensor<[16, 32], f16>) -> !pypto.tensor<[16, 32], f16> {
    %r = pypto.tile.mscatter %v, %i into %d : !pypto.tile<[8, 32], f16, vec>, !pypto.tile<[8, 32], i32, vec> into !pypto.tensor<[16, 32], f16>
    pypto.return %r : !pypto.tensor<[16, 32], f16>
  }
}

// CHECK:      %a = pypto.tile.mgather %mem, %row row : !pypto.tensor<[64, 32], f32>, !pypto.tile<[1, 16], i32, vec> -> !pypto.tile<[16, 32], f32, vec>
// CHECK-NEXT: %b = pypto.tile.mgather %mem, %col row oob(clamp) : !pypto.tensor<[64, 32], f32>, !pypto.tile<[16, 1], i32, vec> -> !pypto.tile<[16, 32], f32, vec>
// CHECK-NEXT: %c = pypto.tile.mgather %flat, %ie elem oob(wrap) : !pypto.tensor<[256], bf16>, !pypto.tile<[8, 32], i32, vec> -> !pypto.tile<[8, 32], bf16, vec>
// CHECK-NEXT: %d = pypto.tile.mgather %flat, %ie elem oob(zero) : !pypto.tensor<[256], bf16>, !pypto.tile<[8, 32], i32, vec> -> !pypto.tile<[8, 32], bf16, vec>
// CHECK:      %a = pypto.tile.mgather %mem, %row row : !pypto.tensor<[64, 32], f16>, !pypto.tensor<[1, 32], i32> -> !pypto.tile<[32, 32], f16, mat>
// CHECK-NEXT: %b = pypto.tile.mgather %flat, %ie scratch(%s : !pypto.tensor<[1056], i8>) elem oob(zero) : !pypto.tensor<[1024], i8>, !pypto.tensor<[32, 32], i32> -> !pypto.tile<[32, 32], i8, mat>
// CHECK:      %a = pypto.tile.gatherb %src, %off : !pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 64], f32, vec>
// CHECK-NEXT: %b = pypto.tile.gatherb %src, %off : !pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec> -> !pypto.tile<[4, 128], ui16, vec>
// CHECK:      %r = pypto.tile.mscatter %v, %i into %d : !pypto.tile<[8, 32], f16, vec>, !pypto.tile<[8, 32], i32, vec> into !pypto.tensor<[16, 32], f16>

// CHECK-GENERIC:      %a = "pypto.tile.mgather"(%mem, %row) <{coalesce = #pypto<coalesce row>, oob = #pypto<oob undefined>}>
// CHECK-GENERIC:      %b = "pypto.tile.mgather"(%flat, %ie, %s) <{coalesce = #pypto<coalesce elem>, oob = #pypto<oob zero>}>
// CHECK-GENERIC:      %a = "pypto.tile.gatherb"(%src, %off) : (!pypto.tile<[1, 256], f32, vec>, !pypto.tile<[4, 8], ui32, vec>) -> !pypto.tile<[4, 64], f32, vec>
// CHECK-GENERIC:      %r = "pypto.tile.mscatter"(%v, %i, %d) : (!pypto.tile<[8, 32], f16, vec>, !pypto.tile<[8, 32], i32, vec>, !pypto.tensor<[16, 32], f16>) -> !pypto.tensor<[16, 32], f16>
