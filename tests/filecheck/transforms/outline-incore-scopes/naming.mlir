// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s

// name("...") is used as given; a named scope still consumes a counter slot, so the next
// unnamed scope is main_incore_1. Two scopes of one function with the same hint get
// my_kernel and my_kernel_0.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope name("first_kernel") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope name("my_kernel") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope name("my_kernel") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope name("my_kernel") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    pypto.call @first_kernel(%x)
// CHECK-NEXT:    pypto.call @main_incore_1(%x)
// CHECK-NEXT:    pypto.call @my_kernel(%x)
// CHECK-NEXT:    pypto.call @my_kernel_0(%x)
// CHECK-NEXT:    pypto.call @my_kernel_1(%x)
// CHECK-NEXT:    pypto.call @main_incore_5(%x)
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @first_kernel(
// CHECK:       pypto.func incore @main_incore_1(
// CHECK:       pypto.func incore @my_kernel(
// CHECK:       pypto.func incore @my_kernel_0(
// CHECK:       pypto.func incore @my_kernel_1(
// CHECK:       pypto.func incore @main_incore_5(

// -----

// Cross-function collision: the first function (module order) keeps the bare hint, the
// later one is namespaced under its function.

builtin.module {
  pypto.func @fn_a(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope name("dup") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
  pypto.func @fn_b(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope name("dup") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK-LABEL: pypto.func orchestration @fn_a(
// CHECK-NEXT:    pypto.call @dup(%x)
// CHECK:       pypto.func incore @dup(
// CHECK:       pypto.func orchestration @fn_b(
// CHECK-NEXT:    pypto.call @fn_b_dup(%x)
// CHECK:       pypto.func incore @fn_b_dup(

// -----

// Never a clash with an existing symbol: a default name or a hint that is already a
// function is namespaced under the parent (main_main_incore_0, main_helper); when that is
// taken too, a numeric suffix follows (main_main_incore_1_0). Non-pypto symbols count.

builtin.module {
  pypto.func @main_incore_0() {
    pypto.return
  }
  func.func @main_main_incore_1() {
    func.return
  }
  pypto.func @main_incore_1() {
    pypto.return
  }
  pypto.func @helper() {
    pypto.return
  }
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.incore_scope name("helper") {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    pypto.call @main_main_incore_0(%x)
// CHECK-NEXT:    pypto.call @main_main_incore_1_0(%x)
// CHECK-NEXT:    pypto.call @main_helper(%x)
// CHECK:       pypto.func incore @main_main_incore_0(
// CHECK:       pypto.func incore @main_main_incore_1_0(
// CHECK:       pypto.func incore @main_helper(
