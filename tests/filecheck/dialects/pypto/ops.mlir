// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Program-structure ops: pypto.func (every kind, every direction), pypto.return,
// pypto.call, pypto.submit, pypto.incore_scope, pypto.yield.

builtin.module {
  pypto.func @opaque_default() {
    pypto.return
  }
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, out %o: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
    pypto.return %o : !pypto.tensor<[N, 4], f32>
  }
  pypto.func incore @kernel(%a: !pypto.tensor<[8], f32>, inout %io: !pypto.tensor<[8], f32>, %n: index) -> (!pypto.tensor<[8], f32>, index) attributes {note = "k"} {
    pypto.return %io, %n : !pypto.tensor<[8], f32>, index
  }
  pypto.func aic @cube(%t: !pypto.tile<[16, 16], f16, left>) -> !pypto.tile<[16, 16], f16, left> {
    pypto.return %t : !pypto.tile<[16, 16], f16, left>
  }
  pypto.func aiv @vector(out %o: !pypto.tensor<[8], f32>) {
    pypto.return
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[8], f32>, %n: index) -> !pypto.tensor<[128, 4], f32> {
    %r = pypto.call @helper(%a, %a) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
    %d = pypto.call @helper(%a, %r) dumps(%a, %n : !pypto.tensor<[128, 4], f32>, index) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
    pypto.call @opaque_default() : () -> ()
    %k:2, %t0 = pypto.submit @kernel(%b, %b, %n) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index)
    %k2:2, %t1 = pypto.submit @kernel(%b, %b, %n) deps(%t0) dumps(%b : !pypto.tensor<[8], f32>) {tag} : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index)
    %t2 = pypto.submit @vector() deps(%t0, %t1) : () -> ()
    pypto.return %d : !pypto.tensor<[128, 4], f32>
  }
}

// -----

builtin.module {
  pypto.func @scopes(%a: !pypto.tensor<[8], f32>, %n: index, %t: !pypto.task_id) -> !pypto.tensor<[8], f32> {
    pypto.incore_scope {
      pypto.yield
    }
    %s:2, %tid = pypto.incore_scope name("fused") level(aiv) split(up_down) slots(2) deps(%t) dumps(%a : !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index) task_id attributes {tag = 1 : i64} {
      %c = arith.constant 2 : index
      pypto.yield %a, %c : !pypto.tensor<[8], f32>, index
    }
    %u, %tid2 = pypto.incore_scope split(left_right) deps(%tid, %t) -> (!pypto.tensor<[8], f32>) task_id {
      pypto.yield %s#0 : !pypto.tensor<[8], f32>
    }
    %w = pypto.incore_scope level(aic) split(none) -> (index) {
      pypto.yield %n : index
    }
    pypto.return %u : !pypto.tensor<[8], f32>
  }
}

// -----

