// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The index reductions of PyPTO's catalogue (row_argmax, row_argmin, col_argmax, col_argmin):
// float tiles in, i32 indices out ([M, 1] per row, [1, N] per column), with and without the
// optional scratch tile; in the custom and the generic form.

builtin.module {
  pypto.func aiv @arg(%a: !pypto.tile<[8, 16], f16, vec>, %t: !pypto.tile<[8, 16], f16, vec>) -> (!pypto.tile<[8, 1], i32, vec>, !pypto.tile<[8, 1], i32, vec>, !pypto.tile<[1, 16], i32, vec>, !pypto.tile<[1, 16], i32, vec>) {
    %rmax = pypto.tile.row_argmax %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f16, vec>
    %rmin = pypto.tile.row_argmin %a : !pypto.tile<[8, 16], f16, vec>
    %cmax = pypto.tile.col_argmax %a : !pypto.tile<[8, 16], f16, vec>
    %cmin = pypto.tile.col_argmin %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f16, vec>
    pypto.return %rmax, %rmin, %cmax, %cmin : !pypto.tile<[8, 1], i32, vec>, !pypto.tile<[8, 1], i32, vec>, !pypto.tile<[1, 16], i32, vec>, !pypto.tile<[1, 16], i32, vec>
  }
}

// CHECK:      pypto.func aiv @arg(%a: !pypto.tile<[8, 16], f16, vec>, %t: !pypto.tile<[8, 16], f16, vec>) -> (!pypto.tile<[8, 1], i32, vec>, !pypto.tile<[8, 1], i32, vec>, !pypto.tile<[1, 16], i32, vec>, !pypto.tile<[1, 16], i32, vec>) {
// CHECK-NEXT:   %rmax = pypto.tile.row_argmax %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f16, vec>
// CHECK-NEXT:   %rmin = pypto.tile.row_argmin %a : !pypto.tile<[8, 16], f16, vec>
// CHECK-NEXT:   %cmax = pypto.tile.col_argmax %a : !pypto.tile<[8, 16], f16, vec>
// CHECK-NEXT:   %cmin = pypto.tile.col_argmin %a tmp(%t : !pypto.tile<[8, 16], f16, vec>) : !pypto.tile<[8, 16], f16, vec>
// CHECK-NEXT:   pypto.return %rmax, %rmin, %cmax, %cmin

// CHECK-GENERIC:      %rmax = "pypto.tile.row_argmax"(%a, %t) : (!pypto.tile<[8, 16], f16, vec>, !pypto.tile<[8, 16], f16, vec>) -> !pypto.tile<[8, 1], i32, vec>
// CHECK-GENERIC-NEXT: %rmin = "pypto.tile.row_argmin"(%a) : (!pypto.tile<[8, 16], f16, vec>) -> !pypto.tile<[8, 1], i32, vec>
// CHECK-GENERIC-NEXT: %cmax = "pypto.tile.col_argmax"(%a) : (!pypto.tile<[8, 16], f16, vec>) -> !pypto.tile<[1, 16], i32, vec>
// CHECK-GENERIC-NEXT: %cmin = "pypto.tile.col_argmin"(%a, %t) : (!pypto.tile<[8, 16], f16, vec>, !pypto.tile<[8, 16], f16, vec>) -> !pypto.tile<[1, 16], i32, vec>
