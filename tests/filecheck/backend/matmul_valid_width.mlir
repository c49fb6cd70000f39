// RUN: pypto-opt %s -p convert-tensor-to-tile | filecheck %s --check-prefix=TILE
// RUN: pypto-opt %s -p convert-tensor-to-tile -t ascendc | filecheck %s
// A matmul whose B is a view of run-time valid width %w (`pl.slice(b, [64, 256], [0, 0],
// valid_shape=[64, w])`): the product is valid in %w columns (PyPTO's matmul rule). Each of
// the two N blocks takes its share of them, max(0, min(128, w - n)): its B tile is loaded
// `valid[64, share]` from the view's source, and its acc tile is stored through
// `tile.set_validshape` to that share. In the kernel the Nd2Nz copy takes `dValue = share`,
// the move into L0B and the Mmad take the share rounded up to whole fractals, and the Fixpipe
// stores `nSize = share` columns. tests/test_backend_dynamic.py runs a valid width through
// the simulation against the interpreter; docs/performance.md uses it for a balanced deal of
// the 1024³ matmul.

pypto.func incore @k(%a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 512], f16>, %w: index, out %c: !pypto.tensor<[128, 512], f32>) -> !pypto.tensor<[128, 512], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bs = pypto.tensor.slice %b[%c0, %c0] : !pypto.tensor<[64, 512], f16> -> !pypto.tensor<[64, 256], f16>
  %bv = pypto.tensor.set_validshape %bs, %c64, %w : !pypto.tensor<[64, 256], f16>, index, index
  %p = pypto.tensor.matmul %a, %bv : !pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 256], f16> -> !pypto.tensor<[128, 256], f32>
  %r = pypto.tensor.assemble %p into %c[%c0, %c0] : !pypto.tensor<[128, 256], f32> into !pypto.tensor<[128, 512], f32>
  pypto.return %r : !pypto.tensor<[128, 512], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[128, 64], f16>, %b: !pypto.tensor<[64, 512], f16>, %w: index, out %c: !pypto.tensor<[128, 512], f32>) -> !pypto.tensor<[128, 512], f32> {
  %r = pypto.call @k(%a, %b, %w, %c) : (!pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 512], f16>, index, !pypto.tensor<[128, 512], f32>) -> !pypto.tensor<[128, 512], f32>
  pypto.return %r : !pypto.tensor<[128, 512], f32>
}

// TILE-LABEL: pypto.func incore @k
// TILE:         %a_panel = pypto.tile.load %a
// TILE:         scf.for %n = %c0 to %c256 step %c128
// TILE-NEXT:      %[[LEFT:.*]] = arith.subi %w, %n : index
// TILE-NEXT:      %[[CUT:.*]] = arith.minsi %[[LEFT]], %c128 : index
// TILE-NEXT:      %valid_cols = arith.maxsi %[[CUT]], %c0 : index
// TILE-NOT:       pypto.tile.load %bv
// TILE:           %bv_mat = pypto.tile.load %bs[%c0, %n] valid[%c64, %valid_cols] : !pypto.tensor<[64, 256], f16> -> !pypto.tile<[64, 128], f16, mat>
// TILE:           %acc = pypto.tile.matmul %a_left, %bv_right
// TILE-NEXT:      %acc_valid = pypto.tile.set_validshape %acc, %c128, %valid_cols
// TILE-NEXT:      pypto.tile.store %acc_valid

// CHECK-LABEL: void k(GM_ADDR a, GM_ADDR b, int64_t w, GM_ADDR c) {
// CHECK:         for (int64_t n = 0; n < 256; n += 128) {
// CHECK:           const int64_t valid_cols = {{.*}} > 0 ? {{.*}} : 0;
// CHECK:           bv_mat_nd2nz.dValue = valid_cols;
// CHECK:           DataCopy(bv_mat, b_gm[n], bv_mat_nd2nz);
// CHECK:           const int64_t fractal_cols = {{.*}} * 16;
// CHECK:           bv_right_load.kExtension = fractal_cols;
// CHECK:           acc_mmad.m = 128;
// CHECK-NEXT:      acc_mmad.n = fractal_cols;
// CHECK:           acc_fixpipe.nSize = valid_cols;
// CHECK-NEXT:      acc_fixpipe.mSize = 128;
// CHECK:           Fixpipe(c_gm[n], acc, acc_fixpipe);
