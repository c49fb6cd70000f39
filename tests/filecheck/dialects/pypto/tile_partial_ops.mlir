// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The pypto.tile ops for scratch and partial tiles, element access, windows of tiles and
// atomic stores, in the custom and the generic form.

builtin.module {
  pypto.func aiv @partial(%x: !pypto.tensor<[16, 128], f32>, out %y: !pypto.tensor<[16, 128], f32>, %n: index, %v: f32) -> !pypto.tensor<[16, 128], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
    %p = pypto.tile.set_validshape %t, %c16, %n : !pypto.tile<[16, 128], f32, vec>, index, index
    %tail = pypto.tile.load %x[%c1, %c0] valid[%n, %c16] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
    %f = pypto.tile.fillpad %p pad(min) : !pypto.tile<[16, 128], f32, vec>
    %z = pypto.tile.fillpad %p pad(zero) : !pypto.tile<[16, 128], f32, vec>
    %big = pypto.tile.fillpad_expand %p pad(max) : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[32, 128], f32, vec>
    %buf = pypto.tile.create : !pypto.tile<[16, 128], f32, vec>
    %w = pypto.tile.slice %f[%c0, %c0] : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[1, 128], f32, vec>
    %a = pypto.tile.assemble %w into %buf[%c1, %c0] : !pypto.tile<[1, 128], f32, vec> into !pypto.tile<[16, 128], f32, vec>
    %e = pypto.tile.read %a[%c1, %c0] : !pypto.tile<[16, 128], f32, vec>
    %b = pypto.tile.write %v into %a[%c0, %c0] : f32 into !pypto.tile<[16, 128], f32, vec>
    %s = pypto.tile.adds %b, %e : !pypto.tile<[16, 128], f32, vec>, f32
    %r = pypto.tile.atomic_store %s, %y[%c0, %c0] atomic(add) : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
    %r2 = pypto.tile.store %z, %r[%c0, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
    pypto.return %r2 : !pypto.tensor<[16, 128], f32>
  }
  pypto.func aic @acc_into_mat(%m: !pypto.tile<[32, 32], f32, mat>, %acc: !pypto.tile<[32, 16], f32, acc>) -> !pypto.tile<[32, 16], f32, mat> {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %r = pypto.tile.assemble %acc into %m[%c0, %c16] : !pypto.tile<[32, 16], f32, acc> into !pypto.tile<[32, 32], f32, mat>
    %k = pypto.tile.transpose_view %r : !pypto.tile<[32, 32], f32, mat>
    %w = pypto.tile.slice %k[%c0, %c0] : !pypto.tile<[32, 32], f32, mat> -> !pypto.tile<[32, 16], f32, mat>
    pypto.return %w : !pypto.tile<[32, 16], f32, mat>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func aiv @partial(%x: !pypto.tensor<[16, 128], f32>, out %y: !pypto.tensor<[16, 128], f32>, %n: index, %v: f32) -> !pypto.tensor<[16, 128], f32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %p = pypto.tile.set_validshape %t, %c16, %n : !pypto.tile<[16, 128], f32, vec>, index, index
// CHECK-NEXT:     %tail = pypto.tile.load %x[%c1, %c0] valid[%n, %c16] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:     %f = pypto.tile.fillpad %p pad(min) : !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %z = pypto.tile.fillpad %p pad(zero) : !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %big = pypto.tile.fillpad_expand %p pad(max) : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[32, 128], f32, vec>
// CHECK-NEXT:     %buf = pypto.tile.create : !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %w = pypto.tile.slice %f[%c0, %c0] : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[1, 128], f32, vec>
// CHECK-NEXT:     %a = pypto.tile.assemble %w into %buf[%c1, %c0] : !pypto.tile<[1, 128], f32, vec> into !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %e = pypto.tile.read %a[%c1, %c0] : !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %b = pypto.tile.write %v into %a[%c0, %c0] : f32 into !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT:     %s = pypto.tile.adds %b, %e : !pypto.tile<[16, 128], f32, vec>, f32
// CHECK-NEXT:     %r = pypto.tile.atomic_store %s, %y[%c0, %c0] atomic(add) : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
// CHECK-NEXT:     %r2 = pypto.tile.store %z, %r[%c0, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
// CHECK-NEXT:     pypto.return %r2 : !pypto.tensor<[16, 128], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aic @acc_into_mat(%m: !pypto.tile<[32, 32], f32, mat>, %acc: !pypto.tile<[32, 16], f32, acc>) -> !pypto.tile<[32, 16], f32, mat> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %r = pypto.tile.assemble %acc into %m[%c0, %c16] : !pypto.tile<[32, 16], f32, acc> into !pypto.tile<[32, 32], f32, mat>
// CHECK-NEXT:     %k = pypto.tile.transpose_view %r : !pypto.tile<[32, 32], f32, mat>
// CHECK-NEXT:     %w = pypto.tile.slice %k[%c0, %c0] : !pypto.tile<[32, 32], f32, mat> -> !pypto.tile<[32, 16], f32, mat>
// CHECK-NEXT:     pypto.return %w : !pypto.tile<[32, 16], f32, mat>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "partial", function_type = (!pypto.tensor<[16, 128], f32>, !pypto.tensor<[16, 128], f32>, index, f32) -> !pypto.tensor<[16, 128], f32>, kind = #pypto<kind aiv>, arg_dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir in>, #pypto<dir in>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: !pypto.tensor<[16, 128], f32>, %y: !pypto.tensor<[16, 128], f32>, %n: index, %v: f32):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %c16 = "arith.constant"() <{value = 16 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %t = "pypto.tile.load"(%x, %c0, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[16, 128], f32>, index, index) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %p = "pypto.tile.set_validshape"(%t, %c16, %n) : (!pypto.tile<[16, 128], f32, vec>, index, index) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %tail = "pypto.tile.load"(%x, %c1, %c0, %n, %c16) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!pypto.tensor<[16, 128], f32>, index, index, index, index) -> !pypto.tile<[32, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %f = "pypto.tile.fillpad"(%p) <{pad = #pypto<pad min>}> : (!pypto.tile<[16, 128], f32, vec>) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %z = "pypto.tile.fillpad"(%p) <{pad = #pypto<pad zero>}> : (!pypto.tile<[16, 128], f32, vec>) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %big = "pypto.tile.fillpad_expand"(%p) <{pad = #pypto<pad max>}> : (!pypto.tile<[16, 128], f32, vec>) -> !pypto.tile<[32, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %buf = "pypto.tile.create"() : () -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %w = "pypto.tile.slice"(%f, %c0, %c0) : (!pypto.tile<[16, 128], f32, vec>, index, index) -> !pypto.tile<[1, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %a = "pypto.tile.assemble"(%w, %buf, %c1, %c0) : (!pypto.tile<[1, 128], f32, vec>, !pypto.tile<[16, 128], f32, vec>, index, index) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %e = "pypto.tile.read"(%a, %c1, %c0) : (!pypto.tile<[16, 128], f32, vec>, index, index) -> f32
// CHECK-GENERIC-NEXT:     %b = "pypto.tile.write"(%v, %a, %c0, %c0) : (f32, !pypto.tile<[16, 128], f32, vec>, index, index) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %s = "pypto.tile.adds"(%b, %e) : (!pypto.tile<[16, 128], f32, vec>, f32) -> !pypto.tile<[16, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %r = "pypto.tile.atomic_store"(%s, %y, %c0, %c0) <{atomic = #pypto<atomic add>}> : (!pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>, index, index) -> !pypto.tensor<[16, 128], f32>
// CHECK-GENERIC-NEXT:     %r2 = "pypto.tile.store"(%z, %r, %c0, %c0) : (!pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>, index, index) -> !pypto.tensor<[16, 128], f32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%r2) : (!pypto.tensor<[16, 128], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "acc_into_mat", function_type = (!pypto.tile<[32, 32], f32, mat>, !pypto.tile<[32, 16], f32, acc>) -> !pypto.tile<[32, 16], f32, mat>, kind = #pypto<kind aic>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%m: !pypto.tile<[32, 32], f32, mat>, %acc: !pypto.tile<[32, 16], f32, acc>):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %c16 = "arith.constant"() <{value = 16 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %r = "pypto.tile.assemble"(%acc, %m, %c0, %c16) : (!pypto.tile<[32, 16], f32, acc>, !pypto.tile<[32, 32], f32, mat>, index, index) -> !pypto.tile<[32, 32], f32, mat>
// CHECK-GENERIC-NEXT:     %k = "pypto.tile.transpose_view"(%r) : (!pypto.tile<[32, 32], f32, mat>) -> !pypto.tile<[32, 32], f32, mat>
// CHECK-GENERIC-NEXT:     %w = "pypto.tile.slice"(%k, %c0, %c0) : (!pypto.tile<[32, 32], f32, mat>, index, index) -> !pypto.tile<[32, 16], f32, mat>
// CHECK-GENERIC-NEXT:     "pypto.return"(%w) : (!pypto.tile<[32, 16], f32, mat>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
