// RUN: pypto-opt %s -p pypto-default | filecheck %s
// RUN: pypto-opt %s -p 'pypto-default{fold-bias=false}' | filecheck %s --check-prefix=MIX

// A linear layer written as a mixed scope (the product moved to vec for the bias and the
// relu): pypto-default folds the epilogue into the cube (fold-bias-epilogue runs before
// expand-mixed-kernel), so the scope is one aic kernel; with fold-bias=false it stays a
// mixed kernel, split into a group of an aic and an aiv member.

pypto.func @main(%x: !pypto.tensor<[32, 32], f16>, %w: !pypto.tensor<[32, 48], f16>, %bias: !pypto.tensor<[1, 48], f32>, out %y: !pypto.tensor<[32, 48], f32>) -> !pypto.tensor<[32, 48], f32> {
  %r = pypto.incore_scope name("linear") -> (!pypto.tensor<[32, 48], f32>) {
    %c0 = arith.constant 0 : index
    %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
    %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[32, 48], f16> -> !pypto.tile<[32, 48], f16, mat>
    %l = pypto.tile.move %a : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
    %rr = pypto.tile.move %b : !pypto.tile<[32, 48], f16, mat> -> !pypto.tile<[32, 48], f16, right>
    %acc = pypto.tile.matmul %l, %rr : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 48], f16, right> -> !pypto.tile<[32, 48], f32, acc>
    %t = pypto.tile.move %acc : !pypto.tile<[32, 48], f32, acc> -> !pypto.tile<[32, 48], f32, vec>
    %row = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 48], f32> -> !pypto.tile<[1, 48], f32, vec>
    %s = pypto.tile.col_expand_add %t, %row : !pypto.tile<[32, 48], f32, vec>, !pypto.tile<[1, 48], f32, vec>
    %rl = pypto.tile.relu %s : !pypto.tile<[32, 48], f32, vec>
    %st = pypto.tile.store %rl, %y[%c0, %c0] : !pypto.tile<[32, 48], f32, vec>, !pypto.tensor<[32, 48], f32>
    pypto.yield %st : !pypto.tensor<[32, 48], f32>
  }
  pypto.return %r : !pypto.tensor<[32, 48], f32>
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NOT:   pypto.func group
// CHECK-LABEL: pypto.func aic @linear(
// CHECK:         %[[BT:.*]] = pypto.tile.move %row : !pypto.tile<[1, 48], f32, mat> -> !pypto.tile<[1, 48], f32, bias>
// CHECK-NEXT:    %acc = pypto.tile.matmul_bias %l, %rr, %[[BT]] :
// CHECK-NEXT:    %[[R:.*]] = pypto.tile.relu %acc : !pypto.tile<[32, 48], f32, acc>
// CHECK-NEXT:    %st = pypto.tile.store %[[R]], %y[%c0, %c0] : !pypto.tile<[32, 48], f32, acc>
// CHECK-NOT:     vec>
// CHECK-NOT:     pypto.func

// MIX-LABEL: pypto.func aic @linear_aic(
// MIX-NOT:     matmul_bias
// MIX:         pypto.tile.matmul %l, %rr
// MIX:         pypto.cross_core.push
// MIX-LABEL: pypto.func aiv @linear_aiv(
// MIX:         pypto.cross_core.pop
// MIX:         pypto.tile.col_expand_add
// MIX:         pypto.tile.relu {{.*}} : !pypto.tile<[32, 48], f32, vec>
// MIX-LABEL: pypto.func group @linear(
