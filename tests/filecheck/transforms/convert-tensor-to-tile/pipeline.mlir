// RUN: pypto-opt %s -p pypto-default,convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s -p pypto-default,convert-tensor-to-tile -t ascendc | filecheck %s --check-prefix=ASCENDC

// Tensor-level compute written inside an incore scope: outline-incore-scopes makes it a
// kernel with %o as an out parameter, and convert-tensor-to-tile makes the kernel
// codegen-ready: per row, three queues (the loads of %a and %b, the stored %e) of 384 B,
// double-buffered, and two shared VECCALC tiles (%s, %t): 3072 B, so 64 rows would fit the
// 192 KiB; with %s and %t computed in place over the loaded %a (ascendc-plan-buffers does
// that when the double-buffered plan overflows) 2304 B, so 85 rows fit -> 4 blocks of 75.
// expand-mixed-kernel, last in pypto-default, makes the vector-only kernel aiv.

pypto.func @main(%a: !pypto.tensor<[300, 96], f32>, %b: !pypto.tensor<[300, 96], f32>, %k: f32, out %o: !pypto.tensor<[300, 96], f32>) -> !pypto.tensor<[300, 96], f32> {
  %r = pypto.incore_scope name("fused") -> (!pypto.tensor<[300, 96], f32>) {
    %c0 = arith.constant 0 : index
    %s = pypto.tensor.mul %a, %b : !pypto.tensor<[300, 96], f32>
    %t = pypto.tensor.adds %s, %k : !pypto.tensor<[300, 96], f32>, f32
    %e = pypto.tensor.exp %t : !pypto.tensor<[300, 96], f32>
    %w = pypto.tensor.assemble %e into %o[%c0, %c0] : !pypto.tensor<[300, 96], f32> into !pypto.tensor<[300, 96], f32>
    pypto.yield %w : !pypto.tensor<[300, 96], f32>
  }
  pypto.return %r : !pypto.tensor<[300, 96], f32>
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %r = pypto.call @fused(%a, %b, %k, %o)
// CHECK-LABEL: pypto.func aiv @fused(%a: !pypto.tensor<[300, 96], f32>, %b: !pypto.tensor<[300, 96], f32>, %k: f32, out %o: !pypto.tensor<[300, 96], f32>)
// CHECK:         scf.for %row = %c0{{.*}} to %c300 step %c75 iter_args(%o_2 = %o)
// CHECK-NEXT:      %a_tile = pypto.tile.load %a[%row, %c0{{.*}}] : !pypto.tensor<[300, 96], f32> -> !pypto.tile<[75, 96], f32, vec>
// CHECK-NEXT:      %b_tile = pypto.tile.load %b[%row, %c0{{.*}}] : !pypto.tensor<[300, 96], f32> -> !pypto.tile<[75, 96], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.mul %a_tile, %b_tile
// CHECK-NEXT:      %t_tile = pypto.tile.adds %s_tile, %k
// CHECK-NEXT:      %e_tile = pypto.tile.exp %t_tile
// CHECK-NEXT:      %o_3 = pypto.tile.store %e_tile, %o_2[%row, %c0{{.*}}]
// CHECK-NEXT:      scf.yield %o_3
// CHECK-NOT:   pypto.tensor.

// ASCENDC-LABEL: // ===== file: kernels/fused.cpp =====
// ASCENDC:       extern "C" __global__ __aicore__ void fused(GM_ADDR a, GM_ADDR b, float k, GM_ADDR o) {
// ASCENDC:         for (int64_t row = 0; row < 300; row += 75) {
// ASCENDC:           Mul(a_tile, a_tile, b_tile, 7200);
// ASCENDC:           Adds(a_tile, a_tile, k, 7200);
// ASCENDC:           Exp(e_tile, a_tile, 7200);
// ASCENDC:           DataCopy(o_gm[row * 96], e_tile, 7200);
