// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The pypto.tensor ops of PyPTO's catalogue beyond the first set: full, element writes,
// more unary and scalar ops, row/column reductions and broadcasts, views (reshape, transpose),
// concat, matmul_acc and atomic assembles; in the custom and the generic form.

builtin.module {
  pypto.func @tensor_more(%a: !pypto.tensor<[8, 16], f32>, %row: !pypto.tensor<[8, 1], f32>, %col: !pypto.tensor<[1, 16], f32>, %w: !pypto.tensor<[16, 4], f32>, %acc: !pypto.tensor<[8, 4], f32>, inout %o: !pypto.tensor<[8, 32], f32>, %s: f32) -> !pypto.tensor<[8, 32], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %full = pypto.tensor.full %s : f32 -> !pypto.tensor<[8, 16], f32>
    %rs = pypto.tensor.rsqrt %a : !pypto.tensor<[8, 16], f32>
    %th = pypto.tensor.tanh %rs : !pypto.tensor<[8, 16], f32>
    %sn = pypto.tensor.sin %th : !pypto.tensor<[8, 16], f32>
    %cs = pypto.tensor.cos %sn : !pypto.tensor<[8, 16], f32>
    %mx = pypto.tensor.maximums %cs, %s : !pypto.tensor<[8, 16], f32>, f32
    %mn = pypto.tensor.minimums %mx, %s : !pypto.tensor<[8, 16], f32>, f32
    %ex = pypto.tensor.expands %mn, %s : !pypto.tensor<[8, 16], f32>, f32
    %rmin = pypto.tensor.row_min %ex : !pypto.tensor<[8, 16], f32>
    %rprod = pypto.tensor.row_prod %ex : !pypto.tensor<[8, 16], f32>
    %csum = pypto.tensor.col_sum %ex : !pypto.tensor<[8, 16], f32>
    %cmax = pypto.tensor.col_max %ex : !pypto.tensor<[8, 16], f32>
    %cmin = pypto.tensor.col_min %ex : !pypto.tensor<[8, 16], f32>
    %cprod = pypto.tensor.col_prod %ex : !pypto.tensor<[8, 16], f32>
    %re = pypto.tensor.row_expand %full, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
    %radd = pypto.tensor.row_expand_add %re, %rmin : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
    %rmx = pypto.tensor.row_expand_max %radd, %rprod : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
    %rmn = pypto.tensor.row_expand_min %rmx, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
    %red = pypto.tensor.row_expand_expdif %rmn, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
    %ce = pypto.tensor.col_expand %red, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %cmul = pypto.tensor.col_expand_mul %ce, %csum : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %cdiv = pypto.tensor.col_expand_div %cmul, %cmax : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %csub = pypto.tensor.col_expand_sub %cdiv, %cmin : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %cadd = pypto.tensor.col_expand_add %csub, %cprod : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %cmx = pypto.tensor.col_expand_max %cadd, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %cmn = pypto.tensor.col_expand_min %cmx, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %ced = pypto.tensor.col_expand_expdif %cmn, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
    %flat = pypto.tensor.reshape %row : !pypto.tensor<[8, 1], f32> -> !pypto.tensor<[1, 8], f32>
    %tr = pypto.tensor.transpose %ced, 0, 1 : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[16, 8], f32>
    %cat = pypto.tensor.concat %ced, %a : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], f32>
    %mm = pypto.tensor.matmul %ced, %w : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32> -> !pypto.tensor<[8, 4], f32>
    %mma = pypto.tensor.matmul_acc %acc, %ced, %w : !pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>
    %x = pypto.tensor.read %flat[%c0, %c1] : !pypto.tensor<[1, 8], f32>
    %o2 = pypto.tensor.write %x into %o[%c0, %c0] : f32 into !pypto.tensor<[8, 32], f32>
    %o3 = pypto.tensor.assemble %cat into %o2[%c0, %c0] atomic(add) : !pypto.tensor<[8, 32], f32> into !pypto.tensor<[8, 32], f32>
    pypto.return %o3 : !pypto.tensor<[8, 32], f32>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @tensor_more(%a: !pypto.tensor<[8, 16], f32>, %row: !pypto.tensor<[8, 1], f32>, %col: !pypto.tensor<[1, 16], f32>, %w: !pypto.tensor<[16, 4], f32>, %acc: !pypto.tensor<[8, 4], f32>, inout %o: !pypto.tensor<[8, 32], f32>, %s: f32) -> !pypto.tensor<[8, 32], f32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %full = pypto.tensor.full %s : f32 -> !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %rs = pypto.tensor.rsqrt %a : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %th = pypto.tensor.tanh %rs : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %sn = pypto.tensor.sin %th : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %cs = pypto.tensor.cos %sn : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %mx = pypto.tensor.maximums %cs, %s : !pypto.tensor<[8, 16], f32>, f32
