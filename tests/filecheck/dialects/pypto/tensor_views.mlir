// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Tensor views with run-time extents and valid regions (PyPTO's `pl.slice(t, [16, n], ...)`
// with an index `n`, and `pl.slice(..., valid_shape=[16, v])`) and byte reinterpretations
// (`pl.tensor.reinterpret_view`), in the custom and the generic form.

builtin.module {
  pypto.func orchestration @views(%t: !pypto.tensor<[64, 128], f32>, %n: index, %v: index) -> !pypto.tensor<[16, ?], f32> {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %w = pypto.tensor.slice %t[%c16, %c0] sizes(%n) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, ?], f32>
    %both = pypto.tensor.slice %t[%c0, %c0] sizes(%n, %v) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[?, ?], f32>
    %s = pypto.tensor.slice %t[%c0, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, 128], f32>
    %p = pypto.tensor.set_validshape %s, %c16, %v : !pypto.tensor<[16, 128], f32>, index, index
    %bits = pypto.tensor.reinterpret_view %s : !pypto.tensor<[16, 128], f32> -> !pypto.tensor<[16, 128], i32>
    %halves = pypto.tensor.reinterpret_view %t {note = "h"} : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[64, 256], f16>
    %dyn = pypto.tensor.reinterpret_view %w : !pypto.tensor<[16, ?], f32> -> !pypto.tensor<[16, ?], ui32>
    pypto.return %w : !pypto.tensor<[16, ?], f32>
  }
}

// CHECK:      %w = pypto.tensor.slice %t[%c16, %c0] sizes(%n) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, ?], f32>
// CHECK-NEXT: %both = pypto.tensor.slice %t[%c0, %c0] sizes(%n, %v) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[?, ?], f32>
// CHECK-NEXT: %s = pypto.tensor.slice %t[%c0, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, 128], f32>
// CHECK-NEXT: %p = pypto.tensor.set_validshape %s, %c16, %v : !pypto.tensor<[16, 128], f32>, index, index
// CHECK-NEXT: %bits = pypto.tensor.reinterpret_view %s : !pypto.tensor<[16, 128], f32> -> !pypto.tensor<[16, 128], i32>
// CHECK-NEXT: %halves = pypto.tensor.reinterpret_view %t {note = "h"} : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[64, 256], f16>
// CHECK-NEXT: %dyn = pypto.tensor.reinterpret_view %w : !pypto.tensor<[16, ?], f32> -> !pypto.tensor<[16, ?], ui32>

// CHECK-GENERIC:      %w = "pypto.tensor.slice"(%t, %c16, %c0, %n) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (!pypto.tensor<[64, 128], f32>, index, index, index) -> !pypto.tensor<[16, ?], f32>
// CHECK-GENERIC-NEXT: %both = "pypto.tensor.slice"(%t, %c0, %c0, %n, %v) <{operandSegmentSizes = array<i32: 1, 2, 2>}>
// CHECK-GENERIC-NEXT: %s = "pypto.tensor.slice"(%t, %c0, %c0) <{operandSegmentSizes = array<i32: 1, 2, 0>}>
// CHECK-GENERIC-NEXT: %p = "pypto.tensor.set_validshape"(%s, %c16, %v) : (!pypto.tensor<[16, 128], f32>, index, index) -> !pypto.tensor<[16, 128], f32>
// CHECK-GENERIC-NEXT: %bits = "pypto.tensor.reinterpret_view"(%s) : (!pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], i32>
// CHECK-GENERIC-NEXT: %halves = "pypto.tensor.reinterpret_view"(%t) {note = "h"} : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 256], f16>
