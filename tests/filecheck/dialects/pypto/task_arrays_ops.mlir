// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Arrays of task ids and the dummy task, in the custom and the generic form.

pypto.func incore @k(%x: !pypto.tensor<[8], f32>, out %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
  pypto.return %y : !pypto.tensor<[8], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[8], f32>, out %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %none = pypto.task_ids.create : !pypto.task_ids<2>
  %prev = pypto.task_ids.get %none[%c1] : !pypto.task_ids<2>
  %fence = pypto.task_dummy deps(%prev)
  %start = pypto.task_dummy deps()
  %y1, %t = pypto.submit @k(%x, %y) deps(%fence, %start) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
  %set = pypto.task_ids.set %none[%c0], %t : !pypto.task_ids<2>
  pypto.return %y1 : !pypto.tensor<[8], f32>
}

// CHECK:      %none = pypto.task_ids.create : !pypto.task_ids<2>
// CHECK-NEXT: %prev = pypto.task_ids.get %none[%c1] : !pypto.task_ids<2>
// CHECK-NEXT: %fence = pypto.task_dummy deps(%prev)
// CHECK-NEXT: %start = pypto.task_dummy deps()
// CHECK-NEXT: %y1, %t = pypto.submit @k(%x, %y) deps(%fence, %start)
// CHECK-NEXT: %set = pypto.task_ids.set %none[%c0], %t : !pypto.task_ids<2>

// CHECK-GENERIC:      %none = "pypto.task_ids.create"() : () -> !pypto.task_ids<2>
// CHECK-GENERIC-NEXT: %prev = "pypto.task_ids.get"(%none, %c1) : (!pypto.task_ids<2>, index) -> !pypto.task_id
// CHECK-GENERIC-NEXT: %fence = "pypto.task_dummy"(%prev) : (!pypto.task_id) -> !pypto.task_id
// CHECK-GENERIC-NEXT: %start = "pypto.task_dummy"() : () -> !pypto.task_id
// CHECK-GENERIC:      %set = "pypto.task_ids.set"(%none, %c0, %t) : (!pypto.task_ids<2>, index, !pypto.task_id) -> !pypto.task_ids<2>
