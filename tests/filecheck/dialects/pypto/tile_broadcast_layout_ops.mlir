// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The pypto.tile ops of PyPTO's catalogue beyond the first set: more unary and scalar ops,
// optional scratch operands (tmp), row/column reductions and broadcasts, reshape, transpose,
// concat; in the custom and the generic form.

builtin.module {
  pypto.func aiv @vector_more(%a: !pypto.tile<[8, 16], f32, vec>, %row: !pypto.tile<[8, 1], f32, vec>, %col: !pypto.tile<[1, 16], f32, vec>, %s: f32) -> !pypto.tile<[8, 32], f32, vec> {
    %tmp = pypto.tile.create : !pypto.tile<[8, 16], f32, vec>
    %rs = pypto.tile.rsqrt %a : !pypto.tile<[8, 16], f32, vec>
    %rs2 = pypto.tile.rsqrt %rs tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
    %th = pypto.tile.tanh %rs2 : !pypto.tile<[8, 16], f32, vec>
    %sn = pypto.tile.sin %th : !pypto.tile<[8, 16], f32, vec>
    %cs = pypto.tile.cos %sn : !pypto.tile<[8, 16], f32, vec>
    %mx = pypto.tile.maximums %cs, %s : !pypto.tile<[8, 16], f32, vec>, f32
    %mn = pypto.tile.minimums %mx, %s : !pypto.tile<[8, 16], f32, vec>, f32
    %ex = pypto.tile.expands %mn, %s : !pypto.tile<[8, 16], f32, vec>, f32
    %rmax = pypto.tile.row_max %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
    %rsum = pypto.tile.row_sum %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
    %rmin = pypto.tile.row_min %ex : !pypto.tile<[8, 16], f32, vec>
    %rprod = pypto.tile.row_prod %ex : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[8, 1], f32, vec>
    %csum = pypto.tile.col_sum %ex : !pypto.tile<[8, 16], f32, vec>
    %csum2 = pypto.tile.col_sum %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
    %cmax = pypto.tile.col_max %ex : !pypto.tile<[8, 16], f32, vec>
    %cmin = pypto.tile.col_min %ex : !pypto.tile<[8, 16], f32, vec>
    %cprod = pypto.tile.col_prod %ex : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[1, 16], f32, vec>
    %re = pypto.tile.row_expand %ex, %rmax : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %radd = pypto.tile.row_expand_add %re, %row : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %radd2 = pypto.tile.row_expand_add %radd, %row tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %rmx = pypto.tile.row_expand_max %radd2, %rsum : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %rmn = pypto.tile.row_expand_min %rmx, %rmin : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %red = pypto.tile.row_expand_expdif %rmn, %rprod : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %ce = pypto.tile.col_expand %red, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %cmul = pypto.tile.col_expand_mul %ce, %csum : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %cdiv = pypto.tile.col_expand_div %cmul, %csum2 : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %csub = pypto.tile.col_expand_sub %cdiv, %cmax : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %cadd = pypto.tile.col_expand_add %csub, %cmin : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %cmx = pypto.tile.col_expand_max %cadd, %cprod : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %cmn = pypto.tile.col_expand_min %cmx, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %ced = pypto.tile.col_expand_expdif %cmn, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
    %rh = pypto.tile.reshape %rmax : !pypto.tile<[8, 1], f32, vec> -> !pypto.tile<[1, 8], f32, vec>
    %back = pypto.tile.reshape %rh : !pypto.tile<[1, 8], f32, vec> -> !pypto.tile<[8, 1], f32, vec>
    %scaled = pypto.tile.row_expand_mul %ced, %back : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
    %tr = pypto.tile.transpose %scaled, 0, 1 : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[16, 8], f32, vec>
    %tt = pypto.tile.transpose %tr, 1, 0 : !pypto.tile<[16, 8], f32, vec> -> !pypto.tile<[8, 16], f32, vec>
    %cat = pypto.tile.concat %tt, %a : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[8, 32], f32, vec>
    pypto.return %cat : !pypto.tile<[8, 32], f32, vec>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func aiv @vector_more(%a: !pypto.tile<[8, 16], f32, vec>, %row: !pypto.tile<[8, 1], f32, vec>, %col: !pypto.tile<[1, 16], f32, vec>, %s: f32) -> !pypto.tile<[8, 32], f32, vec> {
// CHECK-NEXT:     %tmp = pypto.tile.create : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %rs = pypto.tile.rsqrt %a : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %rs2 = pypto.tile.rsqrt %rs tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %th = pypto.tile.tanh %rs2 : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %sn = pypto.tile.sin %th : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %cs = pypto.tile.cos %sn : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %mx = pypto.tile.maximums %cs, %s : !pypto.tile<[8, 16], f32, vec>, f32
// CHECK-NEXT:     %mn = pypto.tile.minimums %mx, %s : !pypto.tile<[8, 16], f32, vec>, f32
// CHECK-NEXT:     %ex = pypto.tile.expands %mn, %s : !pypto.tile<[8, 16], f32, vec>, f32
// CHECK-NEXT:     %rmax = pypto.tile.row_max %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %rsum = pypto.tile.row_sum %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %rmin = pypto.tile.row_min %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %rprod = pypto.tile.row_prod %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %csum = pypto.tile.col_sum %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %csum2 = pypto.tile.col_sum %ex tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %cmax = pypto.tile.col_max %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %cmin = pypto.tile.col_min %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %cprod = pypto.tile.col_prod %ex : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %re = pypto.tile.row_expand %ex, %rmax : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %radd = pypto.tile.row_expand_add %re, %row : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %radd2 = pypto.tile.row_expand_add %radd, %row tmp(%tmp : !pypto.tile<[8, 16], f32, vec>) : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %rmx = pypto.tile.row_expand_max %radd2, %rsum : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %rmn = pypto.tile.row_expand_min %rmx, %rmin : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %red = pypto.tile.row_expand_expdif %rmn, %rprod : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %ce = pypto.tile.col_expand %red, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %cmul = pypto.tile.col_expand_mul %ce, %csum : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %cdiv = pypto.tile.col_expand_div %cmul, %csum2 : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %csub = pypto.tile.col_expand_sub %cdiv, %cmax : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %cadd = pypto.tile.col_expand_add %csub, %cmin : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %cmx = pypto.tile.col_expand_max %cadd, %cprod : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %cmn = pypto.tile.col_expand_min %cmx, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %ced = pypto.tile.col_expand_expdif %cmn, %col : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>
// CHECK-NEXT:     %rh = pypto.tile.reshape %rmax : !pypto.tile<[8, 1], f32, vec> -> !pypto.tile<[1, 8], f32, vec>
// CHECK-NEXT:     %back = pypto.tile.reshape %rh : !pypto.tile<[1, 8], f32, vec> -> !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %scaled = pypto.tile.row_expand_mul %ced, %back : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>
// CHECK-NEXT:     %tr = pypto.tile.transpose %scaled, 0, 1 : !pypto.tile<[8, 16], f32, vec> -> !pypto.tile<[16, 8], f32, vec>
// CHECK-NEXT:     %tt = pypto.tile.transpose %tr, 1, 0 : !pypto.tile<[16, 8], f32, vec> -> !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     %cat = pypto.tile.concat %tt, %a : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:     pypto.return %cat : !pypto.tile<[8, 32], f32, vec>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "vector_more", function_type = (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>, !pypto.tile<[1, 16], f32, vec>, f32) -> !pypto.tile<[8, 32], f32, vec>, kind = #pypto<kind aiv>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tile<[8, 16], f32, vec>, %row: !pypto.tile<[8, 1], f32, vec>, %col: !pypto.tile<[1, 16], f32, vec>, %s: f32):
// CHECK-GENERIC-NEXT:     %tmp = "pypto.tile.create"() : () -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rs = "pypto.tile.rsqrt"(%a) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rs2 = "pypto.tile.rsqrt"(%rs, %tmp) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %th = "pypto.tile.tanh"(%rs2) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %sn = "pypto.tile.sin"(%th) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cs = "pypto.tile.cos"(%sn) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %mx = "pypto.tile.maximums"(%cs, %s) : (!pypto.tile<[8, 16], f32, vec>, f32) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %mn = "pypto.tile.minimums"(%mx, %s) : (!pypto.tile<[8, 16], f32, vec>, f32) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %ex = "pypto.tile.expands"(%mn, %s) : (!pypto.tile<[8, 16], f32, vec>, f32) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rmax = "pypto.tile.row_max"(%ex, %tmp) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %rsum = "pypto.tile.row_sum"(%ex, %tmp) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %rmin = "pypto.tile.row_min"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %rprod = "pypto.tile.row_prod"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %csum = "pypto.tile.col_sum"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[1, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %csum2 = "pypto.tile.col_sum"(%ex, %tmp) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[1, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cmax = "pypto.tile.col_max"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[1, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cmin = "pypto.tile.col_min"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[1, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cprod = "pypto.tile.col_prod"(%ex) : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[1, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %re = "pypto.tile.row_expand"(%ex, %rmax) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %radd = "pypto.tile.row_expand_add"(%re, %row) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %radd2 = "pypto.tile.row_expand_add"(%radd, %row, %tmp) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rmx = "pypto.tile.row_expand_max"(%radd2, %rsum) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rmn = "pypto.tile.row_expand_min"(%rmx, %rmin) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %red = "pypto.tile.row_expand_expdif"(%rmn, %rprod) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %ce = "pypto.tile.col_expand"(%red, %col) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cmul = "pypto.tile.col_expand_mul"(%ce, %csum) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cdiv = "pypto.tile.col_expand_div"(%cmul, %csum2) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %csub = "pypto.tile.col_expand_sub"(%cdiv, %cmax) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cadd = "pypto.tile.col_expand_add"(%csub, %cmin) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cmx = "pypto.tile.col_expand_max"(%cadd, %cprod) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cmn = "pypto.tile.col_expand_min"(%cmx, %col) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %ced = "pypto.tile.col_expand_expdif"(%cmn, %col) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 16], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %rh = "pypto.tile.reshape"(%rmax) : (!pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[1, 8], f32, vec>
// CHECK-GENERIC-NEXT:     %back = "pypto.tile.reshape"(%rh) : (!pypto.tile<[1, 8], f32, vec>) -> !pypto.tile<[8, 1], f32, vec>
// CHECK-GENERIC-NEXT:     %scaled = "pypto.tile.row_expand_mul"(%ced, %back) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 1], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %tr = "pypto.tile.transpose"(%scaled) <{axis1 = 0 : i64, axis2 = 1 : i64}> : (!pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[16, 8], f32, vec>
// CHECK-GENERIC-NEXT:     %tt = "pypto.tile.transpose"(%tr) <{axis1 = 1 : i64, axis2 = 0 : i64}> : (!pypto.tile<[16, 8], f32, vec>) -> !pypto.tile<[8, 16], f32, vec>
// CHECK-GENERIC-NEXT:     %cat = "pypto.tile.concat"(%tt, %a) : (!pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>) -> !pypto.tile<[8, 32], f32, vec>
// CHECK-GENERIC-NEXT:     "pypto.return"(%cat) : (!pypto.tile<[8, 32], f32, vec>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
