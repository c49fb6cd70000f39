// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Every pypto.tile op, in the custom and the generic form.

builtin.module {
  pypto.func aiv @vector(%x: !pypto.tensor<[N, 128], f32>, out %y: !pypto.tensor<[N, 128], f32>, %s: f32) -> !pypto.tensor<[N, 128], f32> {
    %c0 = arith.constant 0 : index
    %idx = pypto.tile.get_block_idx : index
    %num = pypto.tile.get_block_num : index
    %lane = pypto.tile.get_subblock_idx : index
    %row = arith.muli %idx, %num : index
    %a = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[64, 128], f32, vec>
    %f = pypto.tile.full %s : f32 -> !pypto.tile<[64, 128], f32, vec>
    %add = pypto.tile.add %a, %f : !pypto.tile<[64, 128], f32, vec>
    %sub = pypto.tile.sub %add, %f : !pypto.tile<[64, 128], f32, vec>
    %mul = pypto.tile.mul %sub, %f : !pypto.tile<[64, 128], f32, vec>
    %div = pypto.tile.div %mul, %f : !pypto.tile<[64, 128], f32, vec>
    %max = pypto.tile.maximum %div, %f : !pypto.tile<[64, 128], f32, vec>
    %min = pypto.tile.minimum %max, %f : !pypto.tile<[64, 128], f32, vec>
    %adds = pypto.tile.adds %min, %s : !pypto.tile<[64, 128], f32, vec>, f32
    %subs = pypto.tile.subs %adds, %s : !pypto.tile<[64, 128], f32, vec>, f32
    %muls = pypto.tile.muls %subs, %s : !pypto.tile<[64, 128], f32, vec>, f32
    %divs = pypto.tile.divs %muls, %s : !pypto.tile<[64, 128], f32, vec>, f32
    %exp = pypto.tile.exp %divs : !pypto.tile<[64, 128], f32, vec>
    %log = pypto.tile.log %exp : !pypto.tile<[64, 128], f32, vec>
    %sqrt = pypto.tile.sqrt %log : !pypto.tile<[64, 128], f32, vec>
    %neg = pypto.tile.neg %sqrt : !pypto.tile<[64, 128], f32, vec>
    %abs = pypto.tile.abs %neg : !pypto.tile<[64, 128], f32, vec>
    %relu = pypto.tile.relu %abs : !pypto.tile<[64, 128], f32, vec>
    %recip = pypto.tile.recip %relu : !pypto.tile<[64, 128], f32, vec>
    %rmax = pypto.tile.row_max %recip : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 1], f32, vec>
    %rsum = pypto.tile.row_sum %recip : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 1], f32, vec>
    %esub = pypto.tile.row_expand_sub %recip, %rmax : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
    %emul = pypto.tile.row_expand_mul %esub, %rsum : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
    %ediv = pypto.tile.row_expand_div %emul, %rsum : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
    %half = pypto.tile.cast %ediv : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 128], f16, vec>
    %back = pypto.tile.cast %half : !pypto.tile<[64, 128], f16, vec> -> !pypto.tile<[64, 128], f32, vec>
    %ints = pypto.tile.cast %back mode "rint" : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 128], i32, vec>
    %r = pypto.tile.store %back, %y[%row, %c0] : !pypto.tile<[64, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
    pypto.return %r : !pypto.tensor<[N, 128], f32>
  }
  pypto.func aic @cube(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 16], f16>, inout %c: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 16], f16> -> !pypto.tile<[32, 16], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[32, 16], f16, mat> -> !pypto.tile<[32, 16], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right> -> !pypto.tile<[64, 16], f32, acc>
    %acc2 = pypto.tile.matmul_acc %acc, %al, %br : !pypto.tile<[64, 16], f32, acc>, !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right>
    %r = pypto.tile.store %acc2, %c[%c0, %c0] : !pypto.tile<[64, 16], f32, acc>, !pypto.tensor<[64, 16], f32>
    pypto.return %r : !pypto.tensor<[64, 16], f32>
  }
  pypto.func aic @int_matmul(%a: !pypto.tile<[16, 32], i8, left>, %b: !pypto.tile<[32, 16], i8, right>) -> !pypto.tile<[16, 16], i32, acc> {
    %acc = pypto.tile.matmul %a, %b : !pypto.tile<[16, 32], i8, left>, !pypto.tile<[32, 16], i8, right> -> !pypto.tile<[16, 16], i32, acc>
    pypto.return %acc : !pypto.tile<[16, 16], i32, acc>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func aiv @vector(%x: !pypto.tensor<[N, 128], f32>, out %y: !pypto.tensor<[N, 128], f32>, %s: f32) -> !pypto.tensor<[N, 128], f32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %idx = pypto.tile.get_block_idx : index
// CHECK-NEXT:     %num = pypto.tile.get_block_num : index
// CHECK-NEXT:     %lane = pypto.tile.get_subblock_idx : index
// CHECK-NEXT:     %row = arith.muli %idx, %num : index
// CHECK-NEXT:     %a = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %f = pypto.tile.full %s : f32 -> !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %add = pypto.tile.add %a, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %sub = pypto.tile.sub %add, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %mul = pypto.tile.mul %sub, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %div = pypto.tile.div %mul, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %max = pypto.tile.maximum %div, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %min = pypto.tile.minimum %max, %f : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %adds = pypto.tile.adds %min, %s : !pypto.tile<[64, 128], f32, vec>, f32
// CHECK-NEXT:     %subs = pypto.tile.subs %adds, %s : !pypto.tile<[64, 128], f32, vec>, f32
// CHECK-NEXT:     %muls = pypto.tile.muls %subs, %s : !pypto.tile<[64, 128], f32, vec>, f32
// CHECK-NEXT:     %divs = pypto.tile.divs %muls, %s : !pypto.tile<[64, 128], f32, vec>, f32
// CHECK-NEXT:     %exp = pypto.tile.exp %divs : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %log = pypto.tile.log %exp : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %sqrt = pypto.tile.sqrt %log : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %neg = pypto.tile.neg %sqrt : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %abs = pypto.tile.abs %neg : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %relu = pypto.tile.relu %abs : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %recip = pypto.tile.recip %relu : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %rmax = pypto.tile.row_max %recip : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %rsum = pypto.tile.row_sum %recip : !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %esub = pypto.tile.row_expand_sub %recip, %rmax : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
// CHECK-NEXT:     %emul = pypto.tile.row_expand_mul %esub, %rsum : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
// CHECK-NEXT:     %ediv = pypto.tile.row_expand_div %emul, %rsum : !pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>
// CHECK-NEXT:     %half = pypto.tile.cast %ediv : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 128], f16, vec>
// CHECK-NEXT:     %back = pypto.tile.cast %half : !pypto.tile<[64, 128], f16, vec> -> !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:     %ints = pypto.tile.cast %back mode "rint" : !pypto.tile<[64, 128], f32, vec> -> !pypto.tile<[64, 128], i32, vec>
// CHECK-NEXT:     %r = pypto.tile.store %back, %y[%row, %c0] : !pypto.tile<[64, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:     pypto.return %r : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aic @cube(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 16], f16>, inout %c: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
// CHECK-NEXT:     %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 16], f16> -> !pypto.tile<[32, 16], f16, mat>
// CHECK-NEXT:     %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
// CHECK-NEXT:     %br = pypto.tile.move %bm : !pypto.tile<[32, 16], f16, mat> -> !pypto.tile<[32, 16], f16, right>
// CHECK-NEXT:     %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right>
// CHECK-NEXT:     %acc2 = pypto.tile.matmul_acc %acc, %al, %br : !pypto.tile<[64, 16], f32, acc>, !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right>
// CHECK-NEXT:     %r = pypto.tile.store %acc2, %c[%c0, %c0] : !pypto.tile<[64, 16], f32, acc>, !pypto.tensor<[64, 16], f32>
// CHECK-NEXT:     pypto.return %r : !pypto.tensor<[64, 16], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aic @int_matmul(%a: !pypto.tile<[16, 32], i8, left>, %b: !pypto.tile<[32, 16], i8, right>) -> !pypto.tile<[16, 16], i32, acc> {
// CHECK-NEXT:     %acc = pypto.tile.matmul %a, %b : !pypto.tile<[16, 32], i8, left>, !pypto.tile<[32, 16], i8, right>
// CHECK-NEXT:     pypto.return %acc : !pypto.tile<[16, 16], i32, acc>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "vector", function_type = (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32) -> !pypto.tensor<[N, 128], f32>, kind = #pypto<kind aiv>, arg_dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir in>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: !pypto.tensor<[N, 128], f32>, %y: !pypto.tensor<[N, 128], f32>, %s: f32):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %idx = "pypto.tile.get_block_idx"() : () -> index
// CHECK-GENERIC-NEXT:     %num = "pypto.tile.get_block_num"() : () -> index
// CHECK-GENERIC-NEXT:     %lane = "pypto.tile.get_subblock_idx"() : () -> index
// CHECK-GENERIC-NEXT:     %row = "arith.muli"(%idx, %num) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
// CHECK-GENERIC-NEXT:     %a = "pypto.tile.load"(%x, %row, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[N, 128], f32>, index, index) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %f = "pypto.tile.full"(%s) : (f32) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %add = "pypto.tile.add"(%a, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %sub = "pypto.tile.sub"(%add, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %mul = "pypto.tile.mul"(%sub, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %div = "pypto.tile.div"(%mul, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %max = "pypto.tile.maximum"(%div, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %min = "pypto.tile.minimum"(%max, %f) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %adds = "pypto.tile.adds"(%min, %s) : (!pypto.tile<[64, 128], f32, vec>, f32) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %subs = "pypto.tile.subs"(%adds, %s) : (!pypto.tile<[64, 128], f32, vec>, f32) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %muls = "pypto.tile.muls"(%subs, %s) : (!pypto.tile<[64, 128], f32, vec>, f32) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %divs = "pypto.tile.divs"(%muls, %s) : (!pypto.tile<[64, 128], f32, vec>, f32) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %exp = "pypto.tile.exp"(%divs) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %log = "pypto.tile.log"(%exp) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %sqrt = "pypto.tile.sqrt"(%log) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %neg = "pypto.tile.neg"(%sqrt) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %abs = "pypto.tile.abs"(%neg) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %relu = "pypto.tile.relu"(%abs) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %recip = "pypto.tile.recip"(%relu) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %rmax = "pypto.tile.row_max"(%recip) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %rsum = "pypto.tile.row_sum"(%recip) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %esub = "pypto.tile.row_expand_sub"(%recip, %rmax) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %emul = "pypto.tile.row_expand_mul"(%esub, %rsum) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %ediv = "pypto.tile.row_expand_div"(%emul, %rsum) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tile<[64, 1], f32, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %half = "pypto.tile.cast"(%ediv) : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], f16, vec>
// CHECK-GENERIC-NEXT:     %back = "pypto.tile.cast"(%half) : (!pypto.tile<[64, 128], f16, vec>) -> !pypto.tile<[64, 128], f32, vec>
// CHECK-GENERIC-NEXT:     %ints = "pypto.tile.cast"(%back) <{mode = "rint"}> : (!pypto.tile<[64, 128], f32, vec>) -> !pypto.tile<[64, 128], i32, vec>
// CHECK-GENERIC-NEXT:     %r = "pypto.tile.store"(%back, %y, %row, %c0) : (!pypto.tile<[64, 128], f32, vec>, !pypto.tensor<[N, 128], f32>, index, index) -> !pypto.tensor<[N, 128], f32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%r) : (!pypto.tensor<[N, 128], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "cube", function_type = (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 16], f16>, !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32>, kind = #pypto<kind aic>, arg_dirs = [#pypto<dir in>, #pypto<dir in>, #pypto<dir inout>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 16], f16>, %c: !pypto.tensor<[64, 16], f32>):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %am = "pypto.tile.load"(%a, %c0, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[64, 32], f16>, index, index) -> !pypto.tile<[64, 32], f16, mat>
// CHECK-GENERIC-NEXT:     %bm = "pypto.tile.load"(%b, %c0, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[32, 16], f16>, index, index) -> !pypto.tile<[32, 16], f16, mat>
// CHECK-GENERIC-NEXT:     %al = "pypto.tile.move"(%am) : (!pypto.tile<[64, 32], f16, mat>) -> !pypto.tile<[64, 32], f16, left>
// CHECK-GENERIC-NEXT:     %br = "pypto.tile.move"(%bm) : (!pypto.tile<[32, 16], f16, mat>) -> !pypto.tile<[32, 16], f16, right>
// CHECK-GENERIC-NEXT:     %acc = "pypto.tile.matmul"(%al, %br) : (!pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right>) -> !pypto.tile<[64, 16], f32, acc>
// CHECK-GENERIC-NEXT:     %acc2 = "pypto.tile.matmul_acc"(%acc, %al, %br) : (!pypto.tile<[64, 16], f32, acc>, !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 16], f16, right>) -> !pypto.tile<[64, 16], f32, acc>
// CHECK-GENERIC-NEXT:     %r = "pypto.tile.store"(%acc2, %c, %c0, %c0) : (!pypto.tile<[64, 16], f32, acc>, !pypto.tensor<[64, 16], f32>, index, index) -> !pypto.tensor<[64, 16], f32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%r) : (!pypto.tensor<[64, 16], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "int_matmul", function_type = (!pypto.tile<[16, 32], i8, left>, !pypto.tile<[32, 16], i8, right>) -> !pypto.tile<[16, 16], i32, acc>, kind = #pypto<kind aic>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tile<[16, 32], i8, left>, %b: !pypto.tile<[32, 16], i8, right>):
// CHECK-GENERIC-NEXT:     %acc = "pypto.tile.matmul"(%a, %b) : (!pypto.tile<[16, 32], i8, left>, !pypto.tile<[32, 16], i8, right>) -> !pypto.tile<[16, 16], i32, acc>
// CHECK-GENERIC-NEXT:     "pypto.return"(%acc) : (!pypto.tile<[16, 16], i32, acc>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
