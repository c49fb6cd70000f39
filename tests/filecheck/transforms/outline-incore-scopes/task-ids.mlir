// RUN: pypto-opt %s -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s -p outline-incore-scopes | pypto-opt | filecheck %s
// RUN: pypto-opt %s -p outline-incore-scopes | filecheck %s --check-prefix=NOCALL
// NOCALL checks the whole output: every scope (with task ids or deps) became a submit.
// NOCALL-NOT: pypto.call

// A scope with a task_id result becomes pypto.submit; its task id replaces the scope's
// and feeds the deps of later scopes. deps(...) alone (no task_id result) also gives a
// submit, whose task id is unused. A task-only scope (no outputs) submits with no results.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %y, %tid0 = pypto.incore_scope -> (!pypto.tensor<[8], f32>) task_id {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield %a : !pypto.tensor<[8], f32>
    }
    %z, %tid1 = pypto.incore_scope deps(%tid0) -> (!pypto.tensor<[8], f32>) task_id {
      %b = pypto.tensor.neg %y : !pypto.tensor<[8], f32>
      pypto.yield %b : !pypto.tensor<[8], f32>
    }
    %w = pypto.incore_scope deps(%tid0, %tid1) -> (!pypto.tensor<[8], f32>) {
      %c = pypto.tensor.add %y, %z : !pypto.tensor<[8], f32>
      pypto.yield %c : !pypto.tensor<[8], f32>
    }
    %tid3 = pypto.incore_scope task_id {
      %d = pypto.tensor.exp %w : !pypto.tensor<[8], f32>
      pypto.yield
    }
    %v = pypto.incore_scope deps(%tid3) -> (!pypto.tensor<[8], f32>) {
      %e = pypto.tensor.abs %w : !pypto.tensor<[8], f32>
      pypto.yield %e : !pypto.tensor<[8], f32>
    }
    pypto.return %v : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %y, %tid0 = pypto.submit @main_incore_0(%x) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    %z, %tid1 = pypto.submit @main_incore_1(%y) deps(%tid0) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    %w, %tid = pypto.submit @main_incore_2(%y, %z) deps(%tid0, %tid1) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
// CHECK-NEXT:    %tid3 = pypto.submit @main_incore_3(%w) : (!pypto.tensor<[8], f32>) -> ()
// CHECK-NEXT:    %v, %{{.*}} = pypto.submit @main_incore_4(%w) deps(%tid3)
// CHECK-NEXT:    pypto.return %v
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func incore @main_incore_0(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK:       pypto.func incore @main_incore_3(%w: !pypto.tensor<[8], f32>) {
// CHECK-NEXT:    %d = pypto.tensor.exp %w
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }
