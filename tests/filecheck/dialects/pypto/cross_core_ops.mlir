// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Every pypto.cross_core op and a group function, in the custom and the generic form.

builtin.module {
  pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    %back = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
    pypto.cross_core.wait_flag from aiv
    pypto.cross_core.set_flag to aiv
    pypto.cross_core.set_flag to aiv id(3)
    pypto.return
  }
  pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %r = pypto.tile.relu %v : !pypto.tile<[16, 16], f32, vec>
    %h = pypto.tile.cast %r : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.push %h to aic slots(2) : !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.set_flag to aic
    pypto.cross_core.wait_flag from aic
    pypto.cross_core.wait_flag from aic id(3)
    pypto.cross_core.set_flag among aiv id(2)
    pypto.cross_core.wait_flag among aiv id(2)
    %o2 = pypto.tile.store %r, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    pypto.call @k_aic(%a, %b, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
    %r = pypto.call @k_aiv(%a, %b, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
    pypto.return %r : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
// CHECK-NEXT:     %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
// CHECK-NEXT:     %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
// CHECK-NEXT:     %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
// CHECK-NEXT:     %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
// CHECK-NEXT:     pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
// CHECK-NEXT:     %back = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
// CHECK-NEXT:     pypto.cross_core.wait_flag from aiv
// CHECK-NEXT:     pypto.cross_core.set_flag to aiv
// CHECK-NEXT:     pypto.cross_core.set_flag to aiv id(3)
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:     %r = pypto.tile.relu %v : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:     %h = pypto.tile.cast %r : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
// CHECK-NEXT:     pypto.cross_core.push %h to aic slots(2) : !pypto.tile<[16, 16], f16, vec>
// CHECK-NEXT:     pypto.cross_core.set_flag to aic
// CHECK-NEXT:     pypto.cross_core.wait_flag from aic
// CHECK-NEXT:     pypto.cross_core.wait_flag from aic id(3)
// CHECK-NEXT:     pypto.cross_core.set_flag among aiv id(2)
// CHECK-NEXT:     pypto.cross_core.wait_flag among aiv id(2)
// CHECK-NEXT:     %o2 = pypto.tile.store %r, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
// CHECK-NEXT:     pypto.return %o2 : !pypto.tensor<[16, 16], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
// CHECK-NEXT:     pypto.call @k_aic(%a, %b, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
// CHECK-NEXT:     %r = pypto.call @k_aiv(%a, %b, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
// CHECK-NEXT:     pypto.return %r : !pypto.tensor<[16, 16], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC: "pypto.cross_core.push"(%acc) <{pipe = #pypto<pipe c2v>, slots = 2 : i64}> : (!pypto.tile<[16, 16], f32, acc>) -> ()
// CHECK-GENERIC: "pypto.cross_core.pop"() <{pipe = #pypto<pipe v2c>, slots = 2 : i64}> : () -> !pypto.tile<[16, 16], f16, mat>
// CHECK-GENERIC: "pypto.cross_core.wait_flag"() <{pipe = #pypto<pipe v2c>}> : () -> ()
// CHECK-GENERIC: "pypto.cross_core.set_flag"() <{pipe = #pypto<pipe c2v>}> : () -> ()
// CHECK-GENERIC: "pypto.cross_core.set_flag"() <{pipe = #pypto<pipe c2v>, id = 3 : i64}> : () -> ()
// CHECK-GENERIC: "pypto.cross_core.set_flag"() <{pipe = #pypto<pipe v2v>, id = 2 : i64}> : () -> ()
// CHECK-GENERIC: "pypto.cross_core.wait_flag"() <{pipe = #pypto<pipe v2v>, id = 2 : i64}> : () -> ()
// CHECK-GENERIC: "pypto.func"() <{sym_name = "k", function_type = {{.*}}, kind = #pypto<kind group>, arg_dirs = [#pypto<dir in>, #pypto<dir in>, #pypto<dir out>]}>
