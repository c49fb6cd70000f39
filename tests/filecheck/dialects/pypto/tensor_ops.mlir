// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Every pypto.tensor op, in the custom and the generic form.

builtin.module {
  pypto.func @structure(%t: !pypto.tensor<[N, 128], f32>, %n: index) -> (!pypto.tensor<[N, 128], f32>, f32, index) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %new = pypto.tensor.create : !pypto.tensor<[64, 128], f32>
    %dyn = pypto.tensor.create(%n, %n) : !pypto.tensor<[?, 4, ?], f16>
    %sym = pypto.tensor.create {tag} : !pypto.tensor<[N, 4], f32>
    %v = pypto.tensor.slice %t[%c64, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tensor<[64, 128], f32>
    %w = pypto.tensor.assemble %v into %t[%c0, %c0] : !pypto.tensor<[64, 128], f32> into !pypto.tensor<[N, 128], f32>
    %d0 = pypto.tensor.dim %t, 0 : !pypto.tensor<[N, 128], f32>
    %x = pypto.tensor.read %w[%c0, %c64] : !pypto.tensor<[N, 128], f32>
    pypto.return %w, %x, %d0 : !pypto.tensor<[N, 128], f32>, f32, index
  }
  pypto.func @compute(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, %s: f32, %m: !pypto.tensor<[128, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
    %add = pypto.tensor.add %a, %b : !pypto.tensor<[64, 128], f32>
    %sub = pypto.tensor.sub %add, %b : !pypto.tensor<[64, 128], f32>
    %mul = pypto.tensor.mul %sub, %b : !pypto.tensor<[64, 128], f32>
    %div = pypto.tensor.div %mul, %b : !pypto.tensor<[64, 128], f32>
    %max = pypto.tensor.maximum %div, %b : !pypto.tensor<[64, 128], f32>
    %min = pypto.tensor.minimum %max, %b : !pypto.tensor<[64, 128], f32>
    %adds = pypto.tensor.adds %min, %s : !pypto.tensor<[64, 128], f32>, f32
    %subs = pypto.tensor.subs %adds, %s : !pypto.tensor<[64, 128], f32>, f32
    %muls = pypto.tensor.muls %subs, %s : !pypto.tensor<[64, 128], f32>, f32
    %divs = pypto.tensor.divs %muls, %s : !pypto.tensor<[64, 128], f32>, f32
    %exp = pypto.tensor.exp %divs : !pypto.tensor<[64, 128], f32>
    %log = pypto.tensor.log %exp : !pypto.tensor<[64, 128], f32>
    %sqrt = pypto.tensor.sqrt %log : !pypto.tensor<[64, 128], f32>
    %neg = pypto.tensor.neg %sqrt : !pypto.tensor<[64, 128], f32>
    %abs = pypto.tensor.abs %neg : !pypto.tensor<[64, 128], f32>
    %relu = pypto.tensor.relu %abs : !pypto.tensor<[64, 128], f32>
    %recip = pypto.tensor.recip %relu : !pypto.tensor<[64, 128], f32>
    %half = pypto.tensor.cast %recip : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[64, 128], f16>
    %back = pypto.tensor.cast %half : !pypto.tensor<[64, 128], f16> -> !pypto.tensor<[64, 128], f32>
    %mm = pypto.tensor.matmul %back, %m : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[128, 32], f32> -> !pypto.tensor<[64, 32], f32>
    pypto.return %mm : !pypto.tensor<[64, 32], f32>
  }
  // Symbolic and unknown dims flow through elementwise ops and matmul; the product has the
  // accumulator's element type (f32 for float inputs, i32 for integers).
  pypto.func @symbolic(%a: !pypto.tensor<[M, K], bf16>, %b: !pypto.tensor<[K, ?], bf16>, %i: !pypto.tensor<[M, 8], i8>, %j: !pypto.tensor<[8, 4], i8>) -> (!pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>) {
    %e = pypto.tensor.add %i, %i : !pypto.tensor<[M, 8], i8>
    %r = pypto.tensor.matmul %a, %b : !pypto.tensor<[M, K], bf16>, !pypto.tensor<[K, ?], bf16> -> !pypto.tensor<[M, ?], f32>
    %ri = pypto.tensor.matmul %e, %j : !pypto.tensor<[M, 8], i8>, !pypto.tensor<[8, 4], i8> -> !pypto.tensor<[M, 4], i32>
    pypto.return %r, %ri : !pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>
  }
  // Row reductions give [M, 1]; row expands combine [M, N] with [M, 1].
  pypto.func @rows(%a: !pypto.tensor<[M, 128], f32>, %h: !pypto.tensor<[8, ?], f16>) -> (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>) {
    %mx = pypto.tensor.row_max %a : !pypto.tensor<[M, 128], f32>
    %sh = pypto.tensor.row_expand_sub %a, %mx : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
    %sm = pypto.tensor.row_sum %sh : !pypto.tensor<[M, 128], f32>
    %dv = pypto.tensor.row_expand_div %sh, %sm : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
    %ml = pypto.tensor.row_expand_mul %dv, %mx {tag} : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
    %hs = pypto.tensor.row_sum %h : !pypto.tensor<[8, ?], f16>
    pypto.return %ml, %hs : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @structure(%t: !pypto.tensor<[N, 128], f32>, %n: index) -> (!pypto.tensor<[N, 128], f32>, f32, index) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// CHECK-NEXT:     %new = pypto.tensor.create : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %dyn = pypto.tensor.create(%n, %n) : !pypto.tensor<[?, 4, ?], f16>
// CHECK-NEXT:     %sym = pypto.tensor.create {tag} : !pypto.tensor<[N, 4], f32>
// CHECK-NEXT:     %v = pypto.tensor.slice %t[%c64, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %w = pypto.tensor.assemble %v into %t[%c0, %c0] : !pypto.tensor<[64, 128], f32> into !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:     %d0 = pypto.tensor.dim %t, 0 : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:     %x = pypto.tensor.read %w[%c0, %c64] : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:     pypto.return %w, %x, %d0 : !pypto.tensor<[N, 128], f32>, f32, index
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @compute(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, %s: f32, %m: !pypto.tensor<[128, 32], f32>) -> !pypto.tensor<[64, 32], f32> {
// CHECK-NEXT:     %add = pypto.tensor.add %a, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %sub = pypto.tensor.sub %add, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %mul = pypto.tensor.mul %sub, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %div = pypto.tensor.div %mul, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %max = pypto.tensor.maximum %div, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %min = pypto.tensor.minimum %max, %b : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %adds = pypto.tensor.adds %min, %s : !pypto.tensor<[64, 128], f32>, f32
// CHECK-NEXT:     %subs = pypto.tensor.subs %adds, %s : !pypto.tensor<[64, 128], f32>, f32
// CHECK-NEXT:     %muls = pypto.tensor.muls %subs, %s : !pypto.tensor<[64, 128], f32>, f32
// CHECK-NEXT:     %divs = pypto.tensor.divs %muls, %s : !pypto.tensor<[64, 128], f32>, f32
// CHECK-NEXT:     %exp = pypto.tensor.exp %divs : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %log = pypto.tensor.log %exp : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %sqrt = pypto.tensor.sqrt %log : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %neg = pypto.tensor.neg %sqrt : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %abs = pypto.tensor.abs %neg : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %relu = pypto.tensor.relu %abs : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %recip = pypto.tensor.recip %relu : !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %half = pypto.tensor.cast %recip : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[64, 128], f16>
// CHECK-NEXT:     %back = pypto.tensor.cast %half : !pypto.tensor<[64, 128], f16> -> !pypto.tensor<[64, 128], f32>
// CHECK-NEXT:     %mm = pypto.tensor.matmul %back, %m : !pypto.tensor<[64, 128], f32>, !pypto.tensor<[128, 32], f32> -> !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:     pypto.return %mm : !pypto.tensor<[64, 32], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @symbolic(%a: !pypto.tensor<[M, K], bf16>, %b: !pypto.tensor<[K, ?], bf16>, %i: !pypto.tensor<[M, 8], i8>, %j: !pypto.tensor<[8, 4], i8>) -> (!pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>) {
// CHECK-NEXT:     %e = pypto.tensor.add %i, %i : !pypto.tensor<[M, 8], i8>
// CHECK-NEXT:     %r = pypto.tensor.matmul %a, %b : !pypto.tensor<[M, K], bf16>, !pypto.tensor<[K, ?], bf16> -> !pypto.tensor<[M, ?], f32>
// CHECK-NEXT:     %ri = pypto.tensor.matmul %e, %j : !pypto.tensor<[M, 8], i8>, !pypto.tensor<[8, 4], i8> -> !pypto.tensor<[M, 4], i32>
// CHECK-NEXT:     pypto.return %r, %ri : !pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @rows(%a: !pypto.tensor<[M, 128], f32>, %h: !pypto.tensor<[8, ?], f16>) -> (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>) {
// CHECK-NEXT:     %mx = pypto.tensor.row_max %a : !pypto.tensor<[M, 128], f32>
// CHECK-NEXT:     %sh = pypto.tensor.row_expand_sub %a, %mx : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
// CHECK-NEXT:     %sm = pypto.tensor.row_sum %sh : !pypto.tensor<[M, 128], f32>
// CHECK-NEXT:     %dv = pypto.tensor.row_expand_div %sh, %sm : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
// CHECK-NEXT:     %ml = pypto.tensor.row_expand_mul %dv, %mx {tag} : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>
// CHECK-NEXT:     %hs = pypto.tensor.row_sum %h : !pypto.tensor<[8, ?], f16>
// CHECK-NEXT:     pypto.return %ml, %hs : !pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "structure", function_type = (!pypto.tensor<[N, 128], f32>, index) -> (!pypto.tensor<[N, 128], f32>, f32, index), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%t: !pypto.tensor<[N, 128], f32>, %n: index):
// CHECK-GENERIC-NEXT:     %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %c64 = "arith.constant"() <{value = 64 : index}> : () -> index
// CHECK-GENERIC-NEXT:     %new = "pypto.tensor.create"() : () -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %dyn = "pypto.tensor.create"(%n, %n) : (index, index) -> !pypto.tensor<[?, 4, ?], f16>
// CHECK-GENERIC-NEXT:     %sym = "pypto.tensor.create"() {tag} : () -> !pypto.tensor<[N, 4], f32>
// CHECK-GENERIC-NEXT:     %v = "pypto.tensor.slice"(%t, %c64, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!pypto.tensor<[N, 128], f32>, index, index) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %w = "pypto.tensor.assemble"(%t, %v, %c0, %c0) : (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[64, 128], f32>, index, index) -> !pypto.tensor<[N, 128], f32>
// CHECK-GENERIC-NEXT:     %d0 = "pypto.tensor.dim"(%t) <{axis = 0 : i64}> : (!pypto.tensor<[N, 128], f32>) -> index
// CHECK-GENERIC-NEXT:     %x = "pypto.tensor.read"(%w, %c0, %c64) : (!pypto.tensor<[N, 128], f32>, index, index) -> f32
// CHECK-GENERIC-NEXT:     "pypto.return"(%w, %x, %d0) : (!pypto.tensor<[N, 128], f32>, f32, index) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "compute", function_type = (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>, f32, !pypto.tensor<[128, 32], f32>) -> !pypto.tensor<[64, 32], f32>, kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>, %s: f32, %m: !pypto.tensor<[128, 32], f32>):
// CHECK-GENERIC-NEXT:     %add = "pypto.tensor.add"(%a, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %sub = "pypto.tensor.sub"(%add, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %mul = "pypto.tensor.mul"(%sub, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %div = "pypto.tensor.div"(%mul, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %max = "pypto.tensor.maximum"(%div, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %min = "pypto.tensor.minimum"(%max, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %adds = "pypto.tensor.adds"(%min, %s) : (!pypto.tensor<[64, 128], f32>, f32) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %subs = "pypto.tensor.subs"(%adds, %s) : (!pypto.tensor<[64, 128], f32>, f32) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %muls = "pypto.tensor.muls"(%subs, %s) : (!pypto.tensor<[64, 128], f32>, f32) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %divs = "pypto.tensor.divs"(%muls, %s) : (!pypto.tensor<[64, 128], f32>, f32) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %exp = "pypto.tensor.exp"(%divs) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %log = "pypto.tensor.log"(%exp) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %sqrt = "pypto.tensor.sqrt"(%log) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %neg = "pypto.tensor.neg"(%sqrt) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %abs = "pypto.tensor.abs"(%neg) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %relu = "pypto.tensor.relu"(%abs) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %recip = "pypto.tensor.recip"(%relu) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %half = "pypto.tensor.cast"(%recip) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f16>
// CHECK-GENERIC-NEXT:     %back = "pypto.tensor.cast"(%half) : (!pypto.tensor<[64, 128], f16>) -> !pypto.tensor<[64, 128], f32>
// CHECK-GENERIC-NEXT:     %mm = "pypto.tensor.matmul"(%back, %m) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[128, 32], f32>) -> !pypto.tensor<[64, 32], f32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%mm) : (!pypto.tensor<[64, 32], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "symbolic", function_type = (!pypto.tensor<[M, K], bf16>, !pypto.tensor<[K, ?], bf16>, !pypto.tensor<[M, 8], i8>, !pypto.tensor<[8, 4], i8>) -> (!pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[M, K], bf16>, %b: !pypto.tensor<[K, ?], bf16>, %i: !pypto.tensor<[M, 8], i8>, %j: !pypto.tensor<[8, 4], i8>):
// CHECK-GENERIC-NEXT:     %e = "pypto.tensor.add"(%i, %i) : (!pypto.tensor<[M, 8], i8>, !pypto.tensor<[M, 8], i8>) -> !pypto.tensor<[M, 8], i8>
// CHECK-GENERIC-NEXT:     %r = "pypto.tensor.matmul"(%a, %b) : (!pypto.tensor<[M, K], bf16>, !pypto.tensor<[K, ?], bf16>) -> !pypto.tensor<[M, ?], f32>
// CHECK-GENERIC-NEXT:     %ri = "pypto.tensor.matmul"(%e, %j) : (!pypto.tensor<[M, 8], i8>, !pypto.tensor<[8, 4], i8>) -> !pypto.tensor<[M, 4], i32>
// CHECK-GENERIC-NEXT:     "pypto.return"(%r, %ri) : (!pypto.tensor<[M, ?], f32>, !pypto.tensor<[M, 4], i32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "rows", function_type = (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, ?], f16>) -> (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[M, 128], f32>, %h: !pypto.tensor<[8, ?], f16>):
// CHECK-GENERIC-NEXT:     %mx = "pypto.tensor.row_max"(%a) : (!pypto.tensor<[M, 128], f32>) -> !pypto.tensor<[M, 1], f32>
// CHECK-GENERIC-NEXT:     %sh = "pypto.tensor.row_expand_sub"(%a, %mx) : (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>) -> !pypto.tensor<[M, 128], f32>
// CHECK-GENERIC-NEXT:     %sm = "pypto.tensor.row_sum"(%sh) : (!pypto.tensor<[M, 128], f32>) -> !pypto.tensor<[M, 1], f32>
// CHECK-GENERIC-NEXT:     %dv = "pypto.tensor.row_expand_div"(%sh, %sm) : (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>) -> !pypto.tensor<[M, 128], f32>
// CHECK-GENERIC-NEXT:     %ml = "pypto.tensor.row_expand_mul"(%dv, %mx) {tag} : (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[M, 1], f32>) -> !pypto.tensor<[M, 128], f32>
// CHECK-GENERIC-NEXT:     %hs = "pypto.tensor.row_sum"(%h) : (!pypto.tensor<[8, ?], f16>) -> !pypto.tensor<[8, 1], f16>
// CHECK-GENERIC-NEXT:     "pypto.return"(%ml, %hs) : (!pypto.tensor<[M, 128], f32>, !pypto.tensor<[8, 1], f16>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
