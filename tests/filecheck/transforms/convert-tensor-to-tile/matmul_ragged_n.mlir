// RUN: pypto-opt %s -p convert-tensor-to-tile | filecheck %s
// N = 352 has no good block divisor (its largest multiple of 16 up to 128 that divides it is
// 32: eleven narrow blocks); the matmul takes blocks of 128 columns instead, the last one
// ragged: each block's share of the columns, max(0, min(128, 352 - n)), is loaded into L1
// `valid[Kb, share]` and stored through `tile.set_validshape`, as for a B of run-time valid
// width (tests/filecheck/backend/matmul_valid_width.mlir). The one M block keeps a single A
// panel in L1 for its three N blocks.

pypto.func incore @k(%a: !pypto.tensor<[128, 256], f16>, %b: !pypto.tensor<[256, 352], f16>, out %c: !pypto.tensor<[128, 352], f32>) -> !pypto.tensor<[128, 352], f32> {
  %c0 = arith.constant 0 : index
  %p = pypto.tensor.matmul %a, %b : !pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 352], f16> -> !pypto.tensor<[128, 352], f32>
  %r = pypto.tensor.assemble %p into %c[%c0, %c0] : !pypto.tensor<[128, 352], f32> into !pypto.tensor<[128, 352], f32>
  pypto.return %r : !pypto.tensor<[128, 352], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[128, 256], f16>, %b: !pypto.tensor<[256, 352], f16>, out %c: !pypto.tensor<[128, 352], f32>) -> !pypto.tensor<[128, 352], f32> {
  %r = pypto.call @k(%a, %b, %c) : (!pypto.tensor<[128, 256], f16>, !pypto.tensor<[256, 352], f16>, !pypto.tensor<[128, 352], f32>) -> !pypto.tensor<[128, 352], f32>
  pypto.return %r : !pypto.tensor<[128, 352], f32>
}

// CHECK-LABEL: pypto.func incore @k
// CHECK:         %a_panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[128, 256], f16, mat>
// CHECK:         scf.for %n = %c0 to %c352 step %c128
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %c352, %n : index
// CHECK-NEXT:      %[[CUT:.*]] = arith.minsi %[[LEFT]], %c128 : index
// CHECK-NEXT:      %valid_cols = arith.maxsi %[[CUT]], %c0 : index
// CHECK:           pypto.tile.slice %a_panel
// CHECK-NEXT:      %b_mat = pypto.tile.load %b[%k, %n] valid[%c128, %valid_cols] : !pypto.tensor<[256, 352], f16> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NOT:       !pypto.tile<[128, 32]
// CHECK:           %acc_valid = pypto.tile.set_validshape %acc_1, %c128, %valid_cols
// CHECK-NEXT:      pypto.tile.store %acc_valid, %c_2[%c0, %n]
