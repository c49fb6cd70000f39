// RUN: PYPTO_VERIFY_DIAG

// The verifier messages of tensor views with run-time extents and valid regions, and of
// byte reinterpretations.

pypto.func orchestration @f(%t: !pypto.tensor<[64, 128], f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.slice %t[%c0, %c0] : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, ?], f32>
  pypto.return
}

// CHECK: Operation does not verify: the result !pypto.tensor<[16, ?], f32> has 1 run-time ('?') dimensions but 0 sizes were given

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64, 128], f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.slice %t[%c0, %c0] sizes(%n) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[16, 8], f32>
  pypto.return
}

// CHECK: Operation does not verify: the result !pypto.tensor<[16, 8], f32> has 0 run-time ('?') dimensions but 1 sizes were given

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64, 128], f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.slice %t[%c0, %c0] sizes(%n) : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[?, 256], f32>
  pypto.return
}

// CHECK: Operation does not verify: slice: window [?, 256] exceeds !pypto.tensor<[64, 128], f32>

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64], f32>, %n: index) {
  %w = pypto.tensor.set_validshape %t, %n, %n : !pypto.tensor<[64], f32>, index, index
  pypto.return
}

// CHECK: Operation does not verify: operand 'input' must be a 2-D tensor, got !pypto.tensor<[64], f32>

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64, 8], f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %w = pypto.tensor.set_validshape %t, %c0, %n : !pypto.tensor<[64, 8], f32>, index, i32
  pypto.return
}

// CHECK: Operation does not verify: operand 'valid_cols' at position 2 does not verify:
// CHECK-NEXT: i32 should be of base attribute index

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64, 128], f32>) {
  %v = pypto.tensor.reinterpret_view %t : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[128, 64], f32>
  pypto.return
}

// CHECK: Operation does not verify: pypto.tensor.reinterpret_view keeps the element type f32; it views the bytes as another element type

// -----

pypto.func orchestration @f(%t: !pypto.tensor<[64, 128], f32>) {
  %v = pypto.tensor.reinterpret_view %t : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[64, 128], f16>
  pypto.return
}

// CHECK: Operation does not verify: pypto.tensor.reinterpret_view: !pypto.tensor<[64, 128], f32> holds 32768 bytes but !pypto.tensor<[64, 128], f16> holds 16384
