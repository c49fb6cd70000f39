// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Comparisons into packed predicate masks (a ui8 [M, round_up(ceil(N / 8), 32)] tile), the
// selections that read them (any 8/16/32-bit integer mask carrier; a ui16 source takes an i16
// scalar, its bit pattern), triangles, and the tensor comparisons (0/1 tensors); in the
// custom and the generic form.

builtin.module {
  pypto.func aiv @masks(%a: !pypto.tile<[16, 16], f32, vec>, %b: !pypto.tile<[16, 16], f32, vec>, %s: f32, %t: !pypto.tile<[1, 32], ui8, vec>, %d: i32, %u: !pypto.tile<[2, 16], ui16, vec>, %k: i16, %c: !pypto.tile<[2, 8], i32, vec>, %w: !pypto.tile<[2, 264], f16, vec>, %h: f16) -> !pypto.tile<[16, 16], f32, vec> {
    %m = pypto.tile.cmp %a, %b cmp(lt) : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>
    %n = pypto.tile.cmps %a, %s cmp(ge) : !pypto.tile<[16, 16], f32, vec>, f32
    %wide = pypto.tile.cmps %w, %h cmp(ne) : !pypto.tile<[2, 264], f16, vec>, f16
    %r = pypto.tile.sel %m, %a, %b, %t : !pypto.tile<[16, 32], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
    %q = pypto.tile.sels %n, %r, %t, %s : !pypto.tile<[16, 32], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>, f32
    %v = pypto.tile.sels %c, %u, %t, %k : !pypto.tile<[2, 8], i32, vec>, !pypto.tile<[2, 16], ui16, vec>, !pypto.tile<[1, 32], ui8, vec>, i16
    %lo = pypto.tile.tri %d lower : i32 -> !pypto.tile<[16, 32], f32, vec>
    %up = pypto.tile.tri %d upper : i32 -> !pypto.tile<[16, 32], i16, vec>
    pypto.return %q : !pypto.tile<[16, 16], f32, vec>
  }
  pypto.func incore @tensors(%x: !pypto.tensor<[16, 16], f32>, %y: !pypto.tensor<[16, 16], f32>, %s: f32) -> !pypto.tensor<[16, 16], f32> {
    %e = pypto.tensor.cmp %x, %y cmp(eq) : !pypto.tensor<[16, 16], f32>
    %g = pypto.tensor.cmps %e, %s cmp(gt) : !pypto.tensor<[16, 16], f32>, f32
    pypto.return %g : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK:      %m = pypto.tile.cmp %a, %b cmp(lt) : !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT: %n = pypto.tile.cmps %a, %s cmp(ge) : !pypto.tile<[16, 16], f32, vec>, f32
// CHECK-NEXT: %wide = pypto.tile.cmps %w, %h cmp(ne) : !pypto.tile<[2, 264], f16, vec>, f16
// CHECK-NEXT: %r = pypto.tile.sel %m, %a, %b, %t : !pypto.tile<[16, 32], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
// CHECK-NEXT: %q = pypto.tile.sels %n, %r, %t, %s : !pypto.tile<[16, 32], ui8, vec>, !pypto.tile<[16, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>, f32
// CHECK-NEXT: %v = pypto.tile.sels %c, %u, %t, %k : !pypto.tile<[2, 8], i32, vec>, !pypto.tile<[2, 16], ui16, vec>, !pypto.tile<[1, 32], ui8, vec>, i16
// CHECK-NEXT: %lo = pypto.tile.tri %d lower : i32 -> !pypto.tile<[16, 32], f32, vec>
// CHECK-NEXT: %up = pypto.tile.tri %d upper : i32 -> !pypto.tile<[16, 32], i16, vec>
// CHECK:      %e = pypto.tensor.cmp %x, %y cmp(eq) : !pypto.tensor<[16, 16], f32>
// CHECK-NEXT: %g = pypto.tensor.cmps %e, %s cmp(gt) : !pypto.tensor<[16, 16], f32>, f32

// CHECK-GENERIC:      %m = "pypto.tile.cmp"(%a, %b) <{cmp = #pypto<cmp lt>}> : (!pypto.tile<[16, 16], f32, vec>, !pypto.tile<[16, 16], f32, vec>) -> !pypto.tile<[16, 32], ui8, vec>
// CHECK-GENERIC:      %wide = "pypto.tile.cmps"(%w, %h) <{cmp = #pypto<cmp ne>}> : (!pypto.tile<[2, 264], f16, vec>, f16) -> !pypto.tile<[2, 64], ui8, vec>
// CHECK-GENERIC:      %lo = "pypto.tile.tri"(%d) : (i32) -> !pypto.tile<[16, 32], f32, vec>
// CHECK-GENERIC-NEXT: %up = "pypto.tile.tri"(%d) <{upper}> : (i32) -> !pypto.tile<[16, 32], i16, vec>
// CHECK-GENERIC:      %e = "pypto.tensor.cmp"(%x, %y) <{cmp = #pypto<cmp eq>}> : (!pypto.tensor<[16, 16], f32>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
