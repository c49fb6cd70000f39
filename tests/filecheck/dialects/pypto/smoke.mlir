// RUN: pypto-opt %s | pypto-opt | filecheck %s
// CHECK: pypto.func inline @helper
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[N, 4], f32>, out %o: !pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32> {
    pypto.return %o : !pypto.tensor<[N, 4], f32>
  }
  pypto.func @k(%a: !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index) attributes {foo = 1 : i64} {
    %c = arith.constant 1 : index
    pypto.return %a, %c : !pypto.tensor<[8], f32>, index
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[128, 4], f32>, %b: !pypto.tensor<[8], f32>) {
    %r = pypto.call @helper(%a, %a) dumps(%a : !pypto.tensor<[128, 4], f32>) : (!pypto.tensor<[128, 4], f32>, !pypto.tensor<[128, 4], f32>) -> !pypto.tensor<[128, 4], f32>
    %s:2, %t = pypto.incore_scope name("fused") split(up_down) slots(2) -> (!pypto.tensor<[8], f32>, index) task_id {
      %c = arith.constant 2 : index
      pypto.yield %b, %c : !pypto.tensor<[8], f32>, index
    }
    %u:2, %t2 = pypto.submit @k(%b) deps(%t) : (!pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, index)
    pypto.return
  }
}