builtin.module {
  pypto.func @lanes(%a: !pypto.tensor<[8], f32>) {
    pypto.incore_scope name("two_lanes") {
      pypto.split_aiv up_down (%lane: index) {
        %c = arith.addi %lane, %lane : index
      }
      pypto.split_aiv left_right (%l2: index) attributes {tag} {
      }
      pypto.yield
    }
    pypto.return
  }
  pypto.func aiv @in_kernel() {
    pypto.split_aiv none (%lane: index) {
    }
    pypto.return
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @opaque_default() {
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, out %o: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
// CHECK-NEXT:     pypto.return %o : !pypto.tensor<[N, 4], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func incore @kernel(%a: !pypto.tensor<[8], f32>, inout %io: !pypto.tensor<[8], f32>, %n: index) -> (!pypto.tensor<[8], f32>, index) attributes {note = "k"} {
// CHECK-NEXT:     pypto.return %io, %n : !pypto.tensor<[8], f32>, index
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aic @cube(%t: !pypto.tile<[16, 16], f16, left>) -> !pypto.tile<[16, 16], f16, left> {
// CHECK-NEXT:     pypto.return %t : !pypto.tile<[16, 16], f16, left>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aiv @vector(out %o: !pypto.tensor<[8], f32>) {
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func orchestration @main(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[8], f32>, %n: index) -> !pypto.tensor<[128, 4], f32> {
// CHECK-NEXT:     %r = pypto.call @helper(%a, %a) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
// CHECK-NEXT:     %d = pypto.call @helper(%a, %r) dumps(%a, %n : !pypto.tensor<[128, 4], f32>, index) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
// CHECK-NEXT:     pypto.call @opaque_default() : () -> ()
// CHECK-NEXT:     %k, %k_1, %t0 = pypto.submit @kernel(%b, %b, %n) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index)
// CHECK-NEXT:     %k2, %k2_1, %t1 = pypto.submit @kernel(%b, %b, %n) deps(%t0) dumps(%b : !pypto.tensor<[8], f32>) {tag} : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index)
// CHECK-NEXT:     %t2 = pypto.submit @vector() deps(%t0, %t1) : () -> ()
// CHECK-NEXT:     pypto.return %d : !pypto.tensor<[128, 4], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      {{//}} -----
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @scopes(%a: !pypto.tensor<[8], f32>, %n: index, %t: !pypto.task_id) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:     pypto.incore_scope {
// CHECK-NEXT:       pypto.yield
// CHECK-NEXT:     }
// CHECK-NEXT:     %s, %s_1, %tid = pypto.incore_scope name("fused") level(aiv) split(up_down) slots(2) deps(%t) dumps(%a : !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index) task_id attributes {tag = 1 : i64} {
// CHECK-NEXT:       %c = arith.constant 2 : index
// CHECK-NEXT:       pypto.yield %a, %c : !pypto.tensor<[8], f32>, index
// CHECK-NEXT:     }
// CHECK-NEXT:     %u, %tid2 = pypto.incore_scope split(left_right) deps(%tid, %t) -> (!pypto.tensor<[8], f32>) task_id {
// CHECK-NEXT:       pypto.yield %s : !pypto.tensor<[8], f32>
// CHECK-NEXT:     }
// CHECK-NEXT:     %w = pypto.incore_scope level(aic) split(none) -> (index) {
// CHECK-NEXT:       pypto.yield %n : index
// CHECK-NEXT:     }
// CHECK-NEXT:     pypto.return %u : !pypto.tensor<[8], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      {{//}} -----
// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @lanes(%a: !pypto.tensor<[8], f32>) {
// CHECK-NEXT:     pypto.incore_scope name("two_lanes") {
// CHECK-NEXT:       pypto.split_aiv up_down (%lane: index) {
// CHECK-NEXT:         %c = arith.addi %lane, %lane : index
// CHECK-NEXT:       }
// CHECK-NEXT:       pypto.split_aiv left_right (%l2: index) attributes {tag} {
// CHECK-NEXT:       }
// CHECK-NEXT:       pypto.yield
// CHECK-NEXT:     }
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aiv @in_kernel() {
// CHECK-NEXT:     pypto.split_aiv none (%lane: index) {
// CHECK-NEXT:     }
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "opaque_default", function_type = () -> (), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:     "pypto.return"() : () -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "helper", function_type = (!pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32>, kind = #pypto<kind inline>, arg_dirs = [#pypto<dir in>, #pypto<dir out>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%x: !pypto.tensor<[N, 4], f32>, %o: !pypto.tensor<[N, 4], f32>):
// CHECK-GENERIC-NEXT:     "pypto.return"(%o) : (!pypto.tensor<[N, 4], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "kernel", function_type = (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index), kind = #pypto<kind incore>, arg_dirs = [#pypto<dir in>, #pypto<dir inout>, #pypto<dir in>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[8], f32>, %io: !pypto.tensor<[8], f32>, %n: index):
// CHECK-GENERIC-NEXT:     "pypto.return"(%io, %n) : (!pypto.tensor<[8], f32>, index) -> ()
// CHECK-GENERIC-NEXT:   }) {note = "k"} : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "cube", function_type = (!pypto.tile<[16, 16], f16, left>) -> !pypto.tile<[16, 16], f16, left>, kind = #pypto<kind aic>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%t: !pypto.tile<[16, 16], f16, left>):
// CHECK-GENERIC-NEXT:     "pypto.return"(%t) : (!pypto.tile<[16, 16], f16, left>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "vector", function_type = (!pypto.tensor<[8], f32>) -> (), kind = #pypto<kind aiv>, arg_dirs = [#pypto<dir out>]}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%o: !pypto.tensor<[8], f32>):
// CHECK-GENERIC-NEXT:     "pypto.return"() : () -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "main", function_type = (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[8], f32>, index) -> !pypto.tensor<[128, 4], f32>, kind = #pypto<kind orchestration>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[8], f32>, %n: index):
// CHECK-GENERIC-NEXT:     %r = "pypto.call"(%a, %a) <{callee = @helper, operandSegmentSizes = array<i32: 2, 0, 0>}> : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
// CHECK-GENERIC-NEXT:     %d = "pypto.call"(%a, %r, %a, %n) <{callee = @helper, operandSegmentSizes = array<i32: 2, 2, 0>}> : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>, index) -> !pypto.tensor<[128, 4], f32>
// CHECK-GENERIC-NEXT:     "pypto.call"() <{callee = @opaque_default, operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> ()
// CHECK-GENERIC-NEXT:     %k, %k_1, %t0 = "pypto.submit"(%b, %b, %n) <{callee = @kernel, operandSegmentSizes = array<i32: 3, 0, 0, 0>}> : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index) -> (!pypto.tensor<[8], f32>, index, !pypto.task_id)
// CHECK-GENERIC-NEXT:     %k2, %k2_1, %t1 = "pypto.submit"(%b, %b, %n, %t0, %b) <{callee = @kernel, operandSegmentSizes = array<i32: 3, 1, 1, 0>}> {tag} : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>, index, !pypto.task_id, !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index, !pypto.task_id)
// CHECK-GENERIC-NEXT:     %t2 = "pypto.submit"(%t0, %t1) <{callee = @vector, operandSegmentSizes = array<i32: 0, 2, 0, 0>}> : (!pypto.task_id, !pypto.task_id) -> !pypto.task_id
// CHECK-GENERIC-NEXT:     "pypto.return"(%d) : (!pypto.tensor<[128, 4], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
// CHECK-GENERIC:      {{//}} -----
// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "scopes", function_type = (!pypto.tensor<[8], f32>, index, !pypto.task_id) -> !pypto.tensor<[8], f32>, kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[8], f32>, %n: index, %t: !pypto.task_id):
// CHECK-GENERIC-NEXT:     "pypto.incore_scope"() <{level = #pypto<level core_group>, operandSegmentSizes = array<i32: 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0>}> ({
// CHECK-GENERIC-NEXT:       "pypto.yield"() : () -> ()
// CHECK-GENERIC-NEXT:     }) : () -> ()
// CHECK-GENERIC-NEXT:     %s, %s_1, %tid = "pypto.incore_scope"(%t, %a) <{name_hint = "fused", level = #pypto<level aiv>, split = #pypto<split up_down>, slot_num = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0>, resultSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:       %c = "arith.constant"() <{value = 2 : index}> : () -> index
// CHECK-GENERIC-NEXT:       "pypto.yield"(%a, %c) : (!pypto.tensor<[8], f32>, index) -> ()
// CHECK-GENERIC-NEXT:     }) {tag = 1 : i64} : (!pypto.task_id, !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index, !pypto.task_id)
// CHECK-GENERIC-NEXT:     %u, %tid2 = "pypto.incore_scope"(%tid, %t) <{level = #pypto<level core_group>, split = #pypto<split left_right>, operandSegmentSizes = array<i32: 2, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1>}> ({
// CHECK-GENERIC-NEXT:       "pypto.yield"(%s) : (!pypto.tensor<[8], f32>) -> ()
// CHECK-GENERIC-NEXT:     }) : (!pypto.task_id, !pypto.task_id) -> (!pypto.tensor<[8], f32>, !pypto.task_id)
// CHECK-GENERIC-NEXT:     %w = "pypto.incore_scope"() <{level = #pypto<level aic>, split = #pypto<split none>, operandSegmentSizes = array<i32: 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0>}> ({
// CHECK-GENERIC-NEXT:       "pypto.yield"(%n) : (index) -> ()
// CHECK-GENERIC-NEXT:     }) : () -> index
// CHECK-GENERIC-NEXT:     "pypto.return"(%u) : (!pypto.tensor<[8], f32>) -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
// CHECK-GENERIC:      {{//}} -----
// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "lanes", function_type = (!pypto.tensor<[8], f32>) -> (), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   ^bb0(%a: !pypto.tensor<[8], f32>):
// CHECK-GENERIC-NEXT:     "pypto.incore_scope"() <{name_hint = "two_lanes", level = #pypto<level core_group>, operandSegmentSizes = array<i32: 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0>}> ({
// CHECK-GENERIC-NEXT:       "pypto.split_aiv"() <{mode = #pypto<split up_down>}> ({
// CHECK-GENERIC-NEXT:       ^bb0(%lane: index):
// CHECK-GENERIC-NEXT:         %c = "arith.addi"(%lane, %lane) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
// CHECK-GENERIC-NEXT:       }) : () -> ()
// CHECK-GENERIC-NEXT:       "pypto.split_aiv"() <{mode = #pypto<split left_right>}> ({
// CHECK-GENERIC-NEXT:       ^bb0(%l2: index):
// CHECK-GENERIC-NEXT:       }) {tag} : () -> ()
// CHECK-GENERIC-NEXT:       "pypto.yield"() : () -> ()
// CHECK-GENERIC-NEXT:     }) : () -> ()
// CHECK-GENERIC-NEXT:     "pypto.return"() : () -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT:   "pypto.func"() <{sym_name = "in_kernel", function_type = () -> (), kind = #pypto<kind aiv>}> ({
// CHECK-GENERIC-NEXT:     "pypto.split_aiv"() <{mode = #pypto<split none>}> ({
// CHECK-GENERIC-NEXT:     ^bb0(%lane: index):
// CHECK-GENERIC-NEXT:     }) : () -> ()
// CHECK-GENERIC-NEXT:     "pypto.return"() : () -> ()
// CHECK-GENERIC-NEXT:   }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
