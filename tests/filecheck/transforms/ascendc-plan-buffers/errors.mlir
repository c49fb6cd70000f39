// RUN: pypto-opt %s --split-input-file --verify-diagnostics -p ascendc-plan-buffers | filecheck %s
// RUN: not pypto-opt %s --split-input-file -p 'ascendc-plan-buffers{ub-bytes=0}' 2>&1 | filecheck %s --check-prefix=OPTION
// A plan that does not fit even single-buffered names the function, every tile and its size.

pypto.func incore @too_big(%a: !pypto.tensor<[256, 256], f32>, out %o: !pypto.tensor<[256, 256], f32>) -> !pypto.tensor<[256, 256], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[256, 256], f32> -> !pypto.tile<[256, 256], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[256, 256], f32, vec>
  %w = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[256, 256], f32, vec>, !pypto.tensor<[256, 256], f32>
  pypto.return %w : !pypto.tensor<[256, 256], f32>
}
// CHECK: ascendc-plan-buffers: cannot lower @too_big: its tiles need 524288 bytes of Unified Buffer but a core has 196608: %t !pypto.tile<[256, 256], f32, vec> (VECIN, 262144 B), %e !pypto.tile<[256, 256], f32, vec> (VECOUT, 262144 B). Use smaller tiles (loop over the tensor).
// OPTION: ascendc-plan-buffers: ub-bytes must be positive, got 0

// -----

pypto.func aic @f32mat(%a: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 16], f32, mat> -> !pypto.tile<[16, 16], f32, left>
  pypto.return
}
// CHECK: ascendc-plan-buffers: cannot lower 'pypto.tile.load' in @f32mat: cube operand tile !pypto.tile<[16, 16], f32, mat> must be f16 (bf16, f32 and int8 matmul are not supported yet)