// CHECK-NEXT:     %mn = pypto.tensor.minimums %mx, %s : !pypto.tensor<[8, 16], f32>, f32
// CHECK-NEXT:     %ex = pypto.tensor.expands %mn, %s : !pypto.tensor<[8, 16], f32>, f32
// CHECK-NEXT:     %rmin = pypto.tensor.row_min %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %rprod = pypto.tensor.row_prod %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %csum = pypto.tensor.col_sum %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %cmax = pypto.tensor.col_max %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %cmin = pypto.tensor.col_min %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %cprod = pypto.tensor.col_prod %ex : !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %re = pypto.tensor.row_expand %full, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:     %radd = pypto.tensor.row_expand_add %re, %rmin : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:     %rmx = pypto.tensor.row_expand_max %radd, %rprod : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:     %rmn = pypto.tensor.row_expand_min %rmx, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:     %red = pypto.tensor.row_expand_expdif %rmn, %row : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>
// CHECK-NEXT:     %ce = pypto.tensor.col_expand %red, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %cmul = pypto.tensor.col_expand_mul %ce, %csum : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %cdiv = pypto.tensor.col_expand_div %cmul, %cmax : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %csub = pypto.tensor.col_expand_sub %cdiv, %cmin : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %cadd = pypto.tensor.col_expand_add %csub, %cprod : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %cmx = pypto.tensor.col_expand_max %cadd, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %cmn = pypto.tensor.col_expand_min %cmx, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %ced = pypto.tensor.col_expand_expdif %cmn, %col : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>
// CHECK-NEXT:     %flat = pypto.tensor.reshape %row : !pypto.tensor<[8, 1], f32> -> !pypto.tensor<[1, 8], f32>
// CHECK-NEXT:     %tr = pypto.tensor.transpose %ced, 0, 1 : !pypto.tensor<[8, 16], f32> -> !pypto.tensor<[16, 8], f32>
// CHECK-NEXT:     %cat = pypto.tensor.concat %ced, %a : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], f32>
// CHECK-NEXT:     %mm = pypto.tensor.matmul %ced, %w : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32> -> !pypto.tensor<[8, 4], f32>
// CHECK-NEXT:     %mma = pypto.tensor.matmul_acc %acc, %ced, %w : !pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>
// CHECK-NEXT:     %x = pypto.tensor.read %flat[%c0, %c1] : !pypto.tensor<[1, 8], f32>
// CHECK-NEXT:     %o2 = pypto.tensor.write %x into %o[%c0, %c0] : f32 into !pypto.tensor<[8, 32], f32>
// CHECK-NEXT:     %o3 = pypto.tensor.assemble %cat into %o2[%c0, %c0] atomic(add) : !pypto.tensor<[8, 32], f32> into !pypto.tensor<[8, 32], f32>
// CHECK-NEXT:     pypto.return %o3 : !pypto.tensor<[8, 32], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "tensor_more", function_type = (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>, !pypto.tensor<[1, 16], f32>, !pypto.tensor<[16, 4], f32>, !pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 32], f32>, f32) -> !pypto.tensor<[8, 32], f32>, kind = #pypto<kind opaque>, arg_dirs = [#pypto<dir in>, #pypto<dir in>, #pypto<dir in>, #pypto<dir in>, #pypto<dir in>, #pypto<dir inout>, #pypto<dir in>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[8, 16], f32>, %row: !pypto.tensor<[8, 1], f32>, %col: !pypto.tensor<[1, 16], f32>, %w: !pypto.tensor<[16, 4], f32>, %acc: !pypto.tensor<[8, 4], f32>, %o: !pypto.tensor<[8, 32], f32>, %s: f32):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %full = "pypto.tensor.full"(%s) : (f32) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %rs = "pypto.tensor.rsqrt"(%a) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %th = "pypto.tensor.tanh"(%rs) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %sn = "pypto.tensor.sin"(%th) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cs = "pypto.tensor.cos"(%sn) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %mx = "pypto.tensor.maximums"(%cs, %s) : (!pypto.tensor<[8, 16], f32>, f32) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %mn = "pypto.tensor.minimums"(%mx, %s) : (!pypto.tensor<[8, 16], f32>, f32) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %ex = "pypto.tensor.expands"(%mn, %s) : (!pypto.tensor<[8, 16], f32>, f32) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %rmin = "pypto.tensor.row_min"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 1], f32>
// CHECK-GENERIC-NEXT:     %rprod = "pypto.tensor.row_prod"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 1], f32>
// CHECK-GENERIC-NEXT:     %csum = "pypto.tensor.col_sum"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[1, 16], f32>
// CHECK-GENERIC-NEXT:     %cmax = "pypto.tensor.col_max"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[1, 16], f32>
// CHECK-GENERIC-NEXT:     %cmin = "pypto.tensor.col_min"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[1, 16], f32>
// CHECK-GENERIC-NEXT:     %cprod = "pypto.tensor.col_prod"(%ex) : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[1, 16], f32>
// CHECK-GENERIC-NEXT:     %re = "pypto.tensor.row_expand"(%full, %row) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %radd = "pypto.tensor.row_expand_add"(%re, %rmin) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %rmx = "pypto.tensor.row_expand_max"(%radd, %rprod) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %rmn = "pypto.tensor.row_expand_min"(%rmx, %row) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %red = "pypto.tensor.row_expand_expdif"(%rmn, %row) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %ce = "pypto.tensor.col_expand"(%red, %col) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cmul = "pypto.tensor.col_expand_mul"(%ce, %csum) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cdiv = "pypto.tensor.col_expand_div"(%cmul, %cmax) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %csub = "pypto.tensor.col_expand_sub"(%cdiv, %cmin) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cadd = "pypto.tensor.col_expand_add"(%csub, %cprod) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cmx = "pypto.tensor.col_expand_max"(%cadd, %col) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %cmn = "pypto.tensor.col_expand_min"(%cmx, %col) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %ced = "pypto.tensor.col_expand_expdif"(%cmn, %col) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[8, 16], f32>
// CHECK-GENERIC-NEXT:     %flat = "pypto.tensor.reshape"(%row) : (!pypto.tensor<[8, 1], f32>) -> !pypto.tensor<[1, 8], f32>
// CHECK-GENERIC-NEXT:     %tr = "pypto.tensor.transpose"(%ced) <{axis1 = 0 : i64, axis2 = 1 : i64}> : (!pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[16, 8], f32>
// CHECK-GENERIC-NEXT:     %cat = "pypto.tensor.concat"(%ced, %a) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], f32>) -> !pypto.tensor<[8, 32], f32>
// CHECK-GENERIC-NEXT:     %mm = "pypto.tensor.matmul"(%ced, %w) : (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
// CHECK-GENERIC-NEXT:     %mma = "pypto.tensor.matmul_acc"(%acc, %ced, %w) : (!pypto.tensor<[8, 4], f32>, !pypto.tensor<[8, 16], f32>, !pypto.tensor<[16, 4], f32>) -> !pypto.tensor<[8, 4], f32>
// CHECK-GENERIC-NEXT:     %x = "pypto.tensor.read"(%flat, %c0, %c1) : (!pypto.tensor<[1, 8], f32>, index, index) -> f32
// CHECK-GENERIC-NEXT:     %o2 = "pypto.tensor.write"(%x, %o, %c0, %c0) : (f32, !pypto.tensor<[8, 32], f32>, index, index) -> !pypto.tensor<[8, 32], f32>
// CHECK-GENERIC-NEXT:     %o3 = "pypto.tensor.assemble"(%o2, %cat, %c0, %c0) <{atomic = #pypto<atomic add>}> : (!pypto.tensor<[8, 32], f32>, !pypto.tensor<[8, 32], f32>, index, index) -> !pypto.tensor<[8, 32], f32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%o3) : (!pypto.tensor<[8, 32], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
